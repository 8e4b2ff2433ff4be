// Block test of weft_uart_crc16 (one byte step of CRC-16/CCITT-FALSE) against the published
// check value of the algorithm (CRC of ASCII "123456789" = 0x29B1, init 0xFFFF) and against a
// bitwise reference written here from the definition (poly 0x1021, MSB first, no reflection).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "Vvl_uart_crc16.h"
#include "weft/tb/options.hpp"
#include <verilated.h>

namespace {

struct Crc {
  VerilatedContext ctx;
  Vvl_uart_crc16 dut{&ctx, "top"};
  uint16_t step(uint16_t crc, uint8_t b) {
    dut.crc_i = crc;
    dut.data_i = b;
    dut.eval();
    return static_cast<uint16_t>(dut.crc_o);
  }
};

// Bit-serial definition: shift each message bit (MSB first) into the register.
uint16_t ref_step(uint16_t crc, uint8_t b) {
  for (int i = 7; i >= 0; --i) {
    const bool fb = ((crc >> 15) & 1) ^ ((b >> i) & 1);
    crc = static_cast<uint16_t>(crc << 1);
    if (fb) crc ^= 0x1021;
  }
  return crc;
}

TEST(UartCrc16, CheckValueOf123456789Is29B1) {
  Crc c;
  uint16_t crc = 0xFFFF;
  for (char ch : std::string("123456789")) crc = c.step(crc, static_cast<uint8_t>(ch));
  EXPECT_EQ(crc, 0x29B1);
}

TEST(UartCrc16, BodyFollowedByItsCrcLeavesZero) {
  Crc c;
  uint16_t crc = 0xFFFF;
  for (char ch : std::string("123456789")) crc = c.step(crc, static_cast<uint8_t>(ch));
  uint16_t r = c.step(crc, static_cast<uint8_t>(crc >> 8));
  r = c.step(r, static_cast<uint8_t>(crc & 0xFF));
  EXPECT_EQ(r, 0);
}

TEST(UartCrc16, RandomStepsMatchBitSerialDefinition) {
  auto rng = weft::tb::make_rng();
  Crc c;
  for (int i = 0; i < 20000; ++i) {
    const auto crc = static_cast<uint16_t>(rng());
    const auto b = static_cast<uint8_t>(rng());
    ASSERT_EQ(c.step(crc, b), ref_step(crc, b)) << "crc=" << crc << " byte=" << int(b);
  }
}

}  // namespace
