// weft_uart_tx: UART transmitter, 8N1, LSB first (docs/host-interfaces.md 2.1).
//
// A byte is taken on valid_i && ready_o (ready_o is high only while the line is idle) and sent
// as a start bit (0), 8 data bits LSB first and a stop bit (1), each ClksPerBit cycles; tx_o is
// a flop (idle high). active_o is high while a byte is being sent.
`include "weft_assert.svh"

module weft_uart_tx #(
  parameter int  ClksPerBit = 50,
  localparam int CntW       = $clog2(ClksPerBit + 1)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,
  output logic       tx_o,
  output logic       active_o
);

  if (ClksPerBit < 4) begin : g_bad_cpb
    `WEFT_ELAB_ERROR("weft_uart_tx: ClksPerBit must be >= 4")
  end

  localparam logic [CntW-1:0] Full = CntW'(ClksPerBit - 1);

  logic            busy_q, busy_d;
  logic [CntW-1:0] cnt_q, cnt_d;
  logic [3:0]      bit_q, bit_d;    // bits left after the current one
  logic [8:0]      shift_q, shift_d; // {stop, data} still to send after the current bit
  logic            tx_q, tx_d;

  always_comb begin
    busy_d  = busy_q;
    cnt_d   = cnt_q;
    bit_d   = bit_q;
    shift_d = shift_q;
    tx_d    = tx_q;
    if (!busy_q) begin
      tx_d = 1'b1;
      if (valid_i) begin
        busy_d  = 1'b1;
        cnt_d   = Full;
        bit_d   = 4'd9;
        shift_d = {1'b1, data_i};
        tx_d    = 1'b0;  // start bit
      end
    end else if (cnt_q != '0) begin
      cnt_d = cnt_q - 1'b1;
    end else if (bit_q == 4'd0) begin
      busy_d = 1'b0;     // stop bit done
      tx_d   = 1'b1;
    end else begin
      cnt_d   = Full;
      bit_d   = bit_q - 4'd1;
      tx_d    = shift_q[0];
      shift_d = {1'b1, shift_q[8:1]};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      cnt_q   <= '0;
      bit_q   <= '0;
      shift_q <= '1;
      tx_q    <= 1'b1;
    end else begin
      busy_q  <= busy_d;
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      tx_q    <= tx_d;
    end
  end

  assign ready_o  = !busy_q;
  assign tx_o     = tx_q;
  assign active_o = busy_q;

endmodule
