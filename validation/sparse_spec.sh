#!/usr/bin/env bash
# The spec writer of the sparse cross-check matrices (sparse_specs.sh, dot_specs.sh), sourced
# with SPECS set to the output folder:
#   spec name m n k "sparse_tiling" "tensors to skip (x w xw)" [condition of w] [sliding window]
# writes SPECS/name.yaml, a fused core (matmul, attention, FFN) whose array a has the sparse
# tiling and compute-value mappings on the tensors to skip, and prints the name. Options
# through the environment: LOOP_ORDER of array a (output_stationary), MOVEMENT (broadcast
# or systolic), CACHES (the caches map's entries), COMPRESS (tensors whose zero rows the
# DMA skips), TOPK (block TopK over key tiles, keeping TOPK of them).
spec() {  # name m n k "sparse_tiling" "tensors to skip (x w xw)" [condition of w] [sliding window]
  local maps=""
  case "$6" in *x*) maps+="  - {kind: compute_value, tensor: x, condition: \"x==0\"}"$'\n' ;; esac
  case "$6" in *w*) maps+="  - {kind: compute_value, tensor: w, condition: \"${7:-w==0}\"}"$'\n' ;; esac
  [ -n "${8:-}" ] && maps+="  - {kind: memory_group, tensor: k, condition: sliding, window: $8}"$'\n'
  local caches=""
  [ -n "${CACHES:-}" ] && caches="caches: {$CACHES}"
  for t in ${COMPRESS:-}; do maps+="  - {kind: memory_value, tensor: $t, condition: \"$t==0\"}"$'\n'; done
  [ -n "${TOPK:-}" ] && maps+="  - {kind: compute_group, tensor: k, condition: topk, block: $3, topk: $TOPK}"$'\n'
  cat > "$SPECS/$1.yaml" <<YAML
name: $1
clock_mhz: 1000
pe_budget: 2048
memory: {bandwidth_gbps: 8, latency_cycles: 6, buffer_limit_bytes: 16384}
arrays:
  a: {loop_order: ${LOOP_ORDER:-output_stationary}, movement: ${MOVEMENT:-broadcast}, tiling: {m: $2, n: $3, k: $4}, sparse_tiling: $5}
  b: {loop_order: output_stationary, tiling: {m: $2, n: $4, k: $3}}
$caches
kernels: [matmul, attention]
sparsity:
$maps
YAML
  echo "$1"
}
