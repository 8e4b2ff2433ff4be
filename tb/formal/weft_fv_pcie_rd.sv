// weft_fv_pcie_rd: SymbiYosys harness of the PCIe-like endpoint's tag pool (docs/formal.md, proof
// "pcie_tags"): weft_pcie_rd with 2 tags and 32-byte read requests (two beats, so completions split), weft_prop_pcie_tags on its MRd
// and completion ports; reset in the first cycle.
// The AXI side, tx_ready and the completions are free within the rules of weft_prop_pcie_tags;
// what narrows the search (not a rule of the endpoint) comes from narrow free inputs, zero
// elsewhere: AR addresses below 4 KiB or at 4 GiB + below 4 KiB (3DW and 4DW MRds) and bursts of at
// most 8 beats; completion beats carry only the header fields the endpoint reads, with
// Length, Byte Count and Lower Address below 128 and tags 0..3 (2 and 3 are never in flight); the
// completion timeout is fixed in 2..9 cycles.
`include "weft_axi_types.svh"

module weft_fv_pcie_rd #(
  parameter int          NumTags    = 2,
  parameter int          MaxReadReq = 32,
  parameter int          IdW        = 1,
  parameter logic [15:0] EpId       = 16'h0100,
  localparam int         CntW       = $clog2(NumTags + 1)
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         ar_valid_i,
  input  logic [12:0]  ar_addr_f,    // {4 GiB, addr[11:0]}
  input  logic [2:0]   ar_len_f,
  input  logic [IdW-1:0] ar_id_f,
  input  logic         r_ready_i,
  input  logic         tx_ready_i,
  input  logic         cpl_valid_i,
  input  logic         cpl_sop_i,
  input  logic         cpl_eop_i,
  input  logic [4:0]   cpl_len_f,    // Length (DW)
  input  logic         cpl_ep_f,
  input  logic [2:0]   cpl_fmt_f,
  input  logic         cpl_type_f,   // 1: Cpl/CplD type, 0: another
  input  logic [6:0]   cpl_bc_f,     // Byte Count
  input  logic [2:0]   cpl_status_f,
  input  logic [6:0]   cpl_la_f,     // Lower Address
  input  logic [1:0]   cpl_tag_f,
  input  logic         cpl_ours_f,   // Requester ID = EpId
  input  logic [2:0]   cpl_timeout_f // timeout - 2
);

  weft_axi_ax_t ar_i;
  logic [127:0] cpl_data_i;
  logic [31:0]  cpl_timeout_i;
  always_comb begin
    ar_i       = '0;
    ar_i.addr  = {31'd0, ar_addr_f[12], 20'd0, ar_addr_f[11:0]};
    ar_i.len   = 8'(ar_len_f);
    ar_i.id    = 8'(ar_id_f);
    cpl_data_i = '0;
    cpl_data_i[9:0]   = 10'(cpl_len_f);
    cpl_data_i[14]    = cpl_ep_f;
    cpl_data_i[28:24] = cpl_type_f ? 5'b01010 : 5'b00000;
    cpl_data_i[31:29] = cpl_fmt_f;
    cpl_data_i[43:32] = 12'(cpl_bc_f);
    cpl_data_i[47:45] = cpl_status_f;
    cpl_data_i[70:64] = cpl_la_f;
    cpl_data_i[79:72] = 8'(cpl_tag_f);
    cpl_data_i[95:80] = cpl_ours_f ? EpId : ~EpId;
    cpl_timeout_i     = 32'(cpl_timeout_f) + 32'd2;
  end

  logic            ar_ready, r_valid, tx_valid, err_valid, cpl_bad;
  weft_axi_r_t     r;
  logic [127:0]    r_data, tx_data;
  logic [CntW-1:0] tags_free;
  logic [3:0]      err_code;
  logic [7:0]      err_tag;
  logic [63:0]     err_addr;

  weft_pcie_rd #(.NumTags(NumTags), .MaxReadReq(MaxReadReq), .IdW(IdW), .EpId(EpId)) u_dut (
    .clk_i, .rst_ni,
    .ar_valid_i, .ar_ready_o (ar_ready), .ar_i,
    .r_valid_o (r_valid), .r_ready_i, .r_o (r), .r_data_o (r_data),
    .tx_valid_o (tx_valid), .tx_ready_i, .tx_data_o (tx_data),
    .cpl_valid_i, .cpl_sop_i, .cpl_eop_i, .cpl_data_i,
    .cpl_timeout_i,
    .tags_free_o (tags_free), .err_valid_o (err_valid), .err_code_o (err_code),
    .err_tag_o (err_tag), .err_addr_o (err_addr), .cpl_bad_o (cpl_bad)
  );

  weft_prop_pcie_tags #(.NumTags(NumTags), .EpId(EpId), .AgeW(5)) u_prop (
    .clk_i, .rst_ni,
    .tx_valid, .tx_ready (tx_ready_i), .tx_data,
    .cpl_valid (cpl_valid_i), .cpl_sop (cpl_sop_i), .cpl_eop (cpl_eop_i), .cpl_data (cpl_data_i),
    .cpl_timeout (cpl_timeout_i), .tags_free, .err_valid, .err_code, .err_tag
  );

  logic unused;
  assign unused = ^{ar_ready, r_valid, r, r_data, err_addr, cpl_bad};

  // Reset in the first cycle, then never again.
  logic first;
  weft_fv_reset u_reset (.clk_i, .rst_ni, .first_o (first));

  // The timeout register does not change.
  logic [2:0] to_q;
  always @(posedge clk_i) to_q <= cpl_timeout_f;
  always @(*) begin
    if (!first) assume (cpl_timeout_f == to_q);
  end

  // Reachability: every tag in flight at once; a tag released by a timeout; a request completed
  // by its last CplD beat.
  always @(posedge clk_i) begin
    if (rst_ni) begin
      c_all_busy: cover (tags_free == '0);
      c_timeout:  cover (err_valid && err_code == 4'd1);
      c_complete: cover (r_valid && r_ready_i && r.last && r.resp == 2'b00);
    end
  end

endmodule
