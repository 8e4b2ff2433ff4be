# Golden model unit tests (label `unit`). Included from sw/golden/CMakeLists.txt.
#
# test_golden:              hand-worked cases, published rules (gemmlowp / TFLite / MLAS) and
#                           independent formulas on random inputs.
# test_golden_onnxruntime:  the ONNX mode against onnxruntime itself, through vector files that
#                           scripts/onnx_vectors.py writes at build time (target
#                           golden_onnx_vectors) into ${WEFT_VECTOR_DIR}/onnx/: requant_values.txt
#                           (part A, also read by the RTL requantization test) and
#                           qlinearmatmul.txt (part B).

set(WEFT_ONNX_VECTOR_SEED 1 CACHE STRING
  "Seed of the onnxruntime reference vectors (scripts/onnx_vectors.py)")
set(WEFT_ONNX_VECTOR_DIR ${WEFT_VECTOR_DIR}/onnx)
weft_python_reference(golden_onnx_vectors SCRIPT ${CMAKE_SOURCE_DIR}/scripts/onnx_vectors.py
  MODULES ${CMAKE_SOURCE_DIR}/scripts/vector_files.py
  OUT_DIR ${WEFT_ONNX_VECTOR_DIR} OUTPUTS requant_values.txt qlinearmatmul.txt
  SEED ${WEFT_ONNX_VECTOR_SEED} COMMENT "onnxruntime reference vectors (seed ${WEFT_ONNX_VECTOR_SEED})")

set(WEFT_GOLDEN_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

weft_gtest(test_golden
  SOURCES ${WEFT_GOLDEN_TEST_DIR}/test_gemm.cpp
          ${WEFT_GOLDEN_TEST_DIR}/test_conv2d.cpp
          ${WEFT_GOLDEN_TEST_DIR}/test_requant.cpp
          ${WEFT_GOLDEN_TEST_DIR}/test_onnx.cpp
          ${WEFT_GOLDEN_TEST_DIR}/test_postprocess.cpp
  LIBS weft_golden
  LABELS unit)
target_compile_options(test_golden PRIVATE -Wall -Wextra -Werror)

weft_gtest(test_golden_onnxruntime
  SOURCES ${WEFT_GOLDEN_TEST_DIR}/test_onnxruntime.cpp
  LIBS weft_golden
  LABELS unit)
target_compile_options(test_golden_onnxruntime PRIVATE -Wall -Wextra -Werror)
add_dependencies(test_golden_onnxruntime golden_onnx_vectors)
