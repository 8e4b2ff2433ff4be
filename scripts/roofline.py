#!/usr/bin/env python3
"""Roofline plot of Weft networks and benchmarks (make bench, section 9; docs/performance.md).

    scripts/roofline.py [--bench build/bench/bench_host.json] RUN.json [RUN.json ...] -o roofline.svg

Each RUN.json is the output of `weft eval ... --json` or `weft run ... --json`: its "layers" are
plotted, one point per tensor-unit step, at x = operational intensity (MACs per byte the device's
DMA moved, reads + writes) and y = MACs per device cycle, labelled op/node. SIMT steps do no MACs:
they are listed under the plot with their cycles. Host steps take no device cycles and are left out.

The bench file (`bench_host --json FILE`) adds the measured GEMM and convolution points and the
measured bandwidth of the 1 MiB copy (drawn as a line: bytes per cycle, reads + writes). A file
given positionally that has "figures" instead of "layers" is taken as a bench file too.

Roofs: compute = rows * cols MACs/cycle; bandwidth = 2 * bus_bytes B/cycle (the AXI read and
write channels together) times the intensity; the one-channel roof (bus_bytes B/cycle) is drawn
dashed. rows, cols and bus_bytes come from the eval JSON, else from the bench JSON, else from
--rows/--cols/--bus-bytes (default 16, 16, 16: the sim:// device).

The output is deterministic: no date in the SVG or PNG, a fixed SVG hash salt, text as text.
"""
import argparse
import json
import os
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def model_name(doc, path):
    m = doc.get("model") or path
    base = os.path.basename(m)
    if base == "model.onnx":  # a test-corpus model: build/onnx_models/<name>/model.onnx
        parent = os.path.basename(os.path.dirname(m))
        base = parent or re.sub(r"(\.(run|eval))?\.json$", "", os.path.basename(path))
    return re.sub(r"\.onnx$", "", base)


def geometry(docs, args):
    """rows, cols, bus_bytes: the first document that states them, else the arguments."""
    for d in docs:
        if all(k in d for k in ("rows", "cols", "bus_bytes")):
            return int(d["rows"]), int(d["cols"]), int(d["bus_bytes"]), True
    rows, cols = args.rows, args.cols
    for d in docs:  # weft run --json: "... weft_top 16x16 ..." in the device description
        m = re.search(r"(\d+)x(\d+) \(RTL\)|weft_top (\d+)x(\d+)", d.get("device", ""))
        if m:
            g = [x for x in m.groups() if x]
            rows, cols = int(g[0]), int(g[1])
            break
    return rows, cols, args.bus_bytes, False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="*", help="weft eval / weft run --json outputs (or bench files)")
    ap.add_argument("--bench", action="append", default=[], help="bench_host --json output")
    ap.add_argument("-o", "--output", required=True, help="the SVG to write")
    ap.add_argument("--png", help="also write a PNG here")
    ap.add_argument("--title", default="Weft roofline (sim://, 32-cycle memory)")
    ap.add_argument("--rows", type=int, default=16)
    ap.add_argument("--cols", type=int, default=16)
    ap.add_argument("--bus-bytes", type=int, default=16)
    args = ap.parse_args(argv)

    runs, benches = [], []
    for p in args.bench:
        benches.append((p, load(p)))
    for p in args.runs:
        d = load(p)
        if "layers" in d:
            runs.append((p, d))
        elif "figures" in d:
            benches.append((p, d))
        else:
            sys.exit(f"roofline.py: {p}: neither \"layers\" (weft eval / run --json) nor \"figures\" (bench_host --json)")
    if not runs and not benches:
        sys.exit("roofline.py: nothing to plot: give weft eval / run JSON files and/or --bench")

    rows, cols, bb, _ = geometry([d for _, d in runs] + [d for _, d in benches], args)
    peak = rows * cols

    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "weft-roofline"
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["font.size"] = 8
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6.5))
    xs, ys = [], []
    simt = []  # (model, op/node, cycles)
    markers = ["o", "^", "v", "<", ">", "p", "h", "*"]
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive"]

    for i, (path, d) in enumerate(runs):
        name = model_name(d, path)
        px, py, labels = [], [], []
        for l in d["layers"]:
            where = l.get("where", "")
            cyc, macs, dma = int(l.get("cycles", 0)), int(l.get("macs", 0)), int(l.get("dma_bytes", 0))
            if where == "SIMT":
                simt.append((name, f'{l.get("op", "?")}/{l.get("node", "?")}', cyc))
                continue
            if where != "tensor unit" or cyc == 0 or macs == 0 or dma == 0:
                continue
            px.append(macs / dma)
            py.append(macs / cyc)
            labels.append(f'{l.get("op", "?")}/{l.get("node", "?")}')
        if not px:
            continue
        ax.scatter(px, py, marker=markers[i % len(markers)], color=colors[i % len(colors)], s=30,
                   zorder=3, label=f"{name}: tensor-unit layers")
        for x, y, t in zip(px, py, labels):
            ax.annotate(t, (x, y), xytext=(4, 3), textcoords="offset points", fontsize=6,
                        color=colors[i % len(colors)])
        xs += px
        ys += py

    copies = []
    nb = 0
    for path, d in benches:
        for f in d.get("figures", []):
            cyc, macs, dma = int(f.get("cycles", 0)), int(f.get("macs", 0)), int(f.get("dma_bytes", 0))
            if cyc == 0 or dma == 0:
                continue
            if f.get("kind") == "copy" or macs == 0:
                copies.append((f.get("name", "copy"), dma / cyc))
                continue
            x, y = macs / dma, macs / cyc
            mk = "s" if f.get("kind") == "gemm" else "D"
            ax.scatter([x], [y], marker=mk, facecolors="none", edgecolors="black", s=45, zorder=3,
                       label=f'bench: {f.get("name", f.get("kind"))}')
            dx, dy, ha = [(4, 5, "left"), (4, -10, "left"), (-5, -12, "right"), (5, -10, "left")][nb % 4]
            ax.annotate(f.get("name", ""), (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, fontsize=6)
            nb += 1
            xs.append(x)
            ys.append(y)

    ridge = peak / (2 * bb)
    xmin = min([x for x in xs if x > 0] + [ridge / 20]) / 2
    xmax = max(xs + [ridge * 20]) * 2
    ymin = min([y for y in ys if y > 0] + [peak / 100]) / 2
    ymax = peak * 2
    grid = [xmin * (xmax / xmin) ** (j / 200) for j in range(201)]
    ax.plot(grid, [min(peak, 2 * bb * x) for x in grid], color="black", lw=1.6,
            label=f"roof: min({rows}x{cols} = {peak} MACs/cycle, reads+writes 2x{bb} = {2 * bb} B/cycle x intensity)")
    ax.plot(grid, [min(peak, bb * x) for x in grid], color="gray", lw=1, ls="--",
            label=f"roof with one AXI channel ({bb} B/cycle)")
    for name, bpc in copies:
        ax.plot(grid, [min(peak, bpc * x) for x in grid], color="tab:cyan", lw=1, ls=":",
                label=f"measured: {name}, {bpc:.1f} DMA B/cycle (reads+writes)")

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    ax.set_xlabel("operational intensity: MACs per DMA byte (reads + writes)")
    ax.set_ylabel("MACs per device cycle")
    ax.set_title(args.title)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(loc="lower right", fontsize=6)
    if simt:
        lines = ["SIMT steps (no MACs, not plotted):"] + [f"  {m}: {t}, {c} cycles" for m, t, c in simt[:12]]
        if len(simt) > 12:
            lines.append(f"  ... {len(simt) - 12} more")
        ax.text(0.01, 0.99, "\n".join(lines), transform=ax.transAxes, va="top", ha="left", fontsize=6,
                family="monospace", bbox=dict(facecolor="white", alpha=0.8, lw=0.3))
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    fig.savefig(args.output, format="svg", metadata={"Date": None})
    if args.png:
        fig.savefig(args.png, format="png", dpi=110, metadata={"Software": None})
    print(f"   roofline: {args.output}" + (f" and {args.png}" if args.png else "") +
          f" ({len(xs)} points; roofs {peak} MACs/cycle and {2 * bb} B/cycle, ridge at {ridge:.1f} MACs/B)")


if __name__ == "__main__":
    main()
