// A sparse byte-addressed memory over the 64-bit address space (4 KiB pages, zero-filled on first
// touch): the host memory of the ref:// back end.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace weft::detail {

class PagedMemory {
 public:
  static constexpr uint64_t kPage = 4096;

  void write(uint64_t addr, const void* src, size_t bytes) {
    const auto* s = static_cast<const uint8_t*>(src);
    while (bytes > 0) {
      const uint64_t off = addr % kPage;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes, kPage - off));
      std::memcpy(page(addr / kPage).data() + off, s, n);
      addr += n, s += n, bytes -= n;
    }
  }
  void read(uint64_t addr, void* dst, size_t bytes) {
    auto* d = static_cast<uint8_t*>(dst);
    while (bytes > 0) {
      const uint64_t off = addr % kPage;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes, kPage - off));
      auto it = pages_.find(addr / kPage);
      if (it == pages_.end()) {
        std::memset(d, 0, n);
      } else {
        std::memcpy(d, it->second->data() + off, n);
      }
      addr += n, d += n, bytes -= n;
    }
  }

 private:
  using Page = std::array<uint8_t, kPage>;
  Page& page(uint64_t pn) {
    auto& p = pages_[pn];
    if (!p) p = std::make_unique<Page>(Page{});
    return *p;
  }
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

}  // namespace weft::detail
