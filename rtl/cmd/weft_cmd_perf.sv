// weft_cmd_perf: the 64-bit performance counters (PERF_* registers).
//
// Counter i adds inc_i[i*IncW +: IncW] every cycle; clear_i (CTRL.perf_clear) sets every counter
// to zero. lo_o[i] is the live low word; hi_o[i] is the high word latched by lo_rd_i[i] (the
// CSR's read pulse of PERF_*.LO), so reading LO then HI gives one consistent 64-bit value.
module weft_cmd_perf #(
  parameter int NumCtr = 16,
  parameter int IncW   = 16
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clear_i,
  input  logic [NumCtr*IncW-1:0] inc_i,
  input  logic [NumCtr-1:0]    lo_rd_i,
  output logic [NumCtr*32-1:0] lo_o,
  output logic [NumCtr*32-1:0] hi_o
);

  for (genvar i = 0; i < NumCtr; i++) begin : g_ctr
    logic [63:0] cnt_q, cnt_d;
    logic [31:0] hi_q, hi_d;

    always_comb begin : p_next
      cnt_d = cnt_q + 64'(inc_i[i*IncW +: IncW]);
      hi_d  = lo_rd_i[i] ? cnt_q[63:32] : hi_q;
      if (clear_i) begin
        cnt_d = '0;
        hi_d  = '0;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
      if (!rst_ni) begin
        cnt_q <= '0;
        hi_q  <= '0;
      end else begin
        cnt_q <= cnt_d;
        hi_q  <= hi_d;
      end
    end

    assign lo_o[i*32 +: 32] = cnt_q[31:0];
    assign hi_o[i*32 +: 32] = hi_q;
  end

endmodule
