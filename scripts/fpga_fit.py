#!/usr/bin/env python3
"""Fit check of the ULX3S build: reads nextpnr-ecp5's device utilisation (pack.log of
`nextpnr-ecp5 --pack-only`) and fails when the design needs more of a resource than the
LFE5U-85F has (docs/fpga.md "Fit check").

    python3 scripts/fpga_fit.py fpga/build/ulx3s/pack.log
"""
import argparse
import re
import sys

# The resources a Weft build can run out of, by nextpnr's cell type names.
CHECKED = {
    "TRELLIS_COMB": "logic cells (LUT4 slots)",
    "TRELLIS_FF": "flip-flops",
    "DP16KD": "block RAM DP16KD",
    "MULT18X18D": "DSP MULT18X18D",
    "TRELLIS_RAMW": "LUT RAM write ports",
    "EHXPLLL": "PLL EHXPLLL",
}


def utilisation(log_text: str) -> dict[str, tuple[int, int]]:
    """{cell type: (used, available)} from the 'Device utilisation' block; the last one wins."""
    found: dict[str, tuple[int, int]] = {}
    for m in re.finditer(r"^\s*Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", log_text, re.M):
        found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pack_log")
    args = ap.parse_args()
    try:
        text = open(args.pack_log, encoding="utf-8", errors="replace").read()
    except OSError as e:
        print(f"fpga fit: cannot read {args.pack_log}: {e.strerror}", file=sys.stderr)
        return 2
    use = utilisation(text)
    if "TRELLIS_COMB" not in use:
        print(f"fpga fit: no device utilisation in {args.pack_log} (did nextpnr pack?)", file=sys.stderr)
        return 2
    over = []
    print("| resource | used | of | % |\n|---|---:|---:|---:|")
    for cell, what in CHECKED.items():
        if cell not in use:
            continue
        used, avail = use[cell]
        pct = 100.0 * used / avail if avail else 0.0
        print(f"| {what} | {used} | {avail} | {pct:.1f} |")
        if used > avail:
            over.append(f"{what}: {used} of {avail}")
    if over:
        print("fpga fit: the design does not fit the LFE5U-85F: " + "; ".join(over)
              + " (make it smaller, e.g. SIMT_WARPS / SIMT_THREADS, docs/fpga.md)", file=sys.stderr)
        return 1
    comb = use["TRELLIS_COMB"]
    note = " (above about 80 % routing may not converge)" if comb[0] > 0.8 * comb[1] else ""
    print(f"fpga fit: fits the LFE5U-85F{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
