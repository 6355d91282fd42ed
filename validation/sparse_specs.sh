#!/usr/bin/env bash
# The sparse designs of the cross-check matrix: writes one spec per design into the folder
# given as $1 and prints their names. Fused cores (matmul, attention, FFN) whose
# output-stationary array a has value networks covering every topology built in Verilog
# and SystemC (1b, 1c, 2b, 2c, 2e on broadcast arrays, 3b, 3c, 3d, 3e on systolic ones
# (MOVEMENT=systolic), on x and w), skipping x (q in attention), w (k) or both, with
# windows of 2 to 8 k steps, 8x8 and 4x16 arrays; one with a sliding window, one with
# compressed operands (COMPRESS: the tensors whose zero rows the DMA skips); CACHES adds
# K and V tile caches; TOPK adds block TopK over key tiles (keeping TOPK of them).
# Used by run_matrix.sh (make validate) with sparse_cases.txt.
set -euo pipefail
SPECS=${1:?usage: sparse_specs.sh <folder>}
mkdir -p "$SPECS"

# shellcheck source=sparse_spec.sh
source "$(dirname "$0")/sparse_spec.sh"

spec sp_w_1b 8 8 16 '{n: "1:8:8:8", k: "1:1:4:4"}' w          # x 1b, w 2c
spec sp_w_2b 8 8 16 '{k: "1:1:4:4"}' w                        # x 2b, w 2b
spec sp_w_2e 8 8 16 '{n: "2:8:8:8", k: "1:1:2:2"}' w          # x 2e, w 2c
spec sp_w_1c 8 8 16 '{m: "4:8:8:8", n: "1:8:8:8", k: "1:1:8:8"}' w  # x 1c, w 2c
spec sp_x_2c 8 8 16 '{m: "2:8:8:8", k: "1:1:4:4"}' x          # x 2c, w 2e
spec sp_xw_1c 8 8 16 '{m: "1:8:8:8", n: "1:8:8:8", k: "1:1:4:4"}' xw  # x 1c, w 1c
spec sp_xw_2e 4 16 32 '{m: "2:4:4:4", n: "4:16:16:16", k: "1:1:8:8"}' xw  # x 2e, w 2e
spec sp_w24_1b 8 8 16 '{n: "1:8:8:8", k: "1:1:4:4"}' w "2:4"  # structured weights
CACHES="k: 512, v: 256" spec sp_xw_win 8 8 16 '{n: "2:8:8:8", k: "1:1:4:4"}' xw "w==0" 20  # sliding window of 20 keys, K/V caches
COMPRESS="x w" spec sp_w_cmp 8 8 16 '{n: "1:8:8:8", k: "1:1:4:4"}' w     # and compressed operands
MOVEMENT=systolic spec sys_w_3b 8 8 16 '{k: "1:1:4:4"}' w                    # x 3b, w 3b
MOVEMENT=systolic spec sys_x_3c 8 8 16 '{n: "4:8:8:8", k: "1:1:4:4"}' x      # x 3b, w 3c
MOVEMENT=systolic spec sys_w_3d 8 8 16 '{n: "1:8:8:8", k: "1:1:4:4"}' w      # x 3d, w 3c
MOVEMENT=systolic spec sys_xw_3e 8 8 16 '{m: "4:8:8:8", n: "2:8:8:8", k: "1:1:8:8"}' xw  # x 3e, w 3e
MOVEMENT=systolic spec sys_xw_3e_416 4 16 32 '{m: "2:4:4:4", n: "4:16:16:16", k: "1:1:8:8"}' xw  # x 3e, w 3e
TOPK=2 spec sp_topk 8 8 8 '{n: "8:8:8:64"}' ""                           # block TopK alone, 8 key tiles ranked
TOPK=1 CACHES="k: 512, v: 256" spec sp_topk_xw 8 8 16 '{n: "2:8:8:64", k: "1:1:4:4"}' xw "w==0" 20  # with value networks, a window, caches
