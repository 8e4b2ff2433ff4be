// Memory ECC through the driver (docs/common.md "ECC"), on the sim:// build with ECC
// (WEFT_SIM_CONFIGS ...:ecc, weft_top MemEcc = 1): errors are injected into stored words with
// Device::inject_mem_error (the SRAMs' DPI back door), the device reads them through LOAD /
// STORE_SPAD / COMPUTE / STORE_ACC, and the results are checked against the data written (the
// scratchpad) or against a plain integer product computed here (the accumulator).
//   - every single-bit error position of a word (each data and check bit) of the scratchpad and
//     of the accumulator, in words of every bank, reads back corrected and is counted once in
//     ECC_CORRECTED (ECC_LAST_CORR names the word);
//   - an accumulating COMPUTE into a row with a corrected bit writes the row back clean;
//   - double-bit errors (data + data, data + check, check + check) stop the queue with ECC_SPAD /
//     ECC_ACC, ERR_ADDR the line / row, ERR_INDEX the descriptor that read it, ECC_DETECTED
//     counted; Queue::reset() and a rewrite of the word make the device work again.
// The counts are printed ([ecc] lines). ref:// has no memories to inject into (kUnsupported).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Device;
using weft::Errc;
using weft::ErrorCode;
using weft::Memory;

TEST(EccRef, InjectionIsUnsupportedAndCountsAreZero) {
  Device d = Device::open("ref://");
  EXPECT_FALSE(d.caps().mem_ecc);
  try {
    d.inject_mem_error(Memory::kScratchpad, 0, 0);
    ADD_FAILURE() << "no error";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kUnsupported) << e.what();
  }
  const weft::EccCounts c = d.ecc_counts();
  EXPECT_EQ(c.corrected, 0u);
  EXPECT_EQ(c.detected, 0u);
}

#ifdef WEFT_SIM_ECC_ARRAY

class Ecc : public ::testing::Test {
 protected:
  void SetUp() override {
    rng_ = weft::tb::make_rng();
    const std::string uri = std::string("sim://?array=") + WEFT_SIM_ECC_ARRAY +
                            "&ecc=1&seed=" + std::to_string(weft::tb::test_seed() % 1000000007);
    dev_ = std::make_unique<Device>(Device::open(uri));
    const auto& c = dev_->caps();
    ASSERT_TRUE(c.mem_ecc) << c.to_string();
    line_bytes_ = c.bus_bytes;
    spad_ = dev_->mem_word_bits(Memory::kScratchpad);
    acc_ = dev_->mem_word_bits(Memory::kAccumulator);
    ASSERT_EQ(spad_.data, 8 * line_bytes_);
    ASSERT_EQ(acc_.data, 32 * c.cols);
    ASSERT_GT(spad_.check, 0u);
    ASSERT_GT(acc_.check, 0u);
    host_ = dev_->alloc(1 << 16);
    out_ = dev_->alloc(1 << 16);
  }

  std::vector<uint8_t> rand_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_());
    return v;
  }

  // `rows` scratchpad lines from line `first`, `stride` lines apart, and host memory at `buf`
  // (consecutive lines).
  weft::Transfer2d lines(const weft::Buffer& buf, uint32_t first, uint32_t stride, uint32_t rows) {
    weft::Transfer2d t;
    t.host_addr = buf.device_address();
    t.row_bytes = line_bytes_;
    t.rows = rows;
    t.host_stride = line_bytes_;
    t.spad_addr = first;
    t.spad_stride = stride;
    return t;
  }

  uint64_t run(const weft::Descriptor& d) {
    auto& q = dev_->queue();
    const uint64_t i = q.submit(d);
    q.wait(i);
    return i;
  }

  // The queue stops on `code` at descriptor `index` with ERR_ADDR `addr` (wait's exception and
  // Queue::error()), then is reset.
  void expect_stop(uint64_t index, ErrorCode code, uint64_t addr, const std::string& what) {
    auto& q = dev_->queue();
    try {
      q.wait(index);
      ADD_FAILURE() << what << ": no error";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::to_errc(code)) << what << ": " << e.what();
      EXPECT_EQ(e.index(), index) << what << ": " << e.what();
      EXPECT_EQ(e.address(), addr) << what << ": " << e.what();
    }
    const auto err = q.error();
    ASSERT_TRUE(err.has_value()) << what;
    EXPECT_EQ(err->code, code) << what;
    EXPECT_EQ(err->address, addr) << what;
    q.reset();
    EXPECT_FALSE(q.error().has_value()) << what;
  }

  // --- the accumulator: A (m x k int8) times W (k x cols int8) into rows [acc, acc + m) ------
  // Rows of A and W are scratchpad lines (one element per byte); A from line kA, W from kW.
  static constexpr uint32_t kA = 1000, kW = 2000, kParams = 3000;

  void load_operands(const std::vector<int8_t>& a, const std::vector<int8_t>& w, uint32_t m,
                     uint32_t k) {
    const uint32_t r = dev_->caps().rows, n = dev_->caps().cols;
    std::vector<uint8_t> al(size_t(m) * line_bytes_, 0), wl(size_t(k) * line_bytes_, 0);
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < k; ++j) al[i * line_bytes_ + j] = uint8_t(a[i * k + j]);
    }
    for (uint32_t j = 0; j < k; ++j) {
      for (uint32_t c = 0; c < n; ++c) wl[j * line_bytes_ + c] = uint8_t(w[j * n + c]);
    }
    ASSERT_LE(k, r);
    host_.write(std::span<const uint8_t>(al));
    run(weft::Descriptor::load(lines(host_, kA, 1, m)));
    host_.write(std::span<const uint8_t>(wl));
    run(weft::Descriptor::load(lines(host_, kW, 1, k)));
    // Zero bias for STORE_ACC's INT32 mode (cols parameter lines).
    std::vector<uint8_t> zero(size_t(n) * line_bytes_, 0);
    host_.write(std::span<const uint8_t>(zero));
    run(weft::Descriptor::load(lines(host_, kParams, 1, n)));
  }

  weft::ComputeArgs compute_args(uint32_t acc, uint32_t m, uint32_t k, bool accumulate) {
    weft::ComputeArgs c;
    c.a_addr = kA;
    c.a_row_stride = 1;
    c.a_tile_stride = 1;
    c.w_addr = kW;
    c.w_row_stride = 1;
    c.w_tile_stride = 1;
    c.m = m;
    c.k = k;
    c.acc_addr = acc;
    c.accumulate = accumulate;
    return c;
  }

  weft::StoreAccArgs store_args(uint32_t acc, uint32_t m) {
    weft::StoreAccArgs s;
    s.host_addr = out_.device_address();
    s.host_stride = line_bytes_;
    s.m = m;
    s.acc_addr = acc;
    s.n = dev_->caps().cols;
    s.mode = weft::StoreMode::kInt32;
    s.load_params = true;
    s.params_addr = kParams;
    return s;
  }

  // Rows [acc, acc + m) as stored by STORE_ACC (INT32, zero bias).
  std::vector<int32_t> store_rows(uint32_t acc, uint32_t m) {
    run(weft::Descriptor::store_acc(store_args(acc, m)));
    const uint32_t n = dev_->caps().cols;
    std::vector<int32_t> v(size_t(m) * n);
    for (uint32_t i = 0; i < m; ++i) {
      const auto row = out_.read<int32_t>(n, size_t(i) * line_bytes_);
      std::copy(row.begin(), row.end(), v.begin() + ptrdiff_t(i) * n);
    }
    return v;
  }

  // A x W (m x k by k x n), the reference for the accumulator's rows.
  std::vector<int32_t> product(const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                               uint32_t m, uint32_t k) {
    const uint32_t n = dev_->caps().cols;
    std::vector<int32_t> c(size_t(m) * n, 0);
    for (uint32_t i = 0; i < m; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        for (uint32_t t = 0; t < k; ++t) c[i * n + j] += int32_t(a[i * k + t]) * w[t * n + j];
      }
    }
    return c;
  }

  std::vector<int8_t> rand_i8(size_t n) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(rng_());
    return v;
  }

  std::mt19937_64 rng_;
  std::unique_ptr<Device> dev_;
  uint32_t line_bytes_ = 0;
  weft::MemWordBits spad_, acc_;
  weft::Buffer host_, out_;
};

// One scratchpad line per stored bit (data, then check bits), lines 113 apart so that every bank
// holds some; one STORE_SPAD reads them all.
TEST_F(Ecc, EverySingleBitErrorOfAScratchpadLineIsCorrectedAndCounted) {
  const uint32_t bits = spad_.data + spad_.check, stride = 113, first = 7;
  ASSERT_LT(first + (bits - 1) * stride, dev_->caps().spad_lines);
  const auto data = rand_bytes(size_t(bits) * line_bytes_);
  host_.write(std::span<const uint8_t>(data));
  run(weft::Descriptor::load(lines(host_, first, stride, bits)));
  dev_->clear_ecc_counts();
  for (uint32_t b = 0; b < bits; ++b) dev_->inject_mem_error(Memory::kScratchpad, first + b * stride, b);
  run(weft::Descriptor::store_spad(lines(out_, first, stride, bits)));
  EXPECT_EQ(out_.read<uint8_t>(data.size()), data) << "the lines read back corrected";
  weft::EccCounts c = dev_->ecc_counts();
  std::printf("[ecc] scratchpad: %u lines, one flipped bit each (bits 0..%u: %u data, %u check), "
              "%u banks: corrected %u, detected %u, last corrected line %u\n",
              bits, bits - 1, spad_.data, spad_.check, dev_->caps().spad_banks, c.corrected,
              c.detected, c.last_corrected_addr);
  EXPECT_EQ(c.corrected, bits);
  EXPECT_EQ(c.detected, 0u);
  EXPECT_EQ(c.last_corrected_mem, Memory::kScratchpad);
  EXPECT_EQ(c.last_corrected_addr, first + (bits - 1) * stride);
  // Reads do not write back: a second store corrects (and counts) every line again; a LOAD
  // rewrites them clean.
  run(weft::Descriptor::store_spad(lines(out_, first, stride, bits)));
  EXPECT_EQ(dev_->ecc_counts().corrected, 2 * bits);
  run(weft::Descriptor::load(lines(host_, first, stride, bits)));
  run(weft::Descriptor::store_spad(lines(out_, first, stride, bits)));
  EXPECT_EQ(dev_->ecc_counts().corrected, 2 * bits);
  EXPECT_EQ(out_.read<uint8_t>(data.size()), data);
  dev_->clear_ecc_counts();
  EXPECT_EQ(dev_->ecc_counts().corrected, 0u);
}

// Every bit position of an accumulator row: the rows of both banks, one flipped bit each, read by
// STORE_ACC (drain reads) in rounds until every position was hit.
TEST_F(Ecc, EverySingleBitErrorOfAnAccumulatorRowIsCorrectedAndCounted) {
  const uint32_t k = dev_->caps().rows, bank = dev_->caps().acc_rows / 2;
  const uint32_t bits = acc_.data + acc_.check;
  const auto a = rand_i8(size_t(bank) * k), w = rand_i8(size_t(k) * dev_->caps().cols);
  load_operands(a, w, bank, k);
  const auto want = product(a, w, bank, k);
  for (uint32_t b0 : {0u, bank}) run(weft::Descriptor::compute(compute_args(b0, bank, k, false)));
  dev_->clear_ecc_counts();
  uint32_t flipped = 0, rounds = 0;
  for (uint32_t base = 0; base < bits; base += 2 * bank, ++rounds) {
    std::vector<std::pair<uint32_t, uint32_t>> hits;  // (row, bit)
    for (uint32_t row = 0; row < 2 * bank && base + row < bits; ++row) hits.emplace_back(row, base + row);
    for (auto [row, bit] : hits) dev_->inject_mem_error(Memory::kAccumulator, row, bit);
    for (uint32_t b0 : {0u, bank}) {
      ASSERT_EQ(store_rows(b0, bank), want) << "bank " << b0 / bank << ", round " << rounds;
    }
    for (auto [row, bit] : hits) dev_->inject_mem_error(Memory::kAccumulator, row, bit);  // undo
    flipped += static_cast<uint32_t>(hits.size());
  }
  const weft::EccCounts c = dev_->ecc_counts();
  std::printf("[ecc] accumulator: %u rows x %u rounds, one flipped bit per row and read, every "
              "position of %u (%u data, %u check): corrected %u, detected %u\n",
              2 * bank, rounds, bits, acc_.data, acc_.check, c.corrected, c.detected);
  EXPECT_EQ(flipped, bits);
  EXPECT_EQ(c.corrected, bits);
  EXPECT_EQ(c.detected, 0u);
  EXPECT_EQ(c.last_corrected_mem, Memory::kAccumulator);
}

// An accumulating COMPUTE reads the row (corrected), adds and writes it back with new check bits.
TEST_F(Ecc, AccumulatingIntoACorrectedRowWritesItBackClean) {
  const uint32_t k = dev_->caps().rows, m = 8;
  const auto a = rand_i8(size_t(m) * k), w = rand_i8(size_t(k) * dev_->caps().cols);
  load_operands(a, w, m, k);
  run(weft::Descriptor::compute(compute_args(0, m, k, false)));
  dev_->clear_ecc_counts();
  for (uint32_t row = 0; row < m; ++row) dev_->inject_mem_error(Memory::kAccumulator, row, 5 * row);
  run(weft::Descriptor::compute(compute_args(0, m, k, true)));
  EXPECT_EQ(dev_->ecc_counts().corrected, m) << "the accumulate reads";
  auto want = product(a, w, m, k);
  for (auto& v : want) v *= 2;
  EXPECT_EQ(store_rows(0, m), want);
  EXPECT_EQ(dev_->ecc_counts().corrected, m) << "nothing left to correct after the write-back";
}

// Double-bit errors in scratchpad lines, read by STORE_SPAD and by COMPUTE (A and W operands).
TEST_F(Ecc, DoubleBitErrorInAScratchpadLineStopsTheQueueWithItsLine) {
  const uint32_t d = spad_.data, c = spad_.check;
  struct Case {
    uint32_t line, b0, b1;
    const char* what;
  };
  const uint32_t q1 = dev_->caps().spad_lines / 4;
  const std::vector<Case> cases = {{5, 0, 1, "two data bits, bank 0"},
                                   {q1 + 17, 3, d + 2, "a data and a check bit, bank 1"},
                                   {2 * q1 + 9, d, d + c - 1, "two check bits, bank 2"},
                                   {3 * q1 + 31, d - 1, 64, "two data bits, bank 3"}};
  const auto data = rand_bytes(size_t(64) * line_bytes_);
  host_.write(std::span<const uint8_t>(data));
  auto& q = dev_->queue();
  dev_->clear_ecc_counts();
  uint32_t checked = 0;
  for (const Case& k : cases) {
    run(weft::Descriptor::load(lines(host_, k.line, 1, 4)));
    dev_->inject_mem_error(Memory::kScratchpad, k.line + 2, k.b0);
    dev_->inject_mem_error(Memory::kScratchpad, k.line + 2, k.b1);
    const uint64_t i = q.submit(weft::Descriptor::store_spad(lines(out_, k.line, 1, 4)));
    expect_stop(i, ErrorCode::kEccSpad, k.line + 2, k.what);
    const weft::EccCounts e = dev_->ecc_counts();
    EXPECT_EQ(e.last_detected_mem, Memory::kScratchpad);
    EXPECT_EQ(e.last_detected_addr, k.line + 2);
    // Rewritten, the line reads clean again.
    run(weft::Descriptor::load(lines(host_, k.line, 1, 4)));
    run(weft::Descriptor::store_spad(lines(out_, k.line, 1, 4)));
    EXPECT_EQ(out_.read<uint8_t>(size_t(4) * line_bytes_), std::vector<uint8_t>(data.begin(), data.begin() + 4 * line_bytes_));
    ++checked;
  }
  // COMPUTE's operand reads: a bad A row, then a bad W row.
  const uint32_t k = dev_->caps().rows, m = 6;
  const auto a = rand_i8(size_t(m) * k), w = rand_i8(size_t(k) * dev_->caps().cols);
  load_operands(a, w, m, k);
  dev_->inject_mem_error(Memory::kScratchpad, kA + 4, 10);
  dev_->inject_mem_error(Memory::kScratchpad, kA + 4, 11);
  uint64_t i = q.submit(weft::Descriptor::compute(compute_args(0, m, k, false)));
  expect_stop(i, ErrorCode::kEccSpad, kA + 4, "COMPUTE, A row 4");
  ++checked;
  load_operands(a, w, m, k);
  dev_->inject_mem_error(Memory::kScratchpad, kW + 1, 0);
  dev_->inject_mem_error(Memory::kScratchpad, kW + 1, d + 1);
  i = q.submit(weft::Descriptor::compute(compute_args(0, m, k, false)));
  expect_stop(i, ErrorCode::kEccSpad, kW + 1, "COMPUTE, W row 1");
  ++checked;
  // And the device computes again.
  load_operands(a, w, m, k);
  run(weft::Descriptor::compute(compute_args(0, m, k, false)));
  EXPECT_EQ(store_rows(0, m), product(a, w, m, k));
  const weft::EccCounts e = dev_->ecc_counts();
  std::printf("[ecc] scratchpad double-bit errors: %u injected (STORE_SPAD in 4 banks, COMPUTE A "
              "and W), %u addresses checked: detected %u, corrected %u\n",
              checked, checked, e.detected, e.corrected);
  EXPECT_EQ(e.detected, checked);
  EXPECT_EQ(e.corrected, 0u);
}

// Double-bit errors in accumulator rows, read by STORE_ACC (drain) and by an accumulating COMPUTE.
TEST_F(Ecc, DoubleBitErrorInAnAccumulatorRowStopsTheQueueWithItsRow) {
  const uint32_t k = dev_->caps().rows, bank = dev_->caps().acc_rows / 2, m = 8;
  const uint32_t d = acc_.data, c = acc_.check;
  const auto a = rand_i8(size_t(m) * k), w = rand_i8(size_t(k) * dev_->caps().cols);
  load_operands(a, w, m, k);
  const auto want = product(a, w, m, k);
  auto& q = dev_->queue();
  dev_->clear_ecc_counts();
  uint32_t checked = 0;
  struct Case {
    uint32_t base, row, b0, b1;
    const char* what;
  };
  const std::vector<Case> cases = {{0, 3, 1, 2, "bank 0, two data bits"},
                                   {bank, bank + 7, 40, d + 1, "bank 1, a data and a check bit"},
                                   {bank, bank, d, d + c - 1, "bank 1, two check bits"}};
  for (const Case& x : cases) {
    run(weft::Descriptor::compute(compute_args(x.base, m, k, false)));
    dev_->inject_mem_error(Memory::kAccumulator, x.row, x.b0);
    dev_->inject_mem_error(Memory::kAccumulator, x.row, x.b1);
    const uint64_t i = q.submit(weft::Descriptor::store_acc(store_args(x.base, m)));
    expect_stop(i, ErrorCode::kEccAcc, x.row, x.what);
    EXPECT_EQ(dev_->ecc_counts().last_detected_mem, Memory::kAccumulator);
    EXPECT_EQ(dev_->ecc_counts().last_detected_addr, x.row);
    ++checked;
    // Computed again, the rows read clean.
    run(weft::Descriptor::compute(compute_args(x.base, m, k, false)));
    EXPECT_EQ(store_rows(x.base, m), want) << x.what;
  }
  // The accumulate read of a COMPUTE (its last row: found as the COMPUTE ends).
  run(weft::Descriptor::compute(compute_args(0, m, k, false)));
  dev_->inject_mem_error(Memory::kAccumulator, m - 1, 0);
  dev_->inject_mem_error(Memory::kAccumulator, m - 1, 100);
  const uint64_t i = q.submit(weft::Descriptor::compute(compute_args(0, m, k, true)));
  expect_stop(i, ErrorCode::kEccAcc, m - 1, "accumulating COMPUTE, last row");
  ++checked;
  run(weft::Descriptor::compute(compute_args(0, m, k, false)));
  EXPECT_EQ(store_rows(0, m), want);
  const weft::EccCounts e = dev_->ecc_counts();
  std::printf("[ecc] accumulator double-bit errors: %u injected (STORE_ACC in both banks, "
              "accumulating COMPUTE), %u addresses checked: detected %u, corrected %u\n",
              checked, checked, e.detected, e.corrected);
  EXPECT_EQ(e.detected, checked);
  EXPECT_EQ(e.corrected, 0u);
}

// Arguments outside the memories are named.
TEST_F(Ecc, InjectionOutsideTheMemoryIsABadArgument) {
  for (auto [m, addr, bit] : {std::tuple{Memory::kScratchpad, dev_->caps().spad_lines, 0u},
                              std::tuple{Memory::kAccumulator, dev_->caps().acc_rows, 0u},
                              std::tuple{Memory::kScratchpad, 0u, spad_.data + spad_.check},
                              std::tuple{Memory::kAccumulator, 0u, acc_.data + acc_.check}}) {
    try {
      dev_->inject_mem_error(m, addr, bit);
      ADD_FAILURE() << "no error for word " << addr << " bit " << bit;
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), Errc::kBadArgument) << e.what();
    }
  }
}

#endif  // WEFT_SIM_ECC_ARRAY

}  // namespace
