// SIMT model on C compiled by Debian's riscv64-unknown-elf-gcc (-march=rv32im -mabi=ilp32), built
// at build time from test_simt_elf.c by simt.cmake:
// - a single-threaded checksum program (-O0 and -O2, one ELF per checksum byte): the model's exit
//   code equals qemu-riscv32's exit status (the independent reference);
// - a SIMT kernel on 4 warps x 8 threads (CSRs, per-thread stacks, a barrier, divergent loops): its
//   results equal Collatz step counts computed here.
// Skipped, with a message, when the toolchain or qemu-riscv32 was not found at configure time.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "weft/golden/simt.hpp"

namespace s = weft::golden::simt;

namespace {

const std::string kElfDir = WEFT_SIMT_ELF_DIR;
const std::string kQemu = WEFT_QEMU_RISCV32;

bool have_toolchain() { return !kElfDir.empty() && !kQemu.empty(); }
#define SKIP_WITHOUT_TOOLCHAIN()                                                         \
  if (!have_toolchain())                                                                 \
  GTEST_SKIP() << "riscv64-unknown-elf-gcc or qemu-riscv32 not found at configure time " \
                  "(apt-get install gcc-riscv64-unknown-elf qemu-user), ELF tests skipped"

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

s::Config big_config() { return {.dmem_bytes = 256 * 1024, .imem_bytes = 256 * 1024}; }

}  // namespace

TEST(SimtElf, ChecksumProgramExitCodeMatchesQemu) {
  SKIP_WITHOUT_TOOLCHAIN();
  for (const char* opt : {"O0", "O2"}) {
    for (int part = 0; part < 4; ++part) {
      const std::string elf = kElfDir + "/checksum_" + opt + "_" + std::to_string(part) + ".elf";
      const int status = std::system((kQemu + " " + elf).c_str());
      ASSERT_TRUE(WIFEXITED(status)) << "qemu-riscv32 " << elf << " did not exit normally";
      const int want = WEXITSTATUS(status);

      s::Machine m(big_config());
      const uint32_t entry = s::load_elf(m, read_file(elf));
      const s::Result r = m.run({.entry_pc = entry, .num_warps = 1, .threads_per_warp = 1});
      ASSERT_TRUE(r.ok()) << elf << ": " << r.error.message();
      EXPECT_TRUE(r.threads[0].exited);
      EXPECT_EQ(r.threads[0].exit_code, static_cast<uint32_t>(want)) << elf;
      EXPECT_GT(r.threads[0].retired, 10000u) << elf;  // it really ran
    }
  }
}

TEST(SimtElf, CollatzKernelOnFourWarpsWithBarrier) {
  SKIP_WITHOUT_TOOLCHAIN();
  s::Machine m(big_config());
  const uint32_t entry = s::load_elf(m, read_file(kElfDir + "/kernel_collatz.elf"));
  const uint32_t args = 0x30000, steps_addr = 0x30100, first = 27;
  m.write32(args, first);
  m.write32(args + 4, steps_addr);
  const s::Launch l{.entry_pc = entry,
                    .num_warps = 4,
                    .threads_per_warp = 8,
                    .arg_ptr = args,
                    .stack_top = 0x3F000,
                    .stack_size_per_thread = 1024};
  const s::Result r = m.run(l);
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.barriers, 1u);
  EXPECT_EQ(r.total_retired(), r.total_active_threads());
  std::vector<uint32_t> want(32);
  for (uint32_t t = 0; t < 32; ++t) {
    for (uint64_t n = first + t; n != 1; n = n % 2 ? 3 * n + 1 : n / 2) ++want[t];
  }
  EXPECT_EQ(want[0], 111u);  // 27 takes 111 steps (a well-known value)
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(m.read32(steps_addr + 4 * t), want[t]) << "thread " << t;
    EXPECT_EQ(r.threads[t].exit_code, want[(t + 1) % 32]) << "thread " << t;
  }
  // Divergent loops: warps issue fewer instructions than their threads retire in total.
  for (uint32_t w = 0; w < 4; ++w) EXPECT_LT(r.warp_issues[w], r.warp_active_threads[w]);
}

TEST(SimtElf, LoaderRejectsMalformedFiles) {
  s::Machine m;
  std::vector<uint8_t> junk(64, 0);
  EXPECT_THROW(s::load_elf(m, junk), std::runtime_error);
  std::vector<uint8_t> hdr(52, 0);
  hdr[0] = 0x7F, hdr[1] = 'E', hdr[2] = 'L', hdr[3] = 'F', hdr[4] = 2;  // ELFCLASS64
  EXPECT_THROW(s::load_elf(m, hdr), std::runtime_error);
  hdr[4] = 1, hdr[5] = 1, hdr[16] = 2, hdr[18] = 62;  // EM_X86_64
  EXPECT_THROW(s::load_elf(m, hdr), std::runtime_error);
  if (!have_toolchain()) return;
  // A real file that does not fit a small scratchpad.
  s::Machine small({.dmem_bytes = 4096, .imem_bytes = 4096});
  EXPECT_THROW(s::load_elf(small, read_file(kElfDir + "/checksum_O2_0.elf")), std::runtime_error);
}

// A hand-built ELF (no toolchain needed): a code segment and a data segment whose p_memsz exceeds
// p_filesz (zero fill), placed at their p_vaddr; the code runs from e_entry.
TEST(SimtElf, LoaderPlacesSegmentsAndZeroFillsBss) {
  namespace rv = weft::golden::simt::rv;
  std::vector<uint32_t> code = {rv::li(rv::t0, 0x400)[0],       rv::lw(rv::a0, rv::t0, 0),
                                rv::lw(rv::a1, rv::t0, 4),      rv::add(rv::a0, rv::a0, rv::a1),
                                rv::addi(rv::a7, rv::zero, 93), rv::ecall()};
  std::vector<uint8_t> f(52 + 2 * 32, 0);
  auto put16 = [&](size_t off, uint32_t v) { f[off] = v & 0xFF, f[off + 1] = (v >> 8) & 0xFF; };
  auto put32 = [&](size_t off, uint32_t v) { put16(off, v & 0xFFFF), put16(off + 2, v >> 16); };
  f[0] = 0x7F, f[1] = 'E', f[2] = 'L', f[3] = 'F', f[4] = 1, f[5] = 1, f[6] = 1;
  put16(16, 2);    // ET_EXEC
  put16(18, 243);  // EM_RISCV
  put32(20, 1);
  put32(24, 0x100);  // e_entry
  put32(28, 52);     // e_phoff
  put16(40, 52), put16(42, 32), put16(44, 2);
  const uint32_t code_off = 116, data_off = code_off + 4 * static_cast<uint32_t>(code.size());
  // PT_LOAD code: offset, vaddr, paddr, filesz, memsz, flags R|X
  put32(52, 1), put32(56, code_off), put32(60, 0x100), put32(64, 0x100);
  put32(68, 4 * code.size()), put32(72, 4 * code.size()), put32(76, 5);
  // PT_LOAD data: 4 bytes in the file (0x29), 8 in memory (the second word zero-filled)
  put32(84, 1), put32(88, data_off), put32(92, 0x400), put32(96, 0x400);
  put32(100, 4), put32(104, 8), put32(108, 6);
  for (uint32_t w : code)
    for (int i = 0; i < 4; ++i) f.push_back((w >> (8 * i)) & 0xFF);
  for (uint8_t b : {0x29, 0, 0, 0}) f.push_back(b);
  ASSERT_EQ(f.size(), data_off + 4u);

  s::Machine m;
  m.write32(0x404, 0xFFFFFFFF);  // must be cleared by the zero fill
  EXPECT_EQ(s::load_elf(m, f), 0x100u);
  EXPECT_EQ(m.imem_word(0x104), code[1]);
  EXPECT_EQ(m.read32(0x104), code[1]);  // code is also in the scratchpad
  EXPECT_EQ(m.read32(0x400), 0x29u);
  EXPECT_EQ(m.read32(0x404), 0u);
  EXPECT_EQ(m.imem_word(0x400), 0u);  // data is not in instruction memory
  const auto r = m.run({.entry_pc = 0x100, .num_warps = 1, .threads_per_warp = 1});
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.threads[0].exit_code, 0x29u);
}
