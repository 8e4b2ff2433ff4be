// weft/model.hpp: a quantized ONNX network loaded, planned once and run on a Weft device
// (docs/model-runtime.md).
//
//   weft::Device dev = weft::Device::open("sim://");
//   weft::Model model = weft::Model::load(dev, "resnet_int8.onnx");
//   std::map<std::string, weft::OnnxTensor> out = model.run({{"input", x}});
//   for (const weft::LayerReport& l : model.layers()) ...   // where each op ran, cycles, bytes
//
// Loading lowers the graph once: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger and the
// QDQ groups DequantizeLinear -> Conv / MatMul / Gemm (-> Relu / Clip) -> QuantizeLinear become
// tensor-unit operations with ONNX requantization (float8 groups in the FP8 mode), bfloat16
// Conv / MatMul / Gemm (-> Relu) BF16 tensor-unit operations; the other supported operators run
// on the host with the specification's semantics. Every failure is a weft::Error: BAD_MODEL for a file or
// graph that cannot be run (naming the file, node, op and reason), BAD_ARGUMENT for inputs that do
// not match the model, device codes from the device.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/device.hpp"
#include "weft/onnx_types.hpp"

namespace weft {

// Where an operation ran.
enum class Placement { kTensorUnit, kSimt, kHost };
std::string_view placement_name(Placement p);  // "tensor unit", "SIMT", "host"

// One executed step of the plan (one device op or one host op), measured on the last run.
struct LayerReport {
  std::string node;   // the ONNX node (the compute node of a folded QDQ group)
  std::string op;     // "QLinearConv", "Conv (QDQ)", "MaxPool", ...
  std::string shape;  // e.g. "1x3x32x32 -> 1x16x32x32, k3x3 s1"
  Placement where = Placement::kHost;
  std::string note;   // why it ran where it ran, when not on the tensor unit
  uint64_t cycles = 0;        // device cycles of the step (0 on the host)
  uint64_t macs = 0;          // multiply-accumulates of the operation itself
  double utilisation = 0;     // macs / (cycles * rows * cols)
  uint64_t dma_bytes = 0;     // bytes the device's DMA moved (read + write)
  uint64_t host_bytes = 0;    // bytes moved between the host and device memory for this step
  uint64_t im2col_bytes = 0;  // for a convolution: the im2col matrix a host-side lowering writes
  // Where a tensor-unit step's cycles went (PERF_* counters over the step, docs/performance.md):
  // the tensor unit waiting for weights, for activations, for the accumulator to drain; DMA
  // cycles stalled by the memory (read + write).
  uint64_t wait_weights = 0, wait_activations = 0, wait_drain = 0, dma_stall = 0;
  // A SIMT step: warp instructions issued and the cycles lost to the pipeline, divergence,
  // memory and barriers (SIMT_* counters, summed over its launches).
  uint64_t simt_issued = 0, simt_stall_pipe = 0, simt_stall_div = 0, simt_stall_mem = 0,
           simt_stall_barrier = 0;
  double wall_seconds = 0;  // host wall time of the step (the whole step, device included)
  // The device clock (Device::cycle()) when the step began and ended: where to look in a wave
  // file of the run (sim:// trace=..., one time unit per cycle).
  uint64_t first_cycle = 0, last_cycle = 0;
};

struct ModelOptions {
  Timeout timeout;  // per device operation
  // Where the SIMT kernel ELFs (sw/kernels: maxpool2d.elf, ...) are. Empty: $WEFT_KERNEL_DIR,
  // else <directory of the executable>/../share/weft/kernels (the install layout), else the
  // build tree's. Without them (or without a SIMT core) those operators run on the host.
  std::string kernel_dir;
};

class Model {
 public:
  // Reads, checks and lowers the model; packs the weights for `dev`. The device must outlive the
  // model.
  static Model load(Device& dev, const std::string& path, const ModelOptions& opt = {});

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  // The graph inputs to give and the outputs run() returns, as the model declares them.
  const std::vector<OnnxValueInfo>& inputs() const;
  const std::vector<OnnxValueInfo>& outputs() const;

  // Runs the network. Every graph input must be given, with the declared element type (FLOAT or
  // the quantized type) and shape; BAD_ARGUMENT otherwise.
  std::map<std::string, OnnxTensor> run(const std::map<std::string, OnnxTensor>& inputs);

  // The steps of the last run (the plan's steps with their measurements).
  const std::vector<LayerReport>& layers() const;
  // The plan, one line per step: op, node, where it runs and why.
  std::string plan_summary() const;

  struct Impl;

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  // load() and run() without the translation of std::bad_alloc into OUT_OF_MEMORY.
  static Model load_unchecked(Device& dev, const std::string& path, const ModelOptions& opt);
  std::map<std::string, OnnxTensor> run_unchecked(const std::map<std::string, OnnxTensor>& inputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft
