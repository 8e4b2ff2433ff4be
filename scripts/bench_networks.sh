#!/usr/bin/env bash
# make bench, section 9: the trained networks end to end (docs/performance.md, "Networks, end to
# end"). For fashion_cnn, fashion_residual and digits_mlp (sw/model/networks/*.onnx):
#   weft eval MODEL --dataset ... --limit 64 --batch 16 --device "sim://?latency=32" --json
# and one batch through `weft run --json` (the steps' shapes, wall time and stall counters), then
# scripts/network_figures.py prints: whole-network utilisation of R*C (target >= 0.60), cycles and
# images per second, the host steps' share of the wall time, the convolutions with >= 16 input and
# output channels (target >= 0.85 of R*C); then scripts/roofline.py draws the layers and the
# measured GEMM / conv / copy points of bench_host into $BUILD/bench/roofline.svg, copied to
# docs/img/roofline.svg. A missing network or a weft without `eval` skips, saying why.
# Usage: scripts/bench_networks.sh [build dir]   (alone, or from scripts/bench.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT="$BUILD/bench"
DEVICE="sim://?latency=32"
WEFT="$BUILD/bin/weft"
# ULX3S clock (docs/fpga.md, "Resources and timing"): the default bitstream runs at FREQ=20 MHz,
# the constraint it meets (routed Fmax 40.2 MHz at a550f9e). Its array is 8x8, not the 16x16 of
# sim://, so the board figure is this device's cycles at the board's clock, not a board measurement.
BOARD_MHZ=20
BOARD_NOTE="ULX3S clock: the default bitstream's 20 MHz constraint (routed Fmax 40.2 MHz), docs/fpga.md"
mkdir -p "$OUT"

if [[ -f $BUILD/CMakeCache.txt ]]; then
  cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)" --target weft_tool bench_host >/dev/null
fi

# The measured GEMM / conv / copy points: section 4 writes them; alone, measure them now.
if [[ ! -s $OUT/bench_host.json ]]; then
  "$BUILD/tb/bench/bench_host" "$DEVICE" --json "$OUT/bench_host.json" >/dev/null ||
    echo "   (bench_host failed: the roofline has no benchmark points)"
fi

have_eval=1
"$WEFT" eval --help >/dev/null 2>&1 || have_eval=0
have_mpl=1
python3 -c "import matplotlib" 2>/dev/null || have_mpl=0

evals=()
for net in fashion_cnn fashion_residual digits_mlp; do
  model="sw/model/networks/$net.onnx"
  case $net in
    digits_*) dataset=digits shape="16,64" scale=16 ;;
    *) dataset=fashion-mnist shape="16,1,28,28" scale=255 ;;
  esac
  if [[ ! -f $model ]]; then
    echo "   $net: skipped: no $model (the trained networks are committed under sw/model/networks)"
    continue
  fi
  if ((!have_eval)); then
    echo "   $net: skipped: $WEFT has no 'eval' subcommand (weft eval --dataset ... --json)"
    continue
  fi
  ev="$OUT/$net.eval.json" run="$OUT/$net.run.json"
  # weft eval exits 1 when a prediction differs from onnxruntime's: the JSON still counts (it says so).
  rc=0
  "$WEFT" eval "$model" --dataset "$dataset" --limit 64 --batch 16 --device "$DEVICE" --json >"$ev" 2>"$OUT/$net.eval.err" || rc=$?
  if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))["layers"]' "$ev" 2>/dev/null; then
    echo "   $net: weft eval failed (exit $rc): $(head -c 300 "$OUT/$net.eval.err")"
    continue
  fi
  evals+=("$ev")
  # One batch through weft run: shapes, per-step wall time, stall counters. Pixels are uniform
  # random (seed 1) in the dataset's range: the figures depend on shapes, not on values.
  args=(--eval "$ev")
  # A model with a fixed batch of 1 takes one image instead.
  ran=0
  for batch in 16 1; do
    python3 - "$OUT/$net.input.npy" "$batch,${shape#*,}" "$scale" <<'EOF'
import sys
import numpy as np
shape = tuple(int(d) for d in sys.argv[2].split(","))
x = np.random.default_rng(1).integers(0, int(sys.argv[3]) + 1, size=shape) / float(sys.argv[3])
np.save(sys.argv[1], x.astype(np.float32))
EOF
    if "$WEFT" run "$model" --input "$OUT/$net.input.npy" --device "$DEVICE" --print 0 --json >"$run" 2>"$OUT/$net.run.err"; then
      args+=(--run "$run")
      ran=1
      break
    fi
  done
  ((ran)) || echo "   ($net: weft run of one batch failed: $(head -c 200 "$OUT/$net.run.err"))"
  [[ $net == fashion_cnn ]] || args+=(--brief)
  python3 scripts/network_figures.py "${args[@]}" --board-mhz "$BOARD_MHZ" --board-note "$BOARD_NOTE"
done

if ((!have_mpl)); then
  echo "   roofline: skipped: no matplotlib (scripts/setup.sh installs it)"
elif ((${#evals[@]} == 0)); then
  if [[ -s $OUT/bench_host.json ]]; then
    python3 scripts/roofline.py --bench "$OUT/bench_host.json" -o "$OUT/roofline.svg" \
      --title "Weft roofline: benchmarks only (sim://, 32-cycle memory)"
  fi
  echo "   roofline: no network ran, so docs/img/roofline.svg is left as it is"
else
  bench=()
  [[ -s $OUT/bench_host.json ]] && bench=(--bench "$OUT/bench_host.json")
  python3 scripts/roofline.py "${bench[@]}" "${evals[@]}" -o "$OUT/roofline.svg" \
    --title "Weft roofline: networks (weft eval, 64 images) and benchmarks (sim://, 32-cycle memory)"
  mkdir -p docs/img
  cp "$OUT/roofline.svg" docs/img/roofline.svg
  echo "   copied to docs/img/roofline.svg"
fi
