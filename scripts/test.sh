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
# The Python package's tests, with Debian's interpreter (the one install-deps.sh gave pybind11,
# NumPy, pytest and Hypothesis; `python3` on PATH may be another). They use the CLI built above.
# install-deps.sh installed what the package needs, so a missing package is a failure, not a skip.
[ -d build/release/python/tcemu ] || { echo "test.sh: the Python package was not built (see cmake's output)" >&2; exit 1; }
PYTHONPATH=build/release/python TCEMU_CLI=build/release/tools/cli/tcemu /usr/bin/python3 -m pytest -q python/tests
