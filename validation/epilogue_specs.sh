#!/usr/bin/env bash
# The designs of the matmul epilogue's cross-check (epilogue_cases.txt): those of
# matrix_specs.sh that run it gated, each a fused core whose matmul tile is array a's alone
# (array b does not join matmuls) and whose loop order has m outside n. Writes the specs
# into the folder given as $1 and prints their names.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/matrix_specs.sh" "${1:?usage: epilogue_specs.sh <folder>}" > /dev/null
printf '%s\n' is_t8 is_t16 het_ws het_is
