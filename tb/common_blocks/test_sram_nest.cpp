// Back door to SRAMs nested in generate blocks, both SRAM kinds in one model
// (tb_common_sram_nest): scope naming rule, per-instance dispatch of the shared DPI exports.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Vvl_sram_nest.h"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace {

using H = weft::tb::Harness<Vvl_sram_nest>;
const std::string kTop = "top.tb_common_sram_nest.";

// The harness randomises every variable at construction (randReset(2)), top-level inputs
// included: park all front-door inputs first.
void park(H& h) {
  auto& d = h.dut();
  d.bank_req_i = 0;
  d.bank_we_i = 0;
  d.bank_addr_i = 0;
  d.bank_wdata_i = 0;
  d.bank_be_i = 0;
  d.dp_rd_en_i = 0;
  d.dp_rd_addr_i = 0;
  d.dp_wr_en_i = 0;
  d.dp_wr_addr_i = 0;
  for (int i = 0; i < 4; ++i) d.dp_wr_data_i[i] = 0;
  d.dp_wr_be_i = 0;
  h.eval();
}

uint32_t bank_read(H& h, int bank, uint32_t addr) {
  h.dut().bank_req_i = 1u << bank;
  h.dut().bank_we_i = 0;
  h.dut().bank_addr_i = addr;
  h.tick();
  h.dut().bank_req_i = 0;
  return static_cast<uint32_t>(weft::tb::get_bits(h.dut().bank_rdata_o, 32 * bank, 32));
}

std::vector<uint32_t> dp_read(H& h, uint32_t addr) {
  h.dut().dp_rd_en_i = 1;
  h.dut().dp_rd_addr_i = addr;
  h.tick();
  h.dut().dp_rd_en_i = 0;
  std::vector<uint32_t> w(4);
  for (int i = 0; i < 4; ++i) w[i] = h.dut().dp_rd_data_o[i];
  return w;
}

TEST(SramNest, BackdoorReachesSramsInsideGenerateBlocks) {
  H h;
  park(h);
  weft::tb::SramBackdoor b0(h.ctx(), kTop + "g_bank[0].u_sram");
  weft::tb::SramBackdoor b1(h.ctx(), kTop + "g_bank[1].u_sram");
  weft::tb::SramBackdoor dp(h.ctx(), kTop + "g_dp.g_port[0].u_sram");
  EXPECT_EQ(b0.depth(), 64u);
  EXPECT_EQ(b0.width(), 32u);
  EXPECT_EQ(b1.depth(), 64u);
  EXPECT_EQ(dp.depth(), 32u);
  EXPECT_EQ(dp.width(), 128u);
  EXPECT_EQ(dp.chunks(), 4u);
}

TEST(SramNest, BothSramKindsKeepSeparateContentsThroughSharedExports) {
  H h;
  park(h);
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor b0(h.ctx(), kTop + "g_bank[0].u_sram");
  weft::tb::SramBackdoor b1(h.ctx(), kTop + "g_bank[1].u_sram");
  weft::tb::SramBackdoor dp(h.ctx(), kTop + "g_dp.g_port[0].u_sram");
  std::vector<uint32_t> r0(64), r1(64);
  std::vector<std::vector<uint32_t>> rd(32);
  for (uint32_t a = 0; a < 64; ++a) {
    r0[a] = static_cast<uint32_t>(rng());
    r1[a] = static_cast<uint32_t>(rng());
    b0.write(a, {r0[a]});
    b1.write(a, {r1[a]});
  }
  for (uint32_t a = 0; a < 32; ++a) {
    rd[a] = {static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
             static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())};
    dp.write(a, rd[a]);
  }
  for (uint32_t a = 0; a < 64; ++a) {
    ASSERT_EQ(bank_read(h, 0, a), r0[a]) << "bank 0 address " << a;
    ASSERT_EQ(bank_read(h, 1, a), r1[a]) << "bank 1 address " << a;
  }
  for (uint32_t a = 0; a < 32; ++a) ASSERT_EQ(dp_read(h, a), rd[a]) << "dp address " << a;

  // A front-door write to bank 1 shows in bank 1's back door only.
  h.dut().bank_req_i = 2;
  h.dut().bank_we_i = 1;
  h.dut().bank_addr_i = 9;
  h.dut().bank_wdata_i = 0xcafef00d;
  h.dut().bank_be_i = 0xf;
  h.tick();
  h.dut().bank_req_i = 0;
  EXPECT_EQ(b1.read(9)[0], 0xcafef00du);
  EXPECT_EQ(b0.read(9)[0], r0[9]);
  EXPECT_EQ(dp.read(9), rd[9]);
}

TEST(SramNest, ScopeNamesFollowTheDocumentedRule) {
  H h;
  for (const std::string bad : {"g_bank__BRA__1__KET__.u_sram", "g_bank[2].u_sram",
                                "g_dp.u_sram", "g_dp.g_port.u_sram", "g_bank[1]", "u_sram"}) {
    EXPECT_THROW(weft::tb::SramBackdoor(h.ctx(), kTop + bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(weft::tb::SramBackdoor(h.ctx(), "TOP.tb_common_sram_nest.g_bank[1].u_sram"),
               std::invalid_argument);
  EXPECT_THROW(weft::tb::SramBackdoor(h.ctx(), "top.Vvl_sram_nest.g_bank[1].u_sram"),
               std::invalid_argument);
  EXPECT_NO_THROW(weft::tb::SramBackdoor(h.ctx(), kTop + "g_bank[1].u_sram"));
}

TEST(SramNest, BackdoorUsesTheGivenContextWhenTwoModelsExist) {
  auto h1 = std::make_unique<H>();
  auto h2 = std::make_unique<H>();  // constructed last: now the thread's current context
  park(*h1);
  park(*h2);
  weft::tb::SramBackdoor a(h1->ctx(), kTop + "g_bank[0].u_sram");
  weft::tb::SramBackdoor b(h2->ctx(), kTop + "g_bank[0].u_sram");
  a.write(1, {0x11111111});
  b.write(1, {0x22222222});
  EXPECT_EQ(bank_read(*h1, 0, 1), 0x11111111u);
  EXPECT_EQ(bank_read(*h2, 0, 1), 0x22222222u);
  // Verilator 5.006 unregisters a model's DPI scopes from the thread's current context, not from
  // the model's own: destroying h1's model while h2's (already freed) context is current hangs.
  // Select each context before its harness goes.
  Verilated::threadContextp(&h2->ctx());
  h2.reset();
  Verilated::threadContextp(&h1->ctx());
  h1.reset();
}

}  // namespace
