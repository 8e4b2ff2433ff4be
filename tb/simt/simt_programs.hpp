// Helpers of the SIMT program tests (test_simt_programs.cpp, docs/simt-tests.md): RISC-V ELF files
// (segments, sections, symbols) read here, independently of the golden model's loader, turned
// into SimtDut kernels; qemu-riscv32 runs with stdin / stdout captured; per-thread output buffers.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "simt_dut.hpp"

namespace weft::tb::simt {

// ---------------------------------------------------------------------------------------------
// ELF32 little-endian RISC-V executables (System V ABI: ELF header, program and section headers,
// symbol table).
// ---------------------------------------------------------------------------------------------
struct ElfFile {
  struct Segment {
    uint32_t type, offset, vaddr, filesz, memsz, flags;
  };
  struct Section {
    std::string name;
    uint32_t type, flags, addr, offset, size;
  };
  struct Symbol {
    std::string name;
    uint32_t value, size;
    uint8_t info;
  };
  std::string path;
  std::vector<uint8_t> bytes;
  uint32_t entry = 0;
  std::vector<Segment> segments;
  std::vector<Section> sections;
  std::vector<Symbol> symbols;

  const Symbol* find_symbol(const std::string& name) const {
    for (const auto& s : symbols)
      if (s.name == name) return &s;
    return nullptr;
  }
  uint32_t symbol(const std::string& name) const {
    const Symbol* s = find_symbol(name);
    if (!s) throw std::runtime_error(path + ": no symbol " + name);
    return s->value;
  }
  const Section* section(const std::string& name) const {
    for (const auto& s : sections)
      if (s.name == name) return &s;
    return nullptr;
  }
  uint32_t u32(size_t off) const {
    if (off + 4 > bytes.size()) throw std::runtime_error(path + ": truncated");
    return uint32_t{bytes[off]} | uint32_t{bytes[off + 1]} << 8 | uint32_t{bytes[off + 2]} << 16 |
           uint32_t{bytes[off + 3]} << 24;
  }
  uint32_t u16(size_t off) const {
    if (off + 2 > bytes.size()) throw std::runtime_error(path + ": truncated");
    return uint32_t{bytes[off]} | uint32_t{bytes[off + 1]} << 8;
  }
  std::string str(size_t off) const {
    std::string s;
    while (off < bytes.size() && bytes[off]) s += static_cast<char>(bytes[off++]);
    return s;
  }
};

inline ElfFile read_elf(const std::string& path) {
  ElfFile e;
  e.path = path;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  e.bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  const auto& b = e.bytes;
  if (b.size() < 52 || b[0] != 0x7F || b[1] != 'E' || b[2] != 'L' || b[3] != 'F' || b[4] != 1 ||
      b[5] != 1 || e.u16(16) != 2 || e.u16(18) != 243) {
    throw std::runtime_error(path + ": not an ELF32 little-endian RISC-V executable");
  }
  e.entry = e.u32(24);
  const uint32_t phoff = e.u32(28), shoff = e.u32(32);
  const uint32_t phentsize = e.u16(42), phnum = e.u16(44);
  const uint32_t shentsize = e.u16(46), shnum = e.u16(48), shstrndx = e.u16(50);
  for (uint32_t i = 0; i < phnum; ++i) {
    const size_t p = phoff + size_t{i} * phentsize;
    e.segments.push_back(
        {e.u32(p), e.u32(p + 4), e.u32(p + 8), e.u32(p + 16), e.u32(p + 20), e.u32(p + 24)});
  }
  std::vector<std::array<uint32_t, 7>> sh;  // name, type, flags, addr, offset, size, link
  for (uint32_t i = 0; i < shnum; ++i) {
    const size_t s = shoff + size_t{i} * shentsize;
    sh.push_back({e.u32(s), e.u32(s + 4), e.u32(s + 8), e.u32(s + 12), e.u32(s + 16), e.u32(s + 20),
                  e.u32(s + 24)});
  }
  for (const auto& s : sh) {
    const std::string name = shstrndx < sh.size() ? e.str(sh[shstrndx][4] + s[0]) : "";
    e.sections.push_back({name, s[1], s[2], s[3], s[4], s[5]});
    if (s[1] == 2 && s[6] < sh.size()) {  // SHT_SYMTAB, strings in section sh_link
      const uint32_t strtab = sh[s[6]][4];
      for (uint32_t off = s[4]; off + 16 <= s[4] + s[5]; off += 16) {
        e.symbols.push_back(
            {e.str(strtab + e.u32(off)), e.u32(off + 4), e.u32(off + 8), e.bytes.at(off + 12)});
      }
    }
  }
  return e;
}

// A kernel whose memories hold the ELF's PT_LOAD segments: every segment in the scratchpad at its
// address (file bytes, then zeros), executable ones also in instruction memory (docs/kernels.md).
inline Kernel kernel_from_elf(const ElfFile& e) {
  Kernel k;
  for (const auto& s : e.segments) {
    if (s.type != 1) continue;  // PT_LOAD
    if (uint64_t{s.vaddr} + s.memsz > kDmemBytes || s.offset + uint64_t{s.filesz} > e.bytes.size())
      throw std::runtime_error(e.path + ": a segment does not fit the scratchpad");
    for (uint32_t i = 0; i < s.memsz; ++i)
      k.dmem[s.vaddr + i] = i < s.filesz ? e.bytes[s.offset + i] : 0;
    if (s.flags & 1) {  // PF_X
      if (s.vaddr % 4 != 0 || uint64_t{s.vaddr} + s.memsz > uint64_t{kImemWords} * 4)
        throw std::runtime_error(e.path + ": code does not fit the instruction memory");
      const uint32_t end = (s.vaddr + s.memsz + 3) / 4;
      if (k.code.size() < end) k.code.resize(end, 0);
      for (uint32_t a = s.vaddr; a < s.vaddr + s.memsz; a += 4) {
        uint32_t w = 0;
        for (uint32_t i = 0; i < 4; ++i) w |= uint32_t{k.dmem[a + i]} << (8 * i);
        k.code[a / 4] = w;
      }
    }
  }
  k.launch.entry_pc = e.entry;
  return k;
}

inline uint32_t get32(const std::vector<uint8_t>& mem, uint32_t addr) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < 4; ++i) v |= uint32_t{mem.at(addr + i)} << (8 * i);
  return v;
}

// Thread `tid`'s output buffer of a program built with programs/rt/prog_rt.h: {length, bytes}.
struct ThreadOutput {
  std::vector<uint8_t> bytes;
  uint32_t length = 0;  // as counted by the program (> capacity: overflow)
  bool overflow = false;
};
inline ThreadOutput thread_output(const std::vector<uint8_t>& mem, uint32_t base, uint32_t stride,
                                  uint32_t tid) {
  ThreadOutput o;
  const uint32_t buf = base + tid * stride;
  o.length = get32(mem, buf);
  o.overflow = o.length > stride - 4;
  const uint32_t n = o.overflow ? stride - 4 : o.length;
  o.bytes.assign(mem.begin() + buf + 4, mem.begin() + buf + 4 + n);
  return o;
}

// ---------------------------------------------------------------------------------------------
// qemu-riscv32 (Linux user mode): exit status and stdout of one run.
// ---------------------------------------------------------------------------------------------
struct QemuRun {
  bool exited = false;  // normal exit (not a signal)
  int status = -1;      // exit status (8 bits)
  std::vector<uint8_t> out;
};

inline QemuRun run_qemu(const std::string& qemu, const std::string& elf,
                        const std::vector<uint8_t>& in = {}) {
  static std::atomic<unsigned> counter{0};
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem =
      (dir / ("weft_simt_prog_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
          .string();
  const std::string in_path = stem + ".in", out_path = stem + ".out";
  {
    std::ofstream f(in_path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size()));
  }
  const std::string cmd =
      "'" + qemu + "' '" + elf + "' < '" + in_path + "' > '" + out_path + "' 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  QemuRun r;
  r.exited = rc != -1 && WIFEXITED(rc);
  r.status = r.exited ? WEXITSTATUS(rc) : -1;
  std::ifstream f(out_path, std::ios::binary);
  r.out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  std::filesystem::remove(in_path);
  std::filesystem::remove(out_path);
  return r;
}

inline std::string printable(const std::vector<uint8_t>& b, size_t max = 400) {
  std::string s;
  for (size_t i = 0; i < b.size() && i < max; ++i) {
    const char c = static_cast<char>(b[i]);
    if (c == '\n' || (c >= 32 && c < 127)) {
      s += c;
    } else {
      static const char* hex = "0123456789abcdef";
      s += "\\x";
      s += hex[b[i] >> 4];
      s += hex[b[i] & 15];
    }
  }
  if (b.size() > max) s += "...";
  return s;
}

}  // namespace weft::tb::simt
