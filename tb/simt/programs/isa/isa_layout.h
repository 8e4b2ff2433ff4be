/* Scratchpad layout of the ISA self-check program (isa_selfcheck.S, core build) and the fault
 * program (faults.S), shared with the host test (tb/simt/test_simt_programs.cpp). Plain #defines:
 * included by assembly and by C++. Every table is per thread, indexed by the thread id (CSR 0xCC0),
 * for at most ISA_MAX_THREADS threads; the program image (code + .rodata at 0) must end below
 * ISA_ARGS. */
#ifndef WEFT_ISA_LAYOUT_H
#define WEFT_ISA_LAYOUT_H

#define ISA_MAX_THREADS 32
#define ISA_MAX_TESTS 64 /* per group */

#define ISA_ARGS 0x3800    /* word 0: group index (isa_groups table) */
#define ISA_DATA 0x3900    /* 256 bytes, shared by all threads: the loads' source */
#define ISA_DATA_BYTES 256
#define ISA_STATUS 0x3A00  /* per thread 16 bytes: fails, first failing test (-1), tests run, magic */
#define ISA_STATUS_SHIFT 4
#define ISA_STATUS_MAGIC 0x600DCAFE
#define ISA_IN 0x4000      /* per thread: 2 operand words per test */
#define ISA_IN_SHIFT 9     /* 512 bytes = ISA_MAX_TESTS * 8 */
#define ISA_EXP 0x8000     /* per thread: 1 expected word per test */
#define ISA_GOT 0xA000     /* per thread: 1 result word per test */
#define ISA_RES_SHIFT 8    /* 256 bytes = ISA_MAX_TESTS * 4 */
#define ISA_SCRATCH 0xC000 /* per thread 256 bytes: the stores' target */
#define ISA_SCRATCH_SHIFT 8
#define ISA_SCRATCH_BYTES 256

/* qemu build: stdin = group word, operands (ISA_MAX_TESTS * 8), data, scratch; stdout = the
 * result words of the tests run. */
#define ISA_QEMU_IN_BYTES (4 + ISA_MAX_TESTS * 8 + ISA_DATA_BYTES + ISA_SCRATCH_BYTES)

/* faults.S: per-thread operand word at FAULT_TABLE + 4 * tid, addresses relative to FAULT_DATA. */
#define FAULT_TABLE 0x3000
#define FAULT_DATA 0x3100

#endif
