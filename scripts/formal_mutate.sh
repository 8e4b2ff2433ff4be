#!/usr/bin/env bash
# Weft formal mutation check (docs/formal.md): each proof must be able to fail. For every port,
# one one-line mutation of the RTL (applied to the proof's own copy of the sources, never to
# rtl/) must make its BMC fail; the failing assertion and the counterexample are printed.
#   csr        weft_csr: the write fires without its data (B answers a request whose W has not come)
#   dma_wr     weft_dma_wr: WLAST one beat early
#   dma_rd     weft_dma_burst: the 4 KiB limit dropped (a burst may cross 4 KiB)
#   dma_win    weft_dma_check: the window limit compare off by one beat (<= instead of <)
#   pcie_tags  weft_pcie_rd: an error (timeout, UR, CA) no longer returns its tag to the pool
#              (a pick that ignores the busy bits is no mutant that can show: the in-order slot
#              ring already keeps every tag in flight out of the pick, docs/formal.md)
#   pcie_reuse weft_pcie_rd: the MRd carries the other tag than the one it took (one in flight)
#   cmd_ring   weft_cmd_fetch: a request no longer stops at the ring's end
# Usage: bash scripts/formal_mutate.sh [<outdir>] [name...]   (make formal-mutation)
# Exit 1 if any mutant survives (its proof still passes).
set -uo pipefail
out=${1:-build/formal-mutation}
shift || true
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# name | proof | file@@old@@new
MUTANTS=(
  "csr       | csr       | weft_csr.sv@@assign wr_fire = aw_full_q && w_full_q && !b_valid_q;@@assign wr_fire = aw_full_q && !b_valid_q;"
  "dma_wr    | dma_wr    | weft_dma_wr.sv@@assign last_beat = (wbeat_q == wq_len - LenW'(1));@@assign last_beat = (wbeat_q == wq_len - LenW'(2));"
  "dma_rd    | dma_rd    | weft_dma_burst.sv@@if (to4k < len) len = to4k;@@if (1'b0) len = to4k;"
  "dma_win   | dma_check | weft_dma_check.sv@@last_q[63:0] < {win_limit_i@@last_q[63:0] <= {win_limit_i"
  "pcie_tags | pcie_tags | weft_pcie_rd.sv@@if (ev_err) busy_d[ev_tag] = 1'b0;@@if (1'b0) busy_d[ev_tag] = 1'b0;"
  "pcie_reuse | pcie_tags | weft_pcie_rd.sv@@tx_data_o[63:32] = {EpId, 8'(atag), 4'hF, 4'hF};@@tx_data_o[63:32] = {EpId, 8'(atag ^ 1'b1), 4'hF, 4'hF};"
  "cmd_ring  | cmd_ring  | weft_cmd_fetch.sv@@if (32'(to_end) < n) n = 32'(to_end);@@if (1'b0) n = 32'(to_end);"
)

fail=0
for entry in "${MUTANTS[@]}"; do
  IFS='|' read -r name proof mut <<<"$entry"
  name=$(echo $name); proof=$(echo $proof); mut=$(echo "$mut" | sed 's/^ *//; s/ *$//')
  if (($#)) && [[ " $* " != *" $name "* ]]; then continue; fi
  echo "=== mutant $name (proof $proof)"
  python3 scripts/formal.py --out "$out/$name" --jobs 1 --mutate "$mut" "$proof"
  rc=$?
  if [[ $rc -eq 77 ]]; then echo "formal_mutate: tools missing (see above)"; exit 77; fi
  [[ $rc -eq 0 ]] || fail=1
done
((fail == 0)) && echo "formal_mutate: every mutant killed" || echo "formal_mutate: a mutant SURVIVED"
exit $fail
