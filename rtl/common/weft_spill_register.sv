// weft_spill_register: a two-entry register slice that cuts every timing path of a valid/ready
// stream at full throughput.
//
// out_valid_o / out_data_o come straight from register A, in_ready_o straight from register B's
// "full" flag: no combinational path from in_* to out_* nor from out_ready_i to in_ready_o.
// Latency: one cycle (data accepted at edge t is on out_* after edge t). Throughput: one transfer
// per cycle. B (the spill slot) fills only when A is full and not drained while a new word
// arrives; it empties into A when A drains. Order is preserved (B is always the younger word).
`include "weft_assert.svh"

module weft_spill_register #(
  parameter int Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // input stream
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  // output stream
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);

  if (Width < 1) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_spill_register: Width must be >= 1")
  end

  logic             a_full_q, a_full_d, b_full_q, b_full_d;
  logic [Width-1:0] a_data_q, a_data_d, b_data_q, b_data_d;
  logic             accept, drain;

  assign in_ready_o  = !b_full_q;
  assign out_valid_o = a_full_q;
  assign out_data_o  = a_data_q;

  assign accept = in_valid_i && in_ready_o;
  assign drain  = a_full_q && out_ready_i;

  always_comb begin : p_next
    a_full_d = a_full_q;
    a_data_d = a_data_q;
    b_full_d = b_full_q;
    b_data_d = b_data_q;
    if (b_full_q) begin
      // Input refused; B moves into A when A drains.
      if (drain) begin
        a_data_d = b_data_q;
        b_full_d = 1'b0;
      end
    end else if (!a_full_q || drain) begin
      // A is free after this edge: the new word (if any) goes straight into A.
      a_full_d = accept;
      if (accept) a_data_d = in_data_i;
    end else if (accept) begin
      // A is full and stalled: spill the new word into B.
      b_full_d = 1'b1;
      b_data_d = in_data_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_flags
    if (!rst_ni) begin
      a_full_q <= 1'b0;
      b_full_q <= 1'b0;
    end else begin
      a_full_q <= a_full_d;
      b_full_q <= b_full_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    a_data_q <= a_data_d;
    b_data_q <= b_data_d;
  end

`ifndef SYNTHESIS
  weft_hs_checker #(.Width(Width)) u_in_check (
    .clk_i,
    .rst_ni,
    .flush_i (1'b0),
    .valid_i (in_valid_i),
    .ready_i (in_ready_o),
    .data_i  (in_data_i)
  );

  weft_hs_checker #(.Width(Width)) u_out_check (
    .clk_i,
    .rst_ni,
    .flush_i (1'b0),
    .valid_i (out_valid_o),
    .ready_i (out_ready_i),
    .data_i  (out_data_o)
  );

  // B holds a word only behind a full A.
  always @(posedge clk_i or negedge rst_ni) begin : p_state_check
    if (rst_ni) begin
      assert (!b_full_q || a_full_q) else $error("%m: spill slot full while output slot empty");
    end
  end
`endif

endmodule
