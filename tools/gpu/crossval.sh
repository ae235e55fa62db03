#!/usr/bin/env bash
# Cross-validation of the emulator on the present GPU, in one run (docs/gpu.md). From the
# repository root:
#
#   tools/gpu/crossval.sh [--out DIR] [--commit-dir DIR] [--dry-run] [--arch sm_90a]
#                         [--build-only DIR | --bin DIR]
#
# Builds tcemu-gpu and cvt_check with nvcc and g++ directly (no CMake, no packages: only the
# CUDA toolkit, a C++20 g++ and the header-only nlohmann/json and CLI11, see JSON_INCLUDE), then on the
# GPU, printing its progress with timestamps:
#   1. the committed golden sets (golden/sets/*.json): every case the GPU runs, compared bit
#      for bit with the emulator's expected results;
#   2. RANDOM_TILES (default 100000) random instruction tiles per supported instruction,
#      spread over all distributions (wgmma: as many dot products, in fewer, larger tiles;
#      wgmma N = 8 and 256, the other 30 N with RANDOM_TILES_WGMMA_N, default 2000, each);
#   3. the directed probes of docs/sources.md, "Directed probes" (tcemu-gpu probe): measured L, F, rounding,
#      e_zero, C entry, subnormals and specials next to the catalog's values;
#   4. every PTX cvt variant of the GPU's target (cvt_check: exhaustive for sources of 16 bits
#      or less, f32 sweeps and cvt.rs random operands sampled within CVT_BUDGET seconds).
# Writes OUT/crossval.md and OUT/crossval.json (the report), and copies the measured golden
# set of step 1 (hardware provenance: GPU, driver, CUDA, date), the probe results and the
# reports to COMMIT_DIR (default golden/hw/<gpu>/, e.g. golden/hw/h200/). The random cases are
# too large to commit: their outcome is in the report (KEEP_RANDOM=1 keeps them in OUT).
# Budget: under 8 minutes on an H200 (build ~1.5 min on 16 cores, committed sets ~10 s, random
# ~3 min, probes ~30 s, cvt_check CVT_BUDGET = 120 s).
#
# --dry-run needs no GPU and no nvcc: builds tcemu-gpu's host side with g++ (the device part
# replaced by gpu_backend_stub.cpp; with --bin, takes the tcemu-gpu there), then prints the plan: which committed cases would run on
# ARCH (default sm_90a) and which would be skipped and why, the instructions the random step
# covers, and the probes (run on the emulator, which must agree with its own catalog).
#
# --build-only DIR builds tcemu-gpu and cvt_check for the present GPU into DIR and stops;
# --bin DIR runs the steps with the tcemu-gpu and cvt_check found in DIR (built beforehand,
# e.g. by tools/gpu/prepare_session.sh on another machine) instead of building them.
#
# Environment: DEADLINE (a time in seconds since the epoch: every step's time limit is cut so
# that the last one ends RESERVE seconds before it; tools/gpu/session.sh sets both), NVCC, CXX, JSON_INCLUDE (folder holding nlohmann/json.hpp, and CLI/CLI.hpp unless /usr/include has it; default: the first of
# /usr/include, /usr/local/include, third_party/include, build-deps/include that has it),
# RANDOM_TILES, RANDOM_TILES_WGMMA_N, RANDOM_SEED (default 1), CVT_BUDGET, JOBS (parallel compiles, default nproc), KEEP_RANDOM.
# Exit status: 0 all matched; 1 a difference or a failed step; 2 bad usage or build failure;
# 77 no usable GPU.
set -u
OUT=crossval-out
COMMIT_DIR=
DRY=0
ARCH=
BUILD_ONLY=
BIN=
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --commit-dir) COMMIT_DIR=$2; shift 2 ;;
    --dry-run) DRY=1; shift ;;
    --build-only) BUILD_ONLY=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    -h|--help) sed -n '2,41p' "$0"; exit 0 ;;
    *) echo "crossval.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -d tools/gpu ] && [ -d golden/sets ] || { echo "crossval.sh: run it from the repository root" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T0=$(date +%s)
stamp() { echo "=== [$(( $(date +%s) - T0 )) s] $*"; }
CXX=${CXX:-g++}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
JOBS=${JOBS:-$(nproc)}
RANDOM_TILES=${RANDOM_TILES:-100000}
RANDOM_TILES_WGMMA_N=${RANDOM_TILES_WGMMA_N:-2000}
RANDOM_SEED=${RANDOM_SEED:-1}
CVT_BUDGET=${CVT_BUDGET:-120}
if [ -z "$BIN" ]; then
  if [ -z "${JSON_INCLUDE:-}" ]; then
    for d in /usr/include /usr/local/include third_party/include build-deps/include; do
      [ -f "$d/nlohmann/json.hpp" ] && { JSON_INCLUDE=$d; break; }
    done
  fi
  [ -n "${JSON_INCLUDE:-}" ] && [ -f "$JSON_INCLUDE/nlohmann/json.hpp" ] || {
    echo "crossval.sh: nlohmann/json.hpp not found: set JSON_INCLUDE to a folder holding nlohmann/json.hpp" >&2
    echo "  (it is header-only: copy /usr/include/nlohmann from a machine that has it into build-deps/include/)" >&2
    exit 2
  }
  # tcemu-gpu and cvt_check parse their command lines with CLI11 (header-only too), looked for
  # beside it.
  [ -f "$JSON_INCLUDE/CLI/CLI.hpp" ] || [ -f /usr/include/CLI/CLI.hpp ] || {
    echo "crossval.sh: CLI/CLI.hpp (CLI11) not found in $JSON_INCLUDE or /usr/include: copy /usr/include/CLI from a machine that has it there" >&2
    exit 2
  }
fi
# The committed golden sets (index.json describes them and is not one).
SETS=$(ls golden/sets/*.json | grep -v '/index\.json$')
if [ -n "$BIN" ]; then
  BUILD=$(cd "$BIN" && pwd)
elif [ -n "$BUILD_ONLY" ]; then
  mkdir -p "$BUILD_ONLY"
  BUILD=$(cd "$BUILD_ONLY" && pwd)
else
  BUILD=$(mktemp -d /tmp/tcemu-crossval.XXXXXX)
fi
INC="-Iemulator/include -Igolden/include -Itools/gpu -I${JSON_INCLUDE:-}"
# lim SECONDS [PERCENT]: SECONDS, cut to PERCENT (default 100) of what is left before
# DEADLINE - RESERVE (at least 5 s), so that the steps after this one keep their share.
lim() {
  local want=$1 left
  if [ -n "${DEADLINE:-}" ]; then
    left=$(( (DEADLINE - ${RESERVE:-0} - $(date +%s)) * ${2:-100} / 100 ))
    [ "$left" -lt "$want" ] && want=$left
    [ "$want" -lt 5 ] && want=5
  fi
  echo "$want"
}
LOG="$OUT/build.log"
: > "$LOG"

# Compiles the host sources (emulator, golden, tcemu-gpu host side) in parallel.
build_host() {
  local srcs=(emulator/src/*.cpp golden/src/*.cpp tools/gpu/case_runner.cpp tools/gpu/probe.cpp
              tools/gpu/instr_table.cpp tools/gpu/tcgen05_runner.cpp tools/gpu/tcemu_gpu_main.cpp "$@")
  mkdir -p "$BUILD/obj"
  printf '%s\n' "${srcs[@]}" | xargs -P "$JOBS" -I{} sh -c \
    'o='"$BUILD"'/obj/$(echo {} | tr / _).o; '"$CXX"' -std=c++20 -O2 '"$INC"' -c {} -o $o >>'"$LOG"' 2>&1 || { echo "FAILED {}" >>'"$LOG"'; exit 255; }'
}

if [ "$DRY" = 1 ]; then
  ARCH=${ARCH:-sm_90a}
  stamp "dry run (no GPU): host build with the stub backend, then the plan for $ARCH"
  if [ -z "$BIN" ]; then
    build_host tools/gpu/gpu_backend_stub.cpp || { tail -30 "$LOG"; exit 2; }
    "$CXX" "$BUILD"/obj/*.o -o "$BUILD/tcemu-gpu" -pthread >>"$LOG" 2>&1 || { tail -30 "$LOG"; exit 2; }
    stamp "built $BUILD/tcemu-gpu"
  fi
  "$BUILD/tcemu-gpu" info
  stamp "1. committed golden sets: what would run on $ARCH"
  "$BUILD/tcemu-gpu" list $SETS > "$OUT/plan_committed.tsv"
  total=$(wc -l < "$OUT/plan_committed.tsv")
  runs=$(grep -c "runs on.*$ARCH" "$OUT/plan_committed.tsv")
  echo "$runs of $total committed cases run on $ARCH; skipped (reasons, counted):"
  grep -v "runs on.*$ARCH" "$OUT/plan_committed.tsv" | cut -f3 | sed 's/runs on .*/runs on other archs only/' | sort | uniq -c | sort -rn
  stamp "2. random: $RANDOM_TILES tiles per instruction, instructions built for $ARCH:"
  "$BUILD/tcemu-gpu" list | awk -F'\t' '$2 !~ /^cvt\./' | grep -c "$ARCH"
  stamp "3. probes, run on the emulator for $ARCH (the inference must agree with the catalog)"
  "$BUILD/tcemu-gpu" probe --emulator "$ARCH" --json "$OUT/probes_emulator.json" > "$OUT/probes_emulator.txt"
  rc=$?
  tail -1 "$OUT/probes_emulator.txt"
  stamp "4. cvt_check: $("$BUILD/tcemu-gpu" list | awk -F'\t' '$2 ~ /^cvt\./' | grep -c "$ARCH") of $(grep -c '^  X(' tools/gpu/gen/cvt_variants.inc) cvt variants exist on $ARCH, budget $CVT_BUDGET s (needs the GPU; not run)"
  stamp "dry run done (plan in $OUT)"
  [ -n "$BIN$BUILD_ONLY" ] || rm -rf "$BUILD"
  exit $rc
fi

# Sets GPU_NAME, CC, ARCH, GEN and COMMIT_DIR from nvidia-smi; 77 when there is no usable GPU.
detect_gpu() {
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader > "$OUT/gpu.txt" 2>&1 && [ -s "$OUT/gpu.txt" ] ||
  { cat "$OUT/gpu.txt" 2>/dev/null; echo "no GPU (nvidia-smi)"; return 77; }
cat "$OUT/gpu.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv > "$OUT/clocks.txt" 2>&1
GPU_NAME=$(head -1 "$OUT/gpu.txt" | cut -d, -f1 | sed 's/^ *//;s/ *$//')
CC=$(head -1 "$OUT/gpu.txt" | cut -d, -f3 | tr -d ' ')
case "$CC" in
  9.0) ARCH=sm_90a; GEN=compute_90a ;;
  10.*) ARCH=sm_100a; GEN=compute_100a ;;
  12.*) ARCH=sm_120a; GEN=compute_120a ;;
  *) echo "compute capability $CC: tcemu-gpu is built for 9.0, 10.x, 12.x only"; return 77 ;;
esac
SLUG=$(echo "$GPU_NAME" | tr 'A-Z' 'a-z' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
case "$SLUG" in *h200*) SLUG=h200 ;; *h100*) SLUG=h100 ;; *b200*) SLUG=b200 ;; esac
COMMIT_DIR=${COMMIT_DIR:-golden/hw/$SLUG}
}

# Builds tcemu-gpu and cvt_check for ARCH into BUILD (CVT_BUILD=0 when cvt_check built).
build_gpu() {
stamp "build: host sources (g++ -j$JOBS), mma_device.cu, tcgen05_device.cu, cvt_device.cu and cvt_check.cu (nvcc, $ARCH) in parallel"
# The wgmma kernels (tools/gpu/gen/wgmma_part*.cu, sm_90a only) compile in parallel; other
# GPUs build mma_device.cu without them (TCEMU_GPU_NO_WGMMA). tcgen05_device.cu: the
# tcgen05.mma kernels have bodies on sm_100a only (empty elsewhere).
DEV_OBJS=("$BUILD/mma_device.o" "$BUILD/tcgen05_device.o")
WG_PIDS=()
NO_WG=-DTCEMU_GPU_NO_WGMMA
if [ "$ARCH" = sm_90a ]; then
  NO_WG=
  for part in tools/gpu/gen/wgmma_part*.cu; do
    o="$BUILD/$(basename "$part" .cu).o"
    DEV_OBJS+=("$o")
    ( "$NVCC" -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -Itools/gpu -c "$part" -o "$o" \
        >"$o.log" 2>&1 || { cat "$o.log"; exit 1; } ) &
    WG_PIDS+=($!)
  done
fi
( "$NVCC" -std=c++20 -O2 -gencode=arch=$GEN,code=${ARCH} $NO_WG -Itools/gpu -Iemulator/include -c tools/gpu/mma_device.cu \
    -o "$BUILD/mma_device.o" >"$BUILD/mma_device.log" 2>&1 &&
  "$NVCC" -std=c++20 -O2 -gencode=arch=$GEN,code=${ARCH} -Itools/gpu -c tools/gpu/tcgen05_device.cu \
    -o "$BUILD/tcgen05_device.o" >>"$BUILD/mma_device.log" 2>&1 ) &
DEV_PID=$!
( "$NVCC" -std=c++20 -O2 -gencode=arch=$GEN,code=${ARCH} -Itools/gpu -Iemulator/include -c tools/gpu/cvt_device.cu \
    -o "$BUILD/cvt_device.o" >"$BUILD/cvt_device.log" 2>&1 ) &
CVTDEV_PID=$!
CVT_BUILD=1
# cvt_check for the present GPU's target: it sweeps the cvt variants that exist there. Its
# command line is parsed by cvt_check_args.cpp (CLI11: g++, with INC's CLI11 folder).
( "$NVCC" -std=c++20 -O3 -gencode=arch=$GEN,code=$ARCH -Iemulator/include -Itools/gpu -c tools/gpu/cvt_check.cu \
    -o "$BUILD/cvt_check.o" >"$BUILD/cvt_check.log" 2>&1 &&
  "$CXX" -std=c++20 -O2 $INC -c tools/gpu/cvt_check_args.cpp -o "$BUILD/cvt_check_args.o" >>"$BUILD/cvt_check.log" 2>&1 ) &
CVT_PID=$!
build_host || { tail -30 "$LOG"; return 2; }
wait "$DEV_PID" || { cat "$BUILD/mma_device.log"; return 2; }
for p in "${WG_PIDS[@]}"; do wait "$p" || return 2; done
wait "$CVTDEV_PID" || { cat "$BUILD/cvt_device.log"; return 2; }
"$NVCC" -gencode=arch=$GEN,code=$ARCH "$BUILD"/obj/*.o "${DEV_OBJS[@]}" "$BUILD/cvt_device.o" -lpthread \
  -o "$BUILD/tcemu-gpu" >>"$LOG" 2>&1 || { tail -30 "$LOG"; return 2; }
wait "$CVT_PID" && "$NVCC" -gencode=arch=$GEN,code=$ARCH "$BUILD/cvt_check.o" "$BUILD/cvt_check_args.o" \
  $(ls "$BUILD"/obj/emulator_src_*.o) -o "$BUILD/cvt_check" >>"$LOG" 2>&1 && CVT_BUILD=0
[ "$CVT_BUILD" = 0 ] || cat "$BUILD/cvt_check.log"
stamp "build done (cvt_check rc=$CVT_BUILD)"
}

if [ -n "$BUILD_ONLY" ]; then
  detect_gpu || exit $?
  build_gpu 2>&1 | tee "$OUT/build_only.log"
  [ -x "$BUILD/tcemu-gpu" ] || exit 2
  exit 0
fi

run_all() {
stamp "crossval start $(date -u +%FT%TZ) in $(pwd)"
detect_gpu || return $?
if [ -n "$BIN" ]; then
  stamp "GPU $GPU_NAME ($ARCH); prebuilt tcemu-gpu and cvt_check in $BIN; output $OUT; measured sets to $COMMIT_DIR"
  CVT_BUILD=1
  [ -x "$BUILD/cvt_check" ] && CVT_BUILD=0
else
  "$NVCC" --version | tail -2
  stamp "GPU $GPU_NAME ($ARCH); output $OUT; measured sets to $COMMIT_DIR"
  build_gpu || return $?
fi
"$BUILD/tcemu-gpu" info
FAIL=0

stamp "1. committed golden sets"
timeout "$(lim 240 20)" "$BUILD/tcemu-gpu" run $SETS -o "$OUT/committed_measured.json" \
  --report "$OUT/committed.md" --report "$OUT/committed.json" > "$OUT/committed.txt" 2>&1
rc=$?; tail -1 "$OUT/committed.txt"; [ $rc = 0 ] || FAIL=1

stamp "2. random: $RANDOM_TILES tiles per instruction (wgmma: N = 8 and 256)"
RANDOM_OUT=()
[ "${KEEP_RANDOM:-0}" = 1 ] && RANDOM_OUT=(-o "$OUT/random_measured.json")
L=$(lim 300 40)
timeout "$L" "$BUILD/tcemu-gpu" random --tiles "$RANDOM_TILES" --seed "$RANDOM_SEED" --seconds $(( L * 4 / 5 )) --wgmma-n 8,256 "${RANDOM_OUT[@]}" --report "$OUT/random.json" \
  > "$OUT/random.txt" 2>&1
rc=$?; grep -v "^  ok" "$OUT/random.txt" | tail -20; [ $rc = 0 ] || FAIL=1
if [ "$ARCH" = sm_90a ]; then
  # The other 30 wgmma N of every type: the same datapath per D element, fewer tiles each.
  stamp "2b. random: $RANDOM_TILES_WGMMA_N tiles per wgmma instruction of the other N"
  L=$(lim 150 35)
  timeout "$L" "$BUILD/tcemu-gpu" random --tiles "$RANDOM_TILES_WGMMA_N" --seed "$RANDOM_SEED" --seconds $(( L * 4 / 5 )) --only wgmma --wgmma-n '!8,256' \
    --report "$OUT/random_wgmma_n.json" > "$OUT/random_wgmma_n.txt" 2>&1
  rc=$?; grep -v "^  ok" "$OUT/random_wgmma_n.txt" | tail -20; [ $rc = 0 ] || FAIL=1
fi

stamp "3. probes (wgmma: N = 8 and 256)"
timeout "$(lim 180 40)" "$BUILD/tcemu-gpu" probe --wgmma-n 8,256 --json "$OUT/probes.json" > "$OUT/probes.txt" 2>&1
rc=$?; grep -B3 DIFFERS "$OUT/probes.txt" | head -40; tail -1 "$OUT/probes.txt"

stamp "4. cvt variants (budget $CVT_BUDGET s)"
if [ "$CVT_BUILD" = 0 ]; then
  mkdir -p "$OUT/cvt"
  # The sweeps' budget, cut to fit the time left (cvt_check's exhaustive part and start-up
  # take about 60 s beyond it).
  CVT_LIMIT=$(lim $(( CVT_BUDGET + 120 )))
  [ $(( CVT_LIMIT - 60 )) -lt "$CVT_BUDGET" ] && CVT_BUDGET=$(( CVT_LIMIT > 80 ? CVT_LIMIT - 60 : 20 ))
  stamp "cvt_check: sweep budget $CVT_BUDGET s, limit $CVT_LIMIT s"
  timeout "$CVT_LIMIT" "$BUILD/cvt_check" --out "$OUT/cvt" --budget "$CVT_BUDGET" > "$OUT/cvt_check.txt" 2>&1
  rc=$?; tail -5 "$OUT/cvt_check.txt"; [ $rc = 0 ] || { echo "cvt_check: exit $rc"; FAIL=1; }
  grep -c " ok " "$OUT/cvt/cvt_report.txt" 2>/dev/null || { echo "cvt_check wrote no report"; FAIL=1; }
  grep -q "MISMATCH\|emulator-error\|cuda-error" "$OUT/cvt/cvt_report.txt" 2>/dev/null && FAIL=1
else
  echo "cvt_check did not build (see above and $LOG)"
  FAIL=1
fi

stamp "report"
{
  echo "# Cross-validation on $GPU_NAME ($ARCH)"
  echo
  echo "$(cat "$OUT/gpu.txt"); $("$NVCC" --version 2>/dev/null | tail -1); $(date -u +%FT%TZ); tools/gpu/crossval.sh"
  echo; echo "Clocks at the start: $(tail -1 "$OUT/clocks.txt" 2>/dev/null)"
  echo
  echo "## 1. Committed golden sets"; echo; sed 1,2d "$OUT/committed.md"; echo
  echo "## 2. Random cases ($RANDOM_TILES tiles per instruction, seed $RANDOM_SEED)"; echo
  echo "\`tcemu-gpu random --tiles $RANDOM_TILES --seed $RANDOM_SEED --wgmma-n 8,256\` (tcemu-gpu of the same commit) makes the same cases again."; echo; echo '```'; tail -1 "$OUT/random.txt"
  grep -v "^  ok" "$OUT/random.txt" | grep "DIFF\|ERROR" | head -100; echo '```'; echo
  if [ -f "$OUT/random_wgmma_n.txt" ]; then
    echo "### wgmma, the other N ($RANDOM_TILES_WGMMA_N tiles each, seed $RANDOM_SEED)"; echo; echo '```'; tail -1 "$OUT/random_wgmma_n.txt"
    grep -v "^  ok" "$OUT/random_wgmma_n.txt" | grep "DIFF\|ERROR" | head -100; echo '```'; echo
  fi
  echo "## 3. Probes (measured vs catalog)"; echo; echo '```'; cat "$OUT/probes.txt"; echo '```'; echo
  echo "## 4. PTX cvt"; echo; echo '```'; head -120 "$OUT/cvt/cvt_report.txt" 2>/dev/null || echo "not run"; echo '```'
} > "$OUT/crossval.md"
{
  printf '{"gpu": "%s", "arch": "%s", "date": "%s",\n "committed": ' "$GPU_NAME" "$ARCH" "$(date -u +%FT%TZ)"
  cat "$OUT/committed.json" 2>/dev/null || printf 'null'
  printf ',\n "random": '; cat "$OUT/random.json" 2>/dev/null || printf 'null'
  printf ',\n "random_wgmma_other_n": '; cat "$OUT/random_wgmma_n.json" 2>/dev/null || printf 'null'
  printf ',\n "probes": '; cat "$OUT/probes.json" 2>/dev/null || printf 'null'
  printf ',\n "cvt_report": "cvt/cvt_report.txt"}\n'
} > "$OUT/crossval.json"
mkdir -p "$COMMIT_DIR"
cp "$OUT/committed_measured.json" "$OUT/crossval.md" "$OUT/crossval.json" "$OUT/probes.json" "$OUT/probes.txt" "$COMMIT_DIR/" 2>/dev/null
cp "$OUT/cvt/cvt_report.txt" "$OUT/cvt/cvt_directed.txt" "$COMMIT_DIR/" 2>/dev/null
ls "$OUT"/committed_measured.*.npy >/dev/null 2>&1 && cp "$OUT"/committed_measured.*.npy "$COMMIT_DIR/"
stamp "crossval end: report $OUT/crossval.md; measured sets in $COMMIT_DIR; failures: $FAIL"
return $FAIL
}

run_all 2>&1 | tee "$OUT/crossval.log"
rc=${PIPESTATUS[0]}
[ -n "$BIN$BUILD_ONLY" ] || rm -rf "$BUILD"
exit "$rc"
