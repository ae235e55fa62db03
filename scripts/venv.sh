#!/usr/bin/env bash
# Prints the path of the Python test environment that scripts/install-deps.sh makes from
# requirements.txt: $TCEMU_VENV if set, else ~/.cache/tcemu/venv (outside the clone, so that
# every clone of the project on a machine shares one). Its python is Debian's 3.11 with the
# pinned packages: "$(scripts/venv.sh)/bin/python".
echo "${TCEMU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tcemu/venv}"
