# Stream primitives (weft_fifo, weft_spill_register, weft_rr_arbiter) against C++ reference models,
# one model per configuration; the handshake checkers (weft_hs_checker) are compiled in.
# Sources: each module's top in rtl/manifest.toml.

# FIFO: Depth 1 (half rate by design), 4, 5 (not a power of two); Width 16.
foreach(depth 1 4 5)
  weft_verilated_model(vl_fifo_d${depth} TOP weft_fifo
    PARAMS Width=16 Depth=${depth})
  weft_gtest(test_fifo_d${depth} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fifo.cpp
    LIBS vl_fifo_d${depth} LABELS block
    DEFS WEFT_FIFO_MODEL=Vvl_fifo_d${depth} WEFT_FIFO_HEADER="Vvl_fifo_d${depth}.h"
         WEFT_FIFO_DEPTH=${depth} WEFT_SUITE=FifoDepth${depth})
endforeach()

weft_verilated_model(vl_spill TOP weft_spill_register
  PARAMS Width=16)
weft_gtest(test_spill_register SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_spill_register.cpp
  LIBS vl_spill LABELS block)

# Round-robin arbiter: 4 inputs (power of two) and 3 inputs; Width 16.
foreach(n 3 4)
  weft_verilated_model(vl_arb_n${n} TOP weft_rr_arbiter
    PARAMS N=${n} Width=16)
  weft_gtest(test_rr_arbiter_n${n} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_rr_arbiter.cpp
    LIBS vl_arb_n${n} LABELS block
    DEFS WEFT_ARB_MODEL=Vvl_arb_n${n} WEFT_ARB_HEADER="Vvl_arb_n${n}.h" WEFT_ARB_N=${n}
         WEFT_SUITE=RrArbiter${n})
endforeach()
