#!/usr/bin/env bash
# The compressed dot-array designs of the cross-check matrix: writes one spec per design
# into the folder given as $1 and prints their names. Fused cores whose weight-stationary
# array a holds the k tile's non-zero values (matmul B columns, keys, FFN W1 / W3 rows) in
# fewer MACs per lane (x network 1b or 1d, w network 1c or 1e): TT_k MACs per lane in
# TT_k / T_k slot groups, each lane its own pattern (T_n = 1). Used by run_matrix.sh (make
# validate) with dot_cases.txt, whose operands are pruned to patterns every design holds.
set -euo pipefail
SPECS=${1:?usage: dot_specs.sh <folder>}
mkdir -p "$SPECS"

spec() {  # name n k "sparse_tiling" condition
  cat > "$SPECS/$1.yaml" <<YAML
name: $1
clock_mhz: 1000
pe_budget: 2048
memory: {bandwidth_gbps: 8, latency_cycles: 6, buffer_limit_bytes: 16384}
arrays:
  a: {loop_order: weight_stationary, tiling: {m: 8, n: $2, k: $3}, sparse_tiling: $4}
  b: {loop_order: output_stationary, tiling: {m: 8, n: $3, k: $2}}
caches: {acc_a: 4096}
kernels: [matmul, attention]
sparsity:
  - {kind: compute_value, tensor: w, condition: "$5"}
YAML
  echo "$1"
}

spec dot_1d1e 8 16 '{n: "1:8:8:8", k: "2:8:16:16"}' "2:4"            # 4 groups of 2 MACs, 4 rows each
spec dot_1b1c 8 16 '{n: "1:8:8:8", k: "8:8:16:16"}' "8:16"           # one group: any 8 of 16
spec dot_1d1e_16 16 32 '{n: "1:16:16:16", k: "4:8:32:32"}' "1:4"     # 2 groups of 4 MACs, 16 rows each
