// libweft internals: the state behind weft::Device, Buffer and Queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backend.hpp"
#include "weft/device.hpp"
#include "weft/simt.hpp"

namespace weft::detail {

Backend* make_ref_backend(const Options& opts);
// Load the sim:// (weft_sim_<R>x<C>.so) or pcie-sim:// (weft_pcie_<R>x<C>.so) plugin for the
// requested array configuration (sim_loader.cpp).
std::unique_ptr<Backend> make_sim_backend(const Options& opts);
std::unique_ptr<Backend> make_pcie_backend(const Options& opts);
// uart://<path>: a serial port to a weft_board (uart_backend.cpp). Options["path"] is the device.
std::unique_ptr<Backend> make_uart_backend(const Options& opts);
// CAP3, CAP4 -> the SIMT fields of Capabilities.
void decode_simt_caps(uint32_t cap3, uint32_t cap4, Capabilities* c);
// "scheme://[path][?]k=v&k=v" -> scheme, options (a non-empty path as option "path").
// Throws Error(kBadUri).
void parse_uri(std::string_view uri, std::string* scheme, Options* opts);

// First-fit allocator over the arena [base, base + size).
class Arena {
 public:
  Arena(uint64_t base, uint64_t size) : base_(base), size_(size) { free_[base] = size; }
  uint64_t alloc(uint64_t bytes, uint64_t align);  // throws Error(kOutOfMemory)
  void free(uint64_t addr);
  uint64_t used() const { return used_; }

 private:
  uint64_t base_, size_, used_ = 0;
  std::map<uint64_t, uint64_t> free_;   // addr -> size
  std::map<uint64_t, uint64_t> taken_;  // addr -> size
};

class DeviceImpl {
 public:
  DeviceImpl(std::unique_ptr<Backend> be, const std::string& uri, const Options& dev_opts);
  ~DeviceImpl();

  Backend& be() { return *be_; }
  // CSR access; back-end failures become weft::Error (kBadArgument for an unmapped offset,
  // kSimulation for a failed simulation).
  uint32_t rd(uint32_t offset);
  void wr(uint32_t offset, uint32_t value);
  const Capabilities& caps() const { return caps_; }
  Queue& queue() { return queue_; }
  uint64_t arena_alloc(uint64_t bytes, uint64_t align) { return arena_.alloc(bytes, align); }
  void free(uint64_t addr) { arena_.free(addr); }

  // Queue operations (Queue forwards here).
  uint64_t submit(Descriptor d);
  uint64_t submit_many(const Descriptor* ds, size_t n);
  void wait(uint64_t index, Timeout t);
  uint64_t completed();
  uint64_t next() const { return next_; }
  uint32_t ring_entries() const { return ring_entries_; }
  std::optional<DeviceError> error();
  void reset(Timeout t);
  // SIMT_ERR_* (the last launch's fault; code 0 when it ended well or there is no SIMT core).
  SimtFault simt_fault();

  PerfReport perf();
  void clear_perf();

  std::string description() const;
  uint64_t arena_base() const { return arena_base_; }
  uint64_t arena_size() const { return arena_size_; }
  uint64_t arena_used() const { return arena_.used(); }  // bytes taken (ring and Buffers)

  // One wait's budget, started when it is made: device cycles and wall-clock seconds, whichever
  // runs out first.
  class Budget {
   public:
    Budget(const Backend& be, Timeout limit);
    enum class Spent { kNo, kCycles, kSeconds };
    Spent spent() const;  // which limit has run out, if any
    uint64_t cycles_left() const;
    double seconds_left() const;
    uint64_t cycles() const;  // device cycles since the budget started
    double seconds() const;   // wall-clock seconds since the budget started
    const Timeout& limit() const { return limit_; }

   private:
    const Backend& be_;
    Timeout limit_;
    uint64_t c0_;
    std::chrono::steady_clock::time_point w0_;
  };
  Budget budget(Timeout t) const { return Budget(*be_, effective(t)); }

  // Runs the device until pred() holds or `b` is spent. False when the budget ran out.
  bool run_until(const std::function<bool()>& pred, const Budget& b);
  // A TIMEOUT error that says which limit fired, after how long, and the queue's state.
  [[noreturn]] void throw_timeout(const std::string& what, const Budget& b);
  // The error the device settled on (ERR_* registers once it is idle), as weft::Error.
  [[noreturn]] void throw_device_error(const DeviceError& e, const std::string& note = {});

  // Brings the queue to a known state whatever ran before (this process or an earlier one):
  // CTRL.qreset, then waits until STATUS.reset_busy clears. `what` names the caller in errors.
  void queue_reset(const std::string& what, const Budget& b);
  // After the queue stopped on an error: runs the device until it is idle (every transfer that
  // had started has ended, so a later bus error can no longer replace the recorded one), then
  // reads ERR_CODE / ERR_INDEX / ERR_ADDR. Also returns what was recorded if `b` runs out first;
  // *settled says which.
  std::optional<DeviceError> settle(const Budget& b, bool* settled);

 private:
  CompletionRecord record();
  uint64_t widen(uint32_t count) const;  // a 32-bit count near next_ -> 64 bits
  Timeout effective(Timeout t) const;

  std::unique_ptr<Backend> be_;
  std::string uri_;
  Capabilities caps_;
  uint64_t arena_base_, arena_size_;
  Arena arena_;
  Queue queue_;
  uint32_t ring_entries_ = 256;
  uint64_t ring_addr_ = 0, cpl_addr_ = 0;
  uint64_t next_ = 0;
  uint64_t default_timeout_cycles_ = 200'000'000;
  double default_timeout_seconds_ = 300.0;
};

}  // namespace weft::detail
