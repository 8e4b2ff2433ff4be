// Minimal ELF32 loader for SIMT kernels: executable files for RISC-V, program headers only
// (System V gABI: ELF header, program header table, PT_LOAD segments).
#include <cstring>
#include <stdexcept>
#include <string>

#include "weft/golden/simt.hpp"

namespace weft::golden::simt {

namespace {

uint32_t le16(std::span<const uint8_t> b, size_t off) {
  if (off + 2 > b.size()) throw std::runtime_error("ELF: truncated");
  return uint32_t{b[off]} | uint32_t{b[off + 1]} << 8;
}
uint32_t le32(std::span<const uint8_t> b, size_t off) {
  if (off + 4 > b.size()) throw std::runtime_error("ELF: truncated");
  return le16(b, off) | le16(b, off + 2) << 16;
}

constexpr uint32_t kEmRiscv = 243, kEtExec = 2, kPtLoad = 1, kPfX = 1;

}  // namespace

ElfImage parse_elf(std::span<const uint8_t> elf) {
  auto fail = [](const std::string& what) { throw std::runtime_error("ELF: " + what); };
  if (elf.size() < 52 || std::memcmp(elf.data(),
                                     "\x7f"
                                     "ELF",
                                     4) != 0)
    fail("not an ELF file");
  if (elf[4] != 1) fail("not ELFCLASS32");
  if (elf[5] != 1) fail("not little-endian");
  if (le16(elf, 16) != kEtExec) fail("not an executable (ET_EXEC)");
  if (le16(elf, 18) != kEmRiscv) fail("not EM_RISCV");
  ElfImage img;
  img.entry = le32(elf, 24);
  const uint32_t phoff = le32(elf, 28);
  const uint32_t phentsize = le16(elf, 42), phnum = le16(elf, 44);
  if (phnum == 0) fail("no program headers");
  if (phentsize < 32) fail("bad e_phentsize");

  for (uint32_t i = 0; i < phnum; ++i) {
    const size_t ph = size_t{phoff} + size_t{i} * phentsize;
    if (ph + 32 > elf.size()) fail("program header outside the file");
    if (le32(elf, ph) != kPtLoad) continue;
    const uint32_t offset = le32(elf, ph + 4), vaddr = le32(elf, ph + 8);
    const uint32_t filesz = le32(elf, ph + 16), memsz = le32(elf, ph + 20);
    const uint32_t flags = le32(elf, ph + 24);
    if (filesz > memsz) fail("segment with p_filesz > p_memsz");
    if (uint64_t{offset} + filesz > elf.size()) fail("segment outside the file");
    if (uint64_t{vaddr} + memsz > (uint64_t{1} << 32)) fail("segment beyond 4 GiB");
    if (memsz == 0) continue;
    ElfSegment seg;
    seg.addr = vaddr;
    seg.exec = (flags & kPfX) != 0;
    seg.bytes.assign(elf.begin() + offset, elf.begin() + offset + filesz);
    seg.bytes.resize(memsz, 0);
    img.segments.push_back(std::move(seg));
  }
  return img;
}

uint32_t load_elf(Machine& m, std::span<const uint8_t> elf) {
  const ElfImage img = parse_elf(elf);
  for (const ElfSegment& seg : img.segments) {
    const uint64_t end = uint64_t{seg.addr} + seg.bytes.size();
    if (end > m.dmem().size()) {
      throw std::runtime_error("ELF: segment at 0x" + std::to_string(seg.addr) + " (+" +
                               std::to_string(seg.bytes.size()) + ") does not fit the scratchpad");
    }
    m.write_dmem(seg.addr, seg.bytes);
    if (seg.exec) {
      if (end > m.config().imem_bytes) {
        throw std::runtime_error("ELF: code segment does not fit the instruction memory");
      }
      m.load_imem_bytes(seg.addr, seg.bytes);
    }
  }
  return img.entry;
}

}  // namespace weft::golden::simt
