#!/usr/bin/env bash
# The main job on built-in data: golden vectors for an FP8 instruction (Hopper wgmma e4m3) and
# an NVFP4 one (Blackwell mma.sync kind::mxf4nvf4 with ue4m3 block scales), a subtly wrong
# "kernel" run against them (tools/demo: dequantize, then a plain f32 GEMM with one FMA per
# term), tcemu compare's diagnosis of each and its HTML report, then the conversion table.
# Everything goes to build/demo/; it takes seconds once the command line is built.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target tcemu_cli tcemu_naive_gemm -j"$(nproc)"
tcemu=build/release/tools/cli/tcemu
kernel=build/release/tools/demo/tcemu-naive-gemm
out=build/demo
mkdir -p "$out"

demo_case() {  # NAME ARCH INSTRUCTION
  local name=$1 arch=$2 instr=$3
  echo
  echo "=== $name: $instr on $arch, a 64 x 64 x 256 GEMM ==="
  "$tcemu" golden gen --arch "$arch" --instr "$instr" -M 64 -N 64 -K 256 --dist normal --seed 1 -o "$out/$name.json"
  "$kernel" "$out/$name.json" 0 "$out/$name.kernel.npy"
  # Exit status 1 (different) is the expected outcome: the kernel is wrong.
  local rc=0
  "$tcemu" compare "$out/$name.json" "$out/$name.kernel.npy" --max-listed 5 --html "$out/$name.report.html" || rc=$?
  [ "$rc" -eq 1 ] || { echo "demo: expected compare to find differences (status 1), got $rc" >&2; exit 1; }
  echo "HTML report: $out/$name.report.html"
}

demo_case fp8 sm_90a wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3
demo_case nvfp4 sm_120a mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
echo
echo "=== How telling values land in the narrow formats, under each convention ==="
"$tcemu" demo
