#!/bin/sh
# The checks of the emulator on a CUDA GPU that need a GPU (issue 17), in one script for a
# device session (docs/gpu-emulation-internals.md, "Testing and validation"). It builds only
# tcemu, tcemu_cuda and the driver tcemu-emu-check (no Boost, JSON library or GoogleTest needed:
# the device machine has none), then runs, each under its own time limit:
#   1. every committed golden MMA case through mma_cuda, bit for bit against its expected D
#      (read from a golden pack made beforehand on a machine with the full build);
#   2. random GEMMs of every catalog family and option set (>= 1e8 dot products at size 320)
#      against mma() on all CPU cores, bit for bit;
#   3. the four GEMMs of issue 17 (sm_100a kind::mxf4nvf4, kind::mxf8f6f4 e4m3 x e2m1, sm_90a
#      wgmma e4m3 and f16) at 4096^3 on the GPU and on every CPU core, compared and timed;
#   4. the same four at 8192^3 on the GPU, timed.
# Results: one line per finding and per timing in $OUT/emu_check.txt (stdout too).
#
# How the lead runs it (at most about 9 minutes on the H200 machine, build included: each step
# has its own limit, 45 + 120 + 120 + 150 s):
#   here, once (the release build has tcemu-golden-pack):
#     cmake --build build/release --target tcemu_golden_pack
#     mkdir -p emu_pack && echo /emu_pack/ >> .git/info/exclude
#     build/release/tools/emu_check/tcemu-golden-pack golden/sets emu_pack/golden.pack
#   then the device tool: run(command="sh tools/gpu/emu_check.sh emu_pack/golden.pack",
#     carry=["emu_pack"], timeout_s=590)
# Without a GPU, `sh tools/gpu/emu_check.sh --host PACK` builds the same way and runs every
# step with the CUDA backend's computation on the host at small sizes (a dry run of the driver).
set -u
host=""
if [ "${1:-}" = "--host" ]; then
  host="--host"
  shift
fi
pack=${1:?usage: emu_check.sh [--host] GOLDEN_PACK}
out=${OUT:-build/emu-check/out}
mkdir -p "$out"
log="$out/emu_check.txt"
: > "$log"
say() { echo "$*" | tee -a "$log"; }
jobs=$(nproc 2>/dev/null || echo 4)
# The GPU's architecture only, on the device: the build is part of the session's time.
archs=${TCEMU_CUDA_EMU_ARCHS:-90}
say "emu_check: $(date -u +%FT%TZ) $(uname -m) jobs=$jobs archs=$archs $host"
cmake -S . -B build/emu-check -DCMAKE_BUILD_TYPE=Release -DTCEMU_BUILD_TESTS=OFF -DTCEMU_BUILD_TOOLS=OFF \
  -DTCEMU_BUILD_BENCH=OFF -DTCEMU_BUILD_PYTHON=OFF -DTCEMU_ENABLE_CUDA=ON "-DTCEMU_CUDA_EMU_ARCHS=$archs" \
  > "$out/build.log" 2>&1 &&
  cmake --build build/emu-check -j "$jobs" --target tcemu_emu_check >> "$out/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  say "build failed (rc $rc); the end of its log:"
  tail -40 "$out/build.log" | tee -a "$log"
  exit 1
fi
say "built in build/emu-check"
check=build/emu-check/tools/emu_check/tcemu-emu-check
status=0
step() {  # step LIMIT_S ARGS...: one check under a time limit; its lines and its outcome into the log
  limit=$1
  shift
  timeout "$limit" "$check" $host "$@" > "$out/step.txt" 2>&1
  rc=$?
  tee -a "$log" < "$out/step.txt"
  [ $rc -eq 124 ] && say "TIMEOUT: '$*' ran past ${limit} s"
  [ $rc -ne 0 ] && status=1 && say "FAILED: '$*' exit $rc"
  return 0
}
if [ -n "$host" ]; then
  step 120 golden "$pack"
  step 120 random 12
  step 120 time 0 128
else
  step 45 golden "$pack"
  step 120 random 320
  step 120 time 0 4096
  step 150 time 8192 0
fi
rm -f "$out/step.txt"
say "emu_check: done, status $status (1: a difference, an error, a timeout or no GPU; see the lines above)"
exit $status
