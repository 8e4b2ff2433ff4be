// SIMT core (rtl/simt) running RISC-V programs built by Debian's riscv64-unknown-elf-gcc at build
// time (tb/simt/programs, docs/simt-tests.md). Every run is also compared with the golden model
// (run_and_compare: scratchpad, per-thread exit codes and retired counts, per-warp issue counts,
// errors); the expected results come from sources independent of both models:
//   Isa*        every RV32IM instruction on every thread of a full launch, thread-dependent
//               operands, each thread checking its results against a table computed here by a
//               spec-derived reference (which is itself checked against qemu-riscv32);
//   Fault*      misaligned / out-of-range accesses and jump targets raised by one thread: error
//               code, pc (from the ELF symbols), thread and tval worked out here;
//   Qemu*       single-thread C / assembly programs: exit code and output bytes equal to
//               qemu-riscv32's, on a 1 x 1 launch and on every thread of a full launch;
//   Divergence* a C kernel with nested if/else, per-thread loop counts, early returns and exits,
//               a jump-table switch and recursion, on random per-thread data: results equal to the
//               same functions compiled for the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "simt_dut.hpp"
#include "simt_programs.hpp"
#include "weft/tb/options.hpp"

// Programs' shared definitions (plain C headers).
#include "isa_layout.h"
#define DV_EARLY_EXIT(code) return (code)
#include "divergence_funcs.h"

namespace {

using namespace weft::tb::simt;
using gs::ErrorCode;

constexpr uint32_t kAll = kWarps * kThreads;
static_assert(kAll <= ISA_MAX_THREADS, "the programs' tables are laid out for 32 threads");

const std::string kProgDir = WEFT_SIMT_PROG_DIR;
const std::string kQemu = WEFT_SIMT_QEMU;
constexpr bool kHaveElfs = WEFT_SIMT_PROG_HAVE_ELFS != 0;

#define SKIP_WITHOUT_ELFS()                                                               \
  if (!kHaveElfs)                                                                         \
  GTEST_SKIP() << "riscv64-unknown-elf-gcc not found at configure time (apt-get install " \
                  "gcc-riscv64-unknown-elf): SIMT program tests skipped"
#define SKIP_WITHOUT_QEMU()                                                                \
  SKIP_WITHOUT_ELFS();                                                                     \
  if (kQemu.empty())                                                                       \
  GTEST_SKIP() << "qemu-riscv32 not found at configure time (apt-get install qemu-user): " \
                  "qemu comparison skipped"

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) v.push_back(x);
  return v;
}

ElfFile program(const std::string& file) { return read_elf(kProgDir + "/" + file); }

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

void set_shape(Kernel& k, uint32_t warps, uint32_t threads) {
  k.launch.num_warps = warps;
  k.launch.threads_per_warp = threads;
}

// The image (code + .rodata at 0) must end below `limit`, where the test's data starts.
void expect_image_below(const ElfFile& e, uint32_t limit) {
  ASSERT_LE(e.symbol("__weft_image_end"), limit) << e.path << ": the image overlaps the data";
}

// =============================================================================================
// ISA self-check: test lists (programs/isa/isa_*.def) and the reference
// =============================================================================================

// clang-format off
enum class Kind { RR, RRA, RRB, RRS, X0, RI, RIA, SH, LD, LDA, LDX0, ST, BR, BRB, LUI, AUIPC, JAL,
                  JALB, JALR, FENCE };
// clang-format on
// Operand classes (see isa_alu.def): N none / fixed by the kind, R random, E edge values, M mixed,
// S shift amounts, Z divisor 0, O INT_MIN / -1, D per-thread division mix, B branch mix.
enum class Cls { N, R, E, M, S, Z, O, D, B };

struct IsaTest {
  Kind kind;
  const char* op;
  Cls cls;
  int32_t imm;
};

struct IsaGroup {
  const char* name;
  std::vector<IsaTest> tests;
};

// clang-format off
#define RR(op, c) {Kind::RR, #op, Cls::c, 0},
#define RRA(op, c) {Kind::RRA, #op, Cls::c, 0},
#define RRB(op, c) {Kind::RRB, #op, Cls::c, 0},
#define RRS(op, c) {Kind::RRS, #op, Cls::c, 0},
#define X0(op, c) {Kind::X0, #op, Cls::c, 0},
#define RI(op, c, imm) {Kind::RI, #op, Cls::c, imm},
#define RIA(op, c, imm) {Kind::RIA, #op, Cls::c, imm},
#define SH(op, c, sh) {Kind::SH, #op, Cls::c, sh},
#define LD(op, imm) {Kind::LD, #op, Cls::N, imm},
#define LDA(op, imm) {Kind::LDA, #op, Cls::N, imm},
#define LDX0(op, imm) {Kind::LDX0, #op, Cls::N, imm},
#define ST(op, imm) {Kind::ST, #op, Cls::N, imm},
#define BR(op, c) {Kind::BR, #op, Cls::c, 0},
#define BRB(op, c) {Kind::BRB, #op, Cls::c, 0},
#define LUI(imm) {Kind::LUI, "lui", Cls::N, imm},
#define AUIPC(imm) {Kind::AUIPC, "auipc", Cls::N, imm},
#define JAL() {Kind::JAL, "jal", Cls::N, 0},
#define JALB() {Kind::JALB, "jal", Cls::N, 0},
#define JALR(imm, link) {Kind::JALR, "jalr " #link, Cls::N, imm},
#define FENCE() {Kind::FENCE, "fence", Cls::N, 0},
// The order is isa_selfcheck.S's isa_groups table.
const std::vector<IsaGroup>& isa_groups() {
  static const std::vector<IsaGroup> g = {
      {"alu", {
#include "isa_alu.def"
      }},
      {"imm", {
#include "isa_imm.def"
      }},
      {"mul", {
#include "isa_mul.def"
      }},
      {"mem", {
#include "isa_mem.def"
      }},
      {"ctrl", {
#include "isa_ctrl.def"
      }},
  };
  return g;
}
#undef RR
#undef RRA
#undef RRB
#undef RRS
#undef X0
#undef RI
#undef RIA
#undef SH
#undef LD
#undef LDA
#undef LDX0
#undef ST
#undef BR
#undef BRB
#undef LUI
#undef AUIPC
#undef JAL
#undef JALB
#undef JALR
#undef FENCE
// clang-format on

std::string test_name(const IsaTest& t) {
  static const char* kKinds[] = {"", " rd=rs1", " rd=rs2", " rs1=rs2",  " rd=x0", "", " rd=rs1",
                                 "", "",        " rd=rs1", " rd=x0",    "",       "", " backward",
                                 "", "",        "",        " backward", "",       ""};
  static const char* kCls[] = {"", " R", " E", " M", " S", " Z", " O", " D", " B"};
  std::ostringstream s;
  s << t.op << kKinds[static_cast<int>(t.kind)] << kCls[static_cast<int>(t.cls)];
  if (t.kind == Kind::RI || t.kind == Kind::RIA || t.kind == Kind::SH || t.kind == Kind::LD ||
      t.kind == Kind::LDA || t.kind == Kind::LDX0 || t.kind == Kind::ST || t.kind == Kind::JALR) {
    s << " imm " << t.imm;
  }
  if (t.kind == Kind::LUI || t.kind == Kind::AUIPC) s << " " << hex(static_cast<uint32_t>(t.imm));
  return s.str();
}

// ---- reference semantics, from the RISC-V unprivileged ISA v20191213 (not from any model) ----

// 2.4.1 / 2.4.2 integer computational instructions, 7.1 multiplication, 7.2 division (Table 7.1).
// Immediate forms use the same operation with b = the sign-extended immediate (shamt for shifts).
uint32_t ref_alu(std::string op, uint32_t a, uint32_t b) {
  static const std::map<std::string, std::string> kImm = {
      {"addi", "add"}, {"slti", "slt"}, {"sltiu", "sltu"}, {"xori", "xor"}, {"ori", "or"},
      {"andi", "and"}, {"slli", "sll"}, {"srli", "srl"},   {"srai", "sra"}};
  if (auto it = kImm.find(op); it != kImm.end()) op = it->second;
  const int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
  const uint32_t sh = b & 31;  // shifts use the low 5 bits of rs2 (2.4.2)
  if (op == "add") return a + b;
  if (op == "sub") return a - b;
  if (op == "sll") return a << sh;
  if (op == "slt") return sa < sb ? 1 : 0;
  if (op == "sltu") return a < b ? 1 : 0;
  if (op == "xor") return a ^ b;
  if (op == "srl") return a >> sh;
  if (op == "sra") return static_cast<uint32_t>(sa >> sh);  // arithmetic (C++20)
  if (op == "or") return a | b;
  if (op == "and") return a & b;
  if (op == "mul") return static_cast<uint32_t>(uint64_t{a} * b);  // low half: sign-agnostic
  if (op == "mulh") return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{sa} * sb) >> 32);
  if (op == "mulhsu") {  // |sa * b| < 2^63: fits int64
    return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{sa} * static_cast<int64_t>(b)) >>
                                 32);
  }
  if (op == "mulhu") return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
  const bool overflow = a == 0x80000000u && b == 0xFFFFFFFFu;
  if (op == "div") return b == 0 ? 0xFFFFFFFFu : overflow ? a : static_cast<uint32_t>(sa / sb);
  if (op == "divu") return b == 0 ? 0xFFFFFFFFu : a / b;
  if (op == "rem") return b == 0 ? a : overflow ? 0 : static_cast<uint32_t>(sa % sb);
  if (op == "remu") return b == 0 ? a : a % b;
  throw std::invalid_argument("no reference for " + op);
}

uint32_t access_size(const std::string& op) {
  if (op == "lb" || op == "lbu" || op == "sb") return 1;
  if (op == "lh" || op == "lhu" || op == "sh") return 2;
  return 4;
}

// 2.6 loads: LB/LH sign-extend, LBU/LHU zero-extend; little-endian.
uint32_t ref_load(const std::string& op, const uint8_t* mem) {
  uint32_t w = 0;
  for (uint32_t i = 0; i < access_size(op); ++i) w |= uint32_t{mem[i]} << (8 * i);
  if (op == "lb") return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(w)));
  if (op == "lh") return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(w)));
  return w;
}

// 2.5 conditional branches.
bool ref_taken(const std::string& op, uint32_t a, uint32_t b) {
  const int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
  if (op == "beq") return a == b;
  if (op == "bne") return a != b;
  if (op == "blt") return sa < sb;
  if (op == "bge") return sa >= sb;
  if (op == "bltu") return a < b;
  if (op == "bgeu") return a >= b;
  throw std::invalid_argument("no reference for " + op);
}

// ---- per-thread operands and expected values ----

constexpr std::array<uint32_t, 16> kEdges = {
    0,  1,  2,  0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFFu, 0xFFFFFFFEu,
    31, 32, 33, 0x10000,     0xFFFF,      0x8000,      0x7FFF,      0xFFFF8000u};

struct Operands {
  uint32_t a, b;
};

Operands gen_operands(Cls c, std::mt19937_64& rng) {
  auto rnd = [&] { return static_cast<uint32_t>(rng()); };
  auto edge = [&] { return kEdges[rng() % kEdges.size()]; };
  auto small = [&] { return static_cast<uint32_t>(static_cast<int32_t>(rng() % 33) - 16); };
  switch (c) {
    case Cls::R:
      return {rnd(), rnd()};
    case Cls::E:
      return {edge(), edge()};
    case Cls::M:
      switch (rng() % 5) {
        case 0:
          return {rnd(), rnd()};
        case 1:
          return {edge(), edge()};
        case 2:
          return {small(), small()};
        case 3: {
          const uint32_t x = rng() % 2 ? edge() : rnd();
          return {x, x};
        }
        default:
          return {rng() % 2 ? edge() : small(), rng() % 2 ? rnd() : edge()};
      }
    case Cls::S: {  // shift amounts with random upper bits; low 5 bits at the ends half the time
      const uint32_t lo = rng() % 2 ? (rng() % 2 ? 31u : 0u) : static_cast<uint32_t>(rng() % 32);
      return {rng() % 2 ? edge() : rnd(), (rnd() & ~31u) | lo};
    }
    case Cls::Z:
      return {rng() % 2 ? edge() : rnd(), 0};
    case Cls::O:
      return {0x80000000u, 0xFFFFFFFFu};
    case Cls::D: {
      static constexpr Cls kMix[] = {Cls::Z, Cls::O, Cls::E, Cls::R, Cls::M};
      return gen_operands(kMix[rng() % 5], rng);
    }
    case Cls::B:
      switch (rng() % 4) {
        case 0: {
          const uint32_t x = rng() % 2 ? edge() : rnd();
          return {x, x};
        }
        case 1:
          return {rnd(), rnd()};
        case 2:
          return {edge(), edge()};
        default: {  // opposite signs: signed and unsigned order disagree
          const uint32_t n = rnd() | 0x80000000u, p = rnd() & 0x7FFFFFFFu;
          return rng() % 2 ? Operands{n, p} : Operands{p, n};
        }
      }
    case Cls::N:
      break;
  }
  return {rnd(), rnd()};
}

struct IsaThread {
  std::vector<Operands> in;
  std::vector<uint32_t> exp;
  std::array<uint8_t, ISA_SCRATCH_BYTES> scratch{};
};

struct IsaData {
  std::array<uint8_t, ISA_DATA_BYTES> data{};
  std::vector<IsaThread> threads;
};

IsaData make_isa_data(const IsaGroup& g, uint32_t nthreads, std::mt19937_64& rng) {
  IsaData d;
  for (auto& x : d.data) x = static_cast<uint8_t>(rng());
  for (uint32_t t = 0; t < nthreads; ++t) {
    IsaThread th;
    for (auto& x : th.scratch) x = static_cast<uint8_t>(rng());
    uint32_t store_slot = 0;
    for (const IsaTest& test : g.tests) {
      const std::string op = test.op;
      const uint32_t imm = static_cast<uint32_t>(test.imm);
      Operands o = gen_operands(test.cls, rng);
      uint32_t e = 0;
      switch (test.kind) {
        case Kind::RR:
        case Kind::RRA:
        case Kind::RRB:
          e = ref_alu(op, o.a, o.b);
          break;
        case Kind::RRS:
          e = ref_alu(op, o.a, o.a);
          break;
        case Kind::X0:
          e = o.a;
          break;
        case Kind::RI:
        case Kind::RIA:
        case Kind::SH:
          e = ref_alu(op, o.a, imm);
          break;
        case Kind::LD:
        case Kind::LDA:
        case Kind::LDX0: {
          const uint32_t size = access_size(op);
          const uint32_t p = size * static_cast<uint32_t>(rng() % (ISA_DATA_BYTES / size));
          o.a = p - imm;
          e = test.kind == Kind::LDX0 ? o.b : ref_load(op, &d.data[p]);
          break;
        }
        case Kind::ST: {  // each store test has its own two words; the read-back word after it
          const uint32_t size = access_size(op);
          const uint32_t word = 2 * store_slot++ + static_cast<uint32_t>(rng() % 2);
          const uint32_t p = 4 * word + size * static_cast<uint32_t>(rng() % (4 / size));
          EXPECT_LT(4 * word, ISA_SCRATCH_BYTES) << "too many store tests in group " << g.name;
          o.a = p - imm;
          std::array<uint8_t, 4> w;
          std::copy_n(&th.scratch[4 * word], 4, w.begin());
          for (uint32_t i = 0; i < size; ++i) w[p % 4 + i] = static_cast<uint8_t>(o.b >> (8 * i));
          e = ref_load("lw", w.data());
          break;
        }
        case Kind::BR:
        case Kind::BRB:
          e = ref_taken(op, o.a, o.b) ? 1 : 0;
          break;
        case Kind::LUI:  // 2.4.1: the U-immediate is imm << 12
        case Kind::AUIPC:
          e = (imm << 12) ^ o.a;
          break;
        case Kind::JAL:  // 2.5: link = pc + 4
        case Kind::JALB:
          e = 4 ^ o.a;
          break;
        case Kind::JALR: {  // 2.5: target = (rs1 + imm) & ~1, link = pc + 4; pad k is 8 bytes
          const uint32_t k = static_cast<uint32_t>(rng() % 8);
          o.a = 8 * k + static_cast<uint32_t>(rng() % 2) - imm;
          e = k | (4u << 8);
          break;
        }
        case Kind::FENCE:
          e = o.a;
          break;
      }
      th.in.push_back(o);
      th.exp.push_back(e);
    }
    d.threads.push_back(std::move(th));
  }
  return d;
}

Kernel isa_kernel(const ElfFile& e, uint32_t group, const IsaData& d) {
  Kernel k = kernel_from_elf(e);
  k.put32(ISA_ARGS, group);
  std::copy(d.data.begin(), d.data.end(), k.dmem.begin() + ISA_DATA);
  for (uint32_t t = 0; t < d.threads.size(); ++t) {
    const IsaThread& th = d.threads[t];
    for (size_t i = 0; i < th.in.size(); ++i) {
      k.put32(ISA_IN + (t << ISA_IN_SHIFT) + 8 * i, th.in[i].a);
      k.put32(ISA_IN + (t << ISA_IN_SHIFT) + 8 * i + 4, th.in[i].b);
      k.put32(ISA_EXP + (t << ISA_RES_SHIFT) + 4 * i, th.exp[i]);
    }
    std::copy(th.scratch.begin(), th.scratch.end(),
              k.dmem.begin() + ISA_SCRATCH + (t << ISA_SCRATCH_SHIFT));
  }
  k.launch.arg_ptr = ISA_ARGS;
  k.launch.stack_top = 0x10000;  // unused by the program
  k.launch.stack_size_per_thread = 16;
  return k;
}

// One group on every thread of a full launch: each thread's own verdict (status, exit code),
// every result against the reference, and the golden model.
void run_isa_group(uint32_t gi) {
  SKIP_WITHOUT_ELFS();
  const IsaGroup& g = isa_groups().at(gi);
  ASSERT_LE(g.tests.size(), size_t{ISA_MAX_TESTS});
  const ElfFile e = program("isa_selfcheck.elf");
  expect_image_below(e, ISA_ARGS);
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(std::string("group ") + g.name + ", data set " + std::to_string(round));
    const IsaData d = make_isa_data(g, kAll, rng);
    Kernel k = isa_kernel(e, gi, d);
    set_shape(k, kWarps, kThreads);
    const Both b = run_and_compare(k);
    ASSERT_TRUE(b.rtl.finished);
    ASSERT_EQ(b.rtl.error.code, ErrorCode::None) << b.rtl.error.message();
    int reported = 0;
    for (uint32_t t = 0; t < kAll; ++t) {
      const uint32_t st = ISA_STATUS + (t << ISA_STATUS_SHIFT);
      const uint32_t fails = get32(b.rtl_mem, st), count = get32(b.rtl_mem, st + 8);
      EXPECT_EQ(get32(b.rtl_mem, st + 12), uint32_t{ISA_STATUS_MAGIC}) << "thread " << t;
      EXPECT_EQ(count, g.tests.size()) << "thread " << t << ": tests run";
      EXPECT_EQ(fails, 0u) << "thread " << t << ": failed tests (its own check)";
      EXPECT_EQ(b.rtl.threads.at(t).exit_code, fails) << "thread " << t;
      uint32_t mismatches = 0;
      for (size_t i = 0; i < g.tests.size(); ++i) {
        const uint32_t got = get32(b.rtl_mem, ISA_GOT + (t << ISA_RES_SHIFT) + 4 * i);
        const uint32_t want = d.threads[t].exp[i];
        if (got == want) continue;
        ++mismatches;
        if (reported++ < 20) {
          ADD_FAILURE() << "thread " << t << " test " << i << " (" << test_name(g.tests[i])
                        << "): a=" << hex(d.threads[t].in[i].a)
                        << " b=" << hex(d.threads[t].in[i].b) << " got " << hex(got) << " want "
                        << hex(want);
        }
      }
      EXPECT_EQ(mismatches, fails) << "thread " << t << ": its own count vs the host's";
    }
  }
}

// =============================================================================================
// Single-thread programs (programs/qemu) and the divergence kernel: layouts
// =============================================================================================

// prog_rt.h programs: argument block, per-thread output buffers, stacks.
constexpr uint32_t kProgArgs = 0x3F00, kProgOut = 0x4000, kProgOutStride = 0x200;
// Stacks: 1008 bytes = 252 words apart, a multiple of 16 bytes (psABI) but not of 8 words, so the
// lanes' stack accesses spread over two banks instead of one (fewer bank conflicts, faster runs).
constexpr uint32_t kStackTop = 0x10000, kStackSize = 0x3F0;
static_assert(kProgOut + ISA_MAX_THREADS * kProgOutStride <=
              kStackTop - ISA_MAX_THREADS * kStackSize);

Kernel prog_kernel(const ElfFile& e, uint32_t warps, uint32_t threads) {
  Kernel k = kernel_from_elf(e);
  k.put32(kProgArgs, kProgOut);
  k.put32(kProgArgs + 4, kProgOutStride);
  set_shape(k, warps, threads);
  k.launch.arg_ptr = kProgArgs;
  k.launch.stack_top = kStackTop;
  k.launch.stack_size_per_thread = kStackSize;
  k.max_issues = 2'000'000;
  return k;
}

struct QemuProgram {
  std::string name, opt;
  QemuRun ref;
};

std::vector<QemuProgram> qemu_references() {
  std::vector<QemuProgram> v;
  for (const auto& opt : split(WEFT_SIMT_PROG_OPTS)) {
    for (const auto& name : split(WEFT_SIMT_QEMU_PROGRAMS)) {
      QemuProgram p{name, opt, run_qemu(kQemu, kProgDir + "/" + name + "_" + opt + "_qemu.elf")};
      EXPECT_TRUE(p.ref.exited) << name << " " << opt << ": qemu-riscv32 did not exit normally";
      EXPECT_FALSE(p.ref.out.empty()) << name << " " << opt << ": no output under qemu";
      v.push_back(std::move(p));
    }
  }
  return v;
}

// Runs `p` on the RTL (and golden) with the given shape; every thread must print qemu's output
// and exit with qemu's status. The stack area below thread 0's stack top starts filled with a
// pattern; on a 1 x 1 launch the lowest byte changed gives the stack's high-water mark, which must
// stay within kStackSize (the threads' stacks are adjacent: an overflow would corrupt a neighbour).
void run_program_like_qemu(const QemuProgram& p, uint32_t warps, uint32_t threads) {
  SCOPED_TRACE(p.name + " -" + p.opt + " on " + std::to_string(warps) + " x " +
               std::to_string(threads));
  const ElfFile e = program(p.name + "_" + p.opt + "_core.elf");
  expect_image_below(e, kProgArgs);
  Kernel k = prog_kernel(e, warps, threads);
  constexpr uint32_t kPatternFrom = kStackTop - ISA_MAX_THREADS * kStackSize;
  std::fill(k.dmem.begin() + kPatternFrom, k.dmem.begin() + kStackTop, uint8_t{0xA5});
  const Both b = run_and_compare(k);
  ASSERT_TRUE(b.rtl.finished);
  ASSERT_EQ(b.rtl.error.code, ErrorCode::None) << b.rtl.error.message();
  ASSERT_EQ(b.rtl.threads.size(), size_t{warps} * threads);
  for (uint32_t t = 0; t < warps * threads; ++t) {
    const ThreadOutput o = thread_output(b.rtl_mem, kProgOut, kProgOutStride, t);
    EXPECT_FALSE(o.overflow) << "thread " << t << ": " << o.length << " bytes of output";
    EXPECT_EQ(b.rtl.threads[t].exit_code, static_cast<uint32_t>(p.ref.status)) << "thread " << t;
    EXPECT_TRUE(o.bytes == p.ref.out) << "thread " << t << " output:\n"
                                      << printable(o.bytes) << "\nqemu-riscv32:\n"
                                      << printable(p.ref.out);
  }
  uint32_t stack = 0;
  if (warps * threads == 1) {
    uint32_t low = kStackTop;
    for (uint32_t a = kPatternFrom; a < kStackTop; ++a) {
      if (b.rtl_mem[a] != 0xA5) {
        low = a;
        break;
      }
    }
    stack = kStackTop - low;
    EXPECT_LE(stack, kStackSize) << "the program's stack outgrows the per-thread stacks";
  }
  weft::tb::verbose_printf(
      "[program] %-8s -%s %ux%u: %u instructions per thread, %u cycles, %u output bytes",
      p.name.c_str(), p.opt.c_str(), warps, threads, b.rtl.threads.at(0).retired, b.rtl.perf_cycles,
      static_cast<uint32_t>(p.ref.out.size()));
  if (stack) weft::tb::verbose_printf(", stack %u bytes", stack);
  weft::tb::verbose_printf("\n");
}

// Divergence kernel: argument block {in, out}, 4 input and 16 output words per thread.
constexpr uint32_t kDvArgs = 0x3F00, kDvIn = 0x4000, kDvOut = 0x4800;
static_assert(kDvIn + ISA_MAX_THREADS * 4 * DV_IN_WORDS <= kDvOut);
static_assert(kDvOut + ISA_MAX_THREADS * 4 * DV_OUT_WORDS <=
              kStackTop - ISA_MAX_THREADS * kStackSize);

}  // namespace

class WEFT_SUITE : public ::testing::Test {};

// =============================================================================================
// ISA conformance on every thread
// =============================================================================================

TEST_F(WEFT_SUITE, IsaRegisterRegisterAluOnEveryThread) { run_isa_group(0); }
TEST_F(WEFT_SUITE, IsaRegisterImmediateAluOnEveryThread) { run_isa_group(1); }
TEST_F(WEFT_SUITE, IsaMulDivRemIncludingDivByZeroAndOverflowOnEveryThread) { run_isa_group(2); }
TEST_F(WEFT_SUITE, IsaLoadsStoresEverySizeAndSignOnEveryThread) { run_isa_group(3); }
TEST_F(WEFT_SUITE, IsaBranchesJumpsLuiAuipcOnEveryThread) { run_isa_group(4); }

// The reference's tables, from the same operands, equal what the same program computes under
// qemu-riscv32 (an independent RV32IM implementation): for every thread's operands of every group.
TEST_F(WEFT_SUITE, IsaReferenceAgreesWithQemu) {
  SKIP_WITHOUT_QEMU();
  const std::string elf = kProgDir + "/isa_selfcheck_qemu.elf";
  auto rng = weft::tb::make_rng();
  for (uint32_t gi = 0; gi < isa_groups().size(); ++gi) {
    const IsaGroup& g = isa_groups()[gi];
    const IsaData d = make_isa_data(g, kAll, rng);
    for (uint32_t t = 0; t < kAll; ++t) {
      std::vector<uint8_t> in(ISA_QEMU_IN_BYTES, 0);
      auto put = [&](size_t off, uint32_t v) {
        for (int i = 0; i < 4; ++i) in[off + i] = static_cast<uint8_t>(v >> (8 * i));
      };
      put(0, gi);
      for (size_t i = 0; i < g.tests.size(); ++i) {
        put(4 + 8 * i, d.threads[t].in[i].a);
        put(8 + 8 * i, d.threads[t].in[i].b);
      }
      std::copy(d.data.begin(), d.data.end(), in.begin() + 4 + ISA_MAX_TESTS * 8);
      std::copy(d.threads[t].scratch.begin(), d.threads[t].scratch.end(),
                in.begin() + 4 + ISA_MAX_TESTS * 8 + ISA_DATA_BYTES);
      const QemuRun r = run_qemu(kQemu, elf, in);
      ASSERT_TRUE(r.exited && r.status == 0) << "group " << g.name << " thread " << t;
      ASSERT_EQ(r.out.size(), 4 * g.tests.size()) << "group " << g.name << " thread " << t;
      for (size_t i = 0; i < g.tests.size(); ++i) {
        const uint32_t q = get32(r.out, static_cast<uint32_t>(4 * i));
        EXPECT_EQ(q, d.threads[t].exp[i])
            << "group " << g.name << " thread " << t << " test " << i << " ("
            << test_name(g.tests[i]) << "): a=" << hex(d.threads[t].in[i].a)
            << " b=" << hex(d.threads[t].in[i].b) << " qemu " << hex(q) << " reference "
            << hex(d.threads[t].exp[i]);
      }
    }
  }
}

// =============================================================================================
// Faults: misaligned and out-of-range accesses, misaligned jump targets (docs/simt-model.md)
// =============================================================================================

namespace {

enum class FaultOp { Load, Store, Jalr, Branch, Jal, Ebreak, Ecall };
struct FaultCase {
  const char* entry;
  FaultOp op;
  uint32_t size;  // access size
  ErrorCode code;
};

constexpr FaultCase kFaultCases[] = {
    {"lh", FaultOp::Load, 2, ErrorCode::LoadMisaligned},
    {"lhu", FaultOp::Load, 2, ErrorCode::LoadMisaligned},
    {"lw", FaultOp::Load, 4, ErrorCode::LoadMisaligned},
    {"sh", FaultOp::Store, 2, ErrorCode::StoreMisaligned},
    {"sw", FaultOp::Store, 4, ErrorCode::StoreMisaligned},
    {"lw", FaultOp::Load, 4, ErrorCode::LoadOutOfRange},
    {"lb", FaultOp::Load, 1, ErrorCode::LoadOutOfRange},
    {"sw", FaultOp::Store, 4, ErrorCode::StoreOutOfRange},
    {"sb", FaultOp::Store, 1, ErrorCode::StoreOutOfRange},
    {"jalr", FaultOp::Jalr, 0, ErrorCode::FetchMisaligned},
    {"branch", FaultOp::Branch, 0, ErrorCode::FetchMisaligned},
    {"jal", FaultOp::Jal, 0, ErrorCode::FetchMisaligned},
    {"ebreak", FaultOp::Ebreak, 0, ErrorCode::Breakpoint},
    {"ecall", FaultOp::Ecall, 0, ErrorCode::UnsupportedEcall},
};

// A valid operand for thread t (its own aligned word, or no jump).
uint32_t fault_valid_operand(const FaultCase& c, uint32_t t, std::mt19937_64& rng) {
  switch (c.op) {
    case FaultOp::Load:
    case FaultOp::Store:
      return 4 * t;
    case FaultOp::Jalr:
      return static_cast<uint32_t>(rng() % 2);  // +1: bit 0 is cleared
    default:
      return 0;
  }
}

// A faulting operand for victim thread t and the tval it must produce.
std::pair<uint32_t, uint32_t> fault_operand(const FaultCase& c, const ElfFile& e, uint32_t t,
                                            std::mt19937_64& rng) {
  const uint32_t at = e.symbol(std::string("f_") + c.entry + "_at");
  switch (c.op) {
    case FaultOp::Load:
    case FaultOp::Store: {
      uint32_t addr;
      if (c.code == ErrorCode::LoadMisaligned || c.code == ErrorCode::StoreMisaligned) {
        uint32_t m;
        do m = static_cast<uint32_t>(rng() % 4);
        while (m % c.size == 0);
        addr = FAULT_DATA + 4 * t + m;
      } else {  // out of range: past the end, aligned, or (no wrap-around) near 2^32
        addr = rng() % 4 == 0 ? 0u - 4 * static_cast<uint32_t>(1 + rng() % 4)
                              : kDmemBytes + 4 * static_cast<uint32_t>(rng() % 64);
      }
      return {addr - FAULT_DATA, addr};
    }
    case FaultOp::Jalr: {  // +2 or +3: bit 0 cleared, still not a multiple of 4
      const uint32_t off = 2 + static_cast<uint32_t>(rng() % 2);
      return {off, e.symbol("f_jalr_target") + 2};
    }
    case FaultOp::Branch:
    case FaultOp::Jal:
      return {1, at + 6};
    case FaultOp::Ebreak:
      return {1, at};
    case FaultOp::Ecall:
      return {1, 64};  // a7
  }
  return {0, 0};
}

// Runs case `c` on a full launch with the given victims (all in one warp issue: lowest reported).
void run_fault_case(const ElfFile& e, const FaultCase& c, const std::vector<uint32_t>& victims,
                    std::mt19937_64& rng) {
  std::ostringstream what;
  what << "f_" << c.entry << " " << gs::to_string(c.code) << ", victims";
  for (uint32_t v : victims) what << " " << v;
  SCOPED_TRACE(what.str());
  Kernel k = kernel_from_elf(e);
  k.launch.entry_pc = e.symbol(std::string("f_") + c.entry);
  set_shape(k, kWarps, kThreads);
  k.launch.stack_top = kStackTop;
  k.launch.stack_size_per_thread = 16;
  uint32_t tval = 0;
  for (uint32_t t = 0; t < kAll; ++t) k.put32(FAULT_TABLE + 4 * t, fault_valid_operand(c, t, rng));
  for (size_t i = 0; i < victims.size(); ++i) {
    const auto [op, tv] = fault_operand(c, e, victims[i], rng);
    k.put32(FAULT_TABLE + 4 * victims[i], op);
    if (i == 0) tval = tv;
  }
  const Both b = run_and_compare(k);
  ASSERT_TRUE(b.rtl.finished);
  EXPECT_EQ(b.rtl.error.code, c.code) << b.rtl.error.message();
  EXPECT_EQ(b.rtl.error.pc, e.symbol(std::string("f_") + c.entry + "_at")) << b.rtl.error.message();
  EXPECT_EQ(b.rtl.error.thread, victims[0]) << b.rtl.error.message();
  EXPECT_EQ(b.rtl.error.tval, tval) << b.rtl.error.message();
}

}  // namespace

TEST_F(WEFT_SUITE, FaultMisalignedAndOutOfRangeStopWithCodePcThreadAndTval) {
  SKIP_WITHOUT_ELFS();
  const ElfFile e = program("faults.elf");
  expect_image_below(e, FAULT_TABLE);
  auto rng = weft::tb::make_rng();
  for (const FaultCase& c : kFaultCases) {
    const uint32_t victim = static_cast<uint32_t>(rng() % kAll);
    run_fault_case(e, c, {victim}, rng);
  }
}

TEST_F(WEFT_SUITE, FaultOnTwoLanesOfOneWarpReportsTheLowestLane) {
  SKIP_WITHOUT_ELFS();
  if (kThreads < 2) GTEST_SKIP() << "needs two lanes per warp";
  const ElfFile e = program("faults.elf");
  auto rng = weft::tb::make_rng();
  for (const FaultCase& c : kFaultCases) {
    if (c.code != ErrorCode::LoadMisaligned && c.code != ErrorCode::StoreMisaligned &&
        c.op != FaultOp::Jalr && c.op != FaultOp::Branch) {
      continue;
    }
    const uint32_t w = static_cast<uint32_t>(rng() % kWarps);
    uint32_t l1 = static_cast<uint32_t>(rng() % kThreads), l2;
    do l2 = static_cast<uint32_t>(rng() % kThreads);
    while (l2 == l1);
    run_fault_case(e, c, {w * kThreads + std::min(l1, l2), w * kThreads + std::max(l1, l2)}, rng);
  }
}

TEST_F(WEFT_SUITE, FaultFreeRunsOfTheFaultCasesExitCleanly) {
  // The same entries with valid operands only (JALR targets +0 / +1 mixed per thread: bit 0 is
  // cleared, not a fault): every thread exits 0, and everything matches the golden model.
  SKIP_WITHOUT_ELFS();
  const ElfFile e = program("faults.elf");
  auto rng = weft::tb::make_rng();
  for (const FaultCase& c : kFaultCases) {
    SCOPED_TRACE(std::string("f_") + c.entry);
    Kernel k = kernel_from_elf(e);
    k.launch.entry_pc = e.symbol(std::string("f_") + c.entry);
    set_shape(k, kWarps, kThreads);
    k.launch.stack_top = kStackTop;
    k.launch.stack_size_per_thread = 16;
    for (uint32_t t = 0; t < kAll; ++t)
      k.put32(FAULT_TABLE + 4 * t, fault_valid_operand(c, t, rng));
    const Both b = run_and_compare(k);
    ASSERT_TRUE(b.rtl.finished);
    EXPECT_EQ(b.rtl.error.code, ErrorCode::None) << b.rtl.error.message();
    for (uint32_t t = 0; t < b.rtl.threads.size(); ++t) EXPECT_EQ(b.rtl.threads[t].exit_code, 0u);
  }
}

// =============================================================================================
// Single-thread programs against qemu-riscv32
// =============================================================================================

TEST_F(WEFT_SUITE, QemuProgramsOnOneThreadGiveQemusExitCodeAndOutput) {
  SKIP_WITHOUT_QEMU();
  for (const QemuProgram& p : qemu_references()) run_program_like_qemu(p, 1, 1);
}

TEST_F(WEFT_SUITE, QemuProgramsOnEveryThreadGiveQemusExitCodeAndOutput) {
  SKIP_WITHOUT_QEMU();
  for (const QemuProgram& p : qemu_references()) run_program_like_qemu(p, kWarps, kThreads);
}

// =============================================================================================
// Divergence in C
// =============================================================================================

TEST_F(WEFT_SUITE, DivergenceKernelHasAJumpTableInRodataAndRecursiveCalls) {
  SKIP_WITHOUT_ELFS();
  for (const auto& opt : split(WEFT_SIMT_PROG_OPTS)) {
    SCOPED_TRACE("-" + opt);
    const ElfFile e = program("divergence_" + opt + ".elf");
    const ElfFile::Symbol* sw = e.find_symbol("dv_switch");
    const ElfFile::Section* ro = e.section(".rodata");
    const ElfFile::Section* text = e.section(".text");
    ASSERT_TRUE(sw && ro && text);
    ASSERT_GT(sw->size, 0u);
    // The table: consecutive .rodata words that are addresses inside dv_switch (one per case).
    uint32_t run = 0, best = 0;
    for (uint32_t off = 0; off + 4 <= ro->size; off += 4) {
      const uint32_t w = e.u32(ro->offset + off);
      run = (w >= sw->value && w < sw->value + sw->size && w % 4 == 0) ? run + 1 : 0;
      best = std::max(best, run);
    }
    EXPECT_GE(best, 12u) << "no jump table of dv_switch's 12 cases in .rodata";
    // .rodata is part of the loaded image (below __weft_image_end), so loads can read it.
    EXPECT_LE(ro->addr + ro->size, e.symbol("__weft_image_end"));
    // dv_switch jumps through a register (jalr x0, 0(rs), rs != ra): the table dispatch.
    // dv_fib and dv_rec_sum call themselves (jal ra to their own start).
    auto code = [&](const ElfFile::Symbol& s) {
      std::vector<std::pair<uint32_t, uint32_t>> v;  // pc, word
      for (uint32_t pc = s.value; pc < s.value + s.size; pc += 4)
        v.push_back({pc, e.u32(text->offset + pc - text->addr)});
      return v;
    };
    bool indirect = false;
    for (auto [pc, w] : code(*sw)) {
      indirect |= (w & 0x7F) == 0x67 && ((w >> 7) & 31) == 0 && ((w >> 15) & 31) != 1;
    }
    EXPECT_TRUE(indirect) << "dv_switch has no indirect jump";
    for (const char* f : {"dv_fib", "dv_rec_sum", "dv_qsort"}) {
      const ElfFile::Symbol* s = e.find_symbol(f);
      ASSERT_TRUE(s) << f;
      bool self_call = false;
      for (auto [pc, w] : code(*s)) {
        if ((w & 0xFFF) != 0x0EF) continue;  // jal ra, offset (J-type, ISA 2.5)
        const int32_t off = static_cast<int32_t>(((w >> 31) & 1) << 20 | ((w >> 12) & 0xFF) << 12 |
                                                 ((w >> 20) & 1) << 11 | ((w >> 21) & 0x3FF) << 1)
                                << 11 >>
                            11;
        self_call |= pc + static_cast<uint32_t>(off) == s->value;
      }
      EXPECT_TRUE(self_call) << f << " does not call itself";
    }
  }
}

TEST_F(WEFT_SUITE, DivergenceKernelMatchesHostComputationAndGolden) {
  SKIP_WITHOUT_ELFS();
  auto rng = weft::tb::make_rng();
  const std::vector<std::pair<uint32_t, uint32_t>> shapes = {
      {kWarps, kThreads}, {std::max(1u, kWarps - 1), std::max(1u, kThreads - 1)}};
  for (const auto& opt : split(WEFT_SIMT_PROG_OPTS)) {
    const ElfFile e = program("divergence_" + opt + ".elf");
    expect_image_below(e, kDvArgs);
    for (int round = 0; round < 6; ++round) {
      const auto [warps, threads] = shapes[round % shapes.size()];
      SCOPED_TRACE("-" + opt + " on " + std::to_string(warps) + " x " + std::to_string(threads) +
                   ", data set " + std::to_string(round));
      const uint32_t n = warps * threads;
      Kernel k = kernel_from_elf(e);
      set_shape(k, warps, threads);
      k.launch.arg_ptr = kDvArgs;
      k.launch.stack_top = kStackTop;
      k.launch.stack_size_per_thread = kStackSize;
      k.max_issues = 2'000'000;
      k.put32(kDvArgs, kDvIn);
      k.put32(kDvArgs + 4, kDvOut);
      std::vector<std::array<uint32_t, DV_IN_WORDS>> in(n);
      for (uint32_t t = 0; t < n; ++t) {
        for (uint32_t i = 0; i < DV_IN_WORDS; ++i) {
          in[t][i] = static_cast<uint32_t>(rng());
          k.put32(kDvIn + 4 * (DV_IN_WORDS * t + i), in[t][i]);
        }
      }
      const Both b = run_and_compare(k);
      ASSERT_TRUE(b.rtl.finished);
      ASSERT_EQ(b.rtl.error.code, ErrorCode::None) << b.rtl.error.message();
      uint32_t early = 0;
      for (uint32_t t = 0; t < n; ++t) {
        std::array<uint32_t, DV_OUT_WORDS> want{};
        const uint32_t code = dv_thread(in[t].data(), want.data());
        early += code >= 0x1000 && code < 0x1100 && in[t][3] % 5 == 0;
        EXPECT_EQ(b.rtl.threads.at(t).exit_code, code) << "thread " << t;
        for (uint32_t i = 0; i < DV_OUT_WORDS; ++i) {
          EXPECT_EQ(get32(b.rtl_mem, kDvOut + 4 * (DV_OUT_WORDS * t + i)), want[i])
              << "thread " << t << " out[" << i << "], in " << hex(in[t][0]) << " " << hex(in[t][1])
              << " " << hex(in[t][2]) << " " << hex(in[t][3]);
        }
      }
      weft::tb::verbose_printf(
          "[divergence] -%s %ux%u: %u early exits, %u cycles, issued %u for %u thread "
          "instructions\n",
          opt.c_str(), warps, threads, early, b.rtl.perf_cycles, b.rtl.perf_issued,
          b.rtl.perf_active);
    }
  }
}
