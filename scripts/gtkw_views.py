#!/usr/bin/env python3
"""Add block-specific views at the top of a GTKWave save file written by gen_gtkw.py.

gen_gtkw.py lays out every signal by hierarchy; for some blocks a few signals tell the story and
are scattered over that tree. For each instance of such a block found in the FST header, this
inserts an open group of those signals before the generated layout (the rest is unchanged).

Views:
  weft_simt_core  "SIMT <path>": the scheduler and the pipeline, cycle by cycle:
                  busy/done; per warp (g_warp[w]) its pc (= min pc of its runnable threads), active
                  mask (the threads at that pc), ready and blocked (replayed, waiting); the issue
                  choice (is_fire, is_w, is_pc); RR (fd_*, replay), EX (ex_*, commit), the units
                  (divider busy, LSU queue slots and write back), the error code.

Usage: gtkw_views.py WAVE.fst WAVE.gtkw     (scripts/wave.sh runs it after gen_gtkw.py)
Prints one line per view added ("SIMT view: <n> traces for <path>"), nothing if no block matched.
"""
from __future__ import annotations

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_gtkw import (TR_BIN, TR_BLANK, TR_CLOSED, TR_COLLAPSED, TR_DEC, TR_GRP_BEGIN,  # noqa: E402
                      TR_GRP_END, TR_HEX, TR_RJUSTIFY, Scope, Var, read_header)


def find(scopes: list[Scope], module: str, path: str = "") -> list[tuple[str, Scope]]:
    """Every instance of `module`, with its hierarchical path. FST scopes carry instance names
    (u_simt, or the module name for a Verilated top), so a block is recognised by its contents:
    weft_simt_core by its variable is_pc and its child scope g_warp[0]."""
    out = []
    for s in scopes:
        full = f"{path}.{s.name}" if path else s.name
        names = {v.name for v in s.vars}
        kids = {c.name for c in s.children}
        if module == "weft_simt_core" and "is_pc" in names and "g_warp[0]" in kids:
            out.append((full, s))
        out += find(s.children, module, full)
    return out


class View:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.flags: int | None = None
        self.traces = 0

    def _flag(self, f: int) -> None:
        if f != self.flags:
            self.lines.append(f"@{f:x}")
            self.flags = f

    def sig(self, path: str, v: Var | None, fmt: int, alias: str | None = None) -> None:
        if v is None:
            return
        self._flag(TR_RJUSTIFY | fmt)
        rng = v.rng
        if rng.startswith("[") and rng.count(":") == 1:
            hi, lo = rng[1:-1].split(":")
            if hi == lo:
                rng = f"[{hi}]"
        # GTKWave: "+{alias} name" shows the trace under the alias.
        self.lines.append((f"+{{{alias}}} " if alias else "") + f"{path}.{v.name}{rng}")
        self.traces += 1

    def begin(self, name: str, closed: bool = False) -> None:
        self._flag(TR_BLANK | TR_GRP_BEGIN | (TR_CLOSED if closed else 0))
        self.lines.append(f"-{name}")

    def end(self, name: str, closed: bool = False) -> None:
        self._flag(TR_BLANK | TR_GRP_END | ((TR_CLOSED | TR_COLLAPSED) if closed else 0))
        self.lines.append(f"-{name}")


def simt_view(v: View, path: str, s: Scope) -> None:
    by = {x.name: x for x in s.vars}
    kids = {c.name: c for c in s.children}
    g = f"SIMT {path}"
    v.begin(g)
    v.sig(path, by.get("clk_i"), TR_BIN)
    v.sig(path, by.get("busy_o"), TR_BIN)
    v.sig(path, by.get("done_o"), TR_BIN)
    w = 0
    while f"g_warp[{w}]" in kids:
        ws = kids[f"g_warp[{w}]"]
        wby = {x.name: x for x in ws.vars}
        wp = f"{path}.g_warp[{w}]"
        v.sig(wp, wby.get("pc"), TR_HEX, f"warp{w} pc")
        v.sig(wp, wby.get("mask"), TR_BIN, f"warp{w} mask")
        v.sig(wp, wby.get("ready"), TR_BIN, f"warp{w} ready")
        w += 1
    v.sig(path, by.get("blocked"), TR_BIN, "blocked (per warp)")
    v.sig(path, by.get("inflight_q"), TR_BIN, "in flight (per warp)")
    v.sig(path, by.get("is_fire"), TR_BIN, "IS issue")
    v.sig(path, by.get("is_w"), TR_DEC, "IS warp")
    v.sig(path, by.get("is_pc"), TR_HEX, "IS pc")
    v.sig(path, by.get("fd_valid_q"), TR_BIN, "RR valid")
    v.sig(path, by.get("fd_w_q"), TR_DEC, "RR warp")
    v.sig(path, by.get("imem_rdata"), TR_HEX, "RR insn")
    v.sig(path, by.get("rr_replay"), TR_BIN, "RR replay")
    v.sig(path, by.get("ex_valid_q"), TR_BIN, "EX valid")
    v.sig(path, by.get("ex_w_q"), TR_DEC, "EX warp")
    v.sig(path, by.get("ex_pc_q"), TR_HEX, "EX pc")
    v.sig(path, by.get("ex_mask_q"), TR_BIN, "EX mask")
    v.sig(path, by.get("commit"), TR_BIN, "EX commit")
    v.sig(path, by.get("div_busy"), TR_BIN, "divider busy")
    v.sig(path, by.get("lsu_slots"), TR_DEC, "LSU free slots")
    v.sig(path, by.get("lsu_wb"), TR_BIN, "LSU write back")
    v.sig(path, by.get("lsu_wb_w"), TR_DEC, "LSU wb warp")
    v.sig(path, by.get("issued_q"), TR_DEC, "issued")
    v.sig(path, by.get("err_code_q"), TR_DEC, "error code")
    v.end(g)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    fst, gtkw = sys.argv[1], sys.argv[2]
    roots = read_header(fst)
    v = View()
    notes = []
    for path, s in find(roots, "weft_simt_core"):
        before = v.traces
        simt_view(v, path, s)
        notes.append(f"SIMT view: {v.traces - before} traces for {path}")
    if not notes:
        return 0
    with open(gtkw) as f:
        lines = f.read().split("\n")
    # The generated traces start at the first flags line ("@..."): the view goes just before.
    at = next((i for i, l in enumerate(lines) if l.startswith("@")), len(lines))
    lines[at:at] = v.lines
    with open(gtkw, "w") as f:
        f.write("\n".join(lines))
    for n in notes:
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
