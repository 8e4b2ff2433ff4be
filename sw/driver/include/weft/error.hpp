// weft/error.hpp: the one exception type of libweft.
//
// Every failure is a weft::Error carrying an Errc: either a device error code (the same values as
// weft::ErrorCode in descriptor.hpp, ERR_CODE register) or a driver code (>= 0x100). The message
// says what went wrong and what to change. Device errors also carry the failing descriptor's
// index and the host address involved.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "weft/descriptor.hpp"

#if defined(__GNUC__)
#define WEFT_API __attribute__((visibility("default")))
#else
#define WEFT_API
#endif

namespace weft {

enum class Errc : uint16_t {
  // Device error codes (docs/programming-model.md, "Errors"): identical to weft::ErrorCode.
  kNone = 0,
  kOpcode = 1,
  kSize = 2,
  kWindow = 3,
  kSpadRange = 4,
  kAccRange = 5,
  kAlign = 6,
  kSlverr = 7,
  kDecerr = 8,
  kSeq = 9,
  kRing = 10,
  kSimt = 11,
  kParam = 12,
  kEccSpad = 13,  // uncorrectable ECC error in a scratchpad line (devices with memory ECC)
  kEccAcc = 14,   // uncorrectable ECC error in an accumulator row
  // Driver codes.
  kTimeout = 0x100,  // the device did not finish within the wait's cycle or wall-time budget
  kBadUri,           // Device::open: unknown scheme, option or value
  kNoDevice,         // back end unavailable (plugin missing, ID/version mismatch)
  kOutOfMemory,      // the buffer arena is full
  kBadArgument,      // an argument out of range (shape, size, parameter)
  kQueueStopped,     // submit() while the queue is stopped on an error: call Queue::reset()
  kSimulation,       // the simulated device reported an internal error (assertion)
  kUnsupported,      // the back end does not offer this (e.g. fault injection on ref://)
  kBadModel,         // a model file that cannot be loaded: missing, not ONNX, malformed, inconsistent
};

constexpr Errc to_errc(ErrorCode e) { return static_cast<Errc>(static_cast<uint8_t>(e)); }
// The device codes above repeat weft::ErrorCode so that one enum names every failure; these
// checks keep the two lists equal.
static_assert(to_errc(ErrorCode::kOpcode) == Errc::kOpcode &&
              to_errc(ErrorCode::kSize) == Errc::kSize &&
              to_errc(ErrorCode::kWindow) == Errc::kWindow &&
              to_errc(ErrorCode::kSpadRange) == Errc::kSpadRange &&
              to_errc(ErrorCode::kAccRange) == Errc::kAccRange &&
              to_errc(ErrorCode::kAlign) == Errc::kAlign &&
              to_errc(ErrorCode::kSlverr) == Errc::kSlverr &&
              to_errc(ErrorCode::kDecerr) == Errc::kDecerr &&
              to_errc(ErrorCode::kSeq) == Errc::kSeq && to_errc(ErrorCode::kRing) == Errc::kRing &&
              to_errc(ErrorCode::kSimt) == Errc::kSimt &&
              to_errc(ErrorCode::kParam) == Errc::kParam &&
              to_errc(ErrorCode::kEccSpad) == Errc::kEccSpad &&
              to_errc(ErrorCode::kEccAcc) == Errc::kEccAcc);
constexpr bool is_device_code(Errc e) { return static_cast<uint16_t>(e) < 0x100; }

// "WINDOW", "TIMEOUT", ...
WEFT_API std::string_view errc_name(Errc e);

class WEFT_API Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& message);
  // A device error that stopped the queue: descriptor `index`, host address `addr`.
  Error(ErrorCode code, uint64_t index, uint64_t addr, const std::string& message);

  Errc code() const { return code_; }
  std::string_view name() const { return errc_name(code_); }
  // The message without its leading "NAME: ", to wrap in another Error with more context.
  std::string_view detail() const {
    const std::string_view w(what());
    const size_t prefix = name().size() + 2;
    return w.size() >= prefix ? w.substr(prefix) : w;
  }
  bool is_device_error() const { return is_device_code(code_) && code_ != Errc::kNone; }
  // For device errors: the queue index of the failing descriptor and the host address involved
  // (ERR_INDEX, ERR_ADDR); 0 otherwise.
  uint64_t index() const { return index_; }
  uint64_t address() const { return addr_; }

 private:
  Errc code_;
  uint64_t index_ = 0;
  uint64_t addr_ = 0;
};

}  // namespace weft
