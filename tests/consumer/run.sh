#!/usr/bin/env bash
# Installs the build in $1 into a temporary prefix and builds + runs a separate project that
# finds it with find_package(tcemu). Prints a closing line CI can read.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$here" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/build" >/dev/null
if "$tmp/build/consumer"; then echo "consumer: 1 passed, 0 failed"; else echo "consumer: 0 passed, 1 failed"; exit 1; fi
