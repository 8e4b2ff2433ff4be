#!/usr/bin/env bash
# make mutation: shows that the block tests catch a wrong PE. Builds the PE, 4x4 array and 4x4
# tensor-unit tests against a mutated weft_pe (the sign bit of the activation operand dropped,
# i.e. the product no longer sign-extends a), runs them, and succeeds only if they FAIL.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
MUT="$BUILD/mutation"
JOBS=$(nproc 2>/dev/null || echo 2)
mkdir -p "$MUT/rtl"
sed 's/assign prod  = \$signed(a_data_i\[IntW-1:0\]) \* \$signed(w_sel\[IntW-1:0\]);/assign prod  = $signed({1'"'"'b0, a_data_i[IntW-2:0]}) * $signed(w_sel[IntW-1:0]);  \/\/ MUTANT/' \
  rtl/tensor/weft_pe.sv > "$MUT/rtl/weft_pe.sv"
if ! grep -q MUTANT "$MUT/rtl/weft_pe.sv"; then
  echo "mutate.sh: the PE product line changed; update the mutation" >&2
  exit 2
fi
diff -u rtl/tensor/weft_pe.sv "$MUT/rtl/weft_pe.sv" | sed -n '3,$p' | grep '^[-+]'
cmake -S . -B "$MUT/build" -DWEFT_RTL_OVERRIDE_DIR="$PWD/$MUT/rtl" >"$MUT/configure.log" 2>&1 ||
  { cat "$MUT/configure.log"; exit 2; }
cmake --build "$MUT/build" -j "$JOBS" --target test_pe test_array_4x4 test_tu_4x4 >"$MUT/build.log" 2>&1 ||
  { tail -30 "$MUT/build.log"; exit 2; }
caught=0
for t in test_pe test_array_4x4 test_tu_4x4; do
  out=$("$MUT/build/tb/tensor/$t" 2>&1)
  failed=$(echo "$out" | grep -cE '^\[  FAILED  \] [A-Za-z0-9_./]+ \(')
  total=$(echo "$out" | grep -c '^\[ RUN      \]')
  printf '  %-16s %2d of %2d tests fail on the mutant\n' "$t" "$failed" "$total"
  [ "$failed" -gt 0 ] && caught=$((caught + 1))
done
if [ "$caught" -eq 3 ]; then
  echo "mutation caught by every block-test binary"
else
  echo "mutation NOT caught by every binary" >&2
  exit 1
fi
