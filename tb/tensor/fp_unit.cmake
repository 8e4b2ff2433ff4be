# FP arithmetic of the tensor unit, exhaustively over FP8 against weft::golden (fp.hpp): the PE's
# exact fixed-point step and the array edge's rounding on every FP8 product pair, and the FP
# output stage (fp_output). The top,
# tb_fp_unit.sv, is a test wrapper outside rtl/, so it is added to weft_pe's manifest sources.
weft_rtl_sources(WEFT_FP_UNIT_SOURCES weft_pe)   # rtl/manifest.toml
weft_verilated_model(vl_fp_unit TOP tb_fp_unit
  SOURCES ${WEFT_FP_UNIT_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tb_fp_unit.sv)
weft_gtest(test_fp_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fp_unit.cpp
  LIBS vl_fp_unit weft_golden LABELS block)
