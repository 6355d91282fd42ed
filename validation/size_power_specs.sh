#!/usr/bin/env bash
# The power validation's designs at size (power_validation.sh --designs size): matmul-only
# cores whose arrays are 8x8 and 16x16, of the characterised variants (output-stationary
# broadcast and systolic, weight-stationary dot arrays), dense and with half the operands
# zero. Writes one spec per design into the folder given as $1 and prints one line per
# design, "name|kernel arguments" (power_design.sh).
set -euo pipefail
SPECS=${1:?usage: size_power_specs.sh <folder>}
mkdir -p "$SPECS"

# shellcheck source=validation/power_design.sh
source "$(dirname "$0")/power_design.sh"

OS=output_stationary; WS=weight_stationary
MM8="--kernel matmul --m 32 --n 32 --k 64 --seed 3"
MM16="--kernel matmul --m 32 --n 32 --k 64 --seed 3"
design os_8x8_k8         $OS 8 8 8   4 4 matmul $MM8
design os_8x8_z50        $OS 8 8 8   4 4 matmul $MM8 --zeros 0.5
design sys_8x8_k8        "output_stationary, movement: systolic" 8 8 8 4 4 matmul $MM8
design ws_n8_k8          $WS 8 8 8   4 4 matmul $MM8
PE_BUDGET=512 design os_16x16_k16   $OS 16 16 16 8 4 matmul $MM16
PE_BUDGET=512 design ws_n16_k16     $WS 16 16 16 8 4 matmul $MM16
