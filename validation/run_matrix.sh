#!/usr/bin/env bash
# The full Verilator cross-check matrix (make validate): three stationarities x two
# tilings (plus systolic output-stationary arrays), each with dense, half-zero and mostly-zero
# operands and several shapes.
# The fused attention and FFN kernels run on every design, with K/V tile caches on half of
# them. Prints one pass/fail table per case and a summary; exits non-zero on any failure.
set -uo pipefail
FSGEN=${1:-build/fsgen}
OUT=${FSGEN_RTL_OUT:-rtl_out/validate}
SPECS=$(mktemp -d)
trap 'rm -rf "$SPECS"' EXIT

# Array b (O = P V) is tiled (m, n, k) = (a.m, a.k, a.n): queries, head dim, keys, unless
# B_TILING names a smaller (heterogeneous) tile. The optional ninth argument adds K and V
# tile caches (each stationarity has one design with them, one without).
spec() {  # name loop_order_a loop_order_b m n k beat_gbps latency [kv_caches]
  local b_tiling="{m: $4, n: $6, k: $5}"
  [ -n "${B_TILING:-}" ] && b_tiling=$B_TILING
  cat > "$SPECS/$1.yaml" <<YAML
name: $1
clock_mhz: 1000
pe_budget: 2048
memory: {bandwidth_gbps: $7, latency_cycles: $8, buffer_limit_bytes: 16384}
arrays:
  a: {loop_order: $2, tiling: {m: $4, n: $5, k: $6}}
  b: {loop_order: $3, tiling: $b_tiling}
caches: {acc_a: 16384, acc_b: 16384${9:+, $9}}
YAML
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

pass=0; fail=0
# run_case <design> <cosim arguments...>
run_case() {
  local d=$1; shift
  if "$FSGEN" cosim "$SPECS/$d.yaml" -o "$OUT" "$@"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAILED: $d $*"
  fi
}

DESIGNS="os_t8 os_t16 ws_t8 ws_t16 is_t8 is_t16 perm_kmn perm_nmk sys_t8 sys_t16 het_ws het_is"
for d in $DESIGNS; do
  for shape in "16 32 16" "32 32 48" "48 64 32"; do  # n: whole 32-column tiles of os_t16 on both arrays
    for zeros in 0 0.5 0.9; do
      read -r m n k <<< "$shape"
      run_case "$d" --m "$m" --n "$n" --k "$k" --zeros "$zeros" --seed $((m + n + k))
    done
  done
done

# Fused attention (prefill and decode, MHA and GQA, residual on and off, partial tiles) and
# the FFN (gated SiLU and plain GELU) on every design: each stationarity of arrays a and b.
for d in $DESIGNS; do
  for args in "--tokens 16 --heads 2 --kv-heads 2" "--tokens 21 --heads 4 --kv-heads 1 --zeros 0.5" \
              "--tokens 40 --heads 4 --kv-heads 2" \
              "--stage decode --tokens 1 --context 40 --heads 4 --kv-heads 2" \
              "--stage decode --tokens 2 --context 17 --heads 2 --kv-heads 2 --no-residual --zeros 0.9"; do
    # shellcheck disable=SC2086
    run_case "$d" --kernel attention $args
  done
  for args in "--tokens 16 --ffn 32" "--tokens 11 --ffn 40 --zeros 0.5" \
              "--tokens 8 --ffn 16 --ungated --activation gelu" "--tokens 5 --ffn 24 --ungated --no-residual --zeros 0.9"; do
    # shellcheck disable=SC2086
    run_case "$d" --kernel ffn $args
  done
done
echo "cross-check matrix: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
