# weft_tensor_unit: one Verilated model and one test binary per configuration.
# Rows x Cols x AccDepth; two non-square ones (more columns than rows, an odd column count).
set(WEFT_TU_CONFIGS 2x2x64 4x4x128 8x8x256 16x16x1024 4x8x128 8x3x64)
foreach(cfg_str IN LISTS WEFT_TU_CONFIGS)
  string(REPLACE "x" ";" cfg ${cfg_str})
  list(GET cfg 0 r)
  list(GET cfg 1 c)
  list(GET cfg 2 d)
  set(lib vl_tu_${r}x${c})
  weft_verilated_model(${lib} TOP weft_tensor_unit
    PARAMS Rows=${r} Cols=${c} AccDepth=${d})
  weft_gtest(test_tu_${r}x${c}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tensor_unit.cpp
    LIBS ${lib} weft_golden
    LABELS block
    DEFS WEFT_MODEL=V${lib} WEFT_MODEL_HEADER="V${lib}.h" WEFT_ROWS=${r} WEFT_COLS=${c}
         WEFT_ACC_DEPTH=${d} WEFT_SUITE=TensorUnit${r}x${c})
  target_include_directories(test_tu_${r}x${c} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
endforeach()
