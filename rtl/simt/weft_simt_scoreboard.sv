// weft_simt_scoreboard: the SIMT core's scoreboard and replay (docs/simt.md "Pipeline").
//
// DIV/REM and loads leave WB at once and finish later in their unit (weft_simt_div,
// weft_simt_lsu); their rd is marked per warp here (pending_div_q, pending_load_q: one bit per
// register) from the unit's start (div_start_i, load_start_i) to its write back.
//
// RR check (replay_o): the instruction in RR is dropped without side effects when it reads or
// writes a pending register of its warp (after this cycle's write backs, whose values RR
// forwards), or is a divide and the divider will not be free when it leaves WB (busy, or a
// divide in EX or WB ahead of it), or is a load/store and the LSU queue will have no free entry
// then (its free slots after this cycle, less the LSU instructions in EX and WB ahead of it).
//
// Replay wait: the dropped warp records exactly what its instruction needs (the registers it
// uses, the divider, LSU room) and stays blocked (warp_blocked_o, to the scheduler) until that is
// ready; other warps keep issuing. warp_waits_div_o tells the performance counters whether a
// warp waits on the divider's side (a divide's rd or the divider) or the LSU's.
module weft_simt_scoreboard #(
  parameter int  Warps = 4,
  localparam int WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             launch_i,
  // The instruction in RR.
  input  logic             rr_valid_i,
  input  logic [WarpW-1:0] rr_warp_i,
  input  logic [1:0]       rr_fetch_fault_i,   // nonzero: no instruction, nothing to check
  input  logic [4:0]       rr_rs1_i,
  input  logic [4:0]       rr_rs2_i,
  input  logic [4:0]       rr_rd_i,
  input  logic             rr_reads_rs1_i,
  input  logic             rr_reads_rs2_i,
  input  logic             rr_writes_rd_i,
  input  logic             rr_div_i,           // DIV/DIVU/REM/REMU
  input  logic             rr_mem_i,           // load or store
  output logic             replay_o,
  // Unit hand-offs ahead of RR.
  input  logic             ex_to_div_i,        // EX / WB hold an instruction that will start ...
  input  logic             wb_to_div_i,        // ... the divider
  input  logic             ex_to_lsu_i,        // ... the LSU
  input  logic             wb_to_lsu_i,
  input  logic             div_start_i,        // WB starts a divide ...
  input  logic             load_start_i,       // ... or a load ...
  input  logic [WarpW-1:0] start_warp_i,       // ... of this warp, writing this register
  input  logic [4:0]       start_rd_i,
  // Units.
  input  logic             div_busy_i,
  input  logic             div_wb_valid_i,
  input  logic [WarpW-1:0] div_wb_warp_i,
  input  logic [4:0]       div_wb_rd_i,
  input  logic [1:0]       lsu_free_slots_i,
  input  logic             lsu_wb_valid_i,
  input  logic [WarpW-1:0] lsu_wb_warp_i,
  input  logic [4:0]       lsu_wb_rd_i,
  // Replay wait, per warp.
  output logic [Warps-1:0] warp_blocked_o,
  output logic [Warps-1:0] warp_waits_div_o
);

  logic [Warps*32-1:0] pending_div_q, pending_div_d;    // rd of the outstanding divide
  logic [Warps*32-1:0] pending_load_q, pending_load_d;  // rd of the outstanding loads
  logic [Warps-1:0]    waiting_q, waiting_d;            // replayed: waits for what it needs
  logic [Warps-1:0]    waits_div_q, waits_div_d;        // ... on the divider's side (else LSU)
  logic [Warps*32-1:0] wait_regs_q, wait_regs_d;        // ... registers it uses
  logic [Warps-1:0]    wait_divider_q, wait_divider_d;  // ... the divider to be free
  logic [Warps-1:0]    wait_lsu_q, wait_lsu_d;          // ... room in the LSU queue

  // A replayed warp waits until what its instruction needs is ready: the registers it uses free
  // in the scoreboard (after this cycle's write backs), the divider free, room in the LSU queue.
  logic [Warps*32-1:0] pending_next;
  logic [Warps-1:0]    release_warp;

  always_comb begin : p_release
    pending_next = pending_div_q | pending_load_q;
    if (div_wb_valid_i) pending_next[32*div_wb_warp_i + 32'(div_wb_rd_i)] = 1'b0;
    if (lsu_wb_valid_i) pending_next[32*lsu_wb_warp_i + 32'(lsu_wb_rd_i)] = 1'b0;
    for (int w = 0; w < Warps; w++) begin
      release_warp[w] = ((wait_regs_q[32*w +: 32] & pending_next[32*w +: 32]) == '0) &&
                        !(wait_divider_q[w] && div_busy_i && !div_wb_valid_i) &&
                        !(wait_lsu_q[w] && lsu_free_slots_i == 2'd0);
    end
    warp_blocked_o = waiting_q & ~release_warp;
  end

  // The scoreboard of the warp in RR after this cycle's write backs, and the registers it uses.
  logic [31:0] rr_pending_div, rr_pending_load, rr_regs;
  logic        rr_div_hazard, rr_mem_hazard;

  always_comb begin : p_rr
    rr_pending_div  = pending_div_q[32*rr_warp_i +: 32];
    rr_pending_load = pending_load_q[32*rr_warp_i +: 32];
    if (div_wb_valid_i && div_wb_warp_i == rr_warp_i) rr_pending_div[div_wb_rd_i] = 1'b0;
    if (lsu_wb_valid_i && lsu_wb_warp_i == rr_warp_i) rr_pending_load[lsu_wb_rd_i] = 1'b0;
    rr_regs = '0;
    if (rr_reads_rs1_i) rr_regs[rr_rs1_i] = 1'b1;
    if (rr_reads_rs2_i) rr_regs[rr_rs2_i] = 1'b1;
    if (rr_writes_rd_i) rr_regs[rr_rd_i]  = 1'b1;
  end

  // A divide needs the divider free when it leaves WB; a load or store needs a free LSU queue
  // entry then (the LSU's slots after this cycle, less those the LSU instructions in WB and EX
  // take).
  assign rr_div_hazard = ((rr_regs & rr_pending_div) != '0) ||
                         (rr_div_i && (div_busy_i || ex_to_div_i || wb_to_div_i));
  assign rr_mem_hazard = ((rr_regs & rr_pending_load) != '0) ||
                         (rr_mem_i &&
                          (lsu_free_slots_i < 2'd1 + 2'(ex_to_lsu_i) + 2'(wb_to_lsu_i)));
  assign replay_o = rr_valid_i && rr_fetch_fault_i == 2'b00 && (rr_div_hazard || rr_mem_hazard);

  always_comb begin : p_next
    pending_div_d  = pending_div_q;
    pending_load_d = pending_load_q;
    waiting_d      = warp_blocked_o;
    waits_div_d    = waits_div_q;
    wait_regs_d    = wait_regs_q;
    wait_divider_d = wait_divider_q;
    wait_lsu_d     = wait_lsu_q;
    if (replay_o) begin
      waiting_d[rr_warp_i]            = 1'b1;
      waits_div_d[rr_warp_i]          = rr_div_hazard;
      wait_regs_d[32*rr_warp_i +: 32] = rr_regs;
      wait_divider_d[rr_warp_i]       = rr_div_i;
      wait_lsu_d[rr_warp_i]           = rr_mem_i;
    end
    if (div_wb_valid_i) pending_div_d[32*div_wb_warp_i + 32'(div_wb_rd_i)] = 1'b0;
    if (lsu_wb_valid_i) pending_load_d[32*lsu_wb_warp_i + 32'(lsu_wb_rd_i)] = 1'b0;
    if (div_start_i)  pending_div_d[32*start_warp_i + 32'(start_rd_i)] = 1'b1;
    if (load_start_i) pending_load_d[32*start_warp_i + 32'(start_rd_i)] = 1'b1;
    if (launch_i) begin
      pending_div_d  = '0;
      pending_load_d = '0;
      waiting_d      = '0;
      waits_div_d    = '0;
      wait_regs_d    = '0;
      wait_divider_d = '0;
      wait_lsu_d     = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      pending_div_q  <= '0;
      pending_load_q <= '0;
      waiting_q      <= '0;
      waits_div_q    <= '0;
      wait_regs_q    <= '0;
      wait_divider_q <= '0;
      wait_lsu_q     <= '0;
    end else begin
      pending_div_q  <= pending_div_d;
      pending_load_q <= pending_load_d;
      waiting_q      <= waiting_d;
      waits_div_q    <= waits_div_d;
      wait_regs_q    <= wait_regs_d;
      wait_divider_q <= wait_divider_d;
      wait_lsu_q     <= wait_lsu_d;
    end
  end

  assign warp_waits_div_o = waits_div_q;

endmodule
