// Device side of tcemu-gpu: one kernel per instruction of gen/mma_instrs.inc (mma.sync, wgmma)
// (the cvt variants are in cvt_device.cu), each executing the instruction exactly as spelled,
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
#include "gpu_backend.hpp"

// The target being compiled, as the arch_mask bit of gen/mma_instrs.inc: nvcc sets the
// arch-specific feature macros for the `a` targets (compute_90a, compute_100a, compute_120a).
// An instruction's body is compiled where its mask has that bit (TCEMU_GPU_ARCH_BIT & mask);
// the host pass and other targets see 0.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCEMU_GPU_ARCH_BIT 1
#elif defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TCEMU_GPU_ARCH_BIT 2
#elif defined(__CUDA_ARCH_FEAT_SM120_ALL)
#define TCEMU_GPU_ARCH_BIT 4
#else
#define TCEMU_GPU_ARCH_BIT 0
#endif
#define TCEMU_GPU_HAS_SM90A (TCEMU_GPU_ARCH_BIT == 1)

namespace tcemu_gpu {
namespace {

template <int ID>
__device__ void mma_op(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, uint32_t sa, uint32_t sb);
template <int ID>
__device__ void wg_op(uint64_t da, uint64_t db, uint32_t* d, int scale_d);

#include "gen/mma_kernels.cuh"

// mma_op<ID> is instantiated only for mma.sync ids and wg_op<ID> only for wgmma ids (the
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

constexpr int kWgAImage = 2048;  // 64 rows x 32 bytes of K (every wgmma kind: K*bits = 256)

// One warpgroup per tile; A and B from shared memory (K-major, no swizzle, LBO 128, SBO 256).
template <int ID, int N, int RC>
__global__ void __launch_bounds__(128) wg_kernel(const uint8_t* a_img, const uint8_t* b_img, const uint32_t* fc,
                                                 uint32_t* fd, int scale_d) {
  __shared__ __align__(1024) uint8_t sa[kWgAImage];
  __shared__ __align__(1024) uint8_t sb[N * 32];
  const int tid = threadIdx.x;
  const size_t tile = blockIdx.x;
  for (int i = tid; i < kWgAImage / 16; i += 128)
    reinterpret_cast<uint4*>(sa)[i] = reinterpret_cast<const uint4*>(a_img + tile * kWgAImage)[i];
  for (int i = tid; i < N * 2; i += 128)
    reinterpret_cast<uint4*>(sb)[i] = reinterpret_cast<const uint4*>(b_img + tile * N * 32)[i];
  // Generic-proxy stores must be visible to the async proxy wgmma reads through.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const size_t base = (tile * 128 + tid) * RC;
  uint32_t d[RC];
#pragma unroll
  for (int r = 0; r < RC; ++r) d[r] = fc[base + r];
  const uint64_t da = layout::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sa)), 128, 256);
  const uint64_t db = layout::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sb)), 128, 256);
#if TCEMU_GPU_HAS_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
  wg_op<ID>(da, db, d, scale_d);
#if TCEMU_GPU_HAS_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
#pragma unroll
  for (int r = 0; r < RC; ++r) fd[base + r] = d[r];
}

// ---- host tables ---------------------------------------------------------------------------
using MmaLaunch = void (*)(int, const uint32_t*, const uint32_t*, const uint32_t*, const uint32_t*, const uint32_t*,
                           uint32_t*);
using WgLaunch = void (*)(int, const uint8_t*, const uint8_t*, const uint32_t*, uint32_t*, int);
template <int ID, bool WG>
void launch_mma(int tiles, const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint32_t* sa,
                const uint32_t* sb, uint32_t* d) {
  if constexpr (!WG) mma_kernel<ID><<<tiles, 32>>>(a, b, c, sa, sb, d);
}
template <int ID, bool WG, int N, int RC>
void launch_wg(int tiles, const uint8_t* a, const uint8_t* b, const uint32_t* c, uint32_t* d, int scale_d) {
  if constexpr (WG) wg_kernel<ID, N, RC><<<tiles, 128>>>(a, b, c, d, scale_d);
}

struct Row {
  MmaLaunch mma;
  WgLaunch wg;
};
const Row kRows[] = {
#define TCEMU_GPU_ROW(ID, PTX, WG, MASK, M, N, K, AT, BT, DT, ACC, ABB, AC, BC, CB, RA, RB, RC, SV, ST) \
  {&launch_mma<ID, WG>, &launch_wg<ID, WG, N, (RC > 0 ? RC : 1)>},
    TCEMU_GPU_MMA_INSTRS(TCEMU_GPU_ROW)
#undef TCEMU_GPU_ROW
};

std::string cuda_err(cudaError_t e, const char* what) {
  std::string s = what;
  s += ": ";
  s += cudaGetErrorName(e);
  s += " (";
  s += cudaGetErrorString(e);
  s += ")";
  return s;
}

// Device buffer, freed on scope exit.
template <class T>
struct DevBuf {
  T* p = nullptr;
  ~DevBuf() { if (p) cudaFree(p); }
  cudaError_t upload(const std::vector<T>& v) {
    cudaError_t e = cudaMalloc(&p, std::max<size_t>(1, v.size()) * sizeof(T));
    if (e != cudaSuccess || v.empty()) return e;
    return cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t alloc(size_t n) { return cudaMalloc(&p, std::max<size_t>(1, n) * sizeof(T)); }
};

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
  if (in.wgmma || in.id < 0 || in.id >= TCEMU_GPU_MMA_COUNT) return "not an mma.sync instruction";
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
                      const std::vector<uint8_t>& b_img, const std::vector<uint32_t>& c, bool scale_d,
                      std::vector<uint32_t>& d) {
  if (!in.wgmma || in.id < 0 || in.id >= TCEMU_GPU_MMA_COUNT) return "not a wgmma instruction";
  const size_t threads = static_cast<size_t>(tiles) * 128;
  if (a_img.size() != static_cast<size_t>(tiles) * kWgAImage || b_img.size() != static_cast<size_t>(tiles) * in.n * 32 ||
      c.size() != threads * in.regs_c)
    return "run_wgmma: operand arrays of the wrong size";
  DevBuf<uint8_t> da, db;
  DevBuf<uint32_t> dc, dd;
  cudaError_t e;
  if ((e = da.upload(a_img)) != cudaSuccess || (e = db.upload(b_img)) != cudaSuccess || (e = dc.upload(c)) != cudaSuccess ||
      (e = dd.alloc(threads * in.regs_c)) != cudaSuccess)
    return cuda_err(e, "upload");
  kRows[in.id].wg(tiles, da.p, db.p, dc.p, dd.p, scale_d ? 1 : 0);
  if ((e = cudaGetLastError()) != cudaSuccess) return cuda_err(e, "launch");
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_err(e, "kernel");
  d.resize(threads * in.regs_c);
  if ((e = cudaMemcpy(d.data(), dd.p, d.size() * 4, cudaMemcpyDeviceToHost)) != cudaSuccess) return cuda_err(e, "download");
  return "";
}

}  // namespace tcemu_gpu
