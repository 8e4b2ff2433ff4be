# weft_top: the whole device (registers, command processor, DMA, scratchpad, tensor unit) under
# the host models of sim/models. Two configurations:
#   vl_top_4x4    Rows=Cols=4, AccDepth=64, SpadLines=1024 (4 banks of 256), SIMT 2x4 with
#                 16 KiB data / 4 KiB instructions: fast tests
#   vl_top_16x16  the default device (16x16, AccDepth=512, SpadLines=16384); the driver's
#                 vl_weft_sim_16x16 model when sw/driver builds it (the same configuration)
# Suites Top4x4 / Top16x16, TopProgram4x4 / TopProgram16x16 (random programs) and TopSimtLaunch4x4 /
# TopSimtLaunch16x16 (SIMT_LAUNCH through the device, test_simt_launch.cpp) in
# test_top_4x4, test_top_16x16; label block.
if(TARGET weft_sim_models)
  weft_rtl_sources(WEFT_TOP_SOURCES weft_top)   # rtl/manifest.toml
  set(WEFT_TOP_CONFIGS "4x4x64x1024x4" "16x16x512x16384x4")
  foreach(cfg_str IN LISTS WEFT_TOP_CONFIGS)
    string(REPLACE "x" ";" cfg ${cfg_str})
    list(GET cfg 0 r)
    list(GET cfg 1 c)
    list(GET cfg 2 d)
    list(GET cfg 3 lines)
    list(GET cfg 4 banks)
    set(lib vl_top_${r}x${c})
    if(TARGET vl_weft_sim_${r}x${c} AND d EQUAL 512 AND lines EQUAL 16384 AND banks EQUAL 4)
      # The driver's sim:// plugin already verilates this configuration (weft_top defaults):
      # link that model instead of building the same one twice.
      set(lib vl_weft_sim_${r}x${c})
    else()
      weft_verilated_model(${lib} TOP weft_top
        SOURCES ${WEFT_TOP_SOURCES}
        PARAMS Rows=${r} Cols=${c} AccDepth=${d} SpadLines=${lines} SpadBanks=${banks}
               SimtWarps=2 SimtThreads=4 SimtBanks=4 SimtDmemBytes=16384 SimtImemWords=1024)
    endif()
    weft_gtest(test_top_${r}x${c}
      SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_top.cpp ${CMAKE_CURRENT_SOURCE_DIR}/test_simt_launch.cpp
      LIBS ${lib} weft_golden weft_golden_simt weft_sim_models
      LABELS block
      DEFS WEFT_MODEL=V${lib} WEFT_MODEL_HEADER="V${lib}.h" WEFT_ROWS=${r} WEFT_COLS=${c}
           WEFT_ACC_DEPTH=${d} WEFT_SPAD_LINES=${lines} WEFT_SPAD_BANKS=${banks}
           WEFT_SUITE=Top${r}x${c} WEFT_RANDOM_SUITE=TopProgram${r}x${c}
           WEFT_SIMT_SUITE=TopSimtLaunch${r}x${c})
    target_include_directories(test_top_${r}x${c} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                               ${CMAKE_SOURCE_DIR}/sw/driver/include)
  endforeach()
endif()
