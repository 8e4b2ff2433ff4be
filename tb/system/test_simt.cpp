// System tests of the SIMT core through the driver (weft/simt.hpp, docs/driver.md "SIMT"), on
// every back end of backends.hpp: each kernel of the library (sw/kernels) is loaded from its ELF,
// its buffers and arguments are written into the SIMT data memory by LOAD, it is launched by
// SIMT_LAUNCH and its outputs are read back by STORE_SPAD. Outputs are compared with the
// independent references of tb/kernels/kernel_cases.hpp (the same inputs and expectations as the
// golden-model kernel tests) and, bit for bit, with the same launch on weft::golden::simt with the
// same memory contents; the SIMT_ISSUED / _ACTIVE / _BARRIERS counters must equal the golden
// model's issue statistics. Faults (illegal instruction, out-of-range store and load, step limit)
// must come back as SIMT errors with the pc / thread / tval worked out by hand (or the golden
// model's for compiled code), and the queue must run again after Queue::reset().
//
// Every launch prints "[simt] <kernel> ..." with cycles, cycles per element and IPC. Skipped when
// the RISC-V compiler was not found (the kernels were not built) or the device has no SIMT core.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends.hpp"
#include "kernel_cases.hpp"
#include "softmax_reference.hpp"
#include "weft/golden/simt.hpp"
#include "weft/regs.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"
#include "weft_kernel_args.h"

namespace {

namespace gs = weft::golden::simt;
namespace sm = weft::tb::softmax_ref;
using namespace weft::tb::kernel_cases;
using weft::Errc;
using weft::SimtShape;
using weft::tb::system::backend_name;
using weft::tb::system::backends;

const std::string kElfDir = WEFT_KERNEL_ELF_DIR;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string shape_name(const SimtShape& s) {
  return std::to_string(s.warps) + "x" + std::to_string(s.threads_per_warp);
}

template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << int64_t{got[i]} << ", expected "
                    << int64_t{want[i]};
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements differ";
}

// One kernel on the device through weft::Simt, mirrored on a golden SIMT machine of the device's
// memory sizes: every byte written to the device's data memory is written to the machine at the
// same address, and every launch runs on both.
class DeviceKernel {
 public:
  DeviceKernel(weft::Device& dev, const std::string& kernel)
      : name_(kernel),
        simt_(dev),
        gold_(gs::Config{.dmem_bytes = dev.caps().simt_dmem_bytes,
                         .imem_bytes = dev.caps().simt_imem_bytes}) {
    elf_ = read_file(kElfDir + "/" + kernel + ".elf");
    simt_.load(weft::SimtImage::from_elf(elf_));
    entry_ = gs::load_elf(gold_, elf_);
    // The writable globals (.data, .bss) are compared with the golden model's after each launch.
    for (const auto& seg : simt_.image().segments) {
      if (!seg.exec) outputs_.push_back({seg.addr, static_cast<uint32_t>(seg.bytes.size())});
    }
  }

  // Simt::reload_data() on the device, the ELF loaded again on the golden model.
  void reload_data() {
    simt_.reload_data();
    gs::load_elf(gold_, elf_);
  }
  const gs::Result& last_gold() const { return last_gold_; }

  weft::Simt& simt() { return simt_; }

  template <class T>
  uint32_t input(const std::vector<T>& v) {
    const size_t bytes = v.size() * sizeof(T);
    const uint32_t a = simt_.alloc(bytes);
    if (bytes) {
      simt_.write(a, v.data(), bytes);
      gold_.write_dmem(a, {reinterpret_cast<const uint8_t*>(v.data()), bytes});
    }
    return a;
  }
  template <class T>
  uint32_t inout(const std::vector<T>& v) {
    const uint32_t a = input(v);
    outputs_.push_back({a, static_cast<uint32_t>(v.size() * sizeof(T))});
    return a;
  }
  // An output buffer of n elements holding junk, so that an element the kernel skips is seen.
  template <class T>
  uint32_t output(size_t n, std::mt19937_64& rng) {
    std::vector<uint8_t> junk(n * sizeof(T));
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    return inout(junk);
  }
  template <class T>
  std::vector<T> read(uint32_t addr, size_t n) {
    return simt_.read<T>(addr, n);
  }

  // Launches on the device and on the golden model; compares the counters and every output
  // buffer. Prints the cycles when `elements` > 0.
  template <class Args>
  weft::SimtReport run(const Args& args, SimtShape sh, uint64_t elements = 0,
                       const std::string& what = "") {
    const uint32_t ap = simt_.put_args(args);
    gold_.write_dmem(ap, {reinterpret_cast<const uint8_t*>(&args), sizeof(Args)});
    const weft::SimtReport r = simt_.launch(sh, ap);
    const gs::Result g = gold_.run({.entry_pc = entry_,
                                    .num_warps = sh.warps,
                                    .threads_per_warp = sh.threads_per_warp,
                                    .block_id = 0,
                                    .arg_ptr = ap,
                                    .stack_top = simt_.stack_top(),
                                    .stack_size_per_thread = simt_.stack_bytes()});
    const std::string where = name_ + " on " + shape_name(sh) + what;
    last_gold_ = g;
    EXPECT_TRUE(g.ok()) << where << ": golden model " << g.error.message();
    EXPECT_EQ(r.issued, static_cast<uint32_t>(g.total_issues())) << where;
    EXPECT_EQ(r.active, static_cast<uint32_t>(g.total_active_threads())) << where;
    EXPECT_EQ(r.barriers, static_cast<uint32_t>(g.barriers)) << where;
    EXPECT_GE(r.cycles, r.issued) << where << ": at most one warp instruction per cycle";
    for (const auto& [a, n] : outputs_) {
      const std::vector<uint8_t> got = simt_.read<uint8_t>(a, n);
      const std::vector<uint8_t> want(gold_.dmem().begin() + a, gold_.dmem().begin() + a + n);
      EXPECT_TRUE(got == want) << where << ": output buffer at 0x" << std::hex << a
                               << " differs from the golden model's";
    }
    if (elements) {
      weft::tb::verbose_printf(
          "[simt] %-9s %s, %6llu elements%s: %8u cycles, %7.3f cycles/element, IPC %.3f\n",
          name_.c_str(), shape_name(sh).c_str(), static_cast<unsigned long long>(elements),
          what.c_str(), r.cycles, double(r.cycles) / double(elements), r.ipc());
    }
    return r;
  }

 private:
  std::string name_;
  weft::Simt simt_;
  gs::Machine gold_;
  std::vector<uint8_t> elf_;
  gs::Result last_gold_;
  uint32_t entry_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> outputs_;
};

class SystemSimtKernels : public weft::tb::system::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (kElfDir.empty()) {
      GTEST_SKIP() << "riscv64-unknown-elf-gcc not found at configure time (apt-get install "
                      "gcc-riscv64-unknown-elf): the SIMT kernels were not built";
    }
    ASSERT_TRUE(dev_->caps().has_simt()) << dev_->caps().to_string();
  }
  // Launch shapes: 4 x 8 (the whole default core) everywhere, two partial ones on ref://.
  std::vector<SimtShape> shapes() const {
    if (sim()) return {{4, 8}};
    return {{4, 8}, {3, 5}, {1, 1}};
  }
  // A SIMT image from hand-assembled words at address 0.
  static weft::SimtImage image(const std::vector<uint32_t>& words) {
    weft::SimtImage img;
    weft::SimtImage::Segment s;
    s.exec = true;
    s.bytes.resize(words.size() * 4);
    std::memcpy(s.bytes.data(), words.data(), s.bytes.size());
    img.end = static_cast<uint32_t>(s.bytes.size());
    img.segments.push_back(std::move(s));
    return img;
  }
  // Expects `f` to throw a SIMT error with the fault's fields; `name` is the code's name in
  // docs/simt-model.md.
  template <class F>
  void expect_fault(F&& f, gs::ErrorCode code, const char* name, uint32_t pc, uint32_t thread,
                    uint32_t tval, const std::string& what) {
    SCOPED_TRACE(what);
    try {
      f();
      ADD_FAILURE() << "no SIMT error";
    } catch (const weft::Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.code(), Errc::kSimt) << msg;
      EXPECT_EQ(e.name(), "SIMT");
      EXPECT_EQ(e.address(), uint64_t{thread} << 32 | pc) << msg;
      EXPECT_NE(msg.find(name), std::string::npos) << msg;
      char pc_s[32], thread_s[32], tval_s[32];
      std::snprintf(pc_s, sizeof pc_s, "pc 0x%08x", pc);
      std::snprintf(thread_s, sizeof thread_s, "thread %u", thread);
      std::snprintf(tval_s, sizeof tval_s, "tval 0x%08x", tval);
      EXPECT_NE(msg.find(pc_s), std::string::npos) << msg;
      EXPECT_NE(msg.find(thread_s), std::string::npos) << msg;
      EXPECT_NE(msg.find(tval_s), std::string::npos) << msg;
      const auto err = dev_->queue().error();
      ASSERT_TRUE(err.has_value());
      EXPECT_EQ(err->code, weft::ErrorCode::kSimt);
      EXPECT_EQ(err->index, e.index());
      EXPECT_EQ(dev_->read_reg(weft::regs::kSimtErrCode), static_cast<uint32_t>(code));
      EXPECT_EQ(dev_->read_reg(weft::regs::kSimtErrPc), pc);
      EXPECT_EQ(dev_->read_reg(weft::regs::kSimtErrThread), thread);
      EXPECT_EQ(dev_->read_reg(weft::regs::kSimtErrTval), tval);
      EXPECT_THROW(dev_->queue().submit(weft::Descriptor::nop()), weft::Error);
    }
  }
  // After a fault: reset, then a launch that exits on every thread works from index 0.
  void expect_recovery(weft::Simt& simt) {
    dev_->queue().reset();
    EXPECT_FALSE(dev_->queue().error().has_value());
    const std::vector<uint32_t> code = gs::rv::exit_with(7);
    simt.load(image(code));
    const uint64_t i = simt.submit_launch(simt.launch_args({4, 8}, 0));
    EXPECT_EQ(i, 2u);  // 0 and 1: the code's LOADs into the instruction and data memories
    const weft::SimtReport r = simt.wait(i);
    EXPECT_TRUE(simt.fault().ok()) << simt.fault().to_string();
    // Straight-line code: each of the 4 warps issues every instruction once, all 8 lanes active.
    EXPECT_EQ(r.issued, 4 * code.size());
    EXPECT_EQ(r.active, 32 * code.size());
  }
};

// ------------------------------------------------------------------------------------ kernels
TEST_P(SystemSimtKernels, VecaddMatchesReferenceAndGolden) {
  const uint32_t n = static_cast<uint32_t>(sim() ? rand_int(300, 600) : rand_int(1000, 2000));
  const auto a = random_int32(rng_, n), b = random_int32(rng_, n);
  const std::vector<int32_t> want = vecadd_ref(a, b);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "vecadd");
    const weft_vecadd_args args{n, k.input(a), k.input(b), k.output<int32_t>(n, rng_)};
    k.run(args, sh, n);
    expect_same(k.read<int32_t>(args.c, n), want, "vecadd " + shape_name(sh));
  }
}

TEST_P(SystemSimtKernels, SaxpyMatchesReferenceAndGolden) {
  const uint32_t n = static_cast<uint32_t>(sim() ? rand_int(300, 600) : rand_int(1000, 2000));
  const auto x = random_int32(rng_, n), y = random_int32(rng_, n);
  const int32_t alpha = static_cast<int32_t>(rng_());
  const std::vector<int32_t> want = saxpy_ref(alpha, x, y);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "saxpy");
    const weft_saxpy_args args{n, alpha, k.input(x), k.inout(y)};
    k.run(args, sh, n);
    expect_same(k.read<int32_t>(args.y, n), want, "saxpy " + shape_name(sh));
  }
}

TEST_P(SystemSimtKernels, ReluMatchesReferenceAndGolden) {
  const uint32_t n = static_cast<uint32_t>(sim() ? rand_int(1000, 2000) : rand_int(3000, 6000));
  const auto in = random_vector<int8_t>(rng_, n, kI8Min, kI8Max);
  const int32_t zp = rand_int(kI8Min, kI8Max);
  const std::vector<int8_t> want = relu_ref(in, zp);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "relu");
    const weft_relu_args args{n, zp, k.input(in), k.output<int8_t>(n, rng_)};
    k.run(args, sh, n);
    expect_same(k.read<int8_t>(args.out, n), want, "relu " + shape_name(sh));
  }
}

TEST_P(SystemSimtKernels, RequantMatchesGoldenPostprocess) {
  const RequantCase rc = requant_case(rng_, 16, sim() ? 400 : 2000, false);
  const uint32_t n = rc.n();
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "requant");
    const weft_requant_args args{n,
                                 static_cast<uint32_t>(rc.channels),
                                 k.input(rc.acc),
                                 k.output<int8_t>(n, rng_),
                                 k.input(rc.bias),
                                 k.input(rc.mult),
                                 k.input(rc.shift),
                                 rc.op.zero_point,
                                 rc.op.act_min,
                                 rc.op.act_max};
    k.run(args, sh, n, " (16 channels)");
    expect_same(k.read<int8_t>(args.out, n), rc.want, "requant " + shape_name(sh));
  }
}

TEST_P(SystemSimtKernels, MaxpoolMatchesReferenceAndGolden) {
  const uint32_t b = 1, h = sim() ? 8 : 16, w = static_cast<uint32_t>(rand_int(5, 17)), c = 16;
  const auto in = random_vector<int8_t>(rng_, b * h * w * c, kI8Min, kI8Max);
  const std::vector<int8_t> want = maxpool_ref(in, b, h, w, c);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "maxpool");
    const weft_maxpool_args args{b, h, w, c, k.input(in), k.output<int8_t>(want.size(), rng_)};
    k.run(args, sh, want.size());
    expect_same(k.read<int8_t>(args.out, want.size()), want, "maxpool " + shape_name(sh));
  }
}

TEST_P(SystemSimtKernels, TransposeMatchesReferenceAndGolden) {
  const uint32_t rows = static_cast<uint32_t>(rand_int(2, sim() ? 40 : 90));
  const uint32_t cols = static_cast<uint32_t>(rand_int(2, sim() ? 40 : 90));
  const auto in = random_vector<int8_t>(rng_, rows * cols, kI8Min, kI8Max);
  const std::vector<int8_t> want = transpose_ref(in, rows, cols);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "transpose");
    const weft_transpose_args args{rows, cols, k.input(in), k.output<int8_t>(want.size(), rng_)};
    k.run(args, sh, want.size());
    expect_same(
        k.read<int8_t>(args.out, want.size()), want,
        "transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " " + shape_name(sh));
  }
}

TEST_P(SystemSimtKernels, Im2colMatchesGoldenIm2col) {
  for (int round = 0; round < (sim() ? 1 : 3); ++round) {
    const weft::golden::Conv2dShape cs =
        im2col_shape(rng_, sim() ? 1 : round, sim() ? 3000 : 12000);
    const int32_t pad = rand_int(kI8Min, kI8Max);
    const auto in =
        random_vector<int8_t>(rng_, size_t(cs.n) * cs.h * cs.w * cs.c_in, kI8Min, kI8Max);
    const std::vector<int8_t> want = im2col_ref(in, cs, pad);
    for (const SimtShape& sh : shapes()) {
      DeviceKernel k(*dev_, "im2col");
      const uint32_t in_addr = k.input(in);
      const uint32_t out_addr = k.output<int8_t>(want.size(), rng_);
      const weft_im2col_args args = im2col_args(cs, pad, in_addr, out_addr);
      k.run(args, sh, want.size());
      std::ostringstream what;
      what << "im2col n" << cs.n << " " << cs.h << "x" << cs.w << "x" << cs.c_in << " k" << cs.kh
           << "x" << cs.kw << " s" << cs.stride_h << "x" << cs.stride_w << " " << shape_name(sh);
      expect_same(k.read<int8_t>(args.out, want.size()), want, what.str());
    }
  }
}

TEST_P(SystemSimtKernels, SoftmaxMatchesFixedPointReferenceAndGolden) {
  const sm::Params p = sm::prepare(1.0, 0.1);
  const uint32_t depth = sim() ? 40 : 100, rows = sim() ? 4 : 20;
  const std::vector<int8_t> in = softmax_logits(rng_, rows, depth);
  const std::vector<uint8_t> want = sm::softmax(in, rows, depth, p);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "softmax");
    const weft_softmax_args args{rows,
                                 depth,
                                 k.input(in),
                                 k.output<uint8_t>(in.size(), rng_),
                                 p.input_multiplier,
                                 p.input_left_shift,
                                 p.diff_min};
    k.run(args, sh, in.size(),
          " (" + std::to_string(rows) + " rows x " + std::to_string(depth) + ")");
    expect_same(k.read<uint8_t>(args.out, in.size()), want, "softmax " + shape_name(sh));
  }
}

// lut: writable globals (an initialised table in .data, a launch counter in .bss) are loaded
// after the code, shared by the threads, kept across launches and re-initialised by
// Simt::reload_data(); outputs and the globals' bytes equal the golden model's and the host model.
TEST_P(SystemSimtKernels, LutWritableGlobalsKeptAcrossLaunchesUntilReloadData) {
  const uint32_t n = sim() ? 300 : 1000;
  const std::vector<uint32_t> in = random_vector<uint32_t>(rng_, n, 0, 1 << 30);
  for (const SimtShape& sh : shapes()) {
    DeviceKernel k(*dev_, "lut");
    const weft::SimtImage& img = k.simt().image();
    ASSERT_EQ(img.segments.size(), 2u) << "lut.elf: code and writable data";
    EXPECT_FALSE(img.segments[1].exec);
    EXPECT_GE(k.simt().heap_begin(), img.end) << "buffers start after .bss";
    LutModel model;
    const weft_lut_args args{n, k.input(in), k.output<int32_t>(n, rng_)};
    for (int round = 0; round < 5; ++round) {
      if (round == 3) {
        k.reload_data();
        model = LutModel{};
      }
      const std::string what = ", launch " + std::to_string(round);
      k.run(args, sh, round == 0 ? n : 0, what);
      expect_same(k.read<int32_t>(args.out, n), model.launch(in), "lut " + shape_name(sh) + what);
    }
  }
}

// ONNX integer operators of the model runtime (maxpool2d NCHW, clamp8, transpose_nd), uint8 and
// int8, on random shapes and attributes against the ONNX-definition references.
TEST_P(SystemSimtKernels, Maxpool2dOnnxMatchesReferenceAndGolden) {
  for (const bool is_signed : {false, true}) {
    for (int round = 0; round < (sim() ? 2 : 4); ++round) {
      const MaxPool2dCase mc = maxpool2d_case(rng_, round, is_signed, sim() ? 3000 : 24000);
      const auto in = random_vector<uint8_t>(rng_, mc.in_size(), 0, 255);
      const std::vector<uint8_t> want = maxpool2d_ref(in, mc);
      for (const SimtShape& sh : shapes()) {
        DeviceKernel k(*dev_, "maxpool2d");
        const uint32_t in_addr = k.input(in);
        const uint32_t out_addr = k.output<uint8_t>(want.size(), rng_);
        k.run(maxpool2d_args(mc, in_addr, out_addr), sh, round == 0 ? want.size() : 0,
              is_signed ? " (int8 1x8x17x15, 3x3 s2 p1)" : " (uint8 1x8x17x15, 3x3 s2 p1)");
        expect_same(k.read<uint8_t>(out_addr, want.size()), want,
                    maxpool2d_name(mc) + " " + shape_name(sh));
      }
    }
  }
}

// QDQ float operators through libgcc's soft-float (qadd with broadcasting, qavgpool with
// AveragePool / GlobalAveragePool geometries), u8 / s8, against the host-float references.
TEST_P(SystemSimtKernels, QaddMatchesHostFloatAndGolden) {
  for (int round = 0; round < (sim() ? 3 : 8); ++round) {
    const QaddCase c = qadd_case(rng_, round, sim() ? 400 : 4000);
    const auto a = random_vector<uint8_t>(rng_, c.a_size(), 0, 255);
    const auto b = random_vector<uint8_t>(rng_, c.b_size(), 0, 255);
    const std::vector<uint8_t> want = qadd_ref(a, b, c);
    for (const SimtShape& sh : shapes()) {
      DeviceKernel k(*dev_, "qadd");
      const uint32_t a_addr = k.input(a), b_addr = k.input(b);
      const uint32_t y_addr = k.output<uint8_t>(want.size(), rng_);
      k.run(qadd_args(c, a_addr, b_addr, y_addr), sh, want.size(), " (" + c.pattern + ")");
      expect_same(k.read<uint8_t>(y_addr, want.size()), want, qadd_name(c) + " " + shape_name(sh));
    }
  }
}

TEST_P(SystemSimtKernels, QAvgPoolMatchesHostFloatAndGolden) {
  for (int round = 0; round < (sim() ? 3 : 8); ++round) {
    const QAvgPoolCase c = qavgpool_case(rng_, round, sim() ? 1500 : 6000);
    const auto in = random_vector<uint8_t>(rng_, c.g.in_size(), 0, 255);
    const std::vector<uint8_t> want = qavgpool_ref(in, c);
    for (const SimtShape& sh : shapes()) {
      DeviceKernel k(*dev_, "qavgpool");
      const uint32_t in_addr = k.input(in);
      const uint32_t out_addr = k.output<uint8_t>(want.size(), rng_);
      const std::string what = round == 0 ? " (1x8x17x15, 3x3 s2 p1)"
                               : round == 2 ? " (global 1x8x13x11)" : "";
      k.run(qavgpool_args(c, in_addr, out_addr), sh, what.empty() ? 0 : want.size(), what);
      expect_same(k.read<uint8_t>(out_addr, want.size()), want,
                  qavgpool_name(c) + " " + shape_name(sh));
    }
  }
}

// Each thread's exit code (Simt::exit_codes(), from the runtime's exit-code slots) equals the
// golden model's (a0 at the exit ecall) and t * mul + add; kernels returning from a void
// weft_main exit with 0.
TEST_P(SystemSimtKernels, ExitCodesOfEveryThreadAreReadBack) {
  for (const SimtShape& sh : shapes()) {
    const uint32_t threads = sh.warps * sh.threads_per_warp;
    DeviceKernel k(*dev_, "exit_codes");
    for (const auto& [mul, add] : {std::pair{3u, 1u}, std::pair{0x9E3779B9u, 0xFFFFFFF0u}}) {
      k.run(weft_exit_codes_args{mul, add}, sh);
      const std::vector<uint32_t> got = k.simt().exit_codes();
      const std::vector<uint32_t> want = exit_codes_ref(threads, mul, add);
      expect_same(got, want, "exit codes on " + shape_name(sh));
      ASSERT_EQ(k.last_gold().threads.size(), threads);
      for (uint32_t t = 0; t < threads; ++t) {
        EXPECT_EQ(got[t], k.last_gold().threads[t].exit_code) << "thread " << t;
      }
    }
  }
  DeviceKernel v(*dev_, "vecadd");
  EXPECT_TRUE(v.simt().exit_codes().empty()) << "no launch yet";
  const std::vector<int32_t> a = random_int32(rng_, 40);
  v.run(weft_vecadd_args{40, v.input(a), v.input(a), v.output<int32_t>(40, rng_)}, {4, 8});
  expect_same(v.simt().exit_codes(), std::vector<uint32_t>(32, 0), "vecadd exit codes");
}

// A hand-made image whose writable segment starts inside the code's last line: both are written
// whole (no LOAD clears the other's bytes), a launch reads the data, and Simt::exit_codes()
// reads what the code stores in the exit-code slots ([sp - 4] at entry).
TEST_P(SystemSimtKernels, SegmentsSharingALineAreBothLoaded) {
  namespace rv = gs::rv;
  weft::Simt simt(*dev_);
  const std::vector<uint32_t> code = {rv::lw(rv::a0, rv::zero, 24), rv::sw(rv::a0, rv::sp, -4),
                                      rv::addi(rv::a7, rv::zero, 93), rv::ecall(), rv::nop(),
                                      rv::nop()};
  weft::SimtImage img = image(code);  // [0, 24)
  weft::SimtImage::Segment data;
  data.addr = 24;
  data.bytes = {0x78, 0x56, 0x34, 0x12, 0xf0, 0xde, 0xbc, 0x9a};
  img.segments.push_back(data);
  img.end = 32;
  simt.load(img);
  std::vector<uint8_t> want(32);
  std::memcpy(want.data(), code.data(), 24);
  std::memcpy(want.data() + 24, data.bytes.data(), 8);
  expect_same(simt.read<uint8_t>(0, 32), want, "data memory [0, 32)");
  simt.launch({4, 8}, 0);
  expect_same(simt.exit_codes(), std::vector<uint32_t>(32, 0x12345678u), "exit codes");
  // The data changes (the line holds code bytes, then junk); reload_data() restores it.
  std::vector<uint8_t> line(want.begin() + 16, want.end());
  for (size_t i = 8; i < 16; ++i) line[i] = static_cast<uint8_t>(0xa5 + i);
  simt.write(16, line.data(), line.size());
  expect_same(simt.read<uint8_t>(16, 16), line, "changed data");
  EXPECT_GT(simt.reload_data(), 0u);
  expect_same(simt.read<uint8_t>(0, 32), want, "after reload_data");
}

TEST_P(SystemSimtKernels, Clamp8MatchesReferenceAndGolden) {
  const uint32_t n = static_cast<uint32_t>(sim() ? rand_int(500, 1500) : rand_int(3000, 6000));
  const auto in = random_vector<uint8_t>(rng_, n, 0, 255);
  for (const bool is_signed : {false, true}) {
    const int32_t tmin = is_signed ? -128 : 0, tmax = is_signed ? 127 : 255;
    int32_t lo = rand_int(tmin, tmax), hi = rand_int(tmin, tmax);
    if (lo > hi) std::swap(lo, hi);
    const std::vector<uint8_t> want = clamp8_ref(in, is_signed, lo, hi);
    for (const SimtShape& sh : shapes()) {
      DeviceKernel k(*dev_, "clamp8");
      const weft_clamp8_args args{n, is_signed ? 1u : 0u, lo, hi, k.input(in),
                                  k.output<uint8_t>(n, rng_)};
      k.run(args, sh, n, is_signed ? " (int8)" : " (uint8)");
      std::ostringstream what;
      what << "clamp8 " << (is_signed ? "int8" : "uint8") << " [" << lo << ", " << hi << "] "
           << shape_name(sh);
      expect_same(k.read<uint8_t>(args.out, n), want, what.str());
    }
  }
}

TEST_P(SystemSimtKernels, TransposeNdMatchesReferenceAndGolden) {
  for (int round = 0; round < (sim() ? 2 : 4); ++round) {
    const TransposeNdCase tc = transpose_nd_case(rng_, round, sim() ? 1500 : 6000);
    const auto in = random_vector<uint8_t>(rng_, tc.size(), 0, 255);
    const std::vector<uint8_t> want = transpose_nd_ref(in, tc.dims, tc.perm);
    for (const SimtShape& sh : shapes()) {
      DeviceKernel k(*dev_, "transpose_nd");
      const uint32_t in_addr = k.input(in);
      const uint32_t out_addr = k.output<uint8_t>(want.size(), rng_);
      k.run(transpose_nd_args(tc, in_addr, out_addr), sh, round == 0 ? want.size() : 0,
            " (1x16x9x11 NCHW->NHWC)");
      expect_same(k.read<uint8_t>(out_addr, want.size()), want,
                  transpose_nd_name(tc) + " " + shape_name(sh));
    }
  }
}

// Launches chained without waiting: each one's input is the previous one's output, and buffers
// are rewritten between launches, so a missing dependency (LOAD before launch, launch before
// STORE_SPAD, LOAD after the launch that reads its lines) gives wrong results (most visibly on
// ref://?sched=random, where engines run in random order).
TEST_P(SystemSimtKernels, ChainedLaunchesFollowTheirDependencies) {
  DeviceKernel k(*dev_, "vecadd");
  weft::Simt& simt = k.simt();
  const uint32_t n = 200;
  std::vector<int32_t> acc = random_int32(rng_, n);
  const uint32_t buf_a = k.input(acc), buf_b = simt.alloc(n * 4), buf_c = simt.alloc(n * 4);
  const uint32_t args_addr = simt.alloc(sizeof(weft_vecadd_args));
  std::vector<uint32_t> outs;
  const int steps = sim() ? 3 : 6;
  for (int s = 0; s < steps; ++s) {
    // c = a + b or a = c + b, alternately; b is rewritten before every launch.
    const auto b = random_int32(rng_, n);
    simt.write(buf_b, b.data(), n * 4);
    const bool even = s % 2 == 0;
    const weft_vecadd_args args{n, even ? buf_a : buf_c, buf_b, even ? buf_c : buf_a};
    simt.write(args_addr, &args, sizeof args);
    simt.submit_launch(simt.launch_args({4, 8}, args_addr));
    acc = vecadd_ref(acc, b);
    outs.push_back(args.c);
  }
  expect_same(simt.read<int32_t>(outs.back(), n), acc, "after the chain");
}

// ------------------------------------------------------------------------------------ faults
TEST_P(SystemSimtKernels, IllegalInstructionIsReportedWithPcThreadAndTvalThenResetRecovers) {
  namespace rv = gs::rv;
  weft::Simt simt(*dev_);
  // Thread 13 reaches the word 0xffffffff (opcode 0x7f: illegal) at pc 12; the others exit.
  rv::Program p;
  p << rv::csrr(rv::t0, gs::kCsrThreadId) << rv::addi(rv::t1, rv::zero, 13);
  p.branch(rv::bne, rv::t0, rv::t1, "ok");
  p << 0xffffffffu;
  p.label("ok") << rv::exit_with(0);
  simt.load(image(p.words()));
  expect_fault(
      [&] {
        simt.launch({4, 8}, 0);
      },
      gs::ErrorCode::IllegalInstruction, "IllegalInstruction", 12, 13, 0xffffffffu,
      "illegal instruction");
  const weft::SimtFault f = simt.fault();
  EXPECT_EQ(f.code, 1u);
  EXPECT_EQ(f.name(), "IllegalInstruction");
  expect_recovery(simt);
}

TEST_P(SystemSimtKernels, OutOfRangeStoreIsReportedWithTheAddressThenResetRecovers) {
  namespace rv = gs::rv;
  weft::Simt simt(*dev_);
  const uint32_t end = dev_->caps().simt_dmem_bytes;
  // Thread 5 stores a word at the first address past the data memory (pc of the sw: 4 words
  // of setup, then li's words).
  rv::Program p;
  p << rv::csrr(rv::t0, gs::kCsrThreadId) << rv::addi(rv::t1, rv::zero, 5);
  p.branch(rv::bne, rv::t0, rv::t1, "ok");
  p << rv::li(rv::t2, end);
  const uint32_t store_pc = p.pc();
  p << rv::sw(rv::t0, rv::t2, 0);
  p.label("ok") << rv::exit_with(0);
  simt.load(image(p.words()));
  expect_fault(
      [&] {
        simt.launch({4, 8}, 0);
      },
      gs::ErrorCode::StoreOutOfRange, "StoreOutOfRange", store_pc, 5, end,
      "store past the data memory");
  expect_recovery(simt);
}

// A compiled kernel with a bad pointer: vecadd over 32 elements whose `a` ends 4 bytes past the
// data memory, so only thread 31 loads outside it. pc from the golden model, the rest by hand.
TEST_P(SystemSimtKernels, CompiledKernelOutOfRangeLoadIsReported) {
  const std::vector<uint8_t> elf = read_file(kElfDir + "/vecadd.elf");
  gs::Machine gold(gs::Config{.dmem_bytes = dev_->caps().simt_dmem_bytes,
                              .imem_bytes = dev_->caps().simt_imem_bytes});
  const uint32_t entry = gs::load_elf(gold, elf);
  weft::Simt simt(*dev_);
  simt.load(weft::SimtImage::from_elf(elf));
  const uint32_t end = dev_->caps().simt_dmem_bytes;
  const uint32_t out = simt.alloc(128);
  const weft_vecadd_args args{32, end - 31 * 4, out, out};
  const uint32_t ap = simt.put_args(args);
  gold.write_dmem(ap, {reinterpret_cast<const uint8_t*>(&args), sizeof args});
  const gs::Result g = gold.run({.entry_pc = entry,
                                 .num_warps = 4,
                                 .threads_per_warp = 8,
                                 .arg_ptr = ap,
                                 .stack_top = simt.stack_top(),
                                 .stack_size_per_thread = simt.stack_bytes()});
  ASSERT_EQ(g.error.code, gs::ErrorCode::LoadOutOfRange) << g.error.message();
  ASSERT_EQ(g.error.thread, 31u);
  ASSERT_EQ(g.error.tval, end);
  expect_fault(
      [&] {
        simt.launch({4, 8}, ap);
      },
      gs::ErrorCode::LoadOutOfRange, "LoadOutOfRange", g.error.pc, 31, end,
      "vecadd reading past the data memory");
  expect_recovery(simt);
}

TEST_P(SystemSimtKernels, MaxIssuesStopsAHungKernelWithStepLimit) {
  namespace rv = gs::rv;
  weft::Simt simt(*dev_);
  rv::Program p;
  p.label("spin");
  p.jal(rv::zero, "spin");
  simt.load(image(p.words()));
  try {
    simt.launch({2, 4}, 0, 0, /*max_issues=*/500);
    ADD_FAILURE() << "no SIMT error";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kSimt) << e.what();
    EXPECT_NE(std::string(e.what()).find("StepLimit"), std::string::npos) << e.what();
  }
  EXPECT_EQ(simt.fault().code, static_cast<uint32_t>(gs::ErrorCode::StepLimit));
  expect_recovery(simt);
}

// ------------------------------------------------------------------------------------ driver API
TEST_P(SystemSimtKernels, CapabilitiesAndImageChecks) {
  const auto& c = dev_->caps();
  EXPECT_EQ(c.simt_warps, 4u);
  EXPECT_EQ(c.simt_threads, 8u);
  EXPECT_EQ(c.simt_dmem_bytes, 256u * 1024);
  EXPECT_EQ(c.simt_imem_bytes, 16u * 1024);
  EXPECT_EQ(c.simt_dmem_banks, 8u);
  EXPECT_NE(c.to_string().find("SIMT core 4 warps x 8 threads"), std::string::npos)
      << c.to_string();
  // Not an ELF, a truncated one, and an image larger than the instruction memory.
  EXPECT_THROW(weft::SimtImage::from_elf(std::vector<uint8_t>(64, 0)), weft::Error);
  const std::vector<uint8_t> elf = read_file(kElfDir + "/vecadd.elf");
  EXPECT_THROW(weft::SimtImage::from_elf(std::span(elf).first(60)), weft::Error);
  weft::Simt simt(*dev_);
  try {
    simt.load(image(std::vector<uint32_t>(c.simt_imem_bytes / 4 + 4, gs::rv::nop())));
    ADD_FAILURE() << "an image larger than the instruction memory loaded";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kBadArgument) << e.what();
  }
  // The heap runs out before the stacks.
  EXPECT_THROW(simt.alloc(c.simt_dmem_bytes), weft::Error);
  // A launch outside the stack ABI is refused by the driver.
  weft::SimtLaunch l = simt.launch_args({4, 8}, 0);
  l.stack_size = 8;
  EXPECT_THROW(simt.submit_launch(l), weft::Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, SystemSimtKernels, ::testing::ValuesIn(backends()), backend_name);

// A device without a SIMT core (ref://?simt=none): CAP3 = 0, Simt refuses, SIMT_LAUNCH is an
// unknown opcode and the SIMT line regions do not exist.
TEST(SimtAbsent, DeviceWithoutSimtCore) {
  weft::Device dev = weft::Device::open("ref://?simt=none");
  EXPECT_FALSE(dev.caps().has_simt());
  EXPECT_EQ(dev.read_reg(weft::regs::kCap3), 0u);
  try {
    weft::Simt simt(dev);
    ADD_FAILURE() << "Simt on a device without a SIMT core";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kUnsupported) << e.what();
  }
  auto& q = dev.queue();
  try {
    q.wait(q.submit(weft::Descriptor::simt_launch({.num_warps = 1, .threads_per_warp = 1})));
    ADD_FAILURE() << "SIMT_LAUNCH ran";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kOpcode) << e.what();
  }
  q.reset();
  weft::Buffer b = dev.alloc(16);
  try {
    q.wait(q.submit(weft::Descriptor::load({.host_addr = b.device_address(),
                                            .row_bytes = 16,
                                            .rows = 1,
                                            .spad_addr = weft::kSimtDmemLine})));
    ADD_FAILURE() << "LOAD into a missing data memory ran";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kSpadRange) << e.what();
  }
}

}  // namespace
