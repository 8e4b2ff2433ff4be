# SRAM wrappers: front door against a C++ memory model, DPI back door (weft/tb/sram_backdoor.hpp).
# Each model is wrapped in a tb_common_sram_* top that adds the rst_ni port the harness drives.
weft_rtl_sources(WEFT_SRAM_SOURCES weft_sram_1rw weft_sram_1r1w)   # rtl/manifest.toml

# 512 x 32: the canonical block-RAM shape.
weft_verilated_model(vl_sram_1rw TOP tb_common_sram_1rw
  SOURCES ${WEFT_SRAM_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tb_common_sram_1rw.sv
  PARAMS Depth=512 Width=32)
weft_gtest(test_sram_1rw SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sram_1rw.cpp
  LIBS vl_sram_1rw LABELS block)

# 100 x 72: a depth that is not a power of two and a word wider than 64 bits (VlWide ports,
# three back-door chunks).
weft_verilated_model(vl_sram_1r1w TOP tb_common_sram_1r1w
  SOURCES ${WEFT_SRAM_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tb_common_sram_1r1w.sv
  PARAMS Depth=100 Width=72)
weft_gtest(test_sram_1r1w SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sram_1r1w.cpp
  LIBS vl_sram_1r1w LABELS block)

# Both SRAM kinds in one model, inside generate blocks (back-door scope names).
weft_verilated_model(vl_sram_nest TOP tb_common_sram_nest
  SOURCES ${WEFT_SRAM_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tb_common_sram_nest.sv)
weft_gtest(test_sram_nest SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sram_nest.cpp
  LIBS vl_sram_nest LABELS block)
