// The SRAM wrappers with ECC (Ecc = 1, docs/common.md "ECC"), one configuration per binary
// (sram.cmake: weft_sram_1r1w 64 x 128 and 32 x 512, the scratchpad's and the 16x16
// accumulator's words, and weft_sram_1rw 48 x 64):
//   - the check bits the RTL stores equal those of an independent C++ construction of the Hsiao
//     code (odd-weight columns of weight 3, then 5, ... in increasing value), and the back door
//     stores the same ones;
//   - every single-bit flip of a stored word (each data and check bit) reads back corrected and
//     flagged "corrected", every double-bit flip (all pairs) is flagged "uncorrectable", and
//     sampled triple flips never read as clean;
//   - the flags describe the word on the read port: they hold between reads;
//   - a partial write is an assertion (no read-modify-write).
// The counts are printed ([ecc] lines).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include WEFT_MODEL_HEADER
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace {

using Model = WEFT_MODEL;
using H = weft::tb::Harness<Model>;
constexpr uint32_t kDepth = WEFT_DEPTH;
constexpr uint32_t kWidth = WEFT_WIDTH;  // a multiple of 32
constexpr size_t kChunks = kWidth / 32;
constexpr char kScope[] = WEFT_SCOPE;
#define WEFT_STR2(x) #x
#define WEFT_STR(x) WEFT_STR2(x)
constexpr char kSuite[] = WEFT_STR(WEFT_SUITE);
using Word = std::vector<uint32_t>;  // kChunks, little endian

// ---- the reference code, built here from its definition (not from weft_ecc_pkg) -----------
// R: the smallest with 2^(R-1) - R >= K. Column of data bit i: the i-th value, counting all
// R-bit values of weight 3 in increasing order, then of weight 5, ...
unsigned ref_check_bits(unsigned k) {
  unsigned r = 2;
  while ((1u << (r - 1)) - r < k) ++r;
  return r;
}

std::vector<uint32_t> ref_columns(unsigned k, unsigned r) {
  std::vector<uint32_t> cols;
  for (int w = 3; w <= static_cast<int>(r) && cols.size() < k; w += 2) {
    for (uint32_t v = 0; v < (1u << r) && cols.size() < k; ++v) {
      if (std::popcount(v) == w) cols.push_back(v);
    }
  }
  return cols;
}

uint32_t ref_check(const Word& d, const std::vector<uint32_t>& cols) {
  uint32_t c = 0;
  for (unsigned i = 0; i < kWidth; ++i) {
    if ((d[i / 32] >> (i % 32)) & 1) c ^= cols[i];
  }
  return c;
}

Word random_word(std::mt19937_64& rng) {
  Word w(kChunks);
  for (auto& c : w) c = static_cast<uint32_t>(rng());
  return w;
}

// ---- front door --------------------------------------------------------------------------
struct ReadResult {
  Word data;
  unsigned ecc;  // [0] corrected, [1] uncorrectable
};

template <class Port>
void set_word(Port& p, const Word& w) {
  for (size_t i = 0; i < kChunks; ++i) weft::tb::set_bits(p, 32 * static_cast<int>(i), 32, w[i]);
}

template <class Port>
Word get_word(const Port& p) {
  Word w(kChunks);
  for (size_t i = 0; i < kChunks; ++i) {
    w[i] = static_cast<uint32_t>(weft::tb::get_bits(p, 32 * static_cast<int>(i), 32));
  }
  return w;
}

#ifdef WEFT_SRAM_1RW
void idle(H& h) {
  h.dut().req_i = 0;
  h.dut().we_i = 0;
  h.tick();
}
void write(H& h, uint32_t addr, const Word& w, uint64_t be = ~uint64_t{0}) {
  h.dut().req_i = 1;
  h.dut().we_i = 1;
  h.dut().addr_i = addr;
  set_word(h.dut().wdata_i, w);
  weft::tb::set_bits(h.dut().be_i, 0, kWidth / 8, be);
  h.tick();
  h.dut().req_i = 0;
  h.dut().we_i = 0;
}
void start_read(H& h, uint32_t addr) {
  h.dut().req_i = 1;
  h.dut().we_i = 0;
  h.dut().addr_i = addr;
  h.tick();
  h.dut().req_i = 0;
}
ReadResult port(H& h) {
  h.eval();
  return {get_word(h.dut().rdata_o), static_cast<unsigned>(h.dut().rdata_ecc_o)};
}
#else
void idle(H& h) {
  h.dut().rd_en_i = 0;
  h.dut().wr_en_i = 0;
  h.tick();
}
void write(H& h, uint32_t addr, const Word& w, uint64_t be = ~uint64_t{0}) {
  h.dut().wr_en_i = 1;
  h.dut().wr_addr_i = addr;
  set_word(h.dut().wr_data_i, w);
  for (unsigned i = 0; i < kWidth / 8; i += 32) {
    weft::tb::set_bits(h.dut().wr_be_i, static_cast<int>(i),
                       static_cast<int>(std::min(32u, kWidth / 8 - i)), be);
  }
  h.tick();
  h.dut().wr_en_i = 0;
}
void start_read(H& h, uint32_t addr) {
  h.dut().rd_en_i = 1;
  h.dut().rd_addr_i = addr;
  h.tick();
  h.dut().rd_en_i = 0;
}
ReadResult port(H& h) {
  h.eval();
  return {get_word(h.dut().rd_data_o), static_cast<unsigned>(h.dut().rd_ecc_o)};
}
#endif

ReadResult read(H& h, uint32_t addr) {
  start_read(h, addr);
  return port(h);
}

class WEFT_SUITE : public ::testing::Test {
 protected:
  void SetUp() override {
    h_.dut().clk_i = 0;
#ifdef WEFT_SRAM_1RW
    h_.dut().req_i = 0;
    h_.dut().we_i = 0;
#else
    h_.dut().rd_en_i = 0;
    h_.dut().wr_en_i = 0;
#endif
    h_.reset();
    bd_ = std::make_unique<weft::tb::SramBackdoor>(h_.ctx(), kScope);
    rng_ = weft::tb::make_rng();
  }

  H h_;
  std::unique_ptr<weft::tb::SramBackdoor> bd_;
  std::mt19937_64 rng_;
};

TEST_F(WEFT_SUITE, StoresTheCheckBitsOfTheHsiaoCode) {
  const unsigned r = ref_check_bits(kWidth);
  ASSERT_EQ(bd_->width(), kWidth);
  ASSERT_EQ(bd_->check_bits(), r);
  const auto cols = ref_columns(kWidth, r);
  ASSERT_EQ(cols.size(), kWidth);
  // Zero data has zero check bits: zero-initialised block RAM reads as clean words.
  write(h_, 0, Word(kChunks, 0));
  EXPECT_EQ(bd_->read_check(0), 0u);
  // Front door (weft_ecc_enc) and back door (weft_ecc_pkg in the DPI function) against the
  // reference, on single-bit words (each column alone) and random words.
  for (unsigned i = 0; i < kWidth; ++i) {
    Word w(kChunks, 0);
    w[i / 32] = 1u << (i % 32);
    write(h_, 1, w);
    ASSERT_EQ(bd_->read_check(1), cols[i]) << "column of data bit " << i;
  }
  for (int n = 0; n < 200; ++n) {
    const Word w = random_word(rng_);
    const uint32_t a = static_cast<uint32_t>(rng_() % kDepth);
    write(h_, a, w);
    ASSERT_EQ(bd_->read(a), w);
    ASSERT_EQ(bd_->read_check(a), ref_check(w, cols)) << "front door, word " << n;
    bd_->write(a, w);
    ASSERT_EQ(bd_->read_check(a), ref_check(w, cols)) << "back door, word " << n;
    const ReadResult rr = read(h_, a);
    ASSERT_EQ(rr.data, w);
    ASSERT_EQ(rr.ecc, 0u);
  }
}

TEST_F(WEFT_SUITE, CorrectsEverySingleBitFlip) {
  const unsigned bits = kWidth + bd_->check_bits();
  unsigned corrected = 0, reads = 0;
  for (int n = 0; n < 4; ++n) {
    const uint32_t a = static_cast<uint32_t>(rng_() % kDepth);
    const Word w = n == 0 ? Word(kChunks, 0) : random_word(rng_);
    write(h_, a, w);
    for (unsigned b = 0; b < bits; ++b) {
      bd_->flip(a, b);
      const ReadResult rr = read(h_, a);
      ++reads;
      ASSERT_EQ(rr.data, w) << "word " << n << ", flipped bit " << b;
      ASSERT_EQ(rr.ecc, 1u) << "word " << n << ", flipped bit " << b;
      corrected += rr.ecc == 1u;
      bd_->flip(a, b);
      ASSERT_EQ(read(h_, a).ecc, 0u);
    }
  }
  std::printf("[ecc] %s: single-bit flips %u (4 words x %u data + %u check bits), corrected %u\n",
              kSuite, reads, kWidth, bits - kWidth, corrected);
  EXPECT_EQ(corrected, 4 * bits);
}

TEST_F(WEFT_SUITE, DetectsEveryDoubleBitFlip) {
  const unsigned bits = kWidth + bd_->check_bits();
  const uint32_t a = static_cast<uint32_t>(rng_() % kDepth);
  const Word w = random_word(rng_);
  write(h_, a, w);
  uint64_t pairs = 0, detected = 0;
  for (unsigned b = 0; b < bits; ++b) {
    for (unsigned c = b + 1; c < bits; ++c) {
      bd_->flip(a, b);
      bd_->flip(a, c);
      const ReadResult rr = read(h_, a);
      ++pairs;
      detected += rr.ecc == 2u;
      if (rr.ecc != 2u) ADD_FAILURE() << "bits " << b << " and " << c << ": flags " << rr.ecc;
      bd_->flip(a, b);
      bd_->flip(a, c);
    }
  }
  std::printf("[ecc] %s: double-bit flips %llu (every pair of %u bits), detected %llu\n", kSuite,
              static_cast<unsigned long long>(pairs), bits,
              static_cast<unsigned long long>(detected));
  EXPECT_EQ(detected, pairs);
  EXPECT_EQ(pairs, uint64_t{bits} * (bits - 1) / 2);
  EXPECT_EQ(read(h_, a).ecc, 0u);
}

// Three flips are beyond SECDED's guarantee, but the code's distance (4) means they never look
// like a clean word: the syndrome has odd weight, so each is flagged "corrected" (the decoder
// flags by the syndrome's parity, docs/common.md "ECC"), and the data is usually wrong.
TEST_F(WEFT_SUITE, TripleBitFlipsNeverReadAsClean) {
  const unsigned bits = kWidth + bd_->check_bits();
  const uint32_t a = 3 % kDepth;
  const Word w = random_word(rng_);
  write(h_, a, w);
  unsigned right = 0;
  constexpr unsigned kTriples = 3000;
  for (unsigned n = 0; n < kTriples; ++n) {
    unsigned b[3];
    b[0] = static_cast<unsigned>(rng_() % bits);
    do b[1] = static_cast<unsigned>(rng_() % bits); while (b[1] == b[0]);
    do b[2] = static_cast<unsigned>(rng_() % bits); while (b[2] == b[0] || b[2] == b[1]);
    for (unsigned x : b) bd_->flip(a, x);
    const ReadResult rr = read(h_, a);
    ASSERT_EQ(rr.ecc, 1u) << "bits " << b[0] << ", " << b[1] << ", " << b[2];
    right += rr.data == w;
    for (unsigned x : b) bd_->flip(a, x);
  }
  std::printf("[ecc] %s: triple-bit flips %u (random): none read as clean, all flagged corrected "
              "(beyond SECDED), data still right in %u\n",
              kSuite, kTriples, right);
}

TEST_F(WEFT_SUITE, FlagsHoldWithTheReadDataUntilTheNextRead) {
  const Word w = random_word(rng_), v = random_word(rng_);
  write(h_, 5, w);
  write(h_, 6, v);
  bd_->flip(5, 7);
  EXPECT_EQ(read(h_, 5).ecc, 1u);
  for (int i = 0; i < 3; ++i) {
    idle(h_);
    const ReadResult rr = port(h_);
    EXPECT_EQ(rr.ecc, 1u) << "idle cycle " << i;
    EXPECT_EQ(rr.data, w);
  }
  EXPECT_EQ(read(h_, 6).ecc, 0u);
  bd_->flip(6, 1);
  bd_->flip(6, kWidth);  // a data and a check bit
  EXPECT_EQ(read(h_, 6).ecc, 2u);
  idle(h_);
  EXPECT_EQ(port(h_).ecc, 2u);
  // The stored word keeps its error (no scrubbing on a read); a write replaces it.
  EXPECT_EQ(read(h_, 5).ecc, 1u);
  write(h_, 5, w);
  EXPECT_EQ(read(h_, 5).ecc, 0u);
}

TEST_F(WEFT_SUITE, AssertsOnPartialWrite) {
  EXPECT_THROW(write(h_, 2, random_word(rng_), 0x1), std::runtime_error);
}

TEST_F(WEFT_SUITE, BackdoorFlipRejectsBitsBeyondTheWord) {
  EXPECT_THROW(bd_->flip(0, kWidth + bd_->check_bits()), std::out_of_range);
  EXPECT_THROW(bd_->flip(kDepth, 0), std::out_of_range);
}

}  // namespace
