#!/usr/bin/env bash
# The designs of the wide-head attention cross-check (head_tiles_cases.txt): those of
# matrix_specs.sh of each stationarity, systolic, heterogeneous and memory system, with four
# tile slots in buffer a (Q's head tiles and the residual's). Writes the specs into the
# folder given as $1 and prints their names.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SPECS=${1:?usage: head_tiles_specs.sh <folder>}
"$HERE/matrix_specs.sh" "$SPECS" > /dev/null
for d in os_t8 ws_t8 is_t16 perm_nmk sys_t16 het_ws het_is mem_o1; do
  sed -i 's/buffer_limit_bytes: 16384}/buffer_limit_bytes: 16384, operand_tiles: {a: 4}}/' "$SPECS/$d.yaml"
  echo "$d"
done
