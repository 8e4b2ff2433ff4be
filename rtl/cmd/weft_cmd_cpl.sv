// weft_cmd_cpl: completion write-back (DMA write client wr1) and interrupt sources.
//
// Whenever the record {COMPLETED, error code, ERR_INDEX, 0} (four little-endian words, 16 bytes)
// differs from the last one written, and CPL_ADDR != 0, the writer sends the current record to
// CPL_ADDR (one write at a time; changes during a write are coalesced into the next one).
// After a queue reset the record {0, 0, 0, 0} is written once (reset_busy_o until it is done).
// Interrupts: a retiring descriptor with the IRQ flag (retire_irq_i) and a newly recorded error
// (err_new_i) set IRQ_STATUS.done / .error when the first record written after them has
// landed (its wr_done), so the host sees the record it is told about; at once when CPL_ADDR is 0.
// A failing write reports its DMA error for descriptor COMPLETED (nothing retires past it).
`include "weft_assert.svh"
`include "weft_cmd_types.svh"
`include "weft_dma_types.svh"

module weft_cmd_cpl #(
  parameter int  DataW = 128,
  localparam int BB    = DataW / 8,
  localparam int Beats = (16 + BB - 1) / BB,
  localparam int BeatW = (Beats > 1) ? $clog2(Beats) : 1,
  localparam int RecW  = Beats * DataW
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  input  logic [63:0]      cpl_addr_i,
  input  logic [31:0]      completed_i,
  input  logic             err_valid_i,
  input  logic [7:0]       err_code_i,
  input  logic [31:0]      err_idx_i,
  input  logic             retire_irq_i,
  input  logic             err_new_i,
  // DMA write client
  output logic             req_valid_o,
  input  logic             req_ready_i,
  output weft_dma_req_t    req_o,
  input  logic             start_i,
  output logic             wr_valid_o,
  input  logic             wr_ready_i,
  output logic [DataW-1:0] wr_data_o,
  input  logic             dma_done_i,
  input  logic [7:0]       dma_err_i,
  input  logic [63:0]      dma_addr_i,
  // interrupts, status
  output logic             irq_done_set_o,
  output logic             irq_error_set_o,
  output logic             busy_o,         // a write in flight or due
  output logic             reset_busy_o,
  // error report
  output logic             err_valid_o,
  input  logic             err_ready_i,
  output weft_cmd_err_t    err_o
);

  typedef enum logic [2:0] {CIdle, CReq, CStart, CData, CWait, CErr} cstate_e;
  cstate_e state_q, state_d;

  logic [31:0]      last_c_q, last_c_d, last_i_q, last_i_d;
  logic [7:0]       last_e_q, last_e_d;
  logic             dirty_q, dirty_d, rfly_q, rfly_d;
  logic             pdone_q, pdone_d, perr_q, perr_d;   // pending interrupt sources
  logic             fdone_q, fdone_d, ferr_q, ferr_d;   // waiting for the record in flight
  logic [63:0]      addr_q, addr_d;
  logic [RecW-1:0]  rec_q, rec_d;
  logic [BeatW-1:0] beat_q, beat_d;
  logic [7:0]       ecode_q, ecode_d;
  logic [63:0]      eaddr_q, eaddr_d;
  logic [31:0]      eidx_q, eidx_d;

  logic        enabled, need;
  logic [7:0]  cur_e;
  logic [31:0] cur_i;
  assign enabled = (cpl_addr_i != 64'd0);
  assign cur_e   = err_valid_i ? err_code_i : 8'd0;
  assign cur_i   = err_valid_i ? err_idx_i : 32'd0;
  assign need    = dirty_q || completed_i != last_c_q || cur_e != last_e_q || cur_i != last_i_q;

  logic fin;   // the write in flight is over (success or error)
  always_comb begin : p_next
    state_d  = state_q;
    last_c_d = last_c_q;
    last_e_d = last_e_q;
    last_i_d = last_i_q;
    dirty_d  = dirty_q;
    rfly_d   = rfly_q;
    pdone_d  = pdone_q || retire_irq_i;
    perr_d   = perr_q || err_new_i;
    fdone_d  = fdone_q;
    ferr_d   = ferr_q;
    addr_d   = addr_q;
    rec_d    = rec_q;
    beat_d   = beat_q;
    ecode_d  = ecode_q;
    eaddr_d  = eaddr_q;
    eidx_d   = eidx_q;
    irq_done_set_o  = 1'b0;
    irq_error_set_o = 1'b0;
    fin = 1'b0;

    unique case (state_q)
      CIdle: begin
        if (!enabled) begin
          // No record: interrupts at once.
          irq_done_set_o  = pdone_q;
          irq_error_set_o = perr_q;
          pdone_d = retire_irq_i;
          perr_d  = err_new_i;
          dirty_d = 1'b0;
        end else if (need) begin
          last_c_d = completed_i;
          last_e_d = cur_e;
          last_i_d = cur_i;
          rfly_d   = dirty_q;
          dirty_d  = 1'b0;
          fdone_d  = pdone_q;
          ferr_d   = perr_q;
          pdone_d  = retire_irq_i;
          perr_d   = err_new_i;
          addr_d   = cpl_addr_i;
          rec_d    = RecW'({32'd0, cur_i, 24'd0, cur_e, completed_i});
          beat_d   = '0;
          state_d  = CReq;
        end else begin
          // Nothing new to write (the record already says it).
          irq_done_set_o  = pdone_q;
          irq_error_set_o = perr_q;
          pdone_d = retire_irq_i;
          perr_d  = err_new_i;
        end
      end
      CReq: begin
        if (req_ready_i) begin
          if (start_i) state_d = CData;
          else         state_d = CStart;
        end
      end
      CStart: begin
        if (start_i) state_d = CData;
      end
      CData: begin
        if (wr_ready_i) begin
          if (beat_q == BeatW'(Beats - 1)) state_d = CWait;
          else                             beat_d  = beat_q + 1'b1;
        end
      end
      CWait: ;
      CErr: begin
        if (err_ready_i) state_d = CIdle;
      end
      default: state_d = CIdle;
    endcase

    // End of the write: at the earliest with the request's acceptance (failed checks).
    if (dma_done_i && (state_q == CStart || state_q == CData || state_q == CWait ||
                       (state_q == CReq && req_ready_i))) begin
      fin             = 1'b1;
      irq_done_set_o  = fdone_q;
      irq_error_set_o = ferr_q;
      fdone_d         = 1'b0;
      ferr_d          = 1'b0;
      rfly_d          = 1'b0;
      if (dma_err_i != weft_pkg::ErrNone) begin
        ecode_d = dma_err_i;
        eaddr_d = dma_addr_i;
        eidx_d  = completed_i;
        state_d = CErr;
      end else begin
        state_d = CIdle;
      end
    end

    if (clear_i) begin
      state_d  = CIdle;
      dirty_d  = 1'b1;
      last_c_d = '0;
      last_e_d = '0;
      last_i_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      state_q  <= CIdle;
      last_c_q <= '0;
      last_e_q <= '0;
      last_i_q <= '0;
      dirty_q  <= 1'b0;
      rfly_q   <= 1'b0;
      pdone_q  <= 1'b0;
      perr_q   <= 1'b0;
      fdone_q  <= 1'b0;
      ferr_q   <= 1'b0;
    end else begin
      state_q  <= state_d;
      last_c_q <= last_c_d;
      last_e_q <= last_e_d;
      last_i_q <= last_i_d;
      dirty_q  <= dirty_d;
      rfly_q   <= rfly_d;
      pdone_q  <= pdone_d;
      perr_q   <= perr_d;
      fdone_q  <= fdone_d;
      ferr_q   <= ferr_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    addr_q  <= addr_d;
    rec_q   <= rec_d;
    beat_q  <= beat_d;
    ecode_q <= ecode_d;
    eaddr_q <= eaddr_d;
    eidx_q  <= eidx_d;
  end

  assign req_valid_o     = (state_q == CReq);
  assign req_o.addr      = addr_q;
  assign req_o.row_bytes = 32'd16;
  assign req_o.rows      = 32'd1;
  assign req_o.stride    = 32'd0;
  assign wr_valid_o      = (state_q == CData);
  assign wr_data_o       = rec_q[32'(beat_q) * DataW +: DataW];

  // Busy also while a record is due and not yet started (STATUS.idle waits for it).
  assign busy_o       = (state_q != CIdle) || (enabled && need);
  assign reset_busy_o = dirty_q || rfly_q;

  assign err_valid_o = (state_q == CErr);
  assign err_o       = {ecode_q, eidx_q, eaddr_q};

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      if (start_i) assert (state_q == CStart || (state_q == CReq && req_ready_i))
        else $error("weft_cmd_cpl: unexpected wr_start");
      if (dma_done_i) assert (fin) else $error("weft_cmd_cpl: unexpected wr_done");
    end
  end
`endif

endmodule
