#!/usr/bin/env bash
# Weft waves: run one GoogleTest test with FST tracing, lay out a GTKWave view for it, open it.
#   1. scripts/wave_resolve.py finds the test: its CTest name (ctest -N) or its GoogleTest name
#      (--gtest_list_tests: Suite.Test, Suite/Test.Name/Param, Suite/0.Test), plain, TEST_P or
#      typed alike; no match lists the closest names;
#   2. the test's own command (binary, --gtest_filter, working directory and environment from
#      CTest) runs with WEFT_TRACE=1. The test says where it wrote its waves ("[waves] <path>":
#      the Harness of a block test, the sim:// / pcie-sim:// plugin of a system test, the
#      simulated board of a uart:// test), by default <builddir>/waves/<Suite>_<Test>.fst;
#   3. fst2vcd reads the whole FST back (integrity check; prints the variable count, the time
#      scale and the clock period: one cycle is 1 ns);
#   4. scripts/gen_gtkw.py writes <stem>.gtkw beside it (groups per module instance, ports first,
#      big arrays in closed groups; only relative paths, so the pair can be moved together);
#      scripts/gtkw_views.py then puts block views on top (a whole device: tensor unit, command
#      processor, DMA; the SIMT core: first only when it ran; docs/harness.md "Waves");
#   5. gtkwave opens it when $DISPLAY is set (and --no-open is not given), otherwise the command
#      to open it is printed.
# Usage: bash scripts/wave.sh <builddir> "<test name>" [--no-open]   (make wave TEST=...)
# Exit status: 0 done, 1 no such test / no wave written / unreadable FST, 2 usage, 3 the test itself
# failed (the waves are still written and laid out: that is when they are wanted).
set -uo pipefail
if [[ $# -lt 2 || -z "${2:-}" ]]; then
  echo "usage: $0 <builddir> \"<test name>\" [--no-open]   (make wave TEST=Suite.Test; ctest -N lists the names)" >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "wave: no build directory $1 (make build first)" >&2; exit 2; }
test_name=$2
open=1
[[ "${3:-}" == "--no-open" ]] && open=0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

spec=$(python3 "$here/wave_resolve.py" "$build" "$test_name") || exit 1
# The resolved test as shell variables: its CTest and GoogleTest names, command, cwd, environment.
eval "$(python3 -c '
import json, shlex, sys
t = json.loads(sys.argv[1])
print("ctest_name=" + shlex.quote(t["ctest"]))
print("gtest_name=" + shlex.quote(t["gtest"]))
print("cmd=(" + " ".join(shlex.quote(a) for a in t["command"]) + ")")
print("cwd=" + shlex.quote(t["cwd"] or ""))
print("envs=(" + " ".join(shlex.quote(e) for e in t["env"]) + ")")
' "$spec")"

# Where the harness writes by default (Suite_Test with / and spaces made _), unless the test
# says otherwise on its "[waves]" line.
stem=$(printf '%s' "$gtest_name" | sed -e 's/\./_/' -e 's#[/ ]#_#g')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "wave: running $ctest_name with WEFT_TRACE=1 (${cmd[0]##*/} --gtest_filter=$gtest_name)"
start=$(date +%s)
(
  [[ -n "$cwd" ]] && cd "$cwd"
  env WEFT_TRACE=1 "${envs[@]}" "${cmd[@]}"
) 2>&1 | tee "$log"
test_rc=${PIPESTATUS[0]}

mapfile -t written < <(sed -nE 's/^\[waves\] (.*\.fst)$/\1/p' "$log" | awk '!seen[$0]++')
fst=""
for f in "${written[@]}"; do [[ -s "$f" ]] && fst=$f; done
if [[ -z "$fst" && -s "$build/waves/$stem.fst" && $(stat -c %Y "$build/waves/$stem.fst") -ge $start ]]; then
  fst="$build/waves/$stem.fst"
fi
if [[ -z "$fst" ]]; then
  if grep -q '^\[  SKIPPED \]' "$log"; then
    echo "wave: $ctest_name was skipped (reason above): it ran no RTL and wrote no waves" >&2
  else
    echo "wave: $ctest_name wrote no waves: it runs no RTL model (ref:// back ends, golden-model" \
         "unit tests and the C++ fake board have none). Pick a test of a Verilated block or a" \
         "sim://, pcie-sim:// or uart:// back end." >&2
  fi
  exit 1
fi
if ((${#written[@]} > 1)); then
  echo "wave: the test wrote ${#written[@]} wave files; opening the last: $fst (others: ${written[*]})"
fi

# Integrity: read the whole FST back (header + every value change); the time scale and the clock
# period of the first clock found (clk_i), which is 1 ns per cycle.
vars=$(fst2vcd -f "$fst" 2>/dev/null | awk '
  /^\$timescale/ { ts = 1 }
  ts && match($0, /[0-9]+[ \t]*[munpf]?s/) { scale = substr($0, RSTART, RLENGTH); gsub(/[ \t]/, "", scale); ts = 0 }
  /\$end/ { ts = 0 }
  /^\$var/ { n++; if (!clk && $5 == "clk_i") clk = $4 }
  /^#[0-9]+/ { t = substr($1, 2) }
  clk && !/^#/ && $0 == "1" clk { if (last != "") { if (!period) period = t - last } last = t }
  END { if (n == 0) exit 1
        printf "%d variables, time scale %s, last time stamp %s", n, scale, t
        if (period) printf ", clock period %d x %s", period, scale }')
if [[ $? -ne 0 || -z "$vars" ]]; then
  echo "wave: fst2vcd cannot read $fst back" >&2
  exit 1
fi
size=$(du -h "$fst" | cut -f1)
echo "wave: $fst ($size): fst2vcd reads it back: $vars"

gtkw="${fst%.fst}.gtkw"
python3 "$here/gen_gtkw.py" "$fst" -o "$gtkw" | sed 's/^/wave: layout: /' || { echo "wave: gen_gtkw.py failed" >&2; exit 1; }
python3 "$here/gtkw_views.py" "$fst" "$gtkw" | sed 's/^/wave: layout: /' || { echo "wave: gtkw_views.py failed" >&2; exit 1; }

# Shown relative to the current directory when it is below it (make: build/waves/...).
rel_gtkw=$(python3 -c 'import os,sys; r = os.path.relpath(sys.argv[1]); print(sys.argv[1] if r.startswith("..") else r)' "$gtkw")
if ((open)) && [[ -n "${DISPLAY:-}" ]] && command -v gtkwave >/dev/null; then
  echo "wave: opening: gtkwave $rel_gtkw"
  gtkwave "$gtkw" >/dev/null 2>&1 &
  disown 2>/dev/null || true
else
  ((open)) && echo "wave: no \$DISPLAY here. To look at it:" || echo "wave: to look at it:"
  echo "  gtkwave $rel_gtkw"
  echo "  (or copy $(basename "$fst") and $(basename "$gtkw") together to a machine with GTKWave and open the .gtkw)"
fi
if [[ $test_rc -ne 0 ]]; then
  echo "wave: note: $ctest_name FAILED (exit $test_rc); the waves show the failing run" >&2
  exit 3
fi
