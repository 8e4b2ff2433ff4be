// SramBackdoor: load and inspect a weft_sram_1rw / weft_sram_1r1w instance of a Verilated model
// directly, without clock cycles (fast test setup, end-of-test dumps).
//
// Both SRAM modules export, under `ifdef VERILATOR, the DPI-C functions weft_sram_bd_write /
// _read / _flip / _read_check / _depth / _width / _check_bits / _max_bits. An export is one global C symbol per
// model; Verilator dispatches each call to the instance selected by the current svScope, which
// this class sets around every call (and restores afterwards).
//
// Scope names (Verilator 5.006, checked by tb/common_blocks tests):
//   "<model name>.<top module>.<instance path>"
// - <model name> is the name given to the model's constructor; weft::tb::Harness uses "top".
// - <top module> is the Verilog name of the top module (not the V<lib> class name).
// - Generate blocks appear with their label, and loop iterations with the index in brackets:
//     for (genvar i ...) begin : g_bank  weft_sram_1rw u_sram ...        ->  "g_bank[1].u_sram"
//     if (..) begin : g_dp  for (genvar j ...) begin : g_port  ... u_sram  ->  "g_dp.g_port[0].u_sram"
//   Unnamed generate blocks get Verilog's genblk<n> names: label every generate block.
// Example (tb/common_blocks/test_sram_nest.cpp):
//   weft::tb::Harness<Vcb_sram_nest> h;
//   weft::tb::SramBackdoor bank1(h.ctx(), "top.tb_common_sram_nest.g_bank[1].u_sram");
//   bank1.write(5, {0xdeadbeef});
//   auto w = bank1.read(5);   // {0xdeadbeef}
//
// Only scopes that contain DPI exports or imports exist; a name that does not resolve throws
// std::invalid_argument. The scope must be an SRAM instance: calling the back door on another
// module's DPI scope is a fatal Verilator error, not an exception.
// A scope belongs to one VerilatedContext: make a new SramBackdoor for every new Harness.
// Words are given little endian in 32-bit chunks: element 0 holds bits [31:0] of the SRAM word.
// With ECC (the SRAM's Ecc parameter, check_bits() > 0) write() stores the word with its check
// bits, read() returns the data bits as stored (not corrected), and flip() injects errors: it
// inverts one stored bit, a data bit (0 .. width()-1) or a check bit (width() .. width() +
// check_bits() - 1).
#pragma once

#include <svdpi.h>
#include <verilated.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

// The DPI-C exports of weft_sram_1rw / weft_sram_1r1w, declared exactly as Verilator declares them
// in V<model>__Dpi.h (so both headers may be included together).
extern "C" {
extern void weft_sram_bd_write(unsigned int addr, const svBitVecVal* data);
extern void weft_sram_bd_read(unsigned int addr, svBitVecVal* data);
extern void weft_sram_bd_flip(unsigned int addr, unsigned int idx);
extern unsigned int weft_sram_bd_read_check(unsigned int addr);
extern unsigned int weft_sram_bd_depth();
extern unsigned int weft_sram_bd_width();
extern unsigned int weft_sram_bd_check_bits();
extern unsigned int weft_sram_bd_max_bits();
}

namespace weft::tb {

class SramBackdoor {
 public:
  // Must equal weft_pkg::SramBdMaxBits (checked against the model in the constructor).
  static constexpr unsigned kMaxBits = 4096;

  // Looks the scope up in the thread's current VerilatedContext (the last one constructed).
  explicit SramBackdoor(const std::string& scope) : name_(scope) { attach(); }

  // Looks the scope up in `ctx` (use this form when several contexts exist).
  SramBackdoor(VerilatedContext& ctx, const std::string& scope) : name_(scope) {
    Verilated::threadContextp(&ctx);
    attach();
  }

  const std::string& scope() const { return name_; }
  uint32_t depth() const { return depth_; }
  uint32_t width() const { return width_; }
  // Check bits stored with each word (0 without ECC).
  uint32_t check_bits() const { return check_bits_; }
  // Number of 32-bit chunks of one SRAM word.
  size_t chunks() const { return (width_ + 31) / 32; }

  // Writes the whole word at addr. `words` must hold exactly chunks() elements and no bit at or
  // above width().
  void write(uint32_t addr, const std::vector<uint32_t>& words) const {
    check_addr(addr);
    if (words.size() != chunks()) {
      throw std::invalid_argument("SramBackdoor(" + name_ + "): write of " +
                                  std::to_string(words.size()) + " chunks, the word has " +
                                  std::to_string(chunks()));
    }
    if (width_ % 32 != 0 && (words.back() >> (width_ % 32)) != 0) {
      throw std::invalid_argument("SramBackdoor(" + name_ + "): data has bits above width " +
                                  std::to_string(width_));
    }
    svBitVecVal buf[kMaxBits / 32] = {};
    for (size_t i = 0; i < words.size(); ++i) buf[i] = words[i];
    const Scoped s(scope_);
    weft_sram_bd_write(addr, buf);
  }

  // Inverts stored bit `bit` of the word at addr: a data bit below width(), else check bit
  // bit - width(); std::out_of_range beyond width() + check_bits().
  void flip(uint32_t addr, uint32_t bit) const {
    check_addr(addr);
    if (bit >= width_ + check_bits_) {
      throw std::out_of_range("SramBackdoor(" + name_ + "): bit " + std::to_string(bit) +
                              " >= width + check bits " + std::to_string(width_ + check_bits_));
    }
    const Scoped s(scope_);
    weft_sram_bd_flip(addr, bit);
  }

  // The check bits stored with the word at addr (0 without ECC).
  uint32_t read_check(uint32_t addr) const {
    check_addr(addr);
    const Scoped s(scope_);
    return weft_sram_bd_read_check(addr);
  }

  // Reads the whole word at addr: chunks() elements, little endian.
  std::vector<uint32_t> read(uint32_t addr) const {
    check_addr(addr);
    svBitVecVal buf[kMaxBits / 32] = {};
    {
      const Scoped s(scope_);
      weft_sram_bd_read(addr, buf);
    }
    return std::vector<uint32_t>(buf, buf + chunks());
  }

 private:
  // Sets the DPI scope for one call and restores the previous one.
  class Scoped {
   public:
    explicit Scoped(svScope s) : prev_(svSetScope(s)) {}
    ~Scoped() { svSetScope(prev_); }
    Scoped(const Scoped&) = delete;
    Scoped& operator=(const Scoped&) = delete;

   private:
    svScope prev_;
  };

  void attach() {
    scope_ = svGetScopeFromName(name_.c_str());
    if (!scope_) {
      throw std::invalid_argument(
          "SramBackdoor: no DPI scope '" + name_ +
          "' (expected \"<model name>.<top module>.<path>\", e.g. \"top.my_top.g_bank[0].u_sram\"; "
          "see weft/tb/sram_backdoor.hpp)");
    }
    const Scoped s(scope_);
    if (weft_sram_bd_max_bits() != kMaxBits) {
      throw std::logic_error("SramBackdoor: weft_pkg::SramBdMaxBits differs from kMaxBits");
    }
    depth_ = weft_sram_bd_depth();
    width_ = weft_sram_bd_width();
    check_bits_ = weft_sram_bd_check_bits();
  }

  void check_addr(uint32_t addr) const {
    if (addr >= depth_) {
      throw std::out_of_range("SramBackdoor(" + name_ + "): address " + std::to_string(addr) +
                              " >= depth " + std::to_string(depth_));
    }
  }

  std::string name_;
  svScope scope_ = nullptr;
  uint32_t depth_ = 0;
  uint32_t width_ = 0;
  uint32_t check_bits_ = 0;
};

}  // namespace weft::tb
