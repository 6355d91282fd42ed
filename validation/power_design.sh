# shellcheck shell=bash
# design(): one design of the power validation, sourced by power_specs.sh,
# softmax_power_specs.sh and size_power_specs.sh. Writes $SPECS/<name>.yaml (array a
# m x n x k, array b m x k x n, accumulator caches of ACC bytes for acc_a, default 4096, and
# 4096 for acc_b; with SPARSE_TILING array a's sparse_tiling and with SKIP_W the
# compute-value mapping that skips w's zeros) and prints "name|kernel arguments". At 500 MHz
# a memory beat carries bandwidth_gbps x 2 bytes; tiny arrays get narrow beats (a beat must
# divide the rows of the operand tiles).
# usage: design name loop_order m n k bandwidth_gbps latency kernels kernel-arguments...
design() {
  local name=$1 order=$2 m=$3 n=$4 k=$5 bw=$6 lat=$7 kernels=$8; shift 8
  cat > "$SPECS/$name.yaml" <<YAML
name: $name
clock_mhz: 500
pe_budget: ${PE_BUDGET:-256}
memory: {bandwidth_gbps: $bw, latency_cycles: $lat, buffer_limit_bytes: 16384}
arrays:
  a: {loop_order: $order, tiling: {m: $m, n: $n, k: $k}${SPARSE_TILING:+, sparse_tiling: $SPARSE_TILING}}
  b: {loop_order: $order, tiling: {m: $m, n: $k, k: $n}}
caches: {acc_a: ${ACC:-4096}, acc_b: 4096}
kernels: [$kernels]
YAML
  [ -z "${SKIP_W:-}" ] || printf 'sparsity:\n  - {kind: compute_value, tensor: w, condition: "w==0"}\n' >> "$SPECS/$name.yaml"
  echo "$name|$*"
}
