// Device side of tcemu-gpu: one kernel per instruction of gen/mma_instrs.inc (mma.sync, wmma;
// the wgmma kernels are in gen/wgmma_part<i>.cu, sm_90a only; the cvt variants in
// cvt_device.cu), each executing the instruction exactly as spelled,
// once per tile, on operands the host has already placed in registers / shared memory
// (fragment_layout.hpp). Built for sm_90a, sm_100a and sm_120a; an instruction's body is
// compiled only where it exists (guards below), elsewhere it is empty and the host never
// launches it (InstrInfo::arch_mask).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fragment_layout.hpp"
#include "gen/mma_instrs.inc"
#include "cuda_util.cuh"
#include "gpu_arch.cuh"
#include "gpu_backend.hpp"
#include "wgmma_kernel.cuh"
#include "gen/wgmma_parts.inc"

// The target being compiled (TCEMU_GPU_ARCH_BIT, gpu_arch.cuh): an instruction's body is
// compiled where its arch_mask (gen/mma_instrs.inc) has that bit; the host pass sees 0.

namespace tcemu_gpu {
namespace {

template <int ID>
__device__ void mma_op(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, uint32_t sa, uint32_t sb);
template <int ID>
__device__ void wmma_op(const void* a, const void* b, const void* c, void* d);

#include "gen/mma_kernels.cuh"

// mma_op<ID> is instantiated only for mma.sync ids and wmma_op<ID> only for wmma ids (the
// launchers below use `if constexpr`).

// One warp per tile.
template <int ID>
__global__ void mma_kernel(const uint32_t* fa, const uint32_t* fb, const uint32_t* fc, const uint32_t* fsa,
                           const uint32_t* fsb, uint32_t* fd) {
  const size_t t = static_cast<size_t>(blockIdx.x) * 32 + threadIdx.x;
  uint32_t a[4], b[4], c[8], d[8];
#pragma unroll
  for (int r = 0; r < 4; ++r) { a[r] = fa[t * 4 + r]; b[r] = fb[t * 4 + r]; }
#pragma unroll
  for (int r = 0; r < 8; ++r) { c[r] = fc[t * 8 + r]; d[r] = 0; }
  mma_op<ID>(a, b, c, d, fsa[t], fsb[t]);
#pragma unroll
  for (int r = 0; r < 8; ++r) fd[t * 8 + r] = d[r];
}

// wmma: one warp per tile; the tile's A (row-major, M x K), B (column-major, K x N), C and D
// (row-major, M x N) images start `stride` bytes apart (a multiple of 256: wmma.load/store
// need aligned fragments).
template <int ID>
__global__ void wmma_kernel(const uint8_t* a, const uint8_t* b, const uint8_t* c, uint8_t* d, uint32_t a_stride,
                            uint32_t b_stride, uint32_t c_stride) {
  const size_t t = blockIdx.x;
  wmma_op<ID>(a + t * a_stride, b + t * b_stride, c + t * c_stride, d + t * c_stride);
}

// ---- host tables ---------------------------------------------------------------------------
using MmaLaunch = void (*)(int, const uint32_t*, const uint32_t*, const uint32_t*, const uint32_t*, const uint32_t*,
                           uint32_t*);
using WmmaLaunch = void (*)(int, const uint8_t*, const uint8_t*, const uint8_t*, uint8_t*, uint32_t, uint32_t,
                            uint32_t);
template <int ID, bool SYNC>
void launch_mma(int tiles, const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint32_t* sa,
                const uint32_t* sb, uint32_t* d) {
  if constexpr (SYNC) mma_kernel<ID><<<tiles, 32>>>(a, b, c, sa, sb, d);
}
template <int ID, bool WM>
void launch_wmma(int tiles, const uint8_t* a, const uint8_t* b, const uint8_t* c, uint8_t* d, uint32_t as,
                 uint32_t bs, uint32_t cs) {
  if constexpr (WM) wmma_kernel<ID><<<tiles, 32>>>(a, b, c, d, as, bs, cs);
}

struct Row {
  MmaLaunch mma;
  WmmaLaunch wmma;
};
const Row kRows[] = {
#define TCEMU_GPU_ROW(ID, PTX, WG, MASK, M, N, K, AT, BT, DT, ACC, ABB, AC, BC, CB, RA, RB, RC, SV, ST, WM) \
  {&launch_mma<ID, !(WG) && !(WM)>, &launch_wmma<ID, WM>},
    TCEMU_GPU_MMA_INSTRS(TCEMU_GPU_ROW)
#undef TCEMU_GPU_ROW
};

using cuda_util::DevBuf;
std::string cuda_err(cudaError_t e, const char* what) { return cuda_util::error(e, what); }

}  // namespace

DeviceInfo query_device() {
  DeviceInfo d;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    d.why_not = cuda_err(e, "cudaGetDeviceCount");
    return d;
  }
  if (n == 0) {
    d.why_not = "cudaGetDeviceCount: no CUDA device";
    return d;
  }
  cudaDeviceProp p{};
  e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) {
    d.why_not = cuda_err(e, "cudaGetDeviceProperties");
    return d;
  }
  d.present = true;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  int dv = 0, rv = 0;
  cudaDriverGetVersion(&dv);
  cudaRuntimeGetVersion(&rv);
  d.driver = std::to_string(dv / 1000) + "." + std::to_string((dv % 1000) / 10);
  d.runtime = std::to_string(rv / 1000) + "." + std::to_string((rv % 1000) / 10);
  return d;
}

std::string run_mma_sync(const InstrInfo& in, int tiles, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                         const std::vector<uint32_t>& c, const std::vector<uint32_t>& sa,
                         const std::vector<uint32_t>& sb, std::vector<uint32_t>& d) {
  if (in.wgmma || in.wmma || in.id < 0 || in.id >= TCEMU_GPU_MMA_COUNT) return "not an mma.sync instruction";
  const size_t lanes = static_cast<size_t>(tiles) * 32;
  if (a.size() != lanes * 4 || b.size() != lanes * 4 || c.size() != lanes * 8 || sa.size() != lanes ||
      sb.size() != lanes)
    return "run_mma_sync: operand arrays of the wrong size";
  DevBuf<uint32_t> da, db, dc, dsa, dsb, dd;
  cudaError_t e;
  if ((e = da.upload(a)) != cudaSuccess || (e = db.upload(b)) != cudaSuccess || (e = dc.upload(c)) != cudaSuccess ||
      (e = dsa.upload(sa)) != cudaSuccess || (e = dsb.upload(sb)) != cudaSuccess || (e = dd.alloc(lanes * 8)) != cudaSuccess)
    return cuda_err(e, "upload");
  kRows[in.id].mma(tiles, da.p, db.p, dc.p, dsa.p, dsb.p, dd.p);
  if ((e = cudaGetLastError()) != cudaSuccess) return cuda_err(e, "launch");
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_err(e, "kernel");
  d.resize(lanes * 8);
  if ((e = cudaMemcpy(d.data(), dd.p, d.size() * 4, cudaMemcpyDeviceToHost)) != cudaSuccess) return cuda_err(e, "download");
  return "";
}

std::string run_wgmma(const InstrInfo& in, int tiles, const std::vector<uint8_t>& a_img,
                      const std::vector<uint8_t>& b_img, const std::vector<uint32_t>& c, bool scale_d, int imm_neg,
                      std::vector<uint32_t>& d) {
  if (!in.wgmma || in.id < 0 || in.id >= TCEMU_GPU_MMA_COUNT) return "not a wgmma instruction";
  const wgmma_gen::WgLaunch launch = wgmma_gen::launcher(in.id, imm_neg);
  if (!launch) {
    std::string why = "no wgmma kernel for ";
    why += in.ptx;
    why += imm_neg ? " with imm-scale -1" : "";
    why += " in this build";
    return why;
  }
  const size_t threads = static_cast<size_t>(tiles) * 128;
  if (a_img.size() != static_cast<size_t>(tiles) * wgmma_gen::kAImage ||
      b_img.size() != static_cast<size_t>(tiles) * in.n * 32 || c.size() != threads * in.regs_c)
    return "run_wgmma: operand arrays of the wrong size";
  DevBuf<uint8_t> da, db;
  DevBuf<uint32_t> dc, dd;
  cudaError_t e;
  if ((e = da.upload(a_img)) != cudaSuccess || (e = db.upload(b_img)) != cudaSuccess || (e = dc.upload(c)) != cudaSuccess ||
      (e = dd.alloc(threads * in.regs_c)) != cudaSuccess)
    return cuda_err(e, "upload");
  launch(tiles, da.p, db.p, dc.p, dd.p, scale_d ? 1 : 0);
  if ((e = cudaGetLastError()) != cudaSuccess) return cuda_err(e, "launch");
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_err(e, "kernel");
  d.resize(threads * in.regs_c);
  if ((e = cudaMemcpy(d.data(), dd.p, d.size() * 4, cudaMemcpyDeviceToHost)) != cudaSuccess) return cuda_err(e, "download");
  return "";
}

std::string run_wmma(const InstrInfo& in, int tiles, const std::vector<uint8_t>& a_img, const std::vector<uint8_t>& b_img,
                     const std::vector<uint8_t>& c_img, std::vector<uint8_t>& d_img) {
  if (!in.wmma || in.id < 0 || in.id >= TCEMU_GPU_MMA_COUNT) return "not a wmma instruction";
  const WmmaImages sz = wmma_images(in);
  if (a_img.size() != static_cast<size_t>(tiles) * sz.a_stride || b_img.size() != static_cast<size_t>(tiles) * sz.b_stride ||
      c_img.size() != static_cast<size_t>(tiles) * sz.c_stride)
    return "run_wmma: operand arrays of the wrong size";
  DevBuf<uint8_t> da, db, dc, dd;
  cudaError_t e;
  if ((e = da.upload(a_img)) != cudaSuccess || (e = db.upload(b_img)) != cudaSuccess ||
      (e = dc.upload(c_img)) != cudaSuccess || (e = dd.alloc(c_img.size())) != cudaSuccess)
    return cuda_err(e, "upload");
  kRows[in.id].wmma(tiles, da.p, db.p, dc.p, dd.p, sz.a_stride, sz.b_stride, sz.c_stride);
  if ((e = cudaGetLastError()) != cudaSuccess) return cuda_err(e, "launch");
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_err(e, "kernel");
  d_img.resize(c_img.size());
  if ((e = cudaMemcpy(d_img.data(), dd.p, d_img.size(), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return cuda_err(e, "download");
  return "";
}

}  // namespace tcemu_gpu
