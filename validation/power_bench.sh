#!/usr/bin/env bash
# Power estimation's cost next to the simulation (BENCHMARKS.md, "Power estimation"): runs
# `fsgen power` on the example designs at windows of 256 cycles and of 1 (a per-cycle trace),
# each RUNS times, and prints a Markdown table of the report's own timers (the lowest of the
# runs): the SystemC run, the power estimate, what the estimate adds, and the trace's cycles
# per second. The model is trained first from the shipped dataset.
#
# usage: validation/power_bench.sh [--fsgen BIN] [--dataset CSV] [--runs N] [--out DIR]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
FSGEN=$ROOT/build/fsgen DATASET=$ROOT/data/power/fsgen45.csv RUNS=3 OUT=$ROOT/rtl_out/power_bench
while [ $# -gt 0 ]; do
  case "$1" in
    --fsgen) FSGEN=$2; shift 2 ;;
    --dataset) DATASET=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "power_bench.sh: unknown argument '$1' (expected --fsgen, --dataset, --runs, --out)" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
MODEL=$OUT/power_model.json
"$FSGEN" train "$DATASET" -o "$MODEL" > /dev/null

# name|spec and kernel arguments
CASES=(
  "os_8x8 matmul 256^3|$ROOT/examples/os_8x8.yaml --m 256 --n 256 --k 256"
  "ws_8x16 attention prefill 4/2 heads, 512 tokens|$ROOT/examples/ws_8x16.yaml --kernel attention --tokens 512 --heads 4 --kv-heads 2"
  "llm_16x16 attention prefill 4/2 heads, 512 tokens|$ROOT/examples/llm_16x16.yaml --kernel attention --tokens 512 --heads 4 --kv-heads 2"
  "sparse_os_8x8 matmul 256^3, 50 % zeros|$ROOT/examples/sparse_os_8x8.yaml --m 256 --n 256 --k 256 --zeros 0.5"
)

# Lowest SystemC and estimate times (s) of RUNS runs, and the cycle count: "cycles sim est".
timed() {
  local args=$1 window=$2 best_sim="" best_est="" cycles=""
  for _ in $(seq "$RUNS"); do
    local report
    # shellcheck disable=SC2086
    report=$("$FSGEN" power $args --power-model "$MODEL" --window "$window" --csv "$OUT/trace.csv" 2>&1)
    cycles=$(sed -n 's/.*(\([0-9]*\) cycles at.*/\1/p' <<< "$report")
    read -r sim est < <(sed -n 's/.*wall: SystemC run \([0-9.]*\) s, power estimate \([0-9.]*\) s.*/\1 \2/p' <<< "$report")
    [ -n "$sim" ] || { echo "power_bench.sh: no timers in the report of '$args':" >&2; echo "$report" >&2; exit 1; }
    best_sim=$(awk -v a="$sim" -v b="$best_sim" 'BEGIN { print (b == "" || a < b) ? a : b }')
    best_est=$(awk -v a="$est" -v b="$best_est" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$cycles $best_sim $best_est"
}

echo "| design, kernel | cycles | SystemC run | estimate, windows of 256 | added | estimate, windows of 1 | trace cycles/s |"
echo "|---|---|---|---|---|---|---|"
for c in "${CASES[@]}"; do
  name=${c%%|*} args=${c#*|}
  read -r cycles sim est256 < <(timed "$args" 256)
  read -r _ _ est1 < <(timed "$args" 1)
  awk -v n="$name" -v c="$cycles" -v s="$sim" -v e="$est256" -v t="$est1" 'BEGIN {
    printf "| %s | %d | %.3f s | %.3f s | %.0f %% | %.3f s | %.2fe6 |\n", n, c, s, e, 100 * e / s, t, c / t / 1e6 }'
done
