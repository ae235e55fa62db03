#!/usr/bin/env bash
# Prints the path of the Python test environment that scripts/install-deps.sh makes from
# requirements.txt and requirements-side.txt: $TCEMU_VENV if set, else
# ~/.cache/tcemu/venv-HASH, HASH the first 16 hex digits of the SHA-256 of the two files
# (outside the clone, so that clones with the same pins share one environment and clones with
# different pins do not replace each other's). Its python is Debian's 3.11 with the pinned
# packages: "$(scripts/venv.sh)/bin/python". Environments of older pins are left in place
# (about 4 GB each): remove them with rm -rf ~/.cache/tcemu/venv-*.
set -euo pipefail
if [ -n "${TCEMU_VENV:-}" ]; then
  echo "$TCEMU_VENV"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
hash="$(cat "$root/requirements.txt" "$root/requirements-side.txt" | sha256sum | cut -c1-16)"
echo "${XDG_CACHE_HOME:-$HOME/.cache}/tcemu/venv-$hash"
