#!/usr/bin/env bash
# The designs of the softmax unit's power validation (power_validation.sh --designs
# softmax): cores with the fused datapath whose score rows have the characterised widths
# (array a's n: 2 or 4 keys, the softmax unit's TN), running the fused attention (prefill,
# GQA, decode, zero or narrow operands) and the FFN (gated SiLU, ungated, GELU). Writes
# one spec per design into the folder given as $1 and prints one line per design,
# "name|kernel arguments", as power_specs.sh does.
set -euo pipefail
SPECS=${1:?usage: softmax_power_specs.sh <folder>}
mkdir -p "$SPECS"

# name loop_order m n k bandwidth_gbps latency | kernel arguments (array a m x n x k, array
# b m x k x n; at 500 MHz a beat carries bandwidth_gbps x 2 bytes, which must divide the
# head dimension k).
design() {
  local name=$1 order=$2 m=$3 n=$4 k=$5 bw=$6 lat=$7; shift 7
  cat > "$SPECS/$name.yaml" <<YAML
name: $name
clock_mhz: 500
pe_budget: 256
memory: {bandwidth_gbps: $bw, latency_cycles: $lat, buffer_limit_bytes: 16384}
arrays:
  a: {loop_order: $order, tiling: {m: $m, n: $n, k: $k}}
  b: {loop_order: $order, tiling: {m: $m, n: $k, k: $n}}
caches: {acc_a: 4096, acc_b: 4096}
kernels: [matmul, attention]
YAML
  echo "$name|$*"
}

OS=output_stationary; WS=weight_stationary
for tn in 2 4; do
  design sm${tn}_attn          $OS 2 $tn 4 1 4 --kernel attention --heads 1 --tokens 8 --seed 5
  design sm${tn}_attn_narrow   $OS 2 $tn 4 1 4 --kernel attention --heads 1 --tokens 8 --values normal --sigma 6 --seed 6
  design sm${tn}_attn_gqa      $OS 2 $tn 4 2 4 --kernel attention --heads 2 --kv-heads 1 --tokens 6 --seed 7
  design sm${tn}_attn_decode   $OS 2 $tn 4 1 4 --kernel attention --stage decode --heads 2 --context 12 --seed 8
  design sm${tn}_attn_z50      $OS 2 $tn 4 1 4 --kernel attention --heads 1 --tokens 8 --zeros 0.5 --seed 9
  design sm${tn}_attn_fastmem  $OS 4 $tn 4 2 1 --kernel attention --heads 1 --tokens 8 --seed 10
  design sm${tn}_attn_ws       $WS 2 $tn 4 1 4 --kernel attention --heads 1 --tokens 8 --seed 11
  design sm${tn}_ffn           $OS 2 $tn 4 1 4 --kernel ffn --tokens 4 --ffn 8 --seed 12
  design sm${tn}_ffn_ungated   $OS 2 $tn 4 1 4 --kernel ffn --tokens 4 --ffn 8 --ungated --seed 13
  design sm${tn}_ffn_gelu      $OS 2 $tn 4 1 4 --kernel ffn --tokens 4 --ffn 8 --activation gelu --seed 14
done
