// Block tests of weft_uart_bridge inside weft_board (vl_weft_board, tb/board/CMakeLists.txt): the
// frames of docs/host-interfaces.md section 2 go in and out on the serial pins through the
// bit-level UartPhy model; frames are built and parsed with the host's codec (uart_frame.hpp),
// whose CRC the UartCrc16 suite and the codec's own unit tests anchor to the published check
// value. Expectations are independent of the RTL: register values from the doc and
// weft/regs.hpp, memory contents from a shadow copy written by the test, counters from the
// number of frames the test sent or spoiled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "Vvl_weft_board.h"
#include "uart_frame.hpp"
#include "weft/descriptor.hpp"
#include "weft/regs.hpp"
#include "weft/sim/uart_phy.hpp"
#include "weft/tb/harness.hpp"

namespace {

namespace uart = weft::uart;
namespace regs = weft::regs;
using weft::Descriptor;
using weft::Transfer2d;

constexpr unsigned kCpb = WEFT_CLKS_PER_BIT;
constexpr uint32_t kMemBytes = WEFT_MEM_BYTES;
constexpr uint32_t kMem = uart::kMemBase;

class UartBridge : public ::testing::Test {
 protected:
  UartBridge() : phy(h.dut(), kCpb) {
    h.dut().uart_rx_i = 1;
    h.reset();
  }

  // Every byte the bridge sent was well formed on the line.
  void TearDown() override {
    EXPECT_EQ(phy.stats().framing_errors, 0u);
    EXPECT_EQ(phy.stats().glitches, 0u);
  }

  void step() {
    phy.drive();
    h.eval();
    phy.sample();
    h.tick();
  }
  void steps(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) step();
  }
  // Cycles for n bytes on the line, with margin.
  static uint64_t line_cycles(size_t n) { return (n + 4) * 10 * (kCpb + 1) + 2000; }

  // Runs until every queued byte is out and `frames` response frames arrived (or timeout).
  std::vector<uart::Response> collect(size_t frames, uint64_t timeout) {
    std::vector<uart::Response> out;
    for (uint64_t i = 0; i < timeout && out.size() < frames; ++i) {
      step();
      if ((i & 63) == 0 || phy.received_count() > 0) {
        for (uint8_t b : phy.take_received()) {
          if (auto body = deframer.push(b)) {
            auto r = uart::decode_response(*body);
            if (r) out.push_back(*r);
            else ++bad_responses;
          }
        }
      }
    }
    return out;
  }

  // One request, one response (nullopt on timeout).
  std::optional<uart::Response> transact(const uart::Request& r) {
    const auto bytes = uart::encode_request(r);
    phy.send(bytes);
    auto got = collect(1, line_cycles(bytes.size() + 2 * size_t{r.len} + 16));  // escapes: 2x
    if (got.empty()) return std::nullopt;
    return got.front();
  }

  uart::Request read_req(uint32_t addr, uint16_t len) {
    uart::Request r;
    r.cmd = uart::kCmdRead;
    r.seq = seq++;
    r.addr = addr;
    r.len = len;
    return r;
  }
  uart::Request write_req(uint32_t addr, const std::vector<uint8_t>& data) {
    uart::Request r;
    r.cmd = uart::kCmdWrite;
    r.seq = seq++;
    r.addr = addr;
    r.len = static_cast<uint16_t>(data.size());
    r.data = data;
    return r;
  }

  // Checked helpers: status OK, seq and cmd echoed.
  std::vector<uint8_t> read(uint32_t addr, uint16_t len) {
    const auto req = read_req(addr, len);
    auto r = transact(req);
    EXPECT_TRUE(r.has_value()) << "no response to READ 0x" << std::hex << addr;
    if (!r) return {};
    EXPECT_EQ(r->status, uart::kStatusOk) << uart::status_name(r->status) << " at 0x" << std::hex << addr;
    EXPECT_EQ(r->seq, req.seq);
    EXPECT_EQ(r->cmd, uart::kCmdRead);
    EXPECT_EQ(r->data.size(), len);
    return r->data;
  }
  uint32_t read32(uint32_t addr) {
    auto d = read(addr, 4);
    return d.size() == 4 ? uart::get_le32(d.data()) : 0xdeadbeef;
  }
  void write(uint32_t addr, const std::vector<uint8_t>& data) {
    const auto req = write_req(addr, data);
    auto r = transact(req);
    ASSERT_TRUE(r.has_value()) << "no response to WRITE 0x" << std::hex << addr;
    EXPECT_EQ(r->status, uart::kStatusOk) << uart::status_name(r->status) << " at 0x" << std::hex << addr;
    EXPECT_EQ(r->seq, req.seq);
    EXPECT_EQ(r->cmd, uart::kCmdWrite);
    EXPECT_TRUE(r->data.empty());
  }
  void write32(uint32_t addr, uint32_t v) {
    std::vector<uint8_t> d;
    uart::put_le32(d, v);
    write(addr, d);
  }
  uint8_t status_of(const uart::Request& req) {
    auto r = transact(req);
    EXPECT_TRUE(r.has_value());
    if (!r) return 0xff;
    EXPECT_EQ(r->seq, req.seq);
    EXPECT_EQ(r->cmd, req.cmd);
    EXPECT_TRUE(r->data.empty());
    return r->status;
  }

  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  }

  std::mt19937_64 rng = weft::tb::make_rng();
  weft::tb::Harness<Vvl_weft_board> h;
  weft::sim::UartPhy phy;
  uart::Deframer deframer;
  uint8_t seq = 1;
  int bad_responses = 0;
};

using UartBridgeFaults = UartBridge;

TEST_F(UartBridge, ReadsDeviceIdAndBridgeRegisters) {
  EXPECT_EQ(read32(regs::kId), 0x54464557u);  // "WEFT"
  auto d = read(uart::kBrId, 32);
  ASSERT_EQ(d.size(), 32u);
  EXPECT_EQ(uart::get_le32(&d[0]), 0x52425557u);   // BR_ID "WUBR"
  EXPECT_EQ(uart::get_le32(&d[4]), 0x80000000u);   // BR_MEM_BASE
  EXPECT_EQ(uart::get_le32(&d[8]), kMemBytes);     // BR_MEM_BYTES
  EXPECT_EQ(uart::get_le32(&d[12]), 50000000u);    // BR_CLK_HZ
  EXPECT_EQ(uart::get_le32(&d[16]), 2u);           // BR_FRAMES: the ID read and this one
  EXPECT_EQ(uart::get_le32(&d[20]), 0u);           // BR_CRC_ERR
  EXPECT_EQ(uart::get_le32(&d[24]), 0u);           // BR_FRAME_ERR
  EXPECT_EQ(uart::get_le32(&d[28]), 0u);           // BR_DUPS
  EXPECT_EQ(read32(0x1020), 0u);                    // unused bridge offset
  EXPECT_EQ(bad_responses, 0);
}

TEST_F(UartBridge, CsrWriteThenReadBack) {
  write32(regs::kRingBaseLo, 0x80001000u);
  write32(regs::kRingSize, 5);
  EXPECT_EQ(read32(regs::kRingBaseLo), 0x80001000u);
  EXPECT_EQ(read32(regs::kRingSize), 5u);
  // Bridge registers are read only: a write is answered OK and changes nothing.
  write32(uart::kBrId, 0);
  EXPECT_EQ(read32(uart::kBrId), 0x52425557u);
}

TEST_F(UartBridge, MemoryRandomWritesThenReadsMatchShadow) {
  // Work in the first 4 KiB and the last 1 KiB of the memory (both ends of the decoder).
  std::vector<uint8_t> shadow(kMemBytes, 0);
  std::vector<bool> known(kMemBytes, false);
  auto pick = [&](uint16_t len) {
    const bool hi = rng() & 1;
    const uint32_t lo = hi ? kMemBytes - 1024 : 0;
    const uint32_t span = (hi ? 1024 : 4096) - len;
    return lo + 4 * static_cast<uint32_t>(rng() % (span / 4 + 1));
  };
  for (int i = 0; i < 10; ++i) {
    const uint16_t len = static_cast<uint16_t>(4 * (1 + rng() % 64));
    const uint32_t off = pick(len);
    auto data = random_bytes(len);
    write(kMem + off, data);
    for (uint32_t j = 0; j < len; ++j) {
      shadow[off + j] = data[j];
      known[off + j] = true;
    }
  }
  for (int i = 0; i < 10; ++i) {
    const uint16_t len = static_cast<uint16_t>(4 * (1 + rng() % 64));
    const uint32_t off = pick(len);
    auto d = read(kMem + off, len);
    ASSERT_EQ(d.size(), len);
    for (uint32_t j = 0; j < len; ++j) {
      if (known[off + j]) ASSERT_EQ(d[j], shadow[off + j]) << "offset 0x" << std::hex << off + j;
    }
  }
}

TEST_F(UartBridge, EscapedBytesInDataSeqAndAddress) {
  // Data full of flag and escape bytes, seq 0x7E / 0x7D, an address with 0x7E / 0x7D bytes.
  std::vector<uint8_t> data(256);
  for (size_t i = 0; i < data.size(); ++i) data[i] = (i % 3 == 0) ? 0x7E : (i % 3 == 1) ? 0x7D : uint8_t(i);
  seq = 0x7E;
  write(kMem + 0x7E7C, data);
  seq = 0x7D;
  EXPECT_EQ(read(kMem + 0x7E7C, 256), data);
  write32(kMem + 0x7D00, 0x7D7E7E7Du);
  EXPECT_EQ(read32(kMem + 0x7D00), 0x7D7E7E7Du);
}

TEST_F(UartBridge, StatusCodesForBadRequests) {
  auto rd = [&](uint32_t a, uint16_t l) { return status_of(read_req(a, l)); };
  // DECERR: nothing there, past the end, straddling ends of regions.
  EXPECT_EQ(rd(0x2000, 4), uart::kStatusDecErr);
  EXPECT_EQ(rd(0x7FFFFFFC, 4), uart::kStatusDecErr);
  EXPECT_EQ(rd(kMem + kMemBytes, 4), uart::kStatusDecErr);
  EXPECT_EQ(rd(kMem + kMemBytes - 4, 8), uart::kStatusDecErr);
  EXPECT_EQ(rd(0x10FC, 8), uart::kStatusDecErr);
  EXPECT_EQ(status_of(write_req(0xC0000000u, random_bytes(16))), uart::kStatusDecErr);
  // BADLEN: len 0 / 3 / 260 / 258, unaligned address, CSR access of 8 bytes.
  EXPECT_EQ(rd(kMem, 0), uart::kStatusBadLen);
  EXPECT_EQ(rd(kMem, 3), uart::kStatusBadLen);
  EXPECT_EQ(rd(kMem, 260), uart::kStatusBadLen);
  EXPECT_EQ(status_of(write_req(kMem, random_bytes(258))), uart::kStatusBadLen);
  EXPECT_EQ(rd(kMem + 2, 4), uart::kStatusBadLen);
  EXPECT_EQ(rd(regs::kId, 8), uart::kStatusBadLen);
  // BADCMD: an unknown command (a header without data).
  uart::Request bad = read_req(kMem, 4);
  bad.cmd = 0x03;
  EXPECT_EQ(status_of(bad), uart::kStatusBadCmd);
  // SLVERR: weft_csr answers SLVERR for an offset that is no register.
  EXPECT_EQ(rd(0xFFC, 4), uart::kStatusSlvErr);
  // Every one of them was answered, none counted as a bad frame.
  EXPECT_EQ(read32(uart::kBrCrcErr), 0u);
  EXPECT_EQ(read32(uart::kBrFrameErr), 0u);
}

TEST_F(UartBridge, BackToBackFramesAllAnswered) {
  // Eight requests sent without gaps (one stream of bytes, each frame with its own flags, the
  // last two sharing one flag); the answers come in order.
  std::vector<uart::Request> reqs;
  std::vector<uint8_t> stream;
  for (int i = 0; i < 6; ++i) {
    reqs.push_back(write_req(kMem + 0x100 + 64 * i, random_bytes(64)));
    auto f = uart::encode_request(reqs.back());
    stream.insert(stream.end(), f.begin(), f.end());
  }
  reqs.push_back(read_req(kMem + 0x100, 64));
  auto f = uart::encode_request(reqs.back());
  stream.insert(stream.end(), f.begin(), f.end() - 1);  // closing flag shared with the next
  reqs.push_back(read_req(kMem + 0x140, 64));
  f = uart::encode_request(reqs.back());
  stream.insert(stream.end(), f.begin(), f.end());
  phy.send(stream);
  auto got = collect(reqs.size(), line_cycles(stream.size() + 200));
  ASSERT_EQ(got.size(), reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(got[i].status, uart::kStatusOk) << i;
    EXPECT_EQ(got[i].seq, reqs[i].seq) << i;
    EXPECT_EQ(got[i].cmd, reqs[i].cmd) << i;
  }
  EXPECT_EQ(got[6].data, reqs[0].data);
  EXPECT_EQ(got[7].data, reqs[1].data);
}

TEST_F(UartBridge, IdleLineBetweenBytesIsHarmless) {
  phy.set_idle_bits(3);  // three bit times of idle line after every byte
  auto data = random_bytes(64);
  write(kMem + 0x600, data);
  EXPECT_EQ(read(kMem + 0x600, 64), data);
  phy.set_idle_bits(0);
  EXPECT_EQ(read(kMem + 0x600, 64), data);
}

// CTRL.perf_clear restarts PERF_CYCLES: if the retransmitted CTRL write were executed, the
// counter read afterwards would count only from the retransmission.
TEST_F(UartBridge, RetransmittedWriteIsNotExecutedAgain) {
  constexpr uint64_t kGap = 20000;
  auto w = write_req(regs::kCtrl, {0x04, 0, 0, 0});  // perf_clear
  auto r1 = transact(w);
  ASSERT_TRUE(r1.has_value());
  EXPECT_EQ(r1->status, uart::kStatusOk);
  steps(kGap);
  auto r2 = transact(w);  // same seq: a retransmission
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(r2->status, uart::kStatusOk);
  EXPECT_EQ(r2->seq, w.seq);
  EXPECT_GT(read32(regs::kPerfCyclesLo), kGap);  // not cleared again
  EXPECT_EQ(read32(uart::kBrDups), 1u);
  // BR_FRAMES: the write, the PERF read, the BR_DUPS read and this read; not the duplicate.
  EXPECT_EQ(read32(uart::kBrFrames), 4u);
  // A retransmitted READ is executed again (and is no duplicate).
  auto r = read_req(uart::kBrFrames, 4);
  auto a = transact(r), b = transact(r);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(uart::get_le32(a->data.data()) + 1, uart::get_le32(b->data.data()));
  EXPECT_EQ(read32(uart::kBrDups), 1u);
  // A new request with the next seq is executed: perf_clear now takes effect.
  write(regs::kCtrl, {0x04, 0, 0, 0});
  EXPECT_LT(read32(regs::kPerfCyclesLo), kGap);
}

TEST_F(UartBridge, EndToEndLoadStoreSpadRoundTrip) {
  // Descriptors in board memory through WRITE frames, doorbell through a CSR WRITE frame,
  // 4 rows of 64 bytes copied through the scratchpad with a different stride.
  const uint32_t ring = kMem + 0x1000, cpl = kMem + 0x1800, src = kMem + 0x2000, dst = kMem + 0x4000;
  std::vector<uint8_t> img(4 * 64);
  for (auto& b : img) b = static_cast<uint8_t>(rng());
  for (int r = 0; r < 4; ++r)
    write(src + 128 * r, std::vector<uint8_t>(img.begin() + 64 * r, img.begin() + 64 * (r + 1)));
  write32(regs::kWinBaseLo[0], kMem);
  write32(regs::kWinBaseHi[0], 0);
  write32(regs::kWinLimitLo[0], kMem + kMemBytes);
  write32(regs::kWinLimitHi[0], 0);
  write32(regs::kWinCtrl[0], 3);
  write32(regs::kRingBaseLo, ring);
  write32(regs::kRingBaseHi, 0);
  write32(regs::kRingSize, 4);
  write32(regs::kCplAddrLo, cpl);
  write32(regs::kCplAddrHi, 0);
  write32(regs::kCtrl, 1);
  Transfer2d ld{src, 64, 4, 128, 16, 4};
  Transfer2d st{dst, 64, 4, 64, 16, 4};
  Descriptor d0 = Descriptor::load(ld).with_seq(0);
  Descriptor d1 = Descriptor::store_spad(st).with_seq(1).with_dep(0, 1);
  std::vector<uint8_t> bytes;
  for (uint32_t x : d0.w) uart::put_le32(bytes, x);
  for (uint32_t x : d1.w) uart::put_le32(bytes, x);
  write(ring, bytes);
  write32(regs::kRingTail, 2);
  bool done = false;
  for (int i = 0; i < 50 && !done; ++i) done = read32(regs::kCompleted) >= 2;
  ASSERT_TRUE(done) << "STATUS=" << read32(regs::kStatus) << " ERR=" << read32(regs::kErrCode);
  EXPECT_EQ(read32(regs::kErrCode), 0u);
  EXPECT_EQ(read(dst, 256), img);
  EXPECT_EQ(read32(cpl), 2u);  // completion record: completed count
}

// ---------------------------------------------------------------- faults on the line

// Sends a spoiled frame, then checks that a good request still works and the right counter moved.
TEST_F(UartBridgeFaults, FlippedDroppedDuplicatedBytesAreDiscarded) {
  const uint32_t a = kMem + 0x800;
  write32(a, 0x01020304u);
  uint32_t crc_err = 0, frame_err = 0;
  for (int trial = 0; trial < 12; ++trial) {
    auto req = write_req(a, random_bytes(16));
    auto f = uart::encode_request(req);
    const int kind = trial % 3;
    // A position inside the body (not a flag); avoid escape pairs so the spoil is a plain byte.
    size_t pos = 1 + rng() % (f.size() - 2);
    while (f[pos] == uart::kEsc || f[pos - 1] == uart::kEsc) pos = 1 + rng() % (f.size() - 2);
    if (kind == 0) {
      uint8_t x = f[pos] ^ static_cast<uint8_t>(1u << (rng() % 8));
      if (x == uart::kFlag || x == uart::kEsc) x = f[pos] ^ 0x01;
      if (x == uart::kFlag || x == uart::kEsc) x = f[pos] ^ 0x80;
      f[pos] = x;
    } else if (kind == 1) {
      f.erase(f.begin() + static_cast<long>(pos));
    } else {
      f.insert(f.begin() + static_cast<long>(pos), f[pos]);
    }
    phy.send(f);
    auto got = collect(1, line_cycles(f.size()));
    EXPECT_TRUE(got.empty()) << "spoiled frame (kind " << kind << ") was answered";
    // The bridge must not have written: memory unchanged.
    EXPECT_EQ(read32(a), 0x01020304u) << "kind " << kind;
    const uint32_t c = read32(uart::kBrCrcErr), fe = read32(uart::kBrFrameErr);
    EXPECT_EQ((c - crc_err) + (fe - frame_err), 1u) << "kind " << kind;
    crc_err = c;
    frame_err = fe;
  }
  EXPECT_EQ(h.dut().led_o & 0x40, 0x40);  // LED 6: a bad frame was seen
}

TEST_F(UartBridgeFaults, FramingErrorOnTheLineDropsTheFrame) {
  const uint32_t a = kMem + 0x900;
  write32(a, 0xCAFEF00Du);
  auto req = write_req(a, {1, 1, 1, 1});
  auto f = uart::encode_request(req);
  // Send the frame with one body byte whose stop bit is 0.
  const size_t pos = 5;
  for (size_t i = 0; i < f.size(); ++i) {
    if (i == pos) phy.send_bad_stop(f[i]);
    else phy.send(f[i]);
  }
  auto got = collect(1, line_cycles(f.size()));
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(read32(a), 0xCAFEF00Du);
  EXPECT_EQ(read32(uart::kBrFrameErr), 1u);
  // The same request again (new seq) works.
  write32(a, 0x12345678u);
  EXPECT_EQ(read32(a), 0x12345678u);
}

TEST_F(UartBridgeFaults, LostResponseThenRetransmissionGetsStoredStatus) {
  // The host retransmits a WRITE (same seq), as after a lost response: the second copy is
  // answered with the first one's status and BR_DUPS counts it.
  const uint32_t a = kMem + 0xA00;
  auto w = write_req(a, {4, 3, 2, 1});
  auto r1 = transact(w);
  auto r2 = transact(w);
  ASSERT_TRUE(r1 && r2);
  EXPECT_EQ(r1->status, uart::kStatusOk);
  EXPECT_EQ(r2->status, uart::kStatusOk);
  // A duplicate of a write that failed repeats its failure status.
  auto bad = write_req(0x3000, {0, 0, 0, 0});
  auto b1 = transact(bad), b2 = transact(bad);
  ASSERT_TRUE(b1 && b2);
  EXPECT_EQ(b1->status, uart::kStatusDecErr);
  EXPECT_EQ(b2->status, uart::kStatusDecErr);
  EXPECT_EQ(read32(uart::kBrDups), 2u);
  EXPECT_EQ(read32(a), 0x01020304u);
}

// A host that retransmits on a missing response, over a line that spoils requests (a flipped,
// dropped or duplicated byte) and loses responses: memory ends exactly as the writes say, every
// request is answered with its own seq, and the bridge's counters match the faults injected.
TEST_F(UartBridgeFaults, RandomFaultsWithRetransmissionKeepMemoryExact) {
  constexpr uint32_t kSpan = 2048;
  std::vector<uint8_t> shadow(kSpan, 0);
  write(kMem, std::vector<uint8_t>(256, 0));
  for (uint32_t o = 256; o < kSpan; o += 256) write(kMem + o, std::vector<uint8_t>(256, 0));
  const uint32_t frames0 = read32(uart::kBrFrames);
  uint32_t spoiled = 0, dups = 0, executed = 0;
  auto spoil = [&](std::vector<uint8_t>& f) {
    size_t pos = 1 + rng() % (f.size() - 2);
    while (f[pos] == uart::kEsc || f[pos - 1] == uart::kEsc) pos = 1 + rng() % (f.size() - 2);
    switch (rng() % 3) {
      case 0: {
        uint8_t x = f[pos] ^ 0x10;
        if (x == uart::kFlag || x == uart::kEsc) x = f[pos] ^ 0x01;
        f[pos] = x;
        break;
      }
      case 1: f.erase(f.begin() + static_cast<long>(pos)); break;
      default: f.insert(f.begin() + static_cast<long>(pos), f[pos]); break;
    }
  };
  for (int i = 0; i < 30; ++i) {
    const bool is_write = rng() % 3 != 0;
    const uint16_t len = static_cast<uint16_t>(4 * (1 + rng() % 32));
    const uint32_t off = 4 * static_cast<uint32_t>(rng() % ((kSpan - len) / 4 + 1));
    const auto req = is_write ? write_req(kMem + off, random_bytes(len)) : read_req(kMem + off, len);
    bool answered = false, intact_before = false;
    for (int attempt = 0; attempt < 20 && !answered; ++attempt) {
      auto f = uart::encode_request(req);
      const bool spoil_req = (rng() % 100) < 30;
      const bool lose_resp = (rng() % 100) < 20;
      if (spoil_req) {
        spoil(f);
        ++spoiled;
      } else {
        if (intact_before && is_write) ++dups;
        if (!intact_before || !is_write) ++executed;
        intact_before = true;
      }
      phy.send(f);
      auto got = collect(1, line_cycles(f.size() + 2 * size_t{len} + 16));
      if (spoil_req) {
        EXPECT_TRUE(got.empty()) << "a spoiled request was answered";
        continue;
      }
      ASSERT_EQ(got.size(), 1u) << "request " << i << " attempt " << attempt;
      EXPECT_EQ(got[0].seq, req.seq);
      EXPECT_EQ(got[0].status, uart::kStatusOk);
      if (lose_resp) continue;  // the host never saw it: retransmit
      answered = true;
      if (is_write) {
        std::copy(req.data.begin(), req.data.end(), shadow.begin() + off);
      } else {
        ASSERT_EQ(got[0].data.size(), len);
        for (uint32_t j = 0; j < len; ++j) ASSERT_EQ(got[0].data[j], shadow[off + j]) << off + j;
      }
    }
    ASSERT_TRUE(answered) << "request " << i << " never answered";
  }
  for (uint32_t o = 0; o < kSpan; o += 256) {
    auto d = read(kMem + o, 256);
    ASSERT_TRUE(std::equal(d.begin(), d.end(), shadow.begin() + o)) << "block 0x" << std::hex << o;
  }
  const uint32_t crc = read32(uart::kBrCrcErr), fe = read32(uart::kBrFrameErr);
  EXPECT_EQ(crc + fe, spoiled);
  EXPECT_EQ(read32(uart::kBrDups), dups);
  // executed requests, the 8 block reads and the 4 counter reads (the BR_FRAMES read counts itself)
  EXPECT_EQ(read32(uart::kBrFrames) - frames0, executed + 8 + 4);
  weft::tb::verbose_printf(
      "[uart] %u spoiled requests (%u CRC, %u framing), %u duplicates, %u executed\n", spoiled, crc,
      fe, dups, executed);
}

}  // namespace
