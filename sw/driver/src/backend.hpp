// The back-end interface of libweft: what the driver needs from a device. Back ends: ref://
// (ref_device.cpp, a functional model of docs/programming-model.md) and sim:// (a plugin around
// the Verilated weft_top, sim_backend.cpp). The sim plugin is built against this header, so keep
// it free of libweft symbols: plain virtual calls, std exceptions only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace weft::detail {

// key=value options from the URI.
using Options = std::map<std::string, std::string>;

class Backend {
 public:
  virtual ~Backend() = default;

  // 32-bit CSR access by byte offset (takes device cycles on sim://).
  virtual uint32_t csr_read(uint32_t offset) = 0;
  virtual void csr_write(uint32_t offset, uint32_t value) = 0;

  // Host memory shared with the device, by address (zero time, like a CPU store).
  virtual void mem_write(uint64_t addr, const void* src, size_t bytes) = 0;
  virtual void mem_read(uint64_t addr, void* dst, size_t bytes) = 0;

  // Runs the clock for at most `max_cycles`, stopping early once `stop()` returns true (checked
  // every cycle, or between descriptors on ref://). Returns the cycles run.
  virtual uint64_t run(uint64_t max_cycles, const std::function<bool()>& stop) = 0;
  virtual uint64_t cycle() const = 0;

  // From now on, AXI accesses touching [lo, hi) in the given direction answer `resp` (2 SLVERR,
  // 3 DECERR) until clear_bus_errors(). Returns false when the back end cannot inject faults.
  virtual bool inject_bus_error(uint64_t lo, uint64_t hi, bool write, unsigned resp) {
    (void)lo, (void)hi, (void)write, (void)resp;
    return false;
  }
  virtual void clear_bus_errors() {}

  // The host-memory writes the device made (address, bytes) since the last call.
  virtual std::vector<std::pair<uint64_t, uint64_t>> take_device_writes() = 0;

  virtual std::string description() const = 0;
};

// Entry point of a sim:// plugin (extern "C", looked up with dlsym). On failure returns nullptr
// and writes a message (what to fix) into err[0..err_len).
using CreateBackendFn = Backend* (*)(const Options* options, char* err, size_t err_len);
constexpr const char* kCreateBackendSymbol = "weft_create_sim_backend";

}  // namespace weft::detail
