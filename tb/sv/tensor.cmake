# SV benches of the tensor leaf blocks (PE, a 4x4 array), on Icarus and Verilator.
weft_sv_bench(pe TOP tb_pe VECGEN pe RTL weft_pe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tb_pe.sv)
weft_sv_bench(array TOP tb_array VECGEN array RTL weft_systolic_array
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tb_array.sv)
