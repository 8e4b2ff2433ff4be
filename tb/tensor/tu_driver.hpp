// TuDriver: a cycle-level driver for weft_tensor_unit, shared by its tests and benchmarks.
// It queues commands, weight rows and activation rows, drives them with optional random gaps,
// takes output rows with optional random back-pressure, and turns GEMM problems into the
// command sequence the unit expects (K split into tiles of Rows, accumulate after the first).
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"

namespace weft::tb {

struct TuCmd {
  bool drain = false;
  uint32_t rows = 0;
  uint32_t addr = 0;
  bool accumulate = false;
  bool wreuse = false;
  bool a_signed = true;
  int32_t a_zp = 0;
  golden::RequantMode mode = golden::RequantMode::kNone;
  bool pack = false;
  int32_t zp = 0, act_min = 0, act_max = 0;
};

struct TuWeightRow {
  std::vector<int32_t> w;  // Cols values (int8 or uint8)
  bool last = false;
  bool is_signed = true;
  int32_t zp = 0;
};

// Stress settings: probability (0..1) that a stream source inserts a gap in a cycle, and that
// the output sink is not ready.
struct TuStress {
  double cmd_gap = 0.0;
  double w_gap = 0.0;
  double a_gap = 0.0;
  double o_stall = 0.0;
};

template <class Model>
class TuDriver {
 public:
  TuDriver(Harness<Model>& h, int rows, int cols, int acc_depth, uint64_t seed)
      : h_(h), rows_(rows), cols_(cols), acc_depth_(acc_depth), rng_(seed) {}

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int bank_depth() const { return acc_depth_ / 2; }
  void set_stress(const TuStress& s) { stress_ = s; }

  void push_cmd(const TuCmd& c) { cmds_.push_back(c); }
  void push_weight(const TuWeightRow& w) { weights_.push_back(w); }
  void push_act(const std::vector<int32_t>& a) { acts_.push_back(a); }

  // Writes one column's post-processing parameters (the unit must be idle).
  void set_channel(int col, const golden::ChannelParams& p) {
    auto& d = h_.dut();
    d.pc_we_i = 1;
    d.pc_idx_i = col;
    d.pc_bias_i = static_cast<uint32_t>(p.bias);
    uint32_t mult;
    if (mode_is_onnx_) {
      std::memcpy(&mult, &p.scale, 4);
    } else {
      mult = static_cast<uint32_t>(p.multiplier);
    }
    d.pc_mult_i = mult;
    d.pc_shift_i = static_cast<uint32_t>(p.shift) & 0x3f;
    h_.tick();
    d.pc_we_i = 0;
  }
  // Channel parameters hold a multiplier (TFLite) or a float scale (ONNX) in one register.
  void set_channels(const std::vector<golden::ChannelParams>& ch, bool onnx) {
    mode_is_onnx_ = onnx;
    for (int c = 0; c < cols_ && c < static_cast<int>(ch.size()); ++c) set_channel(c, ch[c]);
  }

  // One cycle: drive stream heads (subject to random gaps), sample handshakes, tick.
  void step() {
    auto& d = h_.dut();
    std::uniform_real_distribution<double> u(0.0, 1.0);

    const bool cmd_v = !cmds_.empty() && u(rng_) >= stress_.cmd_gap;
    d.cmd_valid_i = cmd_v;
    if (!cmds_.empty()) drive_cmd(cmds_.front());

    const bool w_v = !weights_.empty() && u(rng_) >= stress_.w_gap;
    d.w_valid_i = w_v;
    if (!weights_.empty()) {
      const auto& w = weights_.front();
      for (int c = 0; c < cols_; ++c) set_bits(d.w_data_i, 8 * c, 8, static_cast<uint64_t>(w.w[c]));
      d.w_last_i = w.last;
      d.w_signed_i = w.is_signed;
      d.w_zp_i = static_cast<uint8_t>(w.zp);
      d.w_fmt_i = 0;  // the integer mode (FP8 runs through the whole device: tb/system)
    }

    const bool a_v = !acts_.empty() && u(rng_) >= stress_.a_gap;
    d.a_valid_i = a_v;
    if (!acts_.empty()) {
      const auto& a = acts_.front();
      for (int r = 0; r < rows_; ++r) set_bits(d.a_data_i, 8 * r, 8, static_cast<uint64_t>(a[r]));
    }

    d.o_ready_i = u(rng_) >= stress_.o_stall;
    h_.eval();

    const bool cmd_fire = cmd_v && d.cmd_ready_o;
    const bool w_fire = w_v && d.w_ready_o;
    const bool a_fire = a_v && d.a_ready_o;
    if (d.o_valid_o && d.o_ready_i) {
      std::vector<uint32_t> row(cols_);
      for (int c = 0; c < cols_; ++c) row[c] = static_cast<uint32_t>(get_bits(d.o_data_o, 32 * c, 32));
      outputs_.push_back(std::move(row));
    }
    if (d.stat_array_row_o) {
      if (array_rows_ == 0) first_row_cycle_ = h_.cycle();
      last_row_cycle_ = h_.cycle();
      ++array_rows_;
      if (d.o_valid_o && d.o_ready_i) ++overlap_cycles_;
    }
    h_.tick();
    if (cmd_fire) cmds_.pop_front();
    if (w_fire) weights_.pop_front();
    if (a_fire) acts_.pop_front();
  }

  bool idle() {
    h_.eval();
    return cmds_.empty() && weights_.empty() && acts_.empty() && !h_.dut().busy_o &&
           !h_.dut().o_valid_o;
  }

  // Steps until every queue is empty and the unit is idle; throws on timeout.
  void run(uint64_t timeout = 1'000'000) {
    for (uint64_t i = 0; i < timeout; ++i) {
      if (idle()) return;
      step();
    }
    throw std::runtime_error("tensor unit did not finish within " + std::to_string(timeout) +
                             " cycles (cmds " + std::to_string(cmds_.size()) + ", weights " +
                             std::to_string(weights_.size()) + ", acts " +
                             std::to_string(acts_.size()) + ")");
  }

  std::deque<std::vector<uint32_t>>& outputs() { return outputs_; }
  uint64_t array_rows() const { return array_rows_; }
  // Cycles from the first to the last row that entered the array, inclusive.
  uint64_t array_span() const { return array_rows_ ? last_row_cycle_ - first_row_cycle_ + 1 : 0; }
  // Cycles in which a row entered the array while a drained row left the unit.
  uint64_t overlap_cycles() const { return overlap_cycles_; }
  void reset_counters() { array_rows_ = first_row_cycle_ = last_row_cycle_ = overlap_cycles_ = 0; }

  // ---- GEMM problems ------------------------------------------------------------------------
  // Queues C = A (m x k) * W (k x n) with n <= Cols, m <= BankDepth, into accumulator rows from
  // `addr`: ceil(k / Rows) weight tiles, the first COMPUTE overwriting, the others accumulating,
  // then one DRAIN with the given output parameters. Padding values are random: padded weight
  // rows are never sent (the unit zero-fills them) and padded columns are not compared.
  void queue_gemm(const std::vector<int32_t>& a, const std::vector<int32_t>& w, int m, int k, int n,
                  const golden::OperandType& at, const golden::OperandType& wt, uint32_t addr,
                  const golden::OutputParams& out, bool pack) {
    if (n > cols_ || m > bank_depth()) throw std::invalid_argument("queue_gemm: tile too large");
    std::uniform_int_distribution<int> byte(at.is_signed ? -128 : 0, at.is_signed ? 127 : 255);
    std::uniform_int_distribution<int> wbyte(wt.is_signed ? -128 : 0, wt.is_signed ? 127 : 255);
    const int tiles = (k + rows_ - 1) / rows_;
    for (int t = 0; t < tiles; ++t) {
      const int k0 = t * rows_;
      const int kt = std::min(rows_, k - k0);
      for (int kk = 0; kk < kt; ++kk) {
        TuWeightRow wr;
        wr.w.resize(cols_);
        for (int c = 0; c < cols_; ++c) wr.w[c] = c < n ? w[(k0 + kk) * n + c] : wbyte(rng_);
        wr.last = (kk == kt - 1);
        wr.is_signed = wt.is_signed;
        wr.zp = wt.zero_point;
        push_weight(wr);
      }
      TuCmd c;
      c.rows = m;
      c.addr = addr;
      c.accumulate = t > 0;
      c.a_signed = at.is_signed;
      c.a_zp = at.zero_point;
      push_cmd(c);
      for (int i = 0; i < m; ++i) {
        std::vector<int32_t> row(rows_);
        for (int r = 0; r < rows_; ++r) row[r] = r < kt ? a[i * k + k0 + r] : byte(rng_);
        push_act(row);
      }
    }
    TuCmd d;
    d.drain = true;
    d.rows = m;
    d.addr = addr;
    d.mode = out.mode;
    d.pack = pack;
    d.zp = out.zero_point;
    d.act_min = out.act_min;
    d.act_max = out.act_max;
    push_cmd(d);
  }

  // Decodes one output row into n values as the unit formats them: with pack, column c is byte
  // c of the row (returned as 0..255: compare with the expected value & 0xff); otherwise a
  // 32-bit lane per column.
  static std::vector<int32_t> decode(const std::vector<uint32_t>& row, int n, bool pack) {
    std::vector<int32_t> v(n);
    for (int c = 0; c < n; ++c) {
      v[c] = pack ? static_cast<int32_t>((row[c / 4] >> (8 * (c % 4))) & 0xff)
                  : static_cast<int32_t>(row[c]);
    }
    return v;
  }

 private:
  void drive_cmd(const TuCmd& c) {
    auto& d = h_.dut();
    d.cmd_op_i = c.drain ? 1 : 0;
    d.cmd_rows_i = c.rows;
    d.cmd_addr_i = c.addr;
    d.cmd_accumulate_i = c.accumulate;
    d.cmd_wreuse_i = c.wreuse;
    d.cmd_a_signed_i = c.a_signed;
    d.cmd_a_zp_i = static_cast<uint8_t>(c.a_zp);
    d.cmd_mode_i = static_cast<uint8_t>(c.mode);
    d.cmd_pack_i = c.pack;
    d.cmd_a_fmt_i = 0;  // integer operands and post-processing
    d.cmd_out_fmt_i = 0;
    d.cmd_relu_i = 0;
    d.cmd_zp_i = static_cast<uint32_t>(c.zp);
    d.cmd_act_min_i = static_cast<uint32_t>(c.act_min);
    d.cmd_act_max_i = static_cast<uint32_t>(c.act_max);
  }

  Harness<Model>& h_;
  int rows_, cols_, acc_depth_;
  std::mt19937_64 rng_;
  TuStress stress_;
  bool mode_is_onnx_ = false;
  std::deque<TuCmd> cmds_;
  std::deque<TuWeightRow> weights_;
  std::deque<std::vector<int32_t>> acts_;
  std::deque<std::vector<uint32_t>> outputs_;
  uint64_t array_rows_ = 0, first_row_cycle_ = 0, last_row_cycle_ = 0, overlap_cycles_ = 0;
};

}  // namespace weft::tb
