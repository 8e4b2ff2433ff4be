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

uint32_t load_elf(Machine& m, std::span<const uint8_t> elf) {
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
  const uint32_t entry = le32(elf, 24);
  const uint32_t phoff = le32(elf, 28);
  const uint32_t phentsize = le16(elf, 42), phnum = le16(elf, 44);
  if (phnum == 0) fail("no program headers");
  if (phentsize < 32) fail("bad e_phentsize");

  for (uint32_t i = 0; i < phnum; ++i) {
    const size_t ph = size_t{phoff} + size_t{i} * phentsize;
    if (le32(elf, ph) != kPtLoad) continue;
    const uint32_t offset = le32(elf, ph + 4), vaddr = le32(elf, ph + 8);
    const uint32_t filesz = le32(elf, ph + 16), memsz = le32(elf, ph + 20);
    const uint32_t flags = le32(elf, ph + 24);
    if (filesz > memsz) fail("segment with p_filesz > p_memsz");
    if (uint64_t{offset} + filesz > elf.size()) fail("segment outside the file");
    if (uint64_t{vaddr} + memsz > m.dmem().size()) {
      fail("segment at 0x" + std::to_string(vaddr) + " (+" + std::to_string(memsz) +
           ") does not fit the scratchpad");
    }
    std::vector<uint8_t> image(memsz, 0);
    std::memcpy(image.data(), elf.data() + offset, filesz);
    m.write_dmem(vaddr, image);
    if (flags & kPfX) {
      if (uint64_t{vaddr} + memsz > m.config().imem_bytes) {
        fail("code segment does not fit the instruction memory");
      }
      m.load_imem_bytes(vaddr, image);
    }
  }
  return entry;
}

}  // namespace weft::golden::simt
