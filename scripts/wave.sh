#!/usr/bin/env bash
# Weft waves: run one GoogleTest test with FST tracing, lay out a GTKWave view for it, open it.
#   1. ctest --test-dir <builddir> -R '^<Suite.Test>$' with WEFT_TRACE=1 (exactly one test must
#      match; if none does, the closest names are listed);
#   2. the harness writes <builddir>/waves/<Suite>_<Test>.fst;
#   3. scripts/gen_gtkw.py writes <Suite>_<Test>.gtkw beside it (groups per module instance, ports
#      first, big arrays in closed groups; only relative paths, so the pair can be moved together);
#      scripts/gtkw_views.py then puts block views on top (weft_simt_core: per-warp pc, active mask,
#      ready, the scheduler's choice and the pipeline; docs/simt.md "Waves");
#   4. fst2vcd reads the whole FST back (integrity check; prints the variable count and end time);
#   5. gtkwave opens it when $DISPLAY is set, otherwise the command to open it is printed.
# Usage: bash scripts/wave.sh <builddir> "<Suite.Test>"      (make wave TEST=Suite.Test)
# Exit status: 0 done, 1 no such test / no wave written / unreadable FST, 2 usage, 3 the test itself
# failed (the waves are still written and laid out: that is when they are wanted).
set -uo pipefail
if [[ $# -lt 2 || -z "${2:-}" ]]; then
  echo "usage: $0 <builddir> \"<Suite.Test>\"   (make wave TEST=Suite.Test)" >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "wave: no build directory $1 (make build first)" >&2; exit 2; }
test_name=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Exact match: escape the regex characters of the name (GoogleTest names may hold / and digits).
re_name=$(printf '%s' "$test_name" | sed -e 's/[][\.*^$+?(){}|\\]/\\&/g')
mapfile -t all < <(ctest --test-dir "$build" -N 2>/dev/null | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p')
matches=()
for t in "${all[@]}"; do [[ "$t" == "$test_name" ]] && matches+=("$t"); done
if ((${#matches[@]} != 1)); then
  if ((${#matches[@]} == 0)); then
    echo "wave: no test named '$test_name' in $build (${#all[@]} tests registered)." >&2
  else
    echo "wave: '$test_name' matches ${#matches[@]} tests" >&2
  fi
  # Closest names: same suite or same test part first, then by similarity.
  printf '%s\n' "${all[@]}" | python3 -c '
import difflib, sys
want = sys.argv[1]
names = [l.strip() for l in sys.stdin if l.strip()]
suite, _, case = want.partition(".")
close = [n for n in names if suite and n.split(".")[0].lower() == suite.lower()]
close += [n for n in difflib.get_close_matches(want, names, n=10, cutoff=0.4) if n not in close]
close += [n for n in names if want.lower() in n.lower() and n not in close]
if close:
    print("Closest test names:", file=sys.stderr)
    for n in close[:15]:
        print("  " + n, file=sys.stderr)
' "$test_name"
  exit 1
fi

# The harness names the file <suite>_<test>.fst, with / and spaces made _.
stem=$(printf '%s' "$test_name" | sed -e 's/\./_/' -e 's#[/ ]#_#g')
fst="$build/waves/$stem.fst"
rm -f "$fst"

echo "wave: running $test_name with WEFT_TRACE=1"
WEFT_TRACE=1 ctest --test-dir "$build" -R "^${re_name}\$" --output-on-failure
test_rc=$?

if [[ ! -s "$fst" ]]; then
  # WEFT_WAVE_DIR may point elsewhere (test ENVIRONMENT); look for the file in the build tree.
  alt=$(find "$build" -name "$stem.fst" -newer "$build/CMakeCache.txt" -print -quit 2>/dev/null)
  if [[ -n "$alt" ]]; then
    fst=$alt
  else
    echo "wave: the test wrote no $build/waves/$stem.fst (does it use weft::tb::Harness?)" >&2
    exit 1
  fi
fi

# Integrity: read the whole FST back (header + every value change).
vars=$(fst2vcd -f "$fst" 2>/dev/null | awk '
  /^\$var/ { n++ } /^#[0-9]+/ { t = substr($1, 2) }
  END { if (n == 0) exit 1; printf "%d variables, last time stamp %s", n, t }')
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
if [[ -n "${DISPLAY:-}" ]] && command -v gtkwave >/dev/null; then
  echo "wave: opening: gtkwave $rel_gtkw"
  gtkwave "$gtkw" >/dev/null 2>&1 &
  disown 2>/dev/null || true
else
  echo "wave: no \$DISPLAY here. To look at it:"
  echo "  gtkwave $rel_gtkw"
  echo "  (or copy $(basename "$fst") and $(basename "$gtkw") together to a machine with GTKWave and open the .gtkw)"
fi
if [[ $test_rc -ne 0 ]]; then
  echo "wave: note: $test_name FAILED (exit $test_rc); the waves show the failing run" >&2
  exit 3
fi
