// weft: command line tool of the Weft NPU (libweft). docs/driver.md ("weft tool") has the manual.
//
//   weft info   [--device URI]                   capabilities and every register
//   weft gemm   [M N K] [--a A.npy] [--w W.npy] [--bias B.npy] [--out C.npy] [--check] ...
//               [--a-fmt e4m3|e5m2|bf16 --w-fmt e4m3|e5m2|bf16 [--out-fmt F] [--relu]]
//                                                C = A x W on the device (INT8, or the FP8 / BF16
//                                                modes), checked against the golden model
//   weft conv2d [--height H --width W --channels C --out-channels CO] [--kernel KH[,KW]]
//               [--stride S[,SW]] [--pad P|T,L,B,R|same] [--input X.npy] [--filter F.npy] ...
//                                                NHWC convolution, checked against golden conv2d
//   weft simt   KERNEL [--n N] [--warps W] [--threads T] [--check] ...
//                                                a library kernel (sw/kernels) on the SIMT core
//   weft run    MODEL.onnx --input x.npy|x.pb [--check] [--layers] [--json] ...
//                                                a quantized ONNX model (weft_run.cpp)
//   weft eval   MODEL.onnx --dataset digits|fashion-mnist [--limit N] [--batch B] [--json] ...
//                                                accuracy and agreement with onnxruntime on a
//                                                data set (weft_eval.cpp)
//
// The default device is sim:// (the Verilated RTL). Exit status: 0 success, 1 result differs
// from the golden model, 2 bad command line or argument, 3 device error or timeout.
#include "weft/weft.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "npy.hpp"
#include "weft_eval.hpp"
#include "weft_run.hpp"
#include "weft/golden/fp.hpp"
#include "weft/golden/quant.hpp"
#include "weft/golden/simt.hpp"
#include "weft/regs.hpp"
#include "weft_kernel_args.h"

#ifndef WEFT_KERNEL_ELF_DIR
#define WEFT_KERNEL_ELF_DIR ""
#endif

namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------------------------ exit status
constexpr int kExitOk = 0;        // success
constexpr int kExitMismatch = 1;  // the result differs from the golden model (--check)
constexpr int kExitUsage = 2;     // bad command line or argument
constexpr int kExitDevice = 3;    // device error or timeout, anything else that fails

constexpr const char* kExitFooter =
    "Exit status: 0 success; 1 the result differs from the golden model (--check; eval: a "
    "prediction differs from onnxruntime's stored one); 2 bad "
    "command line or argument (unknown command or option, a value out of range, conflicting "
    "options, a missing or malformed .npy file, a shape the device's memory cannot hold); "
    "3 device error or timeout (anything else that fails).\n"
    "The default device is sim://, the Verilated RTL; ref:// is a functional model whose cycle "
    "figures are estimates of a cost model. docs/driver.md has the details.";

// A bad command line or argument found by the tool itself: exit 2 with the message.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const std::vector<std::string> kCommands = {"info", "gemm", "conv2d", "simt", "run", "eval"};
const std::vector<std::string> kKernels = {"vecadd",  "saxpy",     "relu",   "requant",
                                           "maxpool", "transpose", "im2col", "softmax"};

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string r;
  for (size_t i = 0; i < v.size(); ++i) r += (i ? sep : "") + v[i];
  return r;
}

// ------------------------------------------------------------------------------ back ends
std::string scheme_of(const std::string& uri) {
  const size_t p = uri.find("://");
  return p == std::string::npos ? uri : uri.substr(0, p);
}

// How to read the cycle figures of a back end: ref:// counts with a cost model, uart:// has the
// board's clock times wall time; sim:// and pcie-sim:// count the RTL's cycles.
std::string cycles_note(const std::string& uri) {
  const std::string s = scheme_of(uri);
  if (s == "ref") return " (ref:// cost-model estimate, not RTL)";
  if (s == "uart") return " (uart://: board clock x wall time)";
  return "";
}

// For a simulated device and a big operation: the least cycles it can take (the array at its
// peak), so that a user sees before waiting that a run will take long.
void note_duration(const std::string& uri, const weft::Capabilities& cap, uint64_t m, uint64_t n,
                   uint64_t k) {
  const std::string s = scheme_of(uri);
  if (s != "sim" && s != "pcie-sim") return;
  const double cycles = double(m) * double(n) * double(k) / (double(cap.rows) * cap.cols);
  if (cycles < 2e7) return;
  fmt::print(
      "note     at least {:.3g} device cycles (M*N*K / {}x{} at the array's peak); "
      "{} simulates roughly 10^5 cycles/s, so this takes {} or more (ref:// is faster, "
      "without the RTL)\n",
      cycles, cap.rows, cap.cols, s + "://",
      cycles / 1e5 >= 7200 ? fmt::format("{:.0f} hours", cycles / 1e5 / 3600)
                           : fmt::format("{:.0f} minutes", cycles / 1e5 / 60));
}

std::string human_bytes(uint64_t b) {
  if (b >= (10ull << 30)) return fmt::format("{:.1f} GiB", double(b) / double(1ull << 30));
  if (b >= (10ull << 20)) return fmt::format("{:.1f} MiB", double(b) / double(1ull << 20));
  if (b >= (10ull << 10)) return fmt::format("{:.1f} KiB", double(b) / double(1ull << 10));
  return fmt::format("{} B", b);
}

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : UINT64_MAX;
}

// ------------------------------------------------------------------------------ progress
// Shows that work goes on, from the start of each phase. On a terminal (stderr a tty, no -q):
// "<phase> [#####     ]  50 %  1.2 s" (or, for phases without a fraction, the elapsed time),
// redrawn every 0.2 s by a thread and cleared when the phase ends. Not on a terminal: a line on
// stderr every 10 s of a long phase, every minute after its first ("weft: device 45 % after
// 10.0 s"); short runs print none.
class Progress {
 public:
  explicit Progress(bool quiet) : tty_(isatty(2) != 0), on_(!quiet) {
    if (on_) th_ = std::thread([this] { loop(); });
  }
  ~Progress() {
    if (!on_) return;
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
      clear_locked();
    }
    cv_.notify_all();
    th_.join();
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void phase(const std::string& label, bool has_fraction = true) {
    if (!on_) return;
    std::lock_guard<std::mutex> l(mu_);
    clear_locked();
    label_ = label;
    has_f_ = has_fraction;
    f_ = 0;
    active_ = true;
    t0_ = last_ = std::chrono::steady_clock::now();
    draw_locked();
  }
  void set(double f) {
    if (!on_) return;
    std::lock_guard<std::mutex> l(mu_);
    f_ = std::clamp(f, 0.0, 1.0);
  }
  void end() {
    if (!on_) return;
    std::lock_guard<std::mutex> l(mu_);
    clear_locked();
    active_ = false;
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  void draw_locked() {
    if (!active_) return;
    if (tty_) {
      std::string s = fmt::format("\r{:<9}", label_);
      if (has_f_) {
        const int w = 30, filled = static_cast<int>(f_ * w + 0.5);
        s += fmt::format("[{}{}] {:3.0f} %  ", std::string(filled, '#'),
                         std::string(w - filled, ' '), 100 * f_);
      }
      s += fmt::format("{:.1f} s", elapsed());
      fmt::print(stderr, "{}\x1b[K", s);
      std::fflush(stderr);
      drawn_ = true;
    } else if (std::chrono::steady_clock::now() - last_ >=
               std::chrono::seconds(elapsed() < 60 ? 10 : 60)) {
      last_ = std::chrono::steady_clock::now();
      if (has_f_) {
        fmt::print(stderr, "weft: {} {:.0f} % after {:.1f} s\n", label_, 100 * f_, elapsed());
      } else {
        fmt::print(stderr, "weft: {} running for {:.1f} s\n", label_, elapsed());
      }
    }
  }
  void clear_locked() {
    if (tty_ && drawn_) {
      fmt::print(stderr, "\r\x1b[K");
      std::fflush(stderr);
    }
    drawn_ = false;
  }
  void loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) {
      cv_.wait_for(l, std::chrono::milliseconds(200));
      if (!stop_) draw_locked();
    }
  }

  const bool tty_, on_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread th_;
  std::string label_;
  double f_ = 0;
  bool has_f_ = true, active_ = false, stop_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point t0_, last_;
};

// `n` random bytes from `rng`, in pieces so that the progress moves.
std::vector<uint8_t> random_bytes(size_t n, std::mt19937_64& rng, Progress& prog,
                                  const std::string& what) {
  std::vector<uint8_t> v(n);
  const size_t piece = 1u << 22;
  if (n > piece) prog.phase(what);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<uint8_t>(rng());
    if ((i + 1) % piece == 0) prog.set(double(i + 1) / double(n));
  }
  if (n > piece) prog.end();
  return v;
}

// ------------------------------------------------------------------------------ info
int cmd_info(const std::string& uri) {
  weft::Device dev = weft::Device::open(uri);
  fmt::print("device       {}\n", dev.description());
  fmt::print("capabilities {}\n\n", dev.caps().to_string());
  fmt::print("{:<22} {:>6}  {:>10}  {}\n", "register", "offset", "value", "fields");
  for (const auto& r : weft::regs::kRegisters) {
    const uint32_t v = dev.read_reg(r.offset);
    std::string fields;
    for (unsigned i = 0; i < r.num_fields; ++i) {
      const auto& f = weft::regs::kFields[r.first_field + i];
      const uint32_t mask = f.width >= 32 ? 0xffffffffu : ((1u << f.width) - 1);
      if (r.num_fields > 1) fields += fmt::format("{}={} ", f.name, (v >> f.lsb) & mask);
    }
    fmt::print("{:<22} 0x{:03x}  0x{:08x}  {}\n", r.name, r.offset, v, fields);
  }
  return kExitOk;
}

// ------------------------------------------------------------------------------ gemm, conv2d
// The options gemm and conv2d share: device, operands' types, output stage, checks.
struct OpArgs {
  uint64_t seed = 1;
  bool check = false, int32 = false, quiet = false, perf = false;
  bool a_unsigned = false, w_unsigned = false;
  std::optional<int> a_zp, w_zp;
  std::string mode = "tflite-double";
  bool mode_given = false;
  std::optional<double> scale;
  std::string a_file, w_file, bias_file, out_file;
  bool no_fine_start = false, no_short_tail = false;
};

weft::StoreMode store_mode(const OpArgs& o, const char* cmd) {
  if (o.int32 && o.mode_given && o.mode != "int32") {
    throw UsageError(fmt::format(
        "weft {}: --int32 conflicts with --mode {} (--int32 means --mode int32: give one of them)",
        cmd, o.mode));
  }
  if (o.int32 || o.mode == "int32") return weft::StoreMode::kInt32;
  if (o.mode == "tflite-double") return weft::StoreMode::kTfliteDouble;
  if (o.mode == "tflite-single") return weft::StoreMode::kTfliteSingle;
  if (o.mode == "onnx") return weft::StoreMode::kOnnx;
  throw UsageError(
      fmt::format("weft {}: unknown --mode {} (tflite-double, tflite-single, onnx, "
                  "int32)",
                  cmd, o.mode));
}

const char* mode_name(weft::StoreMode m) {
  switch (m) {
    case weft::StoreMode::kTfliteDouble:
      return "tflite-double";
    case weft::StoreMode::kTfliteSingle:
      return "tflite-single";
    case weft::StoreMode::kOnnx:
      return "onnx";
    default:
      return "int32";
  }
}

// An operand file's shape: `rank` dimensions, none empty or beyond int32.
void check_operand_shape(const weft::npy::Array& a, const std::string& file, const char* opt,
                         size_t rank, const char* layout, const char* cmd) {
  if (a.shape.size() != rank) {
    throw UsageError(fmt::format("weft {}: {} {} has shape {}; it must be {}-D ({})", cmd, opt,
                                 file, a.shape_string(), rank, layout));
  }
  if (a.elements() == 0) {
    throw UsageError(
        fmt::format("weft {}: {} {} is empty (shape {})", cmd, opt, file, a.shape_string()));
  }
  for (uint64_t d : a.shape) {
    if (d > INT32_MAX) {
      throw UsageError(fmt::format("weft {}: {} {}: dimension {} is too large", cmd, opt, file, d));
    }
  }
}

// An 8-bit operand from a file (or nothing): its type from the dtype, checked against the
// --unsigned-X flag; `rank` dimensions.
std::optional<weft::npy::Array> read_operand(const std::string& file, const char* opt,
                                             const char* unsigned_opt, bool unsigned_flag,
                                             size_t rank, const char* layout, const char* cmd) {
  if (file.empty()) return std::nullopt;
  weft::npy::Array a = weft::npy::read(file);
  if (a.dtype == weft::npy::Dtype::kInt32 || a.dtype == weft::npy::Dtype::kFloat32) {
    throw UsageError(
        fmt::format("weft {}: {} {} is {}; operands are 8-bit: save it as int8 or "
                    "uint8 (a.astype(np.int8))",
                    cmd, opt, file, weft::npy::dtype_name(a.dtype)));
  }
  check_operand_shape(a, file, opt, rank, layout, cmd);
  if (unsigned_flag && a.dtype == weft::npy::Dtype::kInt8) {
    throw UsageError(
        fmt::format("weft {}: {} conflicts with {} {} (its dtype is int8; the "
                    "file's dtype says whether it is signed)",
                    cmd, unsigned_opt, opt, file));
  }
  return a;
}

// The operand type: from the file's dtype when there is one, else from --unsigned-X; zero point
// 0 for int8 and 128 for uint8 unless given.
weft::Operand operand_type(const std::optional<weft::npy::Array>& f, bool unsigned_flag,
                           std::optional<int> zp) {
  const bool is_unsigned = f ? f->dtype == weft::npy::Dtype::kUint8 : unsigned_flag;
  return {!is_unsigned, zp ? *zp : (is_unsigned ? 128 : 0)};
}

// The tiler's options from the command line: operand types from the files or the flags, and
// the schedule knobs.
weft::GemmOptions gemm_options(const OpArgs& o, const std::optional<weft::npy::Array>& a,
                               const std::optional<weft::npy::Array>& w) {
  weft::GemmOptions opt;
  opt.a = operand_type(a, o.a_unsigned, o.a_zp);
  opt.w = operand_type(w, o.w_unsigned, o.w_zp);
  opt.fine_start = !o.no_fine_start;
  opt.short_tail = !o.no_short_tail;
  return opt;
}

const char* type_name(const weft::Operand& o) { return o.is_signed ? "int8" : "uint8"; }

// A dimension and where it comes from ("on the command line", "--a A.npy"); no value: not given.
struct Dim {
  std::optional<int64_t> v;
  std::string from = "on the command line";
  int64_t or_(int64_t def) const { return v ? *v : def; }
};

// A dimension given by `d` and/or by a file: when both give it they must agree.
Dim agree(const char* name, const Dim& d, std::optional<uint64_t> from_file,
          const std::string& file_desc, const char* cmd) {
  if (d.v && from_file && uint64_t(*d.v) != *from_file) {
    throw UsageError(fmt::format("weft {}: {} = {} {}, but {} gives {} = {}", cmd, name, *d.v,
                                 d.from, file_desc, name, *from_file));
  }
  if (d.v) return d;
  if (from_file) return {static_cast<int64_t>(*from_file), "from " + file_desc};
  return {};
}

// The bias: a file (int32, `n` values), else random (random operands) or zeros (operands from
// files).
std::vector<int32_t> make_bias(const OpArgs& o, int n, bool any_file, std::mt19937_64& rng,
                               const char* cmd) {
  std::vector<int32_t> bias;
  if (!o.bias_file.empty()) {
    const weft::npy::Array b = weft::npy::read(o.bias_file);
    if (b.dtype != weft::npy::Dtype::kInt32 || b.shape.size() != 1 || b.shape[0] != uint64_t(n)) {
      throw UsageError(
          fmt::format("weft {}: --bias {} must be int32 with shape ({},), one value "
                      "per output channel; it is {} {}",
                      cmd, o.bias_file, n, weft::npy::dtype_name(b.dtype), b.shape_string()));
    }
    for (int i = 0; i < n; ++i) bias.push_back(b.at(i));
  } else if (any_file) {
    bias.assign(n, 0);
  } else {
    for (int i = 0; i < n; ++i) bias.push_back(static_cast<int32_t>(rng() % 2001) - 1000);
  }
  return bias;
}

// The output stage: the given mode; 8-bit modes requantize by --scale (default 1/(64 sqrt(K)+1),
// which keeps random products in range) to int8, zero point 0, no activation.
struct Stage {
  weft::OutputStage out;
  int32_t mult = 0;
  int shift = 0;
  double real = 0;
};
Stage make_stage(const OpArgs& o, weft::StoreMode mode, int64_t k, std::vector<int32_t> bias,
                 const char* cmd) {
  Stage s;
  s.real = o.scale ? *o.scale : 1.0 / (64.0 * std::sqrt(double(k)) + 1.0);
  if (!(s.real > 0) || !std::isfinite(s.real) || s.real >= 1e9) {
    throw UsageError(
        fmt::format("weft {}: --scale must be a number > 0 and < 1e9 (got {})", cmd, s.real));
  }
  weft::golden::quantize_multiplier(s.real, &s.mult, &s.shift);
  auto& out = s.out;
  out.mode = mode;
  out.bias = std::move(bias);
  out.multiplier = {s.mult};
  out.shift = {s.shift};
  out.scale = {static_cast<float>(s.real)};
  out.zero_point = 0;
  out.act_min = -128;
  out.act_max = 127;
  return s;
}

// The host memory the tool and the driver need for an M x N x K operation, against this host's.
void check_host_memory(const weft::Capabilities& cap, uint64_t m, uint64_t n, uint64_t k,
                       uint64_t operand_bytes, bool int32_out, bool check, const char* cmd) {
  const weft::GemmFootprint f = weft::gemm_footprint(cap, m, n, k, int32_out);
  const uint64_t out = m * n * (int32_out ? 4 : 1);
  // Operands, the driver's packed copies and the read-back, the result; the golden model's
  // int32 copy of W and its chunk buffers.
  uint64_t need = operand_bytes + f.total() + f.out + out;
  if (check) need += 4 * k * n + (64ull << 20);
  const uint64_t host = host_memory_bytes();
  if (need > host - host / 8) {
    throw UsageError(fmt::format(
        "weft {}: M={} N={} K={} needs about {} of host memory (operands, the driver's packed "
        "copies and the result{}), this host has {}; use smaller sizes",
        cmd, m, n, k, human_bytes(need), check ? ", the golden check" : "", human_bytes(host)));
  }
}

// --out: its directory must exist and be writable before anything runs.
void check_out_file(const std::string& file, const char* cmd) {
  if (file.empty()) return;
  const fs::path dir = fs::path(file).has_parent_path() ? fs::path(file).parent_path() : ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0) {
    throw UsageError(
        fmt::format("weft {}: --out {}: the directory {} does not exist or is not "
                    "writable",
                    cmd, file, dir.string()));
  }
  if (fs::is_directory(file, ec)) {
    throw UsageError(fmt::format("weft {}: --out {} is a directory; give a file name", cmd, file));
  }
}

// The device's result as int32 values (8-bit modes: int8).
struct Result {
  std::vector<uint8_t> c8;
  std::vector<int32_t> c32;
  bool int32 = false;
  int32_t at(size_t i) const { return int32 ? c32[i] : int8_t(c8[i]); }
};

std::vector<int32_t> widen(std::span<const uint8_t> b, bool is_signed) {
  std::vector<int32_t> v(b.size());
  for (size_t i = 0; i < b.size(); ++i) v[i] = is_signed ? int8_t(b[i]) : b[i];
  return v;
}

// Compares rows [r0, r0 + rows) of the result with `want` (row-major, n columns); prints the
// first mismatches. Returns how many differ.
// Compares rows [r0, r0 + rows) of the result with `want` (row-major, n columns); the first
// five mismatches go to `lines` (printed after the progress line is gone). Returns how many
// differ.
size_t compare_rows(const Result& r, std::span<const int32_t> want, size_t r0, int n,
                    std::vector<std::string>* lines,
                    const std::function<std::string(size_t)>& where) {
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const size_t idx = r0 * size_t(n) + i;
    const int32_t got = r.int32 ? r.c32[idx] : int32_t(int8_t(r.c8[idx]));
    const int32_t exp = r.int32 ? want[i] : int32_t(int8_t(uint8_t(want[i])));
    if (got != exp) {
      ++bad;
      if (lines->size() < 5) {
        lines->push_back(
            fmt::format("mismatch {}: device {}, golden {}", where(idx), got, want[i]));
      }
    }
  }
  return bad;
}

void print_summary(const std::string& uri, const weft::OpStats& st, double secs,
                   const weft::Device& dev, bool perf) {
  const weft::PerfReport& p = st.perf;
  fmt::print("result   {:.1f} % array utilisation ({}x{}), {} cycles{}, {} MACs, {:.2f} s wall\n",
             100 * p.utilisation(), p.rows, p.cols, p.c.cycles, cycles_note(uri), p.c.macs, secs);
  if (perf) {
    fmt::print("schedule {} ({} descriptors)\n", st.schedule, st.descriptors);
    // cycle(): simulated cycles for sim:// and pcie-sim://; for uart:// the board's clock times
    // the wall time since the device was opened (a board has no cycle counter the host sees).
    fmt::print("time     device at cycle {}{}\n", dev.cycle(), cycles_note(uri));
    fmt::print("perf{}\n{}\n", cycles_note(uri), p.to_string());
  }
}

void write_out(const std::string& file, const Result& r, std::vector<uint64_t> shape) {
  if (file.empty()) return;
  if (r.int32) {
    weft::npy::write(file, weft::npy::from_int32(r.c32, std::move(shape)));
  } else {
    weft::npy::write(file, weft::npy::from_int8(r.c8, std::move(shape), true));
  }
  fmt::print("out      {} ({})\n", file, r.int32 ? "int32" : "int8");
}

struct GemmArgs {
  std::optional<int64_t> m, n, k;
  OpArgs op;
  // The FP8 modes: operand formats (both empty: integer operands), the output format (empty:
  // fp32) and ReLU; integer runs take none of them.
  std::string a_fmt, w_fmt, out_fmt;
  bool relu = false;
};

// M N K on the command line: each in the driver's int range (the files' are checked as read).
void check_mnk(const GemmArgs& g) {
  if (g.m && (*g.m < 1 || *g.n < 1 || *g.k < 1 || *g.m > INT32_MAX || *g.n > INT32_MAX ||
              *g.k > INT32_MAX)) {
    throw UsageError(fmt::format("weft gemm: M, N and K must be in 1..2147483647 (got {} {} {})",
                                 *g.m, *g.n, *g.k));
  }
}

// The sizes: from M N K and/or the operand files; where both give one they must agree.
struct Mnk {
  int64_t m = 0, n = 0, k = 0;
};
Mnk gemm_sizes(const GemmArgs& g, const std::optional<weft::npy::Array>& af,
               const std::optional<weft::npy::Array>& wf) {
  const char* cmd = "gemm";
  if (!g.m && !(af && wf)) {
    throw UsageError(
        "weft gemm: give the sizes M N K, or both --a and --w files (which define them)");
  }
  auto dim = [](const std::optional<weft::npy::Array>& f, int i) {
    return f ? std::optional<uint64_t>(f->shape[i]) : std::nullopt;
  };
  const std::string ad = "--a " + g.op.a_file, wd = "--w " + g.op.w_file;
  Mnk s;
  s.m = agree("M", {g.m}, dim(af, 0), ad, cmd).or_(-1);
  s.k = agree("K", agree("K", {g.k}, dim(af, 1), ad, cmd), dim(wf, 0), wd, cmd).or_(-1);
  s.n = agree("N", {g.n}, dim(wf, 1), wd, cmd).or_(-1);
  return s;
}

// ---- gemm in the FP modes (--a-fmt / --w-fmt): weft/ops.hpp, Operand::format and
// OutputStage::format; checked bit for bit against weft/golden/fp.hpp.

weft::ElemFormat elem_format(const std::string& name) {
  if (name == "e4m3") return weft::ElemFormat::kE4m3;
  if (name == "e5m2") return weft::ElemFormat::kE5m2;
  if (name == "bf16") return weft::ElemFormat::kBf16;
  return weft::ElemFormat::kFp32;  // "fp32" (CLI11 admits no other name)
}

const char* elem_format_name(weft::ElemFormat f) {
  switch (f) {
    case weft::ElemFormat::kE4m3:
      return "e4m3";
    case weft::ElemFormat::kE5m2:
      return "e5m2";
    case weft::ElemFormat::kBf16:
      return "bf16";
    case weft::ElemFormat::kFp32:
      return "fp32";
    default:
      return "int";
  }
}

// ElemFormat and golden::FpFormat share their numbering (E4M3 = 1 ... FP32 = 4).
weft::golden::FpFormat golden_format(weft::ElemFormat f) {
  return static_cast<weft::golden::FpFormat>(f);
}

// The FP options against each other and against the integer-only ones, before any file is read
// or the device opened. A and W are both FP8, both BF16 or both integer: the driver mixes E4M3
// and E5M2 but not an integer operand with an FP one, nor BF16 with FP8.
void check_fp_options(const GemmArgs& g) {
  const OpArgs& o = g.op;
  const bool a = !g.a_fmt.empty(), w = !g.w_fmt.empty();
  if (a != w) {
    const char *given = a ? "--a-fmt" : "--w-fmt", *missing = a ? "--w-fmt" : "--a-fmt";
    throw UsageError(fmt::format(
        "weft gemm: {} without {}: A and W are both FP or both integer; give {} e4m3|e5m2|bf16 "
        "as well (the two FP8 formats may differ; BF16 pairs with BF16), or neither for an "
        "integer gemm",
        given, missing, missing));
  }
  if (a && (g.a_fmt == "bf16") != (g.w_fmt == "bf16")) {
    throw UsageError(fmt::format(
        "weft gemm: --a-fmt {} with --w-fmt {}: BF16 multiplies BF16 only; give bf16 for both, "
        "or FP8 formats (e4m3|e5m2) for both",
        g.a_fmt, g.w_fmt));
  }
  if (!a) {
    if (!g.out_fmt.empty() || g.relu) {
      throw UsageError(fmt::format(
          "weft gemm: {} is for FP operands: give --a-fmt and --w-fmt (e4m3|e5m2|bf16) too; an "
          "integer gemm's output is --mode",
          g.out_fmt.empty() ? "--relu" : "--out-fmt"));
    }
    return;
  }
  std::vector<std::string> integer_only;
  if (o.a_zp) integer_only.push_back("--a-zero-point");
  if (o.w_zp) integer_only.push_back("--w-zero-point");
  if (o.mode_given) integer_only.push_back("--mode");
  if (o.int32) integer_only.push_back("--int32");
  if (o.a_unsigned) integer_only.push_back("--unsigned-a");
  if (o.w_unsigned) integer_only.push_back("--unsigned-w");
  if (!integer_only.empty()) {
    const bool one = integer_only.size() == 1;
    throw UsageError(fmt::format(
        "weft gemm: {} {} integer-only and {} not apply to FP operands (--a-fmt / --w-fmt), "
        "which have no zero point, sign or integer --mode: drop {} (the FP output stage is "
        "--out-fmt, --scale, --relu and a float32 --bias)",
        join(integer_only), one ? "is" : "are", one ? "does" : "do", one ? "it" : "them"));
  }
}

// An FP operand from a file (or nothing), in the format --a-fmt / --w-fmt says: FP8, a file of
// uint8 codes (a .npy has no FP8 dtype numpy itself reads); BF16, a float32 file whose values
// are rounded to BF16 (nearest even; numpy has no bfloat16 either).
std::optional<weft::npy::Array> read_fp_operand(const std::string& file, weft::ElemFormat f,
                                                const char* opt, const char* fmt_opt,
                                                const char* layout) {
  if (file.empty()) return std::nullopt;
  weft::npy::Array a = weft::npy::read(file);
  const bool bf16 = f == weft::ElemFormat::kBf16;
  if (a.dtype != (bf16 ? weft::npy::Dtype::kFloat32 : weft::npy::Dtype::kUint8)) {
    throw UsageError(fmt::format(
        "weft gemm: {} {} is {}; with {} {} the operand is {}", opt, file,
        weft::npy::dtype_name(a.dtype), fmt_opt, elem_format_name(f),
        bf16
            ? "a float32 file (its values are rounded to BF16)"
            : "a file of uint8 FP8 codes (e.g. x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))"));
  }
  check_operand_shape(a, file, opt, 2, layout, "gemm");
  return a;
}

// An FP operand's element codes (FP8 one byte, BF16 16 bits), from a file or random, and the
// bytes the driver takes (BF16 little-endian, two per element).
struct FpOperand {
  std::vector<uint32_t> codes;
  std::vector<uint8_t> bytes;
};

FpOperand fp_operand_bytes(std::vector<uint32_t> codes, weft::ElemFormat f) {
  FpOperand o;
  o.codes = std::move(codes);
  const int nb = weft::golden::fp_bytes(golden_format(f));
  o.bytes.reserve(o.codes.size() * size_t(nb));
  for (uint32_t c : o.codes) {
    for (int b = 0; b < nb; ++b) o.bytes.push_back(static_cast<uint8_t>(c >> (8 * b)));
  }
  return o;
}

FpOperand fp_operand_from_file(const weft::npy::Array& a, weft::ElemFormat f) {
  std::vector<uint32_t> codes(a.elements());
  for (size_t i = 0; i < codes.size(); ++i) {
    codes[i] = f == weft::ElemFormat::kBf16
                   ? weft::golden::fp_encode(a.at_float(i), weft::golden::FpFormat::kBf16)
                   : a.data[i];
  }
  return fp_operand_bytes(std::move(codes), f);
}

// --bias with FP operands: float32, one value per output column (OutputStage::fp_bias, added
// after the scale); no file: none (0.0).
std::vector<float> read_fp_bias(const std::string& file, int64_t n) {
  if (file.empty()) return {};
  const weft::npy::Array b = weft::npy::read(file);
  if (b.dtype != weft::npy::Dtype::kFloat32 || b.shape.size() != 1 || b.shape[0] != uint64_t(n)) {
    throw UsageError(fmt::format(
        "weft gemm: --bias {} with FP operands must be float32 with shape ({},), one value per "
        "output channel; it is {} {}",
        file, n, weft::npy::dtype_name(b.dtype), b.shape_string()));
  }
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = b.at_float(i);
  return v;
}

// Random FP codes: N(0, 1) values rounded into the format. Always finite (FP8 rounding
// saturates; the driver takes NaN and Inf codes, but a random check should not be all NaN), both
// signs and a spread of exponents around 1, so that the sums neither overflow nor all cancel.
FpOperand random_fp(size_t n, weft::ElemFormat f, std::mt19937_64& rng, Progress& prog,
                    const std::string& what) {
  std::vector<uint32_t> v(n);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t piece = 1u << 22;
  if (n > piece) prog.phase(what);
  for (size_t i = 0; i < n; ++i) {
    v[i] = weft::golden::fp_encode(normal(rng), golden_format(f));
    if ((i + 1) % piece == 0) prog.set(double(i + 1) / double(n));
  }
  if (n > piece) prog.end();
  return fp_operand_bytes(std::move(v), f);
}

// The device's result in an FP output format; bits(i): element i's encoding.
struct FpResult {
  weft::ElemFormat fmt = weft::ElemFormat::kFp32;
  std::vector<float> f32;
  std::vector<uint16_t> bf16;
  std::vector<uint8_t> fp8;
  uint32_t bits(size_t i) const {
    if (fmt == weft::ElemFormat::kFp32) return std::bit_cast<uint32_t>(f32[i]);
    return fmt == weft::ElemFormat::kBf16 ? bf16[i] : fp8[i];
  }
};

void write_fp_out(const std::string& file, const FpResult& r, const std::vector<uint64_t>& shape) {
  if (file.empty()) return;
  std::string what;
  if (r.fmt == weft::ElemFormat::kFp32) {
    weft::npy::write(file, weft::npy::from_float32(r.f32, shape));
    what = "float32";
  } else if (r.fmt == weft::ElemFormat::kBf16) {
    weft::npy::write_uint16(file, r.bf16, shape);
    what = "uint16, BF16 encodings";
  } else {
    weft::npy::write(file, weft::npy::from_int8(r.fp8, shape, false));
    what = fmt::format("uint8, {} codes", elem_format_name(r.fmt));
  }
  fmt::print("out      {} ({})\n", file, what);
}

int cmd_gemm_fp(const std::string& uri, const GemmArgs& g) {
  const char* cmd = "gemm";
  const OpArgs& o = g.op;
  check_mnk(g);
  const weft::ElemFormat a_fmt = elem_format(g.a_fmt), w_fmt = elem_format(g.w_fmt);
  const weft::ElemFormat out_fmt = elem_format(g.out_fmt.empty() ? "fp32" : g.out_fmt);
  // The scale is a float32 on the device: any finite one will do (negative and 0 included).
  const float scale = o.scale ? static_cast<float>(*o.scale) : 1.0f;
  if (!std::isfinite(scale)) {
    throw UsageError(fmt::format(
        "weft gemm: --scale must be a finite float32 value with FP operands (got {})", *o.scale));
  }
  check_out_file(o.out_file, cmd);
  const auto af = read_fp_operand(o.a_file, a_fmt, "--a", "--a-fmt", "M x K");
  const auto wf = read_fp_operand(o.w_file, w_fmt, "--w", "--w-fmt", "K x N");
  const Mnk sizes = gemm_sizes(g, af, wf);
  const int64_t M = sizes.m, N = sizes.n, K = sizes.k;
  const std::vector<float> bias = read_fp_bias(o.bias_file, N);

  weft::GemmOptions opt;
  opt.a = {true, 0, a_fmt};
  opt.w = {true, 0, w_fmt};
  opt.out.format = out_fmt;
  if (o.scale) opt.out.scale = {scale};  // else none: 1.0
  opt.out.fp_bias = bias;
  opt.out.relu = g.relu;
  opt.fine_start = !o.no_fine_start;
  opt.short_tail = !o.no_short_tail;

  weft::Device dev = weft::Device::open(uri);
  fmt::print("device   {}\n", dev.description());
  fmt::print(
      "gemm     M={} N={} K={} seed={} out={} scale={} bias={} relu={}, A {} ({}), W {} ({})\n", M,
      N, K, o.seed, elem_format_name(out_fmt), scale, o.bias_file.empty() ? "none" : o.bias_file,
      g.relu ? "on" : "off", elem_format_name(a_fmt), af ? o.a_file : "random",
      elem_format_name(w_fmt), wf ? o.w_file : "random");
  // The driver would refuse too (Errc::kUnsupported), but only after the operands are made; this
  // says at once what the user can change.
  if (!dev.caps().tensor_fp) {
    throw UsageError(
        "weft gemm: this device has no FP tensor modes (CAP4.fp = 0: the board build leaves "
        "them out); run FP8 / BF16 on --device sim:// or ref://, or drop --a-fmt / --w-fmt for "
        "an integer gemm");
  }
  // FP32 and BF16 results are stored unpacked, 4 bytes a column, as the INT32 mode's.
  const bool wide_out = out_fmt == weft::ElemFormat::kFp32 || out_fmt == weft::ElemFormat::kBf16;
  weft::gemm_check_size(dev, M, N, K,
                        wide_out ? weft::StoreMode::kInt32 : weft::StoreMode::kTfliteDouble);
  const uint64_t esz = weft::golden::fp_bytes(golden_format(a_fmt));
  check_host_memory(dev.caps(), M, N, K, (uint64_t(M) * K + uint64_t(K) * N) * esz, wide_out,
                    o.check, cmd);
  note_duration(uri, dev.caps(), M, N, K);

  Progress prog(o.quiet);
  std::mt19937_64 rng(o.seed);
  const FpOperand ao =
      af ? fp_operand_from_file(*af, a_fmt) : random_fp(size_t(M) * K, a_fmt, rng, prog, "A");
  const FpOperand wo =
      wf ? fp_operand_from_file(*wf, w_fmt) : random_fp(size_t(K) * N, w_fmt, rng, prog, "W");
  const std::vector<uint8_t>& a = ao.bytes;
  const std::vector<uint8_t>& w = wo.bytes;

  FpResult r;
  r.fmt = out_fmt;
  const size_t mn = size_t(M) * N;
  opt.progress = [&](double f) { prog.set(f); };
  prog.phase("device");
  const auto t0 = std::chrono::steady_clock::now();
  weft::OpStats st;
  if (out_fmt == weft::ElemFormat::kFp32) {
    r.f32.resize(mn);
    st = weft::gemm(dev, int(M), int(N), int(K), a, w, std::span<float>(r.f32), opt);
  } else if (out_fmt == weft::ElemFormat::kBf16) {
    r.bf16.resize(mn);
    st = weft::gemm(dev, int(M), int(N), int(K), a, w, std::span<uint16_t>(r.bf16), opt);
  } else {
    r.fp8.resize(mn);
    st = weft::gemm(dev, int(M), int(N), int(K), a, w, std::span<uint8_t>(r.fp8), opt);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  prog.end();

  int rc = kExitOk;
  if (o.check) {
    // golden::gemm_fp (k-tiles of the device's row count: the tile order is part of the
    // result), fp_postprocess and the output encoding, in pieces of rows so that the progress
    // moves. Every element's encoding is compared; FP32 through fp32_bits (the canonical NaN).
    prog.phase("golden");
    const auto fa = golden_format(a_fmt), fw = golden_format(w_fmt), fo = golden_format(out_fmt);
    const std::vector<uint32_t>& w_bits = wo.codes;
    const size_t rows = std::max<size_t>(1, (size_t{1} << 24) / (size_t(K) * N));
    size_t bad = 0;
    std::vector<std::string> lines;
    const int hex_digits = 2 * weft::golden::fp_bytes(fo);
    for (size_t r0 = 0; r0 < size_t(M); r0 += rows) {
      const size_t nr = std::min<size_t>(rows, M - r0);
      const std::vector<uint32_t> a_bits(ao.codes.begin() + r0 * K,
                                         ao.codes.begin() + (r0 + nr) * K);
      const auto acc = weft::golden::gemm_fp(a_bits, w_bits, int(nr), int(K), int(N), fa, fw,
                                             int(dev.caps().rows));
      for (size_t i = 0; i < acc.size(); ++i) {
        const size_t idx = r0 * size_t(N) + i;
        const float y =
            weft::golden::fp_postprocess(acc[i], scale, bias.empty() ? 0.0f : bias[i % N], g.relu);
        const uint32_t want = out_fmt == weft::ElemFormat::kFp32 ? weft::golden::fp32_bits(y)
                                                                 : weft::golden::fp_encode(y, fo);
        const uint32_t got = r.bits(idx);
        if (got == want) continue;
        if (++bad <= 5) {
          lines.push_back(
              fmt::format("mismatch C[{}][{}]: device {:#0{}x} ({}), golden {:#0{}x} ({})", idx / N,
                          idx % N, got, hex_digits + 2, weft::golden::fp_decode(got, fo), want,
                          hex_digits + 2, weft::golden::fp_decode(want, fo)));
        }
      }
      prog.set(double(r0 + nr) / double(M));
    }
    prog.end();
    for (const auto& l : lines) fmt::print("{}\n", l);
    fmt::print("check    {} ({} of {} elements differ from the golden model)\n",
               bad ? "FAILED" : "passed, bit-exact", bad, mn);
    rc = bad ? kExitMismatch : kExitOk;
  }
  print_summary(uri, st, secs, dev, o.perf);
  write_fp_out(o.out_file, r, {uint64_t(M), uint64_t(N)});
  return rc;
}

int cmd_gemm(const std::string& uri, const GemmArgs& g) {
  const char* cmd = "gemm";
  const OpArgs& o = g.op;
  check_fp_options(g);
  if (!g.a_fmt.empty()) return cmd_gemm_fp(uri, g);
  const weft::StoreMode mode = store_mode(o, cmd);
  check_mnk(g);
  check_out_file(o.out_file, cmd);
  const auto af = read_operand(o.a_file, "--a", "--unsigned-a", o.a_unsigned, 2, "M x K", cmd);
  const auto wf = read_operand(o.w_file, "--w", "--unsigned-w", o.w_unsigned, 2, "K x N", cmd);
  const Mnk sizes = gemm_sizes(g, af, wf);
  const int64_t M = sizes.m, N = sizes.n, K = sizes.k;
  weft::GemmOptions opt = gemm_options(o, af, wf);

  weft::Device dev = weft::Device::open(uri);
  fmt::print("device   {}\n", dev.description());
  fmt::print("gemm     M={} N={} K={} seed={} mode={}, A {} ({}), W {} ({})\n", M, N, K, o.seed,
             mode_name(mode), type_name(opt.a), af ? o.a_file : "random", type_name(opt.w),
             wf ? o.w_file : "random");
  // Sizes against the arena, the device's limits and this host before any operand is made.
  weft::gemm_check_size(dev, M, N, K, mode);
  check_host_memory(dev.caps(), M, N, K, uint64_t(M) * K + uint64_t(K) * N,
                    mode == weft::StoreMode::kInt32, o.check, cmd);
  note_duration(uri, dev.caps(), M, N, K);

  Progress prog(o.quiet);
  std::mt19937_64 rng(o.seed);
  const auto a = af ? af->data : random_bytes(size_t(M) * K, rng, prog, "A");
  const auto w = wf ? wf->data : random_bytes(size_t(K) * N, rng, prog, "W");
  const Stage stage = make_stage(o, mode, K, make_bias(o, int(N), af || wf, rng, cmd), cmd);
  opt.out = stage.out;

  Result r;
  r.int32 = mode == weft::StoreMode::kInt32;
  opt.progress = [&](double f) { prog.set(f); };
  prog.phase("device");
  const auto t0 = std::chrono::steady_clock::now();
  weft::OpStats st;
  if (r.int32) {
    r.c32.resize(size_t(M) * N);
    st = weft::gemm(dev, int(M), int(N), int(K), a, w, r.c32, opt);
  } else {
    r.c8.resize(size_t(M) * N);
    st = weft::gemm(dev, int(M), int(N), int(K), a, w, r.c8, opt);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  prog.end();

  int rc = kExitOk;
  if (o.check) {
    // weft::golden::gemm and postprocess, in pieces of rows so that the progress moves.
    prog.phase("golden");
    const weft::golden::OperandType at{opt.a.is_signed, opt.a.zero_point};
    const weft::golden::OperandType wt{opt.w.is_signed, opt.w.zero_point};
    const auto wv = widen(w, opt.w.is_signed);
    std::vector<weft::golden::ChannelParams> ch(N);
    for (int64_t i = 0; i < N; ++i) {
      ch[i] = {opt.out.bias[i], stage.mult, stage.shift, opt.out.scale[0]};
    }
    const weft::golden::OutputParams op{static_cast<weft::golden::RequantMode>(mode),
                                        opt.out.zero_point, opt.out.act_min, opt.out.act_max};
    const size_t rows = std::max<size_t>(1, (size_t{1} << 24) / (size_t(K) * N));
    size_t bad = 0;
    std::vector<std::string> lines;
    for (size_t r0 = 0; r0 < size_t(M); r0 += rows) {
      const size_t nr = std::min<size_t>(rows, M - r0);
      const auto av = widen(std::span(a).subspan(r0 * K, nr * K), opt.a.is_signed);
      const auto acc = weft::golden::gemm(av, wv, int(nr), int(K), int(N), at, wt);
      const auto want = weft::golden::postprocess(acc, int(nr), int(N), ch, op);
      bad += compare_rows(r, want, r0, int(N), &lines,
                          [&](size_t i) { return fmt::format("C[{}][{}]", i / N, i % N); });
      prog.set(double(r0 + nr) / double(M));
    }
    prog.end();
    for (const auto& l : lines) fmt::print("{}\n", l);
    fmt::print("check    {} ({} of {} elements differ from the golden model)\n",
               bad ? "FAILED" : "passed, bit-exact", bad, size_t(M) * N);
    rc = bad ? kExitMismatch : kExitOk;
  }
  print_summary(uri, st, secs, dev, o.perf);
  write_out(o.out_file, r, {uint64_t(M), uint64_t(N)});
  return rc;
}

// Comma-separated integers ("3", "3,5", "1,0,1,0"), each wholly a number; nullopt otherwise.
std::optional<std::vector<int64_t>> parse_ints(const std::string& s) {
  std::vector<int64_t> v;
  const char* p = s.data();
  const char* end = s.data() + s.size();
  for (;;) {
    int64_t x = 0;
    const auto [q, ec] = std::from_chars(p, end, x);
    if (ec != std::errc() || q == p) return std::nullopt;
    v.push_back(x);
    if (q == end) return v;
    if (*q != ',') return std::nullopt;
    p = q + 1;
  }
}

// "3" or "3,5" (two values: first, second).
std::pair<int64_t, int64_t> parse_pair(const std::string& s, const char* opt) {
  const auto v = parse_ints(s);
  if (v && v->size() == 1) return {(*v)[0], (*v)[0]};
  if (v && v->size() == 2) return {(*v)[0], (*v)[1]};
  throw UsageError(fmt::format("weft conv2d: {} {}: expected N or N,M", opt, s));
}

struct ConvArgs {
  std::optional<int64_t> batch, height, width, channels, out_channels;
  std::string kernel, stride = "1", pad = "0";
  OpArgs op;
};

int cmd_conv2d(const std::string& uri, const ConvArgs& c) {
  const char* cmd = "conv2d";
  const OpArgs& o = c.op;
  const weft::StoreMode mode = store_mode(o, cmd);
  for (const auto& [v, name] : {std::pair{c.batch, "--batch"},
                                {c.height, "--height"},
                                {c.width, "--width"},
                                {c.channels, "--channels"},
                                {c.out_channels, "--out-channels"}}) {
    if (v && (*v < 1 || *v > INT32_MAX)) {
      throw UsageError(fmt::format("weft conv2d: {} must be in 1..2147483647 (got {})", name, *v));
    }
  }
  check_out_file(o.out_file, cmd);
  const auto xf = read_operand(o.a_file, "--input", "--unsigned-input", o.a_unsigned, 4,
                               "N x H x W x C, NHWC", cmd);
  const auto ff = read_operand(o.w_file, "--filter", "--unsigned-filter", o.w_unsigned, 4,
                               "C_out x KH x KW x C, OHWI", cmd);
  auto dim = [](const std::optional<weft::npy::Array>& f, int i) {
    return f ? std::optional<uint64_t>(f->shape[i]) : std::nullopt;
  };
  const std::string xd = "--input " + o.a_file, fd = "--filter " + o.w_file;
  weft::Conv2dShape s;
  s.n = int(agree("N (--batch)", {c.batch}, dim(xf, 0), xd, cmd).or_(1));
  s.h = int(agree("H (--height)", {c.height}, dim(xf, 1), xd, cmd).or_(-1));
  s.w = int(agree("W (--width)", {c.width}, dim(xf, 2), xd, cmd).or_(-1));
  const Dim cin = agree("C (--channels)", {c.channels}, dim(xf, 3), xd, cmd);
  s.c_in = int(agree("C (--channels)", cin, dim(ff, 3), fd, cmd).or_(-1));
  s.c_out = int(agree("C_out (--out-channels)", {c.out_channels}, dim(ff, 0), fd, cmd).or_(-1));
  if (s.h < 0 || s.w < 0 || s.c_in < 0) {
    throw UsageError(
        "weft conv2d: give the input's shape (--height, --width, --channels and "
        "optionally --batch) or an --input file");
  }
  if (s.c_out < 0) {
    throw UsageError("weft conv2d: give --out-channels or a --filter file");
  }
  std::optional<std::pair<int64_t, int64_t>> kern;
  if (!c.kernel.empty()) kern = parse_pair(c.kernel, "--kernel");
  const std::optional<int64_t> kh_opt = kern ? std::optional(kern->first) : std::nullopt;
  const std::optional<int64_t> kw_opt = kern ? std::optional(kern->second) : std::nullopt;
  s.kh = int(agree("KH (--kernel)", {kh_opt}, dim(ff, 1), fd, cmd).or_(3));
  s.kw = int(agree("KW (--kernel)", {kw_opt}, dim(ff, 2), fd, cmd).or_(3));
  const auto [sh, sw] = parse_pair(c.stride, "--stride");
  if (sh < 1 || sw < 1 || sh > INT32_MAX || sw > INT32_MAX) {
    throw UsageError(fmt::format("weft conv2d: --stride {}: strides must be >= 1", c.stride));
  }
  s.stride_h = int(sh);
  s.stride_w = int(sw);
  if (c.pad == "same") {
    // TFLite / TensorFlow SAME: the output is ceil(in / stride), the padding split with the
    // extra row / column at the bottom / right.
    auto same = [](int in, int k, int st, int* lo, int* hi) {
      const int64_t out = (int64_t{in} + st - 1) / st;
      const int64_t total = std::max<int64_t>(0, (out - 1) * st + k - in);
      *lo = int(total / 2);
      *hi = int(total - total / 2);
    };
    same(s.h, s.kh, s.stride_h, &s.pad_top, &s.pad_bottom);
    same(s.w, s.kw, s.stride_w, &s.pad_left, &s.pad_right);
  } else if (c.pad != "valid") {
    auto p = parse_ints(c.pad).value_or(std::vector<int64_t>{});
    if (p.size() == 1) p.assign(4, p[0]);
    if (p.size() != 4) {
      throw UsageError(fmt::format(
          "weft conv2d: --pad {}: expected P, TOP,LEFT,BOTTOM,RIGHT, same or valid", c.pad));
    }
    for (int64_t v : p) {
      if (v < 0 || v > INT32_MAX) {
        throw UsageError(fmt::format("weft conv2d: --pad {}: paddings must be >= 0", c.pad));
      }
    }
    s.pad_top = int(p[0]), s.pad_left = int(p[1]), s.pad_bottom = int(p[2]),
    s.pad_right = int(p[3]);
  }
  weft::GemmOptions opt = gemm_options(o, xf, ff);

  weft::Device dev = weft::Device::open(uri);
  fmt::print("device   {}\n", dev.description());
  fmt::print(
      "conv2d   input {}x{}x{}x{} {} ({}), filter {}x{}x{}x{} {} ({}), stride {},{}, "
      "pad {},{},{},{}, seed={} mode={}\n",
      s.n, s.h, s.w, s.c_in, type_name(opt.a), xf ? o.a_file : "random", s.c_out, s.kh, s.kw,
      s.c_in, type_name(opt.w), ff ? o.w_file : "random", s.stride_h, s.stride_w, s.pad_top,
      s.pad_left, s.pad_bottom, s.pad_right, o.seed, mode_name(mode));
  // Shape, device limits, arena and host memory before any operand is made.
  weft::conv2d_check_size(dev, s, mode);
  const int oh = s.out_h(), ow = s.out_w();
  const uint64_t M = uint64_t(s.n) * oh * ow, K = uint64_t(s.kh) * s.kw * s.c_in;
  const uint64_t in_bytes = uint64_t(s.n) * s.h * s.w * s.c_in;
  const uint64_t f_bytes = uint64_t(s.c_out) * K;
  check_host_memory(dev.caps(), M, s.c_out, K, in_bytes + f_bytes + M * K,
                    mode == weft::StoreMode::kInt32, o.check, cmd);
  fmt::print("output   {}x{}x{}x{} (NHWC), as gemm M={} N={} K={}\n", s.n, oh, ow, s.c_out, M,
             s.c_out, K);
  note_duration(uri, dev.caps(), M, s.c_out, K);

  Progress prog(o.quiet);
  std::mt19937_64 rng(o.seed);
  const auto x = xf ? xf->data : random_bytes(in_bytes, rng, prog, "input");
  const auto f = ff ? ff->data : random_bytes(f_bytes, rng, prog, "filter");
  const Stage stage =
      make_stage(o, mode, int64_t(K), make_bias(o, s.c_out, xf || ff, rng, cmd), cmd);
  opt.out = stage.out;

  Result r;
  r.int32 = mode == weft::StoreMode::kInt32;
  opt.progress = [&](double v) { prog.set(v); };
  prog.phase("device");
  const auto t0 = std::chrono::steady_clock::now();
  weft::OpStats st;
  if (r.int32) {
    r.c32.resize(M * s.c_out);
    st = weft::conv2d(dev, s, x, f, r.c32, opt);
  } else {
    r.c8.resize(M * s.c_out);
    st = weft::conv2d(dev, s, x, f, r.c8, opt);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  prog.end();

  int rc = kExitOk;
  if (o.check) {
    // weft::golden::conv2d (then postprocess), one image of the batch at a time.
    prog.phase("golden");
    weft::golden::Conv2dShape g{1,          s.h,          s.w,        s.c_in,     s.kh,
                                s.kw,       s.c_out,      s.stride_h, s.stride_w, s.pad_top,
                                s.pad_left, s.pad_bottom, s.pad_right};
    const auto fv = widen(f, opt.w.is_signed);
    std::vector<weft::golden::ChannelParams> ch(s.c_out);
    for (int i = 0; i < s.c_out; ++i) {
      ch[i] = {opt.out.bias[i], stage.mult, stage.shift, opt.out.scale[0]};
    }
    const weft::golden::OutputParams op{static_cast<weft::golden::RequantMode>(mode),
                                        opt.out.zero_point, opt.out.act_min, opt.out.act_max};
    const size_t img = size_t(s.h) * s.w * s.c_in, rows = size_t(oh) * ow;
    size_t bad = 0;
    std::vector<std::string> lines;
    for (int b = 0; b < s.n; ++b) {
      const auto xv = widen(std::span(x).subspan(b * img, img), opt.a.is_signed);
      const auto acc = weft::golden::conv2d(xv, fv, g, {opt.a.is_signed, opt.a.zero_point},
                                            {opt.w.is_signed, opt.w.zero_point});
      const auto want = weft::golden::postprocess(acc, int(rows), s.c_out, ch, op);
      bad += compare_rows(r, want, b * rows, s.c_out, &lines, [&](size_t i) {
        const size_t co = i % s.c_out, pix = i / s.c_out;
        return fmt::format("out[{}][{}][{}][{}]", pix / rows, (pix % rows) / ow, pix % ow, co);
      });
      prog.set(double(b + 1) / s.n);
    }
    prog.end();
    for (const auto& l : lines) fmt::print("{}\n", l);
    fmt::print("check    {} ({} of {} elements differ from the golden model's conv2d)\n",
               bad ? "FAILED" : "passed, bit-exact", bad, M * s.c_out);
    rc = bad ? kExitMismatch : kExitOk;
  }
  print_summary(uri, st, secs, dev, o.perf);
  write_out(o.out_file, r, {uint64_t(s.n), uint64_t(oh), uint64_t(ow), uint64_t(s.c_out)});
  return rc;
}

// ------------------------------------------------------------------------------------------ simt
struct SimtArgs {
  std::string kernel;
  int64_t n = 4096;
  uint64_t seed = 1;
  std::optional<int64_t> warps, threads;  // default: the whole core (CAP3)
  bool check = false, quiet = false, perf = false;
  std::string elf_dir;
};

// One run of a library kernel: its input buffers, its output buffers' initial contents (junk, or
// the data of an in/out buffer), and the argument struct given the buffers' addresses.
struct SimtJob {
  std::string shape;
  uint64_t elements = 0;
  std::vector<std::vector<uint8_t>> inputs, outputs;
  std::function<std::vector<uint8_t>(const std::vector<uint32_t>& in,
                                     const std::vector<uint32_t>& out)>
      args;
  size_t args_bytes = 0;
};

template <class T>
std::vector<uint8_t> as_bytes(const T& v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// Random operands for `kernel`, sized so that about n elements are produced. Empty shape:
// unknown kernel.
SimtJob simt_job(const std::string& kernel, uint64_t n, std::mt19937_64& rng) {
  SimtJob j;
  auto bytes = [&](size_t k) {
    std::vector<uint8_t> v(k);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  };
  const auto u32 = [](uint64_t v) { return static_cast<uint32_t>(v); };
  const auto side = [](double x) {
    return std::max<uint32_t>(1, uint32_t(std::lround(std::sqrt(x))));
  };
  const auto junk = [](size_t k) { return std::vector<uint8_t>(k, 0xa5); };
  if (kernel == "vecadd") {
    j.elements = n;
    j.shape = fmt::format("{} int32", n);
    j.inputs = {bytes(4 * n), bytes(4 * n)};
    j.outputs = {junk(4 * n)};
    j.args_bytes = sizeof(weft_vecadd_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_vecadd_args{u32(n), in[0], in[1], out[0]});
    };
  } else if (kernel == "saxpy") {
    j.elements = n;
    const int32_t alpha = static_cast<int32_t>(rng() % 2001) - 1000;
    j.shape = fmt::format("{} int32, alpha {}", n, alpha);
    j.inputs = {bytes(4 * n)};
    j.outputs = {bytes(4 * n)};  // y: read and written
    j.args_bytes = sizeof(weft_saxpy_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_saxpy_args{u32(n), alpha, in[0], out[0]});
    };
  } else if (kernel == "relu") {
    j.elements = n;
    j.shape = fmt::format("{} int8, zero point -3", n);
    j.inputs = {bytes(n)};
    j.outputs = {junk(n)};
    j.args_bytes = sizeof(weft_relu_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_relu_args{u32(n), -3, in[0], out[0]});
    };
  } else if (kernel == "requant") {
    const uint32_t ch = 16, rows = u32(std::max<uint64_t>(1, n / ch));
    j.elements = uint64_t{rows} * ch;
    j.shape = fmt::format("{} x {} int32 -> int8, TFLite double rounding", rows, ch);
    std::vector<int32_t> acc(j.elements), bias(ch), mult(ch), shift(ch);
    for (auto& a : acc) a = static_cast<int32_t>(rng() % (1 << 23)) - (1 << 22);
    for (uint32_t c = 0; c < ch; ++c) {
      int sh = 0;
      weft::golden::quantize_multiplier(std::ldexp(1.0, -int(rng() % 14)) * 0.7, &mult[c], &sh);
      shift[c] = sh;
      bias[c] = static_cast<int32_t>(rng() % 20001) - 10000;
    }
    auto raw = [](const std::vector<int32_t>& v) {
      std::vector<uint8_t> b(v.size() * 4);
      std::memcpy(b.data(), v.data(), b.size());
      return b;
    };
    j.inputs = {raw(acc), raw(bias), raw(mult), raw(shift)};
    j.outputs = {junk(j.elements)};
    j.args_bytes = sizeof(weft_requant_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(
          weft_requant_args{u32(rows * ch), ch, in[0], out[0], in[1], in[2], in[3], -5, -128, 127});
    };
  } else if (kernel == "maxpool") {
    const uint32_t c = 16, hw = 2 * side(double(n) / c);
    j.elements = uint64_t{hw / 2} * (hw / 2) * c;
    j.shape = fmt::format("1 x {} x {} x {} int8 -> {} x {}", hw, hw, c, hw / 2, hw / 2);
    j.inputs = {bytes(size_t{hw} * hw * c)};
    j.outputs = {junk(j.elements)};
    j.args_bytes = sizeof(weft_maxpool_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_maxpool_args{1, hw, hw, c, in[0], out[0]});
    };
  } else if (kernel == "transpose") {
    const uint32_t r = side(double(n)), c = u32((n + r - 1) / r);
    j.elements = uint64_t{r} * c;
    j.shape = fmt::format("{} x {} int8", r, c);
    j.inputs = {bytes(j.elements)};
    j.outputs = {junk(j.elements)};
    j.args_bytes = sizeof(weft_transpose_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_transpose_args{r, c, in[0], out[0]});
    };
  } else if (kernel == "im2col") {
    const uint32_t c = 8, hw = side(double(n) / (9 * c));
    j.elements = uint64_t{hw} * hw * 9 * c;
    j.shape = fmt::format("1 x {} x {} x {} int8, 3x3 same", hw, hw, c);
    j.inputs = {bytes(size_t{hw} * hw * c)};
    j.outputs = {junk(j.elements)};
    j.args_bytes = sizeof(weft_im2col_args);
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(
          weft_im2col_args{1, hw, hw, c, 3, 3, 1, 1, 1, 1, hw, hw, -128, in[0], out[0]});
    };
  } else if (kernel == "softmax") {
    const uint32_t depth = 100, rows = u32(std::max<uint64_t>(1, (n + depth - 1) / depth));
    j.elements = uint64_t{rows} * depth;
    j.shape = fmt::format("{} rows x {} int8 -> uint8, input scale 1/8", rows, depth);
    j.inputs = {bytes(j.elements)};
    j.outputs = {junk(j.elements)};
    j.args_bytes = sizeof(weft_softmax_args);
    // TFLite SoftmaxPrepare for beta 1, input scale 1/8: real multiplier 2^26 / 8 = 2^23
    // = 0.5 * 2^24 -> (2^30, shift 24); input radius 31 * 2^26 / 2^24 = 124.
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_softmax_args{rows, depth, in[0], out[0], 1 << 30, 24, -124});
    };
  }
  return j;
}

// Bytes of the SIMT heap a job takes: every buffer and the argument struct, whole lines.
uint64_t heap_bytes(const SimtJob& j, uint32_t line) {
  auto lines = [&](uint64_t b) { return (std::max<uint64_t>(b, 1) + line - 1) / line * line; };
  uint64_t t = lines(j.args_bytes);
  for (const auto& b : j.inputs) t += lines(b.size());
  for (const auto& b : j.outputs) t += lines(b.size());
  return t;
}

std::vector<uint8_t> read_binary(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError("weft simt: cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The directory of this executable (/proc/self/exe), or empty.
std::string exe_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

// Finds <kernel>.elf: --elf-dir, else $WEFT_KERNEL_DIR (each of them, when given, the only
// place), else <dir of weft>/../share/weft/kernels (the install layout), then the build tree's
// kernel directory. The error lists every place looked at.
std::string find_kernel_elf(const std::string& kernel, const std::string& elf_dir) {
  std::vector<std::pair<std::string, std::string>> dirs;  // directory, why
  const char* env = std::getenv("WEFT_KERNEL_DIR");
  if (!elf_dir.empty()) {
    dirs.push_back({elf_dir, "--elf-dir"});
  } else if (env && *env) {
    dirs.push_back({env, "$WEFT_KERNEL_DIR"});
  } else {
    const std::string here = exe_dir();
    if (!here.empty()) {
      dirs.push_back({(fs::path(here) / ".." / "share" / "weft" / "kernels").lexically_normal(),
                      "installed beside this weft"});
    }
    if (*WEFT_KERNEL_ELF_DIR) dirs.push_back({WEFT_KERNEL_ELF_DIR, "the build tree"});
  }
  std::string looked;
  for (const auto& [d, why] : dirs) {
    const fs::path f = fs::path(d) / (kernel + ".elf");
    std::error_code ec;
    if (fs::is_regular_file(f, ec)) return f.string();
    looked += fmt::format("\n  {} ({})", f.string(), why);
  }
  throw UsageError(fmt::format(
      "weft simt: kernel {}.elf not found; looked at:{}\nGive the directory of the kernel ELFs "
      "with --elf-dir DIR or WEFT_KERNEL_DIR=DIR (they are built by the target weft_kernel_elfs "
      "with riscv64-unknown-elf-gcc and installed to <prefix>/share/weft/kernels)",
      kernel, looked));
}

int cmd_simt(const std::string& uri, const SimtArgs& a) {
  namespace gs = weft::golden::simt;
  if (std::find(kKernels.begin(), kKernels.end(), a.kernel) == kKernels.end()) {
    throw UsageError(fmt::format("weft simt: unknown kernel '{}' ({})", a.kernel, join(kKernels)));
  }
  if (a.n < 1 || a.n > (1 << 20)) {
    throw UsageError(fmt::format("weft simt: --n must be in 1..1048576 (got {})", a.n));
  }
  const std::string elf_path = find_kernel_elf(a.kernel, a.elf_dir);
  const std::vector<uint8_t> elf = read_binary(elf_path);

  weft::Device dev = weft::Device::open(uri);
  const auto& caps = dev.caps();
  fmt::print("device   {}\n", dev.description());
  if (!caps.has_simt()) {
    throw UsageError(
        "weft simt: this device has no SIMT core (CAP3 = 0); use a device with one, "
        "e.g. --device sim://");
  }
  // The launch shape against CAP3, before anything is launched.
  auto in_range = [](const std::optional<int64_t>& v, uint32_t max, const char* opt,
                     const char* what) {
    if (v && (*v < 1 || *v > int64_t(max))) {
      throw UsageError(
          fmt::format("weft simt: {} {} is out of range: this device has {} {} "
                      "(CAP3), so give 1..{}",
                      opt, *v, max, what, max));
    }
  };
  in_range(a.warps, caps.simt_warps, "--warps", "warps");
  in_range(a.threads, caps.simt_threads, "--threads", "threads per warp");
  const weft::SimtShape shape{a.warps ? uint32_t(*a.warps) : caps.simt_warps,
                              a.threads ? uint32_t(*a.threads) : caps.simt_threads};
  weft::Simt simt(dev);
  simt.load(weft::SimtImage::from_elf(elf));
  // The job's buffers against the heap of the data memory (image below, stacks above).
  const uint64_t heap = simt.heap_end() - simt.heap_begin();
  auto job_bytes = [&](uint64_t n) {
    std::mt19937_64 r(a.seed);
    return heap_bytes(simt_job(a.kernel, n, r), caps.bus_bytes);
  };
  if (job_bytes(a.n) > heap) {
    uint64_t lo = 0, hi = a.n - 1;  // the largest n that fits: lo (0: none)
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      if (job_bytes(mid) <= heap) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    throw UsageError(fmt::format(
        "weft simt: {} with --n {} needs {} of the SIMT data memory, its heap has {} ({} data "
        "memory less the kernel image and the stacks){}",
        a.kernel, a.n, human_bytes(job_bytes(a.n)), human_bytes(heap),
        human_bytes(caps.simt_dmem_bytes),
        lo ? fmt::format("; use --n {} or less", lo) : std::string()));
  }
  std::mt19937_64 rng(a.seed);
  const SimtJob job = simt_job(a.kernel, uint64_t(a.n), rng);
  fmt::print("kernel   {} ({}), {} elements, {} warps x {} threads, seed {}\n", a.kernel, job.shape,
             job.elements, shape.warps, shape.threads_per_warp, a.seed);
  std::vector<uint32_t> in, out;
  for (const auto& b : job.inputs) {
    in.push_back(simt.alloc(b.size()));
    simt.write(in.back(), b.data(), b.size());
  }
  for (const auto& b : job.outputs) {
    out.push_back(simt.alloc(b.size()));
    simt.write(out.back(), b.data(), b.size());
  }
  const std::vector<uint8_t> args = job.args(in, out);
  const uint32_t ap = simt.alloc(args.size());
  simt.write(ap, args.data(), args.size());
  Progress prog(a.quiet);
  prog.phase("launch", false);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = dev.cycle();
  const weft::SimtReport r = simt.launch(shape, ap);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t dev_cycles = dev.cycle() - c0;
  prog.end();
  int rc = kExitOk;
  if (a.check) {
    prog.phase("golden", false);
    gs::Machine m(
        gs::Config{.dmem_bytes = caps.simt_dmem_bytes, .imem_bytes = caps.simt_imem_bytes});
    const uint32_t entry = gs::load_elf(m, elf);
    for (size_t i = 0; i < in.size(); ++i) m.write_dmem(in[i], job.inputs[i]);
    for (size_t i = 0; i < out.size(); ++i) m.write_dmem(out[i], job.outputs[i]);
    m.write_dmem(ap, args);
    const gs::Result g = m.run({.entry_pc = entry,
                                .num_warps = shape.warps,
                                .threads_per_warp = shape.threads_per_warp,
                                .arg_ptr = ap,
                                .stack_top = simt.stack_top(),
                                .stack_size_per_thread = simt.stack_bytes()});
    prog.end();
    size_t bad = 0, total = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const std::vector<uint8_t> got = simt.read<uint8_t>(out[i], job.outputs[i].size());
      for (size_t k = 0; k < got.size(); ++k, ++total) {
        if (got[k] != m.dmem()[out[i] + k] && bad++ < 5) {
          fmt::print("mismatch output {} byte {}: device {}, golden {}\n", i, k, got[k],
                     m.dmem()[out[i] + k]);
        }
      }
    }
    const bool counts = g.ok() && r.issued == static_cast<uint32_t>(g.total_issues()) &&
                        r.active == static_cast<uint32_t>(g.total_active_threads());
    fmt::print(
        "check    {} ({} of {} output bytes differ from the golden model; warp "
        "instructions {} vs golden {}, thread instructions {} vs {})\n",
        bad || !counts ? "FAILED" : "passed, bit-exact", bad, total, r.issued, g.total_issues(),
        r.active, g.total_active_threads());
    rc = bad || !counts ? kExitMismatch : kExitOk;
  }
  fmt::print(
      "cycles   {} SIMT cycles{}, {:.3f} cycles/element, IPC {:.3f} warp instructions/cycle, "
      "{:.2f} s wall\n",
      r.cycles, cycles_note(uri), double(r.cycles) / double(job.elements), r.ipc(), secs);
  if (a.perf) {
    fmt::print("simt     {}\n", r.to_string());
    fmt::print("time     {} device cycles{} (transfers and launch)\n", dev_cycles,
               cycles_note(uri));
  }
  return rc;
}

// A driver message without the advice meant for library users (Queue::reset()), which a user of
// the tool cannot follow: the tool opens a new device each run.
std::string for_tool_user(std::string msg) {
  const size_t r = msg.find("Queue::reset()");
  if (r == std::string::npos) return msg;
  const size_t dot = msg.rfind(". ", r), semi = msg.rfind("; ", r);
  size_t cut = std::string::npos;
  if (dot != std::string::npos) cut = dot;
  if (semi != std::string::npos && (cut == std::string::npos || semi > cut)) cut = semi;
  return cut == std::string::npos ? msg : msg.substr(0, cut) + ".";
}

// The error's exit status: 2 for what the command line can fix (a bad URI, argument or model
// file, a shape the arena cannot hold), else 3.
int exit_status(const weft::Error& e) {
  switch (e.code()) {
    case weft::Errc::kBadArgument:
    case weft::Errc::kBadUri:
    case weft::Errc::kBadModel:
    case weft::Errc::kOutOfMemory:
      return kExitUsage;
    default:
      return kExitDevice;
  }
}

void add_op_options(CLI::App* c, OpArgs& o, std::string& uri, const char* a_opt, const char* w_opt,
                    const char* ua, const char* uw, const char* a_what, const char* w_what) {
  c->add_option("--device,-d", uri,
                "Device URI (default sim://, the Verilated RTL; ref://, pcie-sim://, "
                "uart://<tty>; docs/driver.md)");
  c->add_option("--seed", o.seed, "Seed of the random operands (default 1)");
  c->add_flag("--check", o.check, "Compare with the golden model (exit 1 on a mismatch)");
  c->add_option("--mode", o.mode, "Output: tflite-double (default), tflite-single, onnx, int32")
      ->check(CLI::IsMember({"tflite-double", "tflite-single", "onnx", "int32"}));
  c->add_flag("--int32", o.int32, "INT32 output (acc + bias): the same as --mode int32");
  c->add_option("--scale", o.scale,
                "Requantization scale of the 8-bit modes (default 1/(64 sqrt(K) + 1))");
  const auto cap = [](std::string t) {
    t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
    return t;
  };
  for (const auto& [flag, var, what] :
       {std::tuple{ua, &o.a_unsigned, a_what}, std::tuple{uw, &o.w_unsigned, w_what}}) {
    c->add_flag(flag, *var,
                fmt::format("{} is uint8 (zero point 128) instead of int8 (random operands; a "
                            "file's dtype says which)",
                            cap(what)));
  }
  c->add_option("--a-zero-point", o.a_zp, fmt::format("Zero point of {}", a_what));
  c->add_option("--w-zero-point", o.w_zp, fmt::format("Zero point of {}", w_what));
  c->add_option(a_opt, o.a_file,
                fmt::format("{} from a .npy file (int8 or uint8, C order)", cap(a_what)));
  c->add_option(w_opt, o.w_file,
                fmt::format("{} from a .npy file (int8 or uint8, C order)", cap(w_what)));
  c->add_option("--bias", o.bias_file,
                "Bias from a .npy file (int32, one per output channel; default: random with "
                "random operands, 0 with operands from files)");
  c->add_option("--out", o.out_file, "Write the result to a .npy file (int8, or int32)");
  c->add_flag("--perf", o.perf, "Also print the schedule and the full performance report");
  c->add_flag("--no-fine-start", o.no_fine_start, "Do not split the first output tile");
  c->add_flag("--no-short-tail", o.no_short_tail, "Do not split the last output tile");
  c->add_flag("--quiet,-q", o.quiet, "No progress indication");
}

}  // namespace

int main(int argc, char** argv) {
  // Lines appear as they are printed, also into a pipe or a file.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"weft: the Weft NPU command line (libweft)"};
  app.footer(kExitFooter);
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("weft: {}\nRun 'weft --help' or 'weft <command> --help' for the usage.\n",
                       e.what());
  });
  std::string uri = "sim://";
  auto* info = app.add_subcommand("info", "Show the device's capabilities and registers");
  info->add_option("--device,-d", uri,
                   "Device URI (default sim://, the Verilated RTL; ref://, pcie-sim://, "
                   "uart://<tty>; docs/driver.md)");

  GemmArgs g;
  auto* gemm = app.add_subcommand(
      "gemm",
      "INT8, FP8 or BF16 GEMM C[M][N] = A[M][K] x W[K][N] on the device (random or .npy "
      "operands)");
  gemm->add_option("M", g.m, "rows of A and C (or from --a)");
  gemm->add_option("N", g.n, "columns of W and C (or from --w)");
  gemm->add_option("K", g.k, "columns of A, rows of W (or from --a / --w)");
  add_op_options(gemm, g.op, uri, "--a", "--w", "--unsigned-a", "--unsigned-w", "A", "W");
  // The FP modes are gemm's alone (conv2d keeps to integers); the shared options' help says
  // what they mean with them.
  gemm->add_option("--a-fmt", g.a_fmt,
                   "A is FP: e4m3, e5m2 or bf16 (default: integer); needs --w-fmt, and no zero "
                   "points, --unsigned-*, --mode or --int32")
      ->check(CLI::IsMember({"e4m3", "e5m2", "bf16"}));
  gemm->add_option("--w-fmt", g.w_fmt,
                   "W is FP: e4m3, e5m2 (either with an FP8 A) or bf16 (with a BF16 A); default "
                   "integer; needs --a-fmt")
      ->check(CLI::IsMember({"e4m3", "e5m2", "bf16"}));
  gemm->add_option("--out-fmt", g.out_fmt,
                   "FP operands: the output, fp32 (default), bf16, e4m3 or e5m2 (FP8 saturates)")
      ->check(CLI::IsMember({"fp32", "bf16", "e4m3", "e5m2"}));
  gemm->add_flag("--relu", g.relu, "FP operands: ReLU after scale and bias");
  gemm->get_option("--scale")->description(
      "Requantization scale of the 8-bit modes (default 1/(64 sqrt(K) + 1)); with FP "
      "operands the FP32 scale of every column (default 1)");
  gemm->get_option("--a")->description(
      "A from a .npy file (int8 or uint8, C order; with --a-fmt: uint8 FP8 codes, or float32 "
      "values rounded to BF16)");
  gemm->get_option("--w")->description(
      "W from a .npy file (int8 or uint8, C order; with --w-fmt: uint8 FP8 codes, or float32 "
      "values rounded to BF16)");
  gemm->get_option("--bias")->description(
      "Bias from a .npy file (int32, one per output channel; default: random with random "
      "operands, 0 with operands from files); with FP operands float32 (default: none)");
  gemm->get_option("--out")->description(
      "Write the result to a .npy file (int8, or int32; FP operands: float32 for fp32, uint16 "
      "BF16 encodings for bf16, uint8 codes for e4m3 / e5m2)");

  ConvArgs cv;
  auto* conv = app.add_subcommand(
      "conv2d", "INT8 conv2d, NHWC input * OHWI filter, on the device (random or .npy operands)");
  conv->add_option("--batch", cv.batch, "N, images in the batch (default 1, or from --input)");
  conv->add_option("--height", cv.height, "H of the input (or from --input)");
  conv->add_option("--width", cv.width, "W of the input (or from --input)");
  conv->add_option("--channels", cv.channels, "C, input channels (or from --input / --filter)");
  conv->add_option("--out-channels", cv.out_channels, "C_out, filters (or from --filter)");
  conv->add_option("--kernel", cv.kernel, "KH[,KW] (default 3, or from --filter)");
  conv->add_option("--stride", cv.stride, "S or SH,SW (default 1)");
  conv->add_option("--pad", cv.pad,
                   "P, TOP,LEFT,BOTTOM,RIGHT, same (TFLite SAME) or valid (default 0)");
  add_op_options(conv, cv.op, uri, "--input,--a", "--filter,--w", "--unsigned-input,--unsigned-a",
                 "--unsigned-filter,--unsigned-w", "the input", "the filter");

  SimtArgs sa;
  auto* simt = app.add_subcommand("simt", "Run a kernel of the SIMT library on random data");
  simt->add_option("KERNEL", sa.kernel, join(kKernels))->required();
  simt->add_option("--n", sa.n, "About how many output elements (default 4096)");
  simt->add_option("--device,-d", uri,
                   "Device URI (default sim://, the Verilated RTL; ref://, pcie-sim://, "
                   "uart://<tty>; docs/driver.md)");
  simt->add_option("--warps", sa.warps, "Warps of the launch, 1..CAP3.warps (default: all)");
  simt->add_option("--threads", sa.threads, "Threads per warp, 1..CAP3.threads (default: all)");
  simt->add_option("--seed", sa.seed, "Seed of the random operands");
  simt->add_option("--elf-dir", sa.elf_dir,
                   "Directory of <kernel>.elf (default: $WEFT_KERNEL_DIR, else "
                   "<weft's directory>/../share/weft/kernels, else the build tree's)");
  simt->add_flag("--check", sa.check,
                 "Compare with the golden SIMT model (outputs and instruction counts; exit 1 on "
                 "a mismatch)");
  simt->add_flag("--perf", sa.perf, "Also print every SIMT counter and the device cycles");
  simt->add_flag("--quiet,-q", sa.quiet, "No progress indication");
  weft::tool::RunArgs ra;
  auto* run = app.add_subcommand(
      "run", "Run a quantized ONNX model (QDQ or QOperator) on the device and print its outputs");
  weft::tool::add_run_options(run, ra, uri);
  weft::tool::EvalArgs ea;
  auto* eval = app.add_subcommand(
      "eval", "Measure a quantized classification network on a data set (digits, Fashion-MNIST): "
              "accuracy, agreement with onnxruntime, time, cycles");
  weft::tool::add_eval_options(eval, ea, uri);
  for (auto* c : {info, gemm, conv, simt, run, eval}) c->footer(kExitFooter);

  // The command: the first argument that is not an option (the top level has no other options).
  bool help = false, have_command = false;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "-h" || s == "--help") {
      help = true;
      continue;
    }
    if (!s.empty() && s[0] == '-') {
      fmt::print(stderr,
                 "weft: {} before the command: options go after it (weft <command> {} ...); the "
                 "commands are {} (weft --help)\n",
                 s, s, join(kCommands));
      return kExitUsage;
    }
    if (s == "help") {  // `weft help [command]`: the help, as --help
      const std::string sub = i + 1 < argc ? argv[i + 1] : "";
      for (auto* c : {info, gemm, conv, simt, run, eval}) {
        if (c->get_name() == sub) {
          fmt::print("{}", c->help());
          return kExitOk;
        }
      }
      fmt::print("{}", app.help());
      return kExitOk;
    }
    if (std::find(kCommands.begin(), kCommands.end(), s) == kCommands.end()) {
      fmt::print(stderr, "weft: unknown command '{}'; the commands are {} (weft --help)\n", s,
                 join(kCommands));
      return kExitUsage;
    }
    have_command = true;
    break;
  }
  if (!have_command && !help) {
    fmt::print(stderr, "weft: give a command: {} (weft --help)\n", join(kCommands));
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints CLI11's message
    return kExitUsage;
  }
  g.op.mode_given = gemm->get_option("--mode")->count() > 0;
  cv.op.mode_given = conv->get_option("--mode")->count() > 0;
  if (gemm->parsed()) {
    const size_t given = gemm->get_option("M")->count() + gemm->get_option("N")->count() +
                         gemm->get_option("K")->count();
    if (given != 0 && given != 3) {
      fmt::print(stderr, "weft gemm: give all three sizes M N K (or none, with --a and --w)\n");
      return kExitUsage;
    }
  }
  try {
    if (info->parsed()) return cmd_info(uri);
    if (gemm->parsed()) return cmd_gemm(uri, g);
    if (conv->parsed()) return cmd_conv2d(uri, cv);
    if (simt->parsed()) return cmd_simt(uri, sa);
    if (run->parsed()) return weft::tool::cmd_run(uri, ra);
    if (eval->parsed()) return weft::tool::cmd_eval(uri, ea);
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {  // weft run: a bad input file or name
    fmt::print(stderr, "{}\n", e.what());
    return kExitUsage;
  } catch (const weft::npy::Error& e) {
    fmt::print(stderr, "weft: {}\n", e.what());
    return kExitUsage;
  } catch (const weft::Error& e) {
    fmt::print(stderr, "weft: {}\n", for_tool_user(e.what()));
    return exit_status(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft: {}\n", e.what());
    return kExitDevice;
  }
  return kExitOk;
}
