# weft_spad: random concurrent reads from every port against a C++ memory model.
# DataW x Lines x Banks x NumRd: the device's shape (small) and a narrow one with more ports.
set(WEFT_SPAD_CONFIGS 128x1024x4x3 64x256x2x4)
foreach(cfg_str IN LISTS WEFT_SPAD_CONFIGS)
  string(REPLACE "x" ";" cfg ${cfg_str})
  list(GET cfg 0 dw)
  list(GET cfg 1 lines)
  list(GET cfg 2 banks)
  list(GET cfg 3 nrd)
  set(lib vl_spad_${cfg_str})
  weft_verilated_model(${lib} TOP weft_spad   # sources: rtl/manifest.toml
    PARAMS DataW=${dw} Lines=${lines} Banks=${banks} NumRd=${nrd})
  weft_gtest(test_spad_${cfg_str}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_spad.cpp
    LIBS ${lib}
    LABELS block
    DEFS WEFT_MODEL=V${lib} WEFT_MODEL_HEADER="V${lib}.h" WEFT_DATAW=${dw} WEFT_LINES=${lines}
         WEFT_BANKS=${banks} WEFT_NUMRD=${nrd} WEFT_SUITE=Spad${cfg_str})
endforeach()
