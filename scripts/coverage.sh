#!/usr/bin/env bash
# Weft RTL coverage (Verilator line + toggle coverage of rtl/, from the block tests).
#   1. configures a second CMake tree <builddir>/coverage-build with -DWEFT_COVERAGE=ON (every
#      Verilated model built with --coverage) and builds its test executables (not the SV benches);
#   2. runs `ctest -L block` there; the harness writes one <suite>_<test>.dat per test;
#   3. merges them (verilator_coverage --write / --write-info), keeps rtl/ sources only (lcov
#      --extract), writes an HTML report with genhtml and an annotated copy of each source with
#      verilator_coverage --annotate;
#   4. prints the per-file and total line coverage and where the reports are.
# Outputs, all in <builddir>/coverage-report/:
#   index.html        genhtml report (open in a browser)      coverage.info   lcov data, rtl/ only
#   annotated/        sources with per-line hit counts          merged.dat      all points merged
# Usage: bash scripts/coverage.sh <builddir>      (make coverage; from any directory)
# Environment: JOBS (default nproc); COVERAGE_LABEL (default block): the CTest label to run;
#   COVERAGE_TARGETS="test_a test_b": only these executables; COVERAGE_FULL=1: every configuration;
#   COVERAGE_TIMEOUT (default 300): per-test time limit in seconds.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 <builddir>" >&2; exit 2; }
mkdir -p "$1" && build=$(cd "$1" && pwd) || exit 2
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
cov="$build/coverage-build"
report="$build/coverage-report"
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
label=${COVERAGE_LABEL:-block}
t0=$SECONDS
for tool in cmake ctest verilator_coverage lcov genhtml; do
  command -v $tool >/dev/null || { echo "coverage: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done

# 1. Configure (the CMake file API tells us the targets) and build the executables only.
mkdir -p "$cov/.cmake/api/v1/query"
touch "$cov/.cmake/api/v1/query/codemodel-v2"
echo "coverage: configuring $cov (WEFT_COVERAGE=ON)"
subset=ON; [[ "${COVERAGE_FULL:-0}" == 1 ]] && subset=OFF
# -O1: the coverage models are large generated C++ that runs only the short block tests; -O1
# compiles them much faster than -O2 and they still run in seconds.
if ! cmake -S "$root" -B "$cov" -DCMAKE_BUILD_TYPE=Release -DWEFT_COVERAGE=ON -DWEFT_COVERAGE_SUBSET=$subset \
     -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
     >"$cov/configure.log" 2>&1; then
  tail -n 30 "$cov/configure.log" >&2; echo "coverage: cmake configure failed (log: $cov/configure.log)" >&2; exit 1
fi
# Which executables: COVERAGE_TARGETS if given; else every executable of the tree when CMake
# honours WEFT_COVERAGE_SUBSET (it then defines only the coverage subset); else every executable
# but the big array configurations (a name ending in _<R>x<C> with R*C > 16: the 4x4 and smaller
# ones exercise the same RTL lines, at a fraction of the build time), the benchmarks, the CLI and
# the driver's system tests).
honoured=0; grep -q '^WEFT_COVERAGE_SUBSET:BOOL=' "$cov/CMakeCache.txt" && honoured=1
[[ $subset == OFF ]] && honoured=1
mapfile -t targets < <(python3 - "$cov" "$honoured" "${COVERAGE_TARGETS:-}" <<'EOF'
import glob, json, os, re, sys
reply = os.path.join(sys.argv[1], ".cmake", "api", "v1", "reply")
honoured, wanted = sys.argv[2] == "1", sys.argv[3].split()
index = sorted(glob.glob(os.path.join(reply, "index-*.json")))[-1]
cm = [o for o in json.load(open(index))["objects"] if o["kind"] == "codemodel"][0]
model = json.load(open(os.path.join(reply, cm["jsonFile"])))
for t in model["configurations"][0]["targets"]:
    if json.load(open(os.path.join(reply, t["jsonFile"])))["type"] != "EXECUTABLE":
        continue
    name = t["name"]
    tj = json.load(open(os.path.join(reply, t["jsonFile"])))
    # Only executables that contain a Verilated model (a vl_* library) measure rtl/ coverage.
    if not wanted and not any(d["id"].startswith("vl_") for d in tj.get("dependencies", [])):
        continue
    if wanted:
        if name in wanted:
            print(name)
        continue
    # Benchmarks, tools and the driver's system tests add no RTL lines the block tests miss
    # (the driver's sim:// plugin is the 16x16 device): left out, like the big configurations.
    if name.startswith("bench_") or name in ("weft_tool", "test_system"):
        print(f"skip:{name}")
        continue
    m = re.search(r"_(\d+)x(\d+)$", name)
    if not honoured and m and int(m[1]) * int(m[2]) > 16:
        print(f"skip:{name}")
        continue
    print(name)
EOF
)
skipped=(); kept=()
for t in "${targets[@]}"; do if [[ $t == skip:* ]]; then skipped+=("${t#skip:}"); else kept+=("$t"); fi; done
targets=("${kept[@]}")
((${#skipped[@]})) && echo "coverage: big configurations left out (COVERAGE_FULL=1 builds them): ${skipped[*]}"
if ((${#targets[@]} == 0)); then
  echo "coverage: no test executable is defined yet: nothing to measure"
  exit 0
fi
echo "coverage: building ${#targets[@]} executables with coverage models (-j $jobs)"
if ! cmake --build "$cov" -j "$jobs" --target "${targets[@]}" >"$cov/build.log" 2>&1; then
  grep -E 'error|Error' "$cov/build.log" | head -n 30 >&2
  echo "coverage: build failed (log: $cov/build.log)" >&2; exit 1
fi
t_build=$((SECONDS - t0))

# 2. Run the tests. Old results go first: a .dat is Verilator's text format
#    ("# SystemC::Coverage-3" header), wherever the harness put it (WEFT_COVERAGE_DIR).
is_cov_dat() { head -c 32 "$1" 2>/dev/null | grep -q 'SystemC::Coverage'; }
while IFS= read -r -d '' f; do is_cov_dat "$f" && rm -f "$f"; done < <(find "$cov" -name '*.dat' -print0)
echo "coverage: running ctest -L $label"
ctest --test-dir "$cov" -L "$label" -E "_NOT_BUILT\$" -j "$jobs" --timeout "${COVERAGE_TIMEOUT:-300}" --output-on-failure >"$cov/ctest.log" 2>&1
test_rc=$?
grep -E 'tests passed|tests failed' "$cov/ctest.log" | sed 's/^/coverage: /'
if [[ $test_rc -ne 0 ]]; then
  grep -E '^\s*[0-9]+ - ' "$cov/ctest.log" | sed 's/^/coverage: failed: /' >&2
fi
dats=()
while IFS= read -r -d '' f; do is_cov_dat "$f" && dats+=("$f"); done < <(find "$cov" -name '*.dat' -print0 | sort -z)
if ((${#dats[@]} == 0)); then
  echo "coverage: the tests wrote no coverage data (.dat) under $cov." >&2
  echo "  Is VM_COVERAGE defined where weft/tb/harness.hpp is compiled? (see docs/tools.md)" >&2
  exit 1
fi

# 3. Merge, keep rtl/, report.
rm -rf "$report"; mkdir -p "$report"
verilator_coverage --write "$report/merged.dat" "${dats[@]}" >/dev/null
verilator_coverage --write-info "$report/all.info" "${dats[@]}" >/dev/null
if ! lcov --quiet --extract "$report/all.info" "*/rtl/*" --output-file "$report/coverage.info" >"$report/lcov.log" 2>&1 \
   || ! grep -q '^SF:' "$report/coverage.info"; then
  cat "$report/lcov.log" >&2; echo "coverage: no rtl/ source in the coverage data" >&2; exit 1
fi
rm -f "$report/all.info"
genhtml --quiet --prefix "$root" --title "Weft rtl/ coverage ($label tests)" --legend \
  --output-directory "$report" "$report/coverage.info" >"$report/genhtml.log" 2>&1 \
  || { cat "$report/genhtml.log" >&2; echo "coverage: genhtml failed" >&2; exit 1; }
# Annotated sources: every line with coverage points gets its hit count in the margin; '%000000'
# marks a line with a point hit fewer than --annotate-min (1) times, i.e. never.
ann=$(verilator_coverage --annotate "$report/annotated" --annotate-all --annotate-min 1 "$report/merged.dat" 2>&1 \
      | sed -n 's/^Total coverage //p')
# verilator_coverage names the copies after the sources' base names; keep rtl/ files only.
for f in "$report/annotated"/*; do
  [[ -n "$(find "$root/rtl" -name "$(basename "$f")" -print -quit)" ]] || rm -f "$f"
done

# 4. Summary.
# Points by kind (Verilator: line = statement blocks, branch = if/case arms, toggle = each bit of
# each signal of each instance, both ways), rtl/ only.
points=$(python3 - "$report/merged.dat" "/rtl/" <<'EOF'
import re, sys
tot, hit = {}, {}
for line in open(sys.argv[1], errors="replace"):
    if not line.startswith("C '"):
        continue
    body, _, count = line.rstrip().rpartition("' ")
    f = re.search("\x01f\x02([^\x01]*)", body)
    k = re.search("\x01page\x02v_([a-z]+)", body)
    if not f or not k or sys.argv[2] not in f.group(1):
        continue
    kind = k.group(1)
    tot[kind] = tot.get(kind, 0) + 1
    hit[kind] = hit.get(kind, 0) + (int(count) > 0)
print(", ".join(f"{k} {hit[k]}/{tot[k]} ({100.0 * hit[k] / tot[k]:.1f}%)" for k in sorted(tot)))
EOF
)
echo "coverage: ${#dats[@]} tests' data merged; line coverage of rtl/ by file:"
lcov --list "$report/coverage.info" 2>/dev/null | sed -n '/^\[/,$p' | sed "s#$root/##" | sed 's/^/  /' | head -n 80
summary=$(lcov --summary "$report/coverage.info" 2>&1 | grep -E 'lines' | sed 's/^ *//')
echo "coverage: rtl/ $summary"
[[ -n "$points" ]] && echo "coverage: rtl/ points by kind: $points"
[[ -n "$ann" ]] && echo "coverage: rtl/ annotated lines hit (a line's points summed over instances and bits): $ann"
echo "coverage: HTML report  $report/index.html"
echo "coverage: annotated    $report/annotated/  ('%' lines: never hit)"
echo "coverage: ($((SECONDS - t0)) s, of which build ${t_build} s)"
if [[ $test_rc -ne 0 ]]; then
  echo "coverage: some $label tests failed in the coverage build (log: $cov/ctest.log)" >&2
  exit 1
fi
