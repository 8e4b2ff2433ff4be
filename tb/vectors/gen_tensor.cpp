// Vectors for the PE and systolic-array SV benches (tb/sv/tb_pe.sv, tb/sv/tb_array.sv).
// One line per clock cycle: the inputs driven before the edge and the outputs expected after it.
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

// tb_array (4x4): in = {w_we, w_buf, w_row[2], w_data[4*9], a_valid, a_buf, a_data[4*9]}
// (78 bits), out = {c_valid, c_data[4*32]} (129 bits), expected after the edge; results are
// golden::gemm of each vector with the selected weight buffer, Rows + Cols - 1 cycles later.
void gen_array(const std::filesystem::path& dir, std::mt19937_64& rng) {
  constexpr int R = 4, C = 4, L = R + C - 1;
  const int n = cycles_or(16000);
  HexFile in(dir / "array_in.hex", 20), out(dir / "array_out.hex", 33), count(dir / "count.hex", 8);
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
  std::vector<std::vector<uint64_t>> outs(n + L + 1, std::vector<uint64_t>(3, 0));
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
    uint64_t wbits = 0;
    int wrow = 0, wbuf = 0;
    bool we = false;
    if (reload_buf >= 0) {
      we = true;
      wbuf = reload_buf;
      wrow = reload_row;
      for (int c = 0; c < C; ++c) {
        wbits |= op9(tiles[wbuf].w[wrow * C + c] - tiles[wbuf].t.zero_point) << (kOpW * c);
      }
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
    uint64_t abits = 0;
    for (int r = 0; r < R; ++r) abits |= op9(a[r] - at.zero_point) << (kOpW * r);
    // 78 bits, lsb first: a_data[36] | a_buf | a_valid | w_data[36] | w_row[2] | w_buf | w_we
    std::vector<uint64_t> limbs(2, 0);
    auto put = [&](int lsb, int width, uint64_t v) {
      for (int b = 0; b < width; ++b) {
        if ((v >> b) & 1) limbs[(lsb + b) / 64] |= uint64_t{1} << ((lsb + b) % 64);
      }
    };
    put(0, 36, abits);
    put(36, 1, static_cast<uint64_t>(buf));
    put(37, 1, valid);
    put(38, 36, wbits);
    put(74, 2, static_cast<uint64_t>(wrow));
    put(76, 1, static_cast<uint64_t>(wbuf));
    put(77, 1, we);
    in.wide(limbs);
    if (valid) {
      last_use[buf] = i;
      const auto c = golden::gemm(a, tiles[buf].w, 1, R, C, at, tiles[buf].t);
      auto& o = outs[i + L - 1];
      o.assign(3, 0);
      for (int col = 0; col < C; ++col) {
        const uint64_t v = static_cast<uint32_t>(c[col]);
        const int lsb = 32 * col;
        o[lsb / 64] |= v << (lsb % 64);
      }
      o[2] = 1;  // c_valid at bit 128
    }
  }
  // Line i: the outputs expected right after edge i (the vector of cycle i - L + 1).
  for (int i = 0; i < n; ++i) out.wide(outs[i]);
  count.word(n);
}

Registration reg_pe("pe", &gen_pe);
Registration reg_array("array", &gen_array);

}  // namespace
