// weft_uart_rx: UART receiver, 8N1, LSB first (docs/host-interfaces.md 2.1).
//
// rx_i is synchronised with two flops. A falling edge starts a byte; the start bit is checked at
// its middle (ClksPerBit/2 cycles later; a high line there is a glitch and is ignored), then each
// data bit and the stop bit are sampled ClksPerBit cycles apart. A byte whose stop bit is 1 is
// delivered as a one-cycle valid_o pulse with data_o; a stop bit of 0 gives a one-cycle
// frame_err_o pulse instead (the byte is dropped) and the receiver waits for the line to go high.
// active_o is high while a byte is being received. No back-pressure: the consumer takes every byte.
`include "weft_assert.svh"

module weft_uart_rx #(
  parameter int  ClksPerBit = 50,
  localparam int CntW       = $clog2(ClksPerBit + 1)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       rx_i,
  output logic       valid_o,
  output logic [7:0] data_o,
  output logic       frame_err_o,
  output logic       active_o
);

  if (ClksPerBit < 4) begin : g_bad_cpb
    `WEFT_ELAB_ERROR("weft_uart_rx: ClksPerBit must be >= 4")
  end

  typedef enum logic [1:0] {Idle, Bits, WaitHigh} state_e;

  logic            sync1_q, sync2_q;
  state_e          state_q, state_d;
  logic [CntW-1:0] cnt_q, cnt_d;
  logic [3:0]      bit_q, bit_d;     // 0: start, 1..8: data, 9: stop
  logic [7:0]      shift_q, shift_d;
  logic            valid_q, valid_d, ferr_q, ferr_d;

  localparam logic [CntW-1:0] Half = CntW'(ClksPerBit / 2 - 1);
  localparam logic [CntW-1:0] Full = CntW'(ClksPerBit - 1);

  always_comb begin
    state_d = state_q;
    cnt_d   = cnt_q;
    bit_d   = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    ferr_d  = 1'b0;
    unique case (state_q)
      Idle: begin
        if (!sync2_q) begin
          state_d = Bits;
          cnt_d   = Half;
          bit_d   = 4'd0;
        end
      end
      Bits: begin
        if (cnt_q != '0) begin
          cnt_d = cnt_q - 1'b1;
        end else begin
          cnt_d = Full;
          bit_d = bit_q + 4'd1;
          if (bit_q == 4'd0) begin
            if (sync2_q) state_d = Idle;  // glitch
          end else if (bit_q <= 4'd8) begin
            shift_d = {sync2_q, shift_q[7:1]};
          end else begin
            if (sync2_q) begin
              valid_d = 1'b1;
              state_d = Idle;
            end else begin
              ferr_d  = 1'b1;
              state_d = WaitHigh;
            end
          end
        end
      end
      WaitHigh: begin
        if (sync2_q) state_d = Idle;
      end
      default: state_d = Idle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sync1_q <= 1'b1;
      sync2_q <= 1'b1;
      state_q <= Idle;
      cnt_q   <= '0;
      bit_q   <= '0;
      shift_q <= '0;
      valid_q <= 1'b0;
      ferr_q  <= 1'b0;
    end else begin
      sync1_q <= rx_i;
      sync2_q <= sync1_q;
      state_q <= state_d;
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      valid_q <= valid_d;
      ferr_q  <= ferr_d;
    end
  end

  assign valid_o     = valid_q;
  assign data_o      = shift_q;
  assign frame_err_o = ferr_q;
  assign active_o    = (state_q != Idle);

endmodule
