// RV32IM + Zicsr encoder: the six base formats of ISA v20191213 section 2.2 (Figure 2.2, R/I/S/U)
// and 2.3 (Figure 2.3, B/J immediate scrambling), opcodes and funct fields from Chapter 24
// Table 24.2 (RV32I, RV32M, Zicsr).
#include <stdexcept>
#include <string>

#include "weft/golden/simt.hpp"

namespace weft::golden::simt::rv {

namespace {

// Major opcodes (Table 24.1).
constexpr uint32_t kLoad = 0b0000011, kMiscMem = 0b0001111, kOpImm = 0b0010011, kAuipc = 0b0010111,
                   kStore = 0b0100011, kOp = 0b0110011, kLui = 0b0110111, kBranch = 0b1100011,
                   kJalr = 0b1100111, kJal = 0b1101111, kSystem = 0b1110011;

void check_reg(uint32_t r) {
  if (r > 31) throw std::invalid_argument("register number " + std::to_string(r) + " > 31");
}
void check_bits(uint32_t v, int bits, const char* what) {
  if (v >> bits) throw std::invalid_argument(std::string(what) + " does not fit");
}
void check_signed(int32_t v, int bits, const char* what) {
  const int32_t lo = -(int32_t{1} << (bits - 1)), hi = (int32_t{1} << (bits - 1)) - 1;
  if (v < lo || v > hi) {
    throw std::invalid_argument(std::string(what) + " " + std::to_string(v) + " out of range");
  }
}
uint32_t bits_of(int32_t v, int hi, int lo) {
  return (static_cast<uint32_t>(v) >> lo) & ((1u << (hi - lo + 1)) - 1);
}

}  // namespace

uint32_t r_type(uint32_t funct7, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t rd,
                uint32_t opcode) {
  check_bits(funct7, 7, "funct7");
  check_reg(rs2);
  check_reg(rs1);
  check_bits(funct3, 3, "funct3");
  check_reg(rd);
  check_bits(opcode, 7, "opcode");
  return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}

uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t funct3, uint32_t rd, uint32_t opcode) {
  check_signed(imm, 12, "I immediate");
  check_reg(rs1);
  check_bits(funct3, 3, "funct3");
  check_reg(rd);
  check_bits(opcode, 7, "opcode");
  return bits_of(imm, 11, 0) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode;
}

uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t opcode) {
  check_signed(imm, 12, "S immediate");
  check_reg(rs2);
  check_reg(rs1);
  check_bits(funct3, 3, "funct3");
  check_bits(opcode, 7, "opcode");
  return bits_of(imm, 11, 5) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 |
         bits_of(imm, 4, 0) << 7 | opcode;
}

uint32_t b_type(int32_t offset, uint32_t rs2, uint32_t rs1, uint32_t funct3, uint32_t opcode) {
  check_signed(offset, 13, "B offset");
  if (offset & 1) throw std::invalid_argument("B offset must be even");
  check_reg(rs2);
  check_reg(rs1);
  check_bits(funct3, 3, "funct3");
  check_bits(opcode, 7, "opcode");
  // imm[12|10:5] rs2 rs1 funct3 imm[4:1|11] opcode
  return bits_of(offset, 12, 12) << 31 | bits_of(offset, 10, 5) << 25 | rs2 << 20 | rs1 << 15 |
         funct3 << 12 | bits_of(offset, 4, 1) << 8 | bits_of(offset, 11, 11) << 7 | opcode;
}

uint32_t u_type(uint32_t imm20, uint32_t rd, uint32_t opcode) {
  check_bits(imm20, 20, "U immediate");
  check_reg(rd);
  check_bits(opcode, 7, "opcode");
  return imm20 << 12 | rd << 7 | opcode;
}

uint32_t j_type(int32_t offset, uint32_t rd, uint32_t opcode) {
  check_signed(offset, 21, "J offset");
  if (offset & 1) throw std::invalid_argument("J offset must be even");
  check_reg(rd);
  check_bits(opcode, 7, "opcode");
  // imm[20|10:1|11|19:12] rd opcode
  return bits_of(offset, 20, 20) << 31 | bits_of(offset, 10, 1) << 21 |
         bits_of(offset, 11, 11) << 20 | bits_of(offset, 19, 12) << 12 | rd << 7 | opcode;
}

uint32_t lui(uint32_t rd, uint32_t imm20) { return u_type(imm20, rd, kLui); }
uint32_t auipc(uint32_t rd, uint32_t imm20) { return u_type(imm20, rd, kAuipc); }
uint32_t jal(uint32_t rd, int32_t offset) { return j_type(offset, rd, kJal); }
uint32_t jalr(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0, rd, kJalr); }
uint32_t beq(uint32_t a, uint32_t b, int32_t o) { return b_type(o, b, a, 0b000, kBranch); }
uint32_t bne(uint32_t a, uint32_t b, int32_t o) { return b_type(o, b, a, 0b001, kBranch); }
uint32_t blt(uint32_t a, uint32_t b, int32_t o) { return b_type(o, b, a, 0b100, kBranch); }
uint32_t bge(uint32_t a, uint32_t b, int32_t o) { return b_type(o, b, a, 0b101, kBranch); }
uint32_t bltu(uint32_t a, uint32_t b, int32_t o) { return b_type(o, b, a, 0b110, kBranch); }
uint32_t bgeu(uint32_t a, uint32_t b, int32_t o) { return b_type(o, b, a, 0b111, kBranch); }
uint32_t lb(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0b000, rd, kLoad); }
uint32_t lh(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0b001, rd, kLoad); }
uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0b010, rd, kLoad); }
uint32_t lbu(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0b100, rd, kLoad); }
uint32_t lhu(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(imm, rs1, 0b101, rd, kLoad); }
uint32_t sb(uint32_t rs2, uint32_t rs1, int32_t imm) {
  return s_type(imm, rs2, rs1, 0b000, kStore);
}
uint32_t sh(uint32_t rs2, uint32_t rs1, int32_t imm) {
  return s_type(imm, rs2, rs1, 0b001, kStore);
}
uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) {
  return s_type(imm, rs2, rs1, 0b010, kStore);
}
uint32_t addi(uint32_t rd, uint32_t rs1, int32_t i) { return i_type(i, rs1, 0b000, rd, kOpImm); }
uint32_t slti(uint32_t rd, uint32_t rs1, int32_t i) { return i_type(i, rs1, 0b010, rd, kOpImm); }
uint32_t sltiu(uint32_t rd, uint32_t rs1, int32_t i) { return i_type(i, rs1, 0b011, rd, kOpImm); }
uint32_t xori(uint32_t rd, uint32_t rs1, int32_t i) { return i_type(i, rs1, 0b100, rd, kOpImm); }
uint32_t ori(uint32_t rd, uint32_t rs1, int32_t i) { return i_type(i, rs1, 0b110, rd, kOpImm); }
uint32_t andi(uint32_t rd, uint32_t rs1, int32_t i) { return i_type(i, rs1, 0b111, rd, kOpImm); }
// Shifts by a constant: I-type with shamt in imm[4:0] and imm[11:5] = 0000000 / 0100000 (ISA 2.4).
uint32_t slli(uint32_t rd, uint32_t rs1, uint32_t sh) {
  check_bits(sh, 5, "shamt");
  return r_type(0b0000000, sh, rs1, 0b001, rd, kOpImm);
}
uint32_t srli(uint32_t rd, uint32_t rs1, uint32_t sh) {
  check_bits(sh, 5, "shamt");
  return r_type(0b0000000, sh, rs1, 0b101, rd, kOpImm);
}
uint32_t srai(uint32_t rd, uint32_t rs1, uint32_t sh) {
  check_bits(sh, 5, "shamt");
  return r_type(0b0100000, sh, rs1, 0b101, rd, kOpImm);
}
uint32_t add(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b000, rd, kOp); }
uint32_t sub(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0x20, b, a, 0b000, rd, kOp); }
uint32_t sll(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b001, rd, kOp); }
uint32_t slt(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b010, rd, kOp); }
uint32_t sltu(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b011, rd, kOp); }
uint32_t xor_(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b100, rd, kOp); }
uint32_t srl(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b101, rd, kOp); }
uint32_t sra(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0x20, b, a, 0b101, rd, kOp); }
uint32_t or_(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b110, rd, kOp); }
uint32_t and_(uint32_t rd, uint32_t a, uint32_t b) { return r_type(0, b, a, 0b111, rd, kOp); }
// fence pred=iorw succ=iorw, fm=0, rs1=rd=0 (ISA 2.7).
uint32_t fence() { return i_type(0x0FF, 0, 0b000, 0, kMiscMem); }
uint32_t ecall() { return i_type(0, 0, 0, 0, kSystem); }
uint32_t ebreak() { return i_type(1, 0, 0, 0, kSystem); }

uint32_t mul(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b000, rd, kOp); }
uint32_t mulh(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b001, rd, kOp); }
uint32_t mulhsu(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b010, rd, kOp); }
uint32_t mulhu(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b011, rd, kOp); }
uint32_t div(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b100, rd, kOp); }
uint32_t divu(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b101, rd, kOp); }
uint32_t rem(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b110, rd, kOp); }
uint32_t remu(uint32_t rd, uint32_t a, uint32_t b) { return r_type(1, b, a, 0b111, rd, kOp); }

// Zicsr: csr in bits 31:20 (unsigned 12 bits), rs1 or uimm[4:0] in bits 19:15 (ISA 9.1).
namespace {
uint32_t csr_op(uint32_t rd, uint32_t csr, uint32_t src, uint32_t funct3) {
  check_bits(csr, 12, "CSR number");
  check_bits(src, 5, "rs1/uimm");
  check_reg(rd);
  return csr << 20 | src << 15 | funct3 << 12 | rd << 7 | kSystem;
}
}  // namespace
uint32_t csrrw(uint32_t rd, uint32_t csr, uint32_t rs1) { return csr_op(rd, csr, rs1, 0b001); }
uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return csr_op(rd, csr, rs1, 0b010); }
uint32_t csrrc(uint32_t rd, uint32_t csr, uint32_t rs1) { return csr_op(rd, csr, rs1, 0b011); }
uint32_t csrrwi(uint32_t rd, uint32_t csr, uint32_t u) { return csr_op(rd, csr, u, 0b101); }
uint32_t csrrsi(uint32_t rd, uint32_t csr, uint32_t u) { return csr_op(rd, csr, u, 0b110); }
uint32_t csrrci(uint32_t rd, uint32_t csr, uint32_t u) { return csr_op(rd, csr, u, 0b111); }

uint32_t nop() { return addi(0, 0, 0); }
uint32_t csrr(uint32_t rd, uint32_t csr) { return csrrs(rd, csr, 0); }
uint32_t barrier() { return csrrw(0, kCsrBarrier, 0); }

// li: addi alone when the value fits 12 signed bits, else lui of the upper part rounded so that
// the sign-extended addi of the low 12 bits completes it (ISA 2.4, LUI/ADDI idiom).
std::vector<uint32_t> li(uint32_t rd, uint32_t value) {
  const int32_t v = static_cast<int32_t>(value);
  if (v >= -2048 && v <= 2047) return {addi(rd, 0, v)};
  const uint32_t lo12 = value & 0xFFF;
  const int32_t lo =
      lo12 >= 0x800 ? static_cast<int32_t>(lo12) - 0x1000 : static_cast<int32_t>(lo12);
  const uint32_t hi = (value - static_cast<uint32_t>(lo)) >> 12;
  if (lo == 0) return {lui(rd, hi & 0xFFFFF)};
  return {lui(rd, hi & 0xFFFFF), addi(rd, rd, lo)};
}

std::vector<uint32_t> exit_with(uint32_t code) {
  std::vector<uint32_t> v = li(a0, code);
  v.push_back(addi(a7, 0, static_cast<int32_t>(kSyscallExit)));
  v.push_back(ecall());
  return v;
}

}  // namespace weft::golden::simt::rv

namespace weft::golden::simt::rv {

Program& Program::operator<<(uint32_t word) {
  words_.push_back(word);
  return *this;
}

Program& Program::operator<<(const std::vector<uint32_t>& words) {
  words_.insert(words_.end(), words.begin(), words.end());
  return *this;
}

Program& Program::label(const std::string& name) {
  if (!labels_.emplace(name, pc()).second) throw std::invalid_argument("label twice: " + name);
  return *this;
}

Program& Program::branch(uint32_t (*op)(uint32_t, uint32_t, int32_t), uint32_t rs1, uint32_t rs2,
                         const std::string& target) {
  fixups_.push_back({words_.size(), target, [=](int32_t off) { return op(rs1, rs2, off); }});
  words_.push_back(0);
  return *this;
}

Program& Program::jal(uint32_t rd, const std::string& target) {
  fixups_.push_back({words_.size(), target, [=](int32_t off) { return rv::jal(rd, off); }});
  words_.push_back(0);
  return *this;
}

uint32_t Program::address_of(const std::string& label) const { return labels_.at(label); }

std::vector<uint32_t> Program::words() const {
  std::vector<uint32_t> out = words_;
  for (const Fixup& f : fixups_) {
    const auto it = labels_.find(f.target);
    if (it == labels_.end()) throw std::invalid_argument("unknown label: " + f.target);
    const uint32_t at = base_ + 4 * static_cast<uint32_t>(f.index);
    out[f.index] = f.encode(static_cast<int32_t>(it->second - at));
  }
  return out;
}

}  // namespace weft::golden::simt::rv
