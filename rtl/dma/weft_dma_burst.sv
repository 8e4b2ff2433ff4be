// weft_dma_burst: splits one 2D transfer into AXI4 INCR bursts.
//
// Started (start_i, one cycle) with the first row's address, the beats per row, the number of rows
// and the stride (bytes between row starts). It then offers one burst at a time on burst_*:
// the burst's address, its length in beats (1..MaxBurst, NOT the AXI len-1 encoding) and whether
// it is the last burst of its row. A burst is the longest run from the current address that
// stays inside the row, is at most MaxBurst beats and does not cross a 4 KiB boundary
// (AXI4 A3.4.1). burst_valid_o depends only on state; a burst is taken with burst_pop_i (which
// may be high only with burst_valid_o), and the next one is offered in the following cycle, so
// one burst moves per cycle. busy_o is high from start until the last burst was taken or
// clear_i (abandon the transfer: a request that failed on the bus) drops it.
//
// The caller guarantees beats >= 1, rows >= 1, address and stride multiples of BusBytes and no
// 64-bit overflow over the whole extent (weft_dma_check checked all of that).
`include "weft_assert.svh"

module weft_dma_burst #(
  parameter int  BusBytes = 16,
  parameter int  MaxBurst = 16,
  localparam int LenW     = $clog2(MaxBurst + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // start of a transfer
  input  logic            clear_i,         // abandon the transfer (no effect when idle)
  input  logic            start_i,
  input  logic [63:0]     start_addr_i,
  input  logic [31:0]     start_beats_i,   // beats per row (>= 1)
  input  logic [31:0]     start_rows_i,    // rows (>= 1)
  input  logic [31:0]     start_stride_i,  // bytes between row starts
  // bursts
  output logic            burst_valid_o,
  input  logic            burst_pop_i,
  output logic [63:0]     burst_addr_o,
  output logic [LenW-1:0] burst_len_o,     // beats, 1..MaxBurst
  output logic            burst_row_end_o, // last burst of its row
  output logic            busy_o
);

  localparam int OffW = $clog2(BusBytes);

  if (BusBytes < 1 || (1 << OffW) != BusBytes || BusBytes > 4096) begin : g_bad_bus
    `WEFT_ELAB_ERROR("weft_dma_burst: BusBytes must be a power of two <= 4096")
  end
  if (MaxBurst < 1 || MaxBurst > 256) begin : g_bad_burst
    `WEFT_ELAB_ERROR("weft_dma_burst: MaxBurst must be in 1..256")
  end

  logic        active_q, active_d;
  logic [63:0] row_addr_q, row_addr_d;  // first byte of the current row
  logic [63:0] cur_q, cur_d;            // next burst's address
  logic [31:0] left_q, left_d;          // beats left in the current row (>= 1 while active)
  logic [31:0] rows_q, rows_d;          // rows left, the current one included
  logic [31:0] beats_q, beats_d;        // beats per row
  logic [31:0] stride_q, stride_d;

  // Beats from cur_q to the next 4 KiB boundary (1 .. 4096/BusBytes: cur_q is bus aligned).
  logic [12:0] to4k_bytes;
  logic [31:0] to4k, len;
  assign to4k_bytes = 13'd4096 - {1'b0, cur_q[11:0]};
  assign to4k       = 32'(to4k_bytes) >> OffW;

  always_comb begin : p_len
    len = left_q;
    if (to4k < len) len = to4k;
    if (32'(MaxBurst) < len) len = 32'(MaxBurst);
  end

  logic row_end;
  assign row_end = (len == left_q);

  assign burst_valid_o   = active_q;
  assign burst_addr_o    = cur_q;
  assign burst_len_o     = LenW'(len);
  assign burst_row_end_o = row_end;
  assign busy_o          = active_q;

  logic [63:0] next_row;
  assign next_row = row_addr_q + 64'(stride_q);

  always_comb begin : p_next
    active_d   = active_q;
    row_addr_d = row_addr_q;
    cur_d      = cur_q;
    left_d     = left_q;
    rows_d     = rows_q;
    beats_d    = beats_q;
    stride_d   = stride_q;
    if (clear_i) begin
      active_d   = 1'b0;
    end else if (start_i) begin
      active_d   = 1'b1;
      row_addr_d = start_addr_i;
      cur_d      = start_addr_i;
      left_d     = start_beats_i;
      rows_d     = start_rows_i;
      beats_d    = start_beats_i;
      stride_d   = start_stride_i;
    end else if (burst_pop_i && active_q) begin
      if (row_end) begin
        rows_d     = rows_q - 32'd1;
        row_addr_d = next_row;
        cur_d      = next_row;
        left_d     = beats_q;
        if (rows_q == 32'd1) active_d = 1'b0;
      end else begin
        cur_d  = cur_q + (64'(len) << OffW);
        left_d = left_q - len;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      active_q   <= 1'b0;
      row_addr_q <= '0;
      cur_q      <= '0;
      left_q     <= '0;
      rows_q     <= '0;
      beats_q    <= '0;
      stride_q   <= '0;
    end else begin
      active_q   <= active_d;
      row_addr_q <= row_addr_d;
      cur_q      <= cur_d;
      left_q     <= left_d;
      rows_q     <= rows_d;
      beats_q    <= beats_d;
      stride_q   <= stride_d;
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni) begin
      if (burst_pop_i) begin
        assert (active_q && !clear_i) else $error("%m: burst taken while none offered");
      end
      if (start_i) begin
        assert (!active_q) else $error("%m: started while busy");
        assert (start_beats_i != 0 && start_rows_i != 0) else $error("%m: empty transfer");
      end
      if (active_q) begin
        assert (left_q != 0 && len != 0) else $error("%m: zero-length burst");
        assert (32'(cur_q[11:0]) + (len << OffW) <= 32'd4096)
          else $error("%m: burst at 'h%0h of %0d beats crosses 4 KiB", cur_q, len);
      end
    end
  end
`endif

endmodule
