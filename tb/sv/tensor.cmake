# SV benches of the tensor leaf blocks (PE, a 4x4 array), on Icarus and Verilator.
weft_sv_bench(pe TOP tb_pe VECGEN pe
  SOURCES ${WEFT_RTL_DIR}/common/weft_pkg.sv ${WEFT_RTL_DIR}/tensor/weft_pe.sv
          ${CMAKE_CURRENT_SOURCE_DIR}/tb_pe.sv)
weft_sv_bench(array TOP tb_array VECGEN array
  SOURCES ${WEFT_RTL_DIR}/common/weft_pkg.sv ${WEFT_RTL_DIR}/common/weft_delay.sv
          ${WEFT_RTL_DIR}/tensor/weft_pe.sv ${WEFT_RTL_DIR}/tensor/weft_systolic_array.sv
          ${CMAKE_CURRENT_SOURCE_DIR}/tb_array.sv)
