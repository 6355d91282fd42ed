#!/usr/bin/env bash
# The designs of the softmax unit's power validation (power_validation.sh --designs
# softmax): cores with the fused datapath whose score rows are two keys wide (array a's n,
# the softmax unit's TN = 2: the widest characterised, whose synthesis takes minutes),
# running the fused attention (prefill,
# GQA, decode, zero or narrow operands) and the FFN (gated SiLU, ungated, GELU). Writes
# one spec per design into the folder given as $1 and prints one line per design,
# "name|kernel arguments", as power_specs.sh does.
set -euo pipefail
SPECS=${1:?usage: softmax_power_specs.sh <folder>}
mkdir -p "$SPECS"

# Beats of 2 bytes (bandwidth_gbps 1), which divide the rows of two keys.
# shellcheck source=validation/power_design.sh
source "$(dirname "$0")/power_design.sh"
FUSED="matmul, attention"

OS=output_stationary; WS=weight_stationary
for tn in 2; do
  design sm${tn}_attn          $OS 2 $tn 4 1 4 "$FUSED" --kernel attention --heads 1 --tokens 8 --seed 5
  design sm${tn}_attn_narrow   $OS 2 $tn 4 1 4 "$FUSED" --kernel attention --heads 1 --tokens 8 --values normal --sigma 6 --seed 6
  design sm${tn}_attn_gqa      $OS 2 $tn 4 1 4 "$FUSED" --kernel attention --heads 2 --kv-heads 1 --tokens 6 --seed 7
  design sm${tn}_attn_decode   $OS 2 $tn 4 1 4 "$FUSED" --kernel attention --stage decode --heads 2 --context 12 --seed 8
  design sm${tn}_attn_z50      $OS 2 $tn 4 1 4 "$FUSED" --kernel attention --heads 1 --tokens 8 --zeros 0.5 --seed 9
  design sm${tn}_attn_m4_fast  $OS 4 $tn 4 1 1 "$FUSED" --kernel attention --heads 1 --tokens 16 --seed 10
  design sm${tn}_attn_ws       $WS 2 $tn 4 1 4 "$FUSED" --kernel attention --heads 1 --tokens 8 --seed 11
  design sm${tn}_ffn           $OS 2 $tn 4 1 4 "$FUSED" --kernel ffn --tokens 4 --ffn 8 --seed 12
  design sm${tn}_ffn_ungated   $OS 2 $tn 4 1 4 "$FUSED" --kernel ffn --tokens 4 --ffn 8 --ungated --seed 13
  design sm${tn}_ffn_gelu      $OS 2 $tn 4 1 4 "$FUSED" --kernel ffn --tokens 4 --ffn 8 --activation gelu --seed 14
done
