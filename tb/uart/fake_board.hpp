// FakeBoard: a C++ stand-in for the Verilated weft_board with the same ports (clk_i, rst_ni,
// uart_rx_i, uart_tx_o, led_o), so weft::sim::BoardSim and the uart:// driver can be tested
// without the RTL. It implements the bridge protocol of docs/host-interfaces.md 2.2-2.3 from
// the specification (its own UART via weft::sim::UartPhy, the shared frame codec): READ/WRITE,
// CRC and length checks, the last-seq duplicate rule, the bridge registers, a CSR space that is
// plain memory preloaded with a plausible 8x8 device's ID/VERSION/CAP registers, and 64 KiB of
// board memory. It is not a device: descriptors are never executed.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "uart_frame.hpp"
#include "weft/sim/uart_phy.hpp"

class VerilatedContext;
class VerilatedFstC;

namespace weft::tb::board {

class FakeBoard {
 public:
  static constexpr unsigned kClksPerBit = 4;
  static inline uint32_t id_value = weft::uart::kBrIdValue;  // BR_ID the next board answers
  static inline uint64_t executed_writes = 0;  // WRITE requests executed (all boards)
  static inline uint64_t write_seq_repeats = 0;  // executed WRITEs whose seq equalled the last one
  // When set: the bytes sent for each response instead of its frame (tests of malformed
  // responses: a damaged copy, garbage, or nothing). Called with the request and the response.
  static inline std::function<std::vector<uint8_t>(const weft::uart::Request&,
                                                   const weft::uart::Response&)>
      mangle;

  uint8_t clk_i = 0, rst_ni = 0, uart_rx_i = 1, uart_tx_o = 1, led_o = 0;

  FakeBoard(VerilatedContext*, const char*) : phy_(uart_tx_o, uart_rx_i, kClksPerBit) {
    csr_.assign(1024, 0);
    csr_[0] = 0x54464557u;                             // ID 'WEFT'
    csr_[1] = 0x00010000u;                             // VERSION 1.0
    csr_[2] = 8u | (8u << 8) | (16u << 16) | (4u << 24);  // CAP0: 8x8, 16 B bus, 4 windows
    csr_[3] = 2048u | (4u << 24);                      // CAP1: spad lines, banks
    csr_[4] = 256u | (4u << 16) | (16u << 24);         // CAP2: acc rows, inflight, burst
    mem_.assign(65536, 0);
    id_ = id_value;
  }

  void eval() {
    if (clk_i && !prev_clk_) {
      phy_.sample();
      for (uint8_t b : phy_.take_received()) {
        if (auto body = deframer_.push(b)) handle(*body);
      }
      phy_.drive();
    }
    prev_clk_ = clk_i;
  }
  void final() {}
  void trace(VerilatedFstC*, int) {}

 private:
  void handle(const std::vector<uint8_t>& body) {
    namespace u = weft::uart;
    u::DecodeError why;
    auto q = u::decode_request(body, &why);
    if (!q) {
      ++(why == u::DecodeError::kCrc ? crc_err_ : frame_err_);
      return;
    }
    u::Response r{u::kStatusOk, q->seq, q->cmd, {}};
    if (q->cmd == u::kCmdWrite && have_last_ && q->seq == last_seq_) {
      ++dups_;
      r.status = last_status_;
      send(*q, r);
      return;
    }
    ++frames_;
    if (q->cmd != u::kCmdRead && q->cmd != u::kCmdWrite) {
      r.status = u::kStatusBadCmd;
    } else if (q->len < 4 || q->len > u::kMaxLen || q->len % 4 || q->addr % 4) {
      r.status = u::kStatusBadLen;
    } else {
      uint8_t* p = nullptr;
      if (q->addr < u::kCsrEnd) {
        if (q->len != 4) r.status = u::kStatusBadLen;
        else p = reinterpret_cast<uint8_t*>(&csr_[q->addr / 4]);
      } else if (q->addr >= u::kBrBase && q->addr < u::kBrBase + 0x100) {
        if (q->len != 4) {
          r.status = u::kStatusBadLen;
        } else {
          const uint32_t regs[8] = {id_, u::kMemBase, 65536, 1000000, frames_, crc_err_,
                                    frame_err_, dups_};
          const uint32_t i = (q->addr - u::kBrBase) / 4;
          br_ = i < 8 ? regs[i] : 0;
          p = reinterpret_cast<uint8_t*>(&br_);
          if (q->cmd == u::kCmdWrite) p = nullptr;  // read-only: writes ignored
        }
      } else if (q->addr >= u::kMemBase && q->addr - u::kMemBase + q->len <= mem_.size()) {
        p = &mem_[q->addr - u::kMemBase];
      } else {
        r.status = u::kStatusDecErr;
      }
      if (r.status == u::kStatusOk && q->cmd == u::kCmdRead) r.data.assign(p, p + q->len);
      if (r.status == u::kStatusOk && q->cmd == u::kCmdWrite) {
        ++executed_writes;
        if (have_last_ && q->seq == last_seq_) ++write_seq_repeats;
        if (p) std::copy(q->data.begin(), q->data.end(), p);
      }
    }
    have_last_ = true;
    last_seq_ = q->seq;
    last_status_ = r.status;
    send(*q, r);
  }

  void send(const weft::uart::Request& q, const weft::uart::Response& r) {
    phy_.send(mangle ? mangle(q, r) : weft::uart::encode_response(r));
  }

  weft::sim::UartPhy phy_;
  weft::uart::Deframer deframer_;
  uint8_t prev_clk_ = 0;
  std::vector<uint32_t> csr_;
  std::vector<uint8_t> mem_;
  uint32_t id_ = 0, br_ = 0;
  uint32_t frames_ = 0, crc_err_ = 0, frame_err_ = 0, dups_ = 0;
  bool have_last_ = false;
  uint8_t last_seq_ = 0, last_status_ = 0;
};

}  // namespace weft::tb::board
