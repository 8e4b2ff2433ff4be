// The weft command-line tool as a user runs it: the built executable (WEFT_EXE) is started with
// posix_spawn, its exit status, stdout and stderr captured. Exit codes are asserted exactly
// (0 success, 1 mismatch, 2 bad command line or argument, 3 device error or timeout), messages by
// a phrase; results (--out .npy) against weft::golden computed here. Runs on sim:// (the default
// device, the Verilated RTL) with small shapes, and on ref://.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "npy.hpp"
#include "weft/golden/fp.hpp"
#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"
#include "weft/tb/process.hpp"
#include "weft/weft.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Outcome {
  int code = -1;  // exit status; -1: killed (timeout) or no status
  std::string out, err;
  double seconds = 0;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

fs::path scratch_dir() {
  const fs::path d = fs::path(testing::TempDir()) /
                     ("weft_cli_" + std::to_string(getpid()) + "_" +
                      testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(d);
  return d;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> r;
  for (auto& s : v) r.push_back(s.data());
  r.push_back(nullptr);
  return r;
}

// Runs `exe args...` (weft/tb/process.hpp) with `env` applied; kills it after `timeout_s`.
Outcome run_exe(const std::string& exe, std::vector<std::string> args,
                const weft::tb::EnvChanges& env = {}, double timeout_s = 60) {
  args.insert(args.begin(), exe);
  const auto t0 = Clock::now();
  const weft::tb::ProcessResult p = weft::tb::run_process(args, timeout_s, env);
  Outcome r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (p.timed_out) ADD_FAILURE() << exe << " still running after " << timeout_s << " s: killed";
  r.code = p.timed_out || p.signal ? -1 : p.exit_code;
  r.out = p.out;
  r.err = p.err;
  return r;
}

Outcome weft(std::vector<std::string> args, const std::map<std::string, std::string>& env = {}) {
  return run_exe(WEFT_EXE, std::move(args), env);
}

std::string show(const Outcome& r) {
  return "exit " + std::to_string(r.code) + ", " + std::to_string(r.seconds) + " s\n--- stdout\n" +
         r.out + "--- stderr\n" + r.err;
}

bool has(const std::string& s, const std::string& phrase) {
  return s.find(phrase) != std::string::npos;
}

#define EXPECT_RUN(r, code_, stream, phrase)                                               \
  do {                                                                                     \
    EXPECT_EQ((r).code, code_) << show(r);                                                 \
    EXPECT_TRUE(has((r).stream, phrase)) << "missing \"" << (phrase) << "\"\n" << show(r); \
  } while (0)

// The device's SIMT shape limits (CAP3), read through the driver (not through the tool).
weft::Capabilities caps_of(const std::string& uri) { return weft::Device::open(uri).caps(); }

// ------------------------------------------------------------------ exit codes and usage errors

TEST(CliUsage, HelpExitsZeroAndDocumentsTheExitCodes) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"gemm", "--help"}, {"conv2d", "--help"}, {"simt", "-h"}}) {
    const Outcome r = weft(args);
    EXPECT_RUN(r, 0, out, "Exit status: 0 success; 1 the result differs from the golden model");
    EXPECT_TRUE(has(r.out, "2 bad command line or argument")) << show(r);
    EXPECT_TRUE(has(r.out, "3 device error or timeout")) << show(r);
    EXPECT_EQ(r.err, "");
  }
  const Outcome r = weft({"--help"});
  for (const char* c : {"info", "gemm", "conv2d", "simt"}) EXPECT_TRUE(has(r.out, c)) << c;
}

TEST(CliUsage, UnknownCommandIsNamedWithTheCommands) {
  const Outcome r = weft({"frobnicate"});
  EXPECT_RUN(r, 2, err, "unknown command 'frobnicate'");
  EXPECT_TRUE(has(r.err, "info, gemm, conv2d, simt")) << show(r);
  EXPECT_FALSE(has(r.err, "A subcommand is required")) << show(r);
  EXPECT_RUN(weft({}), 2, err, "give a command: info, gemm, conv2d, simt");
  EXPECT_RUN(weft({"--device", "ref://", "gemm", "4", "4", "4"}), 2, err,
             "--device before the command: options go after it");
  EXPECT_RUN(weft({"help", "gemm"}), 0, out, "--unsigned-a");
  const Outcome o = weft({"gemm", "4", "4", "4", "--out", "/nonexistent/dir/c.npy"});
  EXPECT_RUN(o, 2, err, "--out /nonexistent/dir/c.npy: the directory /nonexistent/dir does not");
  EXPECT_FALSE(has(o.out, "device")) << "refused before the device is opened\n" << show(o);
}

TEST(CliUsage, EveryParseErrorExitsTwoWithCli11sMessage) {
  // CLI11's own codes would be 104..109; the tool maps each to 2 and keeps the message.
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--frob"}), 2, err, "not expected: --frob");
  EXPECT_RUN(weft({"gemm", "x", "4", "4"}), 2, err, "x");
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--mode", "bogus"}), 2, err, "bogus not in");
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--seed"}), 2, err, "--seed");
  EXPECT_RUN(weft({"simt"}), 2, err, "KERNEL is required");
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "5"}), 2, err, "not expected");
  EXPECT_RUN(weft({"gemm", "4", "4"}), 2, err, "give all three sizes M N K");
}

TEST(CliUsage, ConflictingOptionsAreRefused) {
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--mode", "onnx", "--int32", "-d", "ref://"}), 2, err,
             "--int32 conflicts with --mode onnx");
  EXPECT_RUN(weft({"conv2d", "--height", "4", "--width", "4", "--channels", "2", "--out-channels",
                   "2", "--mode", "tflite-single", "--int32", "-d", "ref://"}),
             2, err, "--int32 conflicts with --mode tflite-single");
  // --mode int32 --int32 say the same thing: accepted.
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--mode", "int32", "--int32", "-d", "ref://", "--check"}),
             0, out, "mode=int32");
}

TEST(CliUsage, SizesOutOfRangeAreRefused) {
  EXPECT_RUN(weft({"gemm", "0", "4", "4"}), 2, err, "M, N and K must be in 1..2147483647");
  EXPECT_RUN(weft({"gemm", "4", "-3", "4"}), 2, err, "M, N and K must be in 1..2147483647");
  EXPECT_RUN(weft({"gemm", "4", "4", "2000000", "-d", "ref://"}), 2, err,
             "above the driver's limit K <= 2^20");
  EXPECT_RUN(
      weft({"conv2d", "--height", "0", "--width", "4", "--channels", "1", "--out-channels", "1"}),
      2, err, "--height must be in 1..2147483647");
  EXPECT_RUN(weft({"conv2d", "--height", "2", "--width", "2", "--channels", "1", "--out-channels",
                   "1", "--kernel", "3"}),
             2, err, "the filter is larger than the padded input");
  EXPECT_RUN(weft({"conv2d", "--width", "2", "--channels", "1", "--out-channels", "1"}), 2, err,
             "give the input's shape");
  EXPECT_RUN(weft({"conv2d", "--height", "4", "--width", "4", "--channels", "1", "--out-channels",
                   "1", "--pad", "1,2"}),
             2, err, "expected P, TOP,LEFT,BOTTOM,RIGHT, same or valid");
  EXPECT_RUN(weft({"conv2d", "--height", "4", "--width", "4", "--channels", "1", "--out-channels",
                   "1", "--stride", "0"}),
             2, err, "strides must be >= 1");
  EXPECT_RUN(weft({"conv2d", "--height", "4", "--width", "4", "--channels", "1", "--out-channels",
                   "1", "--kernel", "3x3"}),
             2, err, "--kernel 3x3: expected N or N,M");
  EXPECT_RUN(weft({"conv2d", "--height", "4", "--width", "4", "--channels", "1", "--out-channels",
                   "1", "--stride", "2,"}),
             2, err, "--stride 2,: expected N or N,M");
  EXPECT_RUN(weft({"conv2d", "--height", "4", "--width", "4", "--channels", "1", "--out-channels",
                   "1", "--pad", "1,1,1,-1"}),
             2, err, "paddings must be >= 0");
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--scale", "-1", "-d", "ref://"}), 2, err,
             "--scale must be a number > 0");
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--a-zero-point", "200", "-d", "ref://"}), 2, err,
             "A zero point 200 is outside the int8 range");
  EXPECT_RUN(weft({"info", "--device", "sim://?array=3x3"}), 2, err, "BAD_URI");
  EXPECT_RUN(weft({"gemm", "4", "4", "4", "--device", "nosuch://"}), 2, err,
             "unknown scheme 'nosuch://'");
}

TEST(CliUsage, SimtLaunchShapeIsCheckedAgainstCap3) {
  const weft::Capabilities c = caps_of("sim://");
  ASSERT_TRUE(c.has_simt());
  const std::string warps = "1.." + std::to_string(c.simt_warps);
  const std::string threads = "1.." + std::to_string(c.simt_threads);
  for (const std::string dev : {"sim://", "ref://"}) {
    SCOPED_TRACE(dev);
    Outcome r = weft({"simt", "vecadd", "--n", "64", "--threads", "0", "-d", dev});
    EXPECT_RUN(r, 2, err, "--threads 0 is out of range");
    EXPECT_TRUE(has(r.err, "give " + threads)) << show(r);
    r = weft(
        {"simt", "vecadd", "--n", "64", "--warps", std::to_string(c.simt_warps + 5), "-d", dev});
    EXPECT_RUN(r, 2, err, "--warps " + std::to_string(c.simt_warps + 5) + " is out of range");
    EXPECT_TRUE(has(r.err, "give " + warps)) << show(r);
    EXPECT_FALSE(has(r.err, "Queue::reset")) << "library advice to a tool user\n" << show(r);
    r = weft({"simt", "vecadd", "--n", "64", "--threads", "-1", "-d", dev});
    EXPECT_RUN(r, 2, err, "--threads -1 is out of range");
  }
  EXPECT_RUN(weft({"simt", "vecadd", "-d", "ref://?simt=none"}), 2, err, "no SIMT core");
  EXPECT_RUN(weft({"simt", "gemv"}), 2, err,
             "unknown kernel 'gemv' (vecadd, saxpy, relu, requant, maxpool, transpose, im2col, "
             "softmax)");
  EXPECT_RUN(weft({"simt", "vecadd", "--n", "0"}), 2, err, "--n must be in 1..1048576");
  Outcome r = weft({"simt", "vecadd", "--n", "100000", "-d", "ref://"});
  EXPECT_RUN(r, 2, err, "of the SIMT data memory");
  // The suggested --n fits; one more does not.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("use --n (\\d+) or less"))) << show(r);
  const std::string n = m[1];
  EXPECT_RUN(weft({"simt", "vecadd", "--n", n, "-d", "ref://", "--check"}), 0, out,
             "passed, bit-exact");
  EXPECT_RUN(weft({"simt", "vecadd", "--n", std::to_string(std::stoull(n) + 1), "-d", "ref://"}), 2,
             err, "of the SIMT data memory");
}

// ------------------------------------------------------------------ runs on the RTL (default)

TEST(CliRun, GemmChecksOnTheRtlByDefault) {
  Outcome r = weft({"gemm", "37", "45", "70", "--seed", "3", "--check", "-q"});
  EXPECT_RUN(r, 0, out, "check    passed, bit-exact (0 of 1665 elements differ");
  EXPECT_EQ(r.out.rfind("device   sim://", 0), 0u) << "first line names the back end\n" << show(r);
  EXPECT_TRUE(has(r.out, "Verilated weft_top")) << show(r);
  EXPECT_TRUE(has(r.out, "result   ")) << show(r);
  EXPECT_TRUE(has(r.out, "% array utilisation")) << show(r);
  EXPECT_FALSE(has(r.out, "estimate")) << show(r);
  EXPECT_FALSE(has(r.out, "schedule")) << "the full report only with --perf\n" << show(r);
  r = weft({"gemm", "20", "17", "300", "--int32", "--unsigned-a", "--check", "--perf", "-q"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  EXPECT_TRUE(has(r.out, "schedule M=20 N=17 K=300")) << show(r);
  EXPECT_TRUE(has(r.out, "MACs")) << show(r);
  r = weft({"gemm", "50", "33", "40", "--mode", "onnx", "--unsigned-w", "--check", "-q"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
}

TEST(CliRun, RefFiguresAreMarkedAsEstimates) {
  Outcome r = weft({"gemm", "37", "45", "70", "--check", "-d", "ref://", "--perf"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  EXPECT_EQ(r.out.rfind("device   ref://", 0), 0u) << show(r);
  EXPECT_TRUE(has(r.out, "cycles (ref:// cost-model estimate, not RTL)")) << show(r);
  EXPECT_TRUE(has(r.out, "perf (ref:// cost-model estimate, not RTL)")) << show(r);
  r = weft({"simt", "vecadd", "--n", "100", "-d", "ref://"});
  EXPECT_RUN(r, 0, out, "SIMT cycles (ref:// cost-model estimate, not RTL)");
}

TEST(CliRun, Conv2dChecksOnTheRtl) {
  Outcome r = weft({"conv2d", "--height", "9", "--width", "7", "--channels", "5", "--out-channels",
                    "20", "--kernel", "3", "--stride", "2", "--pad", "1", "--check", "-q"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  EXPECT_EQ(r.out.rfind("device   sim://", 0), 0u) << show(r);
  EXPECT_TRUE(has(r.out, "output   1x5x4x20 (NHWC), as gemm M=20 N=20 K=45")) << show(r);
  r = weft({"conv2d",  "--batch",  "2",          "--height", "6",
            "--width", "5",        "--channels", "3",        "--out-channels",
            "4",       "--kernel", "3,2",        "--stride", "1,2",
            "--pad",   "same",     "--mode",     "onnx",     "--unsigned-input",
            "--check", "-q",       "--perf"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  // SAME: output ceil(6/1) x ceil(5/2) = 6 x 3.
  EXPECT_TRUE(has(r.out, "output   2x6x3x4")) << show(r);
  EXPECT_TRUE(has(r.out, "schedule")) << show(r);
  r = weft({"conv2d", "--height", "5", "--width", "5", "--channels", "2", "--out-channels", "3",
            "--pad", "0,1,2,0", "--int32", "--check", "-d", "ref://?sched=random"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
}

TEST(CliRun, DeviceTimeoutExitsThree) {
  const Outcome r = weft({"gemm", "64", "64", "64", "-q", "-d", "sim://?timeout=50"});
  EXPECT_RUN(r, 3, err, "TIMEOUT");
}

// ------------------------------------------------------------------ .npy operands and results

std::vector<uint8_t> random_bytes(size_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

std::vector<int32_t> widen(const std::vector<uint8_t>& b, bool is_signed) {
  std::vector<int32_t> v(b.size());
  for (size_t i = 0; i < b.size(); ++i) v[i] = is_signed ? int8_t(b[i]) : b[i];
  return v;
}

TEST(CliNpy, GemmFromFilesToFileMatchesTheGoldenModel) {
  std::mt19937_64 rng = weft::tb::make_rng();
  const fs::path d = scratch_dir();
  const int M = 1 + int(rng() % 40), N = 1 + int(rng() % 40), K = 1 + int(rng() % 90);
  const auto a = random_bytes(size_t(M) * K, rng), w = random_bytes(size_t(K) * N, rng);
  std::vector<int32_t> bias(N);
  for (auto& b : bias) b = static_cast<int32_t>(rng() % 200001) - 100000;
  weft::npy::write((d / "a.npy").string(),
                   weft::npy::from_int8(a, {uint64_t(M), uint64_t(K)}, true));
  weft::npy::write((d / "w.npy").string(),
                   weft::npy::from_int8(w, {uint64_t(K), uint64_t(N)}, false));
  weft::npy::write((d / "b.npy").string(), weft::npy::from_int32(bias, {uint64_t(N)}));
  const auto acc =
      weft::golden::gemm(widen(a, true), widen(w, false), M, K, N, {true, 0}, {false, 128});
  // INT32 out: acc + bias.
  {
    const Outcome r =
        weft({"gemm", "--a", (d / "a.npy").string(), "--w", (d / "w.npy").string(), "--bias",
              (d / "b.npy").string(), "--int32", "--out", (d / "c32.npy").string(), "-q"});
    ASSERT_EQ(r.code, 0) << show(r);
    EXPECT_TRUE(has(r.out, "gemm     M=" + std::to_string(M) + " N=" + std::to_string(N) +
                               " K=" + std::to_string(K)))
        << show(r);
    const weft::npy::Array c = weft::npy::read((d / "c32.npy").string());
    ASSERT_EQ(c.dtype, weft::npy::Dtype::kInt32);
    ASSERT_EQ(c.shape, (std::vector<uint64_t>{uint64_t(M), uint64_t(N)}));
    for (size_t i = 0; i < acc.size(); ++i) {
      ASSERT_EQ(c.at(i), int32_t(uint32_t(acc[i]) + uint32_t(bias[i % N]))) << i;
    }
  }
  // 8-bit out at a given scale: the golden model's TFLite double rounding.
  {
    const double scale = 0.0007;
    const Outcome r = weft({"gemm", std::to_string(M), std::to_string(N), std::to_string(K), "--a",
                            (d / "a.npy").string(), "--w", (d / "w.npy").string(), "--bias",
                            (d / "b.npy").string(), "--scale", "0.0007", "--out",
                            (d / "c8.npy").string(), "-q", "--check"});
    ASSERT_EQ(r.code, 0) << show(r);
    int32_t mult;
    int shift;
    weft::golden::quantize_multiplier(scale, &mult, &shift);
    std::vector<weft::golden::ChannelParams> ch(N);
    for (int i = 0; i < N; ++i) ch[i] = {bias[i], mult, shift, float(scale)};
    const auto want = weft::golden::postprocess(
        acc, M, N, ch, {weft::golden::RequantMode::kTfliteDouble, 0, -128, 127});
    const weft::npy::Array c = weft::npy::read((d / "c8.npy").string());
    ASSERT_EQ(c.dtype, weft::npy::Dtype::kInt8);
    ASSERT_EQ(c.shape, (std::vector<uint64_t>{uint64_t(M), uint64_t(N)}));
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(c.at(i), want[i]) << i;
  }
}

TEST(CliNpy, Conv2dFromFilesToFileMatchesTheGoldenConv2d) {
  std::mt19937_64 rng = weft::tb::make_rng();
  const fs::path d = scratch_dir();
  weft::golden::Conv2dShape s;
  s.n = 1 + int(rng() % 2), s.h = 3 + int(rng() % 6), s.w = 3 + int(rng() % 6);
  s.c_in = 1 + int(rng() % 6), s.c_out = 1 + int(rng() % 20);
  s.kh = 1 + int(rng() % 3), s.kw = 1 + int(rng() % 3);
  s.stride_h = 1 + int(rng() % 2), s.stride_w = 1 + int(rng() % 2);
  s.pad_top = int(rng() % 2), s.pad_left = int(rng() % 2), s.pad_bottom = int(rng() % 2),
  s.pad_right = int(rng() % 2);
  const auto x = random_bytes(size_t(s.n) * s.h * s.w * s.c_in, rng);
  const auto f = random_bytes(size_t(s.c_out) * s.kh * s.kw * s.c_in, rng);
  weft::npy::write((d / "x.npy").string(),
                   weft::npy::from_int8(
                       x, {uint64_t(s.n), uint64_t(s.h), uint64_t(s.w), uint64_t(s.c_in)}, false));
  weft::npy::write(
      (d / "f.npy").string(),
      weft::npy::from_int8(f, {uint64_t(s.c_out), uint64_t(s.kh), uint64_t(s.kw), uint64_t(s.c_in)},
                           true));
  const std::string pad = std::to_string(s.pad_top) + "," + std::to_string(s.pad_left) + "," +
                          std::to_string(s.pad_bottom) + "," + std::to_string(s.pad_right);
  const std::string stride = std::to_string(s.stride_h) + "," + std::to_string(s.stride_w);
  const Outcome r =
      weft({"conv2d", "--input", (d / "x.npy").string(), "--filter", (d / "f.npy").string(),
            "--stride", stride, "--pad", pad, "--int32", "--out", (d / "y.npy").string(), "-q"});
  ASSERT_EQ(r.code, 0) << show(r);
  // uint8 input (zero point 128), int8 filter, no bias (operands from files).
  const auto want =
      weft::golden::conv2d(widen(x, false), widen(f, true), s, {false, 128}, {true, 0});
  const weft::npy::Array y = weft::npy::read((d / "y.npy").string());
  ASSERT_EQ(y.dtype, weft::npy::Dtype::kInt32);
  ASSERT_EQ(y.shape, (std::vector<uint64_t>{uint64_t(s.n), uint64_t(s.out_h()), uint64_t(s.out_w()),
                                            uint64_t(s.c_out)}));
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(y.at(i), want[i]) << i;
}

TEST(CliNpy, FilesThatDoNotFitAreRefusedWithTheReason) {
  const fs::path d = scratch_dir();
  const std::string a = (d / "a.npy").string(), w = (d / "w.npy").string();
  weft::npy::write(a, weft::npy::from_int8(std::vector<uint8_t>(4 * 7), {4, 7}, true));
  weft::npy::write(w, weft::npy::from_int8(std::vector<uint8_t>(7 * 3), {7, 3}, true));
  EXPECT_RUN(weft({"gemm", "5", "3", "7", "--a", a, "-d", "ref://"}), 2, err,
             "M = 5 on the command line, but --a " + a + " gives M = 4");
  EXPECT_RUN(weft({"gemm", "4", "3", "6", "--a", a, "-d", "ref://"}), 2, err,
             "K = 6 on the command line, but --a " + a + " gives K = 7");
  const std::string w2 = (d / "w2.npy").string();
  weft::npy::write(w2, weft::npy::from_int8(std::vector<uint8_t>(6 * 3), {6, 3}, true));
  EXPECT_RUN(weft({"gemm", "--a", a, "--w", w2, "-d", "ref://"}), 2, err,
             "K = 7 from --a " + a + ", but --w " + w2 + " gives K = 6");
  EXPECT_RUN(weft({"gemm", "--a", a, "-d", "ref://"}), 2, err,
             "give the sizes M N K, or both --a and --w files");
  EXPECT_RUN(weft({"gemm", "--a", a, "--w", w, "--unsigned-a", "-d", "ref://"}), 2, err,
             "--unsigned-a conflicts with --a " + a);
  EXPECT_RUN(weft({"gemm", "--a", w2 + ".missing", "--w", w, "-d", "ref://"}), 2, err,
             w2 + ".missing: cannot open");
  const std::string v = (d / "v.npy").string();
  weft::npy::write(v, weft::npy::from_int8(std::vector<uint8_t>(7), {7}, true));
  EXPECT_RUN(weft({"gemm", "--a", v, "--w", w, "-d", "ref://"}), 2, err, "it must be 2-D (M x K)");
  const std::string i32 = (d / "i32.npy").string();
  weft::npy::write(i32, weft::npy::from_int32(std::vector<int32_t>(28), {4, 7}));
  EXPECT_RUN(weft({"gemm", "--a", i32, "--w", w, "-d", "ref://"}), 2, err, "operands are 8-bit");
  EXPECT_RUN(weft({"gemm", "--a", a, "--w", w, "--bias", a, "-d", "ref://"}), 2, err,
             "must be int32 with shape (3,)");
  // A malformed file: its reason, exit 2.
  const std::string bad = (d / "bad.npy").string();
  std::ofstream(bad) << "\x93NUMPY\x01";
  EXPECT_RUN(weft({"gemm", "--a", bad, "--w", w, "-d", "ref://"}), 2, err,
             bad + ": not a .npy file");
  // The filter's channels against the input's.
  const std::string x = (d / "x.npy").string(), f = (d / "f.npy").string();
  weft::npy::write(x,
                   weft::npy::from_int8(std::vector<uint8_t>(2 * 5 * 5 * 3), {2, 5, 5, 3}, true));
  weft::npy::write(f,
                   weft::npy::from_int8(std::vector<uint8_t>(4 * 3 * 3 * 2), {4, 3, 3, 2}, true));
  EXPECT_RUN(
      weft({"conv2d", "--input", x, "--filter", f, "-d", "ref://"}), 2, err,
      "C (--channels) = 3 from --input " + x + ", but --filter " + f + " gives C (--channels) = 2");
  // Only the filter gives C: taken from it.
  const std::string f3 = (d / "f3.npy").string();
  weft::npy::write(f3,
                   weft::npy::from_int8(std::vector<uint8_t>(4 * 3 * 3 * 3), {4, 3, 3, 3}, true));
  EXPECT_RUN(
      weft({"conv2d", "--height", "5", "--width", "5", "--filter", f3, "--check", "-d", "ref://"}),
      0, out, "input 1x5x5x3 int8 (random), filter 4x3x3x3 int8 (" + f3 + ")");
  EXPECT_RUN(weft({"conv2d", "--input", x, "--out-channels", "4", "--height", "6", "-d", "ref://"}),
             2, err, "H (--height) = 6 on the command line, but --input " + x);
}

// Damaged operand files (truncated, bytes flipped, header edited, shapes at the edge): the tool
// exits 2 naming the file and the reason, or -- when the damage left a valid file -- runs (0);
// never a crash, a hang or another exit status (docs/fuzz.md).
TEST(CliNpy, DamagedFilesExitTwoNamingTheFile) {
  const fs::path d = scratch_dir();
  std::mt19937_64 rng = weft::tb::make_rng();
  const std::string w = (d / "w.npy").string();
  weft::npy::write(w, weft::npy::from_int8(std::vector<uint8_t>(7 * 3, 1), {7, 3}, true));
  const std::vector<uint8_t> good =
      weft::npy::serialize(weft::npy::from_int8(std::vector<uint8_t>(4 * 7, 2), {4, 7}, true));
  const size_t hlen = good[8] | (size_t{good[9]} << 8), data_at = 10 + hlen;
  std::vector<std::vector<uint8_t>> files;
  for (size_t len : {size_t{0}, size_t{5}, size_t{9}, size_t{40}, good.size() - 1}) {
    files.emplace_back(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
  }
  for (int i = 0; i < 10; ++i) {
    std::vector<uint8_t> b = good;
    b[rng() % data_at] = static_cast<uint8_t>(rng());  // in the header
    files.push_back(b);
  }
  const std::string h = std::string(good.begin() + 10, good.begin() + static_cast<std::ptrdiff_t>(data_at));
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"(4, 7)", "(0, 7)"}, {"(4, 7)", "(4294967296, 4294967296)"}, {"(4, 7)", "(4, 7, 1)"},
           {"(4, 7)", "(18446744073709551615, 2)"}, {"'|i1'", "'<f8'"}, {"'|i1'", "'<i4'"},
           {"False", "True"}, {"(4, 7)", "()"}}) {
    std::string x = h;
    x.replace(x.find(from), from.size(), to);
    std::vector<uint8_t> b(good.begin(), good.begin() + 10);
    b.insert(b.end(), x.begin(), x.end());
    b.insert(b.end(), good.begin() + static_cast<std::ptrdiff_t>(data_at), good.end());
    b[8] = static_cast<uint8_t>(x.size());
    b[9] = static_cast<uint8_t>(x.size() >> 8);
    files.push_back(b);
  }
  int refused = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string a = (d / ("bad" + std::to_string(i) + ".npy")).string();
    std::ofstream(a, std::ios::binary).write(reinterpret_cast<const char*>(files[i].data()),
                                              static_cast<std::streamsize>(files[i].size()));
    for (const char* what : {"--a", "--w"}) {
      const Outcome r = std::string(what) == "--a" ? weft({"gemm", "--a", a, "--w", w, "-d", "ref://"})
                                                   : weft({"gemm", "--a", w, "--w", a, "-d", "ref://"});
      SCOPED_TRACE(std::string(what) + " " + a);
      EXPECT_TRUE(r.code == 0 || r.code == 2) << show(r);
      if (r.code == 2) {
        ++refused;
        EXPECT_TRUE(has(r.err, a)) << "the message names the file\n" << show(r);
      }
    }
  }
  EXPECT_GT(refused, int(files.size()));
}

// ------------------------------------------------------------------ FP8 modes (gemm --a-fmt)
// On ref:// (fast): its FP path is the golden model's own, so these test the tool (options,
// operand and result files, the check's comparison), not the RTL; tb/system runs the RTL's.

TEST(CliFp8, MixedFormatsToBf16CheckBitExact) {
  const Outcome r = weft({"gemm", "20", "17", "33", "--a-fmt", "e4m3", "--w-fmt", "e5m2",
                          "--out-fmt", "bf16", "--check", "-d", "ref://"});
  EXPECT_RUN(r, 0, out, "check    passed, bit-exact (0 of 340 elements differ");
  EXPECT_TRUE(has(r.out,
                  "gemm     M=20 N=17 K=33 seed=1 out=bf16 scale=1 bias=none relu=off, "
                  "A e4m3 (random), W e5m2 (random)"))
      << show(r);
  EXPECT_EQ(r.err, "");
}

TEST(CliFp8, EveryOutputFormatChecksBitExact) {
  // Scale and ReLU on, a k-tile of 8 rows (the golden sum's tiles follow the device's rows) and
  // the engines in random order.
  for (const std::string f : {"fp32", "bf16", "e4m3", "e5m2"}) {
    SCOPED_TRACE(f);
    const Outcome r = weft({"gemm", "23", "19", "41", "--a-fmt", "e5m2", "--w-fmt", "e4m3",
                            "--out-fmt", f, "--scale", "0.375", "--relu", "--seed", "7", "--check",
                            "-q", "-d", "ref://?array=8x4&sched=random"});
    EXPECT_RUN(r, 0, out, "check    passed, bit-exact (0 of 437 elements differ");
    const std::string line = "out=" + f + " scale=0.375 bias=none relu=on, A e5m2 (random)";
    EXPECT_TRUE(has(r.out, line + ", W e4m3 (random)")) << show(r);
  }
}

// FP8 codes: N(0, 1) values rounded into the format and, now and then, any code (subnormals,
// NaNs, E5M2's infinities), so that the files reach the FP path's special cases too.
std::vector<uint8_t> fp8_codes(size_t n, weft::golden::FpFormat f, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint8_t> v(n);
  for (auto& c : v) {
    c = static_cast<uint8_t>(weft::golden::fp_encode(normal(rng), f));
    if (rng() % 64 == 0) c = static_cast<uint8_t>(rng());  // any code: subnormals, NaN, Inf
  }
  return v;
}

// The payload of a uint16 .npy file the tool wrote (the reader takes no uint16): the header's
// dtype and shape, then little-endian values.
std::vector<uint16_t> read_uint16_npy(const std::string& path, const std::string& shape) {
  const std::string s = slurp(path);
  const size_t end = s.find('\n');
  EXPECT_NE(end, std::string::npos) << path;
  const std::string header = s.substr(0, end);
  EXPECT_TRUE(has(header, "'descr': '<u2'")) << header;
  EXPECT_TRUE(has(header, "'shape': " + shape)) << header;
  std::vector<uint16_t> v((s.size() - end - 1) / 2);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = uint16_t(uint8_t(s[end + 1 + 2 * i]) | uint8_t(s[end + 2 + 2 * i]) << 8);
  }
  return v;
}

TEST(CliFp8, CodesFromFilesToFilesMatchTheGoldenModel) {
  using weft::golden::FpFormat;
  std::mt19937_64 rng = weft::tb::make_rng();
  const fs::path d = scratch_dir();
  const int M = 1 + int(rng() % 30), N = 1 + int(rng() % 30), K = 1 + int(rng() % 70);
  const auto a = fp8_codes(size_t(M) * K, FpFormat::kE4M3, rng);
  const auto w = fp8_codes(size_t(K) * N, FpFormat::kE5M2, rng);
  std::vector<float> bias(N);
  for (auto& b : bias) b = std::ldexp(float(int(rng() % 201) - 100), -4);
  const std::string af = (d / "a.npy").string(), wf = (d / "w.npy").string(),
                    bf = (d / "b.npy").string();
  weft::npy::write(af, weft::npy::from_int8(a, {uint64_t(M), uint64_t(K)}, false));
  weft::npy::write(wf, weft::npy::from_int8(w, {uint64_t(K), uint64_t(N)}, false));
  weft::npy::write(bf, weft::npy::from_float32(bias, {uint64_t(N)}));
  const float scale = 0.75f;
  const std::string uri = "ref://";
  const std::vector<uint32_t> a_bits(a.begin(), a.end()), w_bits(w.begin(), w.end());
  const auto acc = weft::golden::gemm_fp(a_bits, w_bits, M, K, N, FpFormat::kE4M3, FpFormat::kE5M2,
                                         int(caps_of(uri).rows));
  const std::string shape = "(" + std::to_string(M) + ", " + std::to_string(N) + ")";
  for (const std::string f : {"fp32", "bf16", "e4m3", "e5m2"}) {
    SCOPED_TRACE(f);
    const std::string c = (d / ("c_" + f + ".npy")).string();
    const Outcome r =
        weft({"gemm",    "--a",     af,        "--w",  wf,          "--bias", bf,
              "--a-fmt", "e4m3",    "--w-fmt", "e5m2", "--out-fmt", f,        "--scale",
              "0.75",    "--check", "--out",   c,      "-d",        uri});
    EXPECT_RUN(r, 0, out, "passed, bit-exact");
    EXPECT_TRUE(has(r.out, "A e4m3 (" + af + "), W e5m2 (" + wf + ")")) << show(r);
    EXPECT_TRUE(has(r.out, "bias=" + bf)) << show(r);
    std::vector<uint32_t> got;
    if (f == "bf16") {
      EXPECT_TRUE(has(r.out, "out      " + c + " (uint16, BF16 encodings)")) << show(r);
      for (uint16_t v : read_uint16_npy(c, shape)) got.push_back(v);
    } else {
      const weft::npy::Array arr = weft::npy::read(c);
      EXPECT_EQ(arr.shape, (std::vector<uint64_t>{uint64_t(M), uint64_t(N)}));
      if (f == "fp32") {
        EXPECT_EQ(arr.dtype, weft::npy::Dtype::kFloat32);
        for (size_t i = 0; i < arr.elements(); ++i) {
          got.push_back(std::bit_cast<uint32_t>(arr.at_float(i)));
        }
      } else {
        EXPECT_EQ(arr.dtype, weft::npy::Dtype::kUint8);
        got.assign(arr.data.begin(), arr.data.end());
      }
    }
    ASSERT_EQ(got.size(), size_t(M) * N);
    const FpFormat fo = f == "fp32"   ? FpFormat::kFp32
                        : f == "bf16" ? FpFormat::kBf16
                        : f == "e4m3" ? FpFormat::kE4M3
                                      : FpFormat::kE5M2;
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const float y = weft::golden::fp_postprocess(acc[i], scale, bias[i % N], false);
      const uint32_t want =
          fo == FpFormat::kFp32 ? weft::golden::fp32_bits(y) : weft::golden::fp_encode(y, fo);
      if (got[i] != want && ++bad <= 3) {
        ADD_FAILURE() << "C[" << i / N << "][" << i % N << "]: " << got[i] << ", want " << want;
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

TEST(CliFp8, OptionsThatDoNotGoWithFp8AreUsageErrors) {
  const std::vector<std::string> fp8 = {"gemm", "8",       "8",    "8",  "--a-fmt",
                                        "e4m3", "--w-fmt", "e5m2", "-d", "ref://"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> v = fp8;
    v.insert(v.end(), extra.begin(), extra.end());
    return weft(v);
  };
  // Mixed formats: one operand FP8, the other integer.
  Outcome r = weft({"gemm", "8", "8", "8", "--a-fmt", "e4m3", "-d", "ref://"});
  EXPECT_RUN(r, 2, err,
             "--a-fmt without --w-fmt: A and W are both FP or both integer; give "
             "--w-fmt e4m3|e5m2|bf16 as well");
  EXPECT_FALSE(has(r.out, "device")) << "refused before the device is opened\n" << show(r);
  EXPECT_RUN(weft({"gemm", "8", "8", "8", "--w-fmt", "e5m2", "-d", "ref://"}), 2, err,
             "--w-fmt without --a-fmt");
  // Integer-only options with FP8 operands.
  r = with({"--a-zero-point", "3"});
  EXPECT_RUN(r, 2, err, "--a-zero-point is integer-only and does not apply to FP operands");
  EXPECT_TRUE(has(r.err, "drop it")) << show(r);
  EXPECT_FALSE(has(r.out, "device")) << show(r);
  EXPECT_RUN(with({"--w-zero-point", "0", "--mode", "onnx", "--unsigned-a"}), 2, err,
             "--w-zero-point, --mode, --unsigned-a are integer-only");
  EXPECT_RUN(with({"--int32"}), 2, err, "--int32 is integer-only");
  // FP8 options without FP8 operands.
  EXPECT_RUN(weft({"gemm", "8", "8", "8", "--out-fmt", "bf16", "-d", "ref://"}), 2, err,
             "--out-fmt is for FP operands: give --a-fmt and --w-fmt");
  EXPECT_RUN(weft({"gemm", "8", "8", "8", "--relu", "-d", "ref://"}), 2, err,
             "--relu is for FP operands");
  EXPECT_RUN(with({"--out-fmt", "int8"}), 2, err, "int8 not in {fp32,bf16,e4m3,e5m2}");
  EXPECT_RUN(with({"--scale", "1e39"}), 2, err, "--scale must be a finite float32 value");
  // Files: FP8 operands are uint8 codes, the bias float32.
  const fs::path d = scratch_dir();
  const std::string i8 = (d / "i8.npy").string(), u8 = (d / "u8.npy").string(),
                    bi = (d / "bi.npy").string();
  weft::npy::write(i8, weft::npy::from_int8(std::vector<uint8_t>(64), {8, 8}, true));
  weft::npy::write(u8, weft::npy::from_int8(std::vector<uint8_t>(64), {8, 8}, false));
  weft::npy::write(bi, weft::npy::from_int32(std::vector<int32_t>(8), {8}));
  EXPECT_RUN(with({"--a", i8}), 2, err,
             "--a " + i8 + " is int8; with --a-fmt e4m3 the operand is a file of uint8 FP8 codes");
  EXPECT_RUN(with({"--w", u8, "--bias", bi}), 2, err,
             "--bias " + bi + " with FP operands must be float32 with shape (8,)");
  // And the help says how FP8 files look.
  r = weft({"gemm", "--help"});
  EXPECT_RUN(r, 0, out, "--a-fmt");
  EXPECT_TRUE(has(r.out, "uint8 FP8 codes")) << show(r);
}

// ------------------------------------------------------------------ BF16 (gemm --a-fmt bf16)

TEST(CliBf16, EveryOutputFormatChecksBitExact) {
  // Several k-tiles of the 8x4 array, scale and ReLU on.
  for (const std::string f : {"fp32", "bf16", "e4m3", "e5m2"}) {
    SCOPED_TRACE(f);
    const Outcome r = weft({"gemm", "13", "9", "37", "--a-fmt", "bf16", "--w-fmt", "bf16",
                            "--out-fmt", f, "--scale", "0.5", "--relu", "--check", "-q", "-d",
                            "ref://?array=8x4&sched=random"});
    EXPECT_RUN(r, 0, out, "check    passed, bit-exact (0 of 117 elements differ");
    EXPECT_TRUE(has(r.out, "A bf16 (random), W bf16 (random)")) << show(r);
  }
}

TEST(CliBf16, Float32FilesAreRoundedToBf16) {
  // Operand files are float32 (numpy has no bfloat16); the tool rounds them to BF16, nearest
  // even, and the result is the golden rule's on those BF16 values.
  using weft::golden::FpFormat;
  std::mt19937_64 rng = weft::tb::make_rng();
  const fs::path d = scratch_dir();
  const int M = 1 + int(rng() % 20), N = 1 + int(rng() % 20), K = 1 + int(rng() % 50);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> a(size_t(M) * K), w(size_t(K) * N);
  for (auto& v : a) v = normal(rng);
  for (auto& v : w) v = normal(rng);
  const std::string af = (d / "a.npy").string(), wf = (d / "w.npy").string(),
                    c = (d / "c.npy").string();
  weft::npy::write(af, weft::npy::from_float32(a, {uint64_t(M), uint64_t(K)}));
  weft::npy::write(wf, weft::npy::from_float32(w, {uint64_t(K), uint64_t(N)}));
  const Outcome r = weft({"gemm", "--a", af, "--w", wf, "--a-fmt", "bf16", "--w-fmt", "bf16",
                          "--out-fmt", "fp32", "--check", "--out", c, "-d", "ref://"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  std::vector<uint32_t> ab, wb;
  for (float v : a) ab.push_back(weft::golden::fp_encode(v, FpFormat::kBf16));
  for (float v : w) wb.push_back(weft::golden::fp_encode(v, FpFormat::kBf16));
  const auto want = weft::golden::gemm_fp(ab, wb, M, K, N, FpFormat::kBf16, FpFormat::kBf16,
                                          int(caps_of("ref://").rows));
  const weft::npy::Array out = weft::npy::read(c);
  ASSERT_EQ(out.elements(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bad += std::bit_cast<uint32_t>(out.at_float(i)) != weft::golden::fp32_bits(want[i]);
  }
  EXPECT_EQ(bad, 0u);
  // An integer file is refused with what to give instead.
  const std::string u8 = (d / "u8.npy").string();
  weft::npy::write(u8, weft::npy::from_int8(std::vector<uint8_t>(64), {8, 8}, false));
  EXPECT_RUN(weft({"gemm", "--a", u8, "--w", u8, "--a-fmt", "bf16", "--w-fmt", "bf16", "-d",
                   "ref://"}),
             2, err, "with --a-fmt bf16 the operand is a float32 file");
}

TEST(CliBf16, Bf16PairsWithBf16Only) {
  const Outcome r = weft({"gemm", "8", "8", "8", "--a-fmt", "bf16", "--w-fmt", "e4m3", "-d",
                          "ref://"});
  EXPECT_RUN(r, 2, err, "--a-fmt bf16 with --w-fmt e4m3: BF16 multiplies BF16 only");
  EXPECT_FALSE(has(r.out, "device")) << "refused before the device is opened\n" << show(r);
}

// ------------------------------------------------------------------ huge shapes, progress

TEST(CliSize, HugeShapesAreRefusedAtOnceWithWhatFits) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"gemm", "20000", "20000", "20000"},
                                             {"gemm", "100000", "100000", "100000"},
                                             {"gemm", "100000", "100000", "100000", "-d", "ref://"},
                                             {"conv2d", "--height", "4000", "--width", "4000",
                                              "--channels", "64", "--out-channels", "64"}}) {
    const Outcome r = weft(args);
    SCOPED_TRACE(args[1]);
    EXPECT_RUN(r, 2, err, "OUT_OF_MEMORY");
    EXPECT_TRUE(has(r.err, "of the device arena")) << show(r);
    EXPECT_TRUE(has(r.err, "mem=")) << show(r);
    EXPECT_TRUE(std::regex_search(r.err, std::regex("What fits now: (M|N|K|M = N = K) <= \\d+")))
        << show(r);
    EXPECT_LT(r.seconds, 1.0) << show(r);
  }
}

TEST(CliSize, TheSuggestedSizesFit) {
  // The driver's checks (what the tool calls), on a small arena: the M, K and mem= the message
  // suggests pass the check, one more does not, and the suggested M runs.
  const std::string uri = "ref://?mem=1048576";
  weft::Device dev = weft::Device::open(uri);
  std::string msg;
  try {
    weft::gemm_check_size(dev, 600, 300, 500, weft::StoreMode::kInt32);
    FAIL() << "fits";
  } catch (const weft::Error& e) {
    ASSERT_EQ(e.code(), weft::Errc::kOutOfMemory);
    msg = e.what();
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(msg, m, std::regex("M <= (\\d+) .* K <= (\\d+) .*mem=(\\d+)")))
      << msg;
  const int max_m = std::stoi(m[1]), max_k = std::stoi(m[2]);
  const std::string mem = m[3];
  EXPECT_NO_THROW(weft::gemm_check_size(dev, max_m, 300, 500, weft::StoreMode::kInt32));
  EXPECT_THROW(weft::gemm_check_size(dev, max_m + 1, 300, 500, weft::StoreMode::kInt32),
               weft::Error);
  EXPECT_NO_THROW(weft::gemm_check_size(dev, 600, 300, max_k, weft::StoreMode::kInt32));
  EXPECT_THROW(weft::gemm_check_size(dev, 600, 300, max_k + 1, weft::StoreMode::kInt32),
               weft::Error);
  weft::Device big = weft::Device::open("ref://?mem=" + mem);
  EXPECT_NO_THROW(weft::gemm_check_size(big, 600, 300, 500, weft::StoreMode::kInt32));
  // The tool runs the suggested M on that arena (bit-exact).
  const Outcome r =
      weft({"gemm", std::to_string(max_m), "300", "500", "--int32", "--check", "-q", "-d", uri});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  // Library users get the same error from conv2d before any host buffer is made.
  weft::Conv2dShape s;
  s.h = s.w = 64, s.c_in = 16, s.c_out = 16, s.kh = s.kw = 3;
  std::vector<uint8_t> x(64 * 64 * 16), f(16 * 9 * 16), y(62 * 62 * 16);
  weft::GemmOptions opt;
  opt.out.mode = weft::StoreMode::kInt32;
  std::vector<int32_t> y32(y.size());
  weft::Device small = weft::Device::open("ref://?mem=262144");
  try {
    weft::conv2d(small, s, x, f, y32, opt);
    FAIL() << "fits";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), weft::Errc::kOutOfMemory) << e.what();
    EXPECT_TRUE(has(e.what(), "conv2d 1x64x64x16 * 16x3x3 (as gemm M=3844 N=16 K=144)"))
        << e.what();
  }
}

// Starts the tool with stdout into a file and stderr on a pseudo-terminal (or a file), waits
// `wait_s`, returns what it printed so far, then kills it.
struct Partial {
  std::string out, err;
};
Partial first_output(std::vector<std::string> args, bool tty_stderr, double wait_s) {
  const fs::path d = scratch_dir();
  const fs::path out = d / "stdout.txt", err = d / "stderr.txt";
  int master = -1, slave = -1;
  if (tty_stderr && openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    ADD_FAILURE() << "openpty: " << std::strerror(errno);
    return {};
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (tty_stderr) {
    posix_spawn_file_actions_adddup2(&fa, slave, 2);
    posix_spawn_file_actions_addclose(&fa, master);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  args.insert(args.begin(), WEFT_EXE);
  std::vector<char*> argv = c_strings(args);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, WEFT_EXE, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  Partial p;
  const auto t0 = Clock::now();
  if (tty_stderr) {
    close(slave);
    fcntl(master, F_SETFL, O_NONBLOCK);
  }
  while (std::chrono::duration<double>(Clock::now() - t0).count() < wait_s) {
    if (tty_stderr) {
      char buf[4096];
      const ssize_t n = read(master, buf, sizeof buf);
      if (n > 0) p.err.append(buf, size_t(n));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  p.out = slurp(out);
  if (!tty_stderr) p.err = slurp(err);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  if (tty_stderr) close(master);
  return p;
}

TEST(CliProgress, SomethingAppearsWithinASecond) {
  // A GEMM that takes the RTL tens of seconds: the start line is in the output file (not held in
  // a buffer) and, on a terminal, the progress bar is on stderr, within about a second.
  const std::vector<std::string> args = {"gemm", "512", "512", "2048"};
  const Partial p = first_output(args, false, 1.0);
  EXPECT_TRUE(has(p.out, "device   sim://")) << p.out;
  EXPECT_TRUE(has(p.out, "gemm     M=512 N=512 K=2048")) << p.out;
  const Partial t = first_output(args, true, 1.0);
  EXPECT_TRUE(has(t.err, "device   [")) << t.err;
  EXPECT_TRUE(has(t.err, " %")) << t.err;
}

// ------------------------------------------------------------------ kernel ELFs

TEST(CliSimt, ChecksAKernelOnTheRtl) {
  if (std::string(WEFT_KERNEL_ELF_DIR).empty()) GTEST_SKIP() << "no riscv64-unknown-elf-gcc";
  Outcome r = weft({"simt", "vecadd", "--n", "500", "--check"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  EXPECT_EQ(r.out.rfind("device   sim://", 0), 0u) << show(r);
  EXPECT_TRUE(has(r.out, "IPC")) << show(r);
  EXPECT_FALSE(has(r.out, "simt     ")) << "counters only with --perf\n" << show(r);
  r = weft({"simt", "softmax", "--n", "200", "--warps", "3", "--threads", "5", "--check", "--perf",
            "-d", "ref://"});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  EXPECT_TRUE(has(r.out, "3 warps x 5 threads")) << show(r);
  EXPECT_TRUE(has(r.out, "simt     ")) << show(r);
}

TEST(CliSimt, KernelElfsAreFoundRelativeToTheExecutable) {
  if (std::string(WEFT_KERNEL_ELF_DIR).empty()) GTEST_SKIP() << "no riscv64-unknown-elf-gcc";
  const std::map<std::string, std::string> no_env = {{"WEFT_KERNEL_DIR", ""}};
  // --elf-dir and $WEFT_KERNEL_DIR, when given, are the only place looked at.
  Outcome r = weft({"simt", "vecadd", "-d", "ref://", "--elf-dir", "/nonexistent/k"}, no_env);
  EXPECT_RUN(r, 2, err, "/nonexistent/k/vecadd.elf (--elf-dir)");
  r = weft({"simt", "vecadd", "-d", "ref://"}, {{"WEFT_KERNEL_DIR", "/nonexistent/env"}});
  EXPECT_RUN(r, 2, err, "/nonexistent/env/vecadd.elf ($WEFT_KERNEL_DIR)");
  r = weft({"simt", "vecadd", "-d", "ref://", "--n", "64", "--check"},
           {{"WEFT_KERNEL_DIR", WEFT_KERNEL_ELF_DIR}});
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  // The install layout: <prefix>/bin/weft finds <prefix>/share/weft/kernels before the build
  // tree. A copy of the tool there with a broken vecadd.elf fails on that file; with the real
  // one it runs; a kernel not installed there comes from the build tree.
  const fs::path prefix = scratch_dir() / "prefix";
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share" / "weft" / "kernels");
  const fs::path exe = prefix / "bin" / "weft";
  fs::copy_file(WEFT_EXE, exe, fs::copy_options::overwrite_existing);
  const fs::path elf = prefix / "share" / "weft" / "kernels" / "vecadd.elf";
  std::ofstream(elf) << "not an ELF";
  r = run_exe(exe.string(), {"simt", "vecadd", "-d", "ref://", "--n", "64"}, no_env);
  EXPECT_EQ(r.code, 2) << show(r);
  EXPECT_TRUE(has(r.err, "ELF")) << show(r);
  fs::copy_file(fs::path(WEFT_KERNEL_ELF_DIR) / "vecadd.elf", elf,
                fs::copy_options::overwrite_existing);
  r = run_exe(exe.string(), {"simt", "vecadd", "-d", "ref://", "--n", "64", "--check"}, no_env);
  EXPECT_RUN(r, 0, out, "passed, bit-exact");
  r = run_exe(exe.string(), {"simt", "relu", "-d", "ref://", "--n", "64", "--check"}, no_env);
  EXPECT_RUN(r, 0, out, "passed, bit-exact");  // not installed here: the build tree's
}

}  // namespace
