// libweft: SIMT kernels through the queue (weft/simt.hpp, docs/driver.md "SIMT"): ELF images,
// data memory transfers by LOAD / STORE_SPAD in the SIMT line regions, SIMT_LAUNCH, the SIMT_*
// registers.
#include "weft/simt.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "csr.hpp"
#include "device_impl.hpp"
#include "weft/golden/simt.hpp"

namespace weft {

namespace csr = detail::csr;

// ================================================================================== faults
std::string_view simt_error_name(uint32_t code) {
  switch (static_cast<SimtErrc>(code)) {
    case SimtErrc::kNone:
      return "None";
    case SimtErrc::kIllegalInstruction:
      return "IllegalInstruction";
    case SimtErrc::kBreakpoint:
      return "Breakpoint";
    case SimtErrc::kFetchMisaligned:
      return "FetchMisaligned";
    case SimtErrc::kFetchOutOfRange:
      return "FetchOutOfRange";
    case SimtErrc::kLoadMisaligned:
      return "LoadMisaligned";
    case SimtErrc::kLoadOutOfRange:
      return "LoadOutOfRange";
    case SimtErrc::kStoreMisaligned:
      return "StoreMisaligned";
    case SimtErrc::kStoreOutOfRange:
      return "StoreOutOfRange";
    case SimtErrc::kUnsupportedEcall:
      return "UnsupportedEcall";
    case SimtErrc::kStepLimit:
      return "StepLimit";
    case SimtErrc::kBadLaunch:
      return "BadLaunch";
  }
  return "Unknown";
}

std::string SimtFault::to_string() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.*s (code %u) at pc 0x%08x, thread %u, tval 0x%08x",
                static_cast<int>(name().size()), name().data(), code, pc, thread, tval);
  return buf;
}

std::string SimtReport::to_string() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "cycles %u, warp instructions %u (IPC %.3f), thread instructions %u (%.1f %% of "
                "lanes active)\nstall cycles: pipeline %u, divider %u, memory %u, barrier %u; "
                "replays %u, barrier releases %u",
                cycles, issued, ipc(), active, 100.0 * lanes_active(), stall_pipe, stall_div,
                stall_mem, stall_barrier, replays, barriers);
  return buf;
}

// ================================================================================== ELF
SimtImage SimtImage::from_elf(std::span<const uint8_t> elf) {
  // The golden model's reader, so the driver and the model place a kernel identically.
  golden::simt::ElfImage parsed;
  try {
    parsed = golden::simt::parse_elf(elf);
  } catch (const std::runtime_error& e) {
    throw Error(Errc::kBadArgument, std::string("SIMT kernel image: ") + e.what() +
                                        " (expected an ELF32 little-endian RISC-V executable, as "
                                        "sw/kernels builds them)");
  }
  SimtImage img;
  img.entry = parsed.entry;
  for (auto& seg : parsed.segments) {
    Segment s;
    s.addr = seg.addr;
    s.exec = seg.exec;
    s.bytes = std::move(seg.bytes);
    img.end = std::max<uint32_t>(img.end, static_cast<uint32_t>(s.addr + s.bytes.size()));
    img.segments.push_back(std::move(s));
  }
  if (img.segments.empty()) {
    throw Error(Errc::kBadArgument, "SIMT kernel image: no PT_LOAD segment");
  }
  return img;
}

SimtImage SimtImage::from_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(Errc::kBadArgument, "cannot open SIMT kernel image '" + path + "'");
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f),
                                   std::istreambuf_iterator<char>()};
  try {
    return from_elf(bytes);
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + std::string(e.detail()));
  }
}

// ================================================================================== Simt
Simt::Simt(Device& dev) : Simt(dev, Options{}) {}

Simt::Simt(Device& dev, Options opt) : dev_(&dev), opt_(opt) {
  const Capabilities& c = dev.caps();
  if (!c.has_simt()) {
    throw Error(Errc::kUnsupported,
                "this device has no SIMT core (CAP3 = 0): " + dev.description());
  }
  line_ = c.bus_bytes;
  const uint64_t stacks = uint64_t{c.simt_warps} * c.simt_threads * opt_.stack_bytes;
  if (opt_.stack_bytes % 16 != 0 || stacks >= c.simt_dmem_bytes) {
    throw Error(Errc::kBadArgument, "Simt: stack_bytes " + std::to_string(opt_.stack_bytes) +
                                        " must be a multiple of 16 and the " +
                                        std::to_string(c.simt_warps) + " x " +
                                        std::to_string(c.simt_threads) + " stacks must fit the " +
                                        std::to_string(c.simt_dmem_bytes) + "-byte data memory");
  }
  stack_top_ = c.simt_dmem_bytes;
  heap_end_ = static_cast<uint32_t>((stack_top_ - stacks) & ~uint64_t{line_ - 1});
  heap_begin_ = heap_next_ = 0;
  seen_next_ = dev.queue().submitted();
}

void Simt::sync_queue() {
  Queue& q = dev_->queue();
  const uint64_t next = q.submitted();
  if (next < seen_next_) {
    // Queue::reset(): the device is idle and indices start again from 0.
    last_load_ = last_launch_ = last_store_ = 0;
    staged_.clear();
  }
  seen_next_ = next;
  if (!staged_.empty()) {
    const uint64_t done = q.completed();
    while (!staged_.empty() && staged_.front().first < done) staged_.pop_front();
  }
}

std::vector<uint64_t> Simt::deps(bool after_loads, bool after_launches, bool after_stores) {
  std::vector<uint64_t> v;
  if (after_loads && last_load_) v.push_back(last_load_ - 1);
  if (after_launches && last_launch_) v.push_back(last_launch_ - 1);
  if (after_stores && last_store_) v.push_back(last_store_ - 1);
  return v;
}

uint64_t Simt::submit(const Descriptor& d, const std::vector<uint64_t>& after) {
  Queue& q = dev_->queue();
  uint64_t i = 0;
  switch (after.size()) {
    case 0:
      i = q.submit(d);
      break;
    case 1:
      i = q.submit(d, {after[0]});
      break;
    default:
      i = q.submit(d, {after[0], after[1]});
      break;
  }
  seen_next_ = q.submitted();
  return i;
}

uint64_t Simt::transfer(bool store, uint32_t line, const Buffer& buf, size_t bytes) {
  // One row of at most 2^20 bytes per descriptor (LOAD / STORE_SPAD row_bytes limit).
  uint64_t last = 0;
  for (size_t off = 0; off < bytes; off += size_t{1} << 20) {
    const size_t n = std::min(bytes - off, size_t{1} << 20);
    Transfer2d t;
    t.host_addr = buf.device_address() + off;
    t.row_bytes = static_cast<uint32_t>(n);
    t.rows = 1;
    t.host_stride = 0;
    t.spad_addr = line + static_cast<uint32_t>(off / line_);
    t.spad_stride = 0;
    if (store) {
      // STORE_SPAD: after the launches that write the memory and the LOADs that fill it.
      last = submit(Descriptor::store_spad(t), deps(true, true, false));
      last_store_ = last + 1;
    } else {
      // LOAD: after the launches and STORE_SPADs that use what it overwrites.
      last = submit(Descriptor::load(t), deps(false, true, true));
      last_load_ = last + 1;
    }
  }
  return last;
}

uint64_t Simt::load(const SimtImage& image) {
  sync_queue();
  const Capabilities& c = dev_->caps();
  for (const auto& s : image.segments) {
    const uint64_t end = uint64_t{s.addr} + s.bytes.size();
    if (end > heap_end_ || (s.exec && end > c.simt_imem_bytes)) {
      throw Error(Errc::kBadArgument,
                  "SIMT kernel image: segment [" + std::to_string(s.addr) + ", " +
                      std::to_string(end) + ") does not fit the " +
                      std::to_string(c.simt_imem_bytes) + "-byte instruction memory or the data " +
                      "memory below the stacks (" + std::to_string(heap_end_) + " bytes)");
    }
  }
  image_ = image;
  const uint64_t last = write_segments(false);
  heap_begin_ = (image_.end + line_ - 1) / line_ * line_;
  heap_next_ = heap_begin_;
  return last;
}

uint64_t Simt::write_segments(bool data_only) {
  // Whole lines: segments whose line ranges overlap or touch are written as one chunk (zeros
  // between them and around the ends), so a LOAD never clears part of another segment's line.
  // One chunk list for the data memory (every segment) and one for the instruction memory
  // (executable segments); with data_only, only the data memory chunks holding a writable one.
  struct Chunk {
    uint32_t start = 0;  // line-aligned
    uint64_t end = 0;    // line-aligned
    std::vector<const SimtImage::Segment*> segs;
    bool writable = false;
  };
  auto chunks = [&](bool exec_only) {
    std::vector<const SimtImage::Segment*> v;
    for (const auto& s : image_.segments) {
      if (!exec_only || s.exec) v.push_back(&s);
    }
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->addr < b->addr; });
    std::vector<Chunk> out;
    for (const auto* s : v) {
      const uint32_t start = s->addr / line_ * line_;
      const uint64_t end = (uint64_t{s->addr} + s->bytes.size() + line_ - 1) / line_ * line_;
      if (out.empty() || start > out.back().end) out.push_back({start, end, {}, false});
      Chunk& c = out.back();
      c.end = std::max(c.end, end);
      c.segs.push_back(s);
      c.writable = c.writable || !s->exec;
    }
    return out;
  };
  uint64_t last = 0;
  auto put = [&](const Chunk& c, uint32_t region_line) {
    const size_t bytes = static_cast<size_t>(c.end - c.start);
    std::vector<uint8_t> v(bytes, 0);
    for (const auto* s : c.segs) {
      if (!s->bytes.empty()) std::memcpy(v.data() + (s->addr - c.start), s->bytes.data(), s->bytes.size());
    }
    Buffer buf = dev_->alloc(bytes);
    buf.write(0, v.data(), v.size());
    last = transfer(false, region_line + c.start / line_, buf, bytes);
    staged_.emplace_back(last, buf);
  };
  if (!data_only) {
    for (const Chunk& c : chunks(true)) put(c, kSimtImemLine);
  }
  for (const Chunk& c : chunks(false)) {
    if (!data_only || c.writable) put(c, kSimtDmemLine);
  }
  return last;
}

uint64_t Simt::reload_data() {
  sync_queue();
  return write_segments(true);
}

std::vector<uint32_t> Simt::exit_codes(Timeout t) {
  if (last_threads_ == 0) return {};
  // The slots lie stack_size apart, the lowest at stack_top - (n - 1) * stack_size - 4: one read
  // of the span, then every stack_size-th word.
  const uint64_t n = last_threads_;
  const uint64_t span = (n - 1) * last_stack_size_ + 4;
  if (span > last_stack_top_) {
    throw Error(Errc::kBadArgument, "Simt::exit_codes: the last launch's stacks (stack_top " +
                                        std::to_string(last_stack_top_) + ", stack_size " +
                                        std::to_string(last_stack_size_) +
                                        ") leave no exit-code slot for every thread");
  }
  const uint32_t lo = static_cast<uint32_t>(last_stack_top_ - span);
  std::vector<uint8_t> bytes(static_cast<size_t>(span));
  read(lo, bytes.data(), bytes.size(), t);
  std::vector<uint32_t> codes(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) {
    // Thread i's slot: stack_top - i * stack_size - 4 = lo + span - 4 - i * stack_size.
    std::memcpy(&codes[i], bytes.data() + (span - 4 - i * last_stack_size_), 4);
  }
  return codes;
}

uint32_t Simt::alloc(size_t bytes, uint32_t align) {
  if (align < line_) align = line_;
  if ((align & (align - 1)) != 0) {
    throw Error(Errc::kBadArgument, "Simt::alloc: alignment must be a power of two");
  }
  const uint64_t a = (uint64_t{heap_next_} + align - 1) / align * align;
  const uint64_t end = a + (std::max<uint64_t>(bytes, 1) + line_ - 1) / line_ * line_;
  if (end > heap_end_) {
    throw Error(Errc::kOutOfMemory,
                "SIMT data memory heap [" + std::to_string(heap_begin_) + ", " +
                    std::to_string(heap_end_) + ") has no room for " + std::to_string(bytes) +
                    " more bytes (" + std::to_string(heap_next_ - heap_begin_) +
                    " in use); call free_all() or use smaller buffers or stacks");
  }
  heap_next_ = static_cast<uint32_t>(end);
  return static_cast<uint32_t>(a);
}

void Simt::free_all() { heap_next_ = heap_begin_; }

uint64_t Simt::write(uint32_t addr, const void* src, size_t bytes) {
  sync_queue();
  const uint32_t mem = dev_->caps().simt_dmem_bytes;
  if (addr % line_ != 0 || bytes == 0 || uint64_t{addr} + bytes > mem) {
    throw Error(Errc::kBadArgument,
                "Simt::write of " + std::to_string(bytes) + " bytes at " + std::to_string(addr) +
                    ": the address must be a multiple of " + std::to_string(line_) +
                    " (whole lines) and the bytes inside the " + std::to_string(mem) +
                    "-byte data memory");
  }
  const size_t padded = (bytes + line_ - 1) / line_ * line_;
  if (uint64_t{addr} + padded > mem) {
    throw Error(Errc::kBadArgument, "Simt::write: the padded last line is outside the memory");
  }
  Buffer buf = dev_->alloc(padded);
  std::vector<uint8_t> v(padded, 0);
  std::memcpy(v.data(), src, bytes);
  buf.write(0, v.data(), v.size());
  const uint64_t last = transfer(false, kSimtDmemLine + addr / line_, buf, padded);
  staged_.emplace_back(last, std::move(buf));
  return last;
}

void Simt::read(uint32_t addr, void* dst, size_t bytes, Timeout t) {
  if (bytes == 0) return;
  sync_queue();
  const uint32_t mem = dev_->caps().simt_dmem_bytes;
  if (uint64_t{addr} + bytes > mem) {
    throw Error(Errc::kBadArgument, "Simt::read of " + std::to_string(bytes) + " bytes at " +
                                        std::to_string(addr) + " is outside the " +
                                        std::to_string(mem) + "-byte data memory");
  }
  const uint32_t start = addr / line_ * line_;
  const size_t padded = (addr - start + bytes + line_ - 1) / line_ * line_;
  Buffer buf = dev_->alloc(padded);
  const uint64_t i = transfer(true, kSimtDmemLine + start / line_, buf, padded);
  dev_->queue().wait(i, t);
  buf.read(addr - start, dst, bytes);
}

SimtLaunch Simt::launch_args(SimtShape shape, uint32_t arg_ptr, uint32_t block_id,
                             uint32_t max_issues) const {
  SimtLaunch l;
  l.pc = image_.entry;
  l.num_warps = shape.warps;
  l.threads_per_warp = shape.threads_per_warp;
  l.block_id = block_id;
  l.arg_ptr = arg_ptr;
  l.stack_top = stack_top_;
  l.stack_size = opt_.stack_bytes;
  l.max_issues = max_issues;
  return l;
}

uint64_t Simt::submit_launch(const SimtLaunch& l) {
  sync_queue();
  const uint64_t threads = uint64_t{l.num_warps} * l.threads_per_warp;
  if (l.stack_top % 16 != 0 || l.stack_size % 16 != 0 ||
      (threads > 0 && uint64_t{l.stack_size} * (threads - 1) > l.stack_top)) {
    throw Error(Errc::kBadArgument,
                "SIMT launch: stack_top " + std::to_string(l.stack_top) + " and stack_size " +
                    std::to_string(l.stack_size) +
                    " must be multiples of 16 and the lowest thread's stack top must not be "
                    "below 0 (docs/simt-model.md, launch ABI)");
  }
  // After the LOADs of its code and data, and the STORE_SPADs reading what it may overwrite.
  const uint64_t i = submit(Descriptor::simt_launch(l), deps(true, false, true));
  last_launch_ = i + 1;
  last_tpw_ = l.threads_per_warp;
  last_threads_ = threads;
  last_stack_top_ = l.stack_top;
  last_stack_size_ = l.stack_size;
  return i;
}

SimtReport Simt::wait(uint64_t index, Timeout t) {
  dev_->queue().wait(index, t);
  SimtReport r = report();
  r.threads_per_warp = last_tpw_;
  return r;
}

SimtReport Simt::launch(SimtShape shape, uint32_t arg_ptr, uint32_t block_id, uint32_t max_issues,
                        Timeout t) {
  return wait(submit_launch(launch_args(shape, arg_ptr, block_id, max_issues)), t);
}

SimtReport Simt::report() {
  detail::DeviceImpl& d = dev_->impl();
  SimtReport r;
  r.cycles = d.rd(csr::kSimtCycles);
  r.issued = d.rd(csr::kSimtIssued);
  r.active = d.rd(csr::kSimtActive);
  r.stall_pipe = d.rd(csr::kSimtStallPipe);
  r.stall_div = d.rd(csr::kSimtStallDiv);
  r.stall_mem = d.rd(csr::kSimtStallMem);
  r.stall_barrier = d.rd(csr::kSimtStallBarrier);
  r.replays = d.rd(csr::kSimtReplays);
  r.barriers = d.rd(csr::kSimtBarriers);
  r.launches = d.rd(csr::kSimtLaunches);
  r.threads_per_warp = last_tpw_;
  return r;
}

SimtFault Simt::fault() { return dev_->impl().simt_fault(); }

}  // namespace weft
