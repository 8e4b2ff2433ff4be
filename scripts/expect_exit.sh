#!/usr/bin/env bash
# A CTest check of a command that must fail in a stated way (instead of WILL_FAIL, which passes on
# any failure, a crash included): runs the command, shows its output, and exits 0 only when its
# exit status is <status> and its output (stdout + stderr) contains every <phrase>.
# Usage: expect_exit.sh <status> <phrase>... -- <command> [args...]
set -uo pipefail
want=$1
shift
phrases=()
while [[ $# -gt 0 && $1 != -- ]]; do phrases+=("$1"); shift; done
[[ ${1:-} == -- ]] || { echo "usage: $0 <status> <phrase>... -- <command> [args...]" >&2; exit 2; }
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
ok=1
if [[ $rc -ne $want ]]; then
  echo "expect_exit: exit status $rc, want $want" >&2
  ok=0
fi
for p in "${phrases[@]}"; do
  if ! grep -qF -- "$p" <<<"$out"; then
    echo "expect_exit: the output has no '$p'" >&2
    ok=0
  fi
done
((ok)) && exit 0 || exit 1
