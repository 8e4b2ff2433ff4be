// weft_spad: the scratchpad. Banks x weft_sram_1r1w of Lines/Banks lines of DataW bits; bank b
// holds lines [b*Lines/Banks, (b+1)*Lines/Banks) (the bank is the line address's high bits).
//
// Write port: one line per cycle, always accepted (each bank has its own write port, so a write
// never conflicts with a read).
// Read ports (NumRd): port i requests line rd_req_addr_i[i*LineAw +: LineAw] with
// rd_req_valid_i[i]; rd_req_ready_o[i] says it was accepted this cycle. Each bank serves one
// request per cycle; ports that request the same bank in a cycle are served round-robin (the
// search starts after the port that bank served last), so a port waits at most NumRd-1 cycles.
// The response of a request accepted in cycle c is on rd_rsp_valid_o[i] / rd_rsp_data_o in
// cycle c + weft_pkg::SpadReadLatency (2): the SRAM read at the end of cycle c, then a register
// after the bank multiplexer. Responses come in request order and cannot be stalled: a client
// requests only when it has room for the data.
// Read and write of the same line in the same cycle: the read data is undefined (as the SRAM
// wrapper's); the command processor's dependencies keep them apart.
//
// ECC (Ecc = 1, docs/common.md "ECC"): every bank stores SECDED check bits with each line and
// the responses carry corrected lines. Each cycle, ecc_corr_o counts the lines read in the
// previous cycle that had one flipped bit (corrected; ecc_corr_line_o is one of them) and
// ecc_err_o flags one that had more (uncorrectable; its line in ecc_err_line_o, its response
// data is wrong). Lower banks win the addresses. Without Ecc the outputs are 0.
`include "weft_assert.svh"

module weft_spad #(
  parameter int  DataW     = 128,
  parameter int  Lines     = 16384,
  parameter int  Banks     = 4,
  parameter int  NumRd     = 3,
  parameter bit  Ecc       = 1'b0,  // SECDED in every bank
  localparam int LineAw    = $clog2(Lines),
  localparam int BankLines = Lines / Banks,
  localparam int BankSelW  = (Banks > 1) ? $clog2(Banks) : 1,
  localparam int BankAw    = (BankLines > 1) ? $clog2(BankLines) : 1,
  localparam int PortW     = (NumRd > 1) ? $clog2(NumRd) : 1,
  localparam int EccCntW   = $clog2(Banks + 1)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // write port
  input  logic                    wr_valid_i,
  input  logic [LineAw-1:0]       wr_addr_i,
  input  logic [DataW-1:0]        wr_data_i,
  // read ports
  input  logic [NumRd-1:0]        rd_req_valid_i,
  output logic [NumRd-1:0]        rd_req_ready_o,
  input  logic [NumRd*LineAw-1:0] rd_req_addr_i,
  output logic [NumRd-1:0]        rd_rsp_valid_o,
  output logic [NumRd*DataW-1:0]  rd_rsp_data_o,
  // ECC events (Ecc)
  output logic [EccCntW-1:0]      ecc_corr_o,
  output logic [LineAw-1:0]       ecc_corr_line_o,
  output logic                    ecc_err_o,
  output logic [LineAw-1:0]       ecc_err_line_o
);

  if (Lines < 2 || (1 << LineAw) != Lines) begin : g_bad_lines
    `WEFT_ELAB_ERROR("weft_spad: Lines must be a power of two >= 2")
  end
  if (Banks < 1 || Banks > Lines || (Banks > 1 && (1 << BankSelW) != Banks)) begin : g_bad_banks
    `WEFT_ELAB_ERROR("weft_spad: Banks must be a power of two <= Lines")
  end
  if (NumRd < 1) begin : g_bad_numrd
    `WEFT_ELAB_ERROR("weft_spad: NumRd must be >= 1")
  end
  if (DataW < 8 || DataW % 8 != 0) begin : g_bad_dataw
    `WEFT_ELAB_ERROR("weft_spad: DataW must be a positive multiple of 8")
  end
  if (weft_pkg::SpadReadLatency != 2) begin : g_bad_latency
    `WEFT_ELAB_ERROR("weft_spad: built for weft_pkg::SpadReadLatency == 2")
  end

  // Bank of a line address.
  function automatic logic [BankSelW-1:0] bank_of(input logic [LineAw-1:0] a);
    if (Banks > 1) bank_of = BankSelW'(a >> (LineAw - BankSelW));
    else           bank_of = '0;
  endfunction

  logic [BankSelW-1:0] port_bank [NumRd];
  logic [BankAw-1:0]   port_off  [NumRd];
  for (genvar i = 0; i < NumRd; i++) begin : g_port_addr
    assign port_bank[i] = bank_of(rd_req_addr_i[i*LineAw +: LineAw]);
    assign port_off[i]  = BankAw'(rd_req_addr_i[i*LineAw +: LineAw]);
  end

  logic [DataW-1:0] bank_rdata [Banks];
  logic [NumRd-1:0] bank_grant [Banks];
  logic [Banks-1:0] bank_read;             // the bank is read at this edge
  logic [Banks*BankAw-1:0] bank_off;      // at this line (bank b: [b*BankAw +: BankAw])
  logic [2*Banks-1:0] bank_ecc;            // rd_ecc_o of each bank

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [NumRd-1:0]  req, grant;
    logic [PortW-1:0]  pick;
    logic              any;
    logic [BankAw-1:0] rd_off;

    always_comb begin : p_req
      for (int i = 0; i < NumRd; i++) begin
        req[i] = rd_req_valid_i[i] && (port_bank[i] == BankSelW'(b));
      end
    end

    // Round-robin (weft_rr_pick): a granted request is always served, so the search moves past
    // the port it picks whenever it picks one.
    weft_rr_pick #(.N(NumRd)) u_pick (
      .clk_i,
      .rst_ni,
      .req_i     (req),
      .any_o     (any),
      .idx_o     (pick),
      .onehot_o  (grant),
      .adv_i     (any),
      .adv_idx_i (pick)
    );

    assign bank_grant[b] = grant;
    assign bank_read[b]  = any;
    assign bank_off[b*BankAw +: BankAw] = rd_off;

    always_comb begin : p_off
      rd_off = '0;
      for (int i = 0; i < NumRd; i++) begin
        if (grant[i]) rd_off = port_off[i];
      end
    end

    weft_sram_1r1w #(.Depth(BankLines), .Width(DataW), .Ecc(Ecc)) u_sram (
      .clk_i,
      .rd_en_i   (any),
      .rd_addr_i (rd_off),
      .rd_data_o (bank_rdata[b]),
      .rd_ecc_o  (bank_ecc[2*b +: 2]),
      .wr_en_i   (wr_valid_i && bank_of(wr_addr_i) == BankSelW'(b)),
      .wr_addr_i (BankAw'(wr_addr_i)),
      .wr_data_i,
      .wr_be_i   ({(DataW / 8){1'b1}})
    );
  end

  // Port side: accepted this cycle -> SRAM read at the edge -> bank mux into a response register.
  for (genvar i = 0; i < NumRd; i++) begin : g_rsp
    logic                s1_valid_q, rsp_valid_q;
    logic [BankSelW-1:0] s1_bank_q;
    logic [DataW-1:0]    rsp_data_q, rsp_data_d;
    logic                granted;

    always_comb begin : p_ready
      granted = 1'b0;
      for (int b = 0; b < Banks; b++) begin
        if (bank_grant[b][i]) granted = 1'b1;
      end
    end
    assign rd_req_ready_o[i] = granted;

    always_comb begin : p_mux
      rsp_data_d = bank_rdata[0];
      for (int b = 1; b < Banks; b++) begin
        if (s1_bank_q == BankSelW'(b)) rsp_data_d = bank_rdata[b];
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_valid
      if (!rst_ni) begin
        s1_valid_q  <= 1'b0;
        rsp_valid_q <= 1'b0;
      end else begin
        s1_valid_q  <= rd_req_valid_i[i] && granted;
        rsp_valid_q <= s1_valid_q;
      end
    end

    always_ff @(posedge clk_i) begin : p_data
      s1_bank_q <= port_bank[i];
      if (s1_valid_q) rsp_data_q <= rsp_data_d;
    end

    assign rd_rsp_valid_o[i]             = rsp_valid_q;
    assign rd_rsp_data_o[i*DataW +: DataW] = rsp_data_q;
  end

  // ECC events: the banks read at the last edge (their data goes to the ports now).
  if (Ecc) begin : g_ecc
    logic [Banks-1:0]        read_q;
    logic [Banks*LineAw-1:0] line_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_read_q
      if (!rst_ni) read_q <= '0;
      else         read_q <= bank_read;
    end

    for (genvar b = 0; b < Banks; b++) begin : g_line
      always_ff @(posedge clk_i) begin : p_line_q
        line_q[b*LineAw +: LineAw] <= LineAw'((b * BankLines) + 32'(bank_off[b*BankAw +: BankAw]));
      end
    end

    weft_ecc_merge #(.N(Banks), .AddrW(LineAw)) u_merge (
      .used_i      (read_q),
      .ecc_i       (bank_ecc),
      .addr_i      (line_q),
      .corr_o      (ecc_corr_o),
      .corr_addr_o (ecc_corr_line_o),
      .err_o       (ecc_err_o),
      .err_addr_o  (ecc_err_line_o)
    );
  end else begin : g_no_ecc
    logic unused_ecc;
    assign unused_ecc      = ^{bank_ecc, bank_read, bank_off};
    assign ecc_corr_o      = '0;
    assign ecc_corr_line_o = '0;
    assign ecc_err_o       = 1'b0;
    assign ecc_err_line_o  = '0;
  end

endmodule
