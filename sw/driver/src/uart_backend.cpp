// uart://<tty>: the driver over a serial port to a weft_board (docs/host-interfaces.md).
// Being written (issue 5); until then the scheme reports that it is not available.
#include "device_impl.hpp"
#include "weft/error.hpp"

namespace weft::detail {

std::unique_ptr<Backend> make_uart_backend(const Options& opts) {
  (void)opts;
  throw Error(Errc::kNoDevice, "uart://: this build of libweft has no serial back end yet");
}

}  // namespace weft::detail
