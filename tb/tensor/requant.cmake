# weft_requant: one post-processing lane, against weft::golden::postprocess() and, for the ONNX
# mode, against onnxruntime's own outputs (${WEFT_VECTOR_DIR}/onnx/requant_values.txt, written by
# scripts/onnx_vectors.py through the target golden_onnx_vectors; the test fails without it).
weft_verilated_model(vl_requant TOP weft_requant)   # sources: rtl/manifest.toml
weft_gtest(test_requant
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_requant.cpp
  LIBS vl_requant weft_golden
  LABELS block)
if(TARGET golden_onnx_vectors)
  add_dependencies(test_requant golden_onnx_vectors)
endif()
