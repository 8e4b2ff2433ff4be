// Block tests of the SIMT core inside weft_top, driven through the registers and the ring like the
// other tb/top tests: kernel code LOADed into the SIMT instruction memory region, data LOADed into
// the SIMT data memory region, SIMT_LAUNCH, results back by STORE_SPAD
// (docs/programming-model.md). Expectations: the golden model weft::golden::simt on the same
// program and data (memory, issue counts), values worked out here, and the error rules of the
// programming model.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include WEFT_MODEL_HEADER
#include "top_env.hpp"
#include "weft/descriptor.hpp"
#include "weft/golden/simt.hpp"
#include "weft/regs.hpp"

namespace {

using Model = WEFT_MODEL;
using Env = weft::tb::TopEnv<Model>;
using weft::Descriptor;
using weft::ErrorCode;
using weft::SimtLaunch;
using weft::Transfer2d;
namespace gs = weft::golden::simt;
namespace rv = weft::golden::simt::rv;
namespace regs = weft::regs;
namespace sim = weft::sim;
using namespace weft::tb;
using namespace rv;  // register names, encoders

constexpr uint64_t kWinBase = 0x1000'0000;
constexpr uint64_t kWinLimit = 0x1100'0000;
constexpr uint64_t kRing = 0x1000'0000;
constexpr uint64_t kCpl = 0x1000'2000;
constexpr uint64_t kCode = 0x1010'0000;
constexpr uint64_t kInput = 0x1020'0000;
constexpr uint64_t kDst = 0x1080'0000;
constexpr uint32_t kIn = 0x100;    // data memory: one input word per thread
constexpr uint32_t kOut = 0x400;   // one output word per thread
constexpr uint32_t kBB = 16;

uint32_t pad16(uint32_t n) { return (n + 15) / 16 * 16; }

// out[t] = (in[t] odd ? in[t]^2 : in[t] - 7) + t; exit code t. The branch diverges on the data.
std::vector<uint32_t> divergent_kernel() {
  Program p;
  p << csrr(a4, gs::kCsrThreadId) << slli(t0, a4, 2) << li(s0, kIn) << add(s0, s0, t0)
    << lw(a2, s0, 0) << andi(t1, a2, 1);
  p.branch(beq, t1, zero, "even");
  p << mul(a3, a2, a2);
  p.jal(zero, "join");
  p.label("even");
  p << addi(a3, a2, -7);
  p.label("join");
  p << add(a3, a3, a4) << li(s1, kOut) << add(s1, s1, t0) << sw(a3, s1, 0) << addi(a0, a4, 0)
    << addi(a7, zero, 93) << ecall();
  return p.words();
}

// Thread `bad` executes an all-zero word (illegal); the others exit.
std::vector<uint32_t> faulting_kernel(uint32_t bad) {
  Program p;
  p << csrr(a4, gs::kCsrThreadId) << li(t0, bad);
  p.branch(bne, a4, t0, "ok");
  p << 0u;
  p.label("ok");
  p << addi(a7, zero, 93) << ecall();
  return p.words();
}

class WEFT_SIMT_SUITE : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::AxiMemOptions mo;
    mo.seed = rng();
    sim::AxilOptions lo;
    lo.seed = rng();
    env = std::make_unique<Env>(mo, lo);
    env->mem.set_default_byte(0xcd);
    env->set_window(0, kWinBase, kWinLimit, true, true);
    env->setup_ring(kRing, 6, kCpl);
    const uint32_t cap3 = env->rd(regs::kCap3);
    warps = cap3 & 0xff;
    threads = (cap3 >> 8) & 0xff;
    dmem_bytes = (cap3 >> 16) * 1024;
    imem_bytes = (env->rd(regs::kCap4) & 0xffff) * 1024;
  }

  uint32_t nthreads() const { return warps * threads; }

  // LOADs the program into the instruction memory at 0 (no doorbell).
  void put_code(const std::vector<uint32_t>& words) {
    for (size_t i = 0; i < words.size(); ++i) env->mem.store<uint32_t>(kCode + 4 * i, words[i]);
    const uint32_t bytes = pad16(static_cast<uint32_t>(4 * words.size()));
    env->put(Descriptor::load({kCode, bytes, 1, bytes, weft::kSimtImemLine, 0}));
  }

  SimtLaunch full_launch() const {
    SimtLaunch l;
    l.num_warps = warps;
    l.threads_per_warp = threads;
    l.stack_top = dmem_bytes;
    l.stack_size = 64;
    return l;
  }

  gs::Launch golden_launch(const SimtLaunch& l) const {
    return gs::Launch{l.pc, l.num_warps, l.threads_per_warp, l.block_id, l.arg_ptr, l.stack_top,
                      l.stack_size};
  }

  bool wait_error() {
    return env->wait([&] { return (env->rd(regs::kStatus) & kStatusError) != 0; }, 200000, 16);
  }

  std::mt19937_64 rng{weft::tb::test_seed()};
  std::unique_ptr<Env> env;
  uint32_t warps = 0, threads = 0, dmem_bytes = 0, imem_bytes = 0;
};

TEST_F(WEFT_SIMT_SUITE, CapabilitiesDescribeTheCore) {
  EXPECT_GE(warps, 1u);
  EXPECT_GE(threads, 1u);
  EXPECT_EQ(dmem_bytes & (dmem_bytes - 1), 0u);
  EXPECT_GE(dmem_bytes, 4096u);
  EXPECT_GE(imem_bytes, 1024u);
  EXPECT_GE((env->rd(regs::kCap4) >> 16) & 0xff, kBB / 4);
}

TEST_F(WEFT_SIMT_SUITE, DivergentKernelLoadedAndLaunchedByDescriptorsMatchesGolden) {
  const auto code = divergent_kernel();
  put_code(code);
  gs::Machine m(gs::Config{dmem_bytes, imem_bytes, 1'000'000});
  m.load_imem(0, code);
  const SimtLaunch l = full_launch();
  const uint32_t bytes = pad16(4 * nthreads());
  uint32_t launches = 0;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<uint32_t> in(nthreads());
    for (auto& v : in) v = static_cast<uint32_t>(rng());
    if (round == 2) in[0] = 0x80000001u;  // an odd edge value
    for (uint32_t t = 0; t < nthreads(); ++t) {
      env->mem.store<uint32_t>(kInput + 4 * t, in[t]);
      m.write32(kIn + 4 * t, in[t]);
    }
    const uint32_t first = env->tail;
    env->put(Descriptor::load({kInput, bytes, 1, bytes, weft::kSimtDmemLine + kIn / kBB, 0}));
    // After the first round the code stays in the instruction memory.
    env->put(Descriptor::simt_launch(l).with_dep(0, 1).with_dep(1, round == 0 ? 2 : 0));
    env->put(Descriptor::store_spad({kDst + 0x1000 * static_cast<uint64_t>(round), bytes, 1, bytes,
                                     weft::kSimtDmemLine + kOut / kBB, 0})
                 .with_dep(0, 1));
    env->doorbell();
    ASSERT_TRUE(env->wait_completed(env->tail)) << "first " << first;
    const gs::Result g = m.run(golden_launch(l));
    ASSERT_TRUE(g.ok()) << g.error.message();
    for (uint32_t t = 0; t < nthreads(); ++t) {
      const uint32_t x = in[t];
      const uint32_t want = ((x & 1) ? x * x : x - 7) + t;
      EXPECT_EQ(env->mem.load<uint32_t>(kDst + 0x1000 * static_cast<uint64_t>(round) + 4 * t), want)
          << "thread " << t;
      EXPECT_EQ(m.read32(kOut + 4 * t), want) << "golden, thread " << t;
      EXPECT_EQ(g.threads[t].exit_code, t);
    }
    ++launches;
    EXPECT_EQ(env->rd(regs::kSimtErrCode), 0u);
    EXPECT_EQ(env->rd(regs::kSimtIssued), g.total_issues());
    EXPECT_EQ(env->rd(regs::kSimtActive), g.total_active_threads());
    EXPECT_EQ(env->rd(regs::kSimtLaunches), launches);
    EXPECT_GE(env->rd(regs::kSimtCycles), env->rd(regs::kSimtIssued));
  }
  EXPECT_EQ(env->rd(regs::kErrCode), 0u);
}

TEST_F(WEFT_SIMT_SUITE, KernelFaultStopsTheQueueWithPcAndThreadThenTheQueueGoesOn) {
  const uint32_t bad = nthreads() > 3 ? nthreads() - 3 : 0;
  const auto code = faulting_kernel(bad);
  put_code(code);
  const SimtLaunch l = full_launch();
  env->put(Descriptor::simt_launch(l).with_dep(0, 1));
  env->put(Descriptor::nop());
  env->doorbell();
  ASSERT_TRUE(wait_error());
  ASSERT_TRUE(env->wait_idle());
  gs::Machine m(gs::Config{dmem_bytes, imem_bytes, 1'000'000});
  m.load_imem(0, code);
  const gs::Result g = m.run(golden_launch(l));
  ASSERT_EQ(g.error.code, gs::ErrorCode::IllegalInstruction);
  EXPECT_EQ(g.error.thread, bad);
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kSimt));
  EXPECT_EQ(env->rd(regs::kErrIndex), 1u);
  EXPECT_EQ(env->rd(regs::kCompleted), 1u);
  EXPECT_EQ(env->rd(regs::kErrAddrLo), g.error.pc);
  EXPECT_EQ(env->rd(regs::kErrAddrHi), bad);
  EXPECT_EQ(env->rd(regs::kSimtErrCode), static_cast<uint32_t>(gs::ErrorCode::IllegalInstruction));
  EXPECT_EQ(env->rd(regs::kSimtErrPc), g.error.pc);
  EXPECT_EQ(env->rd(regs::kSimtErrThread), bad);
  EXPECT_EQ(env->rd(regs::kSimtErrTval), 0u);
  // Queue reset, then a good kernel runs.
  ASSERT_TRUE(env->queue_reset());
  const auto good = divergent_kernel();
  put_code(good);
  const uint32_t bytes = pad16(4 * nthreads());
  for (uint32_t t = 0; t < nthreads(); ++t) env->mem.store<uint32_t>(kInput + 4 * t, 2 * t);
  env->put(Descriptor::load({kInput, bytes, 1, bytes, weft::kSimtDmemLine + kIn / kBB, 0}));
  env->put(Descriptor::simt_launch(l).with_dep(0, 1).with_dep(1, 2));
  env->put(Descriptor::store_spad({kDst, bytes, 1, bytes, weft::kSimtDmemLine + kOut / kBB, 0})
               .with_dep(0, 1));
  env->doorbell();
  ASSERT_TRUE(env->wait_completed(4));
  for (uint32_t t = 0; t < nthreads(); ++t) EXPECT_EQ(env->mem.load<uint32_t>(kDst + 4 * t), 3 * t - 7);
  EXPECT_EQ(env->rd(regs::kSimtErrCode), 0u);
}

TEST_F(WEFT_SIMT_SUITE, RegionAndShapeErrors) {
  struct Case {
    const char* what;
    Descriptor d;
    ErrorCode code;
  };
  const uint32_t dmem_lines = dmem_bytes / kBB;
  const uint32_t imem_lines = imem_bytes / kBB;
  SimtLaunch too_many_warps = full_launch();
  too_many_warps.num_warps = warps + 1;
  SimtLaunch no_threads = full_launch();
  no_threads.threads_per_warp = 0;
  SimtLaunch too_many_threads = full_launch();
  too_many_threads.threads_per_warp = threads + 1;
  const std::vector<Case> cases = {
      {"store from the instruction memory",
       Descriptor::store_spad({kDst, 16, 1, 16, weft::kSimtImemLine, 0}), ErrorCode::kSpadRange},
      {"load past the data memory",
       Descriptor::load({kInput, 32, 1, 32, weft::kSimtDmemLine + dmem_lines - 1, 0}),
       ErrorCode::kSpadRange},
      {"load past the instruction memory",
       Descriptor::load({kInput, 16, 2, 16, weft::kSimtImemLine + imem_lines - 1, 1}),
       ErrorCode::kSpadRange},
      {"store between the regions",
       Descriptor::store_spad({kDst, 16, 1, 16, weft::kSimtDmemLine - 1, 0}), ErrorCode::kSpadRange},
      {"too many warps", Descriptor::simt_launch(too_many_warps), ErrorCode::kSize},
      {"no threads", Descriptor::simt_launch(no_threads), ErrorCode::kSize},
      {"too many threads", Descriptor::simt_launch(too_many_threads), ErrorCode::kSize},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    env->device_writes.clear();
    env->put(c.d);
    env->doorbell();
    ASSERT_TRUE(wait_error());
    ASSERT_TRUE(env->wait_idle());
    EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(c.code));
    EXPECT_EQ(env->rd(regs::kErrIndex), 0u);
    EXPECT_EQ(env->rd(regs::kSimtLaunches), 0u);
    for (const auto& w : env->device_writes) EXPECT_TRUE(w.addr >= kCpl && w.addr + w.len <= kCpl + 16);
    ASSERT_TRUE(env->queue_reset());
  }
}

}  // namespace
