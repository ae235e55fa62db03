#!/usr/bin/env bash
# Installs the Debian packages tcemu needs to build and test. Idempotent; works as root or
# through sudo. The CUDA toolkit is optional (the CUDA backend builds only where nvcc is).
# OpenMP: g++ brings libgomp; libomp-dev is the runtime for builds with clang.
set -euo pipefail
pkgs=(cmake g++ make libboost-dev libgtest-dev googletest librapidcheck-dev nlohmann-json3-dev
      libcli11-dev libbenchmark-dev libomp-dev zlib1g-dev python3
      # Headless Chromium renders the HTML report in GoldenBrowser.HeatMapRendersInHeadlessChromium.
      chromium
      # The Python package (python/) and its tests, for Debian's /usr/bin/python3.
      pybind11-dev python3-dev python3-numpy python3-pytest python3-hypothesis python3-setuptools
      # The virtual environment of requirements.txt (torch, torchao, ml_dtypes, gfloat, dask ...).
      python3-venv ccache
      # The aarch64 stage (scripts/test-aarch64.sh): Debian's cross compiler, qemu-user, and the
      # libraries of the tests as multiarch :arm64 packages (the header-only nlohmann-json and
      # CLI11 above serve both architectures).
      g++-aarch64-linux-gnu qemu-user libgtest-dev:arm64 libgmock-dev:arm64 librapidcheck-dev:arm64
      libboost-dev:arm64 zlib1g-dev:arm64
      # The fuzz harnesses (scripts/fuzz.sh): clang with libFuzzer.
      clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  echo "install-deps: installing ${missing[*]}"
  # :arm64 packages need the architecture known to dpkg (once) before apt-get update.
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Python test environment: requirements.txt (every version pinned) in a virtual environment
# of Debian's /usr/bin/python3, outside the clone so that clones share it, and each package of
# requirements-side.txt in a directory of its own below it (side/NAME-VERSION, pip --target,
# no dependencies). Made again when either file changes (their hash is kept beside it, and
# the default path scripts/venv.sh prints carries it). scripts/venv.sh prints its path.
venv="$("$(dirname "$0")/venv.sh")"
req="$(dirname "$0")/../requirements.txt"
side="$(dirname "$0")/../requirements-side.txt"
want="$(cat "$req" "$side" | sha256sum | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.tcemu-requirements" 2>/dev/null)" = "$want" ]; then
  echo "install-deps: $venv is up to date"
else
  echo "install-deps: installing requirements.txt and requirements-side.txt into $venv"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-input --disable-pip-version-check -r "$req"
  grep -v '^[[:space:]]*\(#\|$\)' "$side" | while read -r pin; do
    "$venv/bin/pip" install -q --no-input --disable-pip-version-check --no-deps \
      --target "$venv/side/${pin/==/-}" "$pin"
  done
  echo "$want" > "$venv/.tcemu-requirements"
fi
