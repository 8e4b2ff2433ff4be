# The test model corpus (docs/model-runtime.md, "Test model corpus"): small random float models
# quantized by onnxruntime.quantization.quantize_static and run by onnxruntime, written at build
# time by scripts/onnx_models.py (target weft_onnx_models, part of ALL) into WEFT_ONNX_MODEL_DIR
# in the layout of ONNX's node tests. Included at the end of sw/model/CMakeLists.txt. Without
# numpy / onnx / onnxruntime the script fails the build with "run `make setup`".

set(WEFT_ONNX_MODEL_SEED 1 CACHE STRING "Seed of the test model corpus (scripts/onnx_models.py)")
set(WEFT_ONNX_MODEL_DIR ${CMAKE_BINARY_DIR}/onnx_models CACHE PATH
    "Test model corpus written by scripts/onnx_models.py at build time")
weft_python_reference(weft_onnx_models SCRIPT ${CMAKE_SOURCE_DIR}/scripts/onnx_models.py
  OUT_DIR ${WEFT_ONNX_MODEL_DIR} OUTPUTS index.json index.txt SEED ${WEFT_ONNX_MODEL_SEED}
  COMMENT "onnxruntime test model corpus (seed ${WEFT_ONNX_MODEL_SEED})")

weft_gtest(test_model_corpus
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_model_corpus.cpp
  LIBS weft_model LABELS unit
  DEFS WEFT_ONNX_MODEL_DIR="${WEFT_ONNX_MODEL_DIR}")
target_compile_options(test_model_corpus PRIVATE -Wall -Wextra -Werror)
add_dependencies(test_model_corpus weft_onnx_models)
