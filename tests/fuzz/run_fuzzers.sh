#!/usr/bin/env bash
# Runs each reader's fuzzer (tests/fuzz/fuzz_reader.cpp) for a while on a corpus seeded from
# the repository's own files (make fuzz). Inputs that crash, leak, hang or trip a sanitizer
# are kept in <build>/findings/<reader>/; the corpus grows in <build>/corpus/<reader>/ and is
# reused by the next run; a finding that no longer fails moves to findings/<reader>/fixed/.
# Prints a line per reader and exits non-zero on any finding.
#   run_fuzzers.sh <build folder> <seconds per reader> [reader ...]
set -uo pipefail
BUILD=${1:?usage: run_fuzzers.sh <build folder> <seconds per reader> [reader ...]}
SECONDS_EACH=${2:?seconds per reader}
shift 2
READERS=${*:-spec model_config safetensors llama2c liberty dataset power_model vcd program run_record}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

le32() { printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 24 & 255)))"; }

# Seeds: small valid files of each format.
seed() {  # reader dir
  local r=$1 d=$2
  case $r in
    spec) cp "$ROOT"/examples/*.yaml "$d/" ;;
    model_config) for m in "$ROOT"/workloads/*/config.json; do cp "$m" "$d/$(basename "$(dirname "$m")").json"; done ;;
    safetensors)
      local h='{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[8,10]}}'
      { le32 ${#h}; le32 0; printf '%s' "$h"; printf '\000\000\200\077\000\000\000\100\000\077'; } > "$d/tiny.safetensors" ;;
    llama2c)  # dim 8, hidden 16, 1 layer, 2 heads, 2 KV heads, vocab 4, seq 4: 32 + 656 + 8 + 16 floats
      { for v in 8 16 1 2 2 4 4; do le32 $v; done; head -c $(((32 + 656 + 8 + 16) * 4)) /dev/zero; } > "$d/tiny.bin" ;;
    liberty) cp "$ROOT/tech/fsgen45.lib" "$d/" ;;
    dataset) head -n 30 "$ROOT/data/power/fsgen45.csv" > "$d/head.csv" ;;
    power_model) [ -f "$ROOT/rtl_out/power_model.json" ] && cp "$ROOT/rtl_out/power_model.json" "$d/" ;;
    vcd) printf '%s\n' '$timescale 1ps $end' '$scope module fsgen_top $end' '$scope module u_array_a $end' \
           '$var wire 1 ! en $end' '$var wire 40 # x [39:0] $end' '$upscope $end' '$upscope $end' \
           '$enddefinitions $end' '#0' '0!' 'b0 #' '#1' '1!' 'b101 #' '#3' '0!' > "$d/k.vcd" ;;
    program) [ -x "$ROOT/build/fsgen" ] && "$ROOT/build/fsgen" compile "$ROOT/examples/os_8x8.yaml" --m 8 --n 16 --k 8 \
               -o "$d/matmul.json" > /dev/null ;;
    run_record) ;;
  esac
  return 0
}

found=0
for r in $READERS; do
  bin="$BUILD/fuzz_$r"
  [ -x "$bin" ] || { echo "$r: no fuzzer at $bin (build the target fuzzers)"; found=1; continue; }
  corpus="$BUILD/corpus/$r" findings="$BUILD/findings/$r"
  mkdir -p "$corpus" "$findings"
  [ -n "$(ls -A "$corpus")" ] || seed "$r" "$corpus"
  # Findings of earlier runs that no longer fail (fixed since, each a regression test) move
  # to fixed/; one that still fails stays a finding.
  for old in "$findings"/*; do
    [ -f "$old" ] || continue
    if "$bin" "$old" > /dev/null 2>&1; then mkdir -p "$findings/fixed" && mv "$old" "$findings/fixed/"; fi
  done
  log="$BUILD/findings/$r.log"
  "$bin" "$corpus" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix="$findings/" -print_final_stats=1 > "$log" 2>&1
  status=$?
  # A slow unit is confirmed by running it again alone: one that now runs in under a second
  # was slowed by the machine's load (the fuzzers run beside builds), not by the input.
  for slow in "$findings"/slow-unit-*; do
    [ -e "$slow" ] || continue
    start=$(date +%s%N)
    "$bin" "$slow" > /dev/null 2>&1
    if [ $? -eq 0 ] && [ $(( ($(date +%s%N) - start) / 1000000 )) -lt 1000 ]; then
      echo "$r: $(basename "$slow") runs in under a second alone: a slow moment of the machine, dropped"
      rm -f "$slow"
    fi
  done
  runs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ $status -ne 0 ] || [ -n "$(find "$findings" -maxdepth 1 -type f)" ]; then
    found=1
    echo "$r: FINDING after ${runs:-?} runs: $(find "$findings" -maxdepth 1 -type f -printf '%f ' | head -c 300)(log: $log)"
    grep -m1 -E "ERROR|runtime error|terminate|deadly signal" "$log"
  else
    echo "$r: ${runs:-?} runs in ${SECONDS_EACH} s, corpus $(ls "$corpus" | wc -l) inputs, no finding"
  fi
done
exit $found
