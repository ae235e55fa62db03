#!/usr/bin/env bash
# Installs what is needed, builds everything and runs the whole test suite (CI runs this).
# Tests labelled `long` are left out; run them with: ctest --preset release -L long
# Then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (preset
# debug-asan, host code only), the aarch64 cross build under qemu-user (scripts/test-aarch64.sh),
# a fuzz smoke (every libFuzzer harness of fuzz/ for 15 s on its ASan/UBSan build) and the demo.
# TCEMU_SKIP_ASAN=1, TCEMU_SKIP_AARCH64=1 and TCEMU_SKIP_FUZZ=1 leave those stages out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ccache (installed above) makes a rebuild of unchanged sources a cache hit; a cold cache costs
# a few percent.
if command -v ccache > /dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
cmake --preset release
cmake --build --preset release -j"$(nproc)"
ctest --preset release -LE long -j"$(nproc)"
tests/consumer/run.sh build/release
# The Python package's tests, in the environment install-deps.sh made from requirements.txt
# (Debian's interpreter, the one the module is built for, with torch, torchao, ml_dtypes,
# gfloat, dask ...: scripts/py). They use the CLI built above. install-deps.sh installed what
# the tests need, so a missing package is a failure, not a skip.
[ -d build/release/python/tcemu ] || { echo "test.sh: the Python package was not built (see cmake's output)" >&2; exit 1; }
scripts/py -m pytest -q python/tests

if [ "${TCEMU_SKIP_ASAN:-0}" != 1 ]; then
  # Sanitizers. The CUDA backend is left out (nvcc and the sanitizers do not mix; its host
  # logic is built and tested either way). Left out of the run, besides `long` and `browser`:
  # the sweeps that are many small unit tests' worth of the same code run millions of times
  # (exhaustive and stratified conversions, 100,000-dot-product differentials, every row of
  # the hardware sets, every element of the committed golden set and of the H200 records,
  # the wide-format decimal sweeps) and the documentation commands (they run the CLI, which
  # the CLI unit tests already run under the sanitizers). ASan/UBSan make them 10-30 times
  # slower; the release run above has just run all of them. Measured 2026-12-01 on a 2-core
  # machine shared with six other builds (load ~13): the remaining 284 tests took 6.6 min
  # (-j2, 4.2 min CPU); the debug-asan build itself 71 min there (a full build, cold ccache,
  # about a sixth of the machine), which is about one more release build on a CI machine.
  asan_skip='Exhaustive\.|Stratified\.|Differential\.|SampledWideFormats|EveryCodeOfSmallFormats'
  asan_skip+='|HwVectors\.|HwVectorsDiscriminates|H200RecordInSample|H200Fp8LoweringInSample'
  asan_skip+='|CommittedFile\.|GoldenCommittedSet\.Regression|docs_commands'
  cmake --preset debug-asan -DTCEMU_ENABLE_CUDA=OFF
  cmake --build --preset debug-asan -j"$(nproc)"
  ctest --preset debug-asan -LE 'long|browser' -E "$asan_skip" -j"$(nproc)"
fi

if [ "${TCEMU_SKIP_AARCH64:-0}" != 1 ]; then
  scripts/test-aarch64.sh
fi

if [ "${TCEMU_SKIP_FUZZ:-0}" != 1 ]; then
  # A parser regression that crashes, leaks or allocates without bound on any input the
  # harness reaches in 15 s (the committed seeds first) does not land.
  scripts/fuzz.sh --seconds 15
fi

scripts/demo.sh > /dev/null
