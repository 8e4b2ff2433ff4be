// The UART bridge frame codec (docs/host-interfaces.md section 2.2): CRC-16/CCITT-FALSE, HDLC
// flag/escape framing, request and response bodies for both ends of the link, and a streaming
// deframer that resynchronises on the 0x7E flag. Header-only, standard library only, so that the
// driver, the bridge block tests and the board simulator share one implementation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace weft::uart {

inline constexpr std::uint8_t kFlag = 0x7E;
inline constexpr std::uint8_t kEsc = 0x7D;
inline constexpr std::uint8_t kEscXor = 0x20;

inline constexpr std::uint8_t kCmdRead = 0x01;
inline constexpr std::uint8_t kCmdWrite = 0x02;

inline constexpr std::uint8_t kStatusOk = 0x00;
inline constexpr std::uint8_t kStatusSlvErr = 0x01;
inline constexpr std::uint8_t kStatusDecErr = 0x02;
inline constexpr std::uint8_t kStatusBadLen = 0x03;
inline constexpr std::uint8_t kStatusBadCmd = 0x04;

inline constexpr std::uint32_t kMaxLen = 256;  // bytes of data per request
inline constexpr std::size_t kReqHeader = 8;   // cmd, seq, addr[4], len[2]
inline constexpr std::size_t kRespHeader = 3;  // status, seq, cmd
inline constexpr std::size_t kCrcBytes = 2;

// Bridge address map and registers (section 2.3).
inline constexpr std::uint32_t kCsrBase = 0x0000'0000;
inline constexpr std::uint32_t kCsrEnd = 0x0000'1000;
inline constexpr std::uint32_t kBrBase = 0x0000'1000;
inline constexpr std::uint32_t kBrId = 0x1000;
inline constexpr std::uint32_t kBrMemBase = 0x1004;
inline constexpr std::uint32_t kBrMemBytes = 0x1008;
inline constexpr std::uint32_t kBrClkHz = 0x100C;
inline constexpr std::uint32_t kBrFrames = 0x1010;
inline constexpr std::uint32_t kBrCrcErr = 0x1014;
inline constexpr std::uint32_t kBrFrameErr = 0x1018;
inline constexpr std::uint32_t kBrDups = 0x101C;
inline constexpr std::uint32_t kBrIdValue = 0x52425557;  // "WUBR"
inline constexpr std::uint32_t kMemBase = 0x8000'0000;

inline const char* status_name(std::uint8_t s) {
  switch (s) {
    case kStatusOk: return "OK";
    case kStatusSlvErr: return "SLVERR (bus error)";
    case kStatusDecErr: return "DECERR (nothing at that address)";
    case kStatusBadLen: return "BADLEN (len/addr rule broken)";
    case kStatusBadCmd: return "BADCMD";
    default: return "unknown status";
  }
}

// CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR. Check 0x29B1.
inline std::uint16_t crc16_update(std::uint16_t crc, std::uint8_t byte) {
  crc = static_cast<std::uint16_t>(crc ^ (static_cast<std::uint16_t>(byte) << 8));
  for (int i = 0; i < 8; ++i)
    crc = (crc & 0x8000) ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021)
                         : static_cast<std::uint16_t>(crc << 1);
  return crc;
}
inline std::uint16_t crc16(std::span<const std::uint8_t> data, std::uint16_t crc = 0xFFFF) {
  for (std::uint8_t b : data) crc = crc16_update(crc, b);
  return crc;
}

// Appends the CRC (high byte first) to a body.
inline void append_crc(std::vector<std::uint8_t>& body) {
  const std::uint16_t c = crc16(body);
  body.push_back(static_cast<std::uint8_t>(c >> 8));
  body.push_back(static_cast<std::uint8_t>(c & 0xFF));
}
// True when the last two bytes of `body` are the CRC of the bytes before them.
inline bool crc_ok(std::span<const std::uint8_t> body) {
  if (body.size() < kCrcBytes) return false;
  const std::uint16_t c = crc16(body.first(body.size() - kCrcBytes));
  return body[body.size() - 2] == (c >> 8) && body[body.size() - 1] == (c & 0xFF);
}

// HDLC framing: flag, escaped body, flag.
inline std::vector<std::uint8_t> frame(std::span<const std::uint8_t> body) {
  std::vector<std::uint8_t> out;
  out.reserve(body.size() + body.size() / 8 + 4);
  out.push_back(kFlag);
  for (std::uint8_t b : body) {
    if (b == kFlag || b == kEsc) {
      out.push_back(kEsc);
      out.push_back(static_cast<std::uint8_t>(b ^ kEscXor));
    } else {
      out.push_back(b);
    }
  }
  out.push_back(kFlag);
  return out;
}

// Streaming deframer. Feed bytes one at a time; returns a complete (unescaped, CRC not checked)
// body when a closing flag ends a non-empty frame. A byte after 0x7D other than 0x5E/0x5D, or a
// flag right after 0x7D, marks the frame bad (counted in bad_escapes and dropped at the next
// flag). Bytes before the first flag are discarded. Empty frames are ignored.
class Deframer {
 public:
  explicit Deframer(std::size_t max_body = kReqHeader + kMaxLen + kCrcBytes + 16)
      : max_body_(max_body) {}

  std::optional<std::vector<std::uint8_t>> push(std::uint8_t b) {
    if (b == kFlag) {
      std::optional<std::vector<std::uint8_t>> out;
      if (in_frame_ && !bad_ && !esc_ && !buf_.empty()) out = std::move(buf_);
      else if (in_frame_ && (bad_ || esc_)) ++bad_frames_;
      buf_.clear();
      in_frame_ = true;
      bad_ = false;
      esc_ = false;
      return out;
    }
    if (!in_frame_) {
      ++discarded_;
      return std::nullopt;
    }
    if (bad_) return std::nullopt;
    if (esc_) {
      esc_ = false;
      if (b != (kFlag ^ kEscXor) && b != (kEsc ^ kEscXor)) {
        bad_ = true;
        return std::nullopt;
      }
      b = static_cast<std::uint8_t>(b ^ kEscXor);
    } else if (b == kEsc) {
      esc_ = true;
      return std::nullopt;
    }
    if (buf_.size() >= max_body_) {
      bad_ = true;
      return std::nullopt;
    }
    buf_.push_back(b);
    return std::nullopt;
  }

  void reset() {
    buf_.clear();
    in_frame_ = false;
    bad_ = false;
    esc_ = false;
  }
  std::uint64_t bad_frames() const { return bad_frames_; }
  std::uint64_t discarded() const { return discarded_; }

 private:
  std::size_t max_body_;
  std::vector<std::uint8_t> buf_;
  bool in_frame_ = false;
  bool bad_ = false;
  bool esc_ = false;
  std::uint64_t bad_frames_ = 0;
  std::uint64_t discarded_ = 0;
};

inline void put_le32(std::vector<std::uint8_t>& v, std::uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}
inline std::uint32_t get_le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

struct Request {
  std::uint8_t cmd = 0;
  std::uint8_t seq = 0;
  std::uint32_t addr = 0;
  std::uint16_t len = 0;
  std::vector<std::uint8_t> data;  // WRITE only
};

struct Response {
  std::uint8_t status = 0;
  std::uint8_t seq = 0;
  std::uint8_t cmd = 0;
  std::vector<std::uint8_t> data;  // READ with status OK only
};

// Request body with CRC (not framed). For WRITE, data.size() must equal len.
inline std::vector<std::uint8_t> encode_request_body(const Request& r) {
  std::vector<std::uint8_t> b;
  b.reserve(kReqHeader + r.data.size() + kCrcBytes);
  b.push_back(r.cmd);
  b.push_back(r.seq);
  put_le32(b, r.addr);
  b.push_back(static_cast<std::uint8_t>(r.len & 0xFF));
  b.push_back(static_cast<std::uint8_t>(r.len >> 8));
  if (r.cmd == kCmdWrite) b.insert(b.end(), r.data.begin(), r.data.end());
  append_crc(b);
  return b;
}
inline std::vector<std::uint8_t> encode_request(const Request& r) {
  return frame(encode_request_body(r));
}

// Device side: decode a deframed request body. nullopt when the CRC is wrong or the byte count
// does not match cmd/len (what the bridge counts in BR_CRC_ERR / BR_FRAME_ERR; see `why`).
enum class DecodeError { kNone, kCrc, kLength };
inline std::optional<Request> decode_request(std::span<const std::uint8_t> body,
                                             DecodeError* why = nullptr) {
  auto fail = [&](DecodeError e) -> std::optional<Request> {
    if (why) *why = e;
    return std::nullopt;
  };
  if (why) *why = DecodeError::kNone;
  if (body.size() < kReqHeader + kCrcBytes) return fail(DecodeError::kLength);
  if (!crc_ok(body)) return fail(DecodeError::kCrc);
  Request r;
  r.cmd = body[0];
  r.seq = body[1];
  r.addr = get_le32(&body[2]);
  r.len = static_cast<std::uint16_t>(body[6] | (body[7] << 8));
  const std::size_t payload = body.size() - kReqHeader - kCrcBytes;
  const std::size_t want = r.cmd == kCmdWrite ? r.len : 0;
  if (payload != want) return fail(DecodeError::kLength);
  r.data.assign(body.begin() + kReqHeader, body.begin() + kReqHeader + payload);
  return r;
}

// Device side: response body with CRC, framed.
inline std::vector<std::uint8_t> encode_response_body(const Response& r) {
  std::vector<std::uint8_t> b;
  b.reserve(kRespHeader + r.data.size() + kCrcBytes);
  b.push_back(r.status);
  b.push_back(r.seq);
  b.push_back(r.cmd);
  b.insert(b.end(), r.data.begin(), r.data.end());
  append_crc(b);
  return b;
}
inline std::vector<std::uint8_t> encode_response(const Response& r) {
  return frame(encode_response_body(r));
}

// Host side: decode a deframed response body. nullopt when too short or the CRC is wrong. The
// data length is not checked here (the host knows what it asked for).
inline std::optional<Response> decode_response(std::span<const std::uint8_t> body) {
  if (body.size() < kRespHeader + kCrcBytes) return std::nullopt;
  if (!crc_ok(body)) return std::nullopt;
  Response r;
  r.status = body[0];
  r.seq = body[1];
  r.cmd = body[2];
  r.data.assign(body.begin() + kRespHeader, body.end() - kCrcBytes);
  return r;
}

}  // namespace weft::uart
