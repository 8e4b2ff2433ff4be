// weft_cmd_fetch: descriptor ring fetch (DMA read client rd0) into a beat buffer.
//
// While enabled and not blocked, reads descriptors ip .. tail-1 from the ring, up to MaxPerReq
// (4) per DMA request: as many as are written (tail - ip), do not wrap around the ring end and
// fit in the free part of the beat buffer, so the DMA's data is never back-pressured. One
// request at a time (the DMA's rule per client). The beats (64 bytes per descriptor, BusBytes
// per beat, in address order) go into a FIFO that the decoder reads.
// Ring checks, when there is something to fetch: RING_SIZE.log2 in 1..16 and RING_BASE a
// multiple of 64, else error RING for descriptor `ip`. A DMA error of a fetch (WINDOW, ALIGN,
// SLVERR, ...) reports that code for the first descriptor not completely received.
// After an error the fetch stops until the queue reset (clear_i).
// head_o counts the descriptors completely received since the last queue reset (RING_HEAD).
`include "weft_assert.svh"
`include "weft_cmd_types.svh"
`include "weft_dma_types.svh"

module weft_cmd_fetch #(
  parameter int  DataW     = 128,
  parameter int  BufDescs  = 8,   // beat buffer capacity in descriptors
  parameter int  MaxPerReq = 4,
  localparam int BB        = DataW / 8,
  localparam int Bpd       = 64 / BB,           // beats per descriptor
  localparam int BufBeats  = BufDescs * Bpd,
  localparam int UsageW    = $clog2(BufBeats + 1),
  localparam int NW        = $clog2(MaxPerReq + 1),
  localparam int BeatW     = (Bpd > 1) ? $clog2(Bpd) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,       // queue reset (the block is quiescent)
  input  logic             enable_i,      // CTRL.enable
  input  logic             block_i,       // no new request (reset pending, error recorded)
  input  logic [63:0]      ring_base_i,
  input  logic [4:0]       ring_log2_i,
  input  logic [31:0]      tail_i,
  output logic [31:0]      head_o,
  output logic             busy_o,        // a request is outstanding
  output logic             empty_o,       // beat buffer empty
  // DMA read client
  output logic             req_valid_o,
  input  logic             req_ready_i,
  output weft_dma_req_t    req_o,
  input  logic             rd_valid_i,
  output logic             rd_ready_o,
  input  logic [DataW-1:0] rd_data_i,
  input  logic             rd_last_i,     // last beat of the request (checked only)
  input  logic             done_valid_i,
  input  logic [7:0]       done_err_i,
  input  logic [63:0]      done_addr_i,
  // beats to the decoder
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [DataW-1:0] out_data_o,
  // error report (held until accepted)
  output logic             err_valid_o,
  input  logic             err_ready_i,
  output weft_cmd_err_t    err_o
);

  if (DataW < 32 || DataW > 512 || (1 << $clog2(DataW)) != DataW) begin : g_bad_dataw
    `WEFT_ELAB_ERROR("weft_cmd_fetch: DataW must be a power of two in 32..512")
  end
  if (MaxPerReq < 1 || MaxPerReq > BufDescs) begin : g_bad_max
    `WEFT_ELAB_ERROR("weft_cmd_fetch: MaxPerReq must be in 1..BufDescs")
  end

  typedef enum logic [1:0] {FIdle, FReq, FWait, FStop} fstate_e;
  fstate_e state_q, state_d;

  logic [31:0]      ip_q, ip_d, head_q, head_d;
  logic [BeatW-1:0] beat_q, beat_d;
  logic [NW-1:0]    n_q, n_d;
  logic [63:0]      addr_q, addr_d;
  logic             err_q, err_d;
  logic [7:0]       err_code_q, err_code_d;
  logic [31:0]      err_idx_q, err_idx_d;
  logic [63:0]      err_addr_q, err_addr_d;
  logic [UsageW-1:0] usage;
  logic             fifo_in_ready;

  // Next request size.
  logic [16:0] size, slot, to_end;
  logic [31:0] avail;
  logic [NW-1:0] n_new;
  logic [31:0] room_descs;
  logic        ring_bad, want;

  assign size       = 17'd1 << ring_log2_i[4:0];
  assign slot       = ip_q[16:0] & (size - 17'd1);
  assign to_end     = size - slot;
  assign avail      = tail_i - ip_q;
  assign room_descs = 32'((BufBeats - 32'(usage)) / Bpd);
  assign ring_bad   = (ring_log2_i == 5'd0) || (ring_log2_i > 5'd16) || (ring_base_i[5:0] != 6'd0);
  assign want       = enable_i && !block_i && (avail != 32'd0);

  always_comb begin : p_n
    logic [31:0] n;
    n = 32'(MaxPerReq);
    if (avail < n) n = avail;
    if (32'(to_end) < n) n = 32'(to_end);
    if (room_descs < n) n = room_descs;
    n_new = NW'(n);
  end

  always_comb begin : p_next
    state_d    = state_q;
    ip_d       = ip_q;
    head_d     = head_q;
    beat_d     = beat_q;
    n_d        = n_q;
    addr_d     = addr_q;
    err_d      = err_q;
    err_code_d = err_code_q;
    err_idx_d  = err_idx_q;
    err_addr_d = err_addr_q;

    // Beats: count whole descriptors.
    if (rd_valid_i) begin
      if (beat_q == BeatW'(Bpd - 1)) begin
        beat_d = '0;
        head_d = head_q + 32'd1;
      end else begin
        beat_d = beat_q + 1'b1;
      end
    end

    unique case (state_q)
      FIdle: begin
        if (want) begin
          if (ring_bad) begin
            err_d      = 1'b1;
            err_code_d = weft_pkg::ErrRing;
            err_idx_d  = ip_q;
            err_addr_d = ring_base_i;
            state_d    = FStop;
          end else if (n_new != '0) begin
            n_d     = n_new;
            addr_d  = ring_base_i + {41'd0, slot, 6'd0};
            state_d = FReq;
          end
        end
      end
      FReq: begin
        if (req_ready_i) begin
          ip_d    = ip_q + 32'(n_q);
          state_d = FWait;
        end
      end
      FWait: begin
        if (done_valid_i) begin
          if (done_err_i != weft_pkg::ErrNone) begin
            err_d      = 1'b1;
            err_code_d = done_err_i;
            err_idx_d  = head_d;
            err_addr_d = done_addr_i;
            state_d    = FStop;
          end else begin
            state_d = FIdle;
          end
        end
      end
      FStop: ;
      default: state_d = FIdle;
    endcase

    if (err_q && err_ready_i) err_d = 1'b0;

    if (clear_i) begin
      state_d = FIdle;
      ip_d    = '0;
      head_d  = '0;
      beat_d  = '0;
      err_d   = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      state_q <= FIdle;
      ip_q    <= '0;
      head_q  <= '0;
      beat_q  <= '0;
      err_q   <= 1'b0;
    end else begin
      state_q <= state_d;
      ip_q    <= ip_d;
      head_q  <= head_d;
      beat_q  <= beat_d;
      err_q   <= err_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    n_q        <= n_d;
    addr_q     <= addr_d;
    err_code_q <= err_code_d;
    err_idx_q  <= err_idx_d;
    err_addr_q <= err_addr_d;
  end

  assign req_valid_o     = (state_q == FReq);
  assign req_o.addr      = addr_q;
  assign req_o.row_bytes = 32'({n_q, 6'd0});
  assign req_o.rows      = 32'd1;
  assign req_o.stride    = 32'({n_q, 6'd0});
  assign rd_ready_o      = 1'b1;
  assign busy_o          = (state_q == FReq) || (state_q == FWait);
  assign head_o          = head_q;

  assign err_valid_o = err_q;
  assign err_o       = {err_code_q, err_idx_q, err_addr_q};

  weft_fifo #(.Width(DataW), .Depth(BufBeats)) u_buf (
    .clk_i,
    .rst_ni,
    .flush_i     (clear_i),
    .in_valid_i  (rd_valid_i),
    .in_ready_o  (fifo_in_ready),
    .in_data_i   (rd_data_i),
    .out_valid_o,
    .out_ready_i,
    .out_data_o,
    .usage_o     (usage)
  );
  assign empty_o = (usage == '0);

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      // Requests reserve their beats: the buffer always has room for a returning beat.
      if (rd_valid_i) assert (fifo_in_ready) else $error("weft_cmd_fetch: beat buffer overflow");
      // A request is whole descriptors: its last beat ends one.
      if (rd_valid_i && rd_last_i) assert (beat_q == BeatW'(Bpd - 1))
        else $error("weft_cmd_fetch: request ended inside a descriptor");
    end
  end
`endif

endmodule
