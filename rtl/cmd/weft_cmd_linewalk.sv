// weft_cmd_linewalk: the scratchpad side of a 2D transfer (LOAD, STORE_SPAD), one line per step.
// load_i starts a walk at line base_i: row r, chunk c is line base_i + r*stride_i + c, a row being
// lines_m1_i + 1 lines. Each step_i moves ptr_o to the next line; row_end_o says the line at
// ptr_o is the last of its row. (Lines are 32-bit addresses: weft_top routes the regions.)
// The store engine also walks its parameter lines with it: lines_m1_i = all ones, one row.
module weft_cmd_linewalk (
  input  logic        clk_i,
  input  logic        load_i,
  input  logic [31:0] base_i,
  input  logic [31:0] stride_i,
  input  logic [31:0] lines_m1_i,
  input  logic        step_i,
  output logic [31:0] ptr_o,
  output logic        row_end_o
);

  logic [31:0] rowbase_q, rowbase_d, ptr_q, ptr_d, stride_q, stride_d;
  logic [31:0] lines_m1_q, lines_m1_d, col_q, col_d;

  assign row_end_o = (col_q == lines_m1_q);

  always_comb begin : p_next
    rowbase_d  = rowbase_q;
    ptr_d      = ptr_q;
    stride_d   = stride_q;
    lines_m1_d = lines_m1_q;
    col_d      = col_q;
    if (step_i) begin
      if (row_end_o) begin
        col_d     = '0;
        rowbase_d = rowbase_q + stride_q;
        ptr_d     = rowbase_q + stride_q;
      end else begin
        col_d = col_q + 32'd1;
        ptr_d = ptr_q + 32'd1;
      end
    end
    if (load_i) begin
      rowbase_d  = base_i;
      ptr_d      = base_i;
      stride_d   = stride_i;
      lines_m1_d = lines_m1_i;
      col_d      = '0;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    rowbase_q  <= rowbase_d;
    ptr_q      <= ptr_d;
    stride_q   <= stride_d;
    lines_m1_q <= lines_m1_d;
    col_q      <= col_d;
  end

  assign ptr_o = ptr_q;

endmodule
