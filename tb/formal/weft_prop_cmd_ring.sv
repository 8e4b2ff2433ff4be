// weft_prop_cmd_ring: the descriptor ring's head/tail arithmetic of weft_cmd_fetch, as
// properties on its ports (docs/formal.md, docs/cmd.md).
//
// A shadow follows the fetch from its ports: ip, the next descriptor to request (advanced by
// each accepted DMA request by its row_bytes / 64 descriptors, 0 after a queue reset), the
// descriptors completely received, the beats requested and not yet received, the beats
// buffered and not yet read by the decoder. Sizes: size = 2^RING_SIZE.log2 descriptors.
// Fetch (proven):
//   req_shape     a request is one row of n whole descriptors (row_bytes = stride = 64 n,
//                 rows = 1), 1 <= n <= MaxPerReq;
//   req_slot      its address is RING_BASE + 64 * (ip mod size) (configuration as it was in the
//                 cycle before the request appeared);
//   req_no_wrap   (ip mod size) + n <= size: a request never runs past the ring's end;
//   req_written   n <= tail - ip: only descriptors software has written (ip never passes tail);
//   req_room      the beats already buffered or in flight plus the request's fit the beat
//                 buffer, so the DMA's data is never back-pressured;
//   req_ring_ok   no request while RING_SIZE.log2 is outside 1..16 or RING_BASE is not 64-byte
//                 aligned;
//   req_stable    a request offered stays offered and unchanged until accepted;
//   head_count    head_o equals the descriptors completely received since the queue reset;
//   head_behind   ip - head <= MaxPerReq: head follows ip, one request behind at most;
//   tail_ahead    tail - head >= ip - head: head <= ip <= tail in ring order, ip never passes tail.
// (req_written and tail_ahead hold while tail has not moved back since the last queue reset.)
// Environment (assumed in a proof, checked in simulation):
//   dma_beats     read beats only for an accepted request, at most its beats, RLAST-like
//                 rd_last_i on its last; done only after all its beats unless with an error;
//   tail_forward  while the fetch runs (not blocked, no queue reset) tail only moves forward (by
//                 less than 2^31: software adds written descriptors) and stays within 2^17 of
//                 head (more than any ring holds); blocked (a queue reset pending), software may
//                 rewind it, and the queue reset (weft_cmd sets it to 0 at the clear_i edge, so
//                 the new tail shows the cycle after) starts afresh;
//   clear_idle    a queue reset only while no request is offered or in flight.
`include "weft_assert.svh"
`include "weft_prop.svh"

module weft_prop_cmd_ring #(
  parameter int  DataW     = 128,
  parameter int  BufDescs  = 8,
  parameter int  MaxPerReq = 4,
  localparam int BB        = DataW / 8,
  localparam int Bpd       = 64 / BB,
  localparam int BufBeats  = BufDescs * Bpd
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  input  logic             block_i,      // no new request (queue reset pending, error recorded)
  input  logic [63:0]      ring_base_i,
  input  logic [4:0]       ring_log2_i,
  input  logic [31:0]      tail_i,
  input  logic [31:0]      head_i,       // weft_cmd_fetch head_o
  input  logic             busy_i,       // weft_cmd_fetch busy_o
  input  logic             req_valid,
  input  logic             req_ready,
  input  logic [159:0]     req,          // weft_dma_req_t {addr, row_bytes, rows, stride}
  input  logic             rd_valid,
  input  logic             rd_last,
  input  logic             done_valid,
  input  logic [7:0]       done_err,
  input  logic             out_valid,
  input  logic             out_ready
);

  if (DataW < 32 || DataW > 512 || MaxPerReq < 1 || MaxPerReq > BufDescs) begin : g_bad
    `WEFT_ELAB_ERROR("weft_prop_cmd_ring: parameter out of range")
  end

`ifdef WEFT_PROP_LIVE
  logic [63:0] r_addr;
  logic [31:0] r_row_bytes, r_rows, r_stride, n;
  assign {r_addr, r_row_bytes, r_rows, r_stride} = req;
  assign n = r_row_bytes >> 6;

  logic req_hs, beat_out;
  assign req_hs   = req_valid && req_ready;
  assign beat_out = out_valid && out_ready;

  // ---------------------------------------------------------------- shadow
  logic [31:0] ip_q, head_q, tail_q;
  logic [15:0] beats_q;        // beats of the open request not yet received
  logic        open_q;         // a request accepted and not done
  logic [15:0] bufd_q;         // beats buffered, not yet read
  logic [7:0]  part_q;         // beats of the descriptor being received
  logic        stall_q;
  logic [159:0] req_q;
  logic [63:0] base_q;
  logic [4:0]  log2_q;
  logic [31:0] size_q, slot_q;  // from the previous cycle's configuration and ip

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_shadow
    if (!rst_ni) begin
      ip_q    <= '0;
      head_q  <= '0;
      beats_q <= '0;
      open_q  <= 1'b0;
      bufd_q  <= '0;
      part_q  <= '0;
      stall_q <= 1'b0;
    end else begin
      stall_q <= req_valid && !req_ready;
      if (clear_i) begin
        ip_q    <= '0;
        head_q  <= '0;
        beats_q <= '0;
        open_q  <= 1'b0;
        bufd_q  <= '0;
        part_q  <= '0;
      end else begin
        if (req_hs) begin
          ip_q    <= ip_q + n;
          beats_q <= 16'(n * 32'(Bpd));
          open_q  <= 1'b1;
        end else begin
          if (rd_valid) beats_q <= beats_q - 16'd1;
          if (done_valid) open_q <= 1'b0;
        end
        if (rd_valid) begin
          part_q <= (32'(part_q) == Bpd - 1) ? 8'd0 : part_q + 8'd1;
          if (32'(part_q) == Bpd - 1) head_q <= head_q + 32'd1;
        end
        bufd_q <= bufd_q + 16'(rd_valid) - 16'(beat_out);
      end
    end
  end

  always_ff @(posedge clk_i) begin : p_prev
    req_q  <= req;
    base_q <= ring_base_i;
    log2_q <= ring_log2_i;
    tail_q <= tail_i;
    size_q <= 32'd1 << ring_log2_i;
    slot_q <= ip_q & ((32'd1 << ring_log2_i) - 32'd1);
  end

  logic [31:0] tail_step;
  assign tail_step = tail_i - tail_q;
  logic        tail_back;   // tail moved back this cycle
  assign tail_back = (tail_step >= 32'h8000_0000);

  // A queue reset: the cycle of clear_i and the one after (weft_cmd's tail register returns to 0
  // at the clear_i edge, so the fetch sees the new tail one cycle later).
  logic clear_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_clear
    if (!rst_ni) clear_q <= 1'b0;
    else         clear_q <= clear_i;
  end

  // tail_sane: tail has not moved back (except to the new tail of a queue reset, seen the cycle
  // after clear_i) and is within 2^17 of head. tail_ok_q: it has stayed so since the last queue
  // reset (software may rewind RING_TAIL while the fetch is blocked, before a queue reset).
  logic tail_sane, tail_ok_q, tail_ok;
  assign tail_sane = (clear_q || !tail_back) && (tail_i - head_q <= 32'h0002_0000);
  assign tail_ok   = tail_ok_q && (clear_i || tail_sane);
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_tail_ok
    if (!rst_ni)         tail_ok_q <= 1'b1;
    else if (clear_i)    tail_ok_q <= 1'b1;
    else if (!tail_sane) tail_ok_q <= 1'b0;
  end

  logic first;  // the first cycle of a request offer
  assign first = req_valid && !stall_q;

  // ---------------------------------------------------------------- properties
  always @(`WEFT_PROP_EVENT) begin : p_props
    if (rst_ni) begin
      if (req_valid) begin
        `WEFT_PROVE(req_shape, (r_rows == 32'd1 && r_stride == r_row_bytes && r_row_bytes[5:0] == 6'd0 &&
                               n >= 32'd1 && n <= 32'(MaxPerReq)), "request is not one row of 1..MaxPerReq descriptors")
        if (tail_ok) begin
          `WEFT_PROVE(req_written, (n <= tail_i - ip_q), "request past the tail (ip would pass tail)")
        end
        `WEFT_PROVE(req_room, (32'(bufd_q) + 32'(beats_q) + n * 32'(Bpd) <= 32'(BufBeats)), "request does not fit the beat buffer")
      end
      if (first) begin
        `WEFT_PROVE(req_ring_ok, (log2_q >= 5'd1 && log2_q <= 5'd16 && base_q[5:0] == 6'd0), "request with a bad ring configuration")
        `WEFT_PROVE(req_slot, (r_addr == base_q + 64'(slot_q) * 64'd64), "request address is not RING_BASE + 64 * (ip mod size)")
        `WEFT_PROVE(req_no_wrap, (slot_q + n <= size_q), "request runs past the ring's end")
      end
      if (stall_q) begin
        `WEFT_PROVE(req_stable, (req_valid && req == req_q), "request dropped or changed while offered")
      end
      `WEFT_PROVE(head_count, (head_i == head_q), "head differs from the descriptors received")
      `WEFT_PROVE(head_behind, (ip_q - head_i <= 32'(MaxPerReq)), "head more than one request behind ip")
      if (!clear_i && tail_ok) begin  // (a queue reset may move tail anywhere; ip and head follow it)
        `WEFT_PROVE(tail_ahead, (tail_i - head_i >= ip_q - head_i), "ip passed tail")
      end
      // environment
      if (rd_valid) begin
        `WEFT_ASSUME(dma_beats, (open_q && beats_q != '0 && rd_last == (beats_q == 16'd1)), "read beat without an open request, or a wrong last")
      end
      if (done_valid) begin
        `WEFT_ASSUME(dma_done, (open_q && (beats_q == '0 || done_err != 8'd0)), "done before all beats without an error")
      end
      if (!clear_i && !block_i) begin
        `WEFT_ASSUME(tail_forward, tail_sane, "tail moved back, or more than 2^17 descriptors ahead of head, while the fetch runs")
      end
      if (clear_i) begin
        `WEFT_ASSUME(clear_idle, (!busy_i && !open_q), "queue reset with a request offered or in flight")
      end
    end
  end

  logic unused;
  assign unused = ^{r_row_bytes[31:6]};
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, clear_i, block_i, ring_base_i, ring_log2_i, tail_i, head_i, busy_i,
                    req_valid, req_ready, req, rd_valid, rd_last, done_valid, done_err, out_valid,
                    out_ready};
`endif

endmodule
