#!/usr/bin/env bash
# Builds and runs the hardware checks on a machine with a GPU, from the repository root:
#   tools/gpu/device_check.sh OUTDIR
# mma_record is built for sm_90a (H100/H200); cvt_check for the present GPU's target (sm_90a,
# sm_100a or sm_120a, from nvidia-smi's compute capability; sm_90a when it cannot tell).
#
# Writes into OUTDIR (7 files): device_check.log (everything printed), nvidia-smi.txt,
# build.log, cvt_report.txt, cvt_directed.txt, mma_summary.txt, mma_record.tar.gz.
# Needs only the CUDA toolkit (nvcc), a C++20 g++ and the header-only CLI11 (CLI/CLI.hpp: the
# two programs' command lines, parsed in cvt_check_args.cpp and mma_record_args.cpp); no CMake.
# Each part runs even if another fails. Time: about 40 s build, 30 s mma_record, then
# cvt_check for CVT_BUDGET seconds (default 150) plus start-up: about 4 minutes in all.
#
# Environment: CVT_BUDGET (seconds for cvt_check's sweeps), CVT_ARGS (extra cvt_check
# arguments, e.g. --full), MMA_ARGS (extra mma_record arguments; an option given twice counts
# once, the last: MMA_ARGS="--jobs 8" overrides --jobs 4), NVCC, CXX, JSON_INCLUDE (a folder
# holding CLI/CLI.hpp, as for crossval.sh; default: the first of /usr/include,
# /usr/local/include, third_party/include, build-deps/include that has it).
set -u
OUTDIR=${1:?usage: tools/gpu/device_check.sh OUTDIR}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
T0=$(date +%s)
stamp() { echo "=== [$(( $(date +%s) - T0 )) s] $*"; }

run_all() {

stamp "device_check start $(date -u +%FT%TZ) in $(pwd)"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CXX=${CXX:-g++}
{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,memory.total --format=csv; } \
  2>&1 | tee "$OUTDIR/nvidia-smi.txt"
"$NVCC" --version
"$CXX" --version | head -1
nproc
set -x

BUILD=$(mktemp -d /tmp/tcemu-gpu.XXXXXX)
GEN="-gencode=arch=compute_90a,code=sm_90a"
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')
case "$CC" in
  10.*) CVT_GEN="-gencode=arch=compute_100a,code=sm_100a" ;;
  12.*) CVT_GEN="-gencode=arch=compute_120a,code=sm_120a" ;;
  *) CVT_GEN=$GEN ;;
esac
INC="-Iemulator/include -Itools/gpu"
BUILDLOG="$OUTDIR/build.log"
: > "$BUILDLOG"
# CLI11's folder, for cvt_check_args.cpp and mma_record_args.cpp (g++); without it neither
# program builds.
CLI_INC=
for d in ${JSON_INCLUDE:-} /usr/include /usr/local/include third_party/include build-deps/include; do
  [ -f "$d/CLI/CLI.hpp" ] && { CLI_INC=$d; break; }
done
[ -n "$CLI_INC" ] || echo "CLI/CLI.hpp (CLI11) not found: set JSON_INCLUDE to a folder holding it (cvt_check and mma_record need it)" | tee -a "$BUILDLOG"
CLI_I=${CLI_INC:+-I$CLI_INC}

stamp "build: emulator sources (g++), cvt_check and mma_record (nvcc) in parallel"
mkdir -p "$BUILD/emu"
EMU_OK=1
pids=()
for f in emulator/src/*.cpp; do
  [ -e "$f" ] || continue
  ( "$CXX" -std=c++20 -O2 -Iemulator/include -c "$f" -o "$BUILD/emu/$(basename "$f" .cpp).o" >"$BUILD/emu/$(basename "$f").log" 2>&1 ) &
  pids+=($!)
done
( "$NVCC" -std=c++20 -O3 $CVT_GEN $INC -c tools/gpu/cvt_check.cu -o "$BUILD/cvt_check.o" >"$BUILD/cvt_check.log" 2>&1 &&
  "$CXX" -std=c++20 -O2 $INC $CLI_I -c tools/gpu/cvt_check_args.cpp -o "$BUILD/cvt_check_args.o" >>"$BUILD/cvt_check.log" 2>&1 ) &
CVT_PID=$!
( "$NVCC" -std=c++20 -O2 $GEN $INC -c tools/gpu/mma_record.cu -o "$BUILD/mma_record.o" >"$BUILD/mma_record.log" 2>&1 &&
  "$CXX" -std=c++20 -O2 $INC $CLI_I -c tools/gpu/mma_record_args.cpp -o "$BUILD/mma_record_args.o" >>"$BUILD/mma_record.log" 2>&1 &&
  "$NVCC" $GEN "$BUILD/mma_record.o" "$BUILD/mma_record_args.o" -o "$BUILD/mma_record" >>"$BUILD/mma_record.log" 2>&1 ) &
MMA_PID=$!
for p in "${pids[@]}"; do wait "$p" || EMU_OK=0; done
cat "$BUILD"/emu/*.log >> "$BUILDLOG" 2>/dev/null
wait "$CVT_PID"; CVT_BUILD=$?
wait "$MMA_PID"; MMA_BUILD=$?
{ echo "--- cvt_check.cu (rc $CVT_BUILD)"; cat "$BUILD/cvt_check.log"; echo "--- mma_record.cu (rc $MMA_BUILD)"; cat "$BUILD/mma_record.log"; } >> "$BUILDLOG"
# Link with every emulator object that compiled; if that does not link (a missing file),
# fall back to the stub so that the hardware side is still recorded.
if [ "$CVT_BUILD" = 0 ]; then
  if ! "$NVCC" $CVT_GEN "$BUILD/cvt_check.o" "$BUILD/cvt_check_args.o" "$BUILD"/emu/*.o -o "$BUILD/cvt_check" >>"$BUILDLOG" 2>&1; then
    echo "cvt_check does not link with emulator/src (emulator_ok=$EMU_OK): linking tools/gpu/emulator_stub.cpp, hardware outputs only" | tee -a "$BUILDLOG"
    "$CXX" -std=c++20 -O2 -Iemulator/include -c tools/gpu/emulator_stub.cpp -o "$BUILD/stub.o" >>"$BUILDLOG" 2>&1
    "$NVCC" $CVT_GEN "$BUILD/cvt_check.o" "$BUILD/cvt_check_args.o" "$BUILD/stub.o" -o "$BUILD/cvt_check" >>"$BUILDLOG" 2>&1 || CVT_BUILD=1
  fi
fi
stamp "build done: cvt_check rc=$CVT_BUILD mma_record rc=$MMA_BUILD emulator_ok=$EMU_OK"
tail -n 30 "$BUILDLOG"

if [ "$MMA_BUILD" = 0 ]; then
  stamp "mma_record"
  mkdir -p "$BUILD/mma_out"
  timeout 240 "$BUILD/mma_record" --out "$BUILD/mma_out" --jobs 4 ${MMA_ARGS:-}
  echo "mma_record rc=$?"
  cp "$BUILD/mma_out/mma_summary.txt" "$OUTDIR/" 2>/dev/null
  tar czf "$OUTDIR/mma_record.tar.gz" -C "$BUILD/mma_out" mma
  ls -la "$OUTDIR/mma_record.tar.gz"
  cat "$OUTDIR/mma_summary.txt" 2>/dev/null | cut -c1-220
else
  stamp "mma_record did not build (see build.log)"
fi

if [ "$CVT_BUILD" = 0 ]; then
  stamp "cvt_check (budget ${CVT_BUDGET:-150} s)"
  timeout $(( ${CVT_BUDGET:-150} + 200 )) "$BUILD/cvt_check" --out "$OUTDIR" --budget "${CVT_BUDGET:-150}" ${CVT_ARGS:-}
  echo "cvt_check rc=$?"
  head -n 120 "$OUTDIR/cvt_report.txt" 2>/dev/null | cut -c1-200
else
  stamp "cvt_check did not build (see build.log)"
fi

set +x
stamp "device_check end; files in $OUTDIR:"
ls -la "$OUTDIR"
}

# A pipeline, so that the log is complete when the script returns.
run_all 2>&1 | tee "$OUTDIR/device_check.log"
