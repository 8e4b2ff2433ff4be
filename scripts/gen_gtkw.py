#!/usr/bin/env python3
"""Write a GTKWave save file (.gtkw) for an FST wave file, laid out by design hierarchy.

The hierarchy comes from the FST itself: `fst2vcd` prints the VCD header (scopes and variables)
first, and only that part is read (up to `$enddefinitions`); the value changes are never
converted. Layout:

  * one group per module instance (generate-block chains with no signals of their own are merged
    into one name, e.g. `g_row[0].g_col[3].u_pe`), nested as in the design;
  * in each group the ports first (Weft names them `*_i`, `*_o`, `*_ni`, `*_no`, `*_io`), then the
    internal signals, then a closed `parameters` group, then the sub-instances;
  * the top block's group is open; a sub-instance is open only when it is small and not part of an
    array; arrays (generate loops, 4 or more elements) and unpacked memories (`mem[0]`, `mem[1]`,
    ...) get a closed group of their own;
  * the Verilated wrapper scope (`top`, whose signals repeat the DUT's ports) is left out, and a
    package scope beside the DUT (`weft_pkg`) follows it, closed; Verilog loop variables
    (`unnamedblk*` scopes) are skipped;
  * `[dumpfile]` (the FST's path relative to the save file's folder) and `[savefile]` (its own
    name) are both relative: GTKWave then finds the FST beside the save file from any current
    directory, so the pair can be moved or shared together; nothing in the file is absolute.

Usage: gen_gtkw.py WAVE.fst [-o WAVE.gtkw] [--end-time T] [--width PX]
The initial zoom fits the whole run (start and end time from the FST header block).
Prints "<n> variables, <m> scopes, <k> traces -> <out>".
"""
from __future__ import annotations

import argparse
import math
import os
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field

PORT_RE = re.compile(r"_(i|o|ni|no|io)$")
INDEXED_RE = re.compile(r"^(?P<base>.*?)\[(?P<idx>-?\d+)\]$")
# GTKWave names these kinds without a bit range (e.g. `Rows`, not `Rows[31:0]`).
NO_RANGE_KINDS = {"parameter", "real_parameter", "integer", "int", "shortint", "longint", "byte",
                  "real", "realtime", "shortreal", "time", "event", "string"}
ARRAY_GROUP_MIN = 4       # this many indexed siblings (scopes or variables) get a closed group
OPEN_MAX_SIGNALS = 48     # a sub-instance with more signals than this starts closed

# GTKWave trace flags (gtkwave analyzer.h)
TR_HEX, TR_DEC, TR_BIN, TR_RJUSTIFY, TR_BLANK = 0x2, 0x4, 0x8, 0x20, 0x200
TR_COLLAPSED, TR_CLOSED, TR_GRP_BEGIN, TR_GRP_END = 0x1000, 0x400000, 0x800000, 0x1000000


@dataclass
class Var:
    kind: str      # wire, logic, reg, parameter, int, ...
    width: int
    code: str      # VCD id code (aliases share one)
    name: str      # as declared, e.g. "stage_q[0]"
    rng: str       # "[31:0]" or ""

    @property
    def is_port(self) -> bool:
        return bool(PORT_RE.search(self.name))


@dataclass
class Scope:
    name: str
    vars: list[Var] = field(default_factory=list)
    children: list["Scope"] = field(default_factory=list)

    def count(self) -> int:
        return len(self.vars) + sum(c.count() for c in self.children)


def read_header(fst: str) -> list[Scope]:
    """Scopes and variables of an FST, from fst2vcd's header only."""
    roots: list[Scope] = []
    stack: list[Scope] = []
    p = subprocess.Popen(["fst2vcd", "-f", fst], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, errors="replace")
    ended = False
    try:
        for line in p.stdout:
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "$scope":
                s = Scope(tok[2])
                (stack[-1].children if stack else roots).append(s)
                stack.append(s)
            elif tok[0] == "$upscope":
                stack.pop()
            elif tok[0] == "$var":
                # $var <kind> <width> <code> <name> [<range>] $end
                rng = tok[5] if len(tok) > 6 and tok[5].startswith("[") else ""
                stack[-1].vars.append(Var(tok[1], int(tok[2]), tok[3], tok[4], rng))
            elif tok[0] == "$enddefinitions":
                ended = True
                break
    finally:
        p.kill()
        p.wait()
    if not ended:
        err = p.stderr.read().strip() if p.stderr else ""
        raise SystemExit(f"gen_gtkw: {fst}: no complete header from fst2vcd {err}")
    return roots


def fst_time_range(fst: str) -> tuple[int, int | None]:
    """Start and end time from the FST header block (type 0: length, start, end; big endian)."""
    try:
        with open(fst, "rb") as f:
            b = f.read(25)
        if len(b) == 25 and b[0] == 0:
            start, end = struct.unpack(">QQ", b[9:25])
            return start, end
    except OSError:
        pass
    return 0, None


def prune(s: Scope) -> Scope | None:
    """Drop loop-variable scopes, merge signal-less single-child chains (generate blocks)."""
    s.children = [c for c in (prune(c) for c in s.children if not c.name.startswith("unnamedblk")) if c]
    if not s.vars and not s.children:
        return None
    while not s.vars and len(s.children) == 1:
        c = s.children[0]
        s = Scope(f"{s.name}.{c.name}", c.vars, c.children) if s.name else c
    return s


class Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.flags = None
        self.traces = 0

    def _flag(self, f: int) -> None:
        if f != self.flags:
            self.lines.append(f"@{f:x}")
            self.flags = f

    def signal(self, path: str, v: Var) -> None:
        if v.kind in NO_RANGE_KINDS:
            self._flag(TR_RJUSTIFY | TR_DEC)
            self.lines.append(f"{path}.{v.name}")
        else:
            rng = v.rng
            m = re.fullmatch(r"\[(-?\d+):(-?\d+)\]", rng)
            if m and m[1] == m[2]:
                rng = f"[{m[1]}]"  # GTKWave names a [0:0] vector as one bit: x[0]
            self._flag(TR_RJUSTIFY | (TR_BIN if v.width == 1 else TR_HEX))
            self.lines.append(f"{path}.{v.name}{rng}")
        self.traces += 1

    def begin(self, name: str, closed: bool) -> None:
        self._flag(TR_BLANK | TR_GRP_BEGIN | (TR_CLOSED if closed else 0))
        self.lines.append(f"-{name}")

    def end(self, name: str, closed: bool) -> None:
        self._flag(TR_BLANK | TR_GRP_END | ((TR_CLOSED | TR_COLLAPSED) if closed else 0))
        self.lines.append(f"-{name}")


def emit_vars(w: Writer, path: str, vs: list[Var]) -> None:
    """Variables in order, unpacked-array elements (mem[0], mem[1], ...) folded into one group."""
    by_base: dict[str, list[Var]] = {}
    for v in vs:
        m = INDEXED_RE.match(v.name)
        if m:
            by_base.setdefault(m["base"], []).append(v)
    done: set[str] = set()
    for v in vs:
        m = INDEXED_RE.match(v.name)
        if m and len(by_base[m["base"]]) >= ARRAY_GROUP_MIN:
            base = m["base"]
            if base in done:
                continue
            done.add(base)
            idx = [int(INDEXED_RE.match(e.name)["idx"]) for e in by_base[base]]
            label = f"{base}[{min(idx)}:{max(idx)}]"
            w.begin(label, True)
            for e in by_base[base]:
                w.signal(path, e)
            w.end(label, True)
        else:
            w.signal(path, v)


def emit_scope(w: Writer, s: Scope, path: str, depth: int, in_array: bool) -> None:
    full = f"{path}.{s.name}" if path else s.name
    closed = depth > 0 and (in_array or depth > 1 or s.count() > OPEN_MAX_SIGNALS)
    w.begin(s.name, closed)
    params = [v for v in s.vars if v.kind == "parameter"]
    sigs = [v for v in s.vars if v.kind != "parameter"]
    emit_vars(w, full, [v for v in sigs if v.is_port] + [v for v in sigs if not v.is_port])
    if params:
        w.begin("parameters", True)
        emit_vars(w, full, params)
        w.end("parameters", True)
    emit_children(w, s.children, full, depth + 1)
    w.end(s.name, closed)


def emit_children(w: Writer, children: list[Scope], path: str, depth: int) -> None:
    """Sub-instances; 4+ siblings named base[i]... (a generate loop) share one closed group."""
    groups: dict[str, list[Scope]] = {}
    for c in children:
        m = INDEXED_RE.match(c.name.split(".", 1)[0])
        if m:
            groups.setdefault(m["base"], []).append(c)
    done: set[str] = set()
    for c in children:
        m = INDEXED_RE.match(c.name.split(".", 1)[0])
        if m and len(groups[m["base"]]) >= ARRAY_GROUP_MIN:
            base = m["base"]
            if base in done:
                continue
            done.add(base)
            idx = [int(INDEXED_RE.match(e.name.split(".", 1)[0])["idx"]) for e in groups[base]]
            label = f"{base}[{min(idx)}:{max(idx)}]"
            w.begin(label, True)
            for e in groups[base]:
                emit_scope(w, e, path, depth, True)
            w.end(label, True)
        else:
            emit_scope(w, c, path, depth, False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fst")
    ap.add_argument("-o", "--output", help="save file (default: the FST's path with .gtkw)")
    ap.add_argument("--end-time", type=int, help="zoom to fit [start, END] (default: the FST's own end time)")
    ap.add_argument("--width", type=int, default=1600, help="window width in pixels (default 1600)")
    a = ap.parse_args()

    out = a.output or os.path.splitext(a.fst)[0] + ".gtkw"
    roots = read_header(a.fst)
    nvars = nscopes = 0
    todo = list(roots)
    while todo:
        s = todo.pop()
        nscopes += 1
        nvars += len(s.vars)
        todo += s.children

    # The Verilated wrapper: a root whose variables all reappear (same id codes) in one child, the
    # DUT. Its other children (packages: weft_pkg's constants) follow the DUT, closed.
    tops: list[tuple[str, Scope]] = []
    for r in roots:
        codes = {v.code for v in r.vars}
        dut = next((c for c in r.children if codes and codes <= {v.code for v in c.vars}), None)
        if dut is None and len(r.children) == 1 and not r.vars:
            dut = r.children[0]
        if dut is None:
            tops.append(("", r))
        else:
            tops.append((r.name, dut))
            tops += [(r.name, c) for c in r.children if c is not dut]

    w = Writer()
    treeopen = []
    for i, (prefix, s) in enumerate(tops):
        s2 = prune(Scope(s.name, s.vars, s.children))
        if s2 is None:
            continue
        first = i == 0 or tops[i - 1][0] != prefix
        if first:
            treeopen += [f"{prefix}.", f"{prefix}.{s.name}."] if prefix else [f"{s.name}."]
        # The DUT is open; a package beside it (constants only) starts closed.
        emit_scope(w, s2, prefix, 0 if first else 1, not first)

    sst, sig = 280, 320
    head = [
        f"[*] Generated by scripts/gen_gtkw.py from {os.path.basename(a.fst)} (its FST header); "
        "regenerated by scripts/wave.sh: do not edit",
        # Both relative: GTKWave (3.3.118) then finds the dump file relative to the save file's
        # folder, whatever the current directory (with [dumpfile] alone it tries the cwd only).
        f'[dumpfile] "{os.path.relpath(os.path.abspath(a.fst), os.path.dirname(os.path.abspath(out)))}"',
        f'[savefile] "{os.path.basename(out)}"',
        "[timestart] 0",
        f"[size] {a.width} 900",
        "[pos] -1 -1",
    ]
    start, end = fst_time_range(a.fst)
    if a.end_time is not None:
        end = a.end_time
    if end is not None and end > start:
        # GTKWave: a pixel is 2^-zoom / 200 time units (pixelsperframe = 200); fit the run in the pane.
        pane = max(200, a.width - sst - sig - 60)
        head.append(f"*{-math.log2(200.0 * (end - start) / pane):.6f} -1" + " -1" * 26)
    head += [f"[treeopen] {t}" for t in treeopen]
    head += [f"[sst_width] {sst}", f"[signals_width] {sig}", "[sst_expanded] 1", "[sst_vpaned_height] 320"]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(head + w.lines + ["[pattern_trace] 1", "[pattern_trace] 0", ""]))
    print(f"{nvars} variables, {nscopes} scopes, {w.traces} traces -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
