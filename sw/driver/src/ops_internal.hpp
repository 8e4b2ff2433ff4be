// Pieces shared by the high-level ops (ops.cpp: gemm and host conv2d; conv_device.cpp: the
// device-resident implicit-GEMM conv2d).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "weft/ops.hpp"

namespace weft::detail {

// The clamp a STORE_ACC applies: [act_min, act_max], intersected with a declared output type.
struct Clamp {
  int32_t lo, hi;
};

// Checks an output stage for N columns (per-channel counts, shifts, scales, the declared type's
// zero point, the clamp); Error(kBadArgument) naming `who`. Returns the clamp to store with.
Clamp check_output_stage(const OutputStage& o, uint64_t N, bool int32_out, const char* who);

// Per-column parameter lines (ColumnParams in the first 16 bytes of each B-byte line), nst*C
// lines, columns past N zero.
std::vector<uint8_t> pack_params(const OutputStage& o, uint64_t N, uint64_t nst, uint32_t C,
                                 uint32_t B);

// Waits for earlier work, clears the counters, submits `prog` in batches, waits for its last
// descriptor (progress as GemmOptions::progress) and returns the counters.
PerfReport run_program(Device& dev, const std::vector<Descriptor>& prog, const Timeout& timeout,
                       const std::function<void(double)>& progress);

}  // namespace weft::detail
