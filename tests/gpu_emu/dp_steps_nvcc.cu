// Compiled (not run) by nvcc in the test gpu_emu_dp_steps_nvcc_test: the steps and the
// whole-matrix phases of emulator/src/dp_steps.hpp and dp_matrix.hpp called from __global__
// kernels, so that they stay usable as CUDA __host__ __device__ code in builds where the
// CUDA backend itself is not built.
#include "dp_matrix.hpp"

namespace {

__global__ void every_step(tcemu::dp::TileArgs t, tcemu::dp::DecodeParams d, tcemu::dp::Codes in, tcemu::Operand* out) {
  using namespace tcemu;
  extern __shared__ __align__(16) unsigned char raw[];
  Operand* smem = reinterpret_cast<Operand*>(raw);
  out[threadIdx.x] = dp::decode_a(d, in, threadIdx.x);
  out[threadIdx.x + 1] = dp::decode_bt(d, in, threadIdx.x);
  out[threadIdx.x + 2] = dp::decode_scale(d, in, threadIdx.x);
  dp::ChainState s = dp::tile_begin(t, threadIdx.y, threadIdx.x);
  dp::tile_load(t, smem, 0, 0, 0, t.chunk, threadIdx.x, blockDim.x);
  __syncthreads();
  dp::tile_compute(t, s, smem, 0, 0, 0, t.chunk, threadIdx.y, threadIdx.x);
  dp::tile_end(t, s, threadIdx.y, threadIdx.x);
  dp::element_direct(t, threadIdx.x);
  t.D[0] ^= dp::gst_step(t.p, out, out, 16, 0, out, out) ^ dp::int_step(t.p, out, out, 4, 0);
}

}  // namespace

void launch_every_step(tcemu::dp::TileArgs t, tcemu::dp::DecodeParams d, tcemu::dp::Codes in, tcemu::Operand* out) {
  every_step<<<1, 256>>>(t, d, in, out);
}
