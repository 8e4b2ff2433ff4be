// `weft eval`: a quantized classification network measured on a data set (docs/model-runtime.md,
// "Evaluating a network: weft eval").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace weft::tool {

struct EvalArgs {
  std::string model;
  std::string dataset;          // digits | fashion-mnist
  std::string data;             // the data set's file / directory (default: Debian's)
  std::string split = "test";   // test | train
  int64_t limit = -1;           // the first N images of the split (default: all)
  int64_t batch = 16;           // images per Model::run
  std::string predictions;      // onnxruntime's predicted classes (default MODEL .onnx -> .predictions)
  bool layers = false, json = false, quiet = false;
};

// Adds the command's options to `cmd` (its --device goes to `uri`; "golden" is the golden graph
// executor on the host).
void add_eval_options(CLI::App* cmd, EvalArgs& a, std::string& uri);

// Runs it. Returns the exit status: 0, or 1 when a prediction differs from onnxruntime's stored
// one; throws weft::Error (BAD_MODEL / BAD_ARGUMENT / OUT_OF_MEMORY: status 2; device: 3).
int cmd_eval(const std::string& uri, const EvalArgs& a);

}  // namespace weft::tool
