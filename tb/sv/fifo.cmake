# SV bench of weft_fifo (with its handshake checkers), on Icarus and Verilator
# (vectors: tb/vectors/gen_fifo.cpp).
weft_sv_bench(fifo TOP tb_fifo VECGEN fifo RTL weft_fifo SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tb_fifo.sv)
