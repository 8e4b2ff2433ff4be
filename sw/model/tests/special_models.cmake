# Hand-built QOperator models (docs/model-runtime.md, "Hand-built models"): dilated / auto_pad
# convolutions, device-resident chains, per-channel / per-row zero points, integer MaxPool, a
# batched QLinearMatMul and refused forms, each run by onnxruntime, written at build time by
# scripts/onnx_special_models.py (target weft_onnx_special_models, part of ALL) into
# WEFT_ONNX_SPECIAL_DIR. Included at the end of sw/model/CMakeLists.txt.

set(WEFT_ONNX_SPECIAL_DIR ${CMAKE_BINARY_DIR}/onnx_special CACHE PATH
    "Hand-built models written by scripts/onnx_special_models.py at build time")
add_custom_command(
  OUTPUT ${WEFT_ONNX_SPECIAL_DIR}/index.txt
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/onnx_special_models.py
          --out-dir ${WEFT_ONNX_SPECIAL_DIR}
  DEPENDS ${CMAKE_SOURCE_DIR}/scripts/onnx_special_models.py
  COMMENT "onnxruntime hand-built special models -> ${WEFT_ONNX_SPECIAL_DIR}"
  VERBATIM)
add_custom_target(weft_onnx_special_models ALL DEPENDS ${WEFT_ONNX_SPECIAL_DIR}/index.txt)

# The special models through the runtime (ref://, sim://), against onnxruntime and the golden
# executor.
weft_gtest(test_model_special
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_model_special.cpp
  LIBS weft_model weft_golden LABELS system
  DEFS WEFT_ONNX_SPECIAL_DIR="${WEFT_ONNX_SPECIAL_DIR}")
target_compile_options(test_model_special PRIVATE -Wall -Wextra -Werror)
add_dependencies(test_model_special weft_onnx_special_models)
if(WEFT_SIM_PLUGINS)
  add_dependencies(test_model_special ${WEFT_SIM_PLUGINS})
  target_compile_definitions(test_model_special PRIVATE WEFT_HAVE_SIM=1)
endif()
# The SIMT kernel ELFs, so that the integer MaxPool cases run on the SIMT core (without them the
# runtime runs MaxPool on the host and says so).
# weft_kernel_elfs always exists (empty without the RISC-V compiler), defined later by sw/kernels.
add_dependencies(test_model_special weft_kernel_elfs)
