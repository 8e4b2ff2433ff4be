// libweft: Device, Buffer, Queue, errors and the performance report.
#include "weft/device.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "csr.hpp"
#include "device_impl.hpp"
#include "uri_options.hpp"
#include "weft/simt.hpp"

namespace weft {

using detail::DeviceImpl;
namespace csr = detail::csr;

// ================================================================================== errors
std::string_view errc_name(Errc e) {
  if (is_device_code(e)) return error_name(static_cast<ErrorCode>(e));
  switch (e) {
    case Errc::kTimeout:
      return "TIMEOUT";
    case Errc::kBadUri:
      return "BAD_URI";
    case Errc::kNoDevice:
      return "NO_DEVICE";
    case Errc::kOutOfMemory:
      return "OUT_OF_MEMORY";
    case Errc::kBadArgument:
      return "BAD_ARGUMENT";
    case Errc::kQueueStopped:
      return "QUEUE_STOPPED";
    case Errc::kSimulation:
      return "SIMULATION";
    case Errc::kUnsupported:
      return "UNSUPPORTED";
    case Errc::kBadModel:
      return "BAD_MODEL";
    default:
      return "UNKNOWN";
  }
}

Error::Error(Errc code, const std::string& message)
    : std::runtime_error(std::string(errc_name(code)) + ": " + message), code_(code) {}

Error::Error(ErrorCode code, uint64_t index, uint64_t addr, const std::string& message)
    : std::runtime_error(std::string(error_name(code)) + ": " + message),
      code_(to_errc(code)),
      index_(index),
      addr_(addr) {}

namespace {

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

const char* meaning(ErrorCode c) {
  switch (c) {
    case ErrorCode::kOpcode:
      return "unknown opcode (see Opcode in weft/descriptor.hpp)";
    case ErrorCode::kSize:
      return "a size is zero or beyond its limit (rows/row_bytes 1..2^20, m 1..acc_rows/2, "
             "k 1..2^20, n 1..cols, SIMT num_warps 1..CAP3.warps, threads_per_warp "
             "1..CAP3.threads)";
    case ErrorCode::kWindow:
      return "a host range is not inside one DMA window with the needed permission (use "
             "addresses of Buffers from Device::alloc)";
    case ErrorCode::kSpadRange:
      return "a line outside the scratchpad [0, CAP1.spad_lines), the SIMT data memory "
             "[0x100000, +CAP3.dmem_kib) or the SIMT instruction memory [0x200000, +CAP4.imem_kib) "
             "(LOAD only), or a transfer crossing regions";
    case ErrorCode::kAccRange:
      return "accumulator rows beyond the bank (acc_addr mod (acc_rows/2) + m must be <= "
             "acc_rows/2)";
    case ErrorCode::kAlign:
      return "a host address, stride or length is not a multiple of the bus width (16 bytes)";
    case ErrorCode::kSlverr:
      return "the bus answered SLVERR";
    case ErrorCode::kDecerr:
      return "the bus answered DECERR";
    case ErrorCode::kSeq:
      return "the descriptor's seq is not its index (submit through Queue)";
    case ErrorCode::kRing:
      return "ring size out of range or ring base not 64-byte aligned";
    case ErrorCode::kSimt:
      return "a SIMT kernel stopped on an error";
    case ErrorCode::kParam:
      return "a post-processing parameter is out of range: TFLite shift outside [-31, 30] in a "
             "column c < n of a STORE_ACC in a TFLite mode (ERR_ADDR = the first such column)";
    case ErrorCode::kEccSpad:
      return "a scratchpad line read with more than one flipped bit (uncorrectable ECC error; "
             "ERR_ADDR = the line, ERR_INDEX = the oldest descriptor not completed when it was "
             "found): load the line again";
    case ErrorCode::kEccAcc:
      return "an accumulator row read with more than one flipped bit (uncorrectable ECC error; "
             "ERR_ADDR = the row, ERR_INDEX = the oldest descriptor not completed when it was "
             "found): compute the row again";
    default:
      return "no error";
  }
}


// What ERR_ADDR holds for `code`: the first bad column for PARAM, the scratchpad line or
// accumulator row for ECC_SPAD / ECC_ACC, a host address otherwise.
std::string where(ErrorCode code, uint64_t err_addr, const char* lead) {
  if (code == ErrorCode::kParam) return std::string(lead) + "column " + std::to_string(err_addr);
  if (code == ErrorCode::kEccSpad) {
    return std::string(lead) + "scratchpad line " + std::to_string(err_addr);
  }
  if (code == ErrorCode::kEccAcc) {
    return std::string(lead) + "accumulator row " + std::to_string(err_addr);
  }
  return err_addr ? std::string(lead) + "address " + hex(err_addr) : std::string();
}

}  // namespace

std::string DeviceError::to_string() const {
  return std::string(error_name(code)) + " at descriptor " + std::to_string(index) +
         where(code, address, ", ") + ": " + meaning(code) +
         (link.empty() ? std::string() : " (link: " + link + ")");
}

std::string Capabilities::to_string() const {
  std::ostringstream s;
  s << "version " << version_major << "." << version_minor << ", array " << rows << "x" << cols
    << ", bus " << bus_bytes << " B, scratchpad " << spad_lines << " lines (" << spad_banks
    << " banks, " << spad_lines * bus_bytes / 1024 << " KiB), accumulator " << acc_rows << " rows, "
    << inflight << " descriptors in flight, bursts of " << max_burst << " beats, " << windows
    << " DMA windows";
  if (has_simt()) {
    s << ", SIMT core " << simt_warps << " warps x " << simt_threads << " threads, "
      << simt_dmem_bytes / 1024 << " KiB data (" << simt_dmem_banks << " banks), "
      << simt_imem_bytes / 1024 << " KiB instructions";
  } else {
    s << ", no SIMT core";
  }
  s << (tensor_fp ? ", FP8 tensor modes" : ", integer tensor modes only");
  if (mem_ecc) s << ", memory ECC (SECDED)";
  return s.str();
}

// ================================================================================== URI
namespace detail {

void decode_simt_caps(uint32_t cap3, uint32_t cap4, Capabilities* c) {
  namespace r3 = weft::regs::cap3;
  namespace r4 = weft::regs::cap4;
  c->tensor_fp = (cap4 & r4::kFpMask) != 0;
  c->mem_ecc = (cap4 & r4::kEccMask) != 0;
  c->simt_warps = (cap3 & r3::kWarpsMask) >> r3::kWarpsShift;
  if (c->simt_warps == 0) {
    c->simt_threads = c->simt_dmem_bytes = c->simt_imem_bytes = c->simt_dmem_banks = 0;
    return;
  }
  c->simt_threads = (cap3 & r3::kThreadsMask) >> r3::kThreadsShift;
  c->simt_dmem_bytes = ((cap3 & r3::kDmemKibMask) >> r3::kDmemKibShift) * 1024u;
  c->simt_imem_bytes = ((cap4 & r4::kImemKibMask) >> r4::kImemKibShift) * 1024u;
  c->simt_dmem_banks = (cap4 & r4::kDmemBanksMask) >> r4::kDmemBanksShift;
}

void parse_uri(std::string_view uri, std::string* scheme, Options* opts) {
  const auto sep = uri.find("://");
  if (sep == std::string_view::npos) {
    throw Error(Errc::kBadUri, "'" + std::string(uri) +
                                   "' is not a device URI; use ref://[?options], "
                                   "sim://[?options] (e.g. sim://?array=16x16&bp=0.3), "
                                   "pcie-sim://[?options] or uart:///dev/ttyUSB0[?baud=N]");
  }
  *scheme = std::string(uri.substr(0, sep));
  std::string_view rest = uri.substr(sep + 3);
  const auto q = rest.find('?');
  const std::string_view path = rest.substr(0, q);
  if (!path.empty() && path.find('=') == std::string_view::npos) {
    (*opts)["path"] = std::string(path);
    rest = q == std::string_view::npos ? std::string_view() : rest.substr(q + 1);
  }
  if (!rest.empty() && rest.front() == '?') rest.remove_prefix(1);
  while (!rest.empty()) {
    const auto end = rest.find_first_of("&,");
    const std::string_view item = rest.substr(0, end);
    if (!item.empty()) {
      const auto eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        throw Error(Errc::kBadUri, "option '" + std::string(item) + "' in '" + std::string(uri) +
                                       "' is not key=value");
      }
      (*opts)[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
}

// ================================================================================== arena
uint64_t Arena::alloc(uint64_t bytes, uint64_t align) {
  if (bytes == 0) bytes = 1;
  bytes = (bytes + 63) & ~uint64_t{63};
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t a = (it->first + align - 1) & ~(align - 1);
    if (a + bytes > it->first + it->second) continue;
    const uint64_t blk = it->first, len = it->second;
    free_.erase(it);
    if (a > blk) free_[blk] = a - blk;
    if (a + bytes < blk + len) free_[a + bytes] = blk + len - (a + bytes);
    taken_[a] = bytes;
    used_ += bytes;
    return a;
  }
  throw Error(Errc::kOutOfMemory, "the device arena (" + std::to_string(size_ >> 20) + " MiB, " +
                                      std::to_string(used_ >> 10) +
                                      " KiB in use) has no free block of " + std::to_string(bytes) +
                                      " bytes; open the device with a larger mem=<bytes>");
}

void Arena::free(uint64_t addr) {
  auto t = taken_.find(addr);
  if (t == taken_.end()) return;
  uint64_t a = addr, len = t->second;
  used_ -= len;
  taken_.erase(t);
  auto next = free_.lower_bound(a);
  if (next != free_.end() && next->first == a + len) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == a) {
      a = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_[a] = len;
}

// ================================================================================== device
namespace {

// An option the device itself takes (mem, membase, ring, timeout): read with the back ends'
// OptionReader, then removed so that the back end does not see it.
uint64_t take_u64(Options& o, const std::string& k, uint64_t def, uint64_t lo, uint64_t hi) {
  uint64_t x = def;
  try {
    x = OptionReader(o).u64(k, def, lo, hi);
  } catch (const std::invalid_argument& e) {
    throw Error(Errc::kBadUri, e.what());
  }
  o.erase(k);
  return x;
}

// A register access, with the back end's failures as driver errors: a bad argument stays one,
// anything else is the simulation failing.
template <class Access>
auto translate_backend_errors(Access&& access) {
  try {
    return access();
  } catch (const std::invalid_argument& e) {
    throw Error(Errc::kBadArgument, e.what());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(Errc::kSimulation, std::string("the simulated device failed: ") + e.what());
  }
}

}  // namespace

DeviceImpl::DeviceImpl(std::unique_ptr<Backend> be, const std::string& uri, const Options& dev_opts)
    : be_(std::move(be)),
      uri_(uri),
      arena_base_(std::stoull(dev_opts.at("membase"))),
      arena_size_(std::stoull(dev_opts.at("mem"))),
      arena_(arena_base_, arena_size_),
      queue_(this) {
  ring_entries_ = static_cast<uint32_t>(std::stoul(dev_opts.at("ring")));
  default_timeout_cycles_ = std::stoull(dev_opts.at("timeout"));
  const uint32_t id = rd(csr::kId);
  if (id != csr::kIdMagic) {
    throw Error(Errc::kNoDevice, "ID register reads " + hex(id) + ", not 'WEFT' (0x54464557)");
  }
  const uint32_t ver = rd(csr::kVersion);
  caps_.version_major = ver >> 16;
  caps_.version_minor = ver & 0xffff;
  if (caps_.version_major != 1) {
    throw Error(Errc::kNoDevice, "device version " + std::to_string(caps_.version_major) +
                                     " is not supported by this driver (1)");
  }
  const uint32_t c0 = rd(csr::kCap0), c1 = rd(csr::kCap1), c2 = rd(csr::kCap2);
  caps_.rows = c0 & 0xff;
  caps_.cols = (c0 >> 8) & 0xff;
  caps_.bus_bytes = (c0 >> 16) & 0xff;
  caps_.windows = c0 >> 24;
  caps_.spad_lines = c1 & 0xffffff;
  caps_.spad_banks = c1 >> 24;
  caps_.acc_rows = c2 & 0xffff;
  caps_.inflight = (c2 >> 16) & 0xff;
  caps_.max_burst = c2 >> 24;
  uint32_t c3 = 0, c4 = 0;  // a device from before CAP3 (SLVERR) has no SIMT core
  try {
    c3 = rd(csr::kCap3);
    if (c3 != 0) c4 = rd(csr::kCap4);
  } catch (const Error& e) {
    if (e.code() != Errc::kBadArgument) throw;
  }
  decode_simt_caps(c3, c4, &caps_);
  if (caps_.rows == 0 || caps_.cols == 0 || caps_.bus_bytes < 16 || caps_.acc_rows < 4 ||
      caps_.spad_lines == 0 || caps_.spad_banks == 0 || caps_.inflight == 0 || caps_.windows == 0 ||
      (caps_.has_simt() &&
       (caps_.simt_threads == 0 || caps_.simt_imem_bytes == 0 || caps_.simt_dmem_bytes == 0))) {
    throw Error(Errc::kNoDevice, "implausible capabilities: " + caps_.to_string());
  }
  if (ring_entries_ > (1u << 16)) ring_entries_ = 1u << 16;

  // Whatever an earlier process left behind -- descriptors in flight, a queue stopped on an
  // error, a doorbell count ahead of a ring it no longer owns (a crash, a kill, or a process
  // that simply exited) -- the queue starts from a known state: no fetch (enable 0), then a
  // queue reset, which drops what had not started and waits for what had. It runs under the
  // old configuration, whose completion record may land in memory we do not own or fail; a
  // second reset under ours below clears whatever that left.
  const Budget open_budget = budget({});
  wr(csr::kCtrl, 0);
  queue_reset("Device::open", open_budget);

  // DMA window 0 = the arena (read and write); the others closed.
  for (uint32_t i = 0; i < std::min<uint32_t>(caps_.windows, 4); ++i) {
    const uint64_t base = i == 0 ? arena_base_ : 0, limit = i == 0 ? arena_base_ + arena_size_ : 0;
    wr(csr::win(int(i), csr::kWinCtrl), 0);
    wr(csr::win(int(i), csr::kWinBaseLo), static_cast<uint32_t>(base));
    wr(csr::win(int(i), csr::kWinBaseHi), static_cast<uint32_t>(base >> 32));
    wr(csr::win(int(i), csr::kWinLimitLo), static_cast<uint32_t>(limit));
    wr(csr::win(int(i), csr::kWinLimitHi), static_cast<uint32_t>(limit >> 32));
    wr(csr::win(int(i), csr::kWinCtrl), i == 0 ? csr::kWinRead | csr::kWinWrite : 0);
  }
  // The ring and the completion record live at the start of the arena.
  ring_addr_ = arena_.alloc(uint64_t{ring_entries_} * 64, 4096);
  cpl_addr_ = arena_.alloc(64, 64);
  const std::vector<uint8_t> zeros(size_t{ring_entries_} * 64, 0);
  be_->mem_write(ring_addr_, zeros.data(), zeros.size());
  be_->mem_write(cpl_addr_, zeros.data(), 16);
  wr(csr::kCtrl, 0);
  wr(csr::kRingBaseLo, static_cast<uint32_t>(ring_addr_));
  wr(csr::kRingBaseHi, static_cast<uint32_t>(ring_addr_ >> 32));
  wr(csr::kRingSize, static_cast<uint32_t>(std::countr_zero(ring_entries_)));
  wr(csr::kCplAddrLo, static_cast<uint32_t>(cpl_addr_));
  wr(csr::kCplAddrHi, static_cast<uint32_t>(cpl_addr_ >> 32));
  queue_reset("Device::open", open_budget);
  wr(csr::kRingTail, 0);
  wr(csr::kIrqStatus, csr::kIrqDone | csr::kIrqError);
  wr(csr::kIrqEnable, csr::kIrqDone | csr::kIrqError);
  wr(csr::kCtrl, csr::kCtrlEnable | csr::kCtrlPerfClear);
}

DeviceImpl::~DeviceImpl() = default;

uint32_t DeviceImpl::rd(uint32_t off) {
  return translate_backend_errors([&] { return be_->csr_read(off); });
}

void DeviceImpl::wr(uint32_t off, uint32_t v) {
  translate_backend_errors([&] { be_->csr_write(off, v); });
}

std::string DeviceImpl::description() const {
  const std::string size = arena_size_ % (1u << 20) == 0
                               ? std::to_string(arena_size_ >> 20) + " MiB"
                               : std::to_string(arena_size_ >> 10) + " KiB";
  return uri_ + " — " + be_->description() + "; arena " + hex(arena_base_) + " + " + size +
         ", ring " + std::to_string(ring_entries_) +
         " entries";
}

Timeout DeviceImpl::effective(Timeout t) const {
  if (t.cycles == 0) t.cycles = default_timeout_cycles_;
  if (t.seconds <= 0) t.seconds = default_timeout_seconds_;
  return t;
}

CompletionRecord DeviceImpl::record() {
  CompletionRecord r;
  be_->mem_read(cpl_addr_, &r, sizeof r);
  return r;
}

uint64_t DeviceImpl::widen(uint32_t count) const {
  // The device counts modulo 2^32; the driver's next_ is at most a ring ahead.
  return next_ - static_cast<uint32_t>(static_cast<uint32_t>(next_) - count);
}

uint64_t DeviceImpl::completed() { return widen(record().completed); }

DeviceImpl::Budget::Budget(const Backend& be, Timeout limit)
    : be_(be), limit_(limit), c0_(be.cycle()), w0_(std::chrono::steady_clock::now()) {}

uint64_t DeviceImpl::Budget::cycles() const { return be_.cycle() - c0_; }

double DeviceImpl::Budget::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - w0_).count();
}

double DeviceImpl::Budget::seconds_left() const {
  return std::max(0.0, limit_.seconds - seconds());
}

uint64_t DeviceImpl::Budget::cycles_left() const {
  const uint64_t c = cycles();
  return c >= limit_.cycles ? 0 : limit_.cycles - c;
}

DeviceImpl::Budget::Spent DeviceImpl::Budget::spent() const {
  if (cycles() >= limit_.cycles) return Spent::kCycles;
  if (seconds() >= limit_.seconds) return Spent::kSeconds;
  return Spent::kNo;
}

bool DeviceImpl::run_until(const std::function<bool()>& pred, const Budget& b) {
  while (!pred()) {
    if (b.spent() != Budget::Spent::kNo) return false;
    try {
      be_->run(std::min<uint64_t>(b.cycles_left(), 20000), pred);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(Errc::kSimulation, std::string("the simulated device failed: ") + e.what());
    }
  }
  return true;
}

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : "%.0f s", s);
  return buf;
}

}  // namespace

void DeviceImpl::throw_timeout(const std::string& what, const Budget& b) {
  const uint64_t cycles = b.cycles();
  const double secs = b.seconds();
  const bool by_cycles = b.spent() == Budget::Spent::kCycles;
  const std::string limit =
      by_cycles ? "the cycle limit fired: " + std::to_string(cycles) + " of " +
                      std::to_string(b.limit().cycles) + " device cycles run (" +
                      seconds_text(secs) + " wall)"
                : "the wall-clock limit fired: " + seconds_text(secs) + " of " +
                      seconds_text(b.limit().seconds) + " passed (" + std::to_string(cycles) +
                      " device cycles run)";
  const uint32_t st = rd(csr::kStatus);
  throw Error(Errc::kTimeout,
              what + " did not finish: " + limit + ". Device state: RING_HEAD " +
                  std::to_string(rd(csr::kRingHead)) + ", COMPLETED " +
                  std::to_string(rd(csr::kCompleted)) + ", submitted " + std::to_string(next_) +
                  ", STATUS " + hex(st) + ". " +
                  (by_cycles ? "Raise Timeout::cycles (URI option timeout=<cycles>)"
                             : "Raise Timeout::seconds") +
                  " if the work is that long, or check the descriptors' dependencies");
}

void DeviceImpl::throw_device_error(const DeviceError& e, const std::string& note) {
  const uint64_t index = e.index;
  Descriptor d;
  be_->mem_read(ring_addr_ + (index % ring_entries_) * 64, d.w.data(), 64);
  if (e.code == ErrorCode::kSimt) {
    // ERR_ADDR = thread << 32 | pc; the core's own registers say what happened.
    const SimtFault f = simt_fault();
    throw Error(e.code, index, e.address,
                "descriptor " + std::to_string(index) + " (SIMT_LAUNCH) stopped the queue: " +
                    meaning(e.code) + ": " + f.to_string() + note +
                    ". Fix the kernel or its launch, then call Queue::reset()");
  }
  throw Error(e.code, index, e.address,
              "descriptor " + std::to_string(index) + " (" + std::string(opcode_name(d.opcode())) +
                  ") stopped the queue" +
                  where(e.code, e.address, " at ") + ": " +
                  meaning(e.code) + (e.link.empty() ? std::string() : " (link: " + e.link + ")") +
                  note + ". Fix it, then call Queue::reset()");
}

std::optional<DeviceError> DeviceImpl::settle(const Budget& b, bool* settled) {
  *settled = run_until([&] { return (rd(csr::kStatus) & csr::kStatusIdle) != 0; }, b);
  return error();
}

uint64_t DeviceImpl::submit(Descriptor d) { return submit_many(&d, 1); }

uint64_t DeviceImpl::submit_many(const Descriptor* ds, size_t n) {
  if (n == 0) throw Error(Errc::kBadArgument, "submit: no descriptors");
  if (CompletionRecord r = record(); r.error) {
    throw Error(Errc::kQueueStopped, "the queue is stopped on " +
                                         std::string(error_name(ErrorCode(r.error & 0xff))) +
                                         " at descriptor " + std::to_string(widen(r.error_index)) +
                                         "; call Queue::reset() before submitting");
  }
  size_t i = 0;
  while (i < n) {
    uint64_t room = ring_entries_ - (next_ - completed());
    if (room == 0) {
      const uint64_t target = next_ - ring_entries_;  // wait until this one completed
      wait(target, {});
      continue;
    }
    const size_t batch = static_cast<size_t>(std::min<uint64_t>(room, n - i));
    for (size_t j = 0; j < batch; ++j) {
      Descriptor d = ds[i + j];
      d.with_seq(static_cast<uint32_t>(next_));
      be_->mem_write(ring_addr_ + (next_ % ring_entries_) * 64, d.w.data(), 64);
      ++next_;
    }
    i += batch;
    wr(csr::kRingTail, static_cast<uint32_t>(next_));
  }
  return next_ - 1;
}

void DeviceImpl::wait(uint64_t index, Timeout t) {
  if (index >= next_) {
    throw Error(Errc::kBadArgument, "wait(" + std::to_string(index) + "): only " +
                                        std::to_string(next_) + " descriptors were submitted");
  }
  const Budget b = budget(t);
  CompletionRecord last = record();
  auto done = [&] {
    const CompletionRecord r = record();
    const bool changed = std::memcmp(&r, &last, sizeof r) != 0;
    last = r;
    return widen(r.completed) > index || r.error != 0 || changed;
  };
  // The completion record is how the device reports progress, but STATUS is the authority on
  // errors: a record whose write failed, or one that landed where this process does not look,
  // must not turn a device error into a timeout. So STATUS is read whenever the record has not
  // moved for a slice of the budget, and once more before the wait gives up.
  bool quiet = false;  // the last slice passed with no change of the record
  while (true) {
    const CompletionRecord r = record();
    if (widen(r.completed) > index) return;
    const bool out_of_budget = b.spent() != Budget::Spent::kNo;
    if (r.error != 0 || ((quiet || out_of_budget) && (rd(csr::kStatus) & csr::kStatusError))) {
      // The first error report is not final: an earlier descriptor's transfer that was still
      // running may end in a bus error that replaces it (docs/cmd.md). Report what the device
      // settles on; the descriptor waited for may also have completed before the error.
      bool settled = false;
      const std::optional<DeviceError> e = settle(b, &settled);
      if (widen(rd(csr::kCompleted)) > index) return;
      if (e) {
        throw_device_error(*e, settled ? std::string()
                                       : " (the device had not settled when the wait's budget "
                                         "ran out: a later report may still replace this one)");
      }
    }
    if (out_of_budget) throw_timeout("descriptor " + std::to_string(index), b);
    last = r;
    const Budget slice(*be_, {.cycles = std::min<uint64_t>(200'000, b.cycles_left()),
                              .seconds = std::min(0.5, b.seconds_left())});
    quiet = !run_until(done, slice);
  }
}

SimtFault DeviceImpl::simt_fault() {
  SimtFault f;
  if (!caps_.has_simt()) return f;
  f.code = rd(csr::kSimtErrCode) & 0xff;
  f.pc = rd(csr::kSimtErrPc);
  f.thread = rd(csr::kSimtErrThread);
  f.tval = rd(csr::kSimtErrTval);
  return f;
}

std::optional<DeviceError> DeviceImpl::error() {
  if (!(rd(csr::kStatus) & csr::kStatusError)) return std::nullopt;
  DeviceError e;
  e.code = static_cast<ErrorCode>(rd(csr::kErrCode) & 0xff);
  e.index = widen(rd(csr::kErrIndex));
  e.address = rd(csr::kErrAddrLo) | (uint64_t{rd(csr::kErrAddrHi)} << 32);
  e.link = be_->explain_error(static_cast<uint32_t>(e.code));
  return e;
}

void DeviceImpl::queue_reset(const std::string& what, const Budget& b) {
  wr(csr::kCtrl, csr::kCtrlQreset);  // enable = 0: no fetch until we are ready
  if (!run_until([&] { return !(rd(csr::kStatus) & csr::kStatusResetBusy); }, b)) {
    throw_timeout(what + ": the queue reset (waiting for the transfers and kernels that had "
                         "started; a SIMT kernel that never ends keeps it waiting: reset the board)",
                  b);
  }
}

void DeviceImpl::reset(Timeout t) {
  queue_reset("Queue::reset", budget(t));
  wr(csr::kRingTail, 0);
  const uint8_t zeros[16] = {};
  be_->mem_write(cpl_addr_, zeros, 16);
  wr(csr::kIrqStatus, csr::kIrqDone | csr::kIrqError);
  next_ = 0;
  wr(csr::kCtrl, csr::kCtrlEnable);
  be_->on_queue_reset();
}

PerfReport DeviceImpl::perf() {
  PerfReport p;
  p.rows = caps_.rows;
  p.cols = caps_.cols;
  p.bus_bytes = caps_.bus_bytes;
  uint64_t v[csr::kPerfCount];
  for (int i = 0; i < csr::kPerfCount; ++i) {
    const uint32_t lo = rd(csr::kPerfBase + 8 * i);
    const uint32_t hi = rd(csr::kPerfBase + 8 * i + 4);
    v[i] = lo | (uint64_t{hi} << 32);
  }
  PerfCounters& c = p.c;
  c.cycles = v[0];
  c.load_busy = v[1], c.compute_busy = v[2], c.store_busy = v[3];
  c.load_wait_dep = v[4], c.compute_wait_dep = v[5], c.store_wait_dep = v[6];
  c.tu_wait_w = v[7], c.tu_wait_a = v[8], c.tu_wait_drain = v[9];
  c.macs = v[10];
  c.dma_rd_bytes = v[11], c.dma_wr_bytes = v[12];
  c.dma_rd_stall = v[13], c.dma_wr_stall = v[14];
  c.desc_retired = v[15];
  return p;
}

void DeviceImpl::clear_perf() {
  const uint32_t ctrl = rd(csr::kCtrl) & csr::kCtrlEnable;
  wr(csr::kCtrl, ctrl | csr::kCtrlPerfClear);
}

// ================================================================================== buffers
struct BufferState {
  std::shared_ptr<DeviceImpl> dev;
  uint64_t addr;
  uint64_t size;
  ~BufferState() { dev->free(addr); }
};

}  // namespace detail

struct Buffer::State : detail::BufferState {};

uint64_t Buffer::device_address() const { return s_ ? s_->addr : 0; }
size_t Buffer::size() const { return s_ ? s_->size : 0; }

void Buffer::write(size_t offset, const void* src, size_t bytes) {
  if (!s_ || offset + bytes > s_->size || offset + bytes < offset) {
    throw Error(Errc::kBadArgument, "Buffer::write of " + std::to_string(bytes) + " bytes at " +
                                        std::to_string(offset) + " is outside the buffer (" +
                                        std::to_string(size()) + " bytes)");
  }
  s_->dev->be().mem_write(s_->addr + offset, src, bytes);
}

void Buffer::read(size_t offset, void* dst, size_t bytes) const {
  if (!s_ || offset + bytes > s_->size || offset + bytes < offset) {
    throw Error(Errc::kBadArgument, "Buffer::read of " + std::to_string(bytes) + " bytes at " +
                                        std::to_string(offset) + " is outside the buffer (" +
                                        std::to_string(size()) + " bytes)");
  }
  s_->dev->be().mem_read(s_->addr + offset, dst, bytes);
}

void Buffer::fill(uint8_t value) {
  const std::vector<uint8_t> v(size(), value);
  write(0, v.data(), v.size());
}

// ================================================================================== queue
uint64_t Queue::submit(Descriptor d) { return d_->submit(d); }

uint64_t Queue::submit(Descriptor d, std::initializer_list<uint64_t> after) {
  const uint64_t me = d_->next();
  int slot = 0;
  for (uint64_t a : after) {
    if (a >= me) {
      throw Error(Errc::kBadArgument, "dependency on descriptor " + std::to_string(a) +
                                          ", which is not before this one (" + std::to_string(me) +
                                          ")");
    }
    const uint64_t back = me - a;
    if (back >= d_->caps().inflight) continue;  // always met
    if (slot == 2) {
      throw Error(Errc::kBadArgument,
                  "more than two dependencies within the in-flight window; use the WAIT_* flags "
                  "or a FENCE");
    }
    d.with_dep(slot++, static_cast<uint8_t>(back));
  }
  return d_->submit(d);
}

uint64_t Queue::submit(std::span<const Descriptor> ds) {
  return d_->submit_many(ds.data(), ds.size());
}

void Queue::wait(uint64_t index, Timeout t) { d_->wait(index, t); }
void Queue::finish(Timeout t) {
  if (d_->next() > 0) d_->wait(d_->next() - 1, t);
}
uint64_t Queue::submitted() const { return d_->next(); }
uint64_t Queue::completed() { return d_->completed(); }
uint32_t Queue::ring_entries() const { return d_->ring_entries(); }
std::optional<DeviceError> Queue::error() { return d_->error(); }
void Queue::reset(Timeout t) { d_->reset(t); }

// ================================================================================== device
Device::Device(std::shared_ptr<detail::DeviceImpl> impl) : impl_(std::move(impl)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;
Device::~Device() = default;

Device Device::open(std::string_view uri) {
  std::string scheme;
  detail::Options opts;
  detail::parse_uri(uri, &scheme, &opts);
  if (scheme != "uart" && opts.count("path")) {
    throw Error(Errc::kBadUri, scheme + "://: takes no path ('" + opts["path"] +
                                   "'); options follow '?', e.g. " + scheme + "://?seed=1");
  }
  // Device-level options; the rest go to the back end.
  const bool has_mem = opts.count("mem") != 0, has_base = opts.count("membase") != 0;
  uint64_t mem = detail::take_u64(opts, "mem", 256ull << 20, 64ull << 10, 1ull << 40);
  uint64_t membase = detail::take_u64(opts, "membase", 0x100000000ull, 0, (1ull << 62));
  const bool has_ring = opts.count("ring") != 0;
  uint64_t ring = detail::take_u64(opts, "ring", 256, 2, 65536);
  if (std::popcount(ring) != 1) {
    throw Error(Errc::kBadUri, "option ring=" + std::to_string(ring) + ": a power of two");
  }
  const uint64_t timeout = detail::take_u64(opts, "timeout", 200'000'000, 1, UINT64_MAX);
  std::unique_ptr<detail::Backend> be;
  try {
    if (scheme == "ref") {
      be.reset(detail::make_ref_backend(opts));
    } else if (scheme == "sim") {
      be = detail::make_sim_backend(opts);
    } else if (scheme == "pcie-sim") {
      be = detail::make_pcie_backend(opts);
    } else if (scheme == "uart") {
      be = detail::make_uart_backend(opts);
    } else {
      throw Error(Errc::kBadUri, "unknown scheme '" + scheme +
                                     "://'; use ref://, sim://, pcie-sim:// or uart://<tty>");
    }
  } catch (const std::invalid_argument& e) {
    throw Error(Errc::kBadUri, std::string(uri) + ": " + e.what());
  }
  // A back end with its own host memory (a board) places the arena there by default, and a
  // smaller memory gets a smaller ring.
  uint64_t lo = 0, bytes = 0;
  if (be->memory_range(&lo, &bytes)) {
    if (!has_base) membase = lo;
    if (!has_mem) mem = lo + bytes - membase;
    if (membase < lo || membase + mem > lo + bytes || mem > bytes) {
      throw Error(Errc::kBadUri, "the arena " + hex(membase) + " + " + std::to_string(mem) +
                                     " B is outside the device's host memory " + hex(lo) + " + " +
                                     std::to_string(bytes) + " B (options mem, membase)");
    }
    if (!has_ring) ring = std::min<uint64_t>(ring, std::bit_floor(std::max<uint64_t>(mem / 1024, 16)));
  }
  if (membase % 4096 != 0) {
    throw Error(Errc::kBadUri, "option membase: must be a multiple of 4096");
  }
  // The arena is DMA window 0: a limit on a 4 KiB boundary is a multiple of any bus width.
  if (mem % 4096 != 0) {
    throw Error(Errc::kBadUri, "option mem=" + std::to_string(mem) +
                                   ": the arena size must be a multiple of 4096");
  }
  if (ring * 64 + 4096 > mem) {
    throw Error(Errc::kBadUri, "option ring=" + std::to_string(ring) + ": the ring needs " +
                                   std::to_string(ring * 64) + " B of the " + std::to_string(mem) +
                                   " B arena; use a smaller ring");
  }
  detail::Options dev;
  dev["mem"] = std::to_string(mem);
  dev["membase"] = std::to_string(membase);
  dev["ring"] = std::to_string(ring);
  dev["timeout"] = std::to_string(timeout);
  auto impl = std::make_shared<detail::DeviceImpl>(std::move(be), std::string(uri), dev);
  return Device(std::move(impl));
}

const Capabilities& Device::caps() const { return impl_->caps(); }
std::string Device::description() const { return impl_->description(); }
uint64_t Device::arena_base() const { return impl_->arena_base(); }
uint64_t Device::arena_size() const { return impl_->arena_size(); }
Queue& Device::queue() { return impl_->queue(); }
PerfReport Device::perf() { return impl_->perf(); }
void Device::clear_perf() { impl_->clear_perf(); }
uint64_t Device::cycle() const { return impl_->be().cycle(); }
void Device::run(uint64_t cycles) {
  try {
    impl_->be().run(cycles, {});
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(Errc::kSimulation, std::string("the simulated device failed: ") + e.what());
  }
}
uint32_t Device::read_reg(uint32_t off) { return impl_->rd(off); }
void Device::write_reg(uint32_t off, uint32_t v) { impl_->wr(off, v); }
void Device::host_write(uint64_t a, const void* s, size_t n) { impl_->be().mem_write(a, s, n); }
void Device::host_read(uint64_t a, void* d, size_t n) { impl_->be().mem_read(a, d, n); }

void Device::inject_bus_error(uint64_t lo, uint64_t hi, bool write, unsigned resp) {
  if (resp != 2 && resp != 3) {
    throw Error(Errc::kBadArgument, "inject_bus_error: resp must be 2 (SLVERR) or 3 (DECERR)");
  }
  if (!impl_->be().inject_bus_error(lo, hi, write, resp)) {
    throw Error(Errc::kUnsupported, "this back end cannot inject bus errors");
  }
}

void Device::clear_bus_errors() { impl_->be().clear_bus_errors(); }

void Device::inject_link_fault(LinkFault f, uint64_t lo, uint64_t hi) {
  if (!impl_->be().inject_link_fault(static_cast<int>(f), lo, hi)) {
    throw Error(Errc::kUnsupported, "this back end has no link to inject faults into (pcie-sim:// has)");
  }
}

void Device::clear_link_faults() { impl_->be().clear_link_faults(); }

EccCounts Device::ecc_counts() {
  EccCounts e;
  if (!impl_->caps().mem_ecc) return e;
  namespace r = weft::regs;
  const auto mem = [](uint32_t v) {
    return (v & r::ecc_last_corr::kAccMask) ? Memory::kAccumulator : Memory::kScratchpad;
  };
  e.corrected = impl_->rd(r::kEccCorrected);
  e.detected = impl_->rd(r::kEccDetected);
  const uint32_t lc = impl_->rd(r::kEccLastCorr), le = impl_->rd(r::kEccLastErr);
  e.last_corrected_mem = mem(lc);
  e.last_corrected_addr = lc & r::ecc_last_corr::kAddrMask;
  e.last_detected_mem = mem(le);
  e.last_detected_addr = le & r::ecc_last_err::kAddrMask;
  return e;
}

void Device::clear_ecc_counts() {
  if (!impl_->caps().mem_ecc) return;
  const uint32_t ctrl = impl_->rd(detail::csr::kCtrl) & detail::csr::kCtrlEnable;
  impl_->wr(detail::csr::kCtrl, ctrl | weft::regs::ctrl::kEccClearMask);
}

void Device::inject_mem_error(Memory m, uint64_t addr, unsigned bit) {
  const char* name = m == Memory::kAccumulator ? "accumulator row " : "scratchpad line ";
  const uint64_t words = m == Memory::kAccumulator ? impl_->caps().acc_rows : impl_->caps().spad_lines;
  if (addr >= words) {
    throw Error(Errc::kBadArgument, std::string("inject_mem_error: ") + name +
                                        std::to_string(addr) + " beyond the memory (" +
                                        std::to_string(words) + ")");
  }
  bool ok = false;
  try {
    ok = impl_->be().flip_mem_bit(static_cast<int>(m), addr, bit);
  } catch (const std::out_of_range& e) {
    throw Error(Errc::kBadArgument, std::string("inject_mem_error: ") + e.what());
  }
  if (!ok) {
    throw Error(Errc::kUnsupported,
                "this back end cannot inject memory errors (sim:// can, through the SRAMs' "
                "simulation back door)");
  }
}

MemWordBits Device::mem_word_bits(Memory m) {
  unsigned data = 0, check = 0;
  if (!impl_->be().mem_word_bits(static_cast<int>(m), &data, &check)) {
    throw Error(Errc::kUnsupported, "this back end cannot tell the memories' word layout (sim:// can)");
  }
  return {data, check};
}

std::vector<std::pair<std::string, uint64_t>> Device::link_stats() { return impl_->be().link_stats(); }

std::optional<uint64_t> Device::link_stat(std::string_view name) {
  for (const auto& [k, v] : impl_->be().link_stats()) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::vector<std::pair<uint64_t, uint64_t>> Device::take_device_writes() {
  return impl_->be().take_device_writes();
}

std::vector<BusAccess> Device::take_bus_accesses() {
  std::vector<detail::Backend::BusAccess> raw;
  if (!impl_->be().take_bus_accesses(&raw)) {
    throw Error(Errc::kUnsupported,
                "this back end does not log bus accesses (open sim:// with buslog=1)");
  }
  std::vector<BusAccess> v;
  v.reserve(raw.size());
  for (const auto& a : raw) v.push_back({a.addr, a.bytes, a.write});
  return v;
}

Buffer Device::alloc(size_t bytes, size_t align) {
  if (align < 16 || std::popcount(align) != 1) {
    throw Error(Errc::kBadArgument, "Device::alloc: alignment " + std::to_string(align) +
                                        " must be a power of two >= 16");
  }
  Buffer b;
  auto s = std::make_shared<Buffer::State>();
  s->dev = impl_;
  s->addr = impl_->arena_alloc(bytes, align);
  s->size = bytes;
  b.s_ = std::move(s);
  return b;
}

// ================================================================================== perf
double PerfReport::fraction(uint64_t counter) const {
  return c.cycles ? double(counter) / double(c.cycles) : 0.0;
}
double PerfReport::utilisation() const {
  return c.cycles ? double(c.macs) / (double(rows) * cols * double(c.cycles)) : 0.0;
}
double PerfReport::rd_bytes_per_cycle() const { return fraction(c.dma_rd_bytes); }
double PerfReport::wr_bytes_per_cycle() const { return fraction(c.dma_wr_bytes); }
double PerfReport::rd_bus_fraction() const {
  return bus_bytes ? rd_bytes_per_cycle() / bus_bytes : 0.0;
}
double PerfReport::wr_bus_fraction() const {
  return bus_bytes ? wr_bytes_per_cycle() / bus_bytes : 0.0;
}

std::string PerfReport::to_string() const {
  char buf[1024];
  const auto pct = [&](uint64_t v) { return 100.0 * fraction(v); };
  std::snprintf(
      buf, sizeof buf,
      "cycles %llu, MACs %llu, array utilisation %.1f %% of %ux%u\n"
      "DMA read  %llu B, %.2f B/cycle (%.1f %% of bus peak), stalled %.1f %%\n"
      "DMA write %llu B, %.2f B/cycle (%.1f %% of bus peak), stalled %.1f %%\n"
      "engine    busy    waiting on dependencies\n"
      "load     %5.1f %%  %5.1f %%\n"
      "compute  %5.1f %%  %5.1f %%   (tensor unit waiting: weights %.1f %%, A rows %.1f %%, "
      "drain %.1f %%)\n"
      "store    %5.1f %%  %5.1f %%\n"
      "descriptors retired %llu",
      (unsigned long long)c.cycles, (unsigned long long)c.macs, 100.0 * utilisation(), rows, cols,
      (unsigned long long)c.dma_rd_bytes, rd_bytes_per_cycle(), 100.0 * rd_bus_fraction(),
      pct(c.dma_rd_stall), (unsigned long long)c.dma_wr_bytes, wr_bytes_per_cycle(),
      100.0 * wr_bus_fraction(), pct(c.dma_wr_stall), pct(c.load_busy), pct(c.load_wait_dep),
      pct(c.compute_busy), pct(c.compute_wait_dep), pct(c.tu_wait_w), pct(c.tu_wait_a),
      pct(c.tu_wait_drain), pct(c.store_busy), pct(c.store_wait_dep),
      (unsigned long long)c.desc_retired);
  return buf;
}

}  // namespace weft
