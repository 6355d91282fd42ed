#!/usr/bin/env bash
# The sparse designs of the power validation (power_validation.sh): writes one spec per
# design into the folder given as $1 and prints one line per design, "name|kernel arguments".
# Matmul cores whose output-stationary array a (2x2 to 4x4 PEs, broadcast) has x and w value
# networks (fsgen_sparse_net) in front of it, varying array shape, k tile, window (2 or 4
# k steps), lanes along m and n (one lane, two lanes, one per PE row or column), the tensors
# skipped (x, w, both), memory bandwidth and latency, and the data (50 % and 90 % zeros in
# the skipped operands, 2:4 structured weights, narrow normal values). Every network and
# array size is one the primitives are characterised at.
set -euo pipefail
SPECS=${1:?usage: sparse_power_specs.sh <folder>}
mkdir -p "$SPECS"

# name m n k window lanes_m lanes_n skip bandwidth_gbps latency | kernel arguments
design() {
  local name=$1 m=$2 n=$3 k=$4 win=$5 lm=$6 ln=$7 skip=$8 bw=$9 lat=${10}; shift 10
  local tiling="k: \"1:1:$win:$win\""
  [ "$lm" -gt 1 ] && tiling="m: \"$((m / lm)):$m:$m:$m\", $tiling"
  [ "$ln" -gt 1 ] && tiling="n: \"$((n / ln)):$n:$n:$n\", $tiling"
  local maps=""
  case "$skip" in *x*) maps+="  - {kind: compute_value, tensor: x, condition: \"x==0\"}"$'\n' ;; esac
  case "$skip" in *w*) maps+="  - {kind: compute_value, tensor: w, condition: \"w==0\"}"$'\n' ;; esac
  cat > "$SPECS/$name.yaml" <<YAML
name: $name
clock_mhz: 500
pe_budget: 256
memory: {bandwidth_gbps: $bw, latency_cycles: $lat, buffer_limit_bytes: 16384}
arrays:
  a: {loop_order: output_stationary, tiling: {m: $m, n: $n, k: $k}, sparse_tiling: {$tiling}}
  b: {loop_order: output_stationary, tiling: {m: $m, n: $k, k: $n}}
caches: {acc_a: 4096, acc_b: 4096}
kernels: [matmul]
sparsity:
$maps
YAML
  echo "$name|$*"
}

MM="--kernel matmul --m 8 --n 8 --k 16"
# The data each skipped tensor set is run with, in turn (zeros in the operands it skips).
data() {  # skip index
  local skip=$1 i=$2
  local in=b
  case "$skip" in x) in=a ;; xw) in=ab ;; esac
  case $((i % 4)) in
    0) echo "--zeros 0.5 --zeros-in $in" ;;
    1) echo "--zeros 0.9 --zeros-in $in" ;;
    2) if [ "$skip" = x ]; then echo "--zeros 0.7 --zeros-in a --values normal --sigma 6"; else echo "--pattern 2:4 --zeros-in $in"; fi ;;
    3) echo "--zeros 0.3 --zeros-in $in --values normal --sigma 6" ;;
  esac
}

i=0
for shape in "2 2" "2 4" "4 2" "4 4"; do
  read -r m n <<< "$shape"
  # lanes (m n): one each; one per PE column; one per PE row; two along n (4 columns); both.
  lane_sets=("1 1" "1 $n" "$m 1")
  [ "$n" -eq 4 ] && lane_sets+=("1 2")
  [ "$m" -eq 4 ] && lane_sets+=("2 1")
  [ "$m" -ge 2 ] && [ "$n" -ge 2 ] && lane_sets+=("$m $n")
  for lanes in "${lane_sets[@]}"; do
    read -r lm ln <<< "$lanes"
    for skip in w x xw; do
     for win in 2 4; do
      k=$(( i % 3 == 0 ? 16 : 8 ))
      # A beat (bandwidth_gbps x 2 bytes at 500 MHz) must divide the n bytes of B's rows.
      if [ "$n" -eq 2 ]; then bw=1; [ $((i % 5)) -eq 0 ] && bw=0.5; else bw=2; [ $((i % 5)) -eq 0 ] && bw=1; fi
      lat=$(( 2 + (i * 7) % 12 ))
      design "sp_${m}x${n}_l${lm}${ln}_${skip}_w${win}" "$m" "$n" "$k" "$win" "$lm" "$ln" "$skip" "$bw" "$lat" \
        $MM --seed $((11 + i)) $(data "$skip" "$i")
      i=$((i + 1))
     done
    done
  done
done
