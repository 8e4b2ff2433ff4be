// The back-end interface of libweft: what the driver needs from a device. Back ends: ref://
// (ref_device.cpp, a functional model of docs/programming-model.md), sim:// (a plugin around
// the Verilated weft_top, sim_backend.cpp), pcie-sim:// (a plugin around the Verilated
// weft_pcie_top behind the root-complex model) and uart:// (a serial port to weft_board,
// uart_backend.cpp). The plugins are built against this header, so keep it free of libweft
// symbols: plain virtual calls, std exceptions only. See docs/host-interfaces.md.
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

  // Memory error injection (weft::Device::inject_mem_error): inverts stored bit `bit` (data bits
  // first, then check bits) of word `addr` of memory `mem` (weft::Memory: 0 scratchpad line, 1
  // accumulator row). Returns false when the back end cannot; throws std::out_of_range for an
  // address or bit beyond the memory.
  virtual bool flip_mem_bit(int mem, uint64_t addr, unsigned bit) {
    (void)mem, (void)addr, (void)bit;
    return false;
  }
  // Data and check bits per word of memory `mem`; false when the back end cannot tell.
  virtual bool mem_word_bits(int mem, unsigned* data, unsigned* check) {
    (void)mem, (void)data, (void)check;
    return false;
  }

  // The host-memory writes the device made (address, bytes) since the last call.
  virtual std::vector<std::pair<uint64_t, uint64_t>> take_device_writes() = 0;

  // The host memory the back end offers the device (uart://: the board's memory). false: any
  // address works and the driver's arena options (mem, membase) decide.
  virtual bool memory_range(uint64_t* base, uint64_t* bytes) const {
    (void)base, (void)bytes;
    return false;
  }

  // The link's account of the bus error that stopped the queue (pcie-sim://: completion timeout,
  // Unsupported Request, Completer Abort or poisoned data, with tag and address); "" if none.
  virtual std::string explain_error(uint32_t device_error_code) {
    (void)device_error_code;
    return {};
  }
  // Called after Queue::reset() finished: the link may clear its error record.
  virtual void on_queue_reset() {}

  // Link-level fault injection (pcie-sim://): the device's reads touching [lo, hi) fail with
  // `kind` (weft::LinkFault: 1 dropped completion, 2 UR, 3 CA, 4 poisoned data) until
  // clear_link_faults(). Returns false when the back end has no link to break.
  virtual bool inject_link_fault(int kind, uint64_t lo, uint64_t hi) {
    (void)kind, (void)lo, (void)hi;
    return false;
  }
  virtual void clear_link_faults() {}

  // Link counters by name (pcie-sim://: tags_total, tags_free, ...; uart://: frames, retries,
  // ...); empty when the back end has no link.
  virtual std::vector<std::pair<std::string, uint64_t>> link_stats() { return {}; }

  virtual std::string description() const = 0;

  // The device's host-memory bus beats since the last call, adjacent beats merged: [addr, addr +
  // bytes), a read or a write (sim://?buslog=1). False when the back end does not log them.
  struct BusAccess {
    uint64_t addr = 0, bytes = 0;
    bool write = false;
  };
  virtual bool take_bus_accesses(std::vector<BusAccess>* out) {
    (void)out;
    return false;
  }
};

// Entry point of a sim:// plugin (extern "C", looked up with dlsym). On failure returns nullptr
// and writes a message (what to fix) into err[0..err_len).
using CreateBackendFn = Backend* (*)(const Options* options, char* err, size_t err_len);
constexpr const char* kCreateBackendSymbol = "weft_create_sim_backend";

}  // namespace weft::detail
