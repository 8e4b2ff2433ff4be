# SIMT functional model (weft::golden::simt, docs/simt-model.md) and its unit tests (label `unit`).
# Included from sw/golden/CMakeLists.txt (which globs tests/*.cmake).
#
# test_golden_simt: the encoder against hand-worked words, every RV32IM instruction, min-PC
#                   divergence counts, barriers and errors (hand-worked expectations), and C
#                   compiled by Debian's riscv64-unknown-elf-gcc, compared with qemu-riscv32. The
#                   ELF tests skip (GTEST_SKIP) when gcc or qemu-riscv32 is not installed.

add_library(weft_golden_simt STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/src/simt.cpp          # harts, warps, min-PC issue, barriers
  ${CMAKE_CURRENT_SOURCE_DIR}/src/simt_encode.cpp   # RV32IM + Zicsr encoder, rv::Program
  ${CMAKE_CURRENT_SOURCE_DIR}/src/simt_elf.cpp)     # minimal ELF32 loader
target_include_directories(weft_golden_simt PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_compile_options(weft_golden_simt PRIVATE -Wall -Wextra -Werror)

set(WEFT_SIMT_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
weft_gtest(test_golden_simt
  SOURCES ${WEFT_SIMT_TEST_DIR}/test_simt_encode.cpp
          ${WEFT_SIMT_TEST_DIR}/test_simt_isa.cpp
          ${WEFT_SIMT_TEST_DIR}/test_simt_warps.cpp
          ${WEFT_SIMT_TEST_DIR}/test_simt_elf.cpp
  LIBS weft_golden_simt
  LABELS unit)
target_compile_options(test_golden_simt PRIVATE -Wall -Wextra -Werror)

# RISC-V test programs, built from test_simt_elf.c when the toolchain and qemu are installed.
find_program(WEFT_RISCV_GCC riscv64-unknown-elf-gcc)
find_program(WEFT_QEMU_RISCV32 qemu-riscv32)
if(WEFT_RISCV_GCC AND WEFT_QEMU_RISCV32)
  set(WEFT_SIMT_ELF_DIR ${CMAKE_CURRENT_BINARY_DIR}/simt_elf)
  set(WEFT_SIMT_ELF_SRC ${WEFT_SIMT_TEST_DIR}/test_simt_elf.c)
  set(WEFT_SIMT_RV_FLAGS -march=rv32im -mabi=ilp32 -ffreestanding -nostdlib -nostartfiles
      -static -fno-tree-loop-distribute-patterns -Wall -Wextra -Werror)
  set(WEFT_SIMT_ELFS)
  foreach(opt O0 O2)
    foreach(part 0 1 2 3)
      set(out ${WEFT_SIMT_ELF_DIR}/checksum_${opt}_${part}.elf)
      add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${WEFT_SIMT_ELF_DIR}
        COMMAND ${WEFT_RISCV_GCC} ${WEFT_SIMT_RV_FLAGS} -${opt} -DPART=${part}
                ${WEFT_SIMT_ELF_SRC} -lgcc -o ${out}
        DEPENDS ${WEFT_SIMT_ELF_SRC}
        COMMENT "riscv64-unknown-elf-gcc -${opt} -DPART=${part} -> checksum_${opt}_${part}.elf"
        VERBATIM)
      list(APPEND WEFT_SIMT_ELFS ${out})
    endforeach()
  endforeach()
  set(out ${WEFT_SIMT_ELF_DIR}/kernel_collatz.elf)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${WEFT_SIMT_ELF_DIR}
    COMMAND ${WEFT_RISCV_GCC} ${WEFT_SIMT_RV_FLAGS} -O2 -DWEFT_SIMT_KERNEL
            ${WEFT_SIMT_ELF_SRC} -o ${out}
    DEPENDS ${WEFT_SIMT_ELF_SRC}
    COMMENT "riscv64-unknown-elf-gcc -DWEFT_SIMT_KERNEL -> kernel_collatz.elf"
    VERBATIM)
  list(APPEND WEFT_SIMT_ELFS ${out})
  add_custom_target(golden_simt_elfs DEPENDS ${WEFT_SIMT_ELFS})
  add_dependencies(test_golden_simt golden_simt_elfs)
  target_compile_definitions(test_golden_simt PRIVATE
    WEFT_SIMT_ELF_DIR="${WEFT_SIMT_ELF_DIR}" WEFT_QEMU_RISCV32="${WEFT_QEMU_RISCV32}")
else()
  message(STATUS "SIMT ELF tests will skip: riscv64-unknown-elf-gcc or qemu-riscv32 not found")
  target_compile_definitions(test_golden_simt PRIVATE WEFT_SIMT_ELF_DIR="" WEFT_QEMU_RISCV32="")
endif()
