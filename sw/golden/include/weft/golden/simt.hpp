// Weft golden model of the SIMT core: W warps x T threads, every thread an RV32IM hart with its own
// PC and registers, and the warp scheduler's min-PC reconvergence rule. Functional only (no
// timing); written for clarity. docs/simt-model.md is the full definition; spec references are to
// the RISC-V unprivileged ISA v20191213 ("ISA") and, for CSR address ranges, the privileged spec
// v20190608 Table 2.1 ("Priv").
//
// Results are defined for programs whose threads interact only through barriers (race-free); for
// them every interleaving of warps gives the same final memory, exit codes and per-thread
// retired-instruction counts, and min-PC issue gives the same per-warp issue counts.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace weft::golden::simt {

// ---------------------------------------------------------------------------------------------
// Kernel ABI: CSRs, barrier, exit
// ---------------------------------------------------------------------------------------------

// Per-thread read-only CSRs in the user custom read-only range 0xCC0..0xCFF (Priv Table 2.1).
// Read with `csrr rd, 0xCC0` (= CSRRS rd, csr, x0). Any access that would write them is an illegal
// instruction (Priv 2.1: writes to read-only CSRs), as is any other CSR number.
inline constexpr uint32_t kCsrThreadId = 0xCC0;        // warp_id * threads_per_warp + lane_id
inline constexpr uint32_t kCsrWarpId = 0xCC1;          // 0 .. num_warps-1
inline constexpr uint32_t kCsrLaneId = 0xCC2;          // 0 .. threads_per_warp-1
inline constexpr uint32_t kCsrBlockId = 0xCC3;         // Launch::block_id
inline constexpr uint32_t kCsrNumThreads = 0xCC4;      // num_warps * threads_per_warp
inline constexpr uint32_t kCsrArgPtr = 0xCC5;          // Launch::arg_ptr
inline constexpr uint32_t kCsrNumWarps = 0xCC6;        // Launch::num_warps
inline constexpr uint32_t kCsrThreadsPerWarp = 0xCC7;  // Launch::threads_per_warp

// Barrier: any CSR instruction that writes CSR 0x8C0 (user custom read/write range 0x800..0x8FF,
// Priv Table 2.1), normally `csrw 0x8C0, zero` = CSRRW x0, 0x8C0, x0 = 0x8C001073. The written
// value is ignored; rd (if not x0) receives 0. An instruction that only reads 0x8C0 (CSRRS/CSRRC
// with rs1 = x0, CSRRSI/CSRRCI with uimm = 0) returns 0 and is not a barrier.
inline constexpr uint32_t kCsrBarrier = 0x8C0;

// `ecall` with a7 = 93 (the Linux/newlib exit number) retires the thread with a0 as exit code.
inline constexpr uint32_t kSyscallExit = 93;

// ---------------------------------------------------------------------------------------------
// Configuration, launch, results
// ---------------------------------------------------------------------------------------------

struct Config {
  uint32_t dmem_bytes = 64 * 1024;  // scratchpad: data addresses [0, dmem_bytes)
  uint32_t imem_bytes = 16 * 1024;  // instruction memory: fetch addresses [0, imem_bytes)
  // Stop with ErrorCode::StepLimit after this many warp issues (catches hung kernels).
  uint64_t max_warp_issues = 50'000'000;
};

// One launch of num_warps x threads_per_warp threads, all starting at entry_pc. Thread t
// (t = warp * threads_per_warp + lane) starts with every register 0 except
//   sp (x2) = stack_top - t * stack_size_per_thread   (its stack: the stack_size bytes below)
//   a0 (x10) = arg_ptr
//   a1 (x11) = t
// stack_top and stack_size_per_thread must be multiples of 16 (psABI stack alignment) and
// stack_top >= (num_threads - 1) * stack_size_per_thread.
struct Launch {
  uint32_t entry_pc = 0;
  uint32_t num_warps = 4;
  uint32_t threads_per_warp = 8;
  uint32_t block_id = 0;
  uint32_t arg_ptr = 0;
  uint32_t stack_top = 0;
  uint32_t stack_size_per_thread = 0;
};

// Why a launch stopped early. Numbers are part of the contract (RTL and driver report the same).
enum class ErrorCode : uint32_t {
  None = 0,
  IllegalInstruction = 1,  // not RV32IM/our Zicsr subset, or a write to a read-only/unknown CSR
  Breakpoint = 2,          // EBREAK
  FetchMisaligned = 3,     // taken branch/jump target (reported at the jump) or entry_pc not %4
  FetchOutOfRange = 4,     // pc + 4 > imem_bytes
  LoadMisaligned = 5,      // address not a multiple of the access size
  LoadOutOfRange = 6,      // address + size > dmem_bytes
  StoreMisaligned = 7,
  StoreOutOfRange = 8,
  UnsupportedEcall = 9,  // ecall with a7 != 93
  StepLimit = 10,        // Config::max_warp_issues reached
};

const char* to_string(ErrorCode c);

struct Error {
  ErrorCode code = ErrorCode::None;
  uint32_t pc = 0;      // pc of the faulting instruction
  uint32_t thread = 0;  // thread id (lowest faulting lane of the first faulting issue)
  uint32_t tval = 0;    // the address (memory/fetch faults) or instruction word (illegal)
  std::string message() const;
};

struct ThreadState {
  uint32_t pc = 0;
  std::array<uint32_t, 32> x{};  // x[0] is always 0
  bool exited = false;
  bool at_barrier = false;
  uint32_t exit_code = 0;  // a0 at the exit ecall
  uint64_t retired = 0;    // instructions completed, including the exit ecall and barriers
};

struct Result {
  Error error;                       // code None: every thread exited
  std::vector<ThreadState> threads;  // by thread id
  // Min-PC issue statistics, per warp: instructions issued and the sum over issues of the number
  // of threads that executed it (active lanes).
  std::vector<uint64_t> warp_issues;
  std::vector<uint64_t> warp_active_threads;
  uint64_t barriers = 0;  // barrier releases
  bool ok() const { return error.code == ErrorCode::None; }
  uint64_t total_issues() const;
  uint64_t total_active_threads() const;
  uint64_t total_retired() const;
};

// ---------------------------------------------------------------------------------------------
// The machine: scratchpad + instruction memory, persistent across launches
// ---------------------------------------------------------------------------------------------

class Machine {
 public:
  explicit Machine(const Config& cfg = {});
  const Config& config() const { return cfg_; }

  // Scratchpad (little-endian bytes). Accessors throw std::out_of_range outside the memory.
  std::vector<uint8_t>& dmem() { return dmem_; }
  const std::vector<uint8_t>& dmem() const { return dmem_; }
  void write_dmem(uint32_t addr, std::span<const uint8_t> bytes);
  void write32(uint32_t addr, uint32_t value);
  uint32_t read32(uint32_t addr) const;

  // Instruction memory (32-bit words, little-endian when loaded as bytes).
  void load_imem(uint32_t addr, std::span<const uint32_t> words);
  void load_imem_bytes(uint32_t addr, std::span<const uint8_t> bytes);
  uint32_t imem_word(uint32_t addr) const;

  // Runs a launch to completion (all threads exited) or to the first error. Throws
  // std::invalid_argument for an invalid Launch.
  Result run(const Launch& launch);

 private:
  Config cfg_;
  std::vector<uint8_t> dmem_;
  std::vector<uint8_t> imem_;
};

// Minimal ELF32 reader (little-endian, EM_RISCV, ET_EXEC): the entry point and every non-empty
// PT_LOAD segment (p_filesz file bytes, then zeros up to p_memsz; exec = PF_X). Throws
// std::runtime_error ("ELF: ...") on a malformed or unsupported file.
struct ElfSegment {
  uint32_t addr = 0;
  std::vector<uint8_t> bytes;
  bool exec = false;
};
struct ElfImage {
  uint32_t entry = 0;
  std::vector<ElfSegment> segments;
};
ElfImage parse_elf(std::span<const uint8_t> elf);

// parse_elf, then every segment into the scratchpad at its address, executable ones also into
// instruction memory. Returns the entry point. Throws std::runtime_error on a malformed file or
// a segment that does not fit.
uint32_t load_elf(Machine& m, std::span<const uint8_t> elf);

// ---------------------------------------------------------------------------------------------
// Encoder (ISA 2.2/2.3 formats; Chapter 24 Table 24.2 opcodes), for tests and hand-written code
// ---------------------------------------------------------------------------------------------
namespace rv {

// Register numbers (ABI names, ISA Chapter 25 Table 25.1 / psABI).
// clang-format off
enum Reg : uint32_t {
  zero = 0, ra = 1, sp = 2, gp = 3, tp = 4, t0 = 5, t1 = 6, t2 = 7, s0 = 8, s1 = 9,
  a0 = 10, a1 = 11, a2 = 12, a3 = 13, a4 = 14, a5 = 15, a6 = 16, a7 = 17,
  s2 = 18, s3 = 19, s4 = 20, s5 = 21, s6 = 22, s7 = 23, s8 = 24, s9 = 25, s10 = 26, s11 = 27,
  t3 = 28, t4 = 29, t5 = 30, t6 = 31,
};
// clang-format on

// Raw formats. Immediates are the instruction's value (byte offsets for B/J, upper 20 bits for U
// given as imm20); they are checked for range and alignment (std::invalid_argument).
uint32_t r_type(uint32_t funct7, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t rd,
                uint32_t opcode);
uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t funct3, uint32_t rd, uint32_t opcode);
uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t opcode);
uint32_t b_type(int32_t offset, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t opcode);
uint32_t u_type(uint32_t imm20, uint32_t rd, uint32_t opcode);
uint32_t j_type(int32_t offset, uint32_t rd, uint32_t opcode);

// RV32I (ISA Chapter 2)
uint32_t lui(uint32_t rd, uint32_t imm20);
uint32_t auipc(uint32_t rd, uint32_t imm20);
uint32_t jal(uint32_t rd, int32_t offset);
uint32_t jalr(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t beq(uint32_t rs1, uint32_t rs2, int32_t offset);
uint32_t bne(uint32_t rs1, uint32_t rs2, int32_t offset);
uint32_t blt(uint32_t rs1, uint32_t rs2, int32_t offset);
uint32_t bge(uint32_t rs1, uint32_t rs2, int32_t offset);
uint32_t bltu(uint32_t rs1, uint32_t rs2, int32_t offset);
uint32_t bgeu(uint32_t rs1, uint32_t rs2, int32_t offset);
uint32_t lb(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t lh(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t lbu(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t lhu(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t sb(uint32_t rs2, uint32_t rs1, int32_t imm);
uint32_t sh(uint32_t rs2, uint32_t rs1, int32_t imm);
uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm);
uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t slti(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t sltiu(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t xori(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t ori(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t andi(uint32_t rd, uint32_t rs1, int32_t imm);
uint32_t slli(uint32_t rd, uint32_t rs1, uint32_t shamt);
uint32_t srli(uint32_t rd, uint32_t rs1, uint32_t shamt);
uint32_t srai(uint32_t rd, uint32_t rs1, uint32_t shamt);
uint32_t add(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t sub(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t sll(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t slt(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t sltu(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t xor_(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t srl(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t sra(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t or_(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t and_(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t fence();  // fence iorw, iorw
uint32_t ecall();
uint32_t ebreak();
// RV32M (ISA Chapter 7)
uint32_t mul(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t mulh(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t mulhsu(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t mulhu(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t div(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t divu(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t rem(uint32_t rd, uint32_t rs1, uint32_t rs2);
uint32_t remu(uint32_t rd, uint32_t rs1, uint32_t rs2);
// Zicsr (ISA Chapter 9)
uint32_t csrrw(uint32_t rd, uint32_t csr, uint32_t rs1);
uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1);
uint32_t csrrc(uint32_t rd, uint32_t csr, uint32_t rs1);
uint32_t csrrwi(uint32_t rd, uint32_t csr, uint32_t uimm);
uint32_t csrrsi(uint32_t rd, uint32_t csr, uint32_t uimm);
uint32_t csrrci(uint32_t rd, uint32_t csr, uint32_t uimm);
// Pseudo-instructions and Weft idioms
uint32_t nop();
uint32_t csrr(uint32_t rd, uint32_t csr);               // csrrs rd, csr, x0
uint32_t barrier();                                     // csrrw x0, 0x8C0, x0
std::vector<uint32_t> li(uint32_t rd, uint32_t value);  // lui+addi (or addi alone)
std::vector<uint32_t> exit_with(uint32_t code);         // li a0, code; li a7, 93; ecall

// A straight-line program with labels for branch and jump targets, resolved by words().
//   Program p;  p << rv::addi(t0, zero, 3);  p.label("loop");  p << rv::addi(t0, t0, -1);
//   p.branch(rv::bne, t0, zero, "loop");  m.load_imem(0, p.words());
class Program {
 public:
  explicit Program(uint32_t base = 0) : base_(base) {}
  Program& operator<<(uint32_t word);
  Program& operator<<(const std::vector<uint32_t>& words);
  Program& label(const std::string& name);  // names the next instruction
  Program& branch(uint32_t (*op)(uint32_t, uint32_t, int32_t), uint32_t rs1, uint32_t rs2,
                  const std::string& target);
  Program& jal(uint32_t rd, const std::string& target);
  uint32_t pc() const { return base_ + 4 * static_cast<uint32_t>(words_.size()); }  // next pc
  uint32_t address_of(const std::string& label) const;  // throws std::out_of_range if unknown
  std::vector<uint32_t> words() const;  // throws std::invalid_argument on an unknown label

 private:
  struct Fixup {
    size_t index;
    std::string target;
    std::function<uint32_t(int32_t)> encode;
  };
  uint32_t base_;
  std::vector<uint32_t> words_;
  std::map<std::string, uint32_t> labels_;
  std::vector<Fixup> fixups_;
};

}  // namespace rv

}  // namespace weft::golden::simt
