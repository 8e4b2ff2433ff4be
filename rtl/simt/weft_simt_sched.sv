// weft_simt_sched: the SIMT core's warp scheduler, pipeline stage IS (docs/simt.md "Pipeline").
//
// Per warp (generate block g_warp[w], named for waves): pc, the minimum pc of its runnable threads
// (neither exited nor waiting at the barrier); mask, its runnable threads at that pc (the active
// mask of its next issue: min-pc reconvergence, docs/simt.md); ready, it may issue now: the launch
// runs without error, the warp is runnable, has no instruction in flight (a warp has at most one
// in IS..WB) and does not wait after a replay (warp_blocked_i, weft_simt_scoreboard).
//
// Each cycle the first ready warp after the last one chosen (round robin) issues at its pc; the
// instruction memory is read (fetch_o) unless the pc is misaligned or past the memory, a fetch
// fault that travels with the instruction to WB, where it is reported in order. The issued
// instruction's warp, pc, mask and fetch fault are registered into RR (rr_*).
// In flight: set at issue, cleared when the instruction is replayed in OF or leaves WB.
//
// Fetch fault encoding (rr_fetch_fault_o and the stages after it): bit 0 misaligned pc, bit 1 pc
// past the instruction memory (only for an aligned pc); 0 no fault.
module weft_simt_sched #(
  parameter int  Warps     = 4,
  parameter int  Threads   = 8,
  parameter int  ImemWords = 4096,
  localparam int WarpW     = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int ImemAddrW = (ImemWords > 1) ? $clog2(ImemWords) : 1,
  localparam int NumThr    = Warps * Threads,
  localparam int Leaves    = 1 << $clog2(Threads)   // the min-pc tree's width (Threads rounded up)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 launch_i,
  input  logic                 issuing_i,          // the launch runs and no error stopped it
  input  logic [NumThr*32-1:0] thread_pc_i,
  input  logic [NumThr-1:0]    thread_exited_i,
  input  logic [NumThr-1:0]    thread_at_barrier_i,
  input  logic [Warps-1:0]     warp_blocked_i,     // replayed, waiting for what it needs
  input  logic                 replay_i,           // the instruction in OF is dropped ...
  input  logic [WarpW-1:0]     replay_warp_i,      // ... of this warp
  input  logic                 retire_i,           // an instruction leaves WB ...
  input  logic [WarpW-1:0]     retire_warp_i,      // ... of this warp
  output logic [Warps-1:0]     warp_runnable_o,
  // IS: the issue of this cycle.
  output logic                 issue_o,
  output logic                 fetch_o,            // read the instruction memory ...
  output logic [ImemAddrW-1:0] fetch_addr_o,       // ... at this word
  // RR: the instruction issued in the previous cycle.
  output logic                 rr_valid_o,
  output logic [WarpW-1:0]     rr_warp_o,
  output logic [31:0]          rr_pc_o,
  output logic [Threads-1:0]   rr_mask_o,
  output logic [1:0]           rr_fetch_fault_o
);

  logic [Warps-1:0]         in_flight_q, in_flight_d;  // an instruction of the warp in IS..WB
  logic [WarpW-1:0]         last_warp_q, last_warp_d;  // the round robin's last choice
  logic [Warps-1:0]         warp_ready;
  logic [Warps*32-1:0]      warp_pc;
  logic [Warps*Threads-1:0] warp_mask;

  for (genvar w = 0; w < Warps; w++) begin : g_warp
    logic               runnable;  // some thread neither exited nor waiting at a barrier
    logic [31:0]        pc;        // the warp's pc: the minimum pc of its runnable threads
    logic [Threads-1:0] mask;      // its runnable threads at pc: the next issue's active mask
    logic               ready;     // may issue now: runnable, nothing in flight, not waiting

    // The minimum as a tree of compares (log2 Threads levels, not a chain of Threads - 1): node i
    // holds the smaller runnable pc of nodes 2i and 2i + 1; leaves Leaves + l are the threads.
    logic [31:0] node_pc [2*Leaves];
    logic        node_v  [2*Leaves];

    always_comb begin : p_min_pc
      int t;                         // the thread of leaf l (lane 0's for the padding leaves)
      t = 0;
      for (int l = 0; l < Leaves; l++) begin
        t = w * Threads + ((l < Threads) ? l : 0);
        node_v[Leaves + l]  = (l < Threads) && !thread_exited_i[t] && !thread_at_barrier_i[t];
        node_pc[Leaves + l] = thread_pc_i[32*t +: 32];
      end
      node_v[0]  = 1'b0;
      node_pc[0] = '1;
      for (int i = Leaves - 1; i >= 1; i--) begin
        node_v[i]  = node_v[2*i] || node_v[2*i+1];
        node_pc[i] = (node_v[2*i] && (!node_v[2*i+1] || node_pc[2*i] <= node_pc[2*i+1])) ?
                     node_pc[2*i] : node_pc[2*i+1];
      end
      runnable = node_v[1];
      pc       = node_v[1] ? node_pc[1] : '1;
    end

    always_comb begin : p_mask
      for (int l = 0; l < Threads; l++) begin
        mask[l] = !thread_exited_i[w*Threads + l] && !thread_at_barrier_i[w*Threads + l] &&
                  (thread_pc_i[32*(w*Threads + l) +: 32] == pc);
      end
    end

    assign ready = issuing_i && runnable && !in_flight_q[w] && !warp_blocked_i[w];
    assign warp_ready[w]                   = ready;
    assign warp_runnable_o[w]              = runnable;
    assign warp_pc[32*w +: 32]             = pc;
    assign warp_mask[Threads*w +: Threads] = mask;
  end

  logic [WarpW-1:0] issue_warp;
  logic [31:0]      issue_pc;
  logic [1:0]       issue_fetch_fault;

  always_comb begin : p_issue
    issue_warp = '0;
    for (int w = Warps - 1; w >= 0; w--) begin
      if (warp_ready[w]) issue_warp = WarpW'(w);
    end
    for (int w = Warps - 1; w >= 0; w--) begin  // the first after the last winner takes precedence
      if (warp_ready[w] && WarpW'(w) > last_warp_q) issue_warp = WarpW'(w);
    end
    issue_o    = |warp_ready;
    issue_pc = warp_pc[32*issue_warp +: 32];
    if (issue_pc[1:0] != 2'b00)                        issue_fetch_fault = 2'b01;
    else if ({2'b00, issue_pc[31:2]} >= 32'(ImemWords)) issue_fetch_fault = 2'b10;
    else                                                 issue_fetch_fault = 2'b00;
  end

  assign fetch_o      = issue_o && issue_fetch_fault == 2'b00;
  assign fetch_addr_o = issue_pc[2 +: ImemAddrW];

  always_comb begin : p_next
    in_flight_d = in_flight_q;
    last_warp_d = last_warp_q;
    if (issue_o) begin
      in_flight_d[issue_warp] = 1'b1;
      last_warp_d               = issue_warp;
    end
    if (replay_i) in_flight_d[replay_warp_i] = 1'b0;
    if (retire_i) in_flight_d[retire_warp_i] = 1'b0;
    if (launch_i) begin
      in_flight_d = '0;
      last_warp_d = WarpW'(Warps - 1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      in_flight_q      <= '0;
      last_warp_q      <= '0;
      rr_valid_o       <= 1'b0;
      rr_warp_o        <= '0;
      rr_pc_o          <= '0;
      rr_mask_o        <= '0;
      rr_fetch_fault_o <= '0;
    end else begin
      in_flight_q      <= in_flight_d;
      last_warp_q      <= last_warp_d;
      rr_valid_o       <= issue_o;
      rr_warp_o        <= issue_warp;
      rr_pc_o          <= issue_pc;
      rr_mask_o        <= warp_mask[Threads*issue_warp +: Threads];
      rr_fetch_fault_o <= issue_fetch_fault;
    end
  end

endmodule
