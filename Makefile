# Weft — top-level entry points. `make help` lists them. Every target that needs tools first runs
# scripts/setup.sh, which installs what is missing (apt / pip, by package name) and is idempotent.

BUILD    ?= build
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
SHELL    := /bin/bash
# CTest, with each skipped test's reason added to the summary (scripts/ctest_skips.py); the exit
# status stays ctest's.
CTEST    := set -o pipefail; ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
SKIPS    := | python3 scripts/ctest_skips.py $(BUILD)
SETUP    := bash scripts/setup.sh
PYTHON   ?= python3
PREFIX   ?= /usr/local
SECONDS  ?= 300
SEED     ?= 1

.PHONY: help setup configure build install sim test unit block lint synth formal formal-mutation coverage wave bench eval mutation fuzz clean

help: ## List the targets
	@echo "Weft — make targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1\t\2/' | expand -t 14
	@echo ""
	@echo "Variables: BUILD=$(BUILD) JOBS=$(JOBS) PREFIX=$(PREFIX) (install) TEST=<test name> (wave) SECONDS=$(SECONDS) SEED=$(SEED) (fuzz) WEFT_SEED=<n> WEFT_TRACE=1 WEFT_VERBOSE=1"

setup: ## Install every missing dependency (apt + pip; idempotent)
	@$(SETUP)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

configure: $(BUILD)/CMakeCache.txt ## Configure the CMake build in $(BUILD)

build: setup configure ## Build models, tests, benches and tools
	cmake --build $(BUILD) -j $(JOBS)

install: build ## Install weft, weft-board-sim, libweft + headers + CMake package, sim:// plugins, SIMT kernels to PREFIX
	cmake --install $(BUILD) --prefix $(PREFIX)

sim: build ## Block regressions on both simulators, then a per-test table (Icarus vs Verilator)
	$(PYTHON) scripts/sim_table.py --build $(BUILD) --jobs $(JOBS)

test: build ## Every test (unit, block, system, SV benches, lint, synth) with the CTest summary and skip reasons
	$(CTEST) $(SKIPS)

unit: build ## Golden-model unit tests only
	$(CTEST) -L unit $(SKIPS)

block: build ## Verilator block tests only
	$(CTEST) -L block $(SKIPS)

lint: setup ## verilator --lint-only -Wall on every RTL top
	bash scripts/lint.sh

synth: setup ## Yosys (ECP5) synthesis smoke: block RAM and multiplier inference
	bash scripts/synth_smoke.sh $(BUILD)/synth

formal: setup configure ## SymbiYosys proofs of the bus ports (CTest label formal; docs/formal.md)
	$(CTEST) -L formal $(SKIPS)

formal-mutation: setup ## Show each formal proof fails on a one-line RTL mutation of its port
	bash scripts/formal_mutate.sh $(BUILD)/formal-mutation

coverage: setup ## Verilator line/toggle coverage of rtl/ (report in $(BUILD)/coverage-report)
	bash scripts/coverage.sh $(BUILD)

wave: build ## Run TEST=<name from ctest -N or --gtest_list_tests> with FST tracing (1 ns per cycle), lay out and open (or print how to open) GTKWave
	bash scripts/wave.sh $(BUILD) "$(TEST)"

bench: build ## Benchmarks, each figure with its target (met / MISSES / no target): GEMM utilisation, DMA, SIMT, cycles/s, build time
	bash scripts/bench.sh $(BUILD)

eval: setup configure ## Every network of sw/model/networks on its data set (weft eval): full test split on ref:// and golden, sim:// 359 digits / 500 Fashion-MNIST images; accuracy, agreement with onnxruntime, time
	bash scripts/eval.sh $(BUILD) $(JOBS)

fuzz: setup configure ## Descriptor fuzzer on sim:// plain and with back-pressure, SECONDS=<s> each (default 300, in parallel), SEED=<n>; prints totals by category and error code, fails on a hang, an access outside the windows, a failed GEMM after reset or a wrong error (docs/fuzz.md)
	cmake --build $(BUILD) -j $(JOBS) --target weft_fuzz
	$(BUILD)/tb/fuzz/weft_fuzz --seconds $(SECONDS) --seed $(SEED) --jobs 2

mutation: build ## Show the block tests fail on a PE with its sign extension dropped
	bash scripts/mutate.sh $(BUILD)

clean: ## Remove the build tree
	rm -rf $(BUILD)

# ---------------------------------------------------------------- ULX3S (ECP5) open FPGA flow (docs/fpga.md)
.PHONY: fpga fpga-fit prog postsynth postsynth-smoke

fpga: setup ## ULX3S bitstream (Yosys -> nextpnr-ecp5 -> ecppack) and report (LUT/DSP/BRAM, Fmax); FREQ=<MHz>
	$(MAKE) --no-print-directory -C fpga

fpga-fit: setup ## Does the board top fit the 85F? Synthesis + nextpnr packing, fails over 100 % of logic cells, DP16KD or MULT18X18D (about 5-10 min); SIMT_WARPS=/SIMT_THREADS=
	$(MAKE) --no-print-directory -C fpga fit

prog: ## Load fpga/build/ulx3s/weft.bit into a ULX3S on USB (openFPGALoader -b ulx3s)
	@$(MAKE) --no-print-directory -C fpga prog

postsynth: setup ## The synthesized board netlist runs a GEMM over uart:// (Verilator + ECP5 cell models; about 50 min estimated, 24 min measured with BAUD=2500000)
	bash scripts/fpga_postsynth.sh $(BUILD)

postsynth-smoke: setup ## The same check on the board top synthesized with a 2x2 array, no SIMT (about 36 min measured)
	CORE=smoke PS_TIMEOUT_MS=240000 bash scripts/fpga_postsynth.sh $(BUILD)
