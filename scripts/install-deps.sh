#!/usr/bin/env bash
# Installs the Debian packages tcemu needs to build and test. Idempotent; works as root or
# through sudo. The CUDA toolkit is optional (the CUDA backend builds only where nvcc is).
set -euo pipefail
pkgs=(cmake g++ make libboost-dev libgtest-dev googletest librapidcheck-dev nlohmann-json3-dev
      libcli11-dev libbenchmark-dev zlib1g-dev python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
