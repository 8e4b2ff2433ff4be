#!/usr/bin/env python3
"""Seed sweep of the ULX3S build: Fmax of the same netlist placed and routed with several nextpnr
seeds (fpga/Makefile `sweep`: <dir>/seed<N>/report.json), its minimum, median and maximum, and the
logic cells used, written to <dir>/sweep.md (which report.md then includes) and printed.

    python3 scripts/fpga_sweep.py --dir fpga/build/ulx3s --freq 50 1 2 3
"""
import argparse
import json
import os
import statistics
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--freq", type=float, required=True, help="clock constraint, MHz")
    ap.add_argument("seeds", nargs="+")
    args = ap.parse_args()
    rows, fmaxes = [], []
    for seed in args.seeds:
        path = os.path.join(args.dir, f"seed{seed}", "report.json")
        try:
            rep = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"fpga sweep: seed {seed}: no report ({e}); run make -C fpga sweep", file=sys.stderr)
            return 2
        fmax = min((f.get("achieved", 0.0) for f in rep.get("fmax", {}).values()), default=0.0)
        comb = rep.get("utilization", {}).get("TRELLIS_COMB", {})
        secs = "?"
        try:
            secs = open(os.path.join(args.dir, f"seed{seed}", "time.pnr")).read().split()[1]
        except (OSError, IndexError):
            pass
        rows.append((seed, fmax, comb.get("used", 0), comb.get("available", 0), secs))
        fmaxes.append(fmax)
    out = [f"## Seed sweep ({len(rows)} seeds, constraint {args.freq:g} MHz)", "",
           "| seed | Fmax (MHz) | logic cells | place and route (s) |", "|---:|---:|---:|---:|"]
    for seed, fmax, used, avail, secs in rows:
        pct = f" ({100.0 * used / avail:.1f} %)" if avail else ""
        out.append(f"| {seed} | {fmax:.2f} | {used}{pct} | {secs} |")
    lo, med, hi = min(fmaxes), statistics.median(fmaxes), max(fmaxes)
    met = sum(1 for f in fmaxes if f >= args.freq)
    out += ["", f"Fmax min {lo:.2f}, median {med:.2f}, max {hi:.2f} MHz; "
                f"{met} of {len(fmaxes)} seeds meet {args.freq:g} MHz."]
    text = "\n".join(out) + "\n"
    with open(os.path.join(args.dir, "sweep.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
