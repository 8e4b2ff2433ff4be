// weft/simt.hpp: SIMT kernels through the descriptor queue (docs/driver.md, "SIMT").
//
//   weft::Simt simt(dev);                                   // the device's SIMT core (CAP3)
//   simt.load(weft::SimtImage::from_file("vecadd.elf"));     // code -> instruction memory (LOAD)
//   const uint32_t a = simt.put(av), b = simt.put(bv);      // host -> data memory (LOAD)
//   const uint32_t c = simt.alloc(n * 4);
//   const uint32_t args = simt.put_args(weft_vecadd_args{n, a, b, c});
//   weft::SimtReport r = simt.launch({.warps = 4, .threads_per_warp = 8}, args);  // SIMT_LAUNCH
//   std::vector<int32_t> cv = simt.read<int32_t>(c, n);     // data memory -> host (STORE_SPAD)
//   std::vector<uint32_t> codes = simt.exit_codes();        // each thread's exit code (optional)
//
// Every transfer moves whole lines (CAP0.bus_bytes, 16): writes start on a line and pad the last
// line with zeros. The descriptors carry the dependencies the programming model asks for (a
// launch after the LOADs of its code and data, a STORE_SPAD after the launch, a LOAD after the
// launches and stores that use the memory it overwrites), so the engines run concurrently.
// A kernel fault throws weft::Error with code SIMT, the launch's queue index, address()
// = thread << 32 | pc and a message with the fault's name, pc, thread and tval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/descriptor.hpp"
#include "weft/device.hpp"
#include "weft/error.hpp"

namespace weft {

// SIMT_ERR_CODE values (docs/simt-model.md, "Errors"); 11 = launch shape rejected (RTL only).
enum class SimtErrc : uint32_t {
  kNone = 0,
  kIllegalInstruction = 1,
  kBreakpoint = 2,
  kFetchMisaligned = 3,
  kFetchOutOfRange = 4,
  kLoadMisaligned = 5,
  kLoadOutOfRange = 6,
  kStoreMisaligned = 7,
  kStoreOutOfRange = 8,
  kUnsupportedEcall = 9,
  kStepLimit = 10,
  kBadLaunch = 11,
};
// "IllegalInstruction", ... (the golden model's names); "Unknown" otherwise.
WEFT_API std::string_view simt_error_name(uint32_t code);

// The fault of the last launch (SIMT_ERR_CODE / _PC / _THREAD / _TVAL).
struct WEFT_API SimtFault {
  uint32_t code = 0;    // SimtErrc
  uint32_t pc = 0;      // pc of the faulting instruction
  uint32_t thread = 0;  // thread id (warp * threads_per_warp + lane)
  uint32_t tval = 0;    // faulting address, instruction word, fetch target or a7
  bool ok() const { return code == 0; }
  std::string_view name() const { return simt_error_name(code); }
  // "IllegalInstruction at pc 0x00000010, thread 13, tval 0x0000ffff"
  std::string to_string() const;
};

// Counters of the last launch that ended (SIMT_* registers, 32 bits, wrapping). On ref://
// cycles = issued (one warp instruction per cycle, no stalls).
struct WEFT_API SimtReport {
  uint32_t cycles = 0, issued = 0, active = 0;
  uint32_t stall_pipe = 0, stall_div = 0, stall_mem = 0, stall_barrier = 0;
  uint32_t replays = 0, barriers = 0, launches = 0;
  uint32_t threads_per_warp = 0;  // of the launch (from the descriptor), for lanes_active()
  double ipc() const { return cycles ? double(issued) / double(cycles) : 0.0; }
  double lanes_active() const {
    return issued && threads_per_warp ? double(active) / (double(issued) * threads_per_warp) : 0.0;
  }
  std::string to_string() const;
};

// A kernel image: the PT_LOAD segments of an ELF32 little-endian RISC-V executable, as
// weft::golden::simt::load_elf places them: every segment in the data memory at p_vaddr (file
// bytes, then zeros to p_memsz), executable ones also in the instruction memory. sw/kernels
// images have an R+X segment (.text, .rodata) and, with writable globals, an RW one (.data, then
// .bss as zeros) after it (docs/kernels.md, "Memory image").
struct WEFT_API SimtImage {
  struct Segment {
    uint32_t addr = 0;
    std::vector<uint8_t> bytes;
    bool exec = false;
  };
  std::vector<Segment> segments;
  uint32_t entry = 0;  // e_entry
  uint32_t end = 0;    // first byte above every segment
  // Throws Error(kBadArgument) for a malformed or unsupported file.
  static SimtImage from_elf(std::span<const uint8_t> elf);
  static SimtImage from_file(const std::string& path);
};

struct SimtShape {
  uint32_t warps = 1;             // 1 .. CAP3.warps
  uint32_t threads_per_warp = 1;  // 1 .. CAP3.threads
};

// The SIMT core of a device. The Device must outlive it. Data memory layout: the image from
// address 0 (its end rounded up to a line), then the heap (alloc), then the thread stacks at the
// top (stack_bytes per thread for CAP3.warps x CAP3.threads threads).
class WEFT_API Simt {
 public:
  struct Options {
    uint32_t stack_bytes = 512;  // per thread, a multiple of 16
  };
  // Throws Error(kUnsupported) when the device has no SIMT core (CAP3 = 0).
  explicit Simt(Device& dev);
  Simt(Device& dev, Options opt);

  Device& device() { return *dev_; }

  // Writes the image (instruction memory and data memory LOADs) and empties the heap. Throws
  // Error(kBadArgument) when a segment does not fit the memories. Returns the last LOAD's index.
  // Segments sharing a data memory line are written by one LOAD (a line is never half zeros).
  uint64_t load(const SimtImage& image);
  // Writable globals (the image's non-executable segments: .data, .bss) are written by load()
  // and then belong to the kernel: every thread of a launch shares them, and a launch sees what
  // earlier launches left there. reload_data() writes them again from the image (LOADs after the
  // earlier launches), so the next launch starts from the initial values. Returns the last
  // LOAD's index, 0 when the image has no writable segment. Code is not rewritten.
  uint64_t reload_data();
  const SimtImage& image() const { return image_; }

  // Heap blocks in the data memory (multiples of `align`, at least a line). Throws
  // Error(kOutOfMemory) when the heap is full; free_all() empties it.
  uint32_t alloc(size_t bytes, uint32_t align = 16);
  void free_all();
  uint32_t heap_begin() const { return heap_begin_; }
  uint32_t heap_end() const { return heap_end_; }
  uint32_t stack_top() const { return stack_top_; }
  uint32_t stack_bytes() const { return opt_.stack_bytes; }

  // Host -> data memory at `addr` (a multiple of CAP0.bus_bytes): LOADs of whole lines, the last
  // one padded with zeros. Asynchronous (the data is staged in a Buffer first); returns the
  // index of the last LOAD.
  uint64_t write(uint32_t addr, const void* src, size_t bytes);
  template <class T>
  uint64_t write(uint32_t addr, std::span<const T> v) {
    return write(addr, v.data(), v.size_bytes());
  }
  // alloc + write.
  template <class T>
  uint32_t put(const std::vector<T>& v) {
    const uint32_t a = alloc(v.size() * sizeof(T));
    if (!v.empty()) write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  // An argument struct (weft_kernel_args.h) in the heap; its address is the launch's arg_ptr.
  template <class Args>
  uint32_t put_args(const Args& args) {
    const uint32_t a = alloc(sizeof(Args));
    write(a, &args, sizeof(Args));
    return a;
  }

  // Data memory -> host: a STORE_SPAD after every earlier launch and LOAD, then waits. Any
  // address and length inside the data memory.
  void read(uint32_t addr, void* dst, size_t bytes, Timeout t = {});
  template <class T>
  std::vector<T> read(uint32_t addr, size_t n, Timeout t = {}) {
    std::vector<T> v(n);
    if (n) read(addr, v.data(), n * sizeof(T), t);
    return v;
  }

  // The launch descriptor for the loaded image: pc = entry, this object's stacks.
  SimtLaunch launch_args(SimtShape shape, uint32_t arg_ptr, uint32_t block_id = 0,
                         uint32_t max_issues = 0) const;
  // Submits SIMT_LAUNCH after the LOADs before it. The launch ABI's stack rules (multiples of 16,
  // lowest stack >= 0) are checked here (Error(kBadArgument)); the shape by the device (SIZE).
  uint64_t submit_launch(const SimtLaunch& l);
  // Waits for launch `index` and reads its counters (valid while no later launch has ended).
  // A kernel fault throws Error(kSimt) (see the top of this file).
  SimtReport wait(uint64_t index, Timeout t = {});
  // submit_launch(launch_args(...)) + wait.
  SimtReport launch(SimtShape shape, uint32_t arg_ptr, uint32_t block_id = 0,
                    uint32_t max_issues = 0, Timeout t = {});

  SimtReport report();  // SIMT_* counters now
  SimtFault fault();    // SIMT_ERR_* now

  // Each thread's exit code of the last launch submitted by this object, by thread id (warp *
  // threads_per_warp + lane): the kernel runtime (crt0, weft_exit(); docs/kernels.md, "Exit
  // codes") stores it in the top word of the thread's stack, [stack_top - t * stack_size - 4],
  // and this reads those words back with one STORE_SPAD after the launch (so launches that do
  // not ask pay nothing). Valid for threads that exited through the runtime (not after a fault,
  // not for code that exits with a bare ecall). Empty when nothing was launched.
  std::vector<uint32_t> exit_codes(Timeout t = {});

 private:
  std::vector<uint64_t> deps(bool after_loads, bool after_launches, bool after_stores);
  uint64_t submit(const Descriptor& d, const std::vector<uint64_t>& after);
  void sync_queue();  // forgets indices from before a Queue::reset(), frees staged buffers
  uint64_t transfer(bool store, uint32_t line, const Buffer& buf, size_t bytes);

  Device* dev_;
  Options opt_;
  uint32_t line_ = 16;
  SimtImage image_;
  uint32_t heap_begin_ = 0, heap_next_ = 0, heap_end_ = 0, stack_top_ = 0;
  // Indices (+1; 0 = none) of the last LOAD, launch and STORE_SPAD submitted by this object.
  uint64_t last_load_ = 0, last_launch_ = 0, last_store_ = 0;
  uint64_t seen_next_ = 0;
  std::deque<std::pair<uint64_t, Buffer>> staged_;  // write buffers until their LOAD completed
  uint32_t last_tpw_ = 0;
  // The last launch's thread count and stacks (for exit_codes()).
  uint64_t last_threads_ = 0;
  uint32_t last_stack_top_ = 0, last_stack_size_ = 0;
  uint64_t write_segments(bool data_only);
};

}  // namespace weft
