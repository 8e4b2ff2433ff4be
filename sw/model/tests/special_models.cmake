# Hand-built QOperator models (docs/model-runtime.md, "Hand-built models"): dilated / auto_pad
# convolutions, device-resident chains, per-channel / per-row zero points, integer MaxPool, a
# batched QLinearMatMul and refused forms, each run by onnxruntime, written at build time by
# scripts/onnx_special_models.py (target weft_onnx_special_models, part of ALL) into
# WEFT_ONNX_SPECIAL_DIR. Included at the end of sw/model/CMakeLists.txt.

set(WEFT_ONNX_SPECIAL_DIR ${CMAKE_BINARY_DIR}/onnx_special CACHE PATH
    "Hand-built models written by scripts/onnx_special_models.py at build time")
weft_python_reference(weft_onnx_special_models
  SCRIPT ${CMAKE_SOURCE_DIR}/scripts/onnx_special_models.py OUT_DIR ${WEFT_ONNX_SPECIAL_DIR}
  OUTPUTS index.txt COMMENT "onnxruntime hand-built special models")

# The special models through the runtime (ref://, sim://), against onnxruntime and the golden
# executor.
weft_model_device_test(test_model_special
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_model_special.cpp
  LIBS weft_golden DEFS WEFT_ONNX_SPECIAL_DIR="${WEFT_ONNX_SPECIAL_DIR}"
  # The SIMT kernel ELFs (always a target, empty without the RISC-V compiler, defined later by
  # sw/kernels), so that the integer MaxPool cases run on the SIMT core.
  DEPENDS weft_onnx_special_models weft_kernel_elfs)
