// Reference models and protocol-respecting stimulus for the stream primitive tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>

namespace weft::tb::stream {

// A valid/ready producer: once its word is offered and not taken, it keeps offering the same
// word (the handshake rule weft_hs_checker enforces) unless a flush releases it.
struct Source {
  bool valid = false;
  uint32_t data = 0;

  // Call once per cycle before driving. `taken`: the word offered last cycle was transferred;
  // `released`: a flush discarded it. Draws a new word with probability p_valid otherwise.
  void next(std::mt19937_64& rng, double p_valid, bool taken, bool released, uint32_t mask) {
    if (valid && !taken && !released) return;
    valid = std::uniform_real_distribution<double>(0, 1)(rng) < p_valid;
    data = static_cast<uint32_t>(rng()) & mask;
  }
};

// weft_fifo reference: in_ready = !full && !flush; a pop in the flush cycle is a transfer.
struct FifoModel {
  size_t depth;
  std::deque<uint32_t> q;

  bool in_ready(bool flush) const { return !flush && q.size() < depth; }
  bool out_valid() const { return !q.empty(); }
  uint32_t out_data() const { return q.front(); }
  void step(bool flush, bool in_valid, uint32_t in_data, bool out_ready) {
    const bool push = in_valid && in_ready(flush);
    if (out_valid() && out_ready) q.pop_front();
    if (push) q.push_back(in_data);
    if (flush) q.clear();
  }
};

// weft_rr_arbiter reference: the search starts at ptr; a stalled output locks the grant.
struct RrArbiterModel {
  int n;
  int ptr = 0;
  bool lock = false;
  int lock_idx = 0;

  // Returns the granted index (or -1 when no request and not locked).
  template <class Valid>
  int grant(const Valid& valid) const {
    if (lock) return lock_idx;
    for (int k = 0; k < n; ++k) {
      const int i = (ptr + k) % n;
      if (valid[i]) return i;
    }
    return -1;
  }
  template <class Valid>
  void step(const Valid& valid, bool out_ready) {
    const int g = grant(valid);
    const bool out_valid = g >= 0 && valid[g];
    lock = out_valid && !out_ready;
    lock_idx = g < 0 ? 0 : g;
    if (out_valid && out_ready) ptr = (g + 1) % n;
  }
};

}  // namespace weft::tb::stream
