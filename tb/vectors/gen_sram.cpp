// Vectors for the SRAM SV benches (tb/sv/tb_sram_1rw.sv, tb/sv/tb_sram_1r1w.sv), from a C++
// memory model. One line per clock cycle in each file; line t holds the inputs driven before
// edge t and the read data expected during cycle t (the result of the edges before it).
// The first Depth cycles write every word fully, so every later read is defined on both
// simulators; the read-data check starts after the first read.
#include <array>
#include <cstdint>
#include <vector>

#include "vecgen.hpp"

namespace {

using weft::vecgen::HexFile;
using weft::vecgen::Registration;

uint64_t lanes_mask(uint32_t be, int bytes) {
  uint64_t m = 0;
  for (int b = 0; b < bytes; ++b) {
    if ((be >> b) & 1) m |= uint64_t{0xff} << (8 * b);
  }
  return m;
}

// Address windows per phase: the full range, and small windows where writes and reads of one
// word follow each other closely.
struct Phase {
  int cycles;
  double p_a, p_b;  // 1rw: request, write; 1r1w: read enable, write enable
  uint32_t window;
};

bool draw(std::mt19937_64& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// tb_sram_1rw: weft_sram_1rw Depth 48, Width 24 (3 byte lanes, depth not a power of two).
// ctrl.hex {check, req, we, be[2:0]}; addr.hex; wdata.hex; exp.hex (rdata; 0 when not checked).
void gen_sram_1rw(const std::filesystem::path& dir, std::mt19937_64& rng) {
  constexpr uint32_t kDepth = 48;
  constexpr int kBytes = 3;
  HexFile ctrl(dir / "ctrl.hex", 2), addr(dir / "addr.hex", 2), wdata(dir / "wdata.hex", 6),
      exp(dir / "exp.hex", 6), count(dir / "count.hex", 8);
  std::vector<uint64_t> mem(kDepth, 0);
  bool have_rdata = false;
  uint64_t rdata = 0;
  auto emit = [&](bool req, bool we, uint32_t be, uint32_t a, uint64_t d) {
    ctrl.word((uint64_t{have_rdata} << 5) | (uint64_t{req} << 4) | (uint64_t{we} << 3) | be);
    addr.word(a);
    wdata.word(d);
    exp.word(have_rdata ? rdata : 0);
    // the edge
    if (req && we) {
      const uint64_t m = lanes_mask(be, kBytes);
      mem[a] = (mem[a] & ~m) | (d & m);
    } else if (req) {
      rdata = mem[a];
      have_rdata = true;
    }
  };
  for (uint32_t a = 0; a < kDepth; ++a) emit(true, true, 0x7, a, rng() & 0xffffff);
  const Phase phases[] = {{2000, 1.0, 0.5, kDepth}, {1000, 0.5, 0.3, kDepth}, {1000, 1.0, 0.5, 3},
                          {1000, 0.9, 0.9, 8},      {1000, 0.2, 0.5, kDepth}};
  for (const Phase& p : phases) {
    for (int i = 0; i < p.cycles; ++i) {
      const bool req = draw(rng, p.p_a), we = draw(rng, p.p_b);
      emit(req, we, static_cast<uint32_t>(rng() % 8), static_cast<uint32_t>(rng() % p.window),
           rng() & 0xffffff);
    }
  }
  // Close with a read of every word.
  for (uint32_t a = 0; a < kDepth; ++a) emit(true, false, 0, a, 0);
  emit(false, false, 0, 0, 0);
  count.word(ctrl.count());
}

// tb_sram_1r1w: weft_sram_1r1w Depth 40, Width 40 (5 byte lanes). Same-address read during
// write returns the old word (the documented simulation behaviour of the model).
// ctrl.hex {check, rd_en, wr_en, be[4:0]}; raddr.hex; waddr.hex; wdata.hex; exp.hex.
void gen_sram_1r1w(const std::filesystem::path& dir, std::mt19937_64& rng) {
  constexpr uint32_t kDepth = 40;
  constexpr int kBytes = 5;
  constexpr uint64_t kMask = (uint64_t{1} << 40) - 1;
  HexFile ctrl(dir / "ctrl.hex", 2), raddr(dir / "raddr.hex", 2), waddr(dir / "waddr.hex", 2),
      wdata(dir / "wdata.hex", 10), exp(dir / "exp.hex", 10), count(dir / "count.hex", 8);
  std::vector<uint64_t> mem(kDepth, 0);
  bool have_rdata = false;
  uint64_t rdata = 0;
  auto emit = [&](bool rd, uint32_t ra, bool wr, uint32_t be, uint32_t wa, uint64_t d) {
    ctrl.word((uint64_t{have_rdata} << 7) | (uint64_t{rd} << 6) | (uint64_t{wr} << 5) | be);
    raddr.word(ra);
    waddr.word(wa);
    wdata.word(d);
    exp.word(have_rdata ? rdata : 0);
    if (rd) {  // reads see the memory before this edge's write
      rdata = mem[ra];
      have_rdata = true;
    }
    if (wr) {
      const uint64_t m = lanes_mask(be, kBytes);
      mem[wa] = (mem[wa] & ~m) | (d & m);
    }
  };
  for (uint32_t a = 0; a < kDepth; ++a) emit(false, 0, true, 0x1f, a, rng() & kMask);
  const Phase phases[] = {{2000, 1.0, 1.0, kDepth}, {1000, 0.5, 0.5, kDepth}, {1000, 1.0, 1.0, 2},
                          {1000, 0.3, 0.9, 6},      {1000, 0.9, 0.2, kDepth}};
  for (const Phase& p : phases) {
    for (int i = 0; i < p.cycles; ++i) {
      const bool rd = draw(rng, p.p_a), wr = draw(rng, p.p_b);
      emit(rd, static_cast<uint32_t>(rng() % p.window), wr, static_cast<uint32_t>(rng() % 32),
           static_cast<uint32_t>(rng() % p.window), rng() & kMask);
    }
  }
  for (uint32_t a = 0; a < kDepth; ++a) emit(true, a, false, 0, 0, 0);
  emit(false, 0, false, 0, 0, 0);
  count.word(ctrl.count());
}

const Registration reg_1rw("sram_1rw", &gen_sram_1rw);
const Registration reg_1r1w("sram_1r1w", &gen_sram_1r1w);

}  // namespace
