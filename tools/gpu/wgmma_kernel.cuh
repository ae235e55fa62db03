// The wgmma kernel of tcemu-gpu, shared by the generated parts gen/wgmma_part<i>.cu (each built
// for sm_90a only, in parallel): one warpgroup per tile; A (64 x K) and B (N x K) K-major in
// shared memory without swizzle (LBO 128, SBO 256: fragment_layout.hpp's kmajor_offset), C in
// the accumulator registers (wgmma_c_coord). wg_op<ID, NEG> holds the instruction: NEG bit 0
// is imm-scale-a = -1, bit 1 imm-scale-b = -1 (PTX ISA 9.7.15.5.2); integer types have only 0.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "fragment_layout.hpp"

// The instruction bodies exist only in the sm_90a device pass.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCEMU_GPU_WGMMA_BODIES 1
#else
#define TCEMU_GPU_WGMMA_BODIES 0
#endif

namespace tcemu_gpu::wgmma_gen {

using WgLaunch = void (*)(int tiles, const uint8_t* a_img, const uint8_t* b_img, const uint32_t* c, uint32_t* d,
                          int scale_d);

constexpr int kAImage = 2048;  // 64 rows x 32 bytes of K (every wgmma kind: K*bits = 256)

template <int ID, int NEG>
__device__ void wg_op(uint64_t da, uint64_t db, uint32_t* d, int scale_d);

// One specialisation of wg_op: the asm statement with the operand lists of gen/wgmma_regs.cuh.
// The predicate p is scale-d (D = A*B + D when true, A*B when false).
#define TCEMU_WG_ASM(RC, PTX, IMM, OUTS)                                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " TCEMU_WG_PRED_##RC ", 0;\n" PTX " "          \
               TCEMU_WG_OPERANDS_##RC IMM ";\n}\n"                                            \
               : OUTS                                                                         \
               : "l"(da), "l"(db), "r"(scale_d))
// The accumulators are read only after wgmma.wait_group (reading them earlier is undefined,
// PTX ISA 9.7.15.6): commit and wait follow the instruction here, and an empty asm with each
// register as operand after the wait keeps the compiler from moving the copies before it.
#define TCEMU_WG_WAIT() \
  asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n" ::: "memory")
#define TCEMU_WG_BODY_F(RC, PTX, IMM)                                                 \
  float f[RC];                                                                       \
  _Pragma("unroll") for (int r = 0; r < RC; ++r) f[r] = __uint_as_float(d[r]);      \
  TCEMU_WG_ASM(RC, PTX, IMM, TCEMU_WG_OUT_F_##RC);                                   \
  TCEMU_WG_WAIT();                                                                   \
  _Pragma("unroll") for (int r = 0; r < RC; ++r) asm volatile("" : "+f"(f[r])::"memory"); \
  _Pragma("unroll") for (int r = 0; r < RC; ++r) d[r] = __float_as_uint(f[r]);
#define TCEMU_WG_BODY_R(RC, PTX, IMM)                                                 \
  TCEMU_WG_ASM(RC, PTX, IMM, TCEMU_WG_OUT_R_##RC);                                   \
  TCEMU_WG_WAIT();                                                                   \
  _Pragma("unroll") for (int r = 0; r < RC; ++r) asm volatile("" : "+r"(d[r])::"memory");
#if TCEMU_GPU_WGMMA_BODIES
#define TCEMU_WG_OP(ID, NEG, RC, ACC, PTX, IMM)                                               \
  template <>                                                                                 \
  __device__ void wg_op<ID, NEG>(uint64_t da, uint64_t db, uint32_t* d, int scale_d) {       \
    TCEMU_WG_BODY_##ACC(RC, PTX, IMM)                                                         \
  }
#else
#define TCEMU_WG_OP(ID, NEG, RC, ACC, PTX, IMM)                                               \
  template <>                                                                                 \
  __device__ void wg_op<ID, NEG>(uint64_t, uint64_t, uint32_t*, int) {}
#endif

template <int ID, int NEG, int N, int RC>
__global__ void __launch_bounds__(128) wg_kernel(const uint8_t* a_img, const uint8_t* b_img, const uint32_t* fc,
                                                 uint32_t* fd, int scale_d) {
  __shared__ __align__(1024) uint8_t sa[kAImage];
  __shared__ __align__(1024) uint8_t sb[N * 32];
  const int tid = threadIdx.x;
  const size_t tile = blockIdx.x;
  for (int i = tid; i < kAImage / 16; i += 128)
    reinterpret_cast<uint4*>(sa)[i] = reinterpret_cast<const uint4*>(a_img + tile * kAImage)[i];
  for (int i = tid; i < N * 2; i += 128)
    reinterpret_cast<uint4*>(sb)[i] = reinterpret_cast<const uint4*>(b_img + tile * N * 32)[i];
#if TCEMU_GPU_WGMMA_BODIES
  // Generic-proxy stores must be visible to the async proxy wgmma reads through.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
  __syncthreads();
  const size_t base = (tile * 128 + tid) * RC;
  uint32_t d[RC];
#pragma unroll
  for (int r = 0; r < RC; ++r) d[r] = fc[base + r];
  const uint64_t da = layout::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sa)), 128, 256);
  const uint64_t db = layout::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sb)), 128, 256);
#if TCEMU_GPU_WGMMA_BODIES
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
  wg_op<ID, NEG>(da, db, d, scale_d);  // issues, commits and waits (TCEMU_WG_BODY_*)
#pragma unroll
  for (int r = 0; r < RC; ++r) fd[base + r] = d[r];
}

template <int ID, int NEG, int N, int RC>
void launch(int tiles, const uint8_t* a, const uint8_t* b, const uint32_t* c, uint32_t* d, int scale_d) {
  wg_kernel<ID, NEG, N, RC><<<tiles, 128>>>(a, b, c, d, scale_d);
}

// The launcher of variant `neg`; instructions without imm-scale (integers) have only 0.
template <int ID, int N, int RC, bool HAS_NEG>
WgLaunch pick(int neg) {
  if constexpr (HAS_NEG) {
    switch (neg) {
      case 0: return &launch<ID, 0, N, RC>;
      case 1: return &launch<ID, 1, N, RC>;
      case 2: return &launch<ID, 2, N, RC>;
      case 3: return &launch<ID, 3, N, RC>;
    }
    return nullptr;
  } else {
    return neg == 0 ? &launch<ID, 0, N, RC> : nullptr;
  }
}

}  // namespace tcemu_gpu::wgmma_gen
