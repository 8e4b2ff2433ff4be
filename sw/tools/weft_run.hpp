// `weft run`: a quantized ONNX model on the device (docs/model-runtime.md, "weft run").
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace weft::tool {

struct RunArgs {
  std::string model;
  std::vector<std::string> inputs;  // FILE (the model's one input) or NAME=FILE; .npy or .pb
  bool check = false, layers = false, json = false;
  std::string save_dir;  // write each output as <name>.npy
  int print_limit = 64;  // values printed per output
};

// `s` as the inside of a JSON string (quotes, backslashes and control characters escaped); the
// --json output of run and eval.
std::string json_escape(const std::string& s);

// Adds the command's options to `cmd` (its --device goes to `uri`).
void add_run_options(CLI::App* cmd, RunArgs& a, std::string& uri);

// Runs it. Returns the exit status: 0, 1 (--check: differs from the golden executor); throws
// weft::Error (BAD_MODEL / BAD_ARGUMENT: status 2; device: 3) or std::invalid_argument for a bad
// input file (status 2).
int cmd_run(const std::string& uri, const RunArgs& a);

}  // namespace weft::tool
