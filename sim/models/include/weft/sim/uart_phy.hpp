// weft/sim/uart_phy.hpp: bit-level UART line model (8N1, LSB first; docs/host-interfaces.md 2.1)
// for Verilated designs with a serial pair such as weft_board (uart_rx_i, uart_tx_o). Header only.
//
//   weft::sim::UartPhy phy(dut, /*clks_per_bit=*/8);   // binds dut.uart_rx_i / dut.uart_tx_o
//   weft::sim::UartPhy phy(rx_pin, tx_pin, 8);          // or any two 1-bit pins (uint8_t)
//   phy.send({0x7e, 0x01, ...});                        // queued, sent back to back
//   per cycle: phy.drive(); <evaluate>; phy.sample(); <clock edge>   (the Weft tick protocol)
//   std::vector<uint8_t> got = phy.take_received();
//
// Transmit side (model -> DUT): drive() sets the DUT's rx pin from the model's own state only:
// idle high, then for each queued byte a start bit (0), 8 data bits LSB first and a stop bit (1),
// each held for clks_per_bit cycles, with `idle_bits` bit times of idle line between bytes.
// send_bad_stop() queues a byte whose stop bit is driven 0 (a framing error for the DUT).
//
// Receive side (DUT -> model): sample() watches the DUT's tx pin; a falling edge starts a byte,
// bits are taken at the middle of each bit time, and the byte is kept if the stop bit is 1.
// A stop bit of 0 counts a framing error (the byte goes to framing_error_bytes(), not to the
// received bytes) and the receiver waits for the line to go high again; a start bit that is no
// longer 0 at its middle is a glitch (counted, ignored).
//
// The clock counts of both directions are exact, so the model and an RTL UART with the same
// clks_per_bit never drift; `clks_per_bit` must be at least 4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <vector>

namespace weft::sim {

struct UartPhyStats {
  uint64_t bytes_sent = 0;      // bytes whose stop bit has been driven completely
  uint64_t bytes_received = 0;  // good bytes taken from the DUT's tx pin
  uint64_t framing_errors = 0;  // bytes from the DUT with a stop bit of 0
  uint64_t glitches = 0;        // start bits from the DUT that were not 0 at their middle
};

class UartPhy {
 public:
  // rx_pin: the DUT's serial input (driven by this model); tx_pin: the DUT's serial output.
  UartPhy(uint8_t& rx_pin, const uint8_t& tx_pin, unsigned clks_per_bit, unsigned idle_bits = 0)
      : rx_pin_(rx_pin), tx_pin_(tx_pin), cpb_(clks_per_bit), idle_bits_(idle_bits) {
    if (clks_per_bit < 4) throw std::invalid_argument("UartPhy: clks_per_bit must be >= 4");
    rx_pin_ = 1;
  }
  // Binds a Verilated model's uart_rx_i / uart_tx_o.
  template <class Model>
  UartPhy(Model& dut, unsigned clks_per_bit, unsigned idle_bits = 0)
      : UartPhy(dut.uart_rx_i, dut.uart_tx_o, clks_per_bit, idle_bits) {}

  UartPhy(const UartPhy&) = delete;
  UartPhy& operator=(const UartPhy&) = delete;

  unsigned clks_per_bit() const { return cpb_; }
  void set_idle_bits(unsigned n) { idle_bits_ = n; }

  // ---------------------------------------------------------------- queueing (model -> DUT)
  void send(uint8_t b) { txq_.push_back({b, false}); }
  void send(std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) send(b);
  }
  void send(std::initializer_list<uint8_t> bytes) {
    for (uint8_t b : bytes) send(b);
  }
  void send(const std::vector<uint8_t>& bytes) { send(std::span<const uint8_t>(bytes)); }
  // A byte with its stop bit driven 0: the DUT must drop it as a framing error.
  void send_bad_stop(uint8_t b) { txq_.push_back({b, true}); }

  // Bytes queued and not yet started.
  size_t tx_queued() const { return txq_.size(); }
  // Nothing to send and the line back to idle (the last stop bit and idle gap finished).
  bool tx_idle() const { return txq_.empty() && !tx_active_; }
  // No byte from the DUT in progress.
  bool rx_idle() const { return rx_state_ == RxState::kIdle; }
  bool idle() const { return tx_idle() && rx_idle(); }

  // ---------------------------------------------------------------- results (DUT -> model)
  std::vector<uint8_t> take_received() {
    std::vector<uint8_t> v(rx_.begin(), rx_.end());
    rx_.clear();
    return v;
  }
  size_t received_count() const { return rx_.size(); }
  // Bytes that arrived with a framing error (their data bits), oldest first.
  const std::vector<uint8_t>& framing_error_bytes() const { return bad_; }
  const UartPhyStats& stats() const { return stats_; }

  // ---------------------------------------------------------------- per cycle
  void drive() {
    if (!tx_active_ && !txq_.empty()) {
      const Pending p = txq_.front();
      txq_.pop_front();
      // bit 0: start, 1..8: data, 9: stop, 10..: idle gap
      tx_bits_ = 0;
      for (int i = 0; i < 8; ++i) tx_bits_ |= uint32_t((p.byte >> i) & 1u) << (i + 1);
      if (!p.bad_stop) tx_bits_ |= 1u << 9;
      tx_nbits_ = 10 + idle_bits_;
      tx_bit_ = 0;
      tx_cnt_ = 0;
      tx_active_ = true;
    }
    uint8_t level = 1;
    if (tx_active_ && tx_bit_ < 10) level = static_cast<uint8_t>((tx_bits_ >> tx_bit_) & 1u);
    rx_pin_ = level;
  }

  void sample() {
    // Transmitter: the level driven this cycle has been held one more clock.
    if (tx_active_) {
      if (++tx_cnt_ == cpb_) {
        tx_cnt_ = 0;
        ++tx_bit_;
        if (tx_bit_ == 10) ++stats_.bytes_sent;
        if (tx_bit_ >= tx_nbits_) tx_active_ = false;
      }
    }
    // Receiver.
    const bool line = (tx_pin_ & 1u) != 0;
    switch (rx_state_) {
      case RxState::kIdle:
        if (!line) {
          rx_state_ = RxState::kBits;
          rx_cnt_ = 0;
          rx_bit_ = 0;
          rx_shift_ = 0;
          rx_wait_ = cpb_ / 2;  // cycles from this one to the middle of the start bit
        }
        break;
      case RxState::kBits:
        if (++rx_cnt_ == rx_wait_) {
          rx_cnt_ = 0;
          rx_wait_ = cpb_;
          if (rx_bit_ == 0) {
            if (line) {  // not a start bit after all
              ++stats_.glitches;
              rx_state_ = RxState::kIdle;
              break;
            }
          } else if (rx_bit_ <= 8) {
            rx_shift_ |= static_cast<uint8_t>((line ? 1u : 0u) << (rx_bit_ - 1));
          } else {  // stop bit
            if (line) {
              rx_.push_back(rx_shift_);
              ++stats_.bytes_received;
              rx_state_ = RxState::kIdle;
            } else {
              bad_.push_back(rx_shift_);
              ++stats_.framing_errors;
              rx_state_ = RxState::kWaitHigh;
            }
            break;
          }
          ++rx_bit_;
        }
        break;
      case RxState::kWaitHigh:
        if (line) rx_state_ = RxState::kIdle;
        break;
    }
  }

 private:
  struct Pending {
    uint8_t byte;
    bool bad_stop;
  };
  enum class RxState { kIdle, kBits, kWaitHigh };

  uint8_t& rx_pin_;
  const uint8_t& tx_pin_;
  unsigned cpb_;
  unsigned idle_bits_;

  std::deque<Pending> txq_;
  bool tx_active_ = false;
  uint32_t tx_bits_ = 0;
  unsigned tx_nbits_ = 0, tx_bit_ = 0, tx_cnt_ = 0;

  RxState rx_state_ = RxState::kIdle;
  unsigned rx_cnt_ = 0, rx_wait_ = 0, rx_bit_ = 0;
  uint8_t rx_shift_ = 0;
  std::deque<uint8_t> rx_;
  std::vector<uint8_t> bad_;
  UartPhyStats stats_;
};

}  // namespace weft::sim
