#!/usr/bin/env python3
"""The network figures of make bench, section 9 (scripts/bench_networks.sh; docs/performance.md).

    scripts/network_figures.py --eval NET.eval.json [--run NET.run.json] [--brief]

--eval: the output of `weft eval MODEL --dataset ... --json` (layers summed over its batches).
--run:  the output of `weft run MODEL --input ONE_BATCH --json` on the same device: the steps'
        shapes (which convolutions have >= 16 input and output channels), wall time and stall
        counters, which the eval JSON does not carry. Optional: without it those figures say so.
A `weft run --json` file alone can be given as --eval too (one batch; images from its input).

Prints, each with its target or "no target":
  whole-network utilisation of R*C = sum(layer MACs) / (rows*cols * sum of the layers' device
  cycles, tensor unit and SIMT) — target >= 0.60;
  device cycles per image, and images/s at the ULX3S board clock and at 500 MHz;
  the share of the wall time spent in host steps;
  each convolution with >= 16 input and output channels against >= 0.85 of R*C;
  (not --brief) a line per device step: cycles share, utilisation and what stalled it.
"""
import argparse
import json
import os
import re
import sys

NET_TARGET = 0.60
CONV_TARGET = 0.85


def verdict(ok):
    return "met" if ok else "MISSES"


def conv_channels(shape):
    """(c_in, c_out) of '16x16x28x28 -> 16x32x14x14, k3x3 s2' (NCHW), else None."""
    m = re.match(r"\s*(\d+)x(\d+)x\d+x\d+\s*->\s*(\d+)x(\d+)x\d+x\d+", shape or "")
    return (int(m.group(2)), int(m.group(4))) if m else None


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    ap.add_argument("--run")
    ap.add_argument("--brief", action="store_true")
    ap.add_argument("--board-mhz", type=float, default=20.0)
    ap.add_argument("--board-note", default="ULX3S default bitstream clock")
    ap.add_argument("--nominal-mhz", type=float, default=500.0)
    a = ap.parse_args(argv)

    ev = json.load(open(a.eval))
    run = json.load(open(a.run)) if a.run else None
    name = re.sub(r"\.onnx$", "", os.path.basename(ev.get("model", a.eval)))
    rows, cols = int(ev.get("rows", 16)), int(ev.get("cols", 16))
    rc = rows * cols
    layers = ev["layers"]
    if "images" in ev:
        images = int(ev["images"])
    else:  # a weft run --json file: the batch of its (first) output
        outs = ev.get("outputs") or [{}]
        images = int((outs[0].get("dims") or [1])[0])

    dev_layers = [l for l in layers if l.get("where") in ("tensor unit", "SIMT")]
    macs = sum(int(l.get("macs", 0)) for l in layers)
    cycles = sum(int(l.get("cycles", 0)) for l in dev_layers)
    tu_cycles = sum(int(l.get("cycles", 0)) for l in layers if l.get("where") == "tensor unit")
    simt_cycles = sum(int(l.get("cycles", 0)) for l in layers if l.get("where") == "SIMT")
    util = macs / (rc * cycles) if cycles else 0.0
    cpi = cycles / images if images else 0.0
    whole = float(ev["cycles_per_image"]) if "cycles_per_image" in ev else None

    head = f"   {name}"
    if "accuracy" in ev:
        agree = ev.get("agree")
        agree_text = (f"; {agree} of {images} predictions equal onnxruntime's" if agree is not None
                      else "; no stored onnxruntime predictions")
        head += f" ({ev.get('dataset', '?')}, {images} images, batch {ev.get('batch', '?')}): " \
                f"top-1 {100 * float(ev['accuracy']):.1f} % (no target){agree_text}"
    else:
        head += f" ({images} images, weft run)"
    print(head)
    print(f"      whole network: {util:.3f} of {rows}x{cols} R*C = {macs} MACs / ({rc} x {cycles} device cycles "
          f"of its steps: tensor unit {tu_cycles}, SIMT {simt_cycles}) (target >= {NET_TARGET:.2f}: "
          f"{verdict(util >= NET_TARGET)})")
    extra = ""
    if whole is not None and cycles and abs(whole * images - cycles) > 0.01 * cycles:
        extra = f"; the whole run, gaps between steps included: {whole:.0f}"
    print(f"      cycles per image: {cpi:.0f} (no target){extra}")
    if cpi:
        print(f"      images/s: {a.board_mhz * 1e6 / cpi:,.0f} at {a.board_mhz:g} MHz ({a.board_note}), "
              f"{a.nominal_mhz * 1e6 / cpi:,.0f} at a nominal {a.nominal_mhz:g} MHz (no target; this "
              f"{rows}x{cols} device's cycles)")
    if "images_per_s" in ev:
        print(f"      simulated: {float(ev['images_per_s']):.1f} images/s wall (Verilator; no target)")

    # Host share of the wall time: per-step wall times (eval JSON if it has them, else weft run).
    src, wl = None, None
    for doc, what in ((ev, "weft eval" if "images" in ev else "weft run"), (run, "weft run, one batch")):
        if doc and doc.get("layers") and any(("wall_s" in l or "wall_seconds" in l) for l in doc["layers"]):
            src, wl = what, doc["layers"]
            break
    if wl:
        w = lambda l: float(l.get("wall_s", l.get("wall_seconds", 0.0)))
        total = sum(w(l) for l in wl)
        host = sum(w(l) for l in wl if l.get("where") == "host")
        if total > 0:
            print(f"      host steps: {100 * host / total:.2f} % of the steps' wall time ({host * 1e3:.1f} of "
                  f"{total * 1e3:.1f} ms, {src}; the device steps' wall time is mostly simulation; no target)")
    else:
        print("      host steps' share of the wall time: not measured (no per-step wall time: "
              "the eval JSON has none and weft run did not run)")

    # Convolutions with >= 16 input and output channels: shapes from weft run (or the eval JSON).
    shapes = {}
    for doc in (run, ev):
        for l in (doc or {}).get("layers", []):
            if l.get("shape"):
                shapes.setdefault(l.get("node"), l["shape"])
    convs = [l for l in layers if l.get("where") == "tensor unit" and "Conv" in l.get("op", "")]
    if convs and not shapes:
        print("      conv layers with >= 16 in / out channels: unknown (no shapes: weft run did not run)")
    n_big = 0
    for l in convs:
        ch = conv_channels(shapes.get(l.get("node"), ""))
        if not ch or ch[0] < 16 or ch[1] < 16:
            continue
        n_big += 1
        lc, lm = int(l.get("cycles", 0)), int(l.get("macs", 0))
        u = lm / (rc * lc) if lc else 0.0
        print(f"      conv {l.get('node')} ({shapes[l.get('node')]}): {u:.3f} of R*C "
              f"(target >= {CONV_TARGET:.2f}: {verdict(u >= CONV_TARGET)})")
    if convs and shapes and n_big == 0:
        print("      (no conv layer with >= 16 input and output channels)")

    if a.brief:
        return
    # Per device step: share of the cycles, utilisation, what stalled it (weft run's counters).
    stalls = {l.get("node"): l for l in (run or ev).get("layers", [])}
    print("      per device step (cycles summed over the eval; stalls from one batch of weft run, % of its cycles):")
    for l in dev_layers:
        lc = int(l.get("cycles", 0))
        if not lc:
            continue
        s = stalls.get(l.get("node"), {})
        sc = int(s.get("cycles", 0))
        line = (f"        {l.get('op')}/{l.get('node')} [{l.get('where')}]: {100 * lc / cycles:.1f} % of the cycles")
        if l.get("where") == "tensor unit":
            line += f", {int(l.get('macs', 0)) / (rc * lc):.3f} of R*C, {int(l.get('dma_bytes', 0)) / lc:.1f} DMA B/cycle"
            if sc and "utilisation" in s:  # weft run's: PERF_MACS, rows*cols per A row, padding included
                line += f" (array occupied {float(s['utilisation']):.3f} of one batch's cycles, padding of partial tiles included)"
            if sc:
                pc = lambda k: 100.0 * int(s.get(k, 0)) / sc
                line += (f"; waits: weights {pc('wait_weights'):.0f} %, activations {pc('wait_activations'):.0f} %, "
                         f"drain {pc('wait_drain'):.0f} %; DMA stalled {pc('dma_stall'):.0f} %")
        elif sc and "simt_issued" in s:
            line += f"; IPC {int(s['simt_issued']) / sc:.2f}"
        print(line + " (no target)")


if __name__ == "__main__":
    try:
        main()
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"network_figures.py: {e}")
