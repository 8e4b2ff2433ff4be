#!/usr/bin/env bash
# Weft RTL lint: `verilator --lint-only -Wall --assert` (assertions linted too) with every module
# weft_* of rtl/ as the top in turn, each at its default parameters, the waivers in rtl/weft.vlt.
# Sources come from the RTL manifest (rtl/manifest.toml, scripts/rtl_manifest.py): a module that
# is a top of the manifest is linted with that top's own source list (so a file missing from it is
# an error); any other module with every fileset. The manifest's own check runs first
# (rtl_manifest.py check: every rtl/ file in a fileset). One line per top: "clean" or its warnings.
# Exit 1 if the manifest check fails or any top has a warning or error.
# Run from anywhere (CTest test lint.rtl, `make lint`). Optional arguments: tops to lint (default all).
# Environment: LINT_JOBS (default nproc) tops linted at once.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERILATOR=${VERILATOR:-verilator}
command -v "$VERILATOR" >/dev/null || { echo "lint: $VERILATOR not found (run scripts/setup.sh)" >&2; exit 1; }
[[ -f rtl/weft.vlt ]] || { echo "lint: rtl/weft.vlt missing" >&2; exit 1; }

manifest() { python3 scripts/rtl_manifest.py "$@"; }
manifest check || exit 1
mapfile -t sources < <(manifest all)
mapfile -t incs < <(manifest incdirs --flag=-I)
mapfile -t defs < <(manifest defines --flag=-D)
mapfile -t manifest_tops < <(manifest tops)
((${#sources[@]})) || { echo "lint: rtl/manifest.toml lists no source" >&2; exit 1; }

if (($#)); then
  tops=("$@")
else
  mapfile -t tops < <(grep -hoE '^[[:space:]]*module[[:space:]]+weft_[A-Za-z0-9_]+' "${sources[@]}" /dev/null \
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
  if [[ " ${manifest_tops[*]} " == *" $top "* ]]; then
    mapfile -t srcs < <(manifest files "$top")
  else
    srcs=("${sources[@]}")
  fi
  (
    "$VERILATOR" --lint-only -Wall --assert --top-module "$top" "${incs[@]}" "${defs[@]}" rtl/weft.vlt \
      "${srcs[@]}" >"$tmp/$top.log" 2>&1
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
