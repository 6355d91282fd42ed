#!/usr/bin/env bash
# The designs of the cross-check matrix: writes one spec per design into the folder
# given as $1 and prints their names. Three stationarities x two tilings, two explicit
# loop orders, systolic output-stationary arrays, two heterogeneous array b's and two memory
# systems other than the default (one burst in flight; three, with three tile slots per
# operand); K and V tile caches on half of them. Used by run_matrix.sh (Verilator against SystemC) and
# by the fast-model test (fast model against SystemC).
set -euo pipefail
SPECS=${1:?usage: matrix_specs.sh <folder>}
mkdir -p "$SPECS"

# Array b (O = P V) is tiled (m, n, k) = (a.m, a.k, a.n): queries, head dim, keys, unless
# B_TILING names a smaller (heterogeneous) tile. The optional ninth argument adds K and V
# tile caches (each stationarity has one design with them, one without). MEMORY adds fields
# to the memory map (", outstanding: 1").
spec() {  # name loop_order_a loop_order_b m n k beat_gbps latency [kv_caches]
  local b_tiling="{m: $4, n: $6, k: $5}"
  [ -n "${B_TILING:-}" ] && b_tiling=$B_TILING
  cat > "$SPECS/$1.yaml" <<YAML
name: $1
clock_mhz: 1000
pe_budget: 2048
memory: {bandwidth_gbps: $7, latency_cycles: $8, buffer_limit_bytes: 16384${MEMORY:-}}
arrays:
  a: {loop_order: $2, tiling: {m: $4, n: $5, k: $6}}
  b: {loop_order: $3, tiling: $b_tiling}
caches: {acc_a: 16384, acc_b: 16384${9:+, $9}}
YAML
  echo "$1"
}

spec os_t8 output_stationary output_stationary 8 8 8 8 6
spec os_t16 output_stationary output_stationary 16 16 16 16 17 "k: 1024, v: 512"
spec ws_t8 weight_stationary weight_stationary 8 8 8 8 5 "k: 256, v: 128"
spec ws_t16 weight_stationary weight_stationary 16 16 8 8 11
spec is_t8 input_stationary input_stationary 8 8 8 8 3
spec is_t16 input_stationary input_stationary 16 8 16 8 23 "k: 512, v: 256"
spec perm_kmn "[k, m, n]" output_stationary 8 8 8 8 9
spec perm_nmk "[n, m, k]" weight_stationary 16 16 16 16 2 "k: 2048, v: 1024"
spec sys_t8 "output_stationary, movement: systolic" "output_stationary, movement: systolic" 8 8 8 8 7
spec sys_t16 "output_stationary, movement: systolic" "output_stationary, movement: systolic" 16 8 16 8 13 "k: 512, v: 256"
# Heterogeneous: array b smaller than the O update, one pass per sub-tile.
B_TILING="{m: 8, n: 8, k: 8}" spec het_ws output_stationary weight_stationary 8 16 16 8 5 "k: 512"
B_TILING="{m: 4, n: 16, k: 8}" spec het_is input_stationary input_stationary 8 16 16 8 9
# Memory systems: one burst in flight and A's tiles reused across four slots, B single-
# buffered; three bursts in flight and three slots of each behind a loop order that keeps
# every output tile live.
MEMORY=", outstanding: 1, operand_tiles: {a: 4, b: 1}" spec mem_o1 output_stationary output_stationary 8 8 8 8 12
MEMORY=", outstanding: 3, operand_tiles: {a: 3, b: 3}" spec mem_o3 "[k, n, m]" weight_stationary 8 8 8 8 10 "k: 256, v: 128"
