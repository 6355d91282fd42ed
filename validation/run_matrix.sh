#!/usr/bin/env bash
# The full Verilator cross-check matrix (make validate): every case of a cases file on
# every design its specs script writes, each compared output for output, cycle for cycle
# and toggle for toggle. Prints one pass/fail table per case and a summary; exits
# non-zero on any failure.
#   run_matrix.sh [fsgen] [specs script] [cases file]
# Defaults: the dense matrix (matrix_specs.sh, matrix_cases.txt); the sparse one is
# sparse_specs.sh with sparse_cases.txt. With FSGEN_MIXED=<--rtl value> (e.g. arrays) each case
# runs as a mixed-level co-simulation instead (fsgen simulate --rtl; core: the whole core as RTL).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
FSGEN=${1:-build/fsgen}
SPECS_SCRIPT=${2:-$HERE/matrix_specs.sh}
CASES=${3:-$HERE/matrix_cases.txt}
OUT=${FSGEN_RTL_OUT:-rtl_out/validate}
SPECS=$(mktemp -d)
trap 'rm -rf "$SPECS"' EXIT
DESIGNS=$("$SPECS_SCRIPT" "$SPECS") || exit 1

pass=0; fail=0
for d in $DESIGNS; do
  while read -r args; do
    case "$args" in ''|'#'*) continue ;; esac
    if [ -n "${FSGEN_MIXED:-}" ]; then
      run=(simulate "$SPECS/$d.yaml" --rtl "$FSGEN_MIXED")
    else
      run=(cosim "$SPECS/$d.yaml")
    fi
    # shellcheck disable=SC2086
    if "$FSGEN" "${run[@]}" -o "$OUT" $args < /dev/null; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAILED: $d $args"
    fi
  done < "$CASES"
done
echo "cross-check matrix: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
