// Unit tests of the UART frame codec (sw/driver/src/uart_frame.hpp, docs/host-interfaces.md 2.2).
// Expectations: published CRC-16/CCITT-FALSE catalogue values and values computed by an
// independent implementation (Python binascii.crc_hqx with init 0xFFFF); hand-built frames.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "uart_frame.hpp"
#include "weft/tb/options.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;
namespace u = weft::uart;

Bytes str(const std::string& s) { return Bytes(s.begin(), s.end()); }

TEST(UartFrame, CrcMatchesPublishedCheckValue) {
  EXPECT_EQ(u::crc16(str("123456789")), 0x29B1);  // the catalogue's check value
}

TEST(UartFrame, CrcMatchesIndependentValues) {
  EXPECT_EQ(u::crc16(Bytes{}), 0xFFFF);
  EXPECT_EQ(u::crc16(str("A")), 0xB915);
  Bytes ramp(256);
  for (int i = 0; i < 256; ++i) ramp[i] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(u::crc16(ramp), 0x3FBD);
  Bytes flags;
  for (int i = 0; i < 8; ++i) flags.insert(flags.end(), {0x7E, 0x7D});
  EXPECT_EQ(u::crc16(flags), 0x538B);
  EXPECT_EQ(u::crc16(Bytes{0, 0, 0, 0}), 0x84C0);
}

TEST(UartFrame, EscapesFlagAndEscapeBytes) {
  const Bytes body{0x01, 0x7E, 0x02, 0x7D, 0x7E};
  const Bytes want{0x7E, 0x01, 0x7D, 0x5E, 0x02, 0x7D, 0x5D, 0x7D, 0x5E, 0x7E};
  EXPECT_EQ(u::frame(body), want);
}

TEST(UartFrame, RequestEncodingMatchesHandBuiltBytes) {
  u::Request r{u::kCmdWrite, 0x05, 0x80000010u, 4, {0xAA, 0xBB, 0xCC, 0xDD}};
  Bytes body{0x02, 0x05, 0x10, 0x00, 0x00, 0x80, 0x04, 0x00, 0xAA, 0xBB, 0xCC, 0xDD};
  const std::uint16_t c = u::crc16(body);
  body.push_back(static_cast<std::uint8_t>(c >> 8));
  body.push_back(static_cast<std::uint8_t>(c & 0xFF));
  EXPECT_EQ(u::encode_request_body(r), body);
}

TEST(UartFrame, RandomBodiesRichInFlagsRoundTrip) {
  auto rng = weft::tb::make_rng();
  u::Deframer d(400);
  for (int iter = 0; iter < 2000; ++iter) {
    const std::size_t n = 1 + rng() % 300;
    Bytes body(n);
    for (auto& b : body) {
      const unsigned k = rng() % 4;
      b = k == 0 ? 0x7E : k == 1 ? 0x7D : static_cast<std::uint8_t>(rng());
    }
    const Bytes f = u::frame(body);
    // No flag inside the escaped body.
    for (std::size_t i = 1; i + 1 < f.size(); ++i) ASSERT_NE(f[i], 0x7E);
    std::optional<Bytes> got;
    for (auto b : f) {
      auto r = d.push(b);
      if (r) {
        ASSERT_FALSE(got.has_value());
        got = std::move(r);
      }
    }
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(*got, body);
  }
}

TEST(UartFrame, RequestAndResponseRoundTrip) {
  auto rng = weft::tb::make_rng();
  for (int iter = 0; iter < 500; ++iter) {
    u::Request q;
    q.cmd = rng() % 2 ? u::kCmdWrite : u::kCmdRead;
    q.seq = static_cast<std::uint8_t>(rng());
    q.addr = static_cast<std::uint32_t>(rng()) & ~3u;
    q.len = static_cast<std::uint16_t>(4 * (1 + rng() % 64));
    if (q.cmd == u::kCmdWrite) {
      q.data.resize(q.len);
      for (auto& b : q.data) b = rng() % 3 == 0 ? 0x7E : static_cast<std::uint8_t>(rng());
    }
    u::Deframer d;
    std::optional<Bytes> body;
    for (auto b : u::encode_request(q))
      if (auto r = d.push(b)) body = std::move(r);
    ASSERT_TRUE(body);
    auto got = u::decode_request(*body);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->cmd, q.cmd);
    EXPECT_EQ(got->seq, q.seq);
    EXPECT_EQ(got->addr, q.addr);
    EXPECT_EQ(got->len, q.len);
    EXPECT_EQ(got->data, q.data);

    u::Response p{static_cast<std::uint8_t>(rng() % 5), q.seq, q.cmd, {}};
    if (q.cmd == u::kCmdRead && p.status == u::kStatusOk) {
      p.data.resize(q.len);
      for (auto& b : p.data) b = static_cast<std::uint8_t>(rng());
    }
    body.reset();
    for (auto b : u::encode_response(p))
      if (auto r = d.push(b)) body = std::move(r);
    ASSERT_TRUE(body);
    auto rp = u::decode_response(*body);
    ASSERT_TRUE(rp);
    EXPECT_EQ(rp->status, p.status);
    EXPECT_EQ(rp->seq, p.seq);
    EXPECT_EQ(rp->cmd, p.cmd);
    EXPECT_EQ(rp->data, p.data);
  }
}

TEST(UartFrame, CorruptedBodiesAreRejected) {
  auto rng = weft::tb::make_rng();
  u::Request q{u::kCmdWrite, 7, 0x80000000u, 16, Bytes(16, 0x5A)};
  const Bytes good = u::encode_request_body(q);
  ASSERT_TRUE(u::decode_request(good));
  for (int iter = 0; iter < 200; ++iter) {
    Bytes bad = good;
    bad[rng() % bad.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    u::DecodeError why;
    EXPECT_FALSE(u::decode_request(bad, &why));
    EXPECT_EQ(why, u::DecodeError::kCrc);  // one flipped bit is always caught by a CRC-16
  }
  // A well-formed CRC over the wrong byte count is a length error.
  Bytes shortw(good.begin(), good.begin() + 8 + 12);
  u::append_crc(shortw);
  u::DecodeError why;
  EXPECT_FALSE(u::decode_request(shortw, &why));
  EXPECT_EQ(why, u::DecodeError::kLength);
  Bytes resp = u::encode_response_body({u::kStatusOk, 1, u::kCmdRead, {1, 2, 3, 4}});
  resp[4] ^= 0x10;
  EXPECT_FALSE(u::decode_response(resp));
}

TEST(UartFrame, DeframerResynchronisesAfterGarbage) {
  auto rng = weft::tb::make_rng();
  u::Deframer d;
  int found = 0;
  for (int iter = 0; iter < 300; ++iter) {
    // Garbage (possibly with flags and dangling escapes), then a good frame.
    Bytes garbage(rng() % 40);
    for (auto& b : garbage) {
      const unsigned k = rng() % 5;
      b = k == 0 ? 0x7E : k == 1 ? 0x7D : static_cast<std::uint8_t>(rng());
    }
    u::Response p{u::kStatusOk, static_cast<std::uint8_t>(iter), u::kCmdRead, Bytes(8, 0x7E)};
    const Bytes f = u::encode_response(p);
    for (auto b : garbage) {
      auto r = d.push(b);
      // Whatever garbage yields must fail the CRC check (or be too short).
      if (r) (void)u::decode_response(*r);
    }
    std::optional<u::Response> got;
    for (auto b : f)
      if (auto r = d.push(b))
        if (auto rp = u::decode_response(*r)) got = rp;
    ASSERT_TRUE(got) << "iteration " << iter;
    EXPECT_EQ(got->seq, p.seq);
    EXPECT_EQ(got->data, p.data);
    ++found;
  }
  EXPECT_EQ(found, 300);
}

TEST(UartFrame, DeframerDropsBadEscapeAndOversizedFrames) {
  u::Deframer d(16);
  for (auto b : Bytes{0x7E, 0x01, 0x7D, 0x11, 0x02, 0x7E}) EXPECT_FALSE(d.push(b));
  EXPECT_EQ(d.bad_frames(), 1u);
  for (auto b : Bytes{0x01, 0x7D, 0x7E}) EXPECT_FALSE(d.push(b));  // escape then flag
  EXPECT_EQ(d.bad_frames(), 2u);
  Bytes big(40, 0x11);
  for (auto b : big) EXPECT_FALSE(d.push(b));
  EXPECT_FALSE(d.push(0x7E));
  EXPECT_EQ(d.bad_frames(), 3u);
  // Empty frames are ignored; the next good one comes through.
  EXPECT_FALSE(d.push(0x7E));
  for (auto b : Bytes{0x01, 0x02}) EXPECT_FALSE(d.push(b));
  auto r = d.push(0x7E);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (Bytes{0x01, 0x02}));
}

}  // namespace
