// weft_prop_pcie_tags: the tag pool of the PCIe-like endpoint's read side (weft_pcie_rd), as
// properties on its TLP ports (docs/formal.md).
//
// A shadow pool follows the TLPs: a tag is in flight from the MRd that carries it (tx handshake)
// until the completion that brings its last byte (the eop of a successful CplD whose byte count
// equals its length) or until an error names it (err_valid_o: timeout, UR, CA, poisoned).
// Endpoint (proven):
//   tag_unused       an MRd never carries a tag that is in flight (no tag reused while in
//                    flight), and its tag is below NumTags;
//   mrd_stable       an MRd offered and refused stays offered, unchanged;
//   free_count       tags_free_o equals NumTags minus the tags in flight: every tag returns to
//                    the pool after its last completion or its error, none earlier;
//   err_in_flight    an error names a tag in flight;
//   timeout_late     a timeout (code 1) only for a tag without a completion for cpl_timeout_i
//                    cycles;
//   timeout_bounded  a tag that has waited cpl_timeout_i cycles is released (by its timeout)
//                    within NumTags cycles in which no completion is arriving.
// Root complex (assumed in a proof, checked in simulation): completions follow the TLP framing
// (a header beat with sop, payload beats without sop, eop on the last); a completion for a tag
// in flight (Requester ID EpId) is either a Cpl with UR or CA status (one beat), or a CplD with
// Successful status, Byte Count = the bytes still expected, the expected Lower Address, a payload
// of whole 16-byte beats no larger than the bytes expected, and exactly that many payload beats.
// Completions for other tags, or for other requesters, are free (the endpoint must drop them).
`include "weft_assert.svh"
`include "weft_prop.svh"

module weft_prop_pcie_tags #(
  parameter int          NumTags = 32,
  parameter logic [15:0] EpId    = 16'h0100,
  parameter int          AgeW    = 32,    // width of the shadow ages (saturating; > log2 of the timeout)
  // 1: a completion that breaks a root-complex rule (the malformed-completion tests send them on
  // purpose) is no error in simulation; it ends the checking until reset, since the shadow pool
  // follows only well-formed completions. 0 (proofs): the rules are assumptions / $errors.
  parameter bit          EnvBreakable = 1'b0,
  localparam int         TagW    = $clog2(NumTags),
  localparam int         CntW    = $clog2(NumTags + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            tx_valid,
  input  logic            tx_ready,
  input  logic [127:0]    tx_data,
  input  logic            cpl_valid,
  input  logic            cpl_sop,
  input  logic            cpl_eop,
  input  logic [127:0]    cpl_data,
  input  logic [31:0]     cpl_timeout,
  input  logic [CntW-1:0] tags_free,
  input  logic            err_valid,
  input  logic [3:0]      err_code,
  input  logic [7:0]      err_tag
);

  if (NumTags < 2 || NumTags > 256 || (1 << TagW) != NumTags) begin : g_bad
    `WEFT_ELAB_ERROR("weft_prop_pcie_tags: NumTags must be a power of two in 2..256")
  end

`ifdef WEFT_PROP_LIVE
  localparam int ByteW = 13;

  // ---------------------------------------------------------------- the MRd being sent
  logic [7:0]       m_tag;
  logic [ByteW-1:0] m_bytes;
  logic [6:0]       m_la;     // address bits 6:0 (DW aligned)
  logic             mrd;
  assign m_tag   = tx_data[47:40];
  assign m_bytes = (tx_data[9:0] == 10'd0) ? ByteW'(4096) : ByteW'({tx_data[9:0], 2'b00});
  assign m_la    = tx_data[29] ? {tx_data[102:98], 2'b00} : {tx_data[70:66], 2'b00};
  assign mrd     = tx_valid && tx_ready;

  // ---------------------------------------------------------------- the completion header
  logic [TagW-1:0]  c_tag;
  logic             c_hdr, c_ours, c_sc, c_err, c_data;
  logic [ByteW-1:0] c_bytes, c_bc;
  logic [2:0]       c_status;
  logic [6:0]       c_la;
  assign c_hdr    = cpl_valid && cpl_sop;
  assign c_tag    = cpl_data[72 +: TagW];
  assign c_status = cpl_data[47:45];
  assign c_bytes  = (cpl_data[9:0] == 10'd0) ? ByteW'(4096) : ByteW'({cpl_data[9:0], 2'b00});
  assign c_bc     = (cpl_data[43:32] == 12'd0) ? ByteW'(4096) : ByteW'(cpl_data[43:32]);
  assign c_la     = cpl_data[70:64];
  assign c_data   = cpl_data[30];

  // ---------------------------------------------------------------- shadow pool
  logic [NumTags-1:0]       fl_q, fl_d;         // in flight
  logic [NumTags*ByteW-1:0] rem_q, rem_d;       // bytes not yet received
  logic [NumTags*ByteW-1:0] len_q, len_d;       // the MRd's length
  logic [NumTags*7-1:0]     la_q, la_d;         // the MRd's address bits 6:0
  logic [NumTags*AgeW-1:0]  age_q, age_d;       // cycles since the MRd or the last good header
  logic [NumTags*CntW-1:0]  late_q, late_d;     // quiet cycles since the age reached the timeout
  logic                     pl_q, pl_d;         // inside a completion's payload
  logic                     pg_q, pg_d;         // ... of a good CplD (its beats are counted)
  logic [ByteW-5:0]         pleft_q, pleft_d;   // its payload beats still to come
  logic                     pfinal_q, pfinal_d; // it brings the request's last bytes
  logic [TagW-1:0]          ptag_q, ptag_d;

  logic [ByteW-1:0] c_rem, c_len;
  logic [6:0]       c_la_exp;
  assign c_ours   = (cpl_data[95:80] == EpId) && (cpl_data[79:72] < 8'(NumTags)) &&
                    fl_q[c_tag];
  assign c_rem    = rem_q[32'(c_tag)*ByteW +: ByteW];
  assign c_len    = len_q[32'(c_tag)*ByteW +: ByteW];
  assign c_la_exp = la_q[32'(c_tag)*7 +: 7] + 7'(c_len - c_rem);
  assign c_err    = (c_status == 3'b001) || (c_status == 3'b100);
  assign c_sc     = (c_status == 3'b000);

  logic quiet;  // no completion arriving this cycle
  assign quiet = !cpl_valid && !pl_q;

  always_comb begin : p_pool
    fl_d     = fl_q;
    rem_d    = rem_q;
    len_d    = len_q;
    la_d     = la_q;
    age_d    = age_q;
    late_d   = late_q;
    pl_d     = pl_q;
    pg_d     = pg_q;
    pleft_d  = pleft_q;
    pfinal_d = pfinal_q;
    ptag_d   = ptag_q;
    for (int t = 0; t < NumTags; t++) begin
      if (age_q[t*AgeW +: AgeW] != '1) age_d[t*AgeW +: AgeW] = age_q[t*AgeW +: AgeW] + 1'b1;
      if (fl_q[t] && quiet && 32'(age_q[t*AgeW +: AgeW]) >= cpl_timeout &&
          late_q[t*CntW +: CntW] != '1) begin
        late_d[t*CntW +: CntW] = late_q[t*CntW +: CntW] + 1'b1;
      end
    end
    // completions
    if (c_hdr) begin
      pl_d = !cpl_eop;
      pg_d = 1'b0;
      if (c_ours && c_sc && c_data) begin
        pg_d     = 1'b1;
        pleft_d  = c_bytes[ByteW-1:4];
        pfinal_d = (c_bytes == c_rem);
        ptag_d   = c_tag;
        rem_d[32'(c_tag)*ByteW +: ByteW] = c_rem - c_bytes;
        age_d[32'(c_tag)*AgeW +: AgeW]   = '0;
        late_d[32'(c_tag)*CntW +: CntW]  = '0;
      end
    end else if (cpl_valid && pl_q) begin
      if (pg_q) pleft_d = pleft_q - 1'b1;
      if (cpl_eop) begin
        pl_d = 1'b0;
        if (pg_q && pfinal_q) fl_d[ptag_q] = 1'b0;
      end
    end
    if (err_valid && err_tag < 8'(NumTags)) fl_d[err_tag[TagW-1:0]] = 1'b0;
    // a new request
    if (mrd && m_tag < 8'(NumTags)) begin
      fl_d[m_tag[TagW-1:0]]                  = 1'b1;
      rem_d[32'(m_tag)*ByteW +: ByteW]       = m_bytes;
      len_d[32'(m_tag)*ByteW +: ByteW]       = m_bytes;
      la_d[32'(m_tag)*7 +: 7]                = m_la;
      age_d[32'(m_tag)*AgeW +: AgeW]         = '0;
      late_d[32'(m_tag)*CntW +: CntW]        = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      fl_q     <= '0;
      rem_q    <= '0;
      len_q    <= '0;
      la_q     <= '0;
      age_q    <= '0;
      late_q   <= '0;
      pl_q     <= 1'b0;
      pg_q     <= 1'b0;
      pleft_q  <= '0;
      pfinal_q <= 1'b0;
      ptag_q   <= '0;
    end else begin
      fl_q     <= fl_d;
      rem_q    <= rem_d;
      len_q    <= len_d;
      la_q     <= la_d;
      age_q    <= age_d;
      late_q   <= late_d;
      pl_q     <= pl_d;
      pg_q     <= pg_d;
      pleft_q  <= pleft_d;
      pfinal_q <= pfinal_d;
      ptag_q   <= ptag_d;
    end
  end

  weft_prop_channel #(.W(128), .Prove(1'b1)) mrd_stable (
    .clk_i, .rst_ni, .valid(tx_valid), .ready(tx_ready), .payload(tx_data));

  logic [CntW-1:0] n_free;
  logic            late_ok;
  always_comb begin : p_count
    n_free  = CntW'(NumTags);
    late_ok = 1'b1;
    for (int t = 0; t < NumTags; t++) begin
      if (fl_q[t]) n_free = n_free - 1'b1;
      if (fl_q[t] && 32'(late_q[t*CntW +: CntW]) > NumTags) late_ok = 1'b0;
    end
  end

  // ---------------------------------------------------------------- the root complex's rules
  logic cpl_framing_ok, cpl_payload_ok, cpl_wellformed_ok, env_ok, env_broken_q, check;
  assign cpl_framing_ok    = !cpl_valid || (cpl_sop == !pl_q);
  assign cpl_payload_ok    = !(cpl_valid && pl_q && pg_q) || (cpl_eop == (pleft_q == 1));
  assign cpl_wellformed_ok = !(c_hdr && c_ours) ||
                             (cpl_data[28:24] == 5'b01010 && !cpl_data[14] &&
                              ((c_err && !c_data && cpl_eop) ||
                               (c_sc && c_data && !cpl_eop && c_bc == c_rem && c_la == c_la_exp &&
                                c_bytes[3:0] == 4'd0 && c_bytes <= c_rem)));
  assign env_ok = cpl_framing_ok && cpl_payload_ok && cpl_wellformed_ok;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_env
    if (!rst_ni)      env_broken_q <= 1'b0;
    else if (!env_ok) env_broken_q <= 1'b1;
  end
  // The design's obligations hold while its environment keeps the rules.
  assign check = !EnvBreakable || (env_ok && !env_broken_q);

  // ---------------------------------------------------------------- properties
  always @(`WEFT_PROP_EVENT) begin : p_props
    if (rst_ni && check) begin
      if (mrd) begin
        `WEFT_PROVE(tag_unused, (m_tag < 8'(NumTags) && !fl_q[m_tag[TagW-1:0]]), "MRd with a tag in flight")
      end
      `WEFT_PROVE(free_count, (tags_free == n_free), "tags_free_o differs from the tags not in flight")
      if (err_valid) begin
        `WEFT_PROVE(err_in_flight, (err_tag < 8'(NumTags) && fl_q[err_tag[TagW-1:0]]), "error for a tag not in flight")
        if (err_code == 4'd1) begin
          `WEFT_PROVE(timeout_late, (32'(age_q[32'(err_tag)*AgeW +: AgeW]) >= cpl_timeout), "timeout before cpl_timeout cycles")
        end
      end
      `WEFT_PROVE(timeout_bounded, late_ok, "a timed-out tag not released within NumTags quiet cycles")
    end
    if (rst_ni && !EnvBreakable) begin
      `WEFT_ASSUME(cpl_framing, cpl_framing_ok, "completion beat: sop outside a TLP only")
      `WEFT_ASSUME(cpl_payload, cpl_payload_ok, "CplD payload beats differ from its Length")
      `WEFT_ASSUME(cpl_wellformed, cpl_wellformed_ok,
                   "completion for a tag in flight is not a UR/CA Cpl or a well-formed CplD")
    end
  end
  logic unused_bits;  // the completion's payload and the header fields the pool does not need
  assign unused_bits = ^{cpl_data[127:96], cpl_data[71], cpl_data[63:48], cpl_data[44],
                         cpl_data[31], cpl_data[29], cpl_data[23:15], cpl_data[13:10]};
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, tx_valid, tx_ready, tx_data, cpl_valid, cpl_sop, cpl_eop,
                    cpl_data, cpl_timeout, tags_free, err_valid, err_code, err_tag};
`endif

endmodule
