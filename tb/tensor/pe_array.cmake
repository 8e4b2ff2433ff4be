# weft_pe and weft_systolic_array: one model per configuration, tests against golden::gemm.
weft_verilated_model(vl_pe TOP weft_pe)   # sources: rtl/manifest.toml
weft_gtest(test_pe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_pe.cpp LIBS vl_pe LABELS block)

set(WEFT_ARRAY_CONFIGS 2x2 4x4 8x8 16x16 3x5)
foreach(cfg_str IN LISTS WEFT_ARRAY_CONFIGS)
  string(REPLACE "x" ";" cfg ${cfg_str})
  list(GET cfg 0 r)
  list(GET cfg 1 c)
  set(lib vl_array_${r}x${c})
  weft_verilated_model(${lib} TOP weft_systolic_array PARAMS Rows=${r} Cols=${c})
  weft_gtest(test_array_${r}x${c} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_array.cpp
    LIBS ${lib} weft_golden LABELS block
    DEFS WEFT_ARRAY_MODEL=V${lib} WEFT_ARRAY_HEADER="V${lib}.h" WEFT_ROWS=${r} WEFT_COLS=${c}
         WEFT_SUITE=Array${r}x${c})
endforeach()
