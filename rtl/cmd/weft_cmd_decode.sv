// weft_cmd_decode: assembles descriptors from the fetch buffer, validates them and dispatches
// them in ring order (docs/programming-model.md, docs/cmd.md).
//
// One descriptor at a time: FILL (64/BusBytes beats) -> PREP -> CHECK -> DISPATCH.
// PREP (one cycle) registers the k-tile counts of a COMPUTE (a division by Rows).
// CHECK first tests the fields, in this order: SEQ (word 1 = index), OPCODE, SIZE, ALIGN,
// ACC_RANGE, PARAM (element formats: COMPUTE's a_fmt and w_fmt both INT, both FP8 or both BF16,
// STORE_ACC's out_fmt at most FP32 and not packed in FP32, FP formats only with TensorFp); then
// the extents,
// one multiply-add per step on a shared 32 x 20 multiplier:
//   LOAD / STORE_SPAD  first line spad_addr and last line spad_addr + (rows-1)*spad_stride +
//                      row_lines-1 in one region: the scratchpad [0, spad_lines), the SIMT data
//                      memory [SimtDmemLine, + SimtDmemLines) or (LOAD only) the SIMT
//                      instruction memory [SimtImemLine, + SimtImemLines) (SPAD_RANGE), then
//                      the host extent in one window (WINDOW; every bus beat below the limit)
//   SIMT_LAUNCH        1 <= num_warps <= SimtWarps, 1 <= threads_per_warp <= SimtThreads (SIZE);
//                      OPCODE without a SIMT core (SimtWarps = 0)
//   STORE_ACC          with load_params: params_addr + cols-1 < spad_lines, then the host
//                      extent host_addr + (m-1)*host_stride + sacc_row_bytes (WINDOW, write)
//   COMPUTE            A: a_addr + (kt-1)*a_tile_stride + (m-1)*a_row_stride; W: the last row of
//                      the last tile and (kt >= 2) the last row of the tile before it; with
//                      BF16 operands each row's second line (+1) too
// Each step takes three cycles (timing, docs/fpga.md): the step's operands are selected and
// registered in the first, where the step's checks of the previous step's sum also run, the
// product is registered in the second and added in the third. No cycle goes from the descriptor's
// opcode through the operand selection into the multiplier, nor from the multiplier into the add.
// The first failing check is reported (held until the error register takes it) and the
// descriptor is not dispatched; decoding then stops until the queue reset.
// DISPATCH waits for: go_i (enabled, no reset pending), a free ROB entry, room in the
// engine's queue, no recorded error at or before this index, and for FENCE an empty ROB.
// NOP and FENCE are allocated completed. WAIT_LOAD/COMPUTE/STORE become a dependency on the
// latest earlier descriptor of that engine (engines complete in order), so every engine
// descriptor carries five backward distances {wait_store, wait_compute, wait_load, dep1, dep0}.
`include "weft_assert.svh"
`include "weft_cmd_types.svh"
`include "weft_desc.svh"

module weft_cmd_decode #(
  parameter int  DataW     = 128,
  parameter int  Rows      = 16,
  parameter int  Cols      = 16,
  parameter int  AccDepth  = 512,
  parameter int  SpadLines = 16384,
  parameter int  NumWin    = 4,
  parameter int  SimtWarps = 4,       // 0: no SIMT core
  parameter int  SimtThreads = 8,
  parameter int  SimtDmemLines = 16384,
  parameter int  SimtImemLines = 1024,
  parameter bit  TensorFp  = 1'b1,    // the tensor unit has its FP8 modes
  localparam int BB        = DataW / 8,
  localparam int BbW       = $clog2(BB),
  localparam int Bpd       = 64 / BB,
  localparam int BeatW     = (Bpd > 1) ? $clog2(Bpd) : 1,
  localparam int NWords    = weft_pkg::DescOperandWords  // words 2.. go to the engines
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clear_i,
  // beats from the fetch buffer
  input  logic                  in_valid_i,
  output logic                  in_ready_o,
  input  logic [DataW-1:0]      in_data_i,
  // configuration
  input  logic [63:0]           ring_base_i,
  input  logic [4:0]            ring_log2_i,
  input  logic [NumWin*64-1:0]  win_base_i,
  input  logic [NumWin*64-1:0]  win_limit_i,
  input  logic [NumWin-1:0]     win_read_i,
  input  logic [NumWin-1:0]     win_write_i,
  // queue state
  input  logic                  go_i,
  input  logic [31:0]           idx_i,          // index of the next descriptor (ROB write pointer)
  input  logic [31:0]           rptr_i,         // oldest descriptor in flight
  input  logic                  rob_space_i,
  input  logic                  rob_empty_i,
  input  logic                  err_valid_i,
  input  logic [31:0]           err_idx_i,
  input  logic [3:0]            q_ready_i,      // engine queues: {simt, store, compute, load}
  // dispatch (one-cycle pulse)
  output logic                  disp_valid_o,
  output logic [3:0]            disp_engine_o,  // one-hot {simt, store, compute, load}; 0 = NOP/FENCE
  output logic [7:0]            disp_op_o,
  output logic                  disp_irq_o,
  output logic [31:0]           disp_idx_o,
  output logic [39:0]           disp_deps_o,
  output logic [NWords*32-1:0]  disp_words_o,
  output logic                  empty_o,        // no descriptor held
  // error report (held until accepted)
  output logic                  err_valid_o,
  input  logic                  err_ready_i,
  output weft_cmd_err_t         err_o
);

  if (Bpd < 1 || Bpd * BB != 64) begin : g_bad_dataw
    `WEFT_ELAB_ERROR("weft_cmd_decode: DataW must divide 512")
  end
  if (Rows < 2 || Rows > 32 || Cols < 2 || Cols > 32) begin : g_bad_rc
    `WEFT_ELAB_ERROR("weft_cmd_decode: Rows and Cols must be in 2..32")
  end

  localparam int          Bank    = AccDepth / 2;
  localparam logic [31:0] MaxLen  = 32'h0010_0000;   // 2^20: row_bytes, rows, k
  // t_max = floor((k-1) / Rows) = ((k-1) * DivM) >> DivS, exact for k-1 < 2^20
  // (Granlund-Montgomery: DivS = 20 + ceil(log2 Rows), DivM = ceil(2^DivS / Rows)).
  localparam int          DivS    = 20 + $clog2(Rows);
  localparam int          DivM    = ((1 << DivS) + Rows - 1) / Rows;

  typedef enum logic [2:0] {DFill, DPrep, DCheck, DDisp, DErr, DStop} dstate_e;
  dstate_e state_q, state_d;

  logic [511:0]     desc_q, desc_d;
  logic [BeatW-1:0] beat_q, beat_d;
  logic [2:0]       step_q, step_d;
  logic [1:0]       ph_q, ph_d;          // CHECK: 0 = checks and operands, 1 = multiply, 2 = add
  logic [65:0]      acc_q, acc_d;
  logic [7:0]       ecode_q, ecode_d;
  logic [63:0]      eaddr_q, eaddr_d;
  logic [31:0]      last_idx_q [3];
  logic [31:0]      last_idx_d [3];
  logic [2:0]       last_v_q, last_v_d;

  // ---------------------------------------------------------------- fields
  // The descriptor through the layouts of weft_desc.svh (rtl/host/weft_descriptors.toml).
  weft_desc_header_t      hdr;
  weft_desc_transfer_t    xfer;
  weft_desc_compute_t     comp;
  weft_desc_store_acc_t   sacc;
  weft_desc_simt_launch_t launch;
  assign hdr    = desc_q[0 +: weft_pkg::DescHeaderBits];
  assign xfer   = desc_q[64 +: weft_pkg::DescTransferBits];
  assign comp   = desc_q[64 +: weft_pkg::DescComputeBits];
  assign sacc   = desc_q[64 +: weft_pkg::DescStoreAccBits];
  assign launch = desc_q[64 +: weft_pkg::DescSimtLaunchBits];
  // The checks read the sizes and addresses; the engines read the rest of each layout.
  logic unused_fields;
  assign unused_fields = ^{comp, sacc, launch};

  logic [7:0]  op, flags;
  assign op    = hdr.opcode;
  assign flags = hdr.flags;

  logic is_nop, is_fence, is_load, is_sspad, is_comp, is_sacc, is_xfer, is_simt, op_ok;
  assign is_nop   = (op == weft_pkg::OpNop);
  assign is_fence = (op == weft_pkg::OpFence);
  assign is_load  = (op == weft_pkg::OpLoad);
  assign is_sspad = (op == weft_pkg::OpStoreSpad);
  assign is_comp  = (op == weft_pkg::OpCompute);
  assign is_sacc  = (op == weft_pkg::OpStoreAcc);
  assign is_xfer  = is_load || is_sspad;
  assign is_simt  = (op == weft_pkg::OpSimtLaunch) && (SimtWarps > 0);
  assign op_ok    = is_nop || is_fence || is_xfer || is_comp || is_sacc || is_simt;

  // The host side of a transfer: LOAD / STORE_SPAD, or STORE_ACC (m rows of sacc_row_bytes).
  logic [63:0] t_host;
  logic [31:0] t_hstride, t_rows, t_row_bytes;
  assign t_host      = is_sacc ? sacc.host_addr : xfer.host_addr;
  assign t_hstride   = is_sacc ? sacc.host_stride : xfer.host_stride;
  assign t_rows      = is_sacc ? sacc.m : xfer.rows;
  assign t_row_bytes = is_sacc ? weft_pkg::sacc_row_bytes(sacc.pack, sacc.out_fmt, sacc.n)
                               : xfer.row_bytes;

  // Accumulator rows of the bank: acc < AccDepth and (acc mod Bank) + m <= Bank.
  function automatic logic acc_bad(input logic [31:0] acc, input logic [31:0] m);
    acc_bad = (acc >= 32'(AccDepth)) || ((acc % 32'(Bank)) + m > 32'(Bank));
  endfunction

  function automatic logic misaligned(input logic [31:0] v);
    misaligned = ((v & 32'(BB - 1)) != 32'd0);
  endfunction

  // k-tiles: t_max = kt - 1, rows of the last tile minus one.
  logic [19:0] km1;   // k - 1 (k in 1..2^20 after the SIZE check)
  logic [47:0] div_prod;
  logic [19:0] t_max_c, t_max, t_max_m1;
  logic [19:0] rlast_m1_c, rlast_m1;
  assign km1      = comp.k[19:0] - 20'd1;
  assign div_prod = 48'(km1) * 48'(DivM);
  assign t_max_c    = 20'(div_prod >> DivS);
  assign rlast_m1_c = km1 - 20'(32'(t_max_c) * 32'(Rows));
  // Registered every cycle: valid from PREP on (desc_q holds the whole descriptor in PREP).
  always_ff @(posedge clk_i) begin : p_ktiles
    t_max    <= t_max_c;
    t_max_m1 <= (t_max_c == '0) ? '0 : t_max_c - 20'd1;
    rlast_m1 <= rlast_m1_c;
  end

  // ---------------------------------------------------------------- field checks
  function automatic logic fp8(input logic [2:0] fmt);
    fp8 = TensorFp && (fmt == weft_pkg::FmtE4m3 || fmt == weft_pkg::FmtE5m2);
  endfunction

  // BF16 operand rows take two lines (the decoder lets BF16 only pair with BF16).
  logic comp_wide;
  assign comp_wide = TensorFp && comp.a_fmt == weft_pkg::FmtBf16;

  logic [7:0] simple_err;
  always_comb begin : p_simple
    simple_err = weft_pkg::ErrNone;
    if (hdr.seq != idx_i) begin
      simple_err = weft_pkg::ErrSeq;
    end else if (!op_ok) begin
      simple_err = weft_pkg::ErrOpcode;
    end else if (is_xfer) begin
      if (xfer.row_bytes == '0 || xfer.row_bytes > MaxLen || xfer.rows == '0 ||
          xfer.rows > MaxLen) begin
        simple_err = weft_pkg::ErrSize;
      end else if (misaligned(xfer.host_addr[31:0]) || misaligned(xfer.row_bytes) ||
                   misaligned(xfer.host_stride)) begin
        simple_err = weft_pkg::ErrAlign;
      end
    end else if (is_comp) begin
      if (comp.m == '0 || comp.m > 32'(Bank) || comp.k == '0 || comp.k > MaxLen) begin
        simple_err = weft_pkg::ErrSize;
      end else if (acc_bad(comp.acc_addr, comp.m)) begin
        simple_err = weft_pkg::ErrAccRange;
      end else if (!((comp.a_fmt == weft_pkg::FmtInt && comp.w_fmt == weft_pkg::FmtInt) ||
                     (fp8(comp.a_fmt) && fp8(comp.w_fmt)) ||
                     (TensorFp && comp.a_fmt == weft_pkg::FmtBf16 &&
                      comp.w_fmt == weft_pkg::FmtBf16))) begin
        simple_err = weft_pkg::ErrParam;
      end
    end else if (is_simt) begin
      if (launch.num_warps == '0 || launch.num_warps > 32'(SimtWarps) ||
          launch.threads_per_warp == '0 || launch.threads_per_warp > 32'(SimtThreads)) begin
        simple_err = weft_pkg::ErrSize;
      end
    end else if (is_sacc) begin
      if (sacc.m == '0 || sacc.m > 32'(Bank) || sacc.n == '0 || sacc.n > 32'(Cols)) begin
        simple_err = weft_pkg::ErrSize;
      end else if (misaligned(sacc.host_addr[31:0]) || misaligned(sacc.host_stride)) begin
        simple_err = weft_pkg::ErrAlign;
      end else if (acc_bad(sacc.acc_addr, sacc.m)) begin
        simple_err = weft_pkg::ErrAccRange;
      end else if (sacc.out_fmt > weft_pkg::FmtFp32 ||
                   (sacc.out_fmt != weft_pkg::FmtInt && !TensorFp) ||
                   (sacc.pack && sacc.out_fmt == weft_pkg::FmtFp32)) begin
        simple_err = weft_pkg::ErrParam;
      end
    end
  end

  // ---------------------------------------------------------------- extent steps
  logic        mac_clr, chk_spad, chk_win, chk_write, last_step;
  logic [63:0] mac_base, win_start;
  logic [31:0] mac_x, mac_c;
  logic [19:0] mac_y;

  always_comb begin : p_steps
    mac_clr   = 1'b1;
    mac_base  = '0;
    mac_x     = '0;
    mac_y     = '0;
    mac_c     = '0;
    chk_spad  = 1'b0;
    chk_win   = 1'b0;
    chk_write = 1'b0;
    last_step = 1'b0;
    win_start = xfer.host_addr;
    if (is_xfer || is_sacc) begin
      // A transfer: its scratchpad extent (LOAD / STORE_SPAD rows; STORE_ACC's parameter lines),
      // then its host extent, then the window.
      chk_write = !is_load;
      win_start = t_host;
      unique case (step_q)
        3'd0: begin
          mac_base = is_sacc ? 64'(sacc.params_addr) : 64'(xfer.spad_addr);
          mac_x    = is_sacc ? '0 : xfer.spad_stride;
          mac_y    = is_sacc ? '0 : 20'(xfer.rows - 32'd1);
          mac_c    = is_sacc ? 32'(Cols - 1) : (xfer.row_bytes >> BbW) - 32'd1;
        end
        3'd1: begin
          chk_spad = is_xfer || sacc.load_params;
          mac_base = t_host;
          mac_x    = t_hstride;
          mac_y    = 20'(t_rows - 32'd1);
          mac_c    = t_row_bytes;
        end
        default: begin
          chk_win   = 1'b1;
          last_step = 1'b1;
        end
      endcase
    end else if (is_comp) begin
      unique case (step_q)
        3'd0: begin
          mac_base = 64'(comp.a_addr);
          mac_x    = comp.a_tile_stride;
          mac_y    = t_max;
        end
        3'd1: begin
          mac_clr = 1'b0;
          mac_x   = comp.a_row_stride;
          mac_y   = 20'(comp.m - 32'd1);
          mac_c   = 32'(comp_wide);
        end
        // W, twice: the last row of the last tile (steps 2, 3), then row Rows-1 of the tile
        // before it (steps 4, 5; the last tile again when kt = 1).
        3'd2, 3'd4: begin
          chk_spad = 1'b1;
          mac_base = 64'(comp.w_addr);
          mac_x    = comp.w_tile_stride;
          mac_y    = step_q[2] ? t_max_m1 : t_max;
        end
        3'd3, 3'd5: begin
          mac_clr = 1'b0;
          mac_c   = 32'(comp_wide);
          mac_x   = comp.w_row_stride;
          mac_y   = !step_q[2] ? rlast_m1 : (t_max == '0) ? '0 : 20'(Rows - 1);
        end
        default: begin
          chk_spad  = 1'b1;
          last_step = 1'b1;
        end
      endcase
    end else begin
      last_step = 1'b1;
    end
  end

  logic [31:0] mac_x_q;
  logic [19:0] mac_y_q;
  logic [51:0] mac_prod_q;
  always_ff @(posedge clk_i) begin : p_mac_prod
    mac_x_q    <= mac_x;
    mac_y_q    <= mac_y;
    mac_prod_q <= 52'(mac_x_q) * 52'(mac_y_q);
  end
  assign acc_d = (state_q == DCheck && ph_q == 2'd2) ?
                 (mac_clr ? {2'b00, mac_base} : acc_q) + 66'(mac_prod_q) + 66'(mac_c) : acc_q;

  // Window check of [win_start, acc_q): inside one window with the permission, every bus beat
  // included (win_start is BusBytes-aligned; the last beat ends at acc_q rounded up to a multiple
  // of BusBytes, which is <= limit exactly when acc_q <= the limit rounded down), as weft_dma_check.
  logic win_ok;
  always_comb begin : p_win
    win_ok = 1'b0;
    for (int i = 0; i < NumWin; i++) begin
      if ((chk_write ? win_write_i[i] : win_read_i[i]) &&
          win_start >= win_base_i[i*64 +: 64] &&
          acc_q[65:64] == 2'b00 &&
          acc_q[63:0] <= {win_limit_i[i*64+BbW +: 64-BbW], {BbW{1'b0}}}) begin
        win_ok = 1'b1;
      end
    end
  end

  // Scratchpad range: COMPUTE / STORE_ACC lines must be < spad_lines; a LOAD / STORE_SPAD
  // (acc_q = its last line, xfer.spad_addr its first) must lie in one region.
  logic spad_bad, in_spad, in_dmem, in_imem;
  assign in_spad  = (acc_q < 66'(SpadLines));
  assign in_dmem  = (xfer.spad_addr >= weft_pkg::SimtDmemLine) &&
                    (acc_q < 66'(weft_pkg::SimtDmemLine) + 66'(SimtDmemLines));
  assign in_imem  = is_load && (xfer.spad_addr >= weft_pkg::SimtImemLine) &&
                    (acc_q < 66'(weft_pkg::SimtImemLine) + 66'(SimtImemLines));
  assign spad_bad = !in_spad && !(is_xfer && SimtWarps > 0 && (in_dmem || in_imem));

  // Host address of the descriptor itself (error address of the non-host errors).
  logic [63:0] desc_addr;
  logic [16:0] ring_mask;
  assign ring_mask = (17'd1 << ring_log2_i) - 17'd1;
  assign desc_addr = ring_base_i + {41'd0, idx_i[16:0] & ring_mask, 6'd0};

  // ---------------------------------------------------------------- dispatch
  logic [3:0]  engine;
  logic        order_ok, eng_ready, disp_fire;
  logic [31:0] dist_from_rptr;
  assign engine         = {is_simt, is_sacc || is_sspad, is_comp, is_load};
  assign dist_from_rptr = idx_i - rptr_i;
  assign order_ok       = !err_valid_i || (dist_from_rptr < (err_idx_i - rptr_i));
  assign eng_ready      = (engine == 4'b0000) || ((engine & q_ready_i) != 4'b0000);
  assign disp_fire      = (state_q == DDisp) && go_i && order_ok && rob_space_i && eng_ready &&
                          (!is_fence || rob_empty_i);

  // WAIT_* flags as distances to the latest earlier descriptor of that engine.
  logic [7:0] wait_dist [3];
  always_comb begin : p_wait
    for (int e = 0; e < 3; e++) begin
      logic [31:0] d;
      d = idx_i - last_idx_q[e];
      wait_dist[e] = '0;
      if (flags[weft_pkg::FlagWaitLoad + e] && last_v_q[e] && d < 32'd256) wait_dist[e] = d[7:0];
    end
  end

  // ---------------------------------------------------------------- state
  always_comb begin : p_next
    state_d  = state_q;
    desc_d   = desc_q;
    beat_d   = beat_q;
    step_d   = step_q;
    ph_d     = ph_q;
    ecode_d  = ecode_q;
    eaddr_d  = eaddr_q;
    last_v_d = last_v_q;
    for (int e = 0; e < 3; e++) last_idx_d[e] = last_idx_q[e];

    unique case (state_q)
      DFill: begin
        if (in_valid_i) begin
          desc_d[32'(beat_q) * DataW +: DataW] = in_data_i;
          if (beat_q == BeatW'(Bpd - 1)) begin
            beat_d  = '0;
            step_d  = '0;
            ph_d    = 2'd0;
            state_d = DPrep;
          end else begin
            beat_d = beat_q + 1'b1;
          end
        end
      end
      DPrep: state_d = DCheck;
      DCheck: begin
        ph_d = (ph_q == 2'd2) ? 2'd0 : ph_q + 2'd1;
        if (ph_q == 2'd2) begin
          step_d = step_q + 3'd1;
        end else if (ph_q == 2'd1) begin
          // the product of this step's operands is registered
        end else if (step_q == 3'd0 && simple_err != weft_pkg::ErrNone) begin
          ecode_d = simple_err;
          eaddr_d = (simple_err == weft_pkg::ErrAlign) ? win_start : desc_addr;
          state_d = DErr;
        end else if (chk_spad && spad_bad) begin
          ecode_d = weft_pkg::ErrSpadRange;
          eaddr_d = desc_addr;
          state_d = DErr;
        end else if (chk_win && !win_ok) begin
          ecode_d = weft_pkg::ErrWindow;
          eaddr_d = win_start;
          state_d = DErr;
        end else if (last_step) begin
          state_d = DDisp;
        end
      end
      DDisp: begin
        if (disp_fire) begin
          state_d = DFill;
          for (int e = 0; e < 3; e++) begin
            if (engine[e]) begin
              last_idx_d[e] = idx_i;
              last_v_d[e]   = 1'b1;
            end
          end
        end
      end
      DErr: begin
        if (err_ready_i) state_d = DStop;
      end
      DStop: ;
      default: state_d = DFill;
    endcase

    if (clear_i) begin
      state_d  = DFill;
      beat_d   = '0;
      last_v_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      state_q  <= DFill;
      beat_q   <= '0;
      step_q   <= '0;
      ph_q     <= 2'd0;
      last_v_q <= '0;
    end else begin
      state_q  <= state_d;
      beat_q   <= beat_d;
      step_q   <= step_d;
      ph_q     <= ph_d;
      last_v_q <= last_v_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    desc_q  <= desc_d;
    acc_q   <= acc_d;
    ecode_q <= ecode_d;
    eaddr_q <= eaddr_d;
    for (int e = 0; e < 3; e++) last_idx_q[e] <= last_idx_d[e];
  end

  assign in_ready_o    = (state_q == DFill);
  assign empty_o       = (state_q == DFill) && (beat_q == '0);
  assign disp_valid_o  = disp_fire;
  assign disp_engine_o = engine;
  assign disp_op_o     = op;
  assign disp_irq_o    = flags[weft_pkg::FlagIrq];
  assign disp_idx_o    = idx_i;
  assign disp_deps_o   = {wait_dist[2], wait_dist[1], wait_dist[0], hdr.dep1, hdr.dep0};
  assign disp_words_o  = desc_q[64 +: NWords*32];

  assign err_valid_o = (state_q == DErr);
  assign err_o       = {ecode_q, idx_i, eaddr_q};

endmodule
