// weft_cmd_walker: one of the compute engine's scratchpad walkers (W and A, docs/cmd.md): queues
// jobs {side, k, first line, row stride, tile stride} (JobDepth) and reads each job's rows, tile
// after tile, into a FIFO. side_o is the running job's side information (e.g. its zero point).
// For each k-tile t (k counted down by Rows per tile), the rows r = 0, 1, ... of lines
// base + t*tile_stride + r*row_stride, one request per cycle, up to the row that the parent
// marks last_row_i (it knows the rows per tile: W min(Rows, k left), A m). The next job is taken
// when this one's last row of its last tile (tile_last_o) is requested, or when idle.
// The scratchpad answers every read exactly SpadReadLatency cycles later and cannot be stalled,
// so a read is issued only while (reads in flight + FIFO entries) < Depth (credits); meta_i, the
// row's side information at its request, travels beside the read into the FIFO:
// out_data_o = {meta, row data}.
// Pair (the tensor unit's BF16 mode): a job with job_wide_i reads every row as two lines, the
// row's line and the next, one request each; the FIFO holds lines, and the output joins the two
// of a row: row data = {second line, first line} (OutBits = 2 * DataBits; the upper half is 0
// for a job without job_wide_i). A wide row therefore takes two cycles.
`include "weft_assert.svh"

module weft_cmd_walker #(
  parameter int  Rows     = 16,
  parameter int  KW       = 21,     // k
  parameter int  LineAw   = 14,     // scratchpad line address
  parameter int  RowW     = 5,      // row counter within a tile
  parameter int  MetaW    = 10,
  parameter int  DataBits = 128,    // bits of a line that the row uses
  parameter int  Depth    = 6,      // FIFO entries
  parameter int  SideW    = 1,
  parameter int  JobDepth = 2,
  parameter bit  Pair     = 1'b0,   // rows of two lines (job_wide_i)
  localparam int OutBits  = Pair ? 2 * DataBits : DataBits,
  localparam int CW       = $clog2(Depth + 1),
  localparam int JW       = 1 + SideW + KW + 3 * LineAw,
  localparam int JobUseW  = $clog2(JobDepth + 1)
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic                      clear_i,
  // jobs
  input  logic                      job_push_i,
  output logic                      job_ready_o,
  output logic [JobUseW-1:0]        job_usage_o,   // jobs queued (not yet running)
  input  logic [SideW-1:0]          job_side_i,
  input  logic                      job_wide_i,    // two lines per row (Pair only)
  input  logic [KW-1:0]             job_k_i,
  input  logic [LineAw-1:0]         job_base_i,
  input  logic [LineAw-1:0]         job_row_stride_i,
  input  logic [LineAw-1:0]         job_tile_stride_i,
  // the running job: the parent says which row ends a tile
  output logic [SideW-1:0]          side_o,
  output logic [RowW-1:0]           row_o,         // row within the tile
  output logic [KW-1:0]             k_o,           // k left, this tile included
  output logic                      tile_last_o,   // the job's last tile
  input  logic                      last_row_i,    // row_o is the tile's last row
  input  logic [MetaW-1:0]          meta_i,
  // scratchpad read port
  output logic                      req_valid_o,
  input  logic                      req_ready_i,
  output logic [LineAw-1:0]         req_addr_o,
  input  logic                      rsp_valid_i,
  input  logic [DataBits-1:0]       rsp_data_i,
  // rows
  output logic                      out_valid_o,
  input  logic                      out_ready_i,
  output logic [MetaW+OutBits-1:0]  out_data_o
);

  if (Depth < 4) begin : g_bad_fifo
    `WEFT_ELAB_ERROR("weft_cmd_walker: the FIFO needs >= 4 entries (2-cycle read + 1 push + 1 pop)")
  end

  localparam logic [KW-1:0] RowsK = KW'(Rows);

  logic              act_q, act_d;
  logic              wide_q, wide_d, sub_q, sub_d;  // wide job; the row's second line is next
  logic [SideW-1:0]  side_q, side_d;
  logic [KW-1:0]     k_q, k_d;
  logic [LineAw-1:0] tile_q, tile_d, ptr_q, ptr_d, rs_q, rs_d, ts_q, ts_d;
  logic [RowW-1:0]   r_q, r_d;
  logic [CW-1:0]     cred_q, cred_d;
  logic              fire, row_fire, load, pop, f_in_ready, first_line;
  logic [CW-1:0]     f_usage;
  logic              meta_valid;
  logic [MetaW-1:0]  meta_row;
  logic              job_valid, job_wide;
  logic [SideW-1:0]  job_side;
  logic [KW-1:0]     job_k;
  logic [LineAw-1:0] job_base, job_rs, job_ts;

  weft_fifo #(.Width(JW), .Depth(JobDepth)) u_job (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (job_push_i),
    .in_ready_o  (job_ready_o),
    .in_data_i   ({Pair && job_wide_i, job_side_i, job_k_i, job_tile_stride_i, job_row_stride_i,
                   job_base_i}),
    .out_valid_o (job_valid),
    .out_ready_i (load),
    .out_data_o  ({job_wide, job_side, job_k, job_ts, job_rs, job_base}),
    .usage_o     (job_usage_o)
  );

  assign side_o      = side_q;
  assign row_o       = r_q;
  assign k_o         = k_q;
  assign tile_last_o = (k_q <= RowsK);
  assign req_valid_o = act_q && (cred_q < CW'(Depth));
  assign req_addr_o  = ptr_q;
  assign fire        = req_valid_o && req_ready_i;
  assign first_line  = wide_q && !sub_q;        // a wide row's first line: the row goes on
  assign row_fire    = fire && !first_line;     // the row's (last) line is requested
  assign load        = job_valid && (!act_q || (row_fire && last_row_i && tile_last_o));

  always_comb begin : p_walk
    act_d  = act_q;
    wide_d = wide_q;
    sub_d  = sub_q;
    side_d = side_q;
    k_d    = k_q;
    tile_d = tile_q;
    ptr_d  = ptr_q;
    rs_d   = rs_q;
    ts_d   = ts_q;
    r_d    = r_q;
    if (fire && first_line) begin
      ptr_d = ptr_q + 1'b1;
      sub_d = 1'b1;
    end else if (fire) begin
      sub_d = 1'b0;
      if (last_row_i) begin
        if (tile_last_o) begin
          act_d = 1'b0;
        end else begin
          k_d    = k_q - RowsK;
          tile_d = tile_q + ts_q;
          ptr_d  = tile_q + ts_q;
          r_d    = '0;
        end
      end else begin
        ptr_d = ptr_q - LineAw'(sub_q) + rs_q;  // from the row's first line
        r_d   = r_q + 1'b1;
      end
    end
    if (load) begin
      wide_d = job_wide;
      sub_d  = 1'b0;
      side_d = job_side;
      k_d    = job_k;
      tile_d = job_base;
      ptr_d  = job_base;
      rs_d   = job_rs;
      ts_d   = job_ts;
      r_d    = '0;
      act_d  = 1'b1;
    end
    if (clear_i) begin
      act_d = 1'b0;
      sub_d = 1'b0;
    end
  end

  // What travels beside a read while the scratchpad answers: the read happened, a wide row's
  // first line, and meta_i.
  logic meta_first;
  weft_delay #(.Width(MetaW + 2), .Depth(weft_pkg::SpadReadLatency)) u_meta (
    .clk_i, .rst_ni,
    .in_i  ({fire, first_line, meta_i}),
    .out_o ({meta_valid, meta_first, meta_row})
  );

  logic                      f_valid, f_ready, f_first;
  logic [MetaW-1:0]          f_meta;
  logic [DataBits-1:0]       f_line;
  weft_fifo #(.Width(1 + MetaW + DataBits), .Depth(Depth)) u_fifo (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (meta_valid),
    .in_ready_o  (f_in_ready),
    .in_data_i   ({meta_first, meta_row, rsp_data_i}),
    .out_valid_o (f_valid),
    .out_ready_i (f_ready),
    .out_data_o  ({f_first, f_meta, f_line}),
    .usage_o     (f_usage)
  );

  assign pop    = f_valid && f_ready;
  assign cred_d = cred_q + CW'(fire) - CW'(pop);

  if (Pair) begin : g_pair
    // A wide row's first line waits in held_q for its second.
    logic                held_q;
    logic [DataBits-1:0] held_line_q;
    assign f_ready     = f_first ? !held_q : out_ready_i;
    assign out_valid_o = f_valid && !f_first;
    assign out_data_o  = {f_meta, held_q ? f_line : DataBits'(0), held_q ? held_line_q : f_line};
    always_ff @(posedge clk_i or negedge rst_ni) begin : p_held
      if (!rst_ni)                      held_q <= 1'b0;
      else if (clear_i)                 held_q <= 1'b0;
      else if (pop)                     held_q <= f_first;
    end
    always_ff @(posedge clk_i) begin : p_held_line
      if (pop && f_first) held_line_q <= f_line;
    end
  end else begin : g_single
    logic unused_first;
    assign unused_first = f_first;
    assign f_ready      = out_ready_i;
    assign out_valid_o  = f_valid;
    assign out_data_o   = {f_meta, f_line};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      act_q  <= 1'b0;
      sub_q  <= 1'b0;
      cred_q <= '0;
    end else begin
      act_q  <= act_d;
      sub_q  <= sub_d;
      cred_q <= cred_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    wide_q <= wide_d;
    side_q <= side_d;
    k_q    <= k_d;
    tile_q <= tile_d;
    ptr_q  <= ptr_d;
    rs_q   <= rs_d;
    ts_q   <= ts_d;
    r_q    <= r_d;
  end

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      // Credits reserve FIFO room for every read in flight.
      if (meta_valid) assert (f_in_ready && rsp_valid_i) else $error("weft_cmd_walker: FIFO overflow or late read");
      assert (rsp_valid_i == meta_valid) else $error("weft_cmd_walker: unexpected response");
      assert (f_usage <= cred_q) else $error("weft_cmd_walker: FIFO holds more than its credits");
    end
  end
`endif

endmodule
