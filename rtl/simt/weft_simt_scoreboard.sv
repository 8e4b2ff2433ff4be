// weft_simt_scoreboard: the SIMT core's scoreboard and replay (docs/simt.md "Pipeline").
//
// DIV/REM and loads leave WB at once and finish later in their unit (weft_simt_div,
// weft_simt_lsu); their rd is marked per warp here (st_q.pending_div, .pending_load: one bit per
// register) from the unit's start (div_start_i, load_start_i) to its write back.
//
// OF check (replay_o): the instruction in OF is dropped without side effects when it reads or
// writes a pending register of its warp (after this cycle's write backs, whose values OF
// forwards), or is a divide and the divider will not be free when it leaves WB (busy, or a
// divide in EX or WB ahead of it), or is a load/store and the LSU queue will have no free entry
// then (its free slots after this cycle, less the LSU instructions in EX and WB ahead of it).
//
// Replay wait: the dropped warp records exactly what its instruction needs (the registers it
// uses, the divider, LSU room) and stays blocked (warp_blocked_o, to the scheduler) until that is
// ready; other warps keep issuing. warp_blocked_o is a register: a warp whose needs are met in
// cycle t may issue in t+1, so that no path runs from the units' write backs into the
// scheduler's choice and the instruction memory's address. warp_waits_div_o tells the performance
// counters whether a warp waits on the divider's side (a divide's rd or the divider) or the LSU's.
`include "weft_simt_types.svh"

module weft_simt_scoreboard #(
  parameter int  Warps = 4,
  localparam int WarpW = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             launch_i,
  // The instruction in OF.
  input  logic             of_valid_i,
  input  logic [WarpW-1:0] of_warp_i,
  input  weft_simt_rr_t    of_i,
  output logic             replay_o,
  // Unit hand-offs ahead of OF.
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
  input  logic             div_accept_i,       // the divider's result is taken: free next cycle
  input  logic             div_wb_valid_i,     // a divide's rd is written this cycle
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

  // The scoreboard and the replay waits: cleared together at launch_i.
  typedef struct packed {
    logic [Warps*32-1:0] pending_div;   // rd of the outstanding divide
    logic [Warps*32-1:0] pending_load;  // rd of the outstanding loads
    logic [Warps-1:0]    waiting;       // replayed: waits for what it needs
    logic [Warps-1:0]    waits_div;     // ... on the divider's side (else LSU)
    logic [Warps*32-1:0] wait_regs;     // ... registers it uses
    logic [Warps-1:0]    wait_divider;  // ... the divider to be free
    logic [Warps-1:0]    wait_lsu;      // ... room in the LSU queue
  } state_t;
  state_t st_q, st_d;

  // A replayed warp waits until what its instruction needs is ready: the registers it uses free
  // in the scoreboard (after this cycle's write backs), the divider free, room in the LSU queue.
  logic [Warps*32-1:0] pending_next;
  logic [Warps-1:0]    release_warp;

  always_comb begin : p_release
    pending_next = st_q.pending_div | st_q.pending_load;
    if (div_wb_valid_i) pending_next[32*div_wb_warp_i + 32'(div_wb_rd_i)] = 1'b0;
    if (lsu_wb_valid_i) pending_next[32*lsu_wb_warp_i + 32'(lsu_wb_rd_i)] = 1'b0;
    for (int w = 0; w < Warps; w++) begin
      release_warp[w] = ((st_q.wait_regs[32*w +: 32] & pending_next[32*w +: 32]) == '0) &&
                        !(st_q.wait_divider[w] && div_busy_i && !div_accept_i) &&
                        !(st_q.wait_lsu[w] && lsu_free_slots_i == 2'd0);
    end
  end
  assign warp_blocked_o = st_q.waiting;

  // The scoreboard of the warp in OF after this cycle's write backs, and the registers it uses.
  logic [31:0] of_pending_div, of_pending_load, of_regs;
  logic        of_div_hazard, of_mem_hazard;

  always_comb begin : p_rr
    of_pending_div  = st_q.pending_div[32*of_warp_i +: 32];
    of_pending_load = st_q.pending_load[32*of_warp_i +: 32];
    if (div_wb_valid_i && div_wb_warp_i == of_warp_i) of_pending_div[div_wb_rd_i] = 1'b0;
    if (lsu_wb_valid_i && lsu_wb_warp_i == of_warp_i) of_pending_load[lsu_wb_rd_i] = 1'b0;
    of_regs = '0;
    if (of_i.reads_rs1) of_regs[of_i.rs1] = 1'b1;
    if (of_i.reads_rs2) of_regs[of_i.rs2] = 1'b1;
    if (of_i.writes_rd) of_regs[of_i.rd]  = 1'b1;
  end

  // A divide needs the divider free when it leaves WB; a load or store needs a free LSU queue
  // entry then (the LSU's slots after this cycle, less those the LSU instructions in WB and EX
  // take).
  assign of_div_hazard = ((of_regs & of_pending_div) != '0) ||
                         (of_i.div && (div_busy_i || ex_to_div_i || wb_to_div_i));
  assign of_mem_hazard = ((of_regs & of_pending_load) != '0) ||
                         (of_i.mem &&
                          (lsu_free_slots_i < 2'd1 + 2'(ex_to_lsu_i) + 2'(wb_to_lsu_i)));
  assign replay_o = of_valid_i && of_i.fetch_fault == 2'b00 && (of_div_hazard || of_mem_hazard);

  always_comb begin : p_next
    st_d         = st_q;
    st_d.waiting = st_q.waiting & ~release_warp;
    if (replay_o) begin
      st_d.waiting[of_warp_i]            = 1'b1;
      st_d.waits_div[of_warp_i]          = of_div_hazard;
      st_d.wait_regs[32*of_warp_i +: 32] = of_regs;
      st_d.wait_divider[of_warp_i]       = of_i.div;
      st_d.wait_lsu[of_warp_i]           = of_i.mem;
    end
    if (div_wb_valid_i) st_d.pending_div[32*div_wb_warp_i + 32'(div_wb_rd_i)] = 1'b0;
    if (lsu_wb_valid_i) st_d.pending_load[32*lsu_wb_warp_i + 32'(lsu_wb_rd_i)] = 1'b0;
    if (div_start_i)  st_d.pending_div[32*start_warp_i + 32'(start_rd_i)] = 1'b1;
    if (load_start_i) st_d.pending_load[32*start_warp_i + 32'(start_rd_i)] = 1'b1;
    if (launch_i) st_d = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) st_q <= '0;
    else         st_q <= st_d;
  end

  assign warp_waits_div_o = st_q.waits_div;

endmodule
