#!/usr/bin/env python3
"""Weft FPGA report: turns one build of the open flow (fpga/Makefile) into <dir>/report.md and prints it.

Sources, all in <dir>: synth.stat.json (Yosys `stat -json` after synth_ecp5: cells as mapped),
report.json (nextpnr-ecp5 --report: utilisation of the device's bels, Fmax per clock, critical paths),
time.{synth,pnr,pack} (wall seconds of each step, written by fpga/Makefile), weft.bit.
Exit status: 0 when every constrained clock meets its constraint (or --allow-timing-fail), 1 otherwise,
2 when an input is missing.
Usage: python3 scripts/fpga_report.py --dir fpga/build/ulx3s --freq 20 [--target 50] [--seed 1] [--core board]
"""
import argparse
import json
import os
import re
import sys

# Bel types of the LFE5U-85F that the report lists (nextpnr names), with a short label.
BELS = [
    ("TRELLIS_COMB", "LUT4 (logic cells)"),
    ("TRELLIS_FF", "flip-flops"),
    ("TRELLIS_RAMW", "LUT RAM write ports"),
    ("DP16KD", "block RAM DP16KD (18 Kib)"),
    ("MULT18X18D", "DSP MULT18X18D"),
    ("ALU54B", "DSP ALU54B"),
    ("EHXPLLL", "PLL EHXPLLL"),
    ("TRELLIS_IO", "I/O"),
    ("DCCA", "global clock buffers"),
]
# Yosys cell kinds after synth_ecp5 (before packing).
CELLS = ["LUT4", "CCU2C", "L6MUX21", "PFUMX", "TRELLIS_FF", "TRELLIS_DPR16X4", "DP16KD", "MULT18X18D",
         "ALU54B", "EHXPLLL"]


def load(path):
    with open(path) as f:
        return json.load(f)


def short(name, width=70):
    """A cell name without Yosys' mapping suffixes, cut to width (keeping the end)."""
    name = re.sub(r"(_(DFF|SB|TRELLIS|LUT4|CCU2C|PFUMX|L6MUX21)[A-Z0-9_]*)+$", "", name)
    name = name.replace("$", "")
    return name if len(name) <= width else "..." + name[-(width - 3):]


def block_of(name):
    """The instance path down to two levels below the device (u_board.u_top.u_cmd -> cmd)."""
    parts = [p for p in name.split(".") if p.startswith("u_") or p.startswith("g_")]
    parts = [p for p in parts if p not in ("u_board", "u_top")]
    return ".".join(parts[:2]) if parts else "(top)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--freq", type=float, required=True, help="system clock constraint, MHz")
    ap.add_argument("--target", type=float, default=50.0,
                    help="the design's Fmax target, MHz (docs/fpga.md), reported next to the constraint")
    ap.add_argument("--seed", default="?")
    ap.add_argument("--core", default="board")
    ap.add_argument("--simt", default="", help="SIMT shape on board, WARPSxTHREADS (0xN: none)")
    ap.add_argument("--mem-ecc", default="", help="1: the build has ECC on scratchpad and accumulator")
    ap.add_argument("--paths", type=int, default=3, help="critical paths to list")
    ap.add_argument("--allow-timing-fail", action="store_true")
    args = ap.parse_args()

    d = args.dir
    try:
        rep = load(os.path.join(d, "report.json"))
    except OSError as e:
        print(f"fpga report: {e} (run the flow first: make fpga)", file=sys.stderr)
        return 2
    cells = {}
    try:
        stat = load(os.path.join(d, "synth.stat.json"))
        cells = stat["design"].get("num_cells_by_type", {})
    except (OSError, KeyError):
        pass
    times = {}
    for step in ("synth", "pnr", "pack"):
        try:
            times[step] = int(open(os.path.join(d, "time." + step)).read().split()[1])
        except (OSError, IndexError, ValueError):
            pass

    out = []
    out.append(f"# Weft on the ULX3S (LFE5U-85F-6BG381C): build report")
    out.append("")
    top = "weft_ulx3s -> weft_board" + ("" if args.core == "board" else f" ({args.core})")
    bit = os.path.join(d, "weft.bit")
    bit_s = f"`{bit}` ({os.path.getsize(bit)} bytes)" if os.path.exists(bit) else "missing"
    out.append(f"Top: {top}; clock constraint {args.freq:g} MHz; nextpnr seed {args.seed}; bitstream {bit_s}.")
    if args.simt:
        w, _, t = args.simt.partition("x")
        simt = "none" if w in ("", "0") else f"{w} warps x {t} threads"
        ecc = "" if args.mem_ecc == "" else "; memory ECC: " + ("on (SECDED, MEM_ECC=1)" if args.mem_ecc == "1" else "off")
        out.append(f"Device: 8x8 tensor array, UART bridge, 64 KiB board memory; SIMT core: {simt}{ecc}.")
    if times:
        tot = sum(times.values())
        out.append("Wall time: " + ", ".join(f"{k} {v} s" for k, v in times.items()) + f"; total {tot} s.")
    out.append("")

    out.append("## Utilisation (nextpnr, after placement)")
    out.append("")
    out.append("| resource | used | available | % |")
    out.append("|---|---:|---:|---:|")
    util = rep.get("utilization", {})
    for bel, label in BELS:
        if bel in util:
            u, a = util[bel]["used"], util[bel]["available"]
            out.append(f"| {label} | {u} | {a} | {100.0 * u / a:.1f} |" if a else f"| {label} | {u} | {a} | - |")
    out.append("")
    if cells:
        out.append("Yosys cells after synth_ecp5: " +
                   ", ".join(f"{c} {cells[c]}" for c in CELLS if c in cells) + ".")
        out.append("(One CCU2C is two LUT4s with their carry chain; nextpnr's LUT4 count includes them.)")
        out.append("")

    out.append("## Timing (nextpnr)")
    out.append("")
    out.append("| clock | constraint (MHz) | Fmax (MHz) | slack (ns) | result |")
    out.append("|---|---:|---:|---:|---|")
    fails = []
    for clk, f in sorted(rep.get("fmax", {}).items()):
        ach, con = f.get("achieved", 0.0), f.get("constraint", args.freq)
        ok = ach >= con
        slack = 1000.0 / con - 1000.0 / ach if ach > 0 else float("-inf")
        out.append(f"| {clk} | {con:.2f} | {ach:.2f} | {slack:.2f} | {'pass' if ok else 'FAIL'} |")
        if not ok:
            fails.append(f"{clk}: Fmax {ach:.2f} MHz < {con:.2f} MHz")
    out.append("")
    fmax = min((f.get("achieved", 0.0) for f in rep.get("fmax", {}).values()), default=0.0)
    if fmax:
        verdict_t = "met" if fmax >= args.target else "not met"
        out.append(f"Design target {args.target:g} MHz (docs/fpga.md): {verdict_t}, Fmax {fmax:.2f} MHz "
                   f"is {fmax / args.target:.2f} of it.")
        out.append("")

    paths = rep.get("critical_paths", [])
    if paths:
        out.append("## Critical paths")
        out.append("")
    for p in paths[: args.paths]:
        segs = p.get("path", [])
        if not segs:
            continue
        total = sum(s.get("delay", 0.0) for s in segs)
        logic = sum(s.get("delay", 0.0) for s in segs if s.get("type") != "routing")
        route = total - logic
        nlogic = sum(1 for s in segs if s.get("type") == "logic")
        start = segs[0].get("from", {}).get("cell", "?")
        end = segs[-1].get("to", {}).get("cell", "?")
        out.append(f"- {p.get('from', '?')} -> {p.get('to', '?')}: {total:.2f} ns "
                   f"({logic:.2f} ns cells, {route:.2f} ns routing, {nlogic} logic levels)")
        out.append(f"  - from `{short(start)}` [{block_of(start)}]")
        out.append(f"  - to `{short(end)}` [{block_of(end)}]")
        # The blocks the path crosses, in order, without repeats.
        seen = []
        for s in segs:
            b = block_of(s.get("to", {}).get("cell", ""))
            if not seen or seen[-1] != b:
                seen.append(b)
        out.append(f"  - through: {' -> '.join(seen)}")
    if paths:
        out.append("")

    sweep = os.path.join(d, "sweep.md")
    if os.path.exists(sweep):
        out.append(open(sweep).read().rstrip())
        out.append("")

    ok = not fails
    verdict = "PASS: every clock meets its constraint" if ok else "FAIL: " + "; ".join(fails)
    out.append(f"**{verdict}.**")
    text = "\n".join(out) + "\n"
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text)
    print(text, end="")
    print(f"fpga: report written to {os.path.join(d, 'report.md')}")
    if not ok and not args.allow_timing_fail:
        print("fpga: timing not met (ALLOW_TIMING_FAIL=1 to accept)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
