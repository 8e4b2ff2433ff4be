// Vectors for the FIFO SV bench (tb/sv/tb_fifo.sv): weft_fifo Width 16, Depth 5, from a C++ queue
// model. The producer respects the handshake (a refused word is offered again, unchanged, unless
// a flush releases it); the ready pattern of the consumer and the flushes are part of the vectors.
// One line per cycle: inputs driven before edge t and the outputs expected before that edge
// (in_ready_o, out_valid_o and usage_o depend on the state and on flush_i).
//   ctrl.hex {flush, in_valid, out_ready}   din.hex in_data
//   exp.hex  {in_ready, out_valid, usage[2:0]}   dout.hex out_data (0 when out_valid is 0)
#include <cstdint>
#include <deque>

#include "vecgen.hpp"

namespace {

using weft::vecgen::HexFile;
using weft::vecgen::Registration;

void gen_fifo(const std::filesystem::path& dir, std::mt19937_64& rng) {
  constexpr size_t kDepth = 5;
  HexFile ctrl(dir / "ctrl.hex", 1), din(dir / "din.hex", 4), exp(dir / "exp.hex", 2),
      dout(dir / "dout.hex", 4), count(dir / "count.hex", 8);
  std::uniform_real_distribution<double> u(0, 1);
  std::deque<uint32_t> q;
  bool valid = false, hold = false;
  uint32_t data = 0;
  struct Phase {
    int cycles;
    double p_valid, p_ready, p_flush;
  };
  const Phase phases[] = {{1500, 0.9, 0.3, 0.0}, {1500, 0.3, 0.9, 0.0}, {1500, 0.5, 0.5, 0.0},
                          {1000, 1.0, 1.0, 0.0}, {1000, 1.0, 0.1, 0.0}, {1500, 0.7, 0.5, 0.05}};
  for (const Phase& p : phases) {
    for (int i = 0; i < p.cycles; ++i) {
      if (!hold) {
        valid = u(rng) < p.p_valid;
        data = static_cast<uint32_t>(rng() & 0xffff);
      }
      const bool flush = u(rng) < p.p_flush, ready = u(rng) < p.p_ready;
      const bool in_ready = !flush && q.size() < kDepth, out_valid = !q.empty();
      ctrl.word((uint64_t{flush} << 2) | (uint64_t{valid} << 1) | uint64_t{ready});
      din.word(data);
      exp.word((uint64_t{in_ready} << 4) | (uint64_t{out_valid} << 3) | q.size());
      dout.word(out_valid ? q.front() : 0);
      // the edge
      const bool push = valid && in_ready;
      if (out_valid && ready) q.pop_front();
      if (push) q.push_back(data);
      if (flush) q.clear();
      hold = valid && !push && !flush;
    }
  }
  count.word(ctrl.count());
}

const Registration reg("fifo", &gen_fifo);

}  // namespace
