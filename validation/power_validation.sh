#!/usr/bin/env bash
# Power validation (docs/POWER.md, "Validation"): trains the primitive models on a
# characterisation dataset, runs every design of power_specs.sh (dense) and
# sparse_power_specs.sh (value-sparse) and softmax_power_specs.sh (the fused datapath's
# softmax / activation unit) with its kernel on the
# SystemC model (prediction) and on the Verilated RTL replayed into the arrays' gate-level
# netlists (golden), appends each design's records and writes its predicted and golden
# traces per block and cycle (<out>/<design>.trace.csv), then scores fsgen's model and the
# baselines: a Markdown table and a predicted-against-golden PNG.
# Resumable: designs already in the records are not run again. --whole-core also replays
# each core's controller and register file (the structural primitives) and the
# blocks without a model (fsgen power --golden without --modelled-only): the whole core is
# scored (slow: a controller's synthesis
# takes minutes per distinct controller). --only runs the named designs
# of the set (comma-separated).
#
# usage: validation/power_validation.sh [--liberty FILE] [--dataset CSV] [--out DIR] [--fsgen BIN]
#                                       [--designs dense|sparse|softmax|size|all] [--whole-core] [--only A,B]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
FSGEN=$ROOT/build/fsgen LIBERTY="" DATASET="" OUT="" DESIGNS=all WHOLE_CORE=(--modelled-only) ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --liberty) LIBERTY=$2; shift 2 ;;
    --dataset) DATASET=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --fsgen) FSGEN=$2; shift 2 ;;
    --designs) DESIGNS=$2; shift 2 ;;
    --whole-core) WHOLE_CORE=(); shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "power_validation.sh: unknown argument '$1' (expected --liberty, --dataset, --out, --fsgen, --designs, --whole-core, --only)" >&2; exit 2 ;;
  esac
done
LIB_NAME=fsgen45
[ -n "$LIBERTY" ] && LIB_NAME=$(basename "$LIBERTY" | sed 's/\.gz$//; s/\.lib$//')
DATASET=${DATASET:-$ROOT/data/power/$LIB_NAME.csv}
OUT=${OUT:-$ROOT/validation_out/power/$LIB_NAME}
case "$DESIGNS" in dense|sparse|softmax|size|all) ;; *) echo "power_validation.sh: --designs '$DESIGNS': expected dense, sparse, softmax, size or all" >&2; exit 2 ;; esac
[ -f "$DATASET" ] || { echo "power_validation.sh: no dataset $DATASET: make one with fsgen characterize${LIBERTY:+ --liberty $LIBERTY} -o $DATASET" >&2; exit 2; }
mkdir -p "$OUT/specs"
RECORDS=$OUT/records.csv

"$FSGEN" train "$DATASET" -o "$OUT/model.json"
LIB_ARGS=()
[ -n "$LIBERTY" ] && LIB_ARGS=(--liberty "$LIBERTY")
{
  case "$DESIGNS" in dense|all) "$HERE/power_specs.sh" "$OUT/specs" ;; esac
  case "$DESIGNS" in sparse|all) "$HERE/sparse_power_specs.sh" "$OUT/specs" ;; esac
  case "$DESIGNS" in softmax|all) "$HERE/softmax_power_specs.sh" "$OUT/specs" ;; esac
  case "$DESIGNS" in size|all) "$HERE/size_power_specs.sh" "$OUT/specs" ;; esac
} > "$OUT/designs.txt"
if [ -n "$ONLY" ]; then
  for name in ${ONLY//,/ }; do
    grep -q "^$name|" "$OUT/designs.txt" || { echo "power_validation.sh: --only $name: no such design in --designs $DESIGNS" >&2; exit 2; }
  done
  grep -E "^(${ONLY//,/|})\|" "$OUT/designs.txt" > "$OUT/designs.only" && mv "$OUT/designs.only" "$OUT/designs.txt"
fi
# A whole core's replay runs its controller's netlist, so its operand buffers must be
# flip-flops: the threshold lies above the designs' largest (att_16x16's buf_b, 1 KiB) and
# below their accumulator caches (4 KiB, macros, not scored).
MACROS=(--macro-threshold 2048)
failed=0
while IFS='|' read -r name args; do
  if [ -f "$RECORDS" ] && grep -q "^$name," "$RECORDS"; then continue; fi
  echo "== $name" >&2
  # shellcheck disable=SC2086
  if ! "$FSGEN" power "$OUT/specs/$name.yaml" $args --power-model "$OUT/model.json" --window 1 --golden "${WHOLE_CORE[@]}" \
      "${MACROS[@]}" "${LIB_ARGS[@]}" -o "$OUT/rtl" --record "$RECORDS" --golden-csv "$OUT/$name.trace.csv" < /dev/null > "$OUT/$name.log" 2>&1; then
    echo "FAILED: $name (see $OUT/$name.log)" >&2; failed=$((failed + 1))
  fi
done < "$OUT/designs.txt"
"$FSGEN" power-validate "$RECORDS" --dataset "$DATASET" --markdown "$OUT/validation.md" --png "$OUT/validation.png"
[ "$failed" -eq 0 ]
