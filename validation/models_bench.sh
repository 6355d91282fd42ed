#!/usr/bin/env bash
# Every shipped model (workloads/) on one design in the fast model: a prefill of CONTEXT tokens
# and one decode token at that context, all layers each. Prints a Markdown table row per run:
# accelerator cycles, tokens/s at the design's clock, off-chip bytes per token, the run against
# its roofline, and the wall time of the fsgen process.
#   validation/models_bench.sh [fsgen binary] [spec] [context]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSGEN=${1:-$ROOT/build/fsgen}
SPEC=${2:-$ROOT/examples/llm_16x16.yaml}
CONTEXT=${3:-512}
field() { grep -m1 -o "\"$1\": [0-9.e+-]*" "$2" | sed 's/.*: //'; }
echo "| model | stage | accelerator cycles | tokens/s | off-chip MB per token | x roofline (bound) | wall s |"
echo "|---|---|---|---|---|---|---|"
for dir in "$ROOT"/workloads/*/; do
  model=$(basename "$dir")
  for stage in prefill decode; do
    out=$(mktemp)
    start=$(date +%s%N)
    if ! "$FSGEN" simulate "$SPEC" --model "$model" --stage "$stage" --context "$CONTEXT" --layers all --json \
        > "$out" 2> "$out.err"; then
      echo "| $model | $stage | - | - | - | $(tail -1 "$out.err" | sed 's/^fsgen: error: //; s/|/\//g') | - |"
      rm -f "$out" "$out.err"
      continue
    fi
    wall=$(( ($(date +%s%N) - start) / 1000000 ))
    cycles=$(field cycles "$out") tps=$(field tokens_per_second "$out") bytes=$(field dma_bytes "$out")
    tokens=$(field tokens "$out") bound=$(field bound_cycles "$out")
    by=$(grep -m1 -o '"bound_by": "[a-z]*"' "$out" | sed 's/.*: "//; s/"//')
    awk -v m="$model" -v s="$stage" -v c="$cycles" -v t="$tps" -v b="$bytes" -v n="$tokens" -v r="$bound" \
        -v by="$by" -v w="$wall" \
        'BEGIN { printf "| %s | %s | %.3e | %.1f | %.1f | %.2f (%s) | %.2f |\n", m, s, c, t, b / n / 1e6, c / r, by, w / 1000 }'
    rm -f "$out" "$out.err"
  done
done
