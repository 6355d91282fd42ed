#!/usr/bin/env bash
# The power flow on one liberty in one command (docs/POWER.md, "Any liberty in one command"):
# characterise the primitives at gate level (fsgen characterize), train their models (fsgen
# train) and validate them against gate-level golden power of the validation designs
# (power_validation.sh), then write one report, <out>/report.md: the liberty, the dataset's
# points per primitive, the models' held-out errors, the validation tables and each step's
# run time. Every step resumes: run it again after an interruption and it goes on where it
# stopped (the run times are then this run's).
#
# usage: validation/power_flow.sh [--liberty FILE] [--out DIR] [--fsgen BIN] [--jobs N] [--small]
#                                 [--max-elements N] [--designs dense|sparse|softmax|all] [--whole-core] [--only A,B]
#                                 [--for-design SPEC]...
#   --liberty   a .lib or .lib.gz (default: the built-in fsgen45)
#   --out       the flow's folder (default: validation_out/power_flow/<library>)
#   --small     the two smallest sizes of each primitive and 8 stimuli each (fsgen characterize
#               --small): minutes instead of hours, for a first look at a library
#   --max-elements N  only sizes of at most N processing elements (fsgen characterize's)
#   --designs   the validation designs (default: dense)
#   --whole-core  replay the validation cores whole (their controllers too)
#   --only      only these validation designs (comma-separated)
#   --for-design  also characterise the blocks of this design spec at their own sizes (fsgen
#               characterize --design; repeatable): a design the catalog's sizes do not cover
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
FSGEN=$ROOT/build/fsgen LIBERTY="" OUT="" JOBS=2 SMALL=() MAX=() DESIGNS=dense WHOLE_CORE=() ONLY=() FOR_DESIGNS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --liberty) LIBERTY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --fsgen) FSGEN=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --small) SMALL=(--small); shift ;;
    --max-elements) MAX=(--max-elements "$2"); shift 2 ;;
    --designs) DESIGNS=$2; shift 2 ;;
    --whole-core) WHOLE_CORE=(--whole-core); shift ;;
    --only) ONLY=(--only "$2"); shift 2 ;;
    --for-design) [ -f "$2" ] || { echo "power_flow.sh: --for-design $2: no such file" >&2; exit 2; }
      FOR_DESIGNS+=(--design "$2"); shift 2 ;;
    *) echo "power_flow.sh: unknown argument '$1' (expected --liberty, --out, --fsgen, --jobs, --small, --max-elements, --designs, --whole-core, --only, --for-design)" >&2; exit 2 ;;
  esac
done
[ -z "$LIBERTY" ] || [ -f "$LIBERTY" ] || { echo "power_flow.sh: --liberty $LIBERTY: no such file" >&2; exit 2; }
[ -n "$LIBERTY" ] && LIBERTY=$(cd "$(dirname "$LIBERTY")" && pwd)/$(basename "$LIBERTY")
LIB_NAME=fsgen45
[ -n "$LIBERTY" ] && LIB_NAME=$(basename "$LIBERTY" | sed 's/\.gz$//; s/\.lib$//')
OUT=${OUT:-$ROOT/validation_out/power_flow/$LIB_NAME}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DATASET=$OUT/$LIB_NAME.csv
LIB_ARGS=()
[ -n "$LIBERTY" ] && LIB_ARGS=(--liberty "$LIBERTY")
TIMES=$OUT/times.txt
: > "$TIMES"

# step NAME COMMAND...: runs a step, its output in <out>/<name>.log, its run time in times.txt.
step() {
  local name=$1 start end
  shift
  echo "== $name ($OUT/$name.log)" >&2
  start=$(date +%s)
  if ! "$@" > "$OUT/$name.log" 2>&1; then
    echo "power_flow.sh: step '$name' failed; its last lines:" >&2
    tail -n 5 "$OUT/$name.log" >&2
    exit 1
  fi
  end=$(date +%s)
  echo "$name $((end - start))" >> "$TIMES"
}

step characterize "$FSGEN" -q characterize "${LIB_ARGS[@]}" "${SMALL[@]}" "${MAX[@]}" --jobs "$JOBS" -o "$DATASET"
if [ ${#FOR_DESIGNS[@]} -gt 0 ]; then
  step characterize_designs "$FSGEN" -q characterize "${LIB_ARGS[@]}" "${MAX[@]}" --jobs "$JOBS" --no-kernel-runs \
    "${FOR_DESIGNS[@]}" -o "$DATASET"
fi
step train "$FSGEN" train "$DATASET" -o "$OUT/model.json"
step validate "$HERE/power_validation.sh" --fsgen "$FSGEN" "${LIB_ARGS[@]}" --dataset "$DATASET" \
  --out "$OUT/validation" --designs "$DESIGNS" "${WHOLE_CORE[@]}" "${ONLY[@]}"

{
  echo "# fsgen power flow: $LIB_NAME"
  echo
  echo "Liberty: ${LIBERTY:-the built-in fsgen45}. Dataset: \`$DATASET\`$([ ${#SMALL[@]} -gt 0 ] && echo ' (--small)')$([ ${#MAX[@]} -gt 0 ] && echo " (--max-elements ${MAX[1]})")."
  echo "Made by \`validation/power_flow.sh\` on $(date -u +%Y-%m-%d), fsgen at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'an unknown commit')."
  echo
  echo "## Run time of this run (s)"
  echo
  echo "| step | seconds |"
  echo "|---|---|"
  while read -r name seconds; do echo "| $name | $seconds |"; done < "$TIMES"
  echo
  echo "## Dataset: points per primitive"
  echo
  echo "| primitive | points | sizes |"
  echo "|---|---|---|"
  grep -v '^#' "$DATASET" | tail -n +2 | awk -F, '{n[$1]++; if (!s[$1 "," $2]++) z[$1]++} END {for (k in n) print "| " k " | " n[k] " | " z[k] " |"}' | sort
  echo
  echo "## Models (fsgen train; held-out points)"
  echo
  echo '```'
  cat "$OUT/train.log"
  echo '```'
  echo
  echo "## Validation against gate-level golden power"
  echo
  cat "$OUT/validation/validation.md"
} > "$OUT/report.md.tmp"
mv "$OUT/report.md.tmp" "$OUT/report.md"
echo "wrote $OUT/report.md" >&2
