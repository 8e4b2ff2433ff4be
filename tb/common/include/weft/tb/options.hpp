// Test options shared by every Weft test binary: seeds, waves, coverage and vector locations.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace weft::tb {

// The seed of the current test: WEFT_SEED (or --seed=N) when given, otherwise drawn once per test.
// Printed as "[seed] <suite>.<test> WEFT_SEED=<n>" and recorded as a GoogleTest property, so any
// failure can be re-run with the same stimulus.
uint64_t test_seed();

// A generator seeded with test_seed().
std::mt19937_64 make_rng();

// True when WEFT_TRACE=1 or the binary got --trace.
bool trace_enabled();

// <WEFT_WAVE_DIR>/<suite>_<test>.fst for the running test (default: <build>/waves).
std::string wave_file_for_current_test();
std::string coverage_file_for_current_test();

// Directory holding generated test vectors (WEFT_VECTOR_DIR, default: <build>/vectors).
std::string vector_dir();

// Called by the shared main(): strips --trace and --seed=N from argv.
void parse_options(int* argc, char** argv);

}  // namespace weft::tb
