// weft_sram_1r1w (100 x 72, through tb_common_sram_1r1w): both ports against a C++ memory model
// (old data on a same-address read during write, as documented for the simulation model),
// address-range assertion, DPI back door with multi-chunk words.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "Vvl_sram_1r1w.h"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace {

constexpr uint32_t kDepth = 100;
constexpr int kBytes = 9;  // 72 bits
constexpr char kScope[] = "top.tb_common_sram_1r1w.u_sram";

using H = weft::tb::Harness<Vvl_sram_1r1w>;
using Word = std::array<uint8_t, kBytes>;

Word random_word(std::mt19937_64& rng) {
  Word w;
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  return w;
}

std::vector<uint32_t> to_chunks(const Word& w) {
  std::vector<uint32_t> c(3, 0);
  for (int i = 0; i < kBytes; ++i) c[i / 4] |= uint32_t{w[i]} << (8 * (i % 4));
  return c;
}

template <class Port>
void set_word(Port& p, const Word& w) {
  for (int i = 0; i < kBytes; ++i) weft::tb::set_bits(p, 8 * i, 8, w[i]);
}

template <class Port>
Word get_word(const Port& p) {
  Word w;
  for (int i = 0; i < kBytes; ++i) w[i] = static_cast<uint8_t>(weft::tb::get_bits(p, 8 * i, 8));
  return w;
}

struct Cmd {
  bool rd_en = false;
  uint32_t rd_addr = 0;
  bool wr_en = false;
  uint32_t wr_addr = 0;
  Word wr_data{};
  uint32_t wr_be = 0;
};

// Reference: reads see the memory before this cycle's write (old data).
struct MemModel {
  std::vector<Word> mem = std::vector<Word>(kDepth, Word{});
  std::optional<Word> rd_data;

  void cycle(const Cmd& c) {
    if (c.rd_en) rd_data = mem[c.rd_addr];
    if (c.wr_en) {
      for (int i = 0; i < kBytes; ++i) {
        if ((c.wr_be >> i) & 1) mem[c.wr_addr][i] = c.wr_data[i];
      }
    }
  }
};

void drive(H& h, const Cmd& c) {
  h.dut().rd_en_i = c.rd_en;
  h.dut().rd_addr_i = c.rd_addr;
  h.dut().wr_en_i = c.wr_en;
  h.dut().wr_addr_i = c.wr_addr;
  set_word(h.dut().wr_data_i, c.wr_data);
  h.dut().wr_be_i = c.wr_be;
  h.tick();
}

// The harness randomises every variable at construction, top-level inputs included.
struct Sram : H {
  Sram() {
    dut().rd_en_i = 0;
    dut().rd_addr_i = 0;
    dut().wr_en_i = 0;
    dut().wr_addr_i = 0;
    set_word(dut().wr_data_i, Word{});
    dut().wr_be_i = 0;
    eval();
  }
};

Word front_read(H& h, uint32_t addr) {
  Cmd c;
  c.rd_en = true;
  c.rd_addr = addr;
  drive(h, c);
  return get_word(h.dut().rd_data_o);
}

void load_random(weft::tb::SramBackdoor& bd, MemModel& m, std::mt19937_64& rng) {
  for (uint32_t a = 0; a < kDepth; ++a) {
    m.mem[a] = random_word(rng);
    bd.write(a, to_chunks(m.mem[a]));
  }
}

TEST(Sram1r1w, BackdoorRoundTripsWideWords) {
  Sram h;
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  EXPECT_EQ(bd.depth(), kDepth);
  EXPECT_EQ(bd.width(), 72u);
  ASSERT_EQ(bd.chunks(), 3u);
  MemModel m;
  load_random(bd, m, rng);
  for (uint32_t a = 0; a < kDepth; ++a) {
    ASSERT_EQ(front_read(h, a), m.mem[a]) << "front door, address " << a;
    ASSERT_EQ(bd.read(a), to_chunks(m.mem[a])) << "back door, address " << a;
  }
  EXPECT_THROW(bd.write(0, {0, 0, 0x100}), std::invalid_argument);  // bit 72
}

TEST(Sram1r1w, ReadDuringWriteToSameAddressReturnsOldData) {
  Sram h;
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  const Word old_w{1, 2, 3, 4, 5, 6, 7, 8, 9}, new_w{0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9};
  bd.write(42, to_chunks(old_w));
  Cmd c;
  c.rd_en = c.wr_en = true;
  c.rd_addr = c.wr_addr = 42;
  c.wr_data = new_w;
  c.wr_be = 0x1ff;
  drive(h, c);
  EXPECT_EQ(get_word(h.dut().rd_data_o), old_w);
  EXPECT_EQ(front_read(h, 42), new_w);
}

TEST(Sram1r1w, ReadDataHoldsWhileReadDisabled) {
  Sram h;
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  MemModel m;
  load_random(bd, m, rng);
  ASSERT_EQ(front_read(h, 3), m.mem[3]);
  for (int i = 0; i < 20; ++i) {
    Cmd c;
    c.rd_addr = rng() % kDepth;  // address moves, read disabled
    c.wr_en = true;
    c.wr_addr = 3;
    c.wr_data = random_word(rng);
    c.wr_be = 0x1ff;
    drive(h, c);
    EXPECT_EQ(get_word(h.dut().rd_data_o), m.mem[3]) << "cycle " << i;
  }
}

TEST(Sram1r1w, MatchesMemoryModelUnderRandomTraffic) {
  Sram h;
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  MemModel m;
  load_random(bd, m, rng);
  struct Phase { double rd, wr; uint32_t window; };
  const Phase phases[] = {{1.0, 1.0, kDepth}, {0.5, 0.5, kDepth}, {1.0, 1.0, 3},
                          {0.3, 0.9, 10},     {0.9, 0.2, kDepth}};
  std::uniform_real_distribution<double> u(0, 1);
  uint64_t collisions = 0;
  for (const Phase& p : phases) {
    for (int i = 0; i < 25000; ++i) {
      Cmd c;
      c.rd_en = u(rng) < p.rd;
      c.rd_addr = rng() % p.window;
      c.wr_en = u(rng) < p.wr;
      c.wr_addr = rng() % p.window;
      c.wr_data = random_word(rng);
      c.wr_be = rng() % 0x200;
      if (c.rd_en && c.wr_en && c.rd_addr == c.wr_addr) ++collisions;
      m.cycle(c);
      drive(h, c);
      if (m.rd_data) ASSERT_EQ(get_word(h.dut().rd_data_o), *m.rd_data) << "cycle " << h.cycle();
    }
  }
  EXPECT_GT(collisions, 1000u);
  for (uint32_t a = 0; a < kDepth; ++a) {
    ASSERT_EQ(bd.read(a), to_chunks(m.mem[a])) << "final contents, address " << a;
  }
}

TEST(Sram1r1w, AssertsOnReadAddressBeyondDepth) {
  Sram h;
  Cmd c;
  c.rd_en = true;
  c.rd_addr = kDepth + 20;  // 7-bit address, Depth 100
  h.dut().rd_en_i = c.rd_en;
  h.dut().rd_addr_i = c.rd_addr;
  EXPECT_THROW(h.tick(), std::runtime_error);
}

TEST(Sram1r1w, AssertsOnWriteAddressBeyondDepth) {
  Sram h;
  h.dut().wr_en_i = 1;
  h.dut().wr_addr_i = 127;
  h.dut().wr_be_i = 0x1ff;
  EXPECT_THROW(h.tick(), std::runtime_error);
}

}  // namespace
