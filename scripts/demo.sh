#!/usr/bin/env bash
# The main job on built-in data: install, build the command line, run the conversion demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target tcemu_cli -j"$(nproc)"
build/release/tools/cli/tcemu demo
