# BFloat16 tests (docs/model-runtime.md, "BF16"): node tests of Cast float <-> bfloat16, Relu, Add
# and data movement on bfloat16, and bfloat16 MatMul / Gemm / Conv models (ops/), in the layout of
# ONNX's node tests, expected outputs from onnx's ReferenceEvaluator, written at build time by
# scripts/onnx_bf16_nodes.py (target weft_onnx_bf16_nodes, part of ALL) into WEFT_ONNX_BF16_DIR:
# Debian's node-test set (ONNX 1.12) has only two Cast tests, whose float -> bfloat16 data
# truncate. The runtime's and the golden executor's node-test harnesses run the node tests;
# test_model_bf16 the models. Included at the end of sw/model/CMakeLists.txt (after the tests are
# defined).

set(WEFT_ONNX_BF16_DIR ${CMAKE_BINARY_DIR}/onnx_bf16_nodes CACHE PATH
    "BFloat16 node tests and models written by scripts/onnx_bf16_nodes.py at build time")
weft_python_reference(weft_onnx_bf16_nodes SCRIPT ${CMAKE_SOURCE_DIR}/scripts/onnx_bf16_nodes.py
  MODULES ${CMAKE_SOURCE_DIR}/scripts/onnx_node_case.py
  OUT_DIR ${WEFT_ONNX_BF16_DIR} OUTPUTS index.txt ops/index.txt
  COMMENT "ONNX bfloat16 node tests and models (onnx reference)")

foreach(t test_model_node test_golden_graph test_model_bf16)
  target_compile_definitions(${t} PRIVATE WEFT_ONNX_BF16_DIR="${WEFT_ONNX_BF16_DIR}")
  add_dependencies(${t} weft_onnx_bf16_nodes)
endforeach()
