#!/usr/bin/env bash
# Weft RTL lint: `verilator --lint-only -Wall --assert` (assertions linted too) with every module weft_* of rtl/ as the top in turn
# (all rtl/ sources, the waivers in rtl/weft.vlt, include dir rtl/common, each top at its default
# parameters). One line per top: "clean" or its warnings. Exit 1 if any top has a warning or error.
# Run from anywhere (CTest test lint.rtl, `make lint`). Optional arguments: tops to lint (default all).
# Environment: LINT_JOBS (default nproc) tops linted at once.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERILATOR=${VERILATOR:-verilator}
command -v "$VERILATOR" >/dev/null || { echo "lint: $VERILATOR not found (run scripts/setup.sh)" >&2; exit 1; }
[[ -f rtl/weft.vlt ]] || { echo "lint: rtl/weft.vlt missing" >&2; exit 1; }

# Sources: files declaring a package first (the others reference weft_pkg::…), then the rest; each
# group sorted so that the command line (and so the output) never depends on directory order.
mapfile -t all_sv < <(find rtl -name '*.sv' -type f | LC_ALL=C sort)
pkgs=(); rest=()
for f in "${all_sv[@]}"; do
  if grep -qE '^[[:space:]]*package[[:space:]]' "$f"; then pkgs+=("$f"); else rest+=("$f"); fi
done
sources=("${pkgs[@]}" "${rest[@]}")

if (($#)); then
  tops=("$@")
else
  mapfile -t tops < <(grep -hoE '^[[:space:]]*module[[:space:]]+weft_[A-Za-z0-9_]+' "${rest[@]}" /dev/null \
                      | awk '{print $2}' | LC_ALL=C sort -u)
fi
if ((${#tops[@]} == 0)); then
  echo "lint: no module weft_* under rtl/ yet (sources: ${#sources[@]}); nothing to lint"
  exit 0
fi

jobs=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "lint: verilator $("$VERILATOR" --version | awk '{print $2}') --lint-only -Wall --assert, ${#tops[@]} tops, ${#sources[@]} sources"
start=$SECONDS
running=0
for top in "${tops[@]}"; do
  (
    "$VERILATOR" --lint-only -Wall --assert --top-module "$top" -Irtl/common rtl/weft.vlt "${sources[@]}" \
      >"$tmp/$top.log" 2>&1
    echo $? >"$tmp/$top.rc"
  ) &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
done
wait

bad=0
w=0; for top in "${tops[@]}"; do ((${#top} > w)) && w=${#top}; done
for top in "${tops[@]}"; do
  rc=$(cat "$tmp/$top.rc")
  nwarn=$(grep -cE '^%(Warning|Error)' "$tmp/$top.log")
  if [[ $rc -eq 0 && $nwarn -eq 0 ]]; then
    printf '  %-*s  clean\n' "$w" "$top"
  else
    bad=$((bad + 1))
    printf '  %-*s  %d warning(s)/error(s), exit %s:\n' "$w" "$top" "$nwarn" "$rc"
    # The messages, without Verilator's "… Exiting due to N warning(s)" trailer.
    grep -vE '^%Error: Exiting due to' "$tmp/$top.log" | sed 's/^/      /'
  fi
done
echo "lint: $((${#tops[@]} - bad)) clean, $bad with warnings ($((SECONDS - start)) s)"
((bad == 0))
