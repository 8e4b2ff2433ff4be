// weft_fifo: synchronous FIFO in flip-flops, valid/ready on both sides.
//
// Depth >= 1 entries of Width bits. No combinational path from input to output or back:
// in_ready_o depends only on the fill level and flush_i, out_valid_o / out_data_o only on state.
// Latency: an entry pushed at edge t is visible on out_* after that edge (one cycle).
// Throughput: one push and one pop per cycle for Depth >= 2 (a push into a full FIFO is refused
// even if a pop happens in the same cycle, so Depth = 1 moves one entry every other cycle; use
// weft_spill_register for a full-rate two-entry register slice).
//
// flush_i (synchronous): the FIFO is empty after the edge. During the flush cycle in_ready_o is 0
// (nothing is accepted), while a pop on the output side is a normal transfer.
// usage_o: the number of stored entries, 0..Depth.
`include "weft_assert.svh"

module weft_fifo #(
  parameter int  Width  = 8,
  parameter int  Depth  = 4,
  localparam int PtrW   = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int UsageW = $clog2(Depth + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              flush_i,
  // input stream
  input  logic              in_valid_i,
  output logic              in_ready_o,
  input  logic [Width-1:0]  in_data_i,
  // output stream
  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [Width-1:0]  out_data_o,
  // fill level
  output logic [UsageW-1:0] usage_o
);

  if (Depth < 1) begin : g_bad_depth
    `WEFT_ELAB_ERROR("weft_fifo: Depth must be >= 1")
  end
  if (Width < 1) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_fifo: Width must be >= 1")
  end

  logic [Width-1:0]  mem_q [Depth];
  logic [PtrW-1:0]   wptr_q, wptr_d, rptr_q, rptr_d;
  logic [UsageW-1:0] count_q, count_d;
  logic              full, empty, push, pop;

  assign full  = (count_q == UsageW'(Depth));
  assign empty = (count_q == '0);

  assign in_ready_o  = !full && !flush_i;
  assign out_valid_o = !empty;
  assign out_data_o  = mem_q[rptr_q];
  assign usage_o     = count_q;

  assign push = in_valid_i && in_ready_o;
  assign pop  = out_valid_o && out_ready_i;

  always_comb begin : p_next
    wptr_d  = wptr_q;
    rptr_d  = rptr_q;
    count_d = count_q;
    if (flush_i) begin
      wptr_d  = '0;
      rptr_d  = '0;
      count_d = '0;
    end else begin
      if (push) wptr_d = (wptr_q == PtrW'(Depth - 1)) ? '0 : wptr_q + 1'b1;
      if (pop)  rptr_d = (rptr_q == PtrW'(Depth - 1)) ? '0 : rptr_q + 1'b1;
      count_d = count_q + UsageW'(push) - UsageW'(pop);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else begin
      wptr_q  <= wptr_d;
      rptr_q  <= rptr_d;
      count_q <= count_d;
    end
  end

  // Storage: a write-enabled register file, no reset (entries are read only once written).
  always_ff @(posedge clk_i) begin : p_storage
    if (push) mem_q[wptr_q] <= in_data_i;
  end

`ifndef SYNTHESIS
  weft_hs_checker #(.Width(Width)) u_in_check (
    .clk_i,
    .rst_ni,
    .flush_i,
    .valid_i (in_valid_i),
    .ready_i (in_ready_o),
    .data_i  (in_data_i)
  );

  weft_hs_checker #(.Width(Width)) u_out_check (
    .clk_i,
    .rst_ni,
    .flush_i,
    .valid_i (out_valid_o),
    .ready_i (out_ready_i),
    .data_i  (out_data_o)
  );

  // No overflow or underflow: the fill level stays in 0..Depth (a check that can only fail when
  // the counter can hold more than Depth) and agrees with the pointers.
  if ((1 << UsageW) - 1 > Depth) begin : g_level_check
    always @(posedge clk_i or negedge rst_ni) begin : p_level_check
      if (rst_ni) begin
        assert (count_q <= UsageW'(Depth)) else $error("%m: fill level %0d > Depth", count_q);
      end
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin : p_ptr_check
    if (rst_ni) begin
      assert ((32'(wptr_q) + Depth - 32'(rptr_q)) % Depth == 32'(count_q) % Depth)
        else $error("%m: pointers (w %0d, r %0d) disagree with fill level %0d",
                    wptr_q, rptr_q, count_q);
      if (empty || full) begin
        assert (wptr_q == rptr_q) else $error("%m: empty or full but pointers differ");
      end
    end
  end
`endif

endmodule
