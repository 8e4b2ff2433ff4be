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

# ECC (Ecc = 1): weft_sram_1r1w with the scratchpad's 128-bit lines and the 16x16 accumulator's
# 512-bit rows, weft_sram_1rw with 64-bit words; one test source (test_sram_ecc.cpp), one binary
# per configuration (suites SramEcc1r1w128, SramEcc1r1w512, SramEcc1rw64).
foreach(cfg IN ITEMS "1r1w:64:128" "1r1w:32:512" "1rw:48:64")
  string(REPLACE ":" ";" c ${cfg})
  list(GET c 0 kind)
  list(GET c 1 depth)
  list(GET c 2 width)
  set(name sram_${kind}_ecc_${width})
  weft_verilated_model(vl_${name} TOP tb_common_sram_${kind}
    SOURCES ${WEFT_SRAM_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/tb_common_sram_${kind}.sv
    PARAMS Depth=${depth} Width=${width} "Ecc=1'b1")
  set(defs WEFT_MODEL=Vvl_${name} WEFT_MODEL_HEADER="Vvl_${name}.h" WEFT_DEPTH=${depth}
           WEFT_WIDTH=${width} WEFT_SCOPE="top.tb_common_sram_${kind}.u_sram"
           WEFT_SUITE=SramEcc${kind}${width})
  if(kind STREQUAL "1rw")
    list(APPEND defs WEFT_SRAM_1RW=1)
  endif()
  weft_gtest(test_${name} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sram_ecc.cpp
    LIBS vl_${name} LABELS block DEFS ${defs})
endforeach()
