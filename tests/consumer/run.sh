#!/usr/bin/env bash
# Installs the build in $1 into a temporary prefix and builds + runs, against that prefix only
# (find_package(tcemu)), two separate projects: tests/consumer (tcemu::tcemu) and
# docs/examples/property-testing (tcemu::testing: a user's f32 -> e4m3 converters property-
# tested, the buggy ones caught with shrunk counterexamples). Prints closing lines CI can read.
# A cross build (scripts/test-aarch64.sh) passes TCEMU_CONSUMER_CMAKE_ARGS (e.g. its
# --toolchain) for the two projects and TCEMU_CONSUMER_RUN (e.g. qemu-aarch64 -L ...) to run them.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
example="$here/../../docs/examples/property-testing"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
read -r -a cmake_args <<< "${TCEMU_CONSUMER_CMAKE_ARGS:-}"
read -r -a run_with <<< "${TCEMU_CONSUMER_RUN:-}"
cmake -S "$here" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" "${cmake_args[@]}" >/dev/null
cmake --build "$tmp/build" >/dev/null
if "${run_with[@]}" "$tmp/build/consumer"; then echo "consumer: 1 passed, 0 failed"; else echo "consumer: 0 passed, 1 failed"; exit 1; fi

# The testing toolkit is installed only where tcemu was built with RapidCheck and GoogleTest.
if [ ! -d "$tmp/prefix/include/tcemu/testing" ]; then
  echo "property-testing example: skipped (tcemu was built without tcemu::testing)"
  exit 0
fi
cmake -S "$example" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}" >/dev/null
cmake --build "$tmp/example" -j2 >/dev/null
# The test program prints each property's verdict and counterexample; show them.
if "${run_with[@]}" "$tmp/example/example_tests" > "$tmp/example.log" 2>&1; then
  echo "property-testing example (each FAILED verdict is a deliberately buggy converter, caught as the test requires):"
  grep -E "^(PASSED|FAILED|  (why|x|expected|actual|distance):)|^BitExact on" "$tmp/example.log" || true
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$tmp/example.log")
  echo "property-testing example: ${passed:-0} passed, 0 failed"
else
  cat "$tmp/example.log"
  echo "property-testing example: 0 passed, 1 failed"
  exit 1
fi
