#!/usr/bin/env bash
# Installs what is needed, builds everything and runs the whole test suite (CI runs this).
# Tests labelled `long` are left out; run them with: ctest --preset release -L long
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j"$(nproc)"
ctest --preset release -LE long -j"$(nproc)"
tests/consumer/run.sh build/release
