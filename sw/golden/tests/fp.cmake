# Golden FP modes (FP8 E4M3FN / E5M2 operands; BF16, FP8 and FP32 conversions) unit test (label
# `unit`). Included from sw/golden/CMakeLists.txt.
#
# test_golden_fp: fp_decode / fp_encode / gemm_fp / fp_postprocess (weft/golden/fp.hpp) against
#                 ml_dtypes, onnxruntime's Cast (saturate=1) and two exact Python
#                 implementations of the GEMM rule (fractions, integers), through vector files that scripts/fp_vectors.py
#                 writes at build time (target golden_fp_vectors) into ${WEFT_VECTOR_DIR}/fp/; plus
#                 hand-worked cases. The file formats are documented at the top of the script.

set(WEFT_FP_VECTOR_SEED 1 CACHE STRING
  "Seed of the FP reference vectors (scripts/fp_vectors.py)")
set(WEFT_FP_VECTOR_DIR ${WEFT_VECTOR_DIR}/fp)
weft_python_reference(golden_fp_vectors SCRIPT ${CMAKE_SOURCE_DIR}/scripts/fp_vectors.py
  MODULES ${CMAKE_SOURCE_DIR}/scripts/vector_files.py
  OUT_DIR ${WEFT_FP_VECTOR_DIR}
  OUTPUTS fp8_decode.txt bf16.txt fp8_products.txt encode.txt gemm.txt gemm_bf16.txt
          postprocess.txt
  SEED ${WEFT_FP_VECTOR_SEED}
  COMMENT "ml_dtypes / onnxruntime FP reference vectors (seed ${WEFT_FP_VECTOR_SEED})")

weft_gtest(test_golden_fp
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fp.cpp
  LIBS weft_golden
  LABELS unit)
target_compile_options(test_golden_fp PRIVATE -Wall -Wextra -Werror -ffp-contract=off)
add_dependencies(test_golden_fp golden_fp_vectors)
