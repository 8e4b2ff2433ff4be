// weft/descriptor.hpp: the 64-byte command descriptor of the Weft queue, as the device decodes it.
// The format is rtl/host/weft_descriptors.toml (docs/programming-model.md, "Descriptor format");
// weft/descriptor_format.hpp, generated from it, has the fields; this header builds descriptors
// from them and reads them back, for the driver, its back ends and the tests.
#pragma once

#include <array>
#include <cstdint>

#include "weft/descriptor_format.hpp"

namespace weft {

// One descriptor: sixteen little-endian 32-bit words.
struct Descriptor {
  DescriptorWords w{};

  DescriptorHeader header() const { return DescriptorHeader::decode(w); }
  Opcode opcode() const { return header().opcode; }
  uint8_t flags() const { return header().flags; }
  // Adds flags (DescFlags).
  Descriptor& with_flags(uint8_t f) {
    DescriptorHeader h = header();
    h.flags |= f;
    h.encode(w);
    return *this;
  }
  // Waits for the descriptor `back` places earlier (1..255); slot 0 or 1.
  Descriptor& with_dep(int slot, uint8_t back) {
    DescriptorHeader h = header();
    (slot == 0 ? h.dep0 : h.dep1) = back;
    h.encode(w);
    return *this;
  }
  uint8_t dep(int slot) const { return slot == 0 ? header().dep0 : header().dep1; }
  // The index the descriptor must have in the ring (set by the queue at submission).
  Descriptor& with_seq(uint32_t seq) {
    DescriptorHeader h = header();
    h.seq = seq;
    h.encode(w);
    return *this;
  }
  uint32_t seq() const { return header().seq; }

  // Any opcode byte, including ones the device does not know (for error tests).
  static Descriptor raw(uint8_t opcode) { Descriptor d; d.w[0] = opcode; return d; }
  static Descriptor nop() { return of(Opcode::kNop); }
  static Descriptor fence() { return of(Opcode::kFence); }

  static Descriptor transfer(Opcode op, const Transfer2d& t) { return of(op, t); }
  static Descriptor load(const Transfer2d& t) { return of(Opcode::kLoad, t); }
  static Descriptor store_spad(const Transfer2d& t) { return of(Opcode::kStoreSpad, t); }
  static Descriptor compute(const ComputeArgs& c) { return of(Opcode::kCompute, c); }
  static Descriptor store_acc(const StoreAccArgs& s) { return of(Opcode::kStoreAcc, s); }
  static Descriptor simt_launch(const SimtLaunch& l) { return of(Opcode::kSimtLaunch, l); }

  // The operands as the layout `Layout` (Transfer2d, ComputeArgs, StoreAccArgs, SimtLaunch) reads
  // them, whatever the opcode says.
  template <typename Layout>
  Layout operands() const { return Layout::decode(w); }

 private:
  static Descriptor of(Opcode op) {
    Descriptor d;
    DescriptorHeader h;
    h.opcode = op;
    h.encode(d.w);
    return d;
  }
  template <typename Layout>
  static Descriptor of(Opcode op, const Layout& operands) {
    Descriptor d = of(op);
    operands.encode(d.w);
    return d;
  }
};

// One scratchpad line of per-column post-processing parameters (STORE_ACC load_params), as the
// first 16 bytes of a line: bias, multiplier (TFLite) or float32 scale bits (ONNX), shift.
struct ColumnParams {
  int32_t bias = 0;
  uint32_t mult = 0;
  int32_t shift = 0;  // 6-bit field (low 6 bits of the third word)
  uint32_t reserved = 0;
};
static_assert(sizeof(ColumnParams) == 16);

// The completion record the device writes to CPL_ADDR (16 bytes).
struct CompletionRecord {
  uint32_t completed = 0;  // descriptors retired since the queue reset
  uint32_t error = 0;      // ErrorCode that stopped the queue, or 0
  uint32_t error_index = 0;
  uint32_t reserved = 0;
};
static_assert(sizeof(CompletionRecord) == 16);

}  // namespace weft
