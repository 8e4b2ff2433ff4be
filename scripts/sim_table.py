#!/usr/bin/env python3
"""Weft simulator regressions: run the CTest tests labelled `sim` (SV benches on Icarus and Verilator)
and `block` (Verilator GoogleTest block tests), then print

  * one row per SV bench: vectors, the Icarus and Verilator results and run times, and whether the
    two simulators' signatures agree (each bench prints
    `WEFT-BENCH <bench> vectors=<N> errors=<E> signature=<hex>`);
  * the block tests, counted per test binary and GoogleTest suite, and every failed test by name.

Exit status 1 if any test failed, a bench printed no WEFT-BENCH line, a bench ran on only one
simulator, or the simulators disagree (signature or vector count); 0 otherwise (also when no such
test is registered yet, with a note).

Usage: python3 scripts/sim_table.py --build build [--jobs N] [--filter REGEX] [--timeout S]
Each test's output is kept in <build>/sim-table/junit.xml (CTest's JUnit report, full output).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

BENCH_RE = re.compile(
    r"WEFT-BENCH\s+(?P<bench>\S+)\s+vectors=(?P<vectors>\d+)\s+errors=(?P<errors>\d+)\s+signature=(?P<sig>[0-9a-fA-FxX_]+)")
LABEL_RE = "^(sim|block)$"
SIMS = ("icarus", "verilator")


def ctest_json(build: str, filt: str | None) -> list[dict]:
    cmd = ["ctest", "--test-dir", build, "--show-only=json-v1", "-L", LABEL_RE]
    if filt:
        cmd += ["-R", filt]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out).get("tests", [])


def labels_of(test: dict) -> list[str]:
    for p in test.get("properties", []):
        if p.get("name") == "LABELS":
            return list(p.get("value", []))
    return []


def parse_junit(path: str) -> dict[str, dict]:
    raw = open(path, "rb").read().decode("utf-8", errors="replace")
    # Test output may hold control characters that XML 1.0 forbids: drop them.
    raw = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "", raw)
    root = ET.fromstring(raw)
    res = {}
    for tc in root.iter("testcase"):
        out = tc.findtext("system-out") or ""
        status = tc.get("status", "")
        if tc.find("failure") is not None:
            status = "fail"
        res[tc.get("name")] = {"status": status, "time": float(tc.get("time") or 0.0), "output": out}
    return res


def fmt_time(t: float) -> str:
    return f"{t:.2f} s" if t < 100 else f"{t:.0f} s"


def table(head: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> None:
    w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: ("  " + "  ".join(str(c).rjust(w[i]) if i in right else str(c).ljust(w[i])
                                      for i, c in enumerate(r))).rstrip()
    print(line(head))
    print("  " + "  ".join("-" * x for x in w))
    for r in rows:
        print(line(r))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="CMake build directory (default: build)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="tests run at once")
    ap.add_argument("--filter", help="only tests whose name matches this regex (ctest -R)")
    ap.add_argument("--timeout", type=int, default=300,
                    help="per-test timeout in seconds for tests without their own TIMEOUT (default 300; 0: none)")
    ap.add_argument("--quiet", action="store_true", help="do not echo CTest's progress lines")
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    if not os.path.isfile(os.path.join(build, "CTestTestfile.cmake")):
        print(f"sim_table: {build} is not a configured CMake build (run `make build` first)", file=sys.stderr)
        return 2
    tests = ctest_json(build, a.filter)
    if not tests:
        print("sim_table: no test labelled sim or block is registered yet: nothing to run")
        return 0
    not_built = [t["name"] for t in tests if t["name"].endswith("_NOT_BUILT")]

    outdir = os.path.join(build, "sim-table")
    os.makedirs(outdir, exist_ok=True)
    junit = os.path.join(outdir, "junit.xml")
    if os.path.exists(junit):
        os.remove(junit)
    big = str(64 << 20)
    cmd = ["ctest", "--test-dir", build, "-L", LABEL_RE, "-j", str(max(1, a.jobs)),
           "--output-junit", junit, "--test-output-size-passed", big, "--test-output-size-failed", big]
    if a.filter:
        cmd += ["-R", a.filter]
    if a.timeout:
        cmd += ["--timeout", str(a.timeout)]
    print(f"sim_table: {len(tests)} tests ({' '.join(cmd[1:])})", flush=True)
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as p:
        log = []
        for line in p.stdout:
            log.append(line)
            if not a.quiet and re.match(r"\s*\d+/\d+ Test\s+#", line):
                print("  " + line.strip(), flush=True)
        rc = p.wait()
    with open(os.path.join(outdir, "ctest.log"), "w") as f:
        f.writelines(log)
    if not os.path.exists(junit):
        sys.stdout.writelines(log[-30:])
        print(f"sim_table: ctest wrote no JUnit report (exit {rc})", file=sys.stderr)
        return 1
    results = parse_junit(junit)

    problems: list[str] = []
    by_name = {t["name"]: t for t in tests}

    # ---- SV benches: icarus.<bench> / verilator.<bench>
    benches: dict[str, dict[str, dict]] = defaultdict(dict)
    for t in tests:
        if "sim" not in labels_of(t):
            continue
        sim, _, bench = t["name"].partition(".")
        if sim not in SIMS or not bench:
            sim, bench = ("icarus" if "icarus" in labels_of(t) else "verilator"), t["name"]
        r = results.get(t["name"], {"status": "notrun", "time": 0.0, "output": ""})
        m = None
        for m in BENCH_RE.finditer(r["output"]):
            pass  # the last WEFT-BENCH line counts
        benches[bench][sim] = {**r, "bench": m.groupdict() if m else None}

    if benches:
        rows = []
        for bench in sorted(benches):
            cells, sigs, vecs = [], [], set()
            for sim in SIMS:
                r = benches[bench].get(sim)
                if r is None:
                    cells.append("(no test)")
                    problems.append(f"{bench}: no {sim} test")
                    continue
                b = r["bench"]
                ok = r["status"] == "run" and b is not None and int(b["errors"]) == 0
                if r["status"] == "notrun":
                    word = "NOT BUILT" if "Unable to find executable" in r["output"] else "NOT RUN"
                elif b is None:
                    word = "FAIL (no WEFT-BENCH line)"
                elif not ok:
                    word = f"FAIL (errors={b['errors']})" if int(b["errors"]) else "FAIL"
                else:
                    word = "pass"
                cells.append(f"{word} {fmt_time(r['time'])}")
                if not ok:
                    problems.append(f"{sim}.{bench}: {word}")
                if b is not None:
                    vecs.add(int(b["vectors"]))
                    sigs.append(int(re.sub(r"[^0-9a-fA-F]", "", b["sig"].lower().removeprefix("0x")) or "0", 16))
                else:
                    sigs.append(None)
            if len(sigs) == 2 and None not in sigs:
                agree = "yes" if sigs[0] == sigs[1] and len(vecs) == 1 else "NO"
                if agree == "NO":
                    problems.append(f"{bench}: simulators disagree (signatures "
                                    f"{sigs[0]:x} / {sigs[1]:x}, vectors {sorted(vecs)})")
            else:
                agree = "n/a"
            ti = benches[bench].get("icarus", {}).get("time", 0.0)
            tv = benches[bench].get("verilator", {}).get("time", 0.0)
            ratio = f"{ti / tv:.0f}x" if tv >= 0.05 and ti > 0 else "-"
            rows.append([bench, "/".join(str(v) for v in sorted(vecs)) or "-", cells[0], cells[1], ratio, agree])
        print("\nSV benches (same vectors on both simulators):")
        table(["bench", "vectors", "Icarus", "Verilator", "Icarus/Verilator time", "signatures agree"], rows, {1, 4})

    # ---- Block tests: per binary and suite
    groups: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0.0])
    failed_block = []
    for t in tests:
        if "block" not in labels_of(t) or t["name"].endswith("_NOT_BUILT"):
            continue
        binary = os.path.basename(t.get("command", ["?"])[0]) if t.get("command") else "?"
        suite = t["name"].split(".", 1)[0]  # GoogleTest: <Suite>.<Test>, "Prefix/Suite.Test/N"
        r = results.get(t["name"], {"status": "notrun", "time": 0.0})
        g = groups[(binary, suite)]
        if r["status"] == "run":
            g[0] += 1
        elif r["status"] in ("disabled", "skipped"):
            g[2] += 1
        else:
            g[1] += 1
            failed_block.append(f"{t['name']} ({binary}: {r['status']})")
        g[3] += r["time"]
    if groups:
        print("\nBlock tests (Verilator, GoogleTest):")
        rows = [[b, s, str(g[0]), str(g[1]), str(g[2]), fmt_time(g[3])] for (b, s), g in sorted(groups.items())]
        tot = [sum(g[i] for g in groups.values()) for i in range(4)]
        rows.append(["total", "", str(tot[0]), str(tot[1]), str(tot[2]), fmt_time(tot[3])])
        table(["binary", "suite", "passed", "failed", "skipped", "time"], rows, {2, 3, 4, 5})
        for f in failed_block:
            problems.append(f"block test failed: {f}")
    for n in not_built:
        problems.append(f"{n}: test binary not built (run `make build`)")

    # Anything else CTest reported as failed that the tables above do not show.
    shown = {t["name"] for t in tests}
    for name, r in results.items():
        if name not in shown and r["status"] not in ("run", "disabled"):
            problems.append(f"{name}: {r['status']}")

    print()
    if problems:
        for p in problems:
            print("sim_table: " + p)
        print(f"  (full output of every test: {junit}; re-run one: ctest --test-dir {a.build} -R '^NAME$' -V)")
    npass = sum(1 for t in tests if results.get(t["name"], {}).get("status") == "run")
    nfail = len(tests) - npass
    print(f"sim_table: {npass} passed, {nfail} failed" + (", simulators disagree" if any("disagree" in p for p in problems) else ""))
    return 1 if problems or rc != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
