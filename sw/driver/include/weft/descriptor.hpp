// weft/descriptor.hpp: the 64-byte command descriptor of the Weft queue, as the device decodes it.
// The format is specified in docs/programming-model.md ("Descriptor format"); this header is its
// one C++ encoding, shared by the driver, its back ends and the tests.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace weft {

// Descriptor opcodes (word 0, bits 7:0); the same codes as weft_pkg::Op*.
enum class Opcode : uint8_t {
  kNop = 0x00,
  kFence = 0x01,
  kLoad = 0x10,       // host -> scratchpad, 2D
  kStoreSpad = 0x11,  // scratchpad -> host, 2D
  kCompute = 0x20,    // A (scratchpad) x W (scratchpad) -> accumulator
  kStoreAcc = 0x30,   // accumulator -> bias/requant/activation -> host
  kSimtLaunch = 0x40, // run a kernel on the SIMT core
};

// Line address regions of LOAD / STORE_SPAD's spad_addr (docs/programming-model.md, "Line address
// space"): scratchpad lines from 0, the SIMT data memory from kSimtDmemLine (line L = kernel bytes
// (L - kSimtDmemLine) * bus_bytes ..), the SIMT instruction memory from kSimtImemLine (LOAD only).
inline constexpr uint32_t kSimtDmemLine = 0x100000;
inline constexpr uint32_t kSimtImemLine = 0x200000;

// Flags (word 0, bits 15:8).
enum DescFlags : uint8_t {
  kFlagIrq = 1u << 0,          // raise IRQ_STATUS.done when this descriptor retires
  kFlagWaitLoad = 1u << 1,     // wait until every earlier LOAD has completed
  kFlagWaitCompute = 1u << 2,  // ... every earlier COMPUTE
  kFlagWaitStore = 1u << 3,    // ... every earlier STORE_SPAD / STORE_ACC
};

// Error codes (ERR_CODE register, completion record); the same codes as weft_pkg::Err*.
enum class ErrorCode : uint8_t {
  kNone = 0,
  kOpcode = 1,
  kSize = 2,
  kWindow = 3,
  kSpadRange = 4,
  kAccRange = 5,
  kAlign = 6,
  kSlverr = 7,
  kDecerr = 8,
  kSeq = 9,
  kRing = 10,
  kSimt = 11,  // a SIMT kernel stopped on an error (SIMT_ERR_* registers)
  kParam = 12, // a post-processing parameter out of range (TFLite shift outside [-31, 30])
};

constexpr std::string_view error_name(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNone: return "NONE";
    case ErrorCode::kOpcode: return "OPCODE";
    case ErrorCode::kSize: return "SIZE";
    case ErrorCode::kWindow: return "WINDOW";
    case ErrorCode::kSpadRange: return "SPAD_RANGE";
    case ErrorCode::kAccRange: return "ACC_RANGE";
    case ErrorCode::kAlign: return "ALIGN";
    case ErrorCode::kSlverr: return "SLVERR";
    case ErrorCode::kDecerr: return "DECERR";
    case ErrorCode::kSeq: return "SEQ";
    case ErrorCode::kRing: return "RING";
    case ErrorCode::kSimt: return "SIMT";
    case ErrorCode::kParam: return "PARAM";
  }
  return "UNKNOWN";
}

// Requantization modes of STORE_ACC (weft_pkg::Rq*, weft::golden::RequantMode).
enum class StoreMode : uint8_t { kTfliteDouble = 0, kTfliteSingle = 1, kOnnx = 2, kInt32 = 3 };

// 2D host <-> scratchpad transfer (LOAD, STORE_SPAD).
struct Transfer2d {
  uint64_t host_addr = 0;     // multiple of 16
  uint32_t row_bytes = 0;     // multiple of 16
  uint32_t rows = 0;
  uint32_t host_stride = 0;   // bytes between row starts, multiple of 16
  uint32_t spad_addr = 0;     // scratchpad line
  uint32_t spad_stride = 0;   // lines between row starts
};

struct ComputeArgs {
  uint32_t a_addr = 0, a_row_stride = 0, a_tile_stride = 0;  // scratchpad lines
  uint32_t w_addr = 0, w_row_stride = 0, w_tile_stride = 0;  // scratchpad lines
  uint32_t m = 0, k = 0;
  uint32_t acc_addr = 0;
  bool accumulate = false, a_signed = true, w_signed = true;
  uint8_t a_zp = 0, w_zp = 0;
};

struct StoreAccArgs {
  uint64_t host_addr = 0;
  uint32_t host_stride = 0;
  uint32_t m = 0, acc_addr = 0;
  uint32_t n = 0;  // columns written, 1..cols
  StoreMode mode = StoreMode::kInt32;
  bool pack = false;         // INT8 out (one byte per column)
  bool load_params = false;  // load per-column parameters from params_addr first
  uint32_t params_addr = 0;  // scratchpad line of column 0's {bias, mult/scale, shift}
  int32_t zp = 0, act_min = INT32_MIN, act_max = INT32_MAX;
};

// SIMT_LAUNCH operands (words 2..9): the launch ABI of docs/simt-model.md.
struct SimtLaunch {
  uint32_t pc = 0;                // entry point, byte address in the instruction memory
  uint32_t num_warps = 1;         // 1 .. CAP3.warps
  uint32_t threads_per_warp = 1;  // 1 .. CAP3.threads
  uint32_t block_id = 0;          // CSR 0xCC3
  uint32_t arg_ptr = 0;           // CSR 0xCC5 and a0 at entry
  uint32_t stack_top = 0;         // sp of thread 0
  uint32_t stack_size = 0;        // bytes per thread: thread t starts with sp = stack_top - t*size
  uint32_t max_issues = 0;        // warp instructions before StepLimit; 0 = no limit
};

// One descriptor: sixteen little-endian 32-bit words.
struct Descriptor {
  std::array<uint32_t, 16> w{};

  Opcode opcode() const { return static_cast<Opcode>(w[0] & 0xff); }
  uint8_t flags() const { return static_cast<uint8_t>(w[0] >> 8); }
  // Adds flags (DescFlags).
  Descriptor& with_flags(uint8_t f) { w[0] |= uint32_t{f} << 8; return *this; }
  // Waits for the descriptor `back` places earlier (1..255); slot 0 or 1.
  Descriptor& with_dep(int slot, uint8_t back) {
    const int sh = slot == 0 ? 16 : 24;
    w[0] = (w[0] & ~(0xffu << sh)) | (uint32_t{back} << sh);
    return *this;
  }
  uint8_t dep(int slot) const { return static_cast<uint8_t>(w[0] >> (slot == 0 ? 16 : 24)); }
  // The index the descriptor must have in the ring (set by the queue at submission).
  Descriptor& with_seq(uint32_t seq) { w[1] = seq; return *this; }
  uint32_t seq() const { return w[1]; }

  static Descriptor raw(uint8_t opcode) { Descriptor d; d.w[0] = opcode; return d; }
  static Descriptor nop() { return raw(static_cast<uint8_t>(Opcode::kNop)); }
  static Descriptor fence() { return raw(static_cast<uint8_t>(Opcode::kFence)); }

  static Descriptor transfer(Opcode op, const Transfer2d& t) {
    Descriptor d = raw(static_cast<uint8_t>(op));
    d.w[2] = static_cast<uint32_t>(t.host_addr);
    d.w[3] = static_cast<uint32_t>(t.host_addr >> 32);
    d.w[4] = t.row_bytes;
    d.w[5] = t.rows;
    d.w[6] = t.host_stride;
    d.w[7] = t.spad_addr;
    d.w[8] = t.spad_stride;
    return d;
  }
  static Descriptor load(const Transfer2d& t) { return transfer(Opcode::kLoad, t); }
  static Descriptor store_spad(const Transfer2d& t) { return transfer(Opcode::kStoreSpad, t); }

  static Descriptor compute(const ComputeArgs& c) {
    Descriptor d = raw(static_cast<uint8_t>(Opcode::kCompute));
    d.w[2] = c.a_addr;
    d.w[3] = c.a_row_stride;
    d.w[4] = c.a_tile_stride;
    d.w[5] = c.w_addr;
    d.w[6] = c.w_row_stride;
    d.w[7] = c.w_tile_stride;
    d.w[8] = c.m;
    d.w[9] = c.k;
    d.w[10] = c.acc_addr;
    d.w[11] = (c.accumulate ? 1u : 0u) | (c.a_signed ? 2u : 0u) | (c.w_signed ? 4u : 0u) |
              (uint32_t{c.a_zp} << 8) | (uint32_t{c.w_zp} << 16);
    return d;
  }

  static Descriptor store_acc(const StoreAccArgs& s) {
    Descriptor d = raw(static_cast<uint8_t>(Opcode::kStoreAcc));
    d.w[2] = static_cast<uint32_t>(s.host_addr);
    d.w[3] = static_cast<uint32_t>(s.host_addr >> 32);
    d.w[4] = s.host_stride;
    d.w[5] = s.m;
    d.w[6] = s.acc_addr;
    d.w[7] = s.n;
    d.w[8] = static_cast<uint32_t>(s.mode) | (s.pack ? 4u : 0u) | (s.load_params ? 8u : 0u);
    d.w[9] = s.params_addr;
    d.w[10] = static_cast<uint32_t>(s.zp);
    d.w[11] = static_cast<uint32_t>(s.act_min);
    d.w[12] = static_cast<uint32_t>(s.act_max);
    return d;
  }

  static Descriptor simt_launch(const SimtLaunch& l) {
    Descriptor d = raw(static_cast<uint8_t>(Opcode::kSimtLaunch));
    d.w[2] = l.pc;
    d.w[3] = l.num_warps;
    d.w[4] = l.threads_per_warp;
    d.w[5] = l.block_id;
    d.w[6] = l.arg_ptr;
    d.w[7] = l.stack_top;
    d.w[8] = l.stack_size;
    d.w[9] = l.max_issues;
    return d;
  }
};

// One scratchpad line of per-column post-processing parameters (STORE_ACC load_params), as the
// first 16 bytes of a line: bias, multiplier (TFLite) or float32 scale bits (ONNX), shift.
struct ColumnParams {
  int32_t bias = 0;
  uint32_t mult = 0;
  int32_t shift = 0;  // 6-bit field (low 6 bits of the third word)
  uint32_t reserved = 0;
};
static_assert(sizeof(ColumnParams) == 16);

// The completion record the device writes to CPL_ADDR (16 bytes).
struct CompletionRecord {
  uint32_t completed = 0;  // descriptors retired since the queue reset
  uint32_t error = 0;      // ErrorCode that stopped the queue, or 0
  uint32_t error_index = 0;
  uint32_t reserved = 0;
};
static_assert(sizeof(CompletionRecord) == 16);

}  // namespace weft
