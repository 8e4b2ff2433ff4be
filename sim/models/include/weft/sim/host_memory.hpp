// HostMemory: sparse, byte-addressable model of the host's 64-bit physical memory, shared by the
// bus models (AxiMem, the PCIe-like root complex) and the tests or the driver's sim back end.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace weft::sim {

/// Sparse byte-addressable memory over the full 64-bit address space.
///
/// Storage is allocated in 4 KiB pages on first write; bytes never written read as
/// `default_byte()` (0 unless changed). Accesses may span pages and wrap nowhere: an access that
/// would pass 2^64 is clipped at the top of the address space.
///
/// Every write (from a test, a driver or a bus model) can be observed: `on_write()` registers a
/// callback called with (address, length) of each write, and `start_log()` records them in
/// `log()`. A test proves "the device wrote nothing outside its windows" by starting the log
/// after its own setup writes and checking every record.
class HostMemory {
 public:
  static constexpr unsigned kPageBits = 12;
  static constexpr uint64_t kPageSize = uint64_t{1} << kPageBits;

  /// One write: `len` bytes from `addr`.
  struct WriteRecord {
    uint64_t addr;
    uint64_t len;
  };
  using Observer = std::function<void(uint64_t addr, uint64_t len)>;

  HostMemory() = default;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  /// Value of bytes never written (pages are filled with it when allocated).
  uint8_t default_byte() const { return default_byte_; }
  void set_default_byte(uint8_t v) { default_byte_ = v; }

  /// Reads `n` bytes from `addr` into `dst`.
  void read(uint64_t addr, void* dst, uint64_t n) const {
    auto* d = static_cast<uint8_t*>(dst);
    n = clip(addr, n);
    while (n > 0) {
      const uint64_t off = addr & (kPageSize - 1);
      const uint64_t chunk = std::min(n, kPageSize - off);
      auto it = pages_.find(addr >> kPageBits);
      if (it == pages_.end()) {
        std::memset(d, default_byte_, chunk);
      } else {
        std::memcpy(d, it->second->data() + off, chunk);
      }
      d += chunk;
      addr += chunk;
      n -= chunk;
    }
  }
  std::vector<uint8_t> read(uint64_t addr, uint64_t n) const {
    std::vector<uint8_t> v(clip(addr, n));
    read(addr, v.data(), v.size());
    return v;
  }
  uint8_t read8(uint64_t addr) const {
    auto it = pages_.find(addr >> kPageBits);
    return it == pages_.end() ? default_byte_ : (*it->second)[addr & (kPageSize - 1)];
  }

  /// Writes `n` bytes from `src` at `addr` (observed and logged).
  void write(uint64_t addr, const void* src, uint64_t n) {
    const auto* s = static_cast<const uint8_t*>(src);
    n = clip(addr, n);
    if (n == 0) return;
    notify(addr, n);
    while (n > 0) {
      const uint64_t off = addr & (kPageSize - 1);
      const uint64_t chunk = std::min(n, kPageSize - off);
      std::memcpy(page(addr)->data() + off, s, chunk);
      s += chunk;
      addr += chunk;
      n -= chunk;
    }
  }
  void write(uint64_t addr, std::span<const uint8_t> bytes) {
    write(addr, bytes.data(), bytes.size());
  }

  /// Sets `n` bytes from `addr` to `value` (observed and logged).
  void fill(uint64_t addr, uint64_t n, uint8_t value) {
    n = clip(addr, n);
    if (n == 0) return;
    notify(addr, n);
    while (n > 0) {
      const uint64_t off = addr & (kPageSize - 1);
      const uint64_t chunk = std::min(n, kPageSize - off);
      std::memset(page(addr)->data() + off, value, chunk);
      addr += chunk;
      n -= chunk;
    }
  }

  /// Little-endian scalar access (T = uint8_t .. uint64_t).
  template <class T>
  T load(uint64_t addr) const {
    uint8_t b[sizeof(T)];
    read(addr, b, sizeof(T));
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(b[i]) << (8 * i));
    return v;
  }
  template <class T>
  void store(uint64_t addr, T v) {
    uint8_t b[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    write(addr, b, sizeof(T));
  }

  /// Registers a callback called on every write; returns an id for `remove_observer`.
  int on_write(Observer fn) {
    observers_.emplace_back(next_id_, std::move(fn));
    return next_id_++;
  }
  void remove_observer(int id) {
    std::erase_if(observers_, [id](const auto& o) { return o.first == id; });
  }

  /// Write log: off until `start_log()`; `log()` lists the writes since then.
  void start_log() {
    logging_ = true;
    log_.clear();
  }
  void stop_log() { logging_ = false; }
  const std::vector<WriteRecord>& log() const { return log_; }

  /// Number of allocated 4 KiB pages.
  size_t pages() const { return pages_.size(); }
  /// Drops every page (all bytes read as default_byte() again); the log is kept.
  void clear() { pages_.clear(); }

 private:
  using Page = std::array<uint8_t, kPageSize>;

  static uint64_t clip(uint64_t addr, uint64_t n) {
    const uint64_t room = ~uint64_t{0} - addr;  // bytes after addr up to 2^64 - 1
    return n == 0 ? 0 : std::min(n - 1, room) + 1;
  }
  Page* page(uint64_t addr) {
    auto& p = pages_[addr >> kPageBits];
    if (!p) {
      p = std::make_unique<Page>();
      p->fill(default_byte_);
    }
    return p.get();
  }
  void notify(uint64_t addr, uint64_t n) {
    if (logging_) log_.push_back({addr, n});
    for (auto& o : observers_) o.second(addr, n);
  }

  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  uint8_t default_byte_ = 0;
  bool logging_ = false;
  std::vector<WriteRecord> log_;
  std::vector<std::pair<int, Observer>> observers_;
  int next_id_ = 0;
};

}  // namespace weft::sim
