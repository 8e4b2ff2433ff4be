// weft_fv_dma_check: SymbiYosys harness of the DMA request checker (docs/formal.md, proof
// "dma_check"): weft_dma_check with one read and one write client, 32-bit bus, 16-bit
// addresses, one window. Each client holds its request until the verdict (the channels' rule);
// the windows do not change while a request waits (the DMA samples them at the check). Proven:
//   chk_exact    a verdict goes to a requesting client and is ErrNone exactly when the request is
//                legal (weft_prop_dma_legal.svh: aligned, not empty, every beat inside a
//                window with the permission): the contract weft_fv_dma_check_stub stands for;
//   chk_latency  a waiting client has its verdict within 16 cycles (two clients, seven each).
// Requests come from narrow free inputs, zero-extended (as in weft_fv_dma): addresses below
// 8 KiB, row_bytes and stride below 256, rows 0..3, window bounds below 32 KiB, so the
// product (rows-1) * stride stays small for the solver.
`include "weft_dma_types.svh"

module weft_fv_dma_check #(
  parameter int  NumWin   = 1,
  parameter int  BusBytes = 4,
  parameter int  AddrW    = 16,
  localparam int ReqW     = $bits(weft_dma_req_t'(0)),
  localparam int ReqFW    = 13 + 8 + 2 + 8
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [1:0]           req_valid_i,
  input  logic [2*ReqFW-1:0]   req_f,
  input  logic [NumWin*15-1:0] win_base_f,
  input  logic [NumWin*15-1:0] win_limit_f,
  input  logic [NumWin-1:0]    win_read_i,
  input  logic [NumWin-1:0]    win_write_i
);

  localparam int BB   = BusBytes;
  localparam int OffW = $clog2(BusBytes);
  `include "weft_prop_dma_legal.svh"

  logic [2*ReqW-1:0]    req;
  logic [NumWin*64-1:0] win_base_i, win_limit_i;
  for (genvar i = 0; i < 2; i++) begin : g_req
    assign req[i*ReqW +: ReqW] = {51'd0, req_f[i*ReqFW + 18 +: 13], 24'd0, req_f[i*ReqFW + 10 +: 8],
                                  30'd0, req_f[i*ReqFW + 8 +: 2], 24'd0, req_f[i*ReqFW +: 8]};
  end
  for (genvar w = 0; w < NumWin; w++) begin : g_win
    assign win_base_i[w*64 +: 64]  = 64'(win_base_f[w*15 +: 15]);
    assign win_limit_i[w*64 +: 64] = 64'(win_limit_f[w*15 +: 15]);
  end

  logic [1:0] rsp_valid;
  logic [7:0] rsp_err;

  weft_dma_check #(.NumCh(2), .NumWin(NumWin), .BusBytes(BusBytes), .AddrW(AddrW)) u_dut (
    .clk_i, .rst_ni,
    .req_valid_i, .req_write_i (2'b10), .req_i (req),
    .rsp_valid_o (rsp_valid), .rsp_err_o (rsp_err),
    .win_base_i, .win_limit_i, .win_read_i, .win_write_i
  );

  // Reset in the first cycle, then never again.
  logic first;
  weft_fv_reset u_reset (.clk_i, .rst_ni, .first_o (first));

  // Clients: a request is held, unchanged, until its verdict; windows stable while one waits.
  logic [1:0]           wait_q;
  logic [2*ReqFW-1:0]   req_q;
  logic [NumWin*32-1:0] win_q;
  logic [NumWin*2-1:0]  perm_q;
  logic [4:0]           age_q [2];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wait_q   <= '0;
      age_q[0] <= '0;
      age_q[1] <= '0;
    end else begin
      for (int i = 0; i < 2; i++) begin
        wait_q[i] <= req_valid_i[i] && !rsp_valid[i];
        age_q[i]  <= (req_valid_i[i] && !rsp_valid[i]) ? age_q[i] + 5'd1 : 5'd0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    req_q  <= req_f;
    win_q  <= {win_base_f, win_limit_f, 2'b00};
    perm_q <= {win_read_i, win_write_i};
  end
  always @(*) begin
    if (!first) begin
      for (int i = 0; i < 2; i++) begin
        if (wait_q[i]) assume (req_valid_i[i] && req_f[i*ReqFW +: ReqFW] == req_q[i*ReqFW +: ReqFW]);
      end
      if (wait_q != '0) assume ({win_base_f, win_limit_f, 2'b00} == win_q &&
                                {win_read_i, win_write_i} == perm_q);
    end
  end

  logic exact_ok, latency_ok;
  always_comb begin
    exact_ok   = 1'b1;
    latency_ok = 1'b1;
    for (int i = 0; i < 2; i++) begin
      if (rsp_valid[i] && !(req_valid_i[i] && rsp_valid == (2'b01 << i) &&
                            ((rsp_err == weft_pkg::ErrNone) ==
                             weft_dma_legal(req[i*ReqW +: ReqW], i == 1, win_base_i, win_limit_i,
                                            (i == 1) ? win_write_i : win_read_i)))) begin
        exact_ok = 1'b0;
      end
      if (age_q[i] > 5'd16) latency_ok = 1'b0;
    end
  end
  always @(posedge clk_i) begin
    if (rst_ni && !first) begin
      chk_exact:   assert (exact_ok);
      chk_latency: assert (latency_ok);
    end
  end

  always @(posedge clk_i) begin
    if (rst_ni) begin
      c_ok_2rows: cover (rsp_valid[1] && rsp_err == weft_pkg::ErrNone && req[ReqW + 32 +: 32] == 32'd3);
      c_window:   cover (rsp_valid[0] && rsp_err == weft_pkg::ErrWindow);
    end
  end

endmodule
