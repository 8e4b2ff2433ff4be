// Test options shared by every Weft test binary: seeds, waves, coverage and vector locations.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace weft::tb {

// The seed of the current test: WEFT_SEED (or --seed=N) when given, otherwise drawn once per test.
// Printed once per test as "[seed] <suite>.<test> WEFT_SEED=<n>" and recorded as a GoogleTest
// property, so any failure can be re-run with the same stimulus. Outside a test (the benches) it
// is 1 unless given, and not printed.
uint64_t test_seed();

// A generator seeded with test_seed().
std::mt19937_64 make_rng();

// True when WEFT_TRACE=1 or the binary got --trace.
bool trace_enabled();

// True when WEFT_VERBOSE=1 or the binary got --verbose: tests then print their counters and
// per-run details (cycles, beats, stalls, values checked) even when they pass.
bool verbose();

// std::printf to stdout when verbose(), else nothing.
void verbose_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// <WEFT_WAVE_DIR>/<suite>_<test>.fst for the running test (default: <build>/waves).
std::string wave_file_for_current_test();
std::string coverage_file_for_current_test();

// For tests whose RTL runs inside a plugin or a board simulator (sim://...&trace=, start_board):
// "" unless tracing; else wave_file_for_current_test() with its directory created, announced as
// "[waves] <path>" (scripts/wave.sh opens the file the test names there).
std::string wave_file_if_tracing();

// Directory holding generated test vectors (WEFT_VECTOR_DIR, default: <build>/vectors).
std::string vector_dir();

// Called by the shared main(): strips --trace, --verbose and --seed=N from argv.
void parse_options(int* argc, char** argv);

}  // namespace weft::tb
