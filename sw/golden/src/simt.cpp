// SIMT functional model: RV32IM harts (ISA v20191213 Chapter 2 RV32I, Chapter 7 "M", the CSR
// instructions of Chapter 9 "Zicsr" for Weft's own CSRs), grouped in warps that issue by the
// min-PC rule. docs/simt-model.md defines the semantics implemented here.
#include "weft/golden/simt.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace weft::golden::simt {

const char* to_string(ErrorCode c) {
  switch (c) {
    case ErrorCode::None:
      return "none";
    case ErrorCode::IllegalInstruction:
      return "illegal instruction";
    case ErrorCode::Breakpoint:
      return "breakpoint (ebreak)";
    case ErrorCode::FetchMisaligned:
      return "instruction address misaligned";
    case ErrorCode::FetchOutOfRange:
      return "instruction fetch out of range";
    case ErrorCode::LoadMisaligned:
      return "load address misaligned";
    case ErrorCode::LoadOutOfRange:
      return "load out of range";
    case ErrorCode::StoreMisaligned:
      return "store address misaligned";
    case ErrorCode::StoreOutOfRange:
      return "store out of range";
    case ErrorCode::UnsupportedEcall:
      return "unsupported ecall";
    case ErrorCode::StepLimit:
      return "step limit reached";
  }
  return "unknown";
}

std::string Error::message() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s at pc 0x%08x, thread %u (tval 0x%08x)", to_string(code), pc,
                thread, tval);
  return buf;
}

uint64_t Result::total_issues() const {
  uint64_t s = 0;
  for (uint64_t v : warp_issues) s += v;
  return s;
}
uint64_t Result::total_active_threads() const {
  uint64_t s = 0;
  for (uint64_t v : warp_active_threads) s += v;
  return s;
}
uint64_t Result::total_retired() const {
  uint64_t s = 0;
  for (const auto& t : threads) s += t.retired;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Memories
// ---------------------------------------------------------------------------------------------

Machine::Machine(const Config& cfg)
    : cfg_(cfg), dmem_(cfg.dmem_bytes, 0), imem_(cfg.imem_bytes, 0) {}

namespace {
void check_range(uint64_t addr, uint64_t len, size_t size, const char* what) {
  if (addr + len > size) {
    throw std::out_of_range(std::string(what) + ": [" + std::to_string(addr) + ", +" +
                            std::to_string(len) + ") outside " + std::to_string(size) + " bytes");
  }
}
}  // namespace

void Machine::write_dmem(uint32_t addr, std::span<const uint8_t> bytes) {
  check_range(addr, bytes.size(), dmem_.size(), "dmem write");
  std::copy(bytes.begin(), bytes.end(), dmem_.begin() + addr);
}

void Machine::write32(uint32_t addr, uint32_t value) {
  check_range(addr, 4, dmem_.size(), "dmem write32");
  for (int i = 0; i < 4; ++i) dmem_[addr + i] = static_cast<uint8_t>(value >> (8 * i));
}

uint32_t Machine::read32(uint32_t addr) const {
  check_range(addr, 4, dmem_.size(), "dmem read32");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{dmem_[addr + i]} << (8 * i);
  return v;
}

void Machine::load_imem(uint32_t addr, std::span<const uint32_t> words) {
  check_range(addr, uint64_t{4} * words.size(), imem_.size(), "imem load");
  for (size_t w = 0; w < words.size(); ++w) {
    for (int i = 0; i < 4; ++i) imem_[addr + 4 * w + i] = static_cast<uint8_t>(words[w] >> (8 * i));
  }
}

void Machine::load_imem_bytes(uint32_t addr, std::span<const uint8_t> bytes) {
  check_range(addr, bytes.size(), imem_.size(), "imem load");
  std::copy(bytes.begin(), bytes.end(), imem_.begin() + addr);
}

uint32_t Machine::imem_word(uint32_t addr) const {
  check_range(addr, 4, imem_.size(), "imem read");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{imem_[addr + i]} << (8 * i);
  return v;
}

// ---------------------------------------------------------------------------------------------
// One instruction of one thread
// ---------------------------------------------------------------------------------------------

namespace {

// Sign-extend the low `bits` bits of v.
uint32_t sext(uint32_t v, int bits) {
  const uint32_t m = 1u << (bits - 1);
  v &= bits == 32 ? ~0u : (1u << bits) - 1;
  return (v ^ m) - m;
}

int32_t as_signed(uint32_t v) { return static_cast<int32_t>(v); }

// The values a thread reads through its CSRs.
struct ThreadIds {
  uint32_t thread, warp, lane, block, num_threads, arg_ptr, num_warps, threads_per_warp;
};

enum class Outcome { Next, Exit, Barrier, Fault };
struct Step {
  Outcome outcome = Outcome::Next;
  ErrorCode code = ErrorCode::None;
  uint32_t tval = 0;
};
Step fault(ErrorCode c, uint32_t tval) { return {Outcome::Fault, c, tval}; }

class Hart {
 public:
  Hart(ThreadState& t, std::vector<uint8_t>& dmem, const ThreadIds& ids)
      : t_(t), dmem_(dmem), ids_(ids) {}

  // Executes `insn` at t.pc; on a fault nothing of the thread's state changes.
  Step execute(uint32_t insn) {
    const uint32_t opcode = insn & 0x7F;
    const uint32_t rd = (insn >> 7) & 31, funct3 = (insn >> 12) & 7;
    const uint32_t rs1 = (insn >> 15) & 31, rs2 = (insn >> 20) & 31, funct7 = insn >> 25;
    // Immediates, ISA 2.3 Figure 2.4.
    const uint32_t imm_i = sext(insn >> 20, 12);
    const uint32_t imm_s = sext((insn >> 25) << 5 | ((insn >> 7) & 0x1F), 12);
    const uint32_t imm_b = sext((insn >> 31) << 12 | ((insn >> 7) & 1) << 11 |
                                    ((insn >> 25) & 0x3F) << 5 | ((insn >> 8) & 0xF) << 1,
                                13);
    const uint32_t imm_u = insn & 0xFFFFF000u;
    const uint32_t imm_j = sext((insn >> 31) << 20 | ((insn >> 12) & 0xFF) << 12 |
                                    ((insn >> 20) & 1) << 11 | ((insn >> 21) & 0x3FF) << 1,
                                21);
    const uint32_t a = t_.x[rs1], b = t_.x[rs2], pc = t_.pc;
    const Step illegal = fault(ErrorCode::IllegalInstruction, insn);

    switch (opcode) {
      case 0b0110111:  // LUI (2.4)
        return write_next(rd, imm_u);
      case 0b0010111:  // AUIPC (2.4)
        return write_next(rd, pc + imm_u);
      case 0b1101111:  // JAL (2.5)
        return jump(rd, pc + imm_j);
      case 0b1100111:  // JALR (2.5): target (rs1 + imm) with bit 0 cleared
        if (funct3 != 0) return illegal;
        return jump(rd, (a + imm_i) & ~1u);
      case 0b1100011: {  // BRANCH (2.5)
        bool taken;
        switch (funct3) {
          case 0b000:
            taken = a == b;
            break;
          case 0b001:
            taken = a != b;
            break;
          case 0b100:
            taken = as_signed(a) < as_signed(b);
            break;
          case 0b101:
            taken = as_signed(a) >= as_signed(b);
            break;
          case 0b110:
            taken = a < b;
            break;
          case 0b111:
            taken = a >= b;
            break;
          default:
            return illegal;
        }
        if (!taken) return write_next(0, 0);
        const uint32_t target = pc + imm_b;
        if (target % 4 != 0) return fault(ErrorCode::FetchMisaligned, target);
        t_.pc = target;
        return {};
      }
      case 0b0000011: {  // LOAD (2.6)
        uint32_t size;
        switch (funct3) {
          case 0b000:
          case 0b100:
            size = 1;
            break;
          case 0b001:
          case 0b101:
            size = 2;
            break;
          case 0b010:
            size = 4;
            break;
          default:
            return illegal;
        }
        const uint32_t addr = a + imm_i;
        if (addr % size != 0) return fault(ErrorCode::LoadMisaligned, addr);
        if (uint64_t{addr} + size > dmem_.size()) return fault(ErrorCode::LoadOutOfRange, addr);
        uint32_t v = 0;
        for (uint32_t i = 0; i < size; ++i) v |= uint32_t{dmem_[addr + i]} << (8 * i);
        if (funct3 == 0b000) v = sext(v, 8);
        if (funct3 == 0b001) v = sext(v, 16);
        return write_next(rd, v);
      }
      case 0b0100011: {  // STORE (2.6)
        if (funct3 > 0b010) return illegal;
        const uint32_t size = 1u << funct3;
        const uint32_t addr = a + imm_s;
        if (addr % size != 0) return fault(ErrorCode::StoreMisaligned, addr);
        if (uint64_t{addr} + size > dmem_.size()) return fault(ErrorCode::StoreOutOfRange, addr);
        for (uint32_t i = 0; i < size; ++i) dmem_[addr + i] = static_cast<uint8_t>(b >> (8 * i));
        return write_next(0, 0);
      }
      case 0b0010011: {              // OP-IMM (2.4)
        const uint32_t shamt = rs2;  // imm[4:0]
        switch (funct3) {
          case 0b000:
            return write_next(rd, a + imm_i);  // ADDI
          case 0b010:
            return write_next(rd, as_signed(a) < as_signed(imm_i) ? 1 : 0);  // SLTI
          case 0b011:
            return write_next(rd, a < imm_i ? 1 : 0);  // SLTIU
          case 0b100:
            return write_next(rd, a ^ imm_i);  // XORI
          case 0b110:
            return write_next(rd, a | imm_i);  // ORI
          case 0b111:
            return write_next(rd, a & imm_i);  // ANDI
          case 0b001:  // SLLI (imm[11:5] = 0; imm[5] = 1 is reserved on RV32)
            if (funct7 != 0) return illegal;
            return write_next(rd, a << shamt);
          case 0b101:
            if (funct7 == 0) return write_next(rd, a >> shamt);  // SRLI
            if (funct7 == 0x20) {                                // SRAI
              return write_next(rd, static_cast<uint32_t>(as_signed(a) >> shamt));
            }
            return illegal;
        }
        return illegal;
      }
      case 0b0110011: {  // OP (2.4) and OP with funct7 = 1: RV32M (7.1, 7.2)
        const uint32_t sh = b & 31;
        if (funct7 == 0) {
          switch (funct3) {
            case 0b000:
              return write_next(rd, a + b);  // ADD
            case 0b001:
              return write_next(rd, a << sh);  // SLL
            case 0b010:
              return write_next(rd, as_signed(a) < as_signed(b) ? 1 : 0);  // SLT
            case 0b011:
              return write_next(rd, a < b ? 1 : 0);  // SLTU
            case 0b100:
              return write_next(rd, a ^ b);  // XOR
            case 0b101:
              return write_next(rd, a >> sh);  // SRL
            case 0b110:
              return write_next(rd, a | b);  // OR
            case 0b111:
              return write_next(rd, a & b);  // AND
          }
        } else if (funct7 == 0x20) {
          if (funct3 == 0b000) return write_next(rd, a - b);  // SUB
          if (funct3 == 0b101) {                              // SRA
            return write_next(rd, static_cast<uint32_t>(as_signed(a) >> sh));
          }
        } else if (funct7 == 1) {
          return write_next(rd, muldiv(funct3, a, b));
        }
        return illegal;
      }
      case 0b0001111:  // MISC-MEM: FENCE (2.7) is a no-op (one memory, in-order per thread);
        // FENCE.I (Zifencei, Chapter 3) is outside RV32IM: an illegal instruction by design.
        if (funct3 != 0) return illegal;
        return write_next(0, 0);
      case 0b1110011:  // SYSTEM
        if (funct3 == 0) {
          if (insn == 0x00000073u) {  // ECALL (2.8)
            if (t_.x[17] != kSyscallExit) return fault(ErrorCode::UnsupportedEcall, t_.x[17]);
            t_.exited = true;
            t_.exit_code = t_.x[10];
            return {Outcome::Exit};
          }
          if (insn == 0x00100073u) return fault(ErrorCode::Breakpoint, pc);  // EBREAK (2.8)
          return illegal;
        }
        if (funct3 == 0b100) return illegal;
        return csr(insn, rd, funct3, rs1);
    }
    return illegal;  // includes every encoding with bits [1:0] != 11 (no "C" extension)
  }

 private:
  Step write_next(uint32_t rd, uint32_t v) {
    if (rd != 0) t_.x[rd] = v;
    t_.pc += 4;
    return {};
  }

  // JAL/JALR: the target must be 4-byte aligned (no "C"); the exception is reported on the jump
  // itself (2.5) and rd is not written.
  Step jump(uint32_t rd, uint32_t target) {
    if (target % 4 != 0) return fault(ErrorCode::FetchMisaligned, target);
    if (rd != 0) t_.x[rd] = t_.pc + 4;
    t_.pc = target;
    return {};
  }

  // RV32M (7.1, 7.2; Table 7.1 for division by zero and overflow).
  static uint32_t muldiv(uint32_t funct3, uint32_t a, uint32_t b) {
    const int64_t sa = as_signed(a), sb = as_signed(b);
    const int32_t ia = as_signed(a), ib = as_signed(b);
    switch (funct3) {
      case 0b000:
        return a * b;  // MUL
      case 0b001:
        return static_cast<uint32_t>(static_cast<uint64_t>(sa * sb) >> 32);  // MULH
      case 0b010:  // MULHSU: signed rs1 x unsigned rs2; |product| < 2^63 fits int64
        return static_cast<uint32_t>(static_cast<uint64_t>(sa * static_cast<int64_t>(b)) >> 32);
      case 0b011:
        return static_cast<uint32_t>((uint64_t{a} * uint64_t{b}) >> 32);  // MULHU
      case 0b100:                                                         // DIV
        if (b == 0) return ~0u;
        if (ia == std::numeric_limits<int32_t>::min() && ib == -1) return a;
        return static_cast<uint32_t>(ia / ib);  // C++ truncates toward zero, as RISC-V
      case 0b101:
        return b == 0 ? ~0u : a / b;  // DIVU
      case 0b110:                     // REM (sign of the dividend)
        if (b == 0) return a;
        if (ia == std::numeric_limits<int32_t>::min() && ib == -1) return 0;
        return static_cast<uint32_t>(ia % ib);
      case 0b111:
        return b == 0 ? a : a % b;  // REMU
    }
    return 0;
  }

  // Zicsr (9.1) on Weft's CSRs. CSRRW/CSRRWI always write; CSRRS/CSRRC (and the I forms) write
  // only when rs1 (uimm) is not x0 (0).
  Step csr(uint32_t insn, uint32_t rd, uint32_t funct3, uint32_t rs1) {
    const uint32_t num = insn >> 20;
    const bool writes = (funct3 & 3) == 1 || rs1 != 0;
    if (num == kCsrBarrier) {
      if (rd != 0) t_.x[rd] = 0;
      t_.pc += 4;
      return writes ? Step{Outcome::Barrier} : Step{};
    }
    uint32_t v;
    switch (num) {
      case kCsrThreadId:
        v = ids_.thread;
        break;
      case kCsrWarpId:
        v = ids_.warp;
        break;
      case kCsrLaneId:
        v = ids_.lane;
        break;
      case kCsrBlockId:
        v = ids_.block;
        break;
      case kCsrNumThreads:
        v = ids_.num_threads;
        break;
      case kCsrArgPtr:
        v = ids_.arg_ptr;
        break;
      case kCsrNumWarps:
        v = ids_.num_warps;
        break;
      case kCsrThreadsPerWarp:
        v = ids_.threads_per_warp;
        break;
      default:
        return fault(ErrorCode::IllegalInstruction, insn);
    }
    if (writes) return fault(ErrorCode::IllegalInstruction, insn);  // read-only (Priv 2.1)
    return write_next(rd, v);
  }

  ThreadState& t_;
  std::vector<uint8_t>& dmem_;
  const ThreadIds& ids_;
};

void validate(const Launch& l) {
  auto bad = [](const std::string& m) { throw std::invalid_argument("simt launch: " + m); };
  if (l.num_warps == 0 || l.threads_per_warp == 0) bad("num_warps and threads_per_warp >= 1");
  const uint64_t n = uint64_t{l.num_warps} * l.threads_per_warp;
  if (n > 65536) bad("more than 65536 threads");
  if (l.stack_top % 16 != 0 || l.stack_size_per_thread % 16 != 0) {
    bad("stack_top and stack_size_per_thread must be multiples of 16");
  }
  if ((n - 1) * l.stack_size_per_thread > l.stack_top) bad("stacks extend below address 0");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The launch: warps issue round-robin, one instruction per warp per round, at the warp's minimum
// PC over its runnable threads (not exited, not waiting at a barrier).
// ---------------------------------------------------------------------------------------------

Result Machine::run(const Launch& l) {
  validate(l);
  const uint32_t n = l.num_warps * l.threads_per_warp;
  Result r;
  r.threads.resize(n);
  r.warp_issues.assign(l.num_warps, 0);
  r.warp_active_threads.assign(l.num_warps, 0);
  std::vector<ThreadIds> ids(n);
  for (uint32_t t = 0; t < n; ++t) {
    ids[t] = {t,           t / l.threads_per_warp, t % l.threads_per_warp, l.block_id, n, l.arg_ptr,
              l.num_warps, l.threads_per_warp};
    ThreadState& s = r.threads[t];
    s.pc = l.entry_pc;
    s.x[2] = l.stack_top - t * l.stack_size_per_thread;
    s.x[10] = l.arg_ptr;
    s.x[11] = t;
  }
  auto runnable = [&](uint32_t t) { return !r.threads[t].exited && !r.threads[t].at_barrier; };
  uint64_t issues = 0;

  for (;;) {
    bool issued = false;
    for (uint32_t w = 0; w < l.num_warps; ++w) {
      const uint32_t first = w * l.threads_per_warp, last = first + l.threads_per_warp;
      // Min-PC rule: the warp issues the instruction at the lowest PC of its runnable threads,
      // for exactly the threads whose PC equals it.
      uint64_t min_pc = std::numeric_limits<uint64_t>::max();
      for (uint32_t t = first; t < last; ++t) {
        if (runnable(t)) min_pc = std::min<uint64_t>(min_pc, r.threads[t].pc);
      }
      if (min_pc == std::numeric_limits<uint64_t>::max()) continue;
      const uint32_t pc = static_cast<uint32_t>(min_pc);
      uint32_t lowest = first;
      while (!(runnable(lowest) && r.threads[lowest].pc == pc)) ++lowest;

      if (issues >= cfg_.max_warp_issues) {
        r.error = {ErrorCode::StepLimit, pc, lowest, 0};
        return r;
      }
      if (pc % 4 != 0) {
        r.error = {ErrorCode::FetchMisaligned, pc, lowest, pc};
        return r;
      }
      if (uint64_t{pc} + 4 > imem_.size()) {
        r.error = {ErrorCode::FetchOutOfRange, pc, lowest, pc};
        return r;
      }
      const uint32_t insn = imem_word(pc);
      uint32_t active = 0;
      for (uint32_t t = first; t < last; ++t) {  // lanes in order
        ThreadState& s = r.threads[t];
        if (!runnable(t) || s.pc != pc) continue;
        const Step st = Hart(s, dmem_, ids[t]).execute(insn);
        if (st.outcome == Outcome::Fault) {
          r.error = {st.code, pc, t, st.tval};
          return r;
        }
        ++s.retired;
        if (st.outcome == Outcome::Barrier) s.at_barrier = true;
        ++active;
      }
      ++issues;
      ++r.warp_issues[w];
      r.warp_active_threads[w] += active;
      issued = true;
    }
    if (issued) continue;
    // No warp can issue: every live thread waits at a barrier (release them all) or all exited.
    bool any_waiting = false;
    for (auto& s : r.threads) {
      if (!s.exited && s.at_barrier) {
        any_waiting = true;
        s.at_barrier = false;
      }
    }
    if (!any_waiting) return r;
    ++r.barriers;
  }
}

}  // namespace weft::golden::simt
