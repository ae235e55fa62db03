#!/usr/bin/env bash
# The aarch64 stage of CI (scripts/test.sh runs it; TCEMU_SKIP_AARCH64=1 leaves it out):
# cross-compiles tcemu for aarch64 Linux (Grace hosts, DGX Spark) with Debian's
# g++-aarch64-linux-gnu and the multiarch :arm64 libraries (cmake/aarch64-linux-gnu.cmake;
# scripts/install-deps.sh installs them), the release preset's flags, in build/aarch64, and runs
# under qemu-user a subset of the unit tests of emulator/, reference/ and golden/ and the
# consumer build (tests/consumer/run.sh). qemu gives bits, not speed.
#
# The subset (TESTS below) is chosen to fit about 10 minutes on 2 cores from a cold ccache:
# the conversions' kernel builds against the scalar core, the whole-matrix MMA kernels against
# the generic loop, the datapath primitives and directed cases, the hardware-measured dot
# products (tests/data/hw-vectors), the exact reference, the formats, the .npy reader, the golden
# generator, comparer and the committed golden set, the quantization recipes against their
# published and upstream cases. Left out: the exhaustive and stratified conversion sweeps and the
# differential sweeps (the same code the cases above run, millions of times: hours under qemu),
# the thread-count tests (convert_threaded_run_test, *_threads_test, datapath_mma_parallel_test:
# threads hang under qemu-user, see below; the code is the same as on x86, where they run), the
# tests that run the tcemu command line (tests/cli, the *_cli_test binaries, docs_commands: the
# CLI is not built here), the Python package, the CUDA backend and the benchmarks.
#   scripts/test-aarch64.sh [GTEST_FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/aarch64
toolchain="$PWD/cmake/aarch64-linux-gnu.cmake"
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" > /dev/null || { echo "test-aarch64: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
if command -v ccache > /dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
TESTS=(formats_table_test formats_s32_test
       convert_isa_kernels_test convert_conventions_test convert_ptx_cvt_test
       reference_exact_test reference_convert_test
       datapath_primitives_test datapath_directed_test datapath_mma_fast_test datapath_hw_vectors_test
       golden_npy_reader_test golden_format_test golden_committed_set_test
       quant_mx_published_test quant_nvfp4_test quant_upstream_cases_test)
start=$(date +%s)
cmake --preset release -B "$build" --toolchain "$toolchain" -DTCEMU_BUILD_TOOLS=OFF -DTCEMU_BUILD_BENCH=OFF \
  -DTCEMU_BUILD_PYTHON=OFF -DTCEMU_ENABLE_CUDA=OFF > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target "${TESTS[@]}"
built=$(date +%s)
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
# One thread: under Debian 12's qemu-user (7.2) a program whose OpenMP region starts a second
# thread does not finish (a two-thread `#pragma omp parallel for` alone hangs), so the tests run
# on one thread; tcemu's results are the same for every thread count (the thread-count tests
# run on x86-64).
export TCEMU_NUM_THREADS=1 OMP_NUM_THREADS=1
passed=0 failed=0 failures=()
for t in "${TESTS[@]}"; do
  exe=$(find "$build/tests" -name "$t" -type f -perm -u+x | head -1)
  log="$build/$t.log"
  t0=$(date +%s)
  # Tests that look up the repository's data find it through TCEMU_SOURCE_DIR / TCEMU_HW_VECTORS
  # (compiled in) and run from the source tree, as ctest runs them.
  if "${qemu[@]}" "$exe" --gtest_brief=1 ${1:+--gtest_filter="$1"} > "$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failures+=("$t")
  fi
  n_ok=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log")
  n_bad=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$log")
  [ "$status" = FAILED ] && [ -z "$n_bad" ] && n_bad=1
  passed=$((passed + ${n_ok:-0})) failed=$((failed + ${n_bad:-0}))
  printf 'test-aarch64: %-28s %-6s %4s passed %3ss\n' "$t" "$status" "${n_ok:-0}" "$(($(date +%s) - t0))"
done
for t in "${failures[@]}"; do
  echo "---- $t (qemu-aarch64): $build/$t.log"
  tail -40 "$build/$t.log"
done
ran=$(date +%s)
# The consumer build: the installed package used by two outside projects, cross-compiled and run.
TCEMU_CONSUMER_CMAKE_ARGS="--toolchain $toolchain" TCEMU_CONSUMER_RUN="${qemu[*]}" tests/consumer/run.sh "$build"
echo "test-aarch64: build $((built - start)) s, tests $((ran - built)) s, consumer $(($(date +%s) - ran)) s"
echo "aarch64: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
