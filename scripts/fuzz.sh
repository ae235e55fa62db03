#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ with clang (AddressSanitizer, UndefinedBehaviorSanitizer)
# in build/fuzz and runs each for a time budget, starting from the seed corpora in
# fuzz/corpus/NAME (copied to build/fuzz/corpus/NAME, which grows; the committed seeds do
# not change). Prints the executions of each harness and their total; exits 1 when a harness
# found something (its crash-* / leak-* / timeout-* / oom-* file is in build/fuzz/findings/).
#   scripts/fuzz.sh [--seconds S | --runs N] [HARNESS...]
#   --seconds S  budget per harness (default 60);  --runs N  a fixed number of runs each (CI smoke)
# Needs clang and libFuzzer (Debian 12: clang and libclang-rt-14-dev, which holds libclang_rt.fuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 runs=""
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_npy fuzz_golden fuzz_cli_lines fuzz_quant_input fuzz_mma_operands fuzz_dlpack fuzz_gemm_plan)
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }
flags="-g1 -O1 -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="" -DTCEMU_BUILD_FUZZ=ON -DTCEMU_BUILD_TESTS=OFF -DTCEMU_BUILD_TOOLS=OFF \
  -DTCEMU_BUILD_BENCH=OFF -DTCEMU_ENABLE_CUDA=OFF "${launcher[@]}" >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target "${harnesses[@]}"
mkdir -p build/fuzz/findings build/fuzz/logs
total=0 found=0
for h in "${harnesses[@]}"; do
  work="build/fuzz/corpus/$h"
  mkdir -p "$work"
  cp -n fuzz/corpus/"$h"/* "$work"/ 2>/dev/null || true
  budget=(-max_total_time="$seconds")
  [ -n "$runs" ] && budget=(-runs="$runs")
  log="build/fuzz/logs/$h.log"
  # Inputs up to 8 KiB (.npy headers), 4 KiB (golden JSON: several cases), 1 KiB (command
  # lines: a few dozen lines), 512 bytes (mma operands: up to five 8 x 8 matrices); larger
  # inputs repeat what a smaller one reaches at a fraction of the speed. One allocation above
  # 512 MiB or 2 GiB in all counts as a finding (a runaway allocation), as does an input that
  # runs 10 s.
  case "$h" in
    fuzz_golden) max_len=4096 ;;
    fuzz_cli_lines) max_len=1024 ;;
    fuzz_mma_operands|fuzz_gemm_plan) max_len=512 ;;
    *) max_len=8192 ;;
  esac
  if ! build/fuzz/fuzz/"$h" "${budget[@]}" -max_len="$max_len" -malloc_limit_mb=512 -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix=build/fuzz/findings/"$h"- "$work" >"$log" 2>&1; then
    found=1
    echo "$h: FOUND a problem (see $log and build/fuzz/findings/)"
  fi
  n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  n=${n:-0}
  total=$((total + n))
  printf '%-18s %12s executions  corpus %s files\n' "$h" "$n" "$(ls "$work" | wc -l)"
done
printf '%-18s %12s executions\n' total "$total"
[ "$found" -eq 0 ] && echo "nothing found" || { echo "findings in build/fuzz/findings/"; exit 1; }
