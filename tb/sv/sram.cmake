# SV benches of the SRAM wrappers, on Icarus and Verilator (vectors: tb/vectors/gen_sram.cpp).
# weft_pkg is listed for the Verilator build: the SRAMs' DPI back door (`ifdef VERILATOR) uses it.
weft_sv_bench(sram_1rw TOP tb_sram_1rw VECGEN sram_1rw RTL weft_sram_1rw
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tb_sram_1rw.sv)
weft_sv_bench(sram_1r1w TOP tb_sram_1r1w VECGEN sram_1r1w RTL weft_sram_1r1w
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tb_sram_1r1w.sv)
# ECC: weft_sram_1r1w 16 x 128 with Ecc = 1, self-checking (no vectors of its own: the
# sram_1r1w generator's are passed and ignored).
weft_sv_bench(sram_ecc TOP tb_sram_ecc VECGEN sram_1r1w RTL weft_sram_1r1w
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tb_sram_ecc.sv)
