// High-level ops: GEMM tiled onto the device, conv2d by im2col. The tiling and the descriptor
// schedule are described in docs/driver.md ("Tiling"); dependencies come from schedule.hpp.
#include "weft/ops.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_impl.hpp"
#include "ops_internal.hpp"
#include "schedule.hpp"

namespace weft::detail {

Clamp check_output_stage(const OutputStage& o, uint64_t N, bool int32_out, const char* who) {
  const std::string w(who);
  auto bad = [](const std::string& m) { throw Error(Errc::kBadArgument, m); };
  auto per_channel = [&](size_t count, const char* what) {
    if (count != 0 && count != 1 && count != N) {
      bad(w + ": " + what + " has " + std::to_string(count) + " values; give N = " +
          std::to_string(N) + " or 1");
    }
  };
  if (!o.bias.empty() && o.bias.size() != N) {
    bad(w + ": bias has " + std::to_string(o.bias.size()) + " values; give N = " +
        std::to_string(N) + " or none");
  }
  const bool declared = o.type != OutputType::kUnspecified;
  if (o.mode == StoreMode::kTfliteDouble || o.mode == StoreMode::kTfliteSingle) {
    per_channel(o.multiplier.size(), "multiplier");
    if (o.multiplier.empty()) bad(w + ": TFLite modes need multiplier and shift");
    if (o.shift.size() != o.multiplier.size()) bad(w + ": shift needs as many values as multiplier");
    for (int32_t s : o.shift) {
      if (s < -31 || s > 30) bad(w + ": shift " + std::to_string(s) + " is outside [-31, 30]");
    }
  } else if (o.mode == StoreMode::kOnnx) {
    per_channel(o.scale.size(), "scale");
    if (o.scale.empty()) bad(w + ": ONNX mode needs scale");
    for (float s : o.scale) {
      if (!std::isfinite(s)) bad(w + ": ONNX scales must be finite");
      if (declared && !(s >= 0)) {
        bad(w + ": ONNX scale " + std::to_string(s) + " is negative (a declared output type "
            "needs scales >= 0: x_scale * w_scale / y_scale)");
      }
    }
  }
  Clamp c{o.act_min, o.act_max};
  if (!int32_out && declared) {
    const bool sgn = o.type == OutputType::kInt8;
    const int32_t lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
    if (o.zero_point < lo || o.zero_point > hi) {
      bad(w + ": output zero point " + std::to_string(o.zero_point) + " is outside the " +
          (sgn ? "int8" : "uint8") + " range");
    }
    // The clamp left at its defaults (-128, 127) means "no activation": the type's range.
    if (o.act_min == OutputStage{}.act_min && o.act_max == OutputStage{}.act_max) c = {lo, hi};
    c.lo = std::max(c.lo, lo);
    c.hi = std::min(c.hi, hi);
  }
  if (!int32_out && c.lo > c.hi) bad(w + ": act_min > act_max");
  return c;
}

std::vector<uint8_t> pack_params(const OutputStage& o, uint64_t N, uint64_t nst, uint32_t C,
                                 uint32_t B) {
  std::vector<uint8_t> p_pk(nst * C * B, 0);
  for (uint64_t n = 0; n < N; ++n) {
    ColumnParams cp;
    cp.bias = o.bias.empty() ? 0 : o.bias[n];
    auto pick = [&](const auto& v) { return v.size() == 1 ? v[0] : v[n]; };
    if (o.format != ElemFormat::kInt) {
      // The FP output stage reads bias and scale as FP32 bits (missing: 0.0 and 1.0).
      cp.bias = std::bit_cast<int32_t>(o.fp_bias.empty() ? 0.0f : o.fp_bias[n]);
      cp.mult = std::bit_cast<uint32_t>(o.scale.empty() ? 1.0f : pick(o.scale));
    } else if (o.mode == StoreMode::kTfliteDouble || o.mode == StoreMode::kTfliteSingle) {
      cp.mult = static_cast<uint32_t>(pick(o.multiplier));
      cp.shift = pick(o.shift) & 0x3f;
    } else if (o.mode == StoreMode::kOnnx) {
      cp.mult = std::bit_cast<uint32_t>(pick(o.scale));
    }
    std::memcpy(&p_pk[n * B], &cp, sizeof cp);
  }
  return p_pk;
}

PerfReport run_program(Device& dev, const std::vector<Descriptor>& prog, const Timeout& timeout,
                       const std::function<void(double)>& progress) {
  // Wait for earlier work, clear the counters, submit in batches, report progress.
  Queue& q = dev.queue();
  q.finish(timeout);
  dev.clear_perf();
  const uint64_t first = q.submitted();
  const size_t batch = std::max<size_t>(1, q.ring_entries() / 2);
  for (size_t i = 0; i < prog.size(); i += batch) {
    const size_t n = std::min(batch, prog.size() - i);
    q.submit(std::span<const Descriptor>(prog.data() + i, n));
    if (progress) progress(double(q.completed() - first) / double(prog.size()));
  }
  const uint64_t last = first + prog.size() - 1;
  if (progress) {
    // In steps of 1 % (at most one per descriptor), so a long run shows that it moves.
    const size_t steps = std::min<size_t>(100, prog.size());
    for (size_t f = 1; f <= steps; ++f) {
      const size_t done = std::max<size_t>(1, (prog.size() * f) / steps);
      if (q.completed() < first + done) q.wait(first + done - 1, timeout);
      progress(double(done) / double(prog.size()));
    }
  }
  q.wait(last, timeout);
  return dev.perf();
}

}  // namespace weft::detail

namespace weft {

float onnx_output_scale(float x_scale, float w_scale, float y_scale) {
  const float xw = x_scale * w_scale;  // float32, then divided (onnxruntime's order)
  return xw / y_scale;
}

uint64_t im2col_bytes(const Conv2dShape& s) {
  return uint64_t(s.n) * uint64_t(std::max(s.out_h(), 0)) * uint64_t(std::max(s.out_w(), 0)) *
         uint64_t(s.kh) * uint64_t(s.kw) * uint64_t(s.c_in);
}

}  // namespace weft

namespace weft {
namespace {

using detail::Eng;
using detail::Scheduler;
using detail::Span;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

[[noreturn]] void bad(const std::string& m) { throw Error(Errc::kBadArgument, m); }

bool is_fp8(ElemFormat f) { return f == ElemFormat::kE4m3 || f == ElemFormat::kE5m2; }

// Scratchpad lines per operand row: a BF16 row (2 bytes per element) takes two, the row's line
// and the next (docs/tensor-unit.md, "BF16 rows").
uint32_t lines_per_row(const GemmOptions& opt) { return opt.a.format == ElemFormat::kBf16 ? 2 : 1; }

void check_operand(const char* name, const Operand& o) {
  if (o.format != ElemFormat::kInt) {
    if (!is_fp8(o.format) && o.format != ElemFormat::kBf16) {
      bad(std::string(name) + ": element format " + std::to_string(int(o.format)) +
          " is not an operand format (INT, E4M3, E5M2 or BF16)");
    }
    if (o.zero_point != 0) bad(std::string(name) + ": FP operands take no zero point");
    return;
  }
  const int lo = o.is_signed ? -128 : 0, hi = o.is_signed ? 127 : 255;
  if (o.zero_point < lo || o.zero_point > hi) {
    bad(std::string(name) + " zero point " + std::to_string(o.zero_point) + " is outside the " +
        (o.is_signed ? "int8" : "uint8") + " range");
  }
}

// One output tile: rows [m0, m0 + rows) of strip `strip`, in accumulator bank `bank`.
struct Pair {
  uint32_t chunk, strip, m0, rows, bank;
  size_t first_step = 0, last_step = 0;
};

// One COMPUTE: k-tiles [t0, t0 + nt) of a pair (k elements).
struct Step {
  size_t pair;
  uint32_t t0, nt, k;
  uint32_t wbuf;    // W buffer (alternates per k-chunk of a tile)
  uint32_t w_off;   // line of this step's first W row in the buffer (pieces of one k-chunk)
  uint32_t a_spad;  // scratchpad line of this step's A (row m0 of the pair, tile t0)
  uint32_t a_tile_stride;
};

// A host -> scratchpad copy of A tiles [t0, t0 + nt) of rows [m0, m0 + rows) to `spad`.
struct ALoad {
  uint32_t m0, rows, t0, nt, spad, tile_stride;
};

// Post-processing parameter blocks in the scratchpad (a ring: a tile's block is reloaded only
// four tiles later, long after its STORE_ACC).
constexpr uint32_t kParamBufs = 4;

struct Plan {
  uint32_t R, C, B, half;
  uint64_t M, N, K, kt, nst;
  uint32_t a_lo, a_cap, w_lo, w_cap, p_lo;
  uint64_t Kc, nk, mc, nmc;
  std::vector<std::pair<uint32_t, uint32_t>> chunks;  // m-chunks: first row, rows
  bool resident, interleaved;
  std::vector<Pair> pairs;
  std::vector<Step> steps;
  std::vector<std::vector<ALoad>> aloads;  // per step: emitted with that step's loads
  std::string summary;
};

// Sizes (k-tiles) of the pieces the first two output tiles are split into: two k-tiles each
// (at most 16 pieces). Measured on the 16x16 sim device (M=128 K=256 N=256): one-tile pieces
// lose to the per-LOAD overhead of the load engine at higher memory latency, bigger ones delay
// the start (docs/driver.md).
std::vector<uint32_t> first_pieces(uint32_t nt) { return {std::max<uint32_t>(2, (nt + 15) / 16)}; }

// The sizes of a plan, computed without building it (cheap for any M, N, K: the size checks use
// them before anything is allocated).
struct PlanSizes {
  uint32_t R, C, B, half;
  uint64_t kt, nst;
  uint32_t a_lo, a_cap, w_lo, w_cap, p_lo;
  uint64_t Kc, nk, mc, nmc;
  bool resident;
};

// Scratchpad addresses of a plan count operand rows of `lpr` lines each (lines_per_row): the
// plan sees spad_lines / lpr of them, and the descriptors multiply by lpr.
PlanSizes plan_sizes(const Capabilities& cap, uint64_t M, uint64_t N, uint64_t K, uint32_t lpr) {
  PlanSizes p{};
  p.R = cap.rows, p.C = cap.cols, p.B = cap.bus_bytes, p.half = cap.acc_rows / 2;
  p.kt = ceil_div(K, p.R);
  p.nst = ceil_div(N, p.C);
  const uint32_t L = cap.spad_lines / lpr;
  const uint32_t bank = L / std::max<uint32_t>(cap.spad_banks, 1);
  // Scratchpad: A double buffer below, the W double buffer and the kParamBufs parameter blocks
  // in the last bank (a different bank from A when there are several), parameters at the end.
  const uint32_t w_region = cap.spad_banks >= 2 ? bank : L / 2;
  p.a_lo = 0;
  p.a_cap = (L - w_region) / 2;
  p.p_lo = L - kParamBufs * p.C;
  p.w_lo = L - w_region;
  p.w_cap = static_cast<uint32_t>(((w_region - kParamBufs * p.C) / 2) / p.R * p.R);
  if (p.w_cap < p.R || p.a_cap < 1) bad("scratchpad too small for this array");
  // K chunks (one W buffer each), balanced, multiples of R.
  p.nk = ceil_div(K, p.w_cap);
  p.Kc = std::min<uint64_t>(K, ceil_div(ceil_div(K, p.nk), p.R) * p.R);
  p.nk = ceil_div(K, p.Kc);
  // A resident per m-chunk (all K) when that still leaves a chunk that streams well.
  const uint64_t min_rows = std::min<uint64_t>(M, 64);
  const uint64_t kc_tiles = ceil_div(p.Kc, p.R);
  p.resident = p.a_cap / p.kt >= min_rows;
  const uint64_t tiles_per_block = p.resident ? p.kt : std::max<uint64_t>(kc_tiles, 1);
  const uint64_t mc_max = std::min<uint64_t>({M, p.half, p.a_cap / tiles_per_block});
  if (mc_max < 1) bad("K too large for the scratchpad");
  p.nmc = ceil_div(M, mc_max);
  p.mc = ceil_div(M, p.nmc);
  return p;
}

Plan make_plan(const Capabilities& cap, uint64_t M, uint64_t N, uint64_t K,
               const GemmOptions& opt) {
  Plan p{};
  const PlanSizes z = plan_sizes(cap, M, N, K, lines_per_row(opt));
  p.R = z.R, p.C = z.C, p.B = z.B, p.half = z.half;
  p.M = M, p.N = N, p.K = K;
  p.kt = z.kt, p.nst = z.nst;
  p.a_lo = z.a_lo, p.a_cap = z.a_cap, p.w_lo = z.w_lo, p.w_cap = z.w_cap, p.p_lo = z.p_lo;
  p.Kc = z.Kc, p.nk = z.nk, p.mc = z.mc, p.nmc = z.nmc;
  p.resident = z.resident;
  // m-chunks, balanced.
  const uint32_t min_stream = p.R + p.C + 2;  // rows that hide a weight-tile load
  for (uint64_t c = 0; c < p.nmc; ++c) {
    const uint64_t a = M * c / p.nmc, b = M * (c + 1) / p.nmc;
    p.chunks.push_back({static_cast<uint32_t>(a), static_cast<uint32_t>(b - a)});
  }
  p.nmc = p.chunks.size();

  // Output tiles: m-chunk-major, strips inside; the last one split in two for a short tail.
  for (uint32_t c = 0; c < p.nmc; ++c) {
    for (uint32_t s = 0; s < p.nst; ++s) {
      p.pairs.push_back({c, s, p.chunks[c].first, p.chunks[c].second, 0});
    }
  }
  if (opt.short_tail && p.pairs.size() >= 2 && p.pairs.back().rows >= 2 * min_stream) {
    const Pair last = p.pairs.back();
    p.pairs.pop_back();
    const uint32_t h = last.rows / 2;
    p.pairs.push_back({last.chunk, last.strip, last.m0, h, 0});
    p.pairs.push_back({last.chunk, last.strip, last.m0 + h, last.rows - h, 0});
  }
  // Steps: one COMPUTE per k-chunk of each pair. Fine start: the first two tiles (two strips
  // of the first m-chunk) are split into k-tile pieces and interleaved, (tile 0, piece 0),
  // (tile 1, piece 0), (tile 0, piece 1), ...: each piece of A then feeds two pieces of
  // compute, so the start is not bound by the bus while A arrives.
  p.interleaved = opt.fine_start && p.pairs.size() >= 2 && p.pairs[1].chunk == 0 &&
                  p.pairs[1].rows == p.pairs[0].rows && p.nk == 1;
  std::vector<std::vector<Step>> per_pair(p.pairs.size());
  uint32_t wgroup = 0;
  for (size_t q = 0; q < p.pairs.size(); ++q) {
    p.pairs[q].bank = q % 2;
    for (uint64_t j = 0; j < p.nk; ++j) {
      const uint32_t t0 = static_cast<uint32_t>(j * p.Kc / p.R);
      const uint32_t k = static_cast<uint32_t>(std::min<uint64_t>(p.Kc, K - j * p.Kc));
      const uint32_t nt = static_cast<uint32_t>(ceil_div(k, p.R));
      std::vector<uint32_t> sizes{nt};
      if (opt.fine_start && p.pairs.size() > 1 && (q == 0 || (q == 1 && p.interleaved))) {
        sizes = first_pieces(nt);
      }
      size_t pi = 0;
      const uint32_t wbuf = wgroup++ % 2;
      for (uint32_t t = 0; t < nt;) {
        const uint32_t g = std::min(sizes[std::min(pi++, sizes.size() - 1)], nt - t);
        Step st{};
        st.pair = q;
        st.t0 = t0 + t;
        st.nt = g;
        t += g;
        st.k = std::min<uint32_t>(st.nt * p.R, static_cast<uint32_t>(K - uint64_t{st.t0} * p.R));
        st.wbuf = wbuf;
        st.w_off = (st.t0 - t0) * p.R;
        per_pair[q].push_back(st);
      }
    }
  }
  for (size_t q = 0; q < p.pairs.size(); ++q) {
    if (q == 0 && p.interleaved) {
      for (size_t i = 0; i < per_pair[0].size(); ++i) {
        p.steps.push_back(per_pair[0][i]);
        p.steps.push_back(per_pair[1][i]);
      }
      ++q;
      continue;
    }
    for (const Step& st : per_pair[q]) p.steps.push_back(st);
  }
  for (auto& pr : p.pairs) pr.first_step = SIZE_MAX, pr.last_step = 0;
  for (size_t s = 0; s < p.steps.size(); ++s) {
    Pair& pr = p.pairs[p.steps[s].pair];
    pr.first_step = std::min(pr.first_step, s);
    pr.last_step = std::max(pr.last_step, s);
  }
  uint32_t ablock = 0;
  p.aloads.resize(p.steps.size());
  // A placement and loads.
  if (p.resident) {
    // Chunk c lives in buffer c % 2: line a_lo + (c%2)*a_cap + t*mc + (m - chunk m0).
    std::vector<size_t> chunk_first(p.nmc, SIZE_MAX);
    for (size_t s = 0; s < p.steps.size(); ++s) {
      const Pair& pr = p.pairs[p.steps[s].pair];
      if (chunk_first[pr.chunk] == SIZE_MAX) chunk_first[pr.chunk] = s;
      const uint32_t buf = p.a_lo + (pr.chunk % 2) * p.a_cap;
      const auto [cm0, crows] = p.chunks[pr.chunk];
      p.steps[s].a_spad = buf + p.steps[s].t0 * crows + (pr.m0 - cm0);
      p.steps[s].a_tile_stride = crows;
    }
    for (uint32_t c = 0; c < p.nmc; ++c) {
      const uint32_t buf = p.a_lo + (c % 2) * p.a_cap;
      const auto [cm0, rows] = p.chunks[c];
      const uint32_t mcs = rows;
      if (c == 0) {
        // With the steps of the first pair that use them (fine start), else all at once.
        if (opt.fine_start) {
          for (size_t s = p.pairs[0].first_step; s <= p.pairs[0].last_step; ++s) {
            const Step& st = p.steps[s];
            if (st.pair != 0) continue;  // the interleaved second tile reuses these tiles
            p.aloads[s].push_back({cm0, rows, st.t0, st.nt, buf + st.t0 * mcs, mcs});
          }
          // Tiles of later k-chunks of pair 0 are covered by its steps (all of K).
        } else {
          p.aloads[0].push_back({cm0, rows, 0, static_cast<uint32_t>(p.kt), buf, mcs});
        }
        continue;
      }
      // Spread over the tiles of the previous chunk (issued with the loads of each tile's first
      // step, while the tile before computes), never over the first tile's pieces, which are
      // the bus-bound start of the whole GEMM.
      std::vector<size_t> slots;
      for (size_t s = chunk_first[c - 1] + 1; s <= chunk_first[c]; ++s) {
        const size_t q = p.steps[s].pair;
        if (q >= (p.interleaved ? 2u : 1u) && p.pairs[q].first_step == s) slots.push_back(s);
      }
      const uint64_t pieces = std::min<uint64_t>(slots.size(), p.kt);
      for (uint64_t j = 0; j < pieces; ++j) {
        const uint32_t t0 = static_cast<uint32_t>(j * p.kt / pieces);
        const uint32_t t1 = static_cast<uint32_t>((j + 1) * p.kt / pieces);
        p.aloads[slots[j]].push_back({cm0, rows, t0, t1 - t0, buf + t0 * mcs, mcs});
      }
    }
  } else {
    // Streamed: every step loads its own A block into the next A buffer.
    for (size_t s = 0; s < p.steps.size(); ++s) {
      Step& st = p.steps[s];
      const Pair& pr = p.pairs[st.pair];
      const uint32_t buf = p.a_lo + (ablock++ % 2) * p.a_cap;
      st.a_spad = buf;
      st.a_tile_stride = pr.rows;
      p.aloads[s].push_back({pr.m0, pr.rows, st.t0, st.nt, buf, pr.rows});
    }
  }
  p.summary = "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
              ": " + std::to_string(p.nmc) + " m-chunk(s) of " +
              [&] {
                std::string r;
                for (size_t i = 0; i < p.chunks.size() && i < 4; ++i) {
                  if (i) r += ',';
                  r += std::to_string(p.chunks[i].second);
                }
                return r + (p.chunks.size() > 4 ? ",..." : "");
              }() +
              " rows, " + std::to_string(p.nst) + " strip(s) of " + std::to_string(p.C) +
              " columns, " + std::to_string(p.nk) + " k-chunk(s) of " + std::to_string(p.Kc) +
              ", A " + (p.resident ? "resident per m-chunk" : "streamed per step") +
              (p.interleaved ? ", first two tiles interleaved" : "") + ", " +
              std::to_string(p.pairs.size()) + " output tiles, " + std::to_string(p.steps.size()) +
              " COMPUTEs";
  return p;
}

// ---- size checks (before anything is allocated)

uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t round_up(uint64_t v, uint64_t a) { return sat_mul(ceil_div(v, a), a); }

constexpr uint64_t kBufAlign = 4096;        // alignment of gemm's arena buffers
constexpr uint64_t kMaxK = 1u << 20;        // the driver's limit on K
constexpr uint64_t kMaxArena = 1ull << 40;  // the largest mem= Device::open accepts
// Host memory per descriptor of the program while it is built and submitted: the descriptor
// (64 B), its step, its A-load list and the scheduler's bookkeeping, generously.
constexpr uint64_t kHostBytesPerDescriptor = 256;

std::string mib(uint64_t bytes) {
  char b[64];
  if (bytes >= (10ull << 30)) {
    std::snprintf(b, sizeof b, "%.1f GiB", double(bytes) / double(1ull << 30));
  } else if (bytes >= (1u << 20)) {
    std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1u << 20));
  } else {
    std::snprintf(b, sizeof b, "%.1f KiB", double(bytes) / 1024.0);
  }
  return b;
}

// The driver's and device's limits on M, N, K (not memory).
void check_limits(const Capabilities& cap, int64_t m, int64_t n, int64_t k, uint32_t lpr = 1) {
  if (m < 1 || n < 1 || k < 1) {
    bad("gemm: M, N, K must be >= 1 (got " + std::to_string(m) + ", " + std::to_string(n) + ", " +
        std::to_string(k) + ")");
  }
  if (uint64_t(k) > kMaxK) {
    bad("gemm: K = " + std::to_string(k) +
        " is above the driver's limit K <= 2^20 (1048576); "
        "split the reduction and add the INT32 results");
  }
  // A is loaded per k-tile with a host stride of M rows (a 32-bit descriptor field).
  const uint64_t row_bytes = uint64_t{std::max<uint32_t>(cap.bus_bytes, 1)} * lpr;
  const uint64_t max_m = UINT32_MAX / row_bytes;
  if (uint64_t(m) > max_m) {
    bad("gemm: M = " + std::to_string(m) +
        " is above this device's limit M <= " + std::to_string(max_m) + " (A's row stride M x " +
        std::to_string(row_bytes) + " bytes is a 32-bit descriptor field); split M");
  }
}

}  // namespace

GemmFootprint gemm_footprint(const Capabilities& cap, uint64_t M, uint64_t N, uint64_t K,
                             bool int32_out, bool bf16_operands) {
  GemmFootprint f;
  const uint32_t lpr = bf16_operands ? 2 : 1;
  const uint64_t R = std::max<uint32_t>(cap.rows, 1), C = std::max<uint32_t>(cap.cols, 1);
  const uint64_t B = std::max<uint32_t>(cap.bus_bytes, 1);
  const uint64_t RB = B * lpr;  // bytes of a packed operand row
  const uint64_t kt = ceil_div(K, R), nst = ceil_div(N, C);
  const uint64_t sb = ceil_div(C * (int32_out ? 4 : 1), B) * B;
  f.a = sat_mul(sat_mul(kt, M), RB);
  f.w = sat_mul(sat_mul(nst, K), RB);
  f.params = sat_mul(nst * C, B);
  f.out = sat_mul(sat_mul(nst, M), sb);
  // Per output tile and k-chunk: a W load, a COMPUTE and (streamed A) an A load; per tile a
  // STORE_ACC and a parameter load.
  const PlanSizes z = plan_sizes(cap, M, N, K, lpr);
  const uint64_t tiles = sat_mul(z.nmc, z.nst);
  f.descriptors = sat_add(sat_add(sat_mul(sat_mul(tiles, z.nk), 3), sat_mul(tiles, 2)), 64);
  return f;
}

namespace {

// Whether gemm's buffers fit in the arena now: allocated (first fit, bookkeeping only) in the
// order gemm allocates them, then freed.
bool arena_fits(Device& dev, const GemmFootprint& f) {
  if (f.total() > dev.arena_size()) return false;
  try {
    Buffer a = dev.alloc(f.a, kBufAlign), w = dev.alloc(f.w, kBufAlign);
    Buffer p = dev.alloc(f.params, kBufAlign), o = dev.alloc(f.out, kBufAlign);
    return true;
  } catch (const Error& e) {
    if (e.code() == Errc::kOutOfMemory) return false;
    throw;
  }
}

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : UINT64_MAX;
}

// The largest v in [1, hi] with ok(v), given ok is monotone (true then false); 0 if none.
template <class F>
uint64_t largest(uint64_t hi, F ok) {
  if (hi < 1 || !ok(1)) return 0;
  uint64_t lo = 1;  // ok(lo)
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (ok(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// `what`: "gemm M=.. N=.. K=.." or the conv2d's description.
void check_fits(Device& dev, uint64_t M, uint64_t N, uint64_t K, bool int32_out,
                const std::string& what, bool bf16 = false) {
  const Capabilities& cap = dev.caps();
  const uint64_t host = host_memory_bytes();
  auto program_fits = [&](const GemmFootprint& f) {
    return sat_mul(f.descriptors, kHostBytesPerDescriptor) <= host / 2;
  };
  auto fits = [&](uint64_t m, uint64_t n, uint64_t k) {
    const GemmFootprint f = gemm_footprint(cap, m, n, k, int32_out, bf16);
    return program_fits(f) && arena_fits(dev, f);
  };
  const GemmFootprint f = gemm_footprint(cap, M, N, K, int32_out, bf16);
  const bool arena_ok = arena_fits(dev, f);
  if (arena_ok && program_fits(f)) return;

  const uint64_t used = dev.impl().arena_used(), size = dev.arena_size();
  const uint64_t free = size > used ? size - used : 0;
  std::string msg = what + ": ";
  if (!arena_ok) {
    msg += "needs " + mib(f.total()) + " of the device arena (A " + mib(f.a) + ", W " + mib(f.w) +
           ", output " + mib(f.out) + ", packed for the " + std::to_string(cap.rows) + "x" +
           std::to_string(cap.cols) + " array), but the arena has " + mib(free) + " free of " +
           mib(size) + ".";
  } else {
    const uint64_t prog = sat_mul(f.descriptors, kHostBytesPerDescriptor);
    msg += "its descriptor program (about " + std::to_string(f.descriptors) + " descriptors, " +
           mib(prog) + " of host memory while it is built) needs more than half of this host's " +
           mib(host) + ".";
  }
  // What fits: one size smaller with the others kept, else the largest M = N = K.
  const uint64_t max_m = largest(M - 1, [&](uint64_t m) { return fits(m, N, K); });
  const uint64_t max_n = largest(N - 1, [&](uint64_t n) { return fits(M, n, K); });
  const uint64_t max_k = largest(K - 1, [&](uint64_t k) { return fits(M, N, k); });
  std::vector<std::string> alt;
  if (max_m) alt.push_back("M <= " + std::to_string(max_m) + " (with N and K kept)");
  if (max_n) alt.push_back("N <= " + std::to_string(max_n) + " (with M and K kept)");
  if (max_k) alt.push_back("K <= " + std::to_string(max_k) + " (with M and N kept)");
  if (alt.empty()) {
    const uint64_t hi = std::min<uint64_t>(
        {std::max({M, N, K}), kMaxK, UINT32_MAX / std::max<uint32_t>(cap.bus_bytes, 1)});
    const uint64_t cube = largest(hi, [&](uint64_t v) { return fits(v, v, v); });
    if (cube) {
      alt.push_back("M = N = K <= " + std::to_string(cube) +
                    " (no single size alone makes it fit)");
    }
  }
  if (!alt.empty()) {
    msg += " What fits now: ";
    for (size_t i = 0; i < alt.size(); ++i) msg += (i ? " or " : "") + alt[i];
    msg += ".";
  }
  if (!arena_ok) {
    // The arena needed: what is taken now plus the four buffers, each 4 KiB aligned, in MiB.
    uint64_t need = round_up(used, kBufAlign);
    for (uint64_t b : {f.a, f.w, f.params, f.out}) need = sat_add(need, round_up(b, kBufAlign));
    need = round_up(sat_add(need, kBufAlign), 1u << 20);
    if (need > kMaxArena) {
      msg += " No arena holds it (mem= is at most 2^40 bytes): split the operation.";
    } else if (!program_fits(f)) {
      msg += " A larger arena (mem=" + std::to_string(need) +
             ") would not do: the descriptor program would not fit in this host's memory; split "
             "the operation.";
    } else {
      msg += " Or open the device with a larger arena: mem=" + std::to_string(need) + " (" +
             mib(need) + ") or more, e.g. sim://?mem=" + std::to_string(need) +
             (need > host / 2 ? "; this host has " + mib(host) + " of memory" : std::string()) +
             ".";
    }
  } else {
    msg += " Split the operation into smaller ones.";
  }
  throw Error(Errc::kOutOfMemory, msg);
}

std::string gemm_what(uint64_t m, uint64_t n, uint64_t k) {
  return "gemm M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
}

// Bytes per result element of an output stage: INT32 / FP32 4, BF16 2, 8-bit integer / FP8 1.
uint32_t out_element_bytes(const OutputStage& o) {
  switch (o.format) {
    case ElemFormat::kInt: return o.mode == StoreMode::kInt32 ? 4 : 1;
    case ElemFormat::kFp32: return 4;
    case ElemFormat::kBf16: return 2;
    default: return 1;
  }
}

// The FP checks of gemm: operand and output formats agree, the device has the modes, and the
// FP output stage's scale / bias counts.
void check_fp_stage(const Capabilities& cap, const GemmOptions& opt, uint64_t N) {
  const ElemFormat af = opt.a.format, wf = opt.w.format;
  const bool fp = af != ElemFormat::kInt || wf != ElemFormat::kInt;
  const bool bf16 = af == ElemFormat::kBf16 && wf == ElemFormat::kBf16;
  if (fp && !bf16 && !(is_fp8(af) && is_fp8(wf))) {
    bad("gemm: A and W must both be integer, both FP8 (E4M3 / E5M2, either mix) or both BF16");
  }
  const OutputStage& o = opt.out;
  if (!fp) {
    if (o.format != ElemFormat::kInt) {
      bad("gemm: an FP output format needs FP operands (integer sums are not FP32)");
    }
    return;
  }
  if (!cap.tensor_fp) {
    throw Error(Errc::kUnsupported,
                "gemm: this device has no FP tensor modes (CAP4.fp = 0: the board build leaves "
                "them out); use integer operands or a sim:// / ref:// device");
  }
  if (o.format == ElemFormat::kInt) {
    bad("gemm: FP operands need an FP output format (out.format kFp32, kBf16, kE4m3 or kE5m2)");
  }
  if (!o.scale.empty() && o.scale.size() != 1 && o.scale.size() != N) {
    bad("gemm: scale has " + std::to_string(o.scale.size()) + " values; give N = " +
        std::to_string(N) + ", 1 or none");
  }
  if (!o.fp_bias.empty() && o.fp_bias.size() != N) {
    bad("gemm: fp_bias has " + std::to_string(o.fp_bias.size()) + " values; give N = " +
        std::to_string(N) + " or none");
  }
}

// Runs one GEMM; `esize` bytes per result element (out_element_bytes); the result row-major
// into out_bytes.
OpStats run_gemm(Device& dev, uint64_t M, uint64_t N, uint64_t K, std::span<const uint8_t> a,
                 std::span<const uint8_t> w, uint8_t* out_bytes, uint32_t esize,
                 const GemmOptions& opt) {
  const Capabilities& cap = dev.caps();
  const uint32_t U = lines_per_row(opt);  // BF16: 2 bytes per element, 2 lines per row
  check_limits(cap, int64_t(M), int64_t(N), int64_t(K), U);
  const char* per = U == 2 ? " bytes, 2*M*K = " : " bytes, M*K = ";
  if (a.size() != M * K * U)
    bad("gemm: A has " + std::to_string(a.size()) + per + std::to_string(M * K * U));
  const char* per_w = U == 2 ? " bytes, 2*K*N = " : " bytes, K*N = ";
  if (w.size() != K * N * U)
    bad("gemm: W has " + std::to_string(w.size()) + per_w + std::to_string(K * N * U));
  check_operand("A", opt.a);
  check_operand("W", opt.w);
  const OutputStage& o = opt.out;
  check_fp_stage(cap, opt, N);
  const bool fp = o.format != ElemFormat::kInt;
  const bool int32_out = !fp && o.mode == StoreMode::kInt32;
  if (fp && out_element_bytes(o) != esize) {
    bad("gemm: output format " + std::to_string(int(o.format)) + " needs " +
        (o.format == ElemFormat::kFp32   ? "a float"
         : o.format == ElemFormat::kBf16 ? "a uint16_t (BF16)"
                                         : "a uint8_t (FP8)") +
        " output span");
  }
  if (!fp && int32_out != (esize == 4)) {
    bad(int32_out ? "gemm: mode kInt32 needs an int32 output span"
                  : "gemm: 8-bit modes need a uint8 output span (use mode kInt32 for INT32 out)");
  }
  if (!fp && esize == 2) bad("gemm: a uint16_t output span needs out.format kBf16");
  const detail::Clamp clamp =
      fp ? detail::Clamp{} : detail::check_output_stage(o, N, int32_out, "gemm");
  // Sizes against the arena and this host before anything is allocated.
  check_fits(dev, M, N, K, esize > 1, gemm_what(M, N, K), U == 2);
  if (opt.progress) opt.progress(0.0);

  const Plan p = make_plan(cap, M, N, K, opt);
  const uint32_t B = p.B, R = p.R, C = p.C;
  const uint32_t RB = U * B;  // bytes of a packed operand row (U lines)
  const uint64_t sb = ceil_div(uint64_t{C} * esize, B) * B;  // output row bytes per strip
  // Device buffers first (their sizes were just checked), then the host packing.
  Buffer a_buf = dev.alloc(p.kt * M * RB, kBufAlign);
  Buffer w_buf = dev.alloc(p.nst * K * RB, kBufAlign);
  Buffer p_buf = dev.alloc(p.nst * C * B, kBufAlign);
  Buffer o_buf = dev.alloc(p.nst * M * sb, kBufAlign);

  // ---- host buffers: A packed per k-tile, W per strip, parameters per column, output per strip
  // Padding beyond K and N: the zero point (integer), +0 (FP: the device skips a short tile's
  // missing weight rows anyway, and columns beyond N are not stored).
  const uint8_t a_pad = fp ? 0 : static_cast<uint8_t>(opt.a.zero_point);
  const uint8_t w_pad = fp ? 0 : static_cast<uint8_t>(opt.w.zero_point);
  // Byte j of an array row of `width` elements (U bytes each) at its place in the packed row:
  // with U = 2 the row's first `width` bytes fill its first line, the rest the next one.
  auto row_offset = [&](uint32_t j, uint32_t width) { return j < width ? j : B + (j - width); };
  std::vector<uint8_t> a_pk(p.kt * M * RB, 0);
  for (uint64_t t = 0; t < p.kt; ++t) {
    for (uint64_t m = 0; m < M; ++m) {
      uint8_t* row = &a_pk[(t * M + m) * RB];
      for (uint32_t j = 0; j < R * U; ++j) {
        const uint64_t k = t * R + j / U;
        row[row_offset(j, R)] = k < K ? a[(m * K + k) * U + j % U] : a_pad;
      }
    }
  }
  std::vector<uint8_t> w_pk(p.nst * K * RB, 0);
  for (uint64_t s = 0; s < p.nst; ++s) {
    for (uint64_t k = 0; k < K; ++k) {
      uint8_t* row = &w_pk[(s * K + k) * RB];
      for (uint32_t j = 0; j < C * U; ++j) {
        const uint64_t n = s * C + j / U;
        row[row_offset(j, C)] = n < N ? w[(k * N + n) * U + j % U] : w_pad;
      }
    }
  }
  const std::vector<uint8_t> p_pk = detail::pack_params(o, N, p.nst, C, B);
  a_buf.write(0, a_pk.data(), a_pk.size());
  w_buf.write(0, w_pk.data(), w_pk.size());
  p_buf.write(0, p_pk.data(), p_pk.size());

  // ---- the descriptor program
  Scheduler sch(cap.inflight);
  // The plan's scratchpad addresses count rows; a descriptor's count lines (U per row).
  auto emit_w = [&](const Step& st) {
    const Pair& pr = p.pairs[st.pair];
    const uint32_t spad = U * (p.w_lo + st.wbuf * p.w_cap + st.w_off);
    Transfer2d t;
    t.host_addr = w_buf.device_address() + (uint64_t{pr.strip} * K + uint64_t{st.t0} * R) * RB;
    t.row_bytes = st.k * RB;
    t.rows = 1;
    t.host_stride = 0;
    t.spad_addr = spad;
    t.spad_stride = 0;
    sch.emit(Descriptor::load(t), Eng::kLoad, {}, {{0, spad, spad + uint64_t{st.k} * U}});
  };
  auto emit_a = [&](const ALoad& al) {
    Transfer2d t;
    t.host_addr = a_buf.device_address() + (uint64_t{al.t0} * M + al.m0) * RB;
    t.row_bytes = al.rows * RB;
    t.rows = al.nt;
    t.host_stride = static_cast<uint32_t>(M * RB);
    t.spad_addr = U * al.spad;
    t.spad_stride = U * al.tile_stride;
    const uint64_t end = al.spad + uint64_t{al.nt - 1} * al.tile_stride + al.rows;
    sch.emit(Descriptor::load(t), Eng::kLoad, {}, {{0, t.spad_addr, end * U}});
  };
  // Parameter block of each tile: a new one (next in the ring) whenever the strip changes.
  std::vector<uint32_t> pair_pbuf(p.pairs.size(), 0);
  std::vector<bool> pair_loads_params(p.pairs.size(), false);
  for (size_t q = 0, blk = 0; q < p.pairs.size(); ++q) {
    if (q > 0 && p.pairs[q].strip != p.pairs[q - 1].strip) ++blk;
    pair_pbuf[q] = static_cast<uint32_t>(blk % kParamBufs);
    pair_loads_params[q] = q == 0 || p.pairs[q].strip != p.pairs[q - 1].strip;
  }
  auto params_line = [&](size_t q) { return U * p.p_lo + pair_pbuf[q] * C; };
  auto emit_params = [&](size_t q) {
    const uint32_t spad = params_line(q);
    Transfer2d t;
    t.host_addr = p_buf.device_address() + uint64_t{p.pairs[q].strip} * C * B;
    t.row_bytes = C * B;
    t.rows = 1;
    t.spad_addr = spad;
    sch.emit(Descriptor::load(t), Eng::kLoad, {}, {{0, spad, spad + uint64_t{C}}});
  };
  auto emit_loads = [&](size_t s) {
    const Step& st = p.steps[s];
    emit_w(st);
    if (p.pairs[st.pair].first_step == s && pair_loads_params[st.pair]) emit_params(st.pair);
    for (const ALoad& al : p.aloads[s]) emit_a(al);
  };
  auto emit_compute = [&](size_t s) {
    const Step& st = p.steps[s];
    const Pair& pr = p.pairs[st.pair];
    ComputeArgs c;
    c.a_addr = U * st.a_spad;
    c.a_row_stride = U;
    c.a_tile_stride = U * st.a_tile_stride;
    c.w_addr = U * (p.w_lo + st.wbuf * p.w_cap + st.w_off);
    c.w_row_stride = U;
    c.w_tile_stride = U * R;
    c.m = pr.rows;
    c.k = st.k;
    c.acc_addr = pr.bank * p.half;
    c.accumulate = s != pr.first_step;
    c.a_signed = opt.a.is_signed;
    c.w_signed = opt.w.is_signed;
    c.a_zp = static_cast<uint8_t>(opt.a.zero_point);
    c.w_zp = static_cast<uint8_t>(opt.w.zero_point);
    c.a_fmt = opt.a.format;
    c.w_fmt = opt.w.format;
    const uint64_t a_end = st.a_spad + uint64_t{st.nt - 1} * st.a_tile_stride + pr.rows;
    std::vector<Span> rd = {{0, c.a_addr, a_end * U}, {0, c.w_addr, c.w_addr + uint64_t{st.k} * U}};
    sch.emit(Descriptor::compute(c), Eng::kCompute, rd,
             {{1, c.acc_addr, c.acc_addr + uint64_t{pr.rows}}});
  };
  auto emit_store = [&](size_t q) {
    const Pair& pr = p.pairs[q];
    StoreAccArgs sa;
    sa.host_addr = o_buf.device_address() + (uint64_t{pr.strip} * M + pr.m0) * sb;
    sa.host_stride = static_cast<uint32_t>(sb);
    sa.m = pr.rows;
    sa.acc_addr = pr.bank * p.half;
    sa.n = static_cast<uint32_t>(std::min<uint64_t>(C, N - uint64_t{pr.strip} * C));
    sa.mode = fp ? StoreMode::kInt32 : o.mode;
    sa.pack = esize < 4;
    sa.out_fmt = o.format;
    sa.relu = fp && o.relu;
    sa.load_params = true;
    sa.params_addr = params_line(q);
    sa.zp = int32_out ? 0 : o.zero_point;
    sa.act_min = int32_out ? INT32_MIN : clamp.lo;
    sa.act_max = int32_out ? INT32_MAX : clamp.hi;
    sch.emit(Descriptor::store_acc(sa), Eng::kStore,
             {{1, sa.acc_addr, sa.acc_addr + uint64_t{pr.rows}},
              {0, sa.params_addr, sa.params_addr + uint64_t{C}}},
             {});
  };
  // Loads of step s+1 before COMPUTE s; a tile's STORE_ACC after the COMPUTE that follows its
  // last one (so that COMPUTE is already queued when the store waits).
  emit_loads(0);
  size_t stored = 0;
  for (size_t s = 0; s < p.steps.size(); ++s) {
    if (s + 1 < p.steps.size()) emit_loads(s + 1);
    emit_compute(s);
    while (stored < p.pairs.size() && p.pairs[stored].last_step < s) emit_store(stored++);
  }
  while (stored < p.pairs.size()) emit_store(stored++);
  const std::vector<Descriptor>& prog = sch.program();

  OpStats st;
  st.perf = detail::run_program(dev, prog, opt.timeout, opt.progress);
  st.descriptors = prog.size();
  st.schedule = p.summary + (sch.wait_flags_used()
                                 ? ", " + std::to_string(sch.wait_flags_used()) + " WAIT flags"
                                 : std::string());

  st.dma_bytes = st.perf.c.dma_rd_bytes + st.perf.c.dma_wr_bytes;
  st.host_bytes_written = a_pk.size() + w_pk.size() + p_pk.size();

  // ---- unpack
  std::vector<uint8_t> ob(o_buf.size());
  o_buf.read(0, ob.data(), ob.size());
  st.host_bytes_read = ob.size();
  for (uint64_t s = 0; s < p.nst; ++s) {
    const uint64_t n0 = s * C, nn = std::min<uint64_t>(C, N - n0);
    for (uint64_t m = 0; m < M; ++m) {
      std::memcpy(out_bytes + (m * N + n0) * esize, &ob[(s * M + m) * sb], nn * esize);
    }
  }
  return st;
}

// esz: bytes per element (BF16 2); the padding fills every byte of a padded element with `pad`.
std::vector<uint8_t> im2col(const Conv2dShape& s, std::span<const uint8_t> in, uint8_t pad,
                            size_t esz) {
  const int oh = s.out_h(), ow = s.out_w();
  const size_t K = size_t(s.kh) * s.kw * s.c_in * esz;
  const size_t pix = size_t(s.c_in) * esz;
  std::vector<uint8_t> cols(size_t(s.n) * oh * ow * K, pad);
  for (int b = 0; b < s.n; ++b) {
    for (int y = 0; y < oh; ++y) {
      for (int x = 0; x < ow; ++x) {
        uint8_t* row = &cols[((size_t(b) * oh + y) * ow + x) * K];
        for (int i = 0; i < s.kh; ++i) {
          const int iy = y * s.stride_h - s.pad_top + i * s.dilation_h;
          if (iy < 0 || iy >= s.h) continue;
          for (int j = 0; j < s.kw; ++j) {
            const int ix = x * s.stride_w - s.pad_left + j * s.dilation_w;
            if (ix < 0 || ix >= s.w) continue;
            std::memcpy(row + (size_t(i) * s.kw + j) * pix,
                        &in[((size_t(b) * s.h + iy) * s.w + ix) * pix], pix);
          }
        }
      }
    }
  }
  return cols;
}

std::vector<uint8_t> filter_to_gemm(const Conv2dShape& s, std::span<const uint8_t> f, size_t esz) {
  const size_t K = size_t(s.kh) * s.kw * s.c_in;
  std::vector<uint8_t> w(K * s.c_out * esz);
  for (int o = 0; o < s.c_out; ++o) {
    for (size_t k = 0; k < K; ++k) {
      std::memcpy(&w[(k * s.c_out + o) * esz], &f[(o * K + k) * esz], esz);
    }
  }
  return w;
}

// The conv2d's shape: sizes, strides, paddings, and its GEMM (M, N, K) in 64 bits.
struct ConvGemm {
  uint64_t m, n, k;
};
ConvGemm check_conv_shape(const Capabilities& cap, const Conv2dShape& s) {
  if (s.n < 1 || s.h < 1 || s.w < 1 || s.c_in < 1 || s.kh < 1 || s.kw < 1 || s.c_out < 1 ||
      s.stride_h < 1 || s.stride_w < 1 || s.pad_top < 0 || s.pad_left < 0 || s.pad_bottom < 0 ||
      s.pad_right < 0 || s.dilation_h < 1 || s.dilation_w < 1) {
    bad("conv2d: sizes, strides and dilations must be >= 1, paddings >= 0");
  }
  if (s.groups != 1) {
    throw Error(Errc::kUnsupported,
                "conv2d: groups = " + std::to_string(s.groups) +
                    " is not supported (the driver runs group = 1; run a grouped or depthwise "
                "convolution as one convolution per group)");
  }
  if (int64_t{s.kh - 1} * s.dilation_h + 1 > INT32_MAX ||
      int64_t{s.kw - 1} * s.dilation_w + 1 > INT32_MAX) {
    bad("conv2d: the dilated filter is larger than 2^31 - 1");
  }
  if (int64_t{s.h} + s.pad_top + s.pad_bottom > INT32_MAX ||
      int64_t{s.w} + s.pad_left + s.pad_right > INT32_MAX) {
    bad("conv2d: the padded input is larger than 2^31 - 1");
  }
  const int64_t ekh = int64_t{s.kh - 1} * s.dilation_h + 1;
  const int64_t ekw = int64_t{s.kw - 1} * s.dilation_w + 1;
  if (int64_t{s.h} + s.pad_top + s.pad_bottom < ekh ||
      int64_t{s.w} + s.pad_left + s.pad_right < ekw) {
    bad("conv2d: the filter is larger than the padded input");
  }
  const uint64_t oh = (uint64_t(s.h) + s.pad_top + s.pad_bottom - ekh) / s.stride_h + 1;
  const uint64_t ow = (uint64_t(s.w) + s.pad_left + s.pad_right - ekw) / s.stride_w + 1;
  const ConvGemm g{sat_mul(sat_mul(uint64_t(s.n), oh), ow), uint64_t(s.c_out),
                   sat_mul(sat_mul(uint64_t(s.kh), s.kw), s.c_in)};
  if (g.m > INT32_MAX || g.k > INT32_MAX) {
    bad("conv2d: its GEMM (M = N*OH*OW = " + std::to_string(g.m) + ", K = KH*KW*C_in = " +
        std::to_string(g.k) + ") is beyond gemm's int sizes; split the batch or the image");
  }
  check_limits(cap, int64_t(g.m), int64_t(g.n), int64_t(g.k));
  return g;
}

std::string conv_what(const Conv2dShape& s, const ConvGemm& g) {
  return "conv2d " + std::to_string(s.n) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) +
         "x" + std::to_string(s.c_in) + " * " + std::to_string(s.c_out) + "x" +
         std::to_string(s.kh) + "x" + std::to_string(s.kw) + " (as " + gemm_what(g.m, g.n, g.k) +
         ")";
}

void check_conv(Device& dev, const Conv2dShape& s, size_t in_size, size_t f_size, size_t out_size,
                bool int32_out, size_t esz) {
  const ConvGemm g = check_conv_shape(dev.caps(), s);
  const char* bytes = esz == 2 ? " bytes (BF16: two per element)" : "";
  if (in_size != size_t(s.n) * s.h * s.w * s.c_in * esz) {
    bad(std::string("conv2d: input size is not N*H*W*C_in") + bytes);
  }
  if (f_size != size_t(s.c_out) * s.kh * s.kw * s.c_in * esz) {
    bad(std::string("conv2d: filter size is not C_out*KH*KW*C_in") + bytes);
  }
  if (out_size != size_t(s.n) * s.out_h() * s.out_w() * s.c_out) {
    bad("conv2d: output size is not N*OH*OW*C_out");
  }
  // The im2col matrix (M x K elements on the host) is no larger than the packed A checked here.
  check_fits(dev, g.m, g.n, g.k, int32_out, conv_what(s, g), esz == 2);
}

// conv2d on the host side: im2col (padding with the input zero point; FP operands have 0, so
// +0), the filter as W, then gemm into `out` (its element type picks the gemm overload).
template <class T>
OpStats conv2d_by_im2col(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                         std::span<const uint8_t> filter, std::span<T> out,
                         const GemmOptions& opt) {
  const size_t esz = opt.a.format == ElemFormat::kBf16 ? 2 : 1;
  check_conv(dev, s, input.size(), filter.size(), out.size(), sizeof(T) > 1, esz);
  if (opt.progress) opt.progress(0.0);
  const auto cols = im2col(s, input, static_cast<uint8_t>(opt.a.zero_point), esz);
  const auto w = filter_to_gemm(s, filter, esz);
  return gemm(dev, s.n * s.out_h() * s.out_w(), s.c_out, s.kh * s.kw * s.c_in, cols, w, out, opt);
}

}  // namespace

OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
             std::span<const uint8_t> w, std::span<uint8_t> out, const GemmOptions& opt) {
  if (m >= 1 && n >= 1 && out.size() != size_t(m) * n) bad("gemm: out must hold M*N bytes");
  return run_gemm(dev, m < 0 ? 0 : m, n < 0 ? 0 : n, k < 0 ? 0 : k, a, w, out.data(), 1, opt);
}

OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
             std::span<const uint8_t> w, std::span<int32_t> out, const GemmOptions& opt) {
  if (m >= 1 && n >= 1 && out.size() != size_t(m) * n) bad("gemm: out must hold M*N values");
  if (opt.out.format != ElemFormat::kInt) bad("gemm: an FP output format needs a float span");
  return run_gemm(dev, m < 0 ? 0 : m, n < 0 ? 0 : n, k < 0 ? 0 : k, a, w,
                  reinterpret_cast<uint8_t*>(out.data()), 4, opt);
}

OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
             std::span<const uint8_t> w, std::span<float> out, const GemmOptions& opt) {
  if (m >= 1 && n >= 1 && out.size() != size_t(m) * n) bad("gemm: out must hold M*N values");
  if (opt.out.format != ElemFormat::kFp32) bad("gemm: a float output span needs format kFp32");
  return run_gemm(dev, m < 0 ? 0 : m, n < 0 ? 0 : n, k < 0 ? 0 : k, a, w,
                  reinterpret_cast<uint8_t*>(out.data()), 4, opt);
}

OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
             std::span<const uint8_t> w, std::span<uint16_t> out, const GemmOptions& opt) {
  if (m >= 1 && n >= 1 && out.size() != size_t(m) * n) bad("gemm: out must hold M*N values");
  return run_gemm(dev, m < 0 ? 0 : m, n < 0 ? 0 : n, k < 0 ? 0 : k, a, w,
                  reinterpret_cast<uint8_t*>(out.data()), 2, opt);
}

OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
               std::span<const uint8_t> filter, std::span<uint8_t> out, const GemmOptions& opt) {
  return conv2d_by_im2col(dev, s, input, filter, out, opt);
}

OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
               std::span<const uint8_t> filter, std::span<int32_t> out, const GemmOptions& opt) {
  return conv2d_by_im2col(dev, s, input, filter, out, opt);
}

OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
               std::span<const uint8_t> filter, std::span<float> out, const GemmOptions& opt) {
  return conv2d_by_im2col(dev, s, input, filter, out, opt);
}

OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
               std::span<const uint8_t> filter, std::span<uint16_t> out, const GemmOptions& opt) {
  return conv2d_by_im2col(dev, s, input, filter, out, opt);
}

void gemm_check_size(Device& dev, int64_t m, int64_t n, int64_t k, StoreMode mode) {
  check_limits(dev.caps(), m, n, k);
  check_fits(dev, uint64_t(m), uint64_t(n), uint64_t(k), mode == StoreMode::kInt32,
             gemm_what(uint64_t(m), uint64_t(n), uint64_t(k)));
}

void conv2d_check_size(Device& dev, const Conv2dShape& s, StoreMode mode) {
  const ConvGemm g = check_conv_shape(dev.caps(), s);
  check_fits(dev, g.m, g.n, g.k, mode == StoreMode::kInt32, conv_what(s, g));
}

}  // namespace weft
