// weft/device.hpp: open a Weft device, allocate device-visible buffers, submit descriptors.
//
//   weft::Device dev = weft::Device::open("ref://");        // or "sim://?array=16x16&bp=0.3"
//   weft::Buffer buf = dev.alloc(4096);                      // host memory the device may DMA
//   buf.write(0, data.data(), data.size());
//   weft::Queue& q = dev.queue();
//   uint64_t i = q.submit(weft::Descriptor::load({.host_addr = buf.device_address(), ...}));
//   q.wait(i);                          // throws weft::Error on a device error or timeout
//
// See docs/driver.md for the URI options, the queue and error handling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/descriptor.hpp"
#include "weft/error.hpp"
#include "weft/perf.hpp"

namespace weft {

namespace detail {
class DeviceImpl;
}

// CAP0..CAP4 and VERSION.
struct WEFT_API Capabilities {
  uint32_t rows = 0, cols = 0;  // systolic array
  uint32_t bus_bytes = 0;       // AXI data width in bytes = scratchpad line size
  uint32_t windows = 0;         // DMA windows
  uint32_t spad_lines = 0, spad_banks = 0;
  uint32_t acc_rows = 0;   // two banks of acc_rows / 2
  uint32_t inflight = 0;   // descriptors in flight at most
  uint32_t max_burst = 0;  // AXI beats
  uint32_t version_major = 0, version_minor = 0;
  // SIMT core (CAP3, CAP4); all 0: the device has none (SIMT_LAUNCH is an unknown opcode).
  uint32_t simt_warps = 0, simt_threads = 0;          // launch shape limits
  uint32_t simt_dmem_bytes = 0, simt_imem_bytes = 0;  // data / instruction memory
  uint32_t simt_dmem_banks = 0;                       // data memory banks (32-bit interleaved)
  bool tensor_fp = false;  // CAP4.fp: the tensor unit's FP8 modes (ElemFormat E4M3 / E5M2)
  bool mem_ecc = false;    // CAP4.ecc: SECDED ECC on the scratchpad and accumulator memories
  bool has_simt() const { return simt_warps != 0; }
  std::string to_string() const;
};

// How long a wait may take. Whichever budget runs out first ends the wait with Errc::kTimeout.
// 0 means the device's default (URI option timeout=<cycles>, default 200 M cycles; 300 s).
struct Timeout {
  uint64_t cycles = 0;  // device clock cycles
  double seconds = 0;   // wall-clock seconds
};

// The error that stopped the queue (ERR_CODE, ERR_INDEX, ERR_ADDR).
struct WEFT_API DeviceError {
  ErrorCode code = ErrorCode::kNone;
  uint64_t index = 0;    // queue index of the failing descriptor
  uint64_t address = 0;  // ERR_ADDR: host address for ALIGN/WINDOW/bus errors, the column for
                         // PARAM, thread << 32 | pc for SIMT, the scratchpad line for ECC_SPAD,
                         // the accumulator row for ECC_ACC, else the ring entry
  std::string link;      // the link's account of a bus error (pcie-sim://), else empty
  std::string_view name() const { return error_name(code); }
  std::string to_string() const;
};

// Faults the PCIe-like link model can inject into the device's reads (docs/host-interfaces.md).
enum class LinkFault : int {
  kDropCompletion = 1,      // the completion never comes: the endpoint's completion timeout
  kUnsupportedRequest = 2,  // completion status UR
  kCompleterAbort = 3,      // completion status CA
  kPoisoned = 4,            // CplD with the EP (poisoned) bit set
  // A malformed first completion, which the endpoint drops (LINK_CPL_BAD), so that the read ends
  // in a completion timeout:
  kTruncated = 5,        // its eop comes a beat before its Length ends
  kOverlong = 6,         // a beat more than its Length
  kBadTag = 7,           // a tag the endpoint never uses
  kBadByteCount = 8,     // Byte Count inconsistent with what is outstanding
  kBadLowerAddress = 9,  // Lower Address of another beat
  kGarbage = 10,         // random header fields
};

// Host-memory bus beats of the device (Device::take_bus_accesses): [addr, addr + bytes), adjacent
// beats merged, every beat whole (a partly strobed write beat counts all its bytes).
struct BusAccess {
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool write = false;
};

// The device memories that have ECC on devices with Capabilities::mem_ecc (docs/common.md "ECC").
enum class Memory : int {
  kScratchpad = 0,   // addressed by line (0 .. spad_lines - 1)
  kAccumulator = 1,  // addressed by row (0 .. acc_rows - 1; the bank is the row's MSB)
};

// The memory ECC registers (ECC_*; all zero without ECC): counted since the device's reset or
// Device::clear_ecc(), saturating at 2^32 - 1.
struct WEFT_API EccCounts {
  uint32_t corrected = 0;  // words read with one flipped bit, corrected (ECC_CORRECTED)
  uint32_t detected = 0;   // words read with more, not correctable (ECC_DETECTED)
  Memory last_corrected_mem = Memory::kScratchpad;  // the last corrected word (ECC_LAST_CORR)
  uint32_t last_corrected_addr = 0;
  Memory last_detected_mem = Memory::kScratchpad;  // the last uncorrectable word (ECC_LAST_ERR)
  uint32_t last_detected_addr = 0;
};

// Bits of one stored word of a memory: data, then check bits (0 without ECC).
struct MemWordBits {
  uint32_t data = 0;
  uint32_t check = 0;
};

// A block of host memory inside the device's DMA window. Freed when the last copy goes away.
class WEFT_API Buffer {
 public:
  Buffer() = default;
  bool valid() const { return s_ != nullptr; }
  uint64_t device_address() const;  // what descriptors use
  size_t size() const;
  void write(size_t offset, const void* src, size_t bytes);
  void read(size_t offset, void* dst, size_t bytes) const;
  void fill(uint8_t value);
  template <class T>
  void write(std::span<const T> data, size_t offset = 0) {
    write(offset, data.data(), data.size_bytes());
  }
  template <class T>
  std::vector<T> read(size_t count, size_t offset = 0) const {
    std::vector<T> v(count);
    read(offset, v.data(), count * sizeof(T));
    return v;
  }

 private:
  friend class Device;
  struct State;
  std::shared_ptr<State> s_;
};

// The descriptor queue: a ring in host memory, the RING_TAIL doorbell and the completion record.
// Indices count descriptors since the last reset (the device's `seq`).
class WEFT_API Queue {
 public:
  // Writes `d` (with seq = its index) into the ring and rings the doorbell; waits (running the
  // device) while the ring is full. Returns the index. Throws kQueueStopped after an error.
  uint64_t submit(Descriptor d);
  // The same, with dependencies given as absolute indices of earlier descriptors: sets dep0/dep1
  // (dependencies further back than CAP2.inflight are always met and dropped). At most two.
  uint64_t submit(Descriptor d, std::initializer_list<uint64_t> after);
  // Several descriptors, one doorbell per ring-full; returns the index of the last.
  uint64_t submit(std::span<const Descriptor> ds);

  // Runs the device until descriptor `index` has completed. Throws weft::Error with the device
  // code, index and address if the queue stopped on an error first, or kTimeout.
  void wait(uint64_t index, Timeout t = {});
  // Waits for everything submitted.
  void finish(Timeout t = {});

  uint64_t submitted() const;  // index the next descriptor gets
  uint64_t completed();        // descriptors completed (from the completion record)
  uint32_t ring_entries() const;

  // The error that stopped the queue, if any (reads the ERR_* registers).
  std::optional<DeviceError> error();
  // CTRL.qreset: clears head, completed count and error once the device is idle; the next
  // descriptor gets index 0. Windows, ring configuration and scratchpad are kept.
  void reset(Timeout t = {});

 private:
  friend class detail::DeviceImpl;
  explicit Queue(detail::DeviceImpl* d) : d_(d) {}
  detail::DeviceImpl* d_;
};

class WEFT_API Device {
 public:
  // "ref://[?options]" (functional C++ reference device) or "sim://[?options]" (the Verilated
  // weft_top). Options (key=value, separated by & or ,) are listed in docs/driver.md.
  static Device open(std::string_view uri);

  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  ~Device();

  const Capabilities& caps() const;
  std::string description() const;  // back end and configuration, one line

  // Device-visible host memory from the arena (DMA window 0). Alignment is a power of two >= 16.
  Buffer alloc(size_t bytes, size_t align = 64);
  uint64_t arena_base() const;
  uint64_t arena_size() const;

  Queue& queue();

  // Performance counters since the last clear_perf() (CTRL.perf_clear).
  PerfReport perf();
  void clear_perf();

  // Device clock cycles run so far by the back end.
  uint64_t cycle() const;
  // Runs the device clock for `cycles` cycles.
  void run(uint64_t cycles);

  // Raw access for tools and tests: CSRs by byte offset (weft/regs.hpp), host memory by address
  // (any address, inside the arena or not).
  uint32_t read_reg(uint32_t offset);
  void write_reg(uint32_t offset, uint32_t value);
  void host_write(uint64_t addr, const void* src, size_t bytes);
  void host_read(uint64_t addr, void* dst, size_t bytes);

  // Fault injection (ref:// and sim://): from now on, host accesses touching [lo, hi) in the
  // given direction answer `resp` (2 = SLVERR, 3 = DECERR) until clear_bus_errors().
  void inject_bus_error(uint64_t lo, uint64_t hi, bool write, unsigned resp = 2);
  void clear_bus_errors();
  // The host-memory writes the device made (address, bytes) since the last call: tests use it to
  // show that nothing was written outside the DMA windows.
  std::vector<std::pair<uint64_t, uint64_t>> take_device_writes();
  // Every read and write beat the device put on its host-memory bus since the last call,
  // whatever the answer (OKAY or an injected error): tests and the fuzzer show that no access,
  // read or write, left the DMA windows. sim:// opened with buslog=1; Errc::kUnsupported
  // elsewhere.
  std::vector<BusAccess> take_bus_accesses();

  // Memory ECC (devices with caps().mem_ecc; zeros elsewhere): ECC_* registers, CTRL.ecc_clear.
  EccCounts ecc_counts();
  void clear_ecc_counts();
  // Memory error injection (sim://, through the SRAMs' simulation back door; Errc::kUnsupported
  // elsewhere): inverts stored bit `bit` of scratchpad line / accumulator row `addr`, a data bit
  // below mem_word_bits(m).data, else a check bit. The next read of that word sees the error; a
  // word is rewritten whole (LOAD, COMPUTE), which removes it.
  void inject_mem_error(Memory m, uint64_t addr, unsigned bit);
  MemWordBits mem_word_bits(Memory m);

  // Link faults (pcie-sim://; Errc::kUnsupported elsewhere): from now on the device's reads
  // touching [lo, hi) fail with `f` until clear_link_faults().
  void inject_link_fault(LinkFault f, uint64_t lo, uint64_t hi);
  void clear_link_faults();
  // Link counters by name (pcie-sim://: tags_total, tags_free, ...; uart://: frames, retries,
  // ...; docs/host-interfaces.md); empty when the back end has no link.
  std::vector<std::pair<std::string, uint64_t>> link_stats();
  std::optional<uint64_t> link_stat(std::string_view name);

  detail::DeviceImpl& impl() { return *impl_; }

 private:
  explicit Device(std::shared_ptr<detail::DeviceImpl> impl);
  std::shared_ptr<detail::DeviceImpl> impl_;
};

}  // namespace weft
