#!/usr/bin/env python3
"""Find the one CTest test that a test name given to `make wave TEST=...` means, and how to run it.

Accepted names, for every test GoogleTest discovered (plain TEST/TEST_F, value-parameterised
TEST_P, typed tests):
  * the CTest name, as `ctest -N` lists it (e.g. `Backends/System.GemmMatchesGolden/Sim`,
    `Link/UartFaults.GemmIsExactAndWritesRunOnce/ToBoard`, `Suite.Test<int>` for a typed test);
  * the GoogleTest name, as `--gtest_list_tests` shows it (suite line + test line joined by a dot:
    `Backends/System.GemmMatchesGolden/Sim`, `Suite/0.Test`); a trailing `# GetParam() = ...`
    copied along with it is ignored.

Reads `ctest --show-only=json-v1` (no test is run). Prints one JSON object on stdout:
  {"ctest": name, "gtest": Suite.Test or null, "command": [...], "cwd": dir or null,
   "env": ["NAME=value", ...]}
Exit 1 with the reason and the closest names on stderr when nothing (or more than one test)
matches. Usage: wave_resolve.py BUILD_DIR NAME
"""
from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
import tempfile


def tests_of(build: str) -> list[dict]:
    # Through a scratch directory that includes the build tree: ctest writes its Testing/ logs
    # there, not into <build>/Testing (whose LastTest.log a running `make test` is writing, and
    # which scripts/ctest_skips.py reads for the skip reasons).
    with tempfile.TemporaryDirectory(prefix="weft-wave-") as tmp:
        with open(os.path.join(tmp, "CTestTestfile.cmake"), "w") as f:
            f.write(f'subdirs("{os.path.abspath(build)}")\n')
        out = subprocess.run(["ctest", "--test-dir", tmp, "--show-only=json-v1"],
                             capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"wave: ctest --show-only failed in {build}:\n{out.stderr.strip()}")
    tests = []
    for t in json.loads(out.stdout).get("tests", []):
        cmd = t.get("command") or []
        gtest = next((a.split("=", 1)[1] for a in cmd if a.startswith("--gtest_filter=")), None)
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append({"ctest": t["name"], "gtest": gtest, "command": cmd,
                      "cwd": props.get("WORKING_DIRECTORY"), "env": props.get("ENVIRONMENT", [])})
    return tests


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[-1].split("Usage: ")[-1], file=sys.stderr)
        return 2
    build, raw = sys.argv[1], sys.argv[2]
    want = re.sub(r"\s+#.*$", "", raw).strip()
    tests = tests_of(build)
    hits = [t for t in tests if t["ctest"] == want]
    if not hits:
        hits = [t for t in tests if t["gtest"] == want]
    if len(hits) == 1:
        t = hits[0]
        if t["gtest"] is None:
            print(f"wave: '{t['ctest']}' is not a GoogleTest test (its command: "
                  f"{' '.join(t['command'][:3])} ...): it writes no FST. make wave runs the tests "
                  "of the C++ benches (ctest -N lists them as Suite.Test or Suite/Test.Name/Param).",
                  file=sys.stderr)
            return 1
        print(json.dumps(t))
        return 0
    names = [t["ctest"] for t in tests]
    if hits:
        print(f"wave: '{want}' names {len(hits)} tests ({', '.join(sorted(set(h['command'][0] for h in hits)))}); "
              "give the CTest name of one:", file=sys.stderr)
        for h in hits:
            print(f"  {h['ctest']}", file=sys.stderr)
        return 1
    print(f"wave: no test named '{want}' in {build} ({len(tests)} tests registered; "
          "ctest --test-dir " + build + " -N lists them).", file=sys.stderr)
    # Closest names: by similarity, then those containing the name, then the same suite's.
    suite = want.split(".")[0].lower()
    close = difflib.get_close_matches(want, names, n=10, cutoff=0.4)
    close += [n for n in names if want.lower() in n.lower() and n not in close]
    close += [n for n in names if suite and n.split(".")[0].lower() == suite and n not in close]
    if close:
        print("Closest test names:", file=sys.stderr)
        for n in close[:15]:
            print("  " + n, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
