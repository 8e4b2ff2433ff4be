// Vectors for the PE and systolic-array SV benches (tb/sv/tb_pe.sv, tb/sv/tb_array.sv).
// One line per clock cycle: the inputs driven before the edge and the outputs expected after it.
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <vector>

#include "vecgen.hpp"
#include "weft/golden/quant.hpp"

namespace {

// Cycles of stimulus: the given default, or WEFT_VECTOR_CYCLES (make bench uses long runs).
int cycles_or(int dflt) {
  const char* env = std::getenv("WEFT_VECTOR_CYCLES");
  return (env && *env) ? std::atoi(env) : dflt;
}

using weft::vecgen::HexFile;
using weft::vecgen::Registration;
namespace golden = weft::golden;

constexpr int kOpW = 9;
uint64_t op9(int v) { return static_cast<uint64_t>(v) & 0x1ff; }

// tb_pe: in = {w_we, w_buf, w_data[9], a_valid, a_buf, a_data[9], ps_i[32]} (54 bits),
//        out = {a_valid_o, a_buf_o, a_data_o[9], ps_o[32]} (43 bits). Expected products are
//        (a - za) * (w - zw) of 8-bit operands, via golden::gemm on a 1x1x1 problem.
void gen_pe(const std::filesystem::path& dir, std::mt19937_64& rng) {
  const int n = cycles_or(20000);
  HexFile in(dir / "pe_in.hex", 14), out(dir / "pe_out.hex", 11), count(dir / "count.hex", 8);
  std::uniform_int_distribution<int> s8(-128, 127), u8(0, 255);
  int w[2] = {0, 0};
  // golden operands behind each weight buffer
  for (int i = 0; i < n; ++i) {
    const bool we = i < 2 || (rng() % 5) == 0;
    const int wbuf = i < 2 ? i : static_cast<int>(rng() & 1);
    golden::OperandType wt{static_cast<bool>(rng() & 1), 0};
    wt.zero_point = wt.is_signed ? s8(rng) : u8(rng);
    const int wraw = wt.is_signed ? s8(rng) : u8(rng);
    const int wv = wraw - wt.zero_point;
    golden::OperandType at{static_cast<bool>(rng() & 1), 0};
    at.zero_point = at.is_signed ? s8(rng) : u8(rng);
    const int araw = at.is_signed ? s8(rng) : u8(rng);
    const int av = araw - at.zero_point;
    const bool valid = rng() & 1;
    int buf = static_cast<int>(rng() & 1);
    if (we && buf == wbuf) buf ^= 1;  // the bench never reads a buffer in its write cycle
    const uint32_t ps = static_cast<uint32_t>(rng());
    uint64_t vin = (uint64_t{we} << 53) | (uint64_t(wbuf) << 52) | (op9(wv) << 43) |
                   (uint64_t{valid} << 42) | (uint64_t(buf) << 41) | (op9(av) << 32) | ps;
    in.word(vin);
    // The product with the weight held before this edge, through the golden GEMM.
    int32_t prod = 0;
    if (i >= 2) {
      // recover the 8-bit weight of the buffer: w[] holds w - zw; express as (w, zp 0) signed 9-bit
      // is outside int8, so use the two-operand form: (a - za) * (wv) with wv split as
      // wv = x - zx for some legal int8/uint8 pair.
      const int wx = w[buf] >= 0 ? w[buf] : w[buf] + 255;
      const golden::OperandType wt2{false, w[buf] >= 0 ? 0 : 255};
      const std::vector<int32_t> a1{araw}, w1{wx};
      prod = golden::gemm(a1, w1, 1, 1, 1, at, wt2)[0];
    }
    const uint32_t ps_o = ps + static_cast<uint32_t>(prod);
    const uint64_t vout = (uint64_t{valid} << 42) | (uint64_t(buf) << 41) | (op9(av) << 32) | ps_o;
    out.word(i >= 2 ? vout : 0);
    if (we) w[wbuf] = wv;
  }
  count.word(n);
}

// A little-endian bit vector of 64-bit limbs, for hex lines wider than 64 bits.
struct Bits {
  explicit Bits(int width) : limbs((width + 63) / 64, 0) {}
  void put(int lsb, int width, uint64_t v) {
    for (int b = 0; b < width; ++b) {
      if ((v >> b) & 1) limbs[(lsb + b) / 64] |= uint64_t{1} << ((lsb + b) % 64);
    }
  }
  std::vector<uint64_t> limbs;
};

int clog2(int v) {
  int b = 0;
  while ((1 << b) < v) ++b;
  return b;
}

// tb_array (Rows x Cols, bench parameters): one line per cycle, lsb first,
//   in  = a_data[Rows*9] | a_buf | a_valid | w_data[Cols*9] | w_row[RowIdxW] | w_buf | w_we
//   out = c_data[Cols*32] | c_valid            (expected right after the edge)
// Results are golden::gemm of each vector with the selected weight buffer, Rows + Cols - 1
// cycles later; weight buffers are reloaded only when no vector using them is in flight.
void gen_array_rc(const std::filesystem::path& dir, std::mt19937_64& rng, int R, int C) {
  const int L = R + C - 1;
  const int row_w = std::max(1, clog2(R));
  const int in_w = R * kOpW + 2 + C * kOpW + row_w + 2;
  const int out_w = C * 32 + 1;
  const int n = cycles_or(16000);
  HexFile in(dir / "array_in.hex", (in_w + 3) / 4), out(dir / "array_out.hex", (out_w + 3) / 4);
  HexFile count(dir / "count.hex", 8);
  std::uniform_int_distribution<int> s8(-128, 127), u8(0, 255);
  struct Tile {
    std::vector<int32_t> w;
    golden::OperandType t;
  } tiles[2];
  auto new_tile = [&](int b) {
    tiles[b].t.is_signed = rng() & 1;
    tiles[b].t.zero_point = tiles[b].t.is_signed ? s8(rng) : u8(rng);
    tiles[b].w.resize(R * C);
    for (auto& v : tiles[b].w) v = tiles[b].t.is_signed ? s8(rng) : u8(rng);
  };
  std::vector<Bits> outs(n + L + 1, Bits(out_w));
  int reload_buf = 0, reload_row = 0;
  new_tile(0);
  int64_t last_use[2] = {-1000, -1000};
  bool loaded[2] = {false, false};
  for (int i = 0; i < n; ++i) {
    if (reload_buf < 0 && (rng() % 150) == 0) {
      const int b = rng() & 1;
      if (i > last_use[b] + L) {
        reload_buf = b;
        reload_row = 0;
        new_tile(b);
      }
    }
    Bits line(in_w);
    int wbuf = 0;
    bool we = false;
    if (reload_buf >= 0) {
      we = true;
      wbuf = reload_buf;
      for (int c = 0; c < C; ++c) {
        line.put(R * kOpW + 2 + c * kOpW, kOpW,
                 op9(tiles[wbuf].w[reload_row * C + c] - tiles[wbuf].t.zero_point));
      }
      line.put(R * kOpW + 2 + C * kOpW, row_w, static_cast<uint64_t>(reload_row));
      if (++reload_row == R) {
        loaded[reload_buf] = true;
        reload_buf = (!loaded[0] || !loaded[1]) ? (loaded[0] ? 1 : 0) : -1;
        if (reload_buf == 1 && !loaded[1]) new_tile(1);
        reload_row = 0;
      }
    }
    // A vector may use only a fully loaded buffer that is not being written.
    int buf = static_cast<int>(rng() & 1);
    bool valid = (rng() % 4) != 0;
    if (we && buf == wbuf) buf ^= 1;
    if (!loaded[buf] || (we && buf == wbuf)) valid = false;
    golden::OperandType at{static_cast<bool>(rng() & 1), 0};
    at.zero_point = at.is_signed ? s8(rng) : u8(rng);
    std::vector<int32_t> a(R);
    for (auto& v : a) v = at.is_signed ? s8(rng) : u8(rng);
    for (int r = 0; r < R; ++r) line.put(r * kOpW, kOpW, op9(a[r] - at.zero_point));
    line.put(R * kOpW, 1, static_cast<uint64_t>(buf));
    line.put(R * kOpW + 1, 1, valid);
    line.put(in_w - 2, 1, static_cast<uint64_t>(wbuf));
    line.put(in_w - 1, 1, we);
    in.wide(line.limbs);
    if (valid) {
      last_use[buf] = i;
      const auto c = golden::gemm(a, tiles[buf].w, 1, R, C, at, tiles[buf].t);
      Bits& o = outs[i + L - 1];
      for (int col = 0; col < C; ++col) o.put(32 * col, 32, static_cast<uint32_t>(c[col]));
      o.put(C * 32, 1, 1);
    }
  }
  // Line i: the outputs expected right after edge i (the vector of cycle i - L + 1).
  for (int i = 0; i < n; ++i) out.wide(outs[i].limbs);
  count.word(n);
}

void gen_array(const std::filesystem::path& dir, std::mt19937_64& rng) {
  gen_array_rc(dir, rng, 4, 4);
}
void gen_array_16x16(const std::filesystem::path& dir, std::mt19937_64& rng) {
  gen_array_rc(dir, rng, 16, 16);
}

Registration reg_pe("pe", &gen_pe);
Registration reg_array("array", &gen_array);
Registration reg_array16("array_16x16", &gen_array_16x16);

}  // namespace
