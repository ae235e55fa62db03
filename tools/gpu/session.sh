#!/usr/bin/env bash
# Every hardware check of the GPU work in one call on a GPU machine (docs/gpu.md, "A device
# session"), from the repository root:
#
#   bash tools/gpu/session.sh [--dry-run] PACK        PACK: from tools/gpu/prepare_session.sh
#
# Runs the programs of PACK (built elsewhere; if they cannot run here, it builds them first),
# each step under a time limit cut to fit SESSION_SECONDS (default 500) in all, in this order:
#   1. the emulator on the GPU (docs/gpu-emulation-internals.md): every committed golden MMA
#      case, random GEMMs of every family and option set against the CPU, then the four timed
#      GEMMs at 4096^3 and at 8192^3 on the GPU and on every CPU core, compared bit for bit
#      (before anything else loads the CPU);
#   2. the real instructions (tools/gpu/crossval.sh --bin): the committed golden sets, random
#      tiles (>= 1e5 dot products per instruction), the probes, every cvt variant;
#   3. the GoogleTest device tests (GpuEmuDevice, CliDevice) and the Python device tests
#      (python/tests/test_device.py, test_dlpack_device.py: torch, CuPy and JAX arrays;
#      test_torch_main_grad.py: a tcemu.torch model on CUDA tensors against the CPU; the
#      module is built here with this machine's Python, pybind11 and CMake, during step 2);
#   4. the CPU thread scaling at 1024^3 (bench_scale, 1, 4 and 16 threads).
# Results: $OUT/session.txt (one line per step: status, seconds, the key numbers) and
# $OUT/session-results.tar.gz (every step's whole output, crossval's report and measured sets).
# $OUT is the device tool's output folder; elsewhere it defaults to build/session-out.
#
# --dry-run: on a machine without a GPU, runs every step that can run there (the emulator
# checks with --host at small sizes, crossval.sh --dry-run, the GPU tests, which skip) to
# check the pack and the script.
#
# Environment: SESSION_SECONDS, RANDOM_TILES (crossval, default 1000: about 1.3e5 dot products
# per instruction), RANDOM_TILES_WGMMA_N (default 800), CVT_BUDGET (default 60), SKIP (steps to
# leave out, e.g. "python bench"), DRY_PYTHON=1 (--dry-run builds and tests the module too),
# PYTHON (the interpreter for the module and its tests; default python3).
set -u
DRY=0
if [ "${1:-}" = "--dry-run" ]; then DRY=1; shift; fi
PACK=${1:?usage: tools/gpu/session.sh [--dry-run] PACK (from tools/gpu/prepare_session.sh)}
[ -d tools/gpu ] && [ -d golden/sets ] || { echo "session.sh: run it from the repository root" >&2; exit 2; }
[ -f "$PACK" ] || { echo "session.sh: no pack $PACK (tools/gpu/prepare_session.sh makes it)" >&2; exit 2; }
T0=$(date +%s)
TOTAL=${SESSION_SECONDS:-500}
export DEADLINE=$(( T0 + TOTAL ))
OUT=${OUT:-build/session-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
R=$(mktemp -d /tmp/tcemu-session.XXXXXX)   # every step's output, packed at the end
W=$(mktemp -d /tmp/tcemu-pack.XXXXXX)      # the unpacked PACK
SUMMARY="$OUT/session.txt"
: > "$SUMMARY"
JOBS=$(nproc 2>/dev/null || echo 4)
SKIP=" ${SKIP:-} "
say() { echo "$*" | tee -a "$SUMMARY"; }
now() { echo $(( $(date +%s) - T0 )); }
# pct P: P percent of the session's budget (the steps' reserves scale with SESSION_SECONDS).
pct() { echo $(( TOTAL * $1 / 100 )); }
# limit SECONDS RESERVE: SECONDS cut so that RESERVE seconds are left before the deadline.
limit() {
  local left=$(( DEADLINE - $2 - $(date +%s) ))
  [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}
# step NAME SECONDS RESERVE CMD...: CMD under its limit, output into R/NAME.txt and here; one
# summary line with its status. A step with under 10 s left is not started.
step() {
  local name=$1 want=$2 reserve=$3 lim rc t
  shift 3
  case "$SKIP" in *" $name "*) say "$name: skipped (SKIP)"; return 0 ;; esac
  lim=$(limit "$want" "$reserve")
  if [ "$lim" -lt 10 ]; then say "$name: not run: no time left ($(now) s of $TOTAL)"; return 0; fi
  echo "=== [$(now) s] $name (limit $lim s): $*"
  t=$(date +%s)
  timeout "$lim" "$@" > "$R/$name.txt" 2>&1
  rc=$?
  tail -25 "$R/$name.txt"
  local st=ok
  [ $rc -ne 0 ] && st="FAILED (exit $rc)"
  [ $rc -eq 124 ] && st="TIMEOUT after $lim s"
  say "$name: $st in $(( $(date +%s) - t )) s"
  return 0
}

finish() {
  say "session: done in $(now) s"
  cp "$SUMMARY" "$R/session.txt"
  tar czf "$OUT/session-results.tar.gz" -C "$R" . 2>/dev/null
  rm -rf "$R" "$W"
}

tar xzf "$PACK" -C "$W" || { say "session: cannot unpack $PACK"; finish; exit 2; }
say "session: $(date -u +%FT%TZ), pack: $(head -1 "$W/manifest.txt"), $JOBS CPUs, budget $TOTAL s, dry-run $DRY"
{
  cat "$W/manifest.txt"
  uname -a
  grep -m1 'model name' /proc/cpuinfo
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,memory.total,power.limit --format=csv
  command -v nvcc && nvcc --version
  command -v python3 && python3 --version
} > "$R/provenance.txt" 2>&1
grep -A1 '^name, driver' "$R/provenance.txt" | tail -1 | sed 's/^/gpu: /' | tee -a "$SUMMARY"

# The GPU's architecture for what is built here (the CUDA emulator's kernels): 90 for sm_90.
EMU_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
case "$EMU_ARCH" in [0-9][0-9]|[0-9][0-9][0-9]) ;; *) EMU_ARCH=90 ;; esac

# The pack's programs, or programs built here when those cannot run on this machine: a
# program that starts exits 0, or 77 where there is no usable GPU; one the dynamic loader
# refuses exits 127 with "error while loading shared libraries" or a missing GLIBC version.
B=$W/bin
export LD_LIBRARY_PATH="$W/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
starts() {
  local rc
  "$@" >> "$R/smoke.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ]
}
runs() {
  : > "$R/smoke.txt"
  starts "$B/tcemu" info --devices && starts "$B/tcemu-gpu" info && starts "$B/tcemu-emu-check" status
}
if ! runs; then
  export LD_LIBRARY_PATH="$W/lib:$W/lib-std${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  runs || {
    say "session: the pack's programs do not run here ($(grep -m1 -i 'error\|not found' "$R/smoke.txt")); building them"
    mkdir -p "$W/built"
    # The pack's headers (nlohmann/json, CLI11): the GPU machine may have neither.
    step build-crossval 240 60 env JSON_INCLUDE="$W/json/include" tools/gpu/crossval.sh --build-only "$W/built" \
      --out "$R/build-crossval"
    step build-emu 240 60 sh -c "cmake -S . -B $W/b -DCMAKE_BUILD_TYPE=Release -DTCEMU_BUILD_TESTS=OFF \
      -DTCEMU_BUILD_TOOLS=OFF -DTCEMU_BUILD_BENCH=OFF -DTCEMU_BUILD_PYTHON=OFF -DTCEMU_ENABLE_CUDA=ON \
      -DTCEMU_CUDA_EMU_ARCHS=$EMU_ARCH -DTCEMU_WERROR=OFF && cmake --build $W/b -j $JOBS --target tcemu_emu_check &&
      cp $W/b/tools/emu_check/tcemu-emu-check $W/built/"
    # What was built replaces the pack's program; the others (tests, tcemu, bench_scale) stay.
    for f in tcemu-gpu cvt_check tcemu-emu-check; do
      [ -x "$W/built/$f" ] && cp -f "$W/built/$f" "$B/$f"
    done
    runs
  }
fi
cat "$R/smoke.txt"
say "devices: $(grep -m1 '^cuda:0' "$R/smoke.txt" 2>/dev/null || echo 'cuda:0 unknown')"
EMU=$B/tcemu-emu-check

# 1. The emulator on the GPU: golden set, random GEMMs against the CPU, the timed GEMMs at 4096^3.
if [ "$DRY" = 1 ]; then
  step emu-golden 60 0 "$EMU" --host golden "$W/golden.pack"
  step emu-random 60 0 "$EMU" --host random 8
  step emu-time4096 60 0 "$EMU" --host time 0 64
else
  step emu-golden 60 "$(pct 80)" "$EMU" golden "$W/golden.pack"
  step emu-random 120 "$(pct 66)" "$EMU" random 320
  step emu-time4096 90 "$(pct 58)" "$EMU" time 0 4096
fi
grep -h "cases differ\|^random:\|^time " "$R"/emu-*.txt 2>/dev/null >> "$SUMMARY"

# 1b. The timed GEMMs at 8192^3 on the GPU and the CPU.
if [ "$DRY" = 1 ]; then
  step emu-time8192 60 0 "$EMU" --host time 0 128
else
  step emu-time8192 150 "$(pct 44)" "$EMU" time 0 8192
fi
grep -h "^time " "$R/emu-time8192.txt" 2>/dev/null >> "$SUMMARY"

# The Python module, built with this machine's Python while step 2 runs on the GPU.
PYB=$W/pybuild
# PY: the interpreter (PYTHON, default python3: on the GPU machine the one with PyTorch and JAX).
PY=${PYTHON:-$(command -v python3)}
py_build() {
  local pyb=()
  # pybind11's CMake package: the Python package's, else one CMake finds by itself.
  d=$("$PY" -m pybind11 --cmakedir 2>/dev/null) && pyb=("-Dpybind11_DIR=$d")
  cmake -S . -B "$PYB" -DCMAKE_BUILD_TYPE=Release -DTCEMU_BUILD_TESTS=OFF -DTCEMU_BUILD_TOOLS=OFF \
    -DTCEMU_BUILD_BENCH=OFF -DTCEMU_ENABLE_CUDA=ON -DTCEMU_CUDA_EMU_ARCHS=$EMU_ARCH -DTCEMU_WERROR=OFF \
    "-DPython3_EXECUTABLE=$PY" "${pyb[@]}" "-Dnlohmann_json_DIR=$W/json/share/cmake/nlohmann_json" &&
    cmake --build "$PYB" -j "$JOBS" --target tcemu_python
}
PY_PID=
case "$SKIP" in
  *" python "*) ;;
  *) if [ "$DRY" = 0 ] || [ "${DRY_PYTHON:-0}" = 1 ]; then
       ( timeout "$(limit 300 "$(pct 12)")" bash -c "$(declare -f py_build); PY=$PY PYB=$PYB W=$W JOBS=$JOBS EMU_ARCH=$EMU_ARCH py_build" \
           > "$R/python-build.txt" 2>&1; echo $? > "$R/python-build.rc" ) &
       PY_PID=$!
     fi ;;
esac

# 2. The real instructions: crossval.sh with the pack's tcemu-gpu and cvt_check.
export RANDOM_TILES=${RANDOM_TILES:-1000} RANDOM_TILES_WGMMA_N=${RANDOM_TILES_WGMMA_N:-800} CVT_BUDGET=${CVT_BUDGET:-60}
if [ "$DRY" = 1 ]; then
  step crossval 120 0 tools/gpu/crossval.sh --dry-run --bin "$B" --out "$R/crossval"
else
  # RESERVE: the time crossval leaves for steps 3 and 4.
  step crossval 330 "$(pct 20)" env RESERVE="$(pct 20)" JOBS="$JOBS" tools/gpu/crossval.sh --bin "$B" --out "$R/crossval" \
    --commit-dir "$R/crossval/commit"
fi
grep -h "crossval end\|cases.*match\|DIFF\|MISMATCH" "$R/crossval.txt" 2>/dev/null | head -20 >> "$SUMMARY"

# 3. The device tests (the CLI test runs the pack's command line, TCEMU_CLI).
step gtest-gpu-emu 60 "$(pct 10)" "$B/gpu_emu_device_test" --gtest_brief=1
step gtest-cli-device 60 "$(pct 8)" env TCEMU_CLI="$B/tcemu" "$B/cli_device_test" --gtest_brief=1
if [ -n "$PY_PID" ]; then
  wait "$PY_PID"
  say "python-build: exit $(cat "$R/python-build.rc" 2>/dev/null || echo '?')"
  tail -5 "$R/python-build.txt"
  if [ "$(cat "$R/python-build.rc" 2>/dev/null)" = 0 ]; then
    step python-device 90 "$(pct 4)" env PYTHONPATH="$PYB/python" TCEMU_CLI="$B/tcemu" XLA_PYTHON_CLIENT_PREALLOCATE=false \
      "$PY" -m pytest -q -p no:cacheprovider -rs python/tests/test_device.py python/tests/test_dlpack_device.py python/tests/test_torch_main_grad.py
    tail -3 "$R/python-device.txt" >> "$SUMMARY"
  fi
fi

# 4. CPU thread scaling (docs/performance.md): 1, 4 and 16 threads at 1024^3.
BENCH_FILTER='Threads1024/.*/(1|4|16)/'
BENCH_REPS=3
[ "$DRY" = 1 ] && BENCH_FILTER='Threads1024/sm90a_wgmma_e4m3/1/' && BENCH_REPS=1
step bench 60 "$(pct 1)" env OMP_WAIT_POLICY=passive "$B/bench_scale" "--benchmark_filter=$BENCH_FILTER" \
  "--benchmark_repetitions=$BENCH_REPS" --benchmark_report_aggregates_only=true
grep "_median" "$R/bench.txt" 2>/dev/null >> "$SUMMARY"

cp -r "$R/crossval/commit" "$R/commit-golden-hw" 2>/dev/null
finish
grep -q "FAILED\|TIMEOUT" "$SUMMARY" && exit 1
exit 0
