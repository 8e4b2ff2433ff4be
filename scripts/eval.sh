#!/usr/bin/env bash
# `make eval`: every network of sw/model/networks measured with `weft eval` (docs/model-runtime.md,
# "Evaluating a network: weft eval"): its full test split on ref:// and on the golden executor,
# and on sim:// (the Verilated RTL, about 10^5 cycles/s) all 359 digits and the first 500
# Fashion-MNIST images. Prints each command, its figures and its wall time, then a summary.
# Usage: scripts/eval.sh [BUILD] [JOBS]; NETWORKS=<dir> measures the .onnx files of another
# directory (e.g. sw/tools/tests/eval_models, the stand-ins), SIM_FASHION=<n> changes the 500.
# Exit status: 0 when every run agrees with onnxruntime's stored predictions, 1 otherwise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
JOBS=${2:-2}
NETWORKS=${NETWORKS:-sw/model/networks}
SIM_FASHION=${SIM_FASHION:-500}

cmake --build "$BUILD" -j "$JOBS" --target weft_tool || exit 1
WEFT="$BUILD/bin/weft"

# name -> data set, by the file name: digits* is digits, the others Fashion-MNIST.
dataset_of() { case "$(basename "$1")" in *digits*) echo digits ;; *) echo fashion-mnist ;; esac; }

models=()
for f in "$NETWORKS"/*.onnx; do [[ -e "$f" ]] && models+=("$f"); done
if ((${#models[@]} == 0)); then
  echo "eval: no networks in $NETWORKS (digits_mlp.onnx, fashion_cnn.onnx, fashion_cnn_qop.onnx," \
       "fashion_residual.onnx are committed there; NETWORKS=sw/tools/tests/eval_models runs the stand-ins)"
  exit 1
fi

summary=()
failed=0
run() {  # <model> <dataset> <device> [extra args...]
  local model=$1 ds=$2 dev=$3
  shift 3
  echo
  echo "\$ $WEFT eval $model --dataset $ds --device $dev $*"
  local t0=$SECONDS out rc
  out=$("$WEFT" eval "$model" --dataset "$ds" --device "$dev" "$@" --quiet 2>&1)
  rc=$?
  echo "$out" | grep -v '^model\|^dataset'
  local dt=$((SECONDS - t0))
  echo "(exit $rc, ${dt} s)"
  local images acc agree rate
  images=$(echo "$out" | sed -n 's/^images *\([0-9]*\).*/\1/p')
  acc=$(echo "$out" | sed -n 's/^accuracy *\([0-9.]* %\).*/\1/p')
  rate=$(echo "$out" | sed -n 's/^time .* \([0-9.]*\) images\/s.*/\1/p')
  agree=$(echo "$out" | sed -n -e 's/^agreement *\([0-9]*\) of \([0-9]*\) predictions equal.*/all \1 agree/p' \
                              -e 's/^agreement *DIFFERS: \([0-9]*\) of \([0-9]*\).*/\1 of \2 DIFFER/p' \
                              -e 's/^agreement *not checked.*/not checked/p')
  ((rc == 0)) || { failed=1; agree="exit $rc: $(echo "$out" | tail -1 | cut -c1-70)"; }
  summary+=("$(printf '%-20s %-7s %6s %8s %10s %6s  %s' "$(basename "$model" .onnx)" "$dev" "$images" "$acc" "$rate" "$dt" "$agree")")
}

for m in "${models[@]}"; do
  ds=$(dataset_of "$m")
  run "$m" "$ds" ref://
  run "$m" "$ds" golden
  if [[ $ds == digits ]]; then run "$m" "$ds" sim://; else run "$m" "$ds" sim:// --limit "$SIM_FASHION"; fi
done

echo
echo "eval summary"
printf '%-20s %-7s %6s %8s %10s %6s  %s\n' network device images top-1 images/s wall 'agreement with onnxruntime'
printf '%s\n' "${summary[@]}"
exit $failed
