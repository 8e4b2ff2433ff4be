#!/usr/bin/env python3
"""Add block-specific views at the top of a GTKWave save file written by gen_gtkw.py.

gen_gtkw.py lays out every signal by hierarchy; for some blocks a few signals tell the story and
are scattered over that tree. For each instance of such a block found in the FST header, this
inserts an open group of those signals before the generated layout (the rest is unchanged).

Views:
  weft_top        a whole device (sim://, pcie-sim://, the board): "Tensor unit <path>.u_tu"
                  (command and operand handshakes, busy, the wait counters' strobes), "Command
                  processor <path>.u_cmd" (ring tail / head / completed, idle, error, interrupts,
                  its DMA requests), "DMA <path>.u_dma" (read and write requests, data and
                  completion handshakes, busy, the AXI address / data handshakes), in that order;
  weft_simt_core  "SIMT <path>": the scheduler and the pipeline, cycle by cycle:
                  busy/done; per warp (u_sched.g_warp[w]) its pc (= min pc of its runnable
                  threads), active mask (the threads at that pc), ready; blocked (replayed,
                  waiting) and in flight per warp; the issue choice (u_sched: issue, warp, pc);
                  RR (rr_*, replay), EX (ex_*), WB commit, the units (divider busy, LSU queue
                  slots and write back), the error code.
In a whole device the SIMT view comes first only when the core was busy at some point of the
run (busy_o rose: read from the value changes); otherwise it follows the device's views.

Usage: gtkw_views.py WAVE.fst WAVE.gtkw     (scripts/wave.sh runs it after gen_gtkw.py)
Prints one line per view added ("SIMT view: <n> traces for <path>"), nothing if no block matched.
"""
from __future__ import annotations

import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_gtkw import (TR_BIN, TR_BLANK, TR_CLOSED, TR_COLLAPSED, TR_DEC, TR_GRP_BEGIN,  # noqa: E402
                      TR_GRP_END, TR_HEX, TR_RJUSTIFY, Scope, Var, read_header)


def find(scopes: list[Scope], module: str, path: str = "") -> list[tuple[str, Scope]]:
    """Every instance of `module`, with its hierarchical path. FST scopes carry instance names
    (u_simt, or the module name for a Verilated top), so a block is recognised by its contents:
    weft_simt_core by its child scopes u_sched (with g_warp[0]) and u_scoreboard."""
    out = []
    for s in scopes:
        full = f"{path}.{s.name}" if path else s.name
        kids = {c.name for c in s.children}
        if module == "weft_simt_core" and "u_scoreboard" in kids and any(
                c.name == "u_sched" and any(g.name == "g_warp[0]" for g in c.children)
                for c in s.children):
            out.append((full, s))
        if module == "weft_top" and {"u_tu", "u_cmd", "u_dma"} <= kids:
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
    sched = kids["u_sched"]
    sby = {x.name: x for x in sched.vars}
    skids = {c.name: c for c in sched.children}
    sp = f"{path}.u_sched"
    g = f"SIMT {path}"
    v.begin(g)
    v.sig(path, by.get("clk_i"), TR_BIN)
    v.sig(path, by.get("busy_o"), TR_BIN)
    v.sig(path, by.get("done_o"), TR_BIN)
    w = 0
    while f"g_warp[{w}]" in skids:
        wby = {x.name: x for x in skids[f"g_warp[{w}]"].vars}
        wp = f"{sp}.g_warp[{w}]"
        v.sig(wp, wby.get("pc"), TR_HEX, f"warp{w} pc")
        v.sig(wp, wby.get("mask"), TR_BIN, f"warp{w} mask")
        v.sig(wp, wby.get("ready"), TR_BIN, f"warp{w} ready")
        w += 1
    v.sig(path, by.get("warp_blocked"), TR_BIN, "blocked (per warp)")
    v.sig(sp, sby.get("in_flight_q"), TR_BIN, "in flight (per warp)")
    v.sig(path, by.get("issue"), TR_BIN, "IS issue")
    v.sig(sp, sby.get("issue_warp"), TR_DEC, "IS warp")
    v.sig(sp, sby.get("issue_pc"), TR_HEX, "IS pc")
    v.sig(path, by.get("rr_valid"), TR_BIN, "RR valid")
    v.sig(path, by.get("rr_warp"), TR_DEC, "RR warp")
    v.sig(path, by.get("rr_insn"), TR_HEX, "RR insn")
    v.sig(path, by.get("of_valid_q"), TR_BIN, "OF valid")
    v.sig(path, by.get("replay"), TR_BIN, "OF replay")
    # The EX stage register is one struct (ex_q, traced as one vector): its fields as they enter
    # WB (u_commit's flat ports) and lane 0.
    cp = f"{path}.u_commit"
    cby = {x.name: x for x in kids["u_commit"].vars} if "u_commit" in kids else {}
    lane0 = kids["g_lane[0]"].children if "g_lane[0]" in kids else []
    lby = {x.name: x for c in lane0 if c.name == "u_lane" for x in c.vars}
    v.sig(cp, cby.get("ex_valid_i"), TR_BIN, "EX valid")
    v.sig(cp, cby.get("ex_warp_i"), TR_DEC, "EX warp")
    v.sig(f"{path}.g_lane[0].u_lane", lby.get("pc_i"), TR_HEX, "EX pc")
    v.sig(cp, cby.get("ex_mask_i"), TR_BIN, "EX mask")
    v.sig(path, by.get("commit"), TR_BIN, "WB commit")
    v.sig(path, by.get("div_busy"), TR_BIN, "divider busy")
    v.sig(path, by.get("lsu_slots"), TR_DEC, "LSU free slots")
    v.sig(path, by.get("lsu_wb"), TR_BIN, "LSU write back")
    v.sig(path, by.get("lsu_wb_warp"), TR_DEC, "LSU wb warp")
    v.sig(path, by.get("perf_issued_o"), TR_DEC, "issued")
    v.sig(path, by.get("err_code_o"), TR_DEC, "error code")
    v.end(g)


# Signals of the device view, per block instance: (name, format, alias). Missing names are skipped.
B, D, H = TR_BIN, TR_DEC, TR_HEX
DEVICE_BLOCKS = [
    ("u_tu", "Tensor unit", [
        ("busy_o", B, None), ("cmd_valid_i", B, None), ("cmd_ready_o", B, None),
        ("cmd_op_i", D, None), ("cmd_rows_i", D, None), ("cmd_addr_i", H, None),
        ("cmd_accumulate_i", B, None), ("w_valid_i", B, None), ("w_ready_o", B, None),
        ("w_last_i", B, None), ("a_valid_i", B, None), ("a_ready_o", B, None),
        ("o_valid_o", B, None), ("o_ready_i", B, None), ("stat_array_row_o", B, "array row (MACs)"),
        ("stat_wait_w_o", B, "waits for W"), ("stat_wait_a_o", B, "waits for A"),
        ("stat_wait_drain_o", B, "waits for drain")]),
    ("u_cmd", "Command processor", [
        ("cfg_enable_i", B, None), ("cfg_tail_i", D, "ring tail"), ("st_head_o", D, "ring head"),
        ("st_completed_o", D, "completed"), ("st_idle_o", B, None), ("st_error_o", B, None),
        ("st_err_code_o", D, None), ("st_err_index_o", D, None), ("irq_done_set_o", B, None),
        ("irq_error_set_o", B, None), ("dma_rd_req_valid_o", B, None),
        ("dma_rd_req_ready_i", B, None), ("dma_rd_req_addr_o", H, None),
        ("dma_rd_req_row_bytes_o", D, None), ("dma_rd_req_rows_o", D, None),
        ("dma_wr_req_valid_o", B, None), ("dma_wr_req_ready_i", B, None),
        ("dma_wr_req_addr_o", H, None), ("dma_wr_req_row_bytes_o", D, None),
        ("dma_wr_req_rows_o", D, None)]),
    ("u_dma", "DMA", [
        ("busy_o", B, None), ("rd_req_valid_i", B, None), ("rd_req_ready_o", B, None),
        ("rd_req_addr_i", H, None), ("rd_req_row_bytes_i", D, None), ("rd_req_rows_i", D, None),
        ("rd_valid_o", B, None), ("rd_ready_i", B, None), ("rd_last_o", B, None),
        ("rd_done_valid_o", B, None), ("rd_done_err_o", B, None), ("wr_req_valid_i", B, None),
        ("wr_req_ready_o", B, None), ("wr_req_addr_i", H, None), ("wr_req_row_bytes_i", D, None),
        ("wr_req_rows_i", D, None), ("wr_valid_i", B, None), ("wr_ready_o", B, None),
        ("wr_done_valid_o", B, None), ("wr_done_err_o", B, None),
        ("m_axi_arvalid_o", B, None), ("m_axi_arready_i", B, None), ("m_axi_araddr_o", H, None),
        ("m_axi_rvalid_i", B, None), ("m_axi_rready_o", B, None), ("m_axi_awvalid_o", B, None),
        ("m_axi_awready_i", B, None), ("m_axi_awaddr_o", H, None), ("m_axi_wvalid_o", B, None),
        ("m_axi_wready_i", B, None), ("m_axi_bvalid_i", B, None), ("m_axi_bready_o", B, None)]),
]


def device_view(v: View, path: str, s: Scope) -> list[str]:
    kids = {c.name: c for c in s.children}
    by = {x.name: x for x in s.vars}
    done = []
    for inst, title, sigs in DEVICE_BLOCKS:
        c = kids.get(inst)
        if c is None:
            continue
        cby = {x.name: x for x in c.vars}
        g = f"{title} {path}.{inst}"
        v.begin(g)
        v.sig(path, by.get("clk_i"), TR_BIN)
        for name, fmt, alias in sigs:
            v.sig(f"{path}.{inst}", cby.get(name), fmt, alias)
        v.end(g)
        done.append(title)
    return done


def rose(fst: str, code: str) -> bool:
    """True when the 1-bit variable with VCD id `code` is 1 at some time (value changes)."""
    p = subprocess.Popen(["fst2vcd", "-f", fst], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, errors="replace")
    want = "1" + code
    try:
        assert p.stdout is not None
        in_body = False
        for line in p.stdout:
            if not in_body:
                in_body = line.startswith("$enddefinitions")
                continue
            if line.rstrip("\n") == want:
                return True
        return False
    finally:
        p.kill()
        p.wait()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    fst, gtkw = sys.argv[1], sys.argv[2]
    roots = read_header(fst)
    notes = []
    devices = find(roots, "weft_top")
    dev = View()
    for path, s in devices:
        blocks = device_view(dev, path, s)
        if blocks:
            notes.append(f"device view: {', '.join(blocks)} of {path} ({dev.traces} traces)")
    simt = View()
    simt_active = False
    for path, s in find(roots, "weft_simt_core"):
        before = simt.traces
        simt_view(simt, path, s)
        busy = next((x for x in s.vars if x.name == "busy_o"), None)
        active = bool(devices) and busy is not None and rose(fst, busy.code)
        simt_active = simt_active or active
        where = ""
        if devices:
            where = " (first: the SIMT core ran)" if active else " (after the device: the SIMT core stayed idle)"
        notes.append(f"SIMT view: {simt.traces - before} traces for {path}{where}")
    if not notes:
        return 0
    views = (simt.lines + dev.lines) if (simt_active or not devices) else (dev.lines + simt.lines)
    with open(gtkw) as f:
        lines = f.read().split("\n")
    # The generated traces start at the first flags line ("@..."): the views go just before.
    at = next((i for i, l in enumerate(lines) if l.startswith("@")), len(lines))
    lines[at:at] = views
    with open(gtkw, "w") as f:
        f.write("\n".join(lines))
    for n in notes:
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
