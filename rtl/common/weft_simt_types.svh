// The bundles that travel between the blocks of the SIMT core (rtl/simt, docs/simt.md "Internal
// links"), as packed structs (tool subset: typedefs come from a guarded include, not a package).
// Only fields of a fixed width live here: the warp index (WarpW), the lane masks (Threads) and the
// per-lane values (Threads x 32) depend on the core's parameters and stay ports of their own.
// The launch parameters are weft_desc_simt_launch_t (weft_desc.svh, the SIMT_LAUNCH operands).
`ifndef WEFT_SIMT_TYPES_SVH
`define WEFT_SIMT_TYPES_SVH

// weft_simt_decode: one instruction word, classified (ISA v20191213 chapter 2 and 7; Weft Zicsr).
typedef struct packed {
  logic        illegal;      // docs/simt-model.md: unknown or unsupported word
  logic        is_lui;
  logic        is_auipc;
  logic        is_jal;
  logic        is_jalr;
  logic        is_branch;
  logic        is_load;
  logic        is_store;
  logic        is_alu;       // OP-IMM or OP with funct7 0 / 0x20
  logic        is_mul;       // MUL, MULH, MULHSU, MULHU
  logic        is_div;       // DIV, DIVU, REM, REMU (the shared divider)
  logic        is_ecall;
  logic        is_ebreak;
  logic        is_csr;       // a legal CSR access
  logic        csr_barrier;  // a write to CSR 0x8C0
  logic [31:0] imm;
  logic        uses_rs1;
  logic        uses_rs2;
  logic        writes_rd;
} weft_simt_dec_t;

// RR -> weft_simt_scoreboard: what the instruction in RR reads, writes and needs (its warp and
// valid travel beside it).
typedef struct packed {
  logic [1:0] fetch_fault;   // nonzero: no instruction, nothing to check
  logic [4:0] rs1;           // ECALL: a7
  logic [4:0] rs2;           // ECALL: a0
  logic [4:0] rd;
  logic       reads_rs1;
  logic       reads_rs2;
  logic       writes_rd;
  logic       div;           // DIV/DIVU/REM/REMU
  logic       mem;           // load or store
} weft_simt_rr_t;

// weft_simt_lane -> WB (weft_simt_commit): what one thread's execution produced. The lanes of a
// warp travel as a flat vector, lane l at [l*W +: W], W = $bits(weft_simt_lane_res_t'('0)).
typedef struct packed {
  logic        we;           // rd (if not x0) takes wdata now
  logic [31:0] wdata;
  logic [31:0] next_pc;
  logic [31:0] addr;         // load/store address
  logic        exit;         // ECALL exit (a7 = 93): the exit code is rs2 (a0)
  logic        barrier;      // a write to the barrier CSR
  logic        fault;
  logic [7:0]  fault_code;   // docs/simt-model.md error code
  logic [31:0] fault_tval;
} weft_simt_lane_res_t;

// EX -> WB (weft_simt_commit): the instruction as the units and the fault check need it (its
// warp, active mask and per-lane values travel beside it).
typedef struct packed {
  logic [31:0] pc;
  logic [2:0]  funct3;
  logic [4:0]  rd;
  logic [1:0]  fetch_fault;  // weft_simt_sched's encoding: bit 0 misaligned, bit 1 out of range
  logic        div;
  logic        load;
  logic        store;
} weft_simt_wb_t;

// WB -> weft_simt_launch: the fault of the instruction in WB (its warp and lane beside it).
typedef struct packed {
  logic [7:0]  code;         // docs/simt-model.md error code; 0: none
  logic [31:0] pc;
  logic [31:0] tval;
} weft_simt_fault_t;

// weft_simt_launch: the result of the last launch, held until the next start.
typedef struct packed {
  logic [7:0]  code;         // 0: no error
  logic [31:0] pc;
  logic [31:0] thread;
  logic [31:0] tval;
} weft_simt_result_t;

// weft_simt_perf: the performance counters of the last launch (docs/simt.md).
typedef struct packed {
  logic [31:0] cycles;         // cycles from start to done
  logic [31:0] issued;         // warp instructions executed
  logic [31:0] active;         // sum of their active threads
  logic [31:0] stall_pipe;     // no issue: ready warps in the pipeline
  logic [31:0] stall_div;      // no issue: waiting for the divider
  logic [31:0] stall_mem;      // no issue: waiting for the LSU
  logic [31:0] stall_barrier;  // no issue: threads wait at a barrier
  logic [31:0] replays;        // instructions dropped at RR, reissued
  logic [31:0] barriers;       // barrier releases
} weft_simt_perf_t;

`endif  // WEFT_SIMT_TYPES_SVH
