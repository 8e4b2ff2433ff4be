#!/usr/bin/env bash
# Fresh-clone build time (make bench section 7, docs/performance.md "Build time"): clones the
# committed HEAD into a temporary directory and times what `make test` does there before its first
# test, `make build` without setup: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release (which verilates
# every model), then cmake --build build -j 2, with no compiler cache (CCACHE_DISABLE=1).
# Prints the wall time against the 12-minute target, and the CPU time (user + sys of every
# process): on a shared machine the wall time is inflated, and CPU / 2 estimates the wall time of
# an idle 2-core machine.
# Usage: bash scripts/bench_build.sh [<dir>]   (<dir>: clone there and keep the tree; it must not
#        exist). Environment: WEFT_BENCH_BUILD_JOBS (default 2). Takes 10-20 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${WEFT_BENCH_BUILD_JOBS:-2}
if [[ $# -ge 1 ]]; then
  dir=$1; keep=1
  [[ -e $dir ]] && { echo "bench_build: $dir exists" >&2; exit 2; }
  mkdir -p "$dir"
else
  dir=$(mktemp -d); keep=0
  trap 'rm -rf "$dir"' EXIT
fi
git clone --quiet "$root" "$dir/weft"
git -C "$dir/weft" checkout --quiet "$(git rev-parse HEAD)"
dirty=""
git diff --quiet HEAD -- || dirty=" (uncommitted changes in $root are not part of it)"
echo "   building $(git rev-parse --short HEAD) in a fresh clone, ${jobs} jobs, no compiler cache${dirty}"
echo "   (1-minute load average before: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores)"

export CCACHE_DISABLE=1
cd "$dir/weft"
# bash `times` (run in this shell, not in a subshell) gives the user and sys time of every
# finished child process, theirs included: cpu_secs sets $cpu to their sum in seconds.
tf="$dir/times.txt"
cpu_secs() {
  times >"$tf"
  cpu=$(tail -n 1 "$tf" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/);
                                  printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
}
cpu_secs; c0=$cpu; t0=$(date +%s.%N)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >"$dir/configure.log" 2>&1 ||
  { tail -n 30 "$dir/configure.log"; echo "bench_build: configure failed" >&2; exit 1; }
cpu_secs; c1=$cpu; t1=$(date +%s.%N)
cmake --build build -j "$jobs" >"$dir/build.log" 2>&1 ||
  { grep -E 'error|Error' "$dir/build.log" | head -n 20; echo "bench_build: build failed" >&2; exit 1; }
cpu_secs; c2=$cpu; t2=$(date +%s.%N)
awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v c0="$c0" -v c1="$c1" -v c2="$c2" -v j="$jobs" 'BEGIN {
  wall = (t2 - t0) / 60; cpu = (c2 - c0) / 60; est = cpu / j
  printf "   configure %.1f min wall (%.1f min CPU), compile and link %.1f min wall (%.1f min CPU)\n",
    (t1 - t0) / 60, (c1 - c0) / 60, (t2 - t1) / 60, (c2 - c1) / 60
  printf "   fresh-clone build before the first test: %.1f min (target <= 12 min: %s)\n",
    wall, (wall <= 12 ? "met" : "MISSES")
  printf "   CPU time (user + sys) %.1f min / %d cores = %.1f min: the wall time of an idle machine (target <= 12 min: %s)\n",
    cpu, j, est, (est <= 12 ? "met" : "MISSES")
}'
((keep)) && echo "   tree kept in $dir/weft (logs in $dir)"
exit 0
