// Shared main() of every Weft GoogleTest binary: --trace, --verbose and --seed=N, then GoogleTest's
// own flags.
#include <gtest/gtest.h>

#include "weft/tb/options.hpp"

int main(int argc, char** argv) {
  weft::tb::parse_options(&argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
