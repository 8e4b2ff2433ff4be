// The fuzzer's expectation of the command processor's decode-time checks, written from the
// check table of docs/cmd.md ("Decode and validation") and the rules of docs/programming-model.md,
// not from the RTL or ref://: for one descriptor at queue index `index`, the first failing check
// (code and ERR_ADDR), or none. Also the host extent a transfer touches and an estimate of the
// device work a valid descriptor asks for (to keep fuzz cases bounded).
//
// Check order (docs/cmd.md): SEQ, OPCODE, SIZE, ALIGN, ACC_RANGE, PARAM (element formats),
// SPAD_RANGE, WINDOW. ERR_ADDR: host_addr for WINDOW and ALIGN, the descriptor's own ring address
// for the other decode errors. Execution-time errors (SLVERR, DECERR, SIMT, PARAM from a TFLite
// shift) are not decided here.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "weft/descriptor.hpp"
#include "weft/device.hpp"

namespace weft::tb::fuzz {

using u128 = unsigned __int128;

struct Window {
  uint64_t base = 0, limit = 0;
  bool read = false, write = false;
};
using Windows = std::array<Window, 4>;

// What the checks need of the device (from Capabilities).
struct Shape {
  uint32_t rows = 0, cols = 0, bb = 16, spad_lines = 0, acc_rows = 0;
  bool simt = false, fp = false;
  uint32_t warps = 0, threads = 0;
  uint64_t dmem_lines = 0, imem_lines = 0;

  static Shape of(const Capabilities& c) {
    Shape s;
    s.rows = c.rows;
    s.cols = c.cols;
    s.bb = c.bus_bytes;
    s.spad_lines = c.spad_lines;
    s.acc_rows = c.acc_rows;
    s.simt = c.has_simt();
    s.fp = c.tensor_fp;
    s.warps = c.simt_warps;
    s.threads = c.simt_threads;
    s.dmem_lines = c.simt_dmem_bytes / c.bus_bytes;
    s.imem_lines = c.simt_imem_bytes / c.bus_bytes;
    return s;
  }
};

struct Verdict {
  ErrorCode code = ErrorCode::kNone;
  uint64_t addr = 0;
  bool ok() const { return code == ErrorCode::kNone; }
};

// The host bytes a LOAD / STORE_SPAD / STORE_ACC moves: rows of row_bytes at addr + r * stride.
struct Extent {
  uint64_t addr = 0, row_bytes = 0, rows = 0, stride = 0;
  bool write = false;
  u128 end() const { return u128(addr) + u128(rows - 1) * stride + row_bytes; }
  // Does a bus beat of some row (rows end in whole beats of `bb` bytes) touch [lo, hi)?
  bool touches(uint64_t lo, uint64_t hi, uint32_t bb) const {
    const uint64_t beats = (row_bytes + bb - 1) / bb * bb;
    for (uint64_t r = 0; r < rows; ++r) {
      const u128 a = u128(addr) + u128(r) * stride;
      if (a < hi && a + beats > lo) return true;
      if (stride == 0) break;
    }
    return false;
  }
};

inline constexpr uint64_t kMax20 = uint64_t{1} << 20;

inline bool valid_opcode(uint8_t op, const Shape& s) {
  switch (static_cast<Opcode>(op)) {
    case Opcode::kNop:
    case Opcode::kFence:
    case Opcode::kLoad:
    case Opcode::kStoreSpad:
    case Opcode::kCompute:
    case Opcode::kStoreAcc:
      return true;
    case Opcode::kSimtLaunch:
      return s.simt;
  }
  return false;
}

// STORE_ACC output row bytes (programming-model.md, STORE_ACC): pack: n (INT, FP8) or 2n (BF16);
// else 4n.
inline uint64_t store_row_bytes(const StoreAccArgs& s) {
  if (!s.pack) return 4ull * s.n;
  return s.out_fmt == ElemFormat::kBf16 ? 2ull * s.n : uint64_t{s.n};
}

inline std::optional<Extent> host_extent(const Descriptor& d) {
  switch (d.opcode()) {
    case Opcode::kLoad:
    case Opcode::kStoreSpad: {
      const auto x = d.operands<Transfer2d>();
      return Extent{x.host_addr, x.row_bytes, x.rows, x.host_stride,
                    d.opcode() == Opcode::kStoreSpad};
    }
    case Opcode::kStoreAcc: {
      const auto s = d.operands<StoreAccArgs>();
      return Extent{s.host_addr, store_row_bytes(s), s.m, s.host_stride, true};
    }
    default:
      return std::nullopt;
  }
}

// Every bus beat of [addr, end) inside one window with the permission: addr >= base and end <=
// the limit rounded down to whole beats (programming-model.md, "DMA windows"); end beyond 2^64
// never fits.
inline bool in_one_window(uint64_t addr, u128 end, bool write, const Windows& w, uint32_t bb) {
  for (const Window& x : w) {
    if (!(write ? x.write : x.read)) continue;
    const uint64_t lim = x.limit & ~uint64_t{bb - 1};
    if (addr >= x.base && end <= u128(lim) && end > u128(addr)) return true;
  }
  return false;
}

inline bool acc_bad(uint64_t acc, uint64_t m, const Shape& s) {
  const uint64_t half = s.acc_rows / 2;
  return acc >= s.acc_rows || acc % half + m > half;
}

// The first failing decode check of `d` at queue index `index`; `desc_addr` is its ring entry.
inline Verdict decode(const Descriptor& d, uint32_t index, const Shape& s, const Windows& w,
                      uint64_t desc_addr) {
  const auto fail = [&](ErrorCode c, uint64_t a) { return Verdict{c, a}; };
  if (d.seq() != index) return fail(ErrorCode::kSeq, desc_addr);
  const uint8_t op = static_cast<uint8_t>(d.opcode());
  if (!valid_opcode(op, s)) return fail(ErrorCode::kOpcode, desc_addr);
  const uint64_t half = s.acc_rows / 2, bb = s.bb;
  switch (d.opcode()) {
    case Opcode::kLoad:
    case Opcode::kStoreSpad: {
      const auto x = d.operands<Transfer2d>();
      const bool load = d.opcode() == Opcode::kLoad;
      if (x.row_bytes == 0 || x.row_bytes > kMax20 || x.rows == 0 || x.rows > kMax20) {
        return fail(ErrorCode::kSize, desc_addr);
      }
      if (x.host_addr % bb || x.row_bytes % bb || x.host_stride % bb) {
        return fail(ErrorCode::kAlign, x.host_addr);
      }
      // The lines touched lie in one region: the scratchpad, the SIMT data memory or (LOAD only)
      // the SIMT instruction memory.
      const uint64_t first = x.spad_addr;
      const uint64_t last = first + uint64_t{x.rows - 1} * x.spad_stride + x.row_bytes / bb - 1;
      const bool in_spad = last < s.spad_lines;
      const bool in_dmem =
          s.simt && first >= kSimtDmemLine && last < kSimtDmemLine + s.dmem_lines;
      const bool in_imem =
          s.simt && load && first >= kSimtImemLine && last < kSimtImemLine + s.imem_lines;
      if (!in_spad && !in_dmem && !in_imem) return fail(ErrorCode::kSpadRange, desc_addr);
      const Extent e = *host_extent(d);
      if (!in_one_window(e.addr, e.end(), !load, w, s.bb)) return fail(ErrorCode::kWindow, e.addr);
      return {};
    }
    case Opcode::kCompute: {
      const auto c = d.operands<ComputeArgs>();
      if (c.m == 0 || c.m > half || c.k == 0 || c.k > kMax20) return fail(ErrorCode::kSize, desc_addr);
      if (acc_bad(c.acc_addr, c.m, s)) return fail(ErrorCode::kAccRange, desc_addr);
      const auto fp8 = [&](ElemFormat f) {
        return s.fp && (f == ElemFormat::kE4m3 || f == ElemFormat::kE5m2);
      };
      const bool formats_ok = (c.a_fmt == ElemFormat::kInt && c.w_fmt == ElemFormat::kInt) ||
                              (fp8(c.a_fmt) && fp8(c.w_fmt)) ||
                              (s.fp && c.a_fmt == ElemFormat::kBf16 && c.w_fmt == ElemFormat::kBf16);
      if (!formats_ok) return fail(ErrorCode::kParam, desc_addr);
      // Every line read < spad_lines: the largest A line and the largest W line (strides are
      // unsigned, so the last tile's last row, or row rows-1 of the tile before it).
      const uint64_t wide = c.a_fmt == ElemFormat::kBf16 ? 1 : 0;
      const uint64_t kt = (uint64_t{c.k} + s.rows - 1) / s.rows;
      const uint64_t kr_last = c.k - (kt - 1) * s.rows;
      const uint64_t a_last =
          uint64_t{c.a_addr} + (kt - 1) * c.a_tile_stride + uint64_t{c.m - 1} * c.a_row_stride + wide;
      uint64_t w_last =
          uint64_t{c.w_addr} + (kt - 1) * c.w_tile_stride + (kr_last - 1) * c.w_row_stride + wide;
      if (kt >= 2) {
        w_last = std::max(w_last, uint64_t{c.w_addr} + (kt - 2) * c.w_tile_stride +
                                      uint64_t{s.rows - 1} * c.w_row_stride + wide);
      }
      if (a_last >= s.spad_lines || w_last >= s.spad_lines) {
        return fail(ErrorCode::kSpadRange, desc_addr);
      }
      return {};
    }
    case Opcode::kStoreAcc: {
      const auto a = d.operands<StoreAccArgs>();
      if (a.m == 0 || a.m > half || a.n == 0 || a.n > s.cols) return fail(ErrorCode::kSize, desc_addr);
      if (a.host_addr % bb || a.host_stride % bb) return fail(ErrorCode::kAlign, a.host_addr);
      if (acc_bad(a.acc_addr, a.m, s)) return fail(ErrorCode::kAccRange, desc_addr);
      const auto f = static_cast<uint8_t>(a.out_fmt);
      if (f > static_cast<uint8_t>(ElemFormat::kFp32) || (a.out_fmt != ElemFormat::kInt && !s.fp) ||
          (a.pack && a.out_fmt == ElemFormat::kFp32)) {
        return fail(ErrorCode::kParam, desc_addr);
      }
      if (a.load_params && uint64_t{a.params_addr} + s.cols - 1 >= s.spad_lines) {
        return fail(ErrorCode::kSpadRange, desc_addr);
      }
      const Extent e = *host_extent(d);
      if (!in_one_window(e.addr, e.end(), true, w, s.bb)) return fail(ErrorCode::kWindow, e.addr);
      return {};
    }
    case Opcode::kSimtLaunch: {
      const auto l = d.operands<SimtLaunch>();
      if (l.num_warps == 0 || l.num_warps > s.warps || l.threads_per_warp == 0 ||
          l.threads_per_warp > s.threads) {
        return fail(ErrorCode::kSize, desc_addr);
      }
      return {};
    }
    default:
      return {};
  }
}

// Device cycles a valid descriptor keeps its engine busy, roughly (bus beats, array rows, SIMT
// warp issues); UINT64_MAX for a SIMT launch without a step limit.
inline uint64_t work(const Descriptor& d, const Shape& s) {
  switch (d.opcode()) {
    case Opcode::kLoad:
    case Opcode::kStoreSpad:
    case Opcode::kStoreAcc: {
      const Extent e = *host_extent(d);
      return e.rows * ((e.row_bytes + s.bb - 1) / s.bb + 1);
    }
    case Opcode::kCompute: {
      const auto c = d.operands<ComputeArgs>();
      const uint64_t kt = (uint64_t{c.k} + s.rows - 1) / s.rows;
      return uint64_t{c.m} * kt * (c.a_fmt == ElemFormat::kBf16 ? 2 : 1) + kt * s.rows;
    }
    case Opcode::kSimtLaunch: {
      const auto l = d.operands<SimtLaunch>();
      return l.max_issues == 0 ? UINT64_MAX : uint64_t{l.max_issues} * 4;
    }
    default:
      return 1;
  }
}

}  // namespace weft::tb::fuzz
