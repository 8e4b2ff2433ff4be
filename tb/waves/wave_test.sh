#!/usr/bin/env bash
# CTest check of `make wave` (scripts/wave.sh, tb/waves/CMakeLists.txt). Two modes:
#
#   wave_test.sh run <builddir> "<test name>" "<first group>"
#     runs scripts/wave.sh on the test with no display (--no-open) and checks, independently of
#     what wave.sh prints about it:
#       - it exits 0 and names the FST it found; the FST exists and is not empty;
#       - the FST's header: time scale and clock period make one clock cycle 1 ns (fst2vcd: the
#         $timescale, and the distance between two rising edges of the first clk_i);
#       - the .gtkw beside it references that FST ([dumpfile], relative) and its first group of
#         traces is "<first group> ..." (e.g. "Tensor unit" for a whole device, "SIMT" when the
#         SIMT core ran, the block's own scope for a block test);
#   wave_test.sh names <builddir> "<ctest name>" "<gtest suite line>" "<gtest test line>"
#     name resolution only (scripts/wave_resolve.py, nothing is run): the CTest name and the
#     name built from --gtest_list_tests' two lines (suite line + test line, "# GetParam() = ..."
#     comment included) resolve to the same test; an unknown name and a test that is not a
#     GoogleTest test are refused with exit 1 and a message saying what to do.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=$1
build=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

if [[ $mode == names ]]; then
  ctest_name=$3 suite_line=$4 test_line=$5
  a=$(python3 "$root/scripts/wave_resolve.py" "$build" "$ctest_name") || fail "CTest name '$ctest_name' not resolved"
  # --gtest_list_tests: "Suite." then "  Test/Param  # GetParam() = ...": joined as a user copies them.
  listed="${suite_line}${test_line#  }"
  b=$(python3 "$root/scripts/wave_resolve.py" "$build" "$listed") || fail "listed name '$listed' not resolved"
  [[ "$a" == "$b" ]] || fail "the two names resolve differently:\n$a\n$b"
  python3 - "$a" "$ctest_name" <<'EOF' || exit 1
import json, sys
t = json.loads(sys.argv[1])
assert t["ctest"] == sys.argv[2], t
assert t["gtest"] and "#" not in t["gtest"], t
assert any(a == "--gtest_filter=" + t["gtest"] for a in t["command"]), t
print(f"resolved: {t['ctest']} -> {t['command'][0].rsplit('/', 1)[-1]} --gtest_filter={t['gtest']}")
EOF
  # Unknown: exit 1, the closest names listed.
  out=$(python3 "$root/scripts/wave_resolve.py" "$build" "${ctest_name}Typo" 2>&1); rc=$?
  [[ $rc -eq 1 ]] || fail "unknown name: exit $rc, want 1"
  grep -q "no test named '${ctest_name}Typo'" <<<"$out" || fail "unknown name: no 'no test named' message: $out"
  grep -qF "  $ctest_name" <<<"$out" || fail "unknown name: '$ctest_name' not among the closest names: $out"
  # Not a GoogleTest test (lint.rtl is a script): exit 1, says why.
  out=$(python3 "$root/scripts/wave_resolve.py" "$build" lint.rtl 2>&1); rc=$?
  [[ $rc -eq 1 ]] || fail "lint.rtl: exit $rc, want 1"
  grep -q "is not a GoogleTest test" <<<"$out" || fail "lint.rtl: message: $out"
  # wave.sh itself: usage error 2, unknown test 1.
  bash "$root/scripts/wave.sh" "$build" >/dev/null 2>&1; rc=$?
  [[ $rc -eq 2 ]] || fail "wave.sh without a test: exit $rc, want 2"
  bash "$root/scripts/wave.sh" "$build" "${ctest_name}Typo" --no-open >/dev/null 2>&1; rc=$?
  [[ $rc -eq 1 ]] || fail "wave.sh with an unknown test: exit $rc, want 1"
  echo "PASS: names"
  exit 0
fi

[[ $mode == run ]] || fail "mode must be run or names"
name=$3 first=$4
log=$(mktemp)
trap 'rm -f "$log"' EXIT
env -u DISPLAY bash "$root/scripts/wave.sh" "$build" "$name" --no-open >"$log" 2>&1
rc=$?
cat "$log"
[[ $rc -eq 0 ]] || fail "wave.sh exited $rc"
fst=$(sed -nE 's/^wave: (.*\.fst) \(.*\): fst2vcd reads it back.*/\1/p' "$log" | tail -n 1)
[[ -n "$fst" ]] || fail "wave.sh named no FST"
[[ -s "$fst" ]] || fail "$fst is missing or empty"
gtkw="${fst%.fst}.gtkw"
[[ -s "$gtkw" ]] || fail "$gtkw is missing or empty"

python3 - "$fst" "$gtkw" "$first" <<'EOF'
import re, subprocess, sys
fst, gtkw, first = sys.argv[1:4]
# 1. Time: the FST's time scale and the period of the first clk_i.
scale = None
clk = None
rises = []
in_ts = False
body = False
p = subprocess.Popen(["fst2vcd", "-f", fst], stdout=subprocess.PIPE, text=True, errors="replace")
for line in p.stdout:
    s = line.strip()
    if not body:
        if s.startswith("$timescale"):
            in_ts = True
        m = re.search(r"(\d+)\s*(s|ms|us|ns|ps|fs)\b", s) if in_ts else None
        if m:
            scale = (int(m[1]), m[2])
            in_ts = False
        tok = s.split()
        if tok[:1] == ["$var"] and clk is None and tok[4] == "clk_i":
            clk = tok[3]
        if s.startswith("$enddefinitions"):
            body = True
        continue
    if s.startswith("#"):
        t = int(s[1:])
    elif clk and s == "1" + clk:
        rises.append(t)
        if len(rises) == 3:
            break
p.kill()
p.wait()
assert scale, f"{fst}: no $timescale in the header"
assert clk, f"{fst}: no clk_i"
assert len(rises) >= 3, f"{fst}: fewer than 3 rising edges of clk_i"
unit_fs = {"s": 10**15, "ms": 10**12, "us": 10**9, "ns": 10**6, "ps": 10**3, "fs": 1}[scale[1]] * scale[0]
period_fs = (rises[2] - rises[1]) * unit_fs
assert period_fs == 10**6, f"{fst}: clock period {rises[2] - rises[1]} x {scale[0]}{scale[1]} = {period_fs} fs, want 1 ns"
print(f"time scale {scale[0]}{scale[1]}, clock period {rises[2] - rises[1]} units = 1 ns")
# 2. The layout: references this FST, first group as expected.
text = open(gtkw).read()
m = re.search(r'^\[dumpfile\] "(.*)"$', text, re.M)
assert m, f"{gtkw}: no [dumpfile]"
assert m[1] == fst.rsplit("/", 1)[-1], f"{gtkw}: [dumpfile] {m[1]!r}, want the FST beside it"
groups = re.findall(r"^-(.+)$", text, re.M)
assert groups, f"{gtkw}: no groups"
assert groups[0].startswith(first), f"{gtkw}: first group {groups[0]!r}, want {first!r}..."
# The first group's first trace is a signal of the FST (not an empty group).
lines = text.split("\n")
i = lines.index("-" + groups[0])
trace = next(l for l in lines[i + 1:] if not l.startswith("@"))
assert not trace.startswith("-"), f"{gtkw}: the first group {groups[0]!r} is empty"
print(f"layout: [dumpfile] {m[1]}; first group {groups[0]!r}, first trace {trace}")
EOF
[[ $? -eq 0 ]] || fail "checks of $fst / $gtkw"
echo "PASS: $name"
