#!/usr/bin/env bash
# Prepares the one device call that runs every hardware check of the open GPU work
# (tools/gpu/session.sh, docs/gpu.md "A device session"). Run it here, on the machine with the
# full CUDA build, from the repository root:
#
#   tools/gpu/prepare_session.sh [--no-build] [--build DIR] [--out DIR]
#
# It builds (unless --no-build) the programs the session runs, from the release build DIR
# (default build/release, configured with CUDA: `cmake --preset release` where nvcc is found),
# and packs into OUT/session.tar.gz (default OUT: devpack/, which .gitignore ignores):
#   bin/   tcemu-gpu, cvt_check (the real instructions), tcemu-emu-check (the emulator on the
#          GPU), tcemu (the command line), gpu_emu_device_test, cli_device_test, bench_scale,
#          stripped;
#   lib/   the shared libraries they need beyond the C and C++ runtimes (OpenMP, the CUDA
#          runtime, Google Benchmark); lib-std/ the C++ runtime, used only where the device's is
#          older;
#   golden.pack  the committed golden MMA cases (tcemu-golden-pack);
#   json/  nlohmann/json (headers and CMake package) for building the Python module there, and
#          the CLI11 headers (json/include/CLI) for crossval.sh's own build of tcemu-gpu and
#          cvt_check should the pack's programs not run there;
#   manifest.txt  the commit, and the build and source directories (provenance).
# Then prints the device call. The pack is about 11 MB; the device machine needs nothing else
# (its CUDA toolkit, CMake, Python, PyTorch, JAX and pybind11 are used where present).
set -eu
BUILD=build/release
OUTDIR=devpack
DO_BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) DO_BUILD=0; shift ;;
    --build) BUILD=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "prepare_session.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -d tools/gpu ] && [ -d golden/sets ] || { echo "prepare_session.sh: run it from the repository root" >&2; exit 2; }
[ -f "$BUILD/CMakeCache.txt" ] || { echo "prepare_session.sh: no CMake build in $BUILD (cmake --preset release)" >&2; exit 2; }
TARGETS="tcemu_gpu cvt_check tcemu_emu_check tcemu_golden_pack tcemu_cli gpu_emu_device_test cli_device_test bench_scale"
if [ "$DO_BUILD" = 1 ]; then
  cmake --build "$BUILD" -j "$(nproc)" --target $TARGETS
fi
BINS="tools/gpu/tcemu-gpu tools/gpu/cvt_check tools/emu_check/tcemu-emu-check tools/cli/tcemu
      tests/gpu_emu/gpu_emu_device_test tests/cli/cli_device_test tools/bench/bench_scale"
for b in $BINS; do
  [ -x "$BUILD/$b" ] || { echo "prepare_session.sh: $BUILD/$b is missing: a build with CUDA and every target is needed" >&2; exit 2; }
done
mkdir -p "$OUTDIR"
STAGE=$(mktemp -d /tmp/tcemu-devpack.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/lib-std" "$STAGE/json/include" "$STAGE/json/share/cmake"
for b in $BINS; do strip -o "$STAGE/bin/$(basename "$b")" "$BUILD/$b"; done
# The shared libraries beyond glibc: OpenMP, the CUDA runtime, Google Benchmark; the C++ runtime
# apart, for a device whose own is older than this machine's.
for b in "$STAGE"/bin/*; do ldd "$b"; done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r name path; do
    case "$name" in
      libgomp.so.*|libcudart.so.*|libbenchmark*) cp -L "$path" "$STAGE/lib/$name" ;;
      libstdc++.so.*|libgcc_s.so.*) cp -L "$path" "$STAGE/lib-std/$name" ;;
    esac
  done
"$BUILD/tools/emu_check/tcemu-golden-pack" golden/sets "$STAGE/golden.pack" > /dev/null
JSON_HDR=$(echo '#include <nlohmann/json.hpp>' | ${CXX:-g++} -std=c++20 -x c++ -M - | tr ' \\' '\n\n' | grep '/nlohmann/json.hpp$' | head -1)
[ -n "$JSON_HDR" ] || { echo "prepare_session.sh: nlohmann/json.hpp not found" >&2; exit 2; }
cp -r "$(dirname "$JSON_HDR")" "$STAGE/json/include/"
CLI_HDR=$(echo '#include <CLI/CLI.hpp>' | ${CXX:-g++} -std=c++20 -x c++ -M - | tr ' \\' '\n\n' | grep '/CLI/CLI.hpp$' | head -1)
[ -n "$CLI_HDR" ] || { echo "prepare_session.sh: CLI/CLI.hpp (CLI11) not found" >&2; exit 2; }
cp -r "$(dirname "$CLI_HDR")" "$STAGE/json/include/"
for d in /usr/share/cmake/nlohmann_json /usr/lib/cmake/nlohmann_json /usr/lib/x86_64-linux-gnu/cmake/nlohmann_json; do
  [ -d "$d" ] && { cp -r "$d" "$STAGE/json/share/cmake/"; break; }
done
{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
  echo "made $(date -u +%FT%TZ) on $(uname -m)"
  echo "build $(cd "$BUILD" && pwd)"
  echo "source $(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")"
} > "$STAGE/manifest.txt"
tar czf "$OUTDIR/session.tar.gz" -C "$STAGE" .
size=$(wc -c < "$OUTDIR/session.tar.gz")
echo "prepare_session.sh: $OUTDIR/session.tar.gz, $(( size / 1024 )) KiB"
cat "$STAGE/manifest.txt"
case "$OUTDIR" in
  /*) ;;
  *) git check-ignore -q "$OUTDIR/session.tar.gz" ||
       echo "note: $OUTDIR is not ignored by git; the device call carries it by name anyway" ;;
esac
echo "the device call: run(command=\"bash tools/gpu/session.sh $OUTDIR/session.tar.gz\", carry=[\"$OUTDIR\"], timeout_s=600)"
