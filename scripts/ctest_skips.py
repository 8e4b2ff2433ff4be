#!/usr/bin/env python3
"""Pass CTest's console output through, adding each skipped test's reason to its summary line.

CTest counts a GoogleTest GTEST_SKIP() as skipped (gtest_discover_tests sets
SKIP_REGULAR_EXPRESSION "[  SKIPPED ]") but its summary only says

    The following tests did not run:
         41 - Kernels.Vecadd (Skipped)

The reason is in the test's output, which CTest keeps in <build>/Testing/Temporary/LastTest.log.
This filter reads it there once CTest has finished and writes

         41 - Kernels.Vecadd (Skipped: riscv64-unknown-elf-gcc not found at configure time ...)

Every other line passes unchanged (and at once). Usage: ctest ... | ctest_skips.py BUILD_DIR
(the Makefile's test targets; the exit status is ctest's, through pipefail).
"""
from __future__ import annotations

import os
import re
import sys

SUMMARY_RE = re.compile(r"^(\s*\d+ - )(.+?) \(Skipped\)\s*$")


def skip_reasons(log_path: str) -> dict[str, str]:
    """Test name -> the message GoogleTest printed with its skip (first line of it)."""
    reasons: dict[str, str] = {}
    try:
        with open(log_path, errors="replace") as f:
            text = f.read()
    except OSError:
        return reasons
    # One block per test: "<n>/<m> Test: <name>" ... "<end of output>".
    for m in re.finditer(r"^\d+/\d+ Test: (.+?)\n(.*?)^<end of output>", text, re.S | re.M):
        name, out = m[1].strip(), m[2]
        lines = out.split("\n")
        reason = ""
        for i, line in enumerate(lines):
            # GoogleTest: "<file>:<line>: Skipped" then the message, up to "[  SKIPPED ]".
            if re.search(r":\d+: Skipped$", line) or line.strip() == "Skipped":
                msg = []
                for nxt in lines[i + 1:]:
                    if nxt.startswith("[  SKIPPED ]") or nxt.startswith("["):
                        break
                    if nxt.strip():
                        msg.append(nxt.strip())
                reason = " ".join(msg)
                break
        if reason:
            reasons[name] = reason
        elif "[  SKIPPED ]" in out:
            reasons[name] = "GTEST_SKIP() without a message"
    return reasons


def main() -> int:
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    # The skipped list is the end of CTest's output, and CTest completes LastTest.log only as it
    # exits: from the first "(Skipped)" line on, lines are held until the end of the input.
    held: list[str] = []
    for line in sys.stdin:
        if held or SUMMARY_RE.match(line):
            held.append(line)
            continue
        sys.stdout.write(line)
        sys.stdout.flush()
    if held:
        reasons = skip_reasons(log)
        for line in held:
            m = SUMMARY_RE.match(line)
            why = reasons.get(m[2]) if m else None
            sys.stdout.write(f"{m[1]}{m[2]} (Skipped: {why})\n" if why else line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
