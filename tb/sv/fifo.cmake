# SV bench of weft_fifo (with its handshake checkers), on Icarus and Verilator
# (vectors: tb/vectors/gen_fifo.cpp).
weft_sv_bench(fifo TOP tb_fifo VECGEN fifo
  SOURCES ${WEFT_RTL_DIR}/common/weft_hs_checker.sv ${WEFT_RTL_DIR}/common/weft_fifo.sv
          ${CMAKE_CURRENT_SOURCE_DIR}/tb_fifo.sv)
