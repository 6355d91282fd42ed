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

# shellcheck source=sparse_spec.sh
source "$(dirname "$0")/sparse_spec.sh"
export LOOP_ORDER=weight_stationary CACHES="acc_a: 4096"

spec dot_1d1e 8 8 16 '{n: "1:8:8:8", k: "2:8:16:16"}' w "2:4"           # 4 groups of 2 MACs, 4 rows each
spec dot_1b1c 8 8 16 '{n: "1:8:8:8", k: "8:8:16:16"}' w "8:16"          # one group: any 8 of 16
spec dot_1d1e_16 8 16 32 '{n: "1:16:16:16", k: "4:8:32:32"}' w "1:4"    # 2 groups of 4 MACs, 16 rows each
