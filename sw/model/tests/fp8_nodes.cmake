# Float8 node tests (docs/model-runtime.md, "FP8"): QuantizeLinear / DequantizeLinear to and from
# FLOAT8E4M3FN / FLOAT8E5M2 in the layout of ONNX's node tests, expected outputs from onnx's
# ReferenceEvaluator, written at build time by scripts/onnx_fp8_nodes.py (target
# weft_onnx_fp8_nodes, part of ALL) into WEFT_ONNX_FP8_DIR: Debian's node-test set (ONNX 1.12)
# has none. The runtime's and the golden executor's node-test harnesses run them. Included at the
# end of sw/model/CMakeLists.txt (after both tests are defined).

set(WEFT_ONNX_FP8_DIR ${CMAKE_BINARY_DIR}/onnx_fp8_nodes CACHE PATH
    "Float8 node tests written by scripts/onnx_fp8_nodes.py at build time")
weft_python_reference(weft_onnx_fp8_nodes SCRIPT ${CMAKE_SOURCE_DIR}/scripts/onnx_fp8_nodes.py
  MODULES ${CMAKE_SOURCE_DIR}/scripts/onnx_node_case.py
  OUT_DIR ${WEFT_ONNX_FP8_DIR} OUTPUTS index.txt COMMENT "ONNX float8 node tests (onnx reference)")

foreach(t test_model_node test_golden_graph test_model_fp8)
  target_compile_definitions(${t} PRIVATE WEFT_ONNX_FP8_DIR="${WEFT_ONNX_FP8_DIR}")
  add_dependencies(${t} weft_onnx_fp8_nodes)
endforeach()
