#!/usr/bin/env bash
# CTest check of scripts/ctest_skips.py (make test's filter): given CTest's summary on stdin and a
# LastTest.log in <dir>/Testing/Temporary, each "(Skipped)" line gets the GTEST_SKIP() message of
# that test; other lines pass unchanged; a skipped test without a message says so.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/Testing/Temporary"
cat >"$tmp/Testing/Temporary/LastTest.log" <<'LOG'
Start testing: Nov 25 14:40 UTC
----------------------------------------------------------
1/3 Testing: A/B.Skips/Uart
1/3 Test: A/B.Skips/Uart
Output:
----------------------------------------------------------
[ RUN      ] A/B.Skips/Uart
[seed] A/B.Skips/Uart WEFT_SEED=1
../../tb/x.cpp:12: Skipped
the board has no such thing:
second line of the reason
[  SKIPPED ] A/B.Skips/Uart (3 ms)
<end of output>
2/3 Test: C.Quiet<int>
Output:
----------------------------------------------------------
[ RUN      ] C/0.Quiet
../../tb/y.cpp:3: Skipped

[  SKIPPED ] C/0.Quiet (0 ms)
<end of output>
3/3 Test: D.Passes
Output:
----------------------------------------------------------
[       OK ] D.Passes (0 ms)
<end of output>
LOG
out=$(printf '%s\n' "100% tests passed, 0 tests failed out of 3" "" "The following tests did not run:" \
  $'\t  1 - A/B.Skips/Uart (Skipped)' $'\t  2 - C.Quiet<int> (Skipped)' |
  python3 "$root/scripts/ctest_skips.py" "$tmp")
printf '%s\n' "$out"
want=$'100% tests passed, 0 tests failed out of 3\n\nThe following tests did not run:\n\t  1 - A/B.Skips/Uart (Skipped: the board has no such thing: second line of the reason)\n\t  2 - C.Quiet<int> (Skipped: GTEST_SKIP() without a message)'
[[ "$out" == "$want" ]] || { echo "FAIL: want:"; printf '%s\n' "$want"; exit 1; }
# Exit status: the filter's own is 0; make's pipefail keeps ctest's.
(set -o pipefail; false | python3 "$root/scripts/ctest_skips.py" "$tmp") && { echo "FAIL: pipefail lost ctest's status"; exit 1; }
echo "PASS: ctest_skips"
