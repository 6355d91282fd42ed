#!/usr/bin/env bash
# The designs of the power validation (power_validation.sh): writes one spec per design
# into the folder given as $1 and prints one line per design, "name|kernel arguments".
# Small enough to synthesise and simulate at gate level here: arrays of 4 to 16 PEs.
# Matmul-only cores of the characterised primitive variants (output-stationary arrays,
# weight-stationary dot arrays), varying array shape, reduction tile, memory bandwidth and
# latency, loop order and the data (zeros, value spread); then designs whose arrays are
# variants or sizes the primitives were not characterised at (input-stationary, systolic,
# the attention kernel's 4x4 rescaling array b), which the validation reports apart. Memory macros
# (accumulator caches of 1 KiB and more) have no gate-level golden and are not scored.
set -euo pipefail
SPECS=${1:?usage: power_specs.sh <folder>}
mkdir -p "$SPECS"

# shellcheck source=validation/power_design.sh
source "$(dirname "$0")/power_design.sh"

OS=output_stationary; WS=weight_stationary; IS=input_stationary
MM="--kernel matmul --m 8 --n 8 --k 16 --seed 7"
BIG="--kernel matmul --m 16 --n 16 --k 32 --seed 3"
# Output-stationary arrays (fsgen_array_os R x C = m x n).
design os_2x2_k8        $OS 2 2 8  1   4  matmul $MM
design os_2x4_k8        $OS 2 4 8  2   4  matmul $MM
design os_4x2_k8        $OS 4 2 8  1   4  matmul $MM
design os_4x4_k8        $OS 4 4 8  2   4  matmul $MM
design os_4x4_z50       $OS 4 4 8  2   4  matmul $MM --zeros 0.5
design os_2x2_z90       $OS 2 2 8  1   4  matmul $MM --zeros 0.9
design os_4x4_k16_fast  $OS 4 4 16 2   1  matmul $MM
design os_2x4_slowmem   $OS 2 4 8  0.5 24 matmul $MM
design os_4x2_nmk       "[n, m, k]" 4 2 8 1 6 matmul $MM
design os_4x4_narrow    $OS 4 4 8  2   4  matmul $MM --values normal --sigma 6
design os_2x4_big       $OS 2 4 8  2   8  matmul $BIG
# Weight-stationary dot arrays (fsgen_array_dot, n x k PEs).
design ws_n2_k2          $WS 4 2 2  1   4  matmul $MM
design ws_n4_k2          $WS 4 4 2  1   4  matmul $MM
design ws_n2_k4          $WS 4 2 4  1   4  matmul $MM
design ws_n4_k4          $WS 4 4 4  2   4  matmul $MM
design ws_n4_k4_z50       $WS 4 4 4  2   4  matmul $MM --zeros 0.5
design ws_n2_k2_z90       $WS 4 2 2  1   4  matmul $MM --zeros 0.9
design ws_n4_k4_fast      $WS 4 4 4  2   1  matmul $MM
design ws_n2_k4_slowmem   $WS 4 2 4  0.5 24 matmul $MM
design ws_n4_k2_m8        $WS 8 4 2  1   6  matmul $MM
design ws_n4_k4_narrow    $WS 4 4 4  2   4  matmul $MM --values normal --sigma 6
design ws_n4_k4_big       $WS 8 4 4  2   8  matmul $BIG
# Weight-stationary dot arrays whose accumulator cache (ACC bytes: 2 or 4 tiles of m x n
# INT32 cells; this loop order keeps 2 output tiles live) is below the memory-macro threshold: a flip-flop register file, scored as an
# acc_cache with the array.
ACC=128 design ws_n4_k4_rf2      $WS 4 4 4  2   4  matmul $MM
ACC=256 design ws_n4_k4_rf4_z50  $WS 4 4 4  2   4  matmul $MM --zeros 0.5
ACC=64  design ws_n2_k4_rf2      $WS 4 2 4  1   4  matmul $MM
ACC=256 design ws_n4_k2_rf4      $WS 4 4 2  1   4  matmul $MM
ACC=128 design ws_n2_k2_rf4_narrow $WS 4 2 2 1  4  matmul $MM --values normal --sigma 6
# Variants outside the characterised primitives.
design is_m4_k4          $IS 4 4 4  2   4  matmul $MM
design is_m2_k4_z50       $IS 2 4 4  2   4  matmul $MM --zeros 0.5
design sys_4x4_k8       "output_stationary, movement: systolic" 4 4 8 2 4 matmul $MM
design attn_os_4x4      $OS 4 4 4  2   4  "matmul, attention" --kernel attention --heads 1 --tokens 8 --seed 5
