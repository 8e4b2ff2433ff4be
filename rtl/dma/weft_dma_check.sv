// weft_dma_check: the request checker shared by every DMA client (requests are long and rare, so
// one checker serves all of them in turn).
//
// A client holds req_valid_i[c] with its request until rsp_valid_o[c] (a one-cycle pulse) gives
// the verdict on rsp_err_o (weft_pkg::Err*). Clients are served round robin, one at a time,
// seven cycles each (latch; 16x16 partial products of (rows-1)*stride; three cycles of sums, one
// 66-bit adder deep each: the partial products in pairs and addr + row_bytes - 1, then the
// product, then the last byte address; window compare, registered; verdict). One cycle for the
// whole sum was five carry chains in a row, and the window compare fed the channel's start of
// its burst walk directly: each was the board's critical path in turn (docs/fpga.md).
// Checks, in priority order:
//   ALIGN  addr or stride not a multiple of BusBytes, or (read clients) row_bytes not either;
//   SIZE   rows == 0 or row_bytes == 0;
//   WINDOW the extent [addr, addr + (rows-1)*stride + row_bytes) is not inside one window w with
//          permission (win_read_i[w] for reads, win_write_i[w] for writes) and
//          win_base_i[w] <= addr, last | (BusBytes-1) < win_limit_i[w], where last is the
//          extent's last byte: every bus beat of the transfer, strobed or not, lies inside the
//          window (a row's last beat covers its unstrobed tail too). Compared as
//          last < the limit rounded down to a multiple of BusBytes (the same thing, no adder).
//          Or the end overflows 64 bits (or, for AddrW < 64, lies beyond 2^AddrW).
// Client c is a write client when req_write_i[c] (fixed per client).
`include "weft_assert.svh"
`include "weft_dma_types.svh"

module weft_dma_check #(
  parameter int  NumCh    = 4,
  parameter int  NumWin   = 4,
  parameter int  BusBytes = 16,
  parameter int  AddrW    = 64,
  localparam int SelW     = (NumCh > 1) ? $clog2(NumCh) : 1,
  localparam int ReqW     = $bits(weft_dma_req_t'(0))
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // requests
  input  logic [NumCh-1:0]    req_valid_i,
  input  logic [NumCh-1:0]    req_write_i,
  input  logic [NumCh*ReqW-1:0] req_i,  // weft_dma_req_t per client
  // verdicts
  output logic [NumCh-1:0]    rsp_valid_o,
  output logic [7:0]          rsp_err_o,
  // windows
  input  logic [NumWin*64-1:0] win_base_i,
  input  logic [NumWin*64-1:0] win_limit_i,
  input  logic [NumWin-1:0]    win_read_i,
  input  logic [NumWin-1:0]    win_write_i
);

  localparam int OffW = $clog2(BusBytes);

  if (NumCh < 1 || NumWin < 1) begin : g_bad_n
    `WEFT_ELAB_ERROR("weft_dma_check: NumCh and NumWin must be >= 1")
  end
  if ((1 << OffW) != BusBytes) begin : g_bad_bus
    `WEFT_ELAB_ERROR("weft_dma_check: BusBytes must be a power of two")
  end
  if (AddrW < 13 || AddrW > 64) begin : g_bad_addr
    `WEFT_ELAB_ERROR("weft_dma_check: AddrW must be in 13..64")
  end

  typedef enum logic [2:0] {
    StIdle = 3'd0,
    StMul  = 3'd1,
    StSumA = 3'd2,   // pp0 + pp1 << 16, pp2 << 16 + pp3 << 32, addr + row_bytes - 1
    StSumB = 3'd3,   // the product
    StSumC = 3'd4,   // the last byte address
    StWin  = 3'd5,   // the window compare, registered
    StRsp  = 3'd6    // the verdict
  } state_e;

  state_e          state_q, state_d;
  logic [SelW-1:0] sel_q, sel_d;
  weft_dma_req_t   req_q, req_d;
  logic            wr_q, wr_d;
  logic [31:0]     pp0_q, pp0_d, pp1_q, pp1_d, pp2_q, pp2_d, pp3_q, pp3_d;  // partial products
  logic [65:0]     last_q, last_d;  // address of the extent's last byte, 66 bits (overflow)
  logic [63:0]     lo_q, hi_q;      // StSumA: the partial products' two pair sums
  logic [31:0]     rbm1_q;          // StMul: row_bytes - 1
  logic [65:0]     end_q;           // StSumA: addr + row_bytes - 1
  logic [63:0]     prod_q;          // StSumB: (rows-1) * stride
  logic [7:0]      err_q;           // StWin: the verdict

  // Round-robin pick (weft_rr_pick), taken when the checker is idle.
  logic [SelW-1:0]  pick;
  logic             any;
  logic [NumCh-1:0] unused_onehot;
  weft_rr_pick #(.N(NumCh)) u_pick (
    .clk_i,
    .rst_ni,
    .req_i     (req_valid_i),
    .any_o     (any),
    .idx_o     (pick),
    .onehot_o  (unused_onehot),
    .adv_i     (state_q == StIdle && any),
    .adv_idx_i (pick)
  );

  // (rows-1) * stride from four 16x16 products (one DSP each on ECP5).
  logic [31:0] rm1;
  assign rm1 = req_q.rows - 32'd1;
  // Sums, one adder deep per cycle (datapath registers, no reset; read only in their states).
  always_ff @(posedge clk_i) begin : p_sums
    if (state_q == StMul) rbm1_q <= req_q.row_bytes - 32'd1;
    if (state_q == StSumA) begin
      lo_q  <= 64'(pp0_q) + (64'(pp1_q) << 16);
      hi_q  <= (64'(pp2_q) << 16) + (64'(pp3_q) << 32);
      // row_bytes >= 1 unless SIZE fails (then last_q is not used).
      end_q <= 66'(req_q.addr) + 66'(rbm1_q);
    end
    if (state_q == StSumB) prod_q <= lo_q + hi_q;
    if (state_q == StWin)  err_q  <= err;
  end

  // Verdict (computed in StWin, given in StRsp).
  logic       err_align, err_size;
  logic [7:0] err;
  logic       in_win, addr_ok;
  assign err_align = (req_q.addr[OffW-1:0] != '0) || (req_q.stride[OffW-1:0] != '0) ||
                     (!wr_q && req_q.row_bytes[OffW-1:0] != '0);
  assign err_size  = (req_q.rows == '0) || (req_q.row_bytes == '0);

  if (AddrW < 64) begin : g_addr_limit
    assign addr_ok = (last_q[65:AddrW] == '0);
  end else begin : g_addr_full
    assign addr_ok = (last_q[65:64] == 2'b00);
  end

  always_comb begin : p_win
    in_win = 1'b0;
    for (int w = 0; w < NumWin; w++) begin
      if ((wr_q ? win_write_i[w] : win_read_i[w]) &&
          req_q.addr >= win_base_i[w*64 +: 64] &&
          last_q[63:0] < {win_limit_i[w*64+OffW +: 64-OffW], {OffW{1'b0}}}) begin
        in_win = 1'b1;
      end
    end
  end

  always_comb begin : p_err
    err = weft_pkg::ErrNone;
    if (err_align) begin
      err = weft_pkg::ErrAlign;
    end else if (err_size) begin
      err = weft_pkg::ErrSize;
    end else if (!addr_ok || !in_win) begin
      err = weft_pkg::ErrWindow;
    end
  end

  always_comb begin : p_rsp
    rsp_valid_o = '0;
    for (int i = 0; i < NumCh; i++) begin
      if (state_q == StRsp && sel_q == SelW'(i)) rsp_valid_o[i] = 1'b1;
    end
  end
  assign rsp_err_o = err_q;

  always_comb begin : p_next
    state_d  = state_q;
    sel_d    = sel_q;
    req_d    = req_q;
    wr_d     = wr_q;
    pp0_d    = pp0_q;
    pp1_d    = pp1_q;
    pp2_d    = pp2_q;
    pp3_d    = pp3_q;
    last_d   = last_q;
    unique case (state_q)
      StIdle: begin
        if (any) begin
          state_d  = StMul;
          sel_d    = pick;
          req_d    = '0;
          wr_d     = 1'b0;
          for (int i = 0; i < NumCh; i++) begin
            if (pick == SelW'(i)) begin
              req_d = req_i[i*ReqW +: ReqW];
              wr_d  = req_write_i[i];
            end
          end
        end
      end
      StMul: begin
        pp0_d   = 32'(rm1[15:0])  * 32'(req_q.stride[15:0]);
        pp1_d   = 32'(rm1[31:16]) * 32'(req_q.stride[15:0]);
        pp2_d   = 32'(rm1[15:0])  * 32'(req_q.stride[31:16]);
        pp3_d   = 32'(rm1[31:16]) * 32'(req_q.stride[31:16]);
        state_d = StSumA;
      end
      StSumA: state_d = StSumB;
      StSumB: state_d = StSumC;
      StSumC: begin
        last_d  = end_q + 66'(prod_q);
        state_d = StWin;
      end
      StWin: state_d = StRsp;
      StRsp: state_d = StIdle;
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      state_q  <= StIdle;
      sel_q    <= '0;
      req_q    <= '0;
      wr_q     <= 1'b0;
      pp0_q    <= '0;
      pp1_q    <= '0;
      pp2_q    <= '0;
      pp3_q    <= '0;
      last_q   <= '0;
    end else begin
      state_q  <= state_d;
      sel_q    <= sel_d;
      req_q    <= req_d;
      wr_q     <= wr_d;
      pp0_q    <= pp0_d;
      pp1_q    <= pp1_d;
      pp2_q    <= pp2_d;
      pp3_q    <= pp3_d;
      last_q   <= last_d;
    end
  end

endmodule
