// uart://<tty>: the driver over a serial port to a weft_board (docs/host-interfaces.md section 2).
// Every CSR and memory access is one request/response frame (uart_frame.hpp) to the board's UART
// bridge: READ/WRITE with a sequence number, retransmitted unchanged on a timeout or a bad
// response, up to `retries` times. A board has no cycle stepping: run() sleeps in small steps
// (calling stop() between them) and cycles are wall time times the board clock (BR_CLK_HZ).
// The device's own host-memory writes are not observable over the link (take_device_writes()
// returns nothing).
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "device_impl.hpp"
#include "uart_frame.hpp"
#include "uri_options.hpp"
#include "weft/error.hpp"

namespace weft::detail {
namespace {

namespace u = weft::uart;
using Clock = std::chrono::steady_clock;

std::string hex32(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

speed_t baud_constant(uint64_t baud) {
  switch (baud) {
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 500000: return B500000;
    case 576000: return B576000;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 1152000: return B1152000;
    case 1500000: return B1500000;
    case 2000000: return B2000000;
    case 2500000: return B2500000;
    case 3000000: return B3000000;
    case 3500000: return B3500000;
    case 4000000: return B4000000;
    default:
      throw std::invalid_argument(
          "option baud=" + std::to_string(baud) +
          ": not a standard rate; use 9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, "
          "576000, 921600, 1000000 (the ULX3S bitstream's rate), 1152000, 1500000, 2000000, "
          "2500000, 3000000, 3500000 or 4000000");
  }
}

class UartBackend final : public Backend {
 public:
  explicit UartBackend(const Options& opts) {
    OptionReader o(opts);
    path_ = o.str("path", "");
    baud_ = o.u64("baud", 1000000, 1, 4000000);
    timeout_ms_ = static_cast<unsigned>(o.u64("timeout_ms", 200, 1, 600000));
    retries_ = static_cast<unsigned>(o.u64("retries", 8, 0, 1000));
    o.check_all_used("uart", "baud, timeout_ms, retries (and the device options mem, membase, "
                             "ring, timeout)");
    if (path_.empty()) {
      throw std::invalid_argument(
          "uart:// needs the serial device, e.g. uart:///dev/ttyUSB0?baud=1000000");
    }
    const speed_t speed = baud_constant(baud_);
    open_port(speed);
    std::random_device rd;
    seq_ = static_cast<uint8_t>(rd());
    // The first request is a READ, which the bridge always executes: from then on its remembered
    // seq is ours, so no later WRITE of this session can be mistaken for a retransmission of a
    // write from an earlier one.
    const uint32_t id = read32(u::kBrId);
    if (id != u::kBrIdValue) {
      throw Error(Errc::kNoDevice,
                  "uart://" + path_ + ": the other end answers frames but BR_ID reads " +
                      hex32(id) + ", not 0x52425557 ('WUBR'); is this a Weft board bitstream?");
    }
    mem_base_ = read32(u::kBrMemBase);
    mem_bytes_ = read32(u::kBrMemBytes);
    clk_hz_ = read32(u::kBrClkHz);
    if (mem_bytes_ == 0 || clk_hz_ == 0) {
      throw Error(Errc::kNoDevice, "uart://" + path_ + ": implausible bridge registers (BR_MEM_BYTES " +
                                       std::to_string(mem_bytes_) + ", BR_CLK_HZ " +
                                       std::to_string(clk_hz_) + ")");
    }
    t0_ = Clock::now();
  }

  ~UartBackend() override {
    if (fd_ >= 0) ::close(fd_);
  }

  uint32_t csr_read(uint32_t offset) override {
    check_csr(offset);
    u::Response r = transact(u::kCmdRead, offset, 4, nullptr);
    if (r.status != u::kStatusOk) {
      throw std::invalid_argument("CSR read of offset " + hex32(offset) + " answered " +
                                  u::status_name(r.status));
    }
    return u::get_le32(r.data.data());
  }

  void csr_write(uint32_t offset, uint32_t value) override {
    check_csr(offset);
    uint8_t b[4];
    for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(value >> (8 * i));
    u::Response r = transact(u::kCmdWrite, offset, 4, b);
    if (r.status != u::kStatusOk) {
      throw std::invalid_argument("CSR write to offset " + hex32(offset) + " answered " +
                                  u::status_name(r.status));
    }
  }

  void mem_write(uint64_t addr, const void* src, size_t bytes) override {
    if (bytes == 0) return;
    check_mem(addr, bytes, "write");
    const auto* s = static_cast<const uint8_t*>(src);
    const uint64_t lo = addr & ~uint64_t{3}, hi = (addr + bytes + 3) & ~uint64_t{3};
    // Partial words at the ends: read-modify-write.
    std::vector<uint8_t> buf(hi - lo);
    if (lo != addr) mem_read_aligned(lo, buf.data(), 4);
    if (hi != addr + bytes && (hi - 4 != lo || lo == addr)) mem_read_aligned(hi - 4, &buf[hi - 4 - lo], 4);
    std::memcpy(&buf[addr - lo], s, bytes);
    for (uint64_t a = lo; a < hi; a += u::kMaxLen) {
      const auto n = static_cast<uint16_t>(std::min<uint64_t>(u::kMaxLen, hi - a));
      u::Response r = transact(u::kCmdWrite, static_cast<uint32_t>(a), n, &buf[a - lo]);
      if (r.status != u::kStatusOk) bus_fail("write", a, n, r.status);
    }
  }

  void mem_read(uint64_t addr, void* dst, size_t bytes) override {
    if (bytes == 0) return;
    check_mem(addr, bytes, "read");
    const uint64_t lo = addr & ~uint64_t{3}, hi = (addr + bytes + 3) & ~uint64_t{3};
    if (lo == addr && hi == addr + bytes) {
      mem_read_aligned(addr, static_cast<uint8_t*>(dst), bytes);
      return;
    }
    std::vector<uint8_t> buf(hi - lo);
    mem_read_aligned(lo, buf.data(), buf.size());
    std::memcpy(dst, &buf[addr - lo], bytes);
  }

  uint64_t run(uint64_t max_cycles, const std::function<bool()>& stop) override {
    const uint64_t c0 = cycle();
    const uint64_t step_cycles = std::max<uint64_t>(1, clk_hz_ / 5000);  // 200 us
    for (;;) {
      const uint64_t done = cycle() - c0;
      if (done >= max_cycles) return done;
      const uint64_t n = std::min(max_cycles - done, step_cycles);
      std::this_thread::sleep_for(std::chrono::nanoseconds(n * 1'000'000'000ull / clk_hz_));
      if (stop && stop()) return cycle() - c0;
    }
  }

  uint64_t cycle() const override {
    const double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    return static_cast<uint64_t>(s * clk_hz_);
  }

  std::vector<std::pair<uint64_t, uint64_t>> take_device_writes() override { return {}; }

  bool memory_range(uint64_t* base, uint64_t* bytes) const override {
    *base = mem_base_;
    *bytes = mem_bytes_;
    return true;
  }

  std::vector<std::pair<std::string, uint64_t>> link_stats() override {
    std::vector<std::pair<std::string, uint64_t>> v = {
        {"frames", frames_}, {"retries", retries_n_}, {"timeouts", timeouts_},
        {"bad_responses", bad_responses_}};
    v.emplace_back("br_frames", read32(u::kBrFrames));
    v.emplace_back("br_crc_err", read32(u::kBrCrcErr));
    v.emplace_back("br_frame_err", read32(u::kBrFrameErr));
    v.emplace_back("br_dups", read32(u::kBrDups));
    return v;
  }

  std::string description() const override {
    return "weft_board over " + path_ + " at " + std::to_string(baud_) + " baud (board memory " +
           hex32(mem_base_) + " + " + std::to_string(mem_bytes_ >> 10) + " KiB, clock " +
           std::to_string(clk_hz_) + " Hz; response timeout " + std::to_string(timeout_ms_) +
           " ms, " + std::to_string(retries_) + " retries)";
  }

 private:
  void open_port(speed_t speed) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      const int e = errno;
      std::string hint = e == ENOENT  ? "; is the board plugged in? (ls /dev/ttyUSB* /dev/ttyACM*)"
                         : e == EACCES ? "; add yourself to the dialout group (or check the "
                                         "device's permissions)"
                         : e == EBUSY ? "; another program has the port open"
                                      : "";
      throw Error(Errc::kNoDevice,
                  "uart://" + path_ + ": cannot open the serial device: " + std::strerror(e) + hint);
    }
    termios t{};
    if (::tcgetattr(fd_, &t) != 0) {
      const int e = errno;
      ::close(fd_);
      fd_ = -1;
      throw Error(Errc::kNoDevice, "uart://" + path_ + ": not a serial device (tcgetattr: " +
                                       std::strerror(e) + ")");
    }
    ::cfmakeraw(&t);
    t.c_cflag &= ~static_cast<tcflag_t>(CSIZE | CSTOPB | PARENB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~static_cast<tcflag_t>(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (::cfsetspeed(&t, speed) != 0 || ::tcsetattr(fd_, TCSANOW, &t) != 0) {
      const int e = errno;
      ::close(fd_);
      fd_ = -1;
      throw Error(Errc::kNoDevice, "uart://" + path_ + ": cannot set " + std::to_string(baud_) +
                                       " baud 8N1 raw: " + std::strerror(e));
    }
    ::tcflush(fd_, TCIOFLUSH);
  }

  void check_csr(uint32_t offset) const {
    if (offset % 4 != 0 || offset >= u::kCsrEnd) {
      throw std::invalid_argument("CSR offset " + hex32(offset) +
                                  " is not a 4-byte aligned offset below 0x1000");
    }
  }

  void check_mem(uint64_t addr, size_t bytes, const char* what) const {
    if (addr < mem_base_ || addr + bytes > uint64_t{mem_base_} + mem_bytes_ || addr + bytes < addr) {
      throw Error(Errc::kBadArgument, std::string("uart://: memory ") + what + " of " +
                                          std::to_string(bytes) + " B at " + hex32(addr) +
                                          " is outside the board memory " + hex32(mem_base_) +
                                          " + " + std::to_string(mem_bytes_) + " B");
    }
  }

  [[noreturn]] void bus_fail(const char* what, uint64_t a, unsigned n, uint8_t status) const {
    throw Error(Errc::kSimulation, std::string("uart://") + path_ + ": board memory " + what +
                                       " of " + std::to_string(n) + " B at " + hex32(a) +
                                       " answered " + u::status_name(status));
  }

  void mem_read_aligned(uint64_t addr, uint8_t* dst, size_t bytes) {
    for (uint64_t off = 0; off < bytes; off += u::kMaxLen) {
      const auto n = static_cast<uint16_t>(std::min<uint64_t>(u::kMaxLen, bytes - off));
      u::Response r = transact(u::kCmdRead, static_cast<uint32_t>(addr + off), n, nullptr);
      if (r.status != u::kStatusOk) bus_fail("read", addr + off, n, r.status);
      std::memcpy(dst + off, r.data.data(), n);
    }
  }

  uint32_t read32(uint32_t addr) {
    u::Response r = transact(u::kCmdRead, addr, 4, nullptr);
    if (r.status != u::kStatusOk) {
      throw Error(Errc::kNoDevice, "uart://" + path_ + ": bridge register " + hex32(addr) +
                                       " answered " + u::status_name(r.status) +
                                       "; is this a Weft board bitstream?");
    }
    return u::get_le32(r.data.data());
  }

  void write_all(const std::vector<uint8_t>& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + off, bytes.size() - off);
      if (n > 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        pollfd p{fd_, POLLOUT, 0};
        if (::poll(&p, 1, timeout_ms_) == 0) {
          throw Error(Errc::kTimeout, "uart://" + path_ + ": the serial port accepts no data for " +
                                          std::to_string(timeout_ms_) + " ms (flow control?)");
        }
        continue;
      }
      throw Error(Errc::kNoDevice,
                  "uart://" + path_ + ": write to the serial device failed: " + std::strerror(errno) +
                      " (was the adapter unplugged?)");
    }
  }

  // One request, retransmitted unchanged until a good response with its seq arrives.
  u::Response transact(uint8_t cmd, uint32_t addr, uint16_t len, const uint8_t* data) {
    u::Request q;
    q.cmd = cmd;
    q.seq = ++seq_;
    q.addr = addr;
    q.len = len;
    if (cmd == u::kCmdWrite) q.data.assign(data, data + len);
    const std::vector<uint8_t> wire = u::encode_request(q);
    ++frames_;
    for (unsigned attempt = 0; attempt <= retries_; ++attempt) {
      if (attempt > 0) ++retries_n_;
      write_all(wire);
      const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms_);
      bool resend = false;
      while (!resend) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) break;
        pollfd p{fd_, POLLIN, 0};
        const int pr = ::poll(&p, 1, static_cast<int>(left));
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0 || (p.revents & (POLLERR | POLLNVAL))) {
          throw Error(Errc::kNoDevice, "uart://" + path_ + ": the serial device failed (" +
                                           std::strerror(errno) + "); was the adapter unplugged?");
        }
        if (pr == 0) break;
        uint8_t buf[1024];
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n <= 0) {
          if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
          // POLLHUP on a pty whose other side closed: nothing will come; wait out the timeout.
          std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long>(left, 5)));
          continue;
        }
        for (ssize_t i = 0; i < n; ++i) {
          auto body = deframer_.push(buf[i]);
          if (!body) continue;
          auto r = u::decode_response(*body);
          if (!r) {  // corrupted: the bridge finished answering; ask again now
            ++bad_responses_;
            resend = true;
            continue;
          }
          if (r->seq != q.seq) continue;  // a stale answer to an earlier (retransmitted) request
          const bool size_ok = r->status != u::kStatusOk || cmd != u::kCmdRead
                                   ? r->data.empty()
                                   : r->data.size() == len;
          if (r->cmd != cmd || !size_ok) {
            ++bad_responses_;
            resend = true;
            continue;
          }
          return std::move(*r);
        }
      }
      if (!resend) ++timeouts_;
    }
    throw Error(Errc::kTimeout,
                "uart://" + path_ + ": no valid response to the " +
                    (cmd == u::kCmdRead ? std::string("READ of ") : std::string("WRITE to ")) +
                    hex32(addr) + " (" + std::to_string(len) + " B) after " +
                    std::to_string(retries_ + 1) + " attempts of " + std::to_string(timeout_ms_) +
                    " ms; check the cable, that the baud rate (" + std::to_string(baud_) +
                    ") matches the bitstream, and that the board is programmed with weft_board "
                    "(options timeout_ms, retries)");
  }

  std::string path_;
  uint64_t baud_ = 0;
  unsigned timeout_ms_ = 200, retries_ = 8;
  int fd_ = -1;
  uint8_t seq_ = 0;
  u::Deframer deframer_;
  uint32_t mem_base_ = 0, mem_bytes_ = 0, clk_hz_ = 1;
  Clock::time_point t0_ = Clock::now();
  uint64_t frames_ = 0, retries_n_ = 0, timeouts_ = 0, bad_responses_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_uart_backend(const Options& opts) {
  return std::make_unique<UartBackend>(opts);
}

}  // namespace weft::detail
