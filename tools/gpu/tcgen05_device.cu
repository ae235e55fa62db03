// Device side of tcemu-gpu for tcgen05.mma (sm_100a): one kernel per spelling of the catalog
// (tcgen05_layout.hpp), one CTA of 4 warps per device tile (a cluster of 2 for cta_group::2).
// Layouts and the shape (M = 128, N = 16, rows 0..31 and columns 0..7 used; M = 256, N = 32
// for a pair) are explained in tcgen05_layout.hpp.
// Built for sm_100a only; the bodies need __CUDA_ARCH_FEAT_SM100_ALL (the `a` target), so the
// host pass compiles empty kernels and run_tcgen05 refuses GPUs without an sm_100a image.
//
// Per CTA (PTX ISA 9.7.16): warp 0 allocates 32 TMEM columns (tcgen05.alloc, the address comes
// back through shared memory, ordered by tcgen05.fence::before/after_thread_sync around a
// barrier); all threads copy A and B into shared memory (fence.proxy.async: the tensor core
// reads through the async proxy); each warp writes its 32 TMEM lanes with tcgen05.st .32x32b
// (C into columns 0..15, the scale-factor words into columns 16 and 24, the same in every
// 32-lane partition), tcgen05.wait::st; thread 0 issues tcgen05.mma and tcgen05.commit to an
// mbarrier every thread waits on; each warp reads its lanes back with tcgen05.ld .32x32b and
// tcgen05.wait::ld; warp 0 deallocates.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda_util.cuh"
#include "gpu_backend.hpp"
#include "tcgen05_layout.hpp"

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TCEMU_TCGEN05_BODY 1
#else
#define TCEMU_TCGEN05_BODY 0
#endif

namespace tcemu_gpu {
namespace {

namespace tl = layout;

#if TCEMU_TCGEN05_BODY
__device__ __forceinline__ void tc_fence_before() { asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory"); }
__device__ __forceinline__ void tc_fence_after() { asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory"); }

// The instruction itself: d, a, b descriptors, idesc, scale-factor addresses, enable-input-d.
// Variants 0-7 are cta_group::1, 8-15 the same kinds with cta_group::2 (issued by the even CTA
// of the pair; the scale-factor addresses name the same TMEM columns in both CTAs,
// tcgen05_layout.hpp kTcgen05PairSfaCol).
template <int V>
__device__ __forceinline__ void tc_mma(uint32_t dt, uint64_t da, uint64_t db, uint32_t idesc, uint32_t sfa, uint32_t sfb,
                                       int enable) {
#define TCEMU_TC_PLAIN(CG, KIND)                                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\ntcgen05.mma.cta_group::" CG ".kind::" KIND     \
               " [%0], %1, %2, %3, p;\n}\n" ::"r"(dt),                                                    \
               "l"(da), "l"(db), "r"(idesc), "r"(enable)                                                  \
               : "memory")
#define TCEMU_TC_SCALED(CG, KIND)                                                                         \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\ntcgen05.mma.cta_group::" CG ".kind::" KIND     \
               " [%0], %1, %2, %3, [%4], [%5], p;\n}\n" ::"r"(dt),                                        \
               "l"(da), "l"(db), "r"(idesc), "r"(sfa), "r"(sfb), "r"(enable)                              \
               : "memory")
// One branch per kind of TCEMU_TCGEN05_KINDS (tcgen05_layout.hpp), the list the spellings
// of kTcgen05Spellings are built from.
#define TCEMU_TC_KIND(CG, I, KIND, SCALED)                 \
  if constexpr (V % 8 == I) {                              \
    if constexpr (SCALED) TCEMU_TC_SCALED(CG, KIND);       \
    else TCEMU_TC_PLAIN(CG, KIND);                         \
  }
#define TCEMU_TC_KIND_1(I, KIND, E, SCALED) TCEMU_TC_KIND("1", I, KIND, SCALED)
#define TCEMU_TC_KIND_2(I, KIND, E, SCALED) TCEMU_TC_KIND("2", I, KIND, SCALED)
  if constexpr (V < 8) {
    TCEMU_TCGEN05_KINDS(TCEMU_TC_KIND_1)
  } else {
    TCEMU_TCGEN05_KINDS(TCEMU_TC_KIND_2)
  }
#undef TCEMU_TC_KIND_1
#undef TCEMU_TC_KIND_2
#undef TCEMU_TC_KIND
#undef TCEMU_TC_PLAIN
#undef TCEMU_TC_SCALED
  if constexpr (!tl::tcgen05_block_scaled(V)) (void)sfa, (void)sfb;
}

// The form with scale-input-d (kinds f16 and tf32): D = A*B + D*2^-S, S an immediate 0..15.
template <int V, int S>
__device__ __forceinline__ void tc_mma_sid(uint32_t dt, uint64_t da, uint64_t db, uint32_t idesc, int enable) {
#define TCEMU_TC_SID(CG, KIND)                                                                             \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\ntcgen05.mma.cta_group::" CG ".kind::" KIND       \
               " [%0], %1, %2, %3, p, %5;\n}\n" ::"r"(dt),                                                \
               "l"(da), "l"(db), "r"(idesc), "r"(enable), "n"(S)                                          \
               : "memory")
  if constexpr (V == 0) TCEMU_TC_SID("1", "f16");
  else if constexpr (V == 1) TCEMU_TC_SID("1", "tf32");
  else if constexpr (V == 8) TCEMU_TC_SID("2", "f16");
  else if constexpr (V == 9) TCEMU_TC_SID("2", "tf32");
#undef TCEMU_TC_SID
}
template <int V, int... S>
__device__ __forceinline__ void tc_mma_sid_dispatch(int s, uint32_t dt, uint64_t da, uint64_t db, uint32_t idesc,
                                                    int enable, std::integer_sequence<int, S...>) {
  ((s == S ? tc_mma_sid<V, S>(dt, da, db, idesc, enable) : void()), ...);
}
// Issues the instruction: with scale-input-d when sid >= 0 (the host allows it for f16, tf32).
template <int V>
__device__ __forceinline__ void tc_issue(uint32_t dt, uint64_t da, uint64_t db, uint32_t idesc, uint32_t sfa,
                                         uint32_t sfb, int enable, int sid) {
  if constexpr (V == 0 || V == 1 || V == 8 || V == 9)
    if (sid >= 0) {
      tc_mma_sid_dispatch<V>(sid, dt, da, db, idesc, enable, std::make_integer_sequence<int, 16>{});
      return;
    }
  tc_mma<V>(dt, da, db, idesc, sfa, sfb, enable);
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_wait0(uint32_t mbar_addr) {
  uint32_t done = 0;
  while (!done)
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(mbar_addr)
        : "memory");
}

__device__ __forceinline__ void tc_st16(uint32_t taddr, const uint32_t (&r)[16]) {
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16};\n" ::"r"(taddr),
      "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]),
      "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15])
      : "memory");
}
__device__ __forceinline__ void tc_st1(uint32_t taddr, uint32_t v) {
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};\n" ::"r"(taddr), "r"(v) : "memory");
}
__device__ __forceinline__ void tc_ld16(uint32_t taddr, uint32_t (&r)[16]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "[%16];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
        "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
      : "r"(taddr)
      : "memory");
  asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
}
#endif

template <int V>
__global__ void __launch_bounds__(128) tc_kernel(const uint8_t* a_img, const uint8_t* b_img, const uint32_t* fc,
                                                 const uint32_t* fsa, const uint32_t* fsb, uint32_t* fd, uint32_t idesc,
                                                 uint64_t adesc, uint64_t bdesc, int enable_input_d, int sid) {
#if TCEMU_TCGEN05_BODY
  __shared__ __align__(1024) uint8_t sa[tl::kTcgen05AFull];
  __shared__ __align__(1024) uint8_t sb[tl::kTcgen05BFull];
  __shared__ __align__(8) uint64_t mbar;
  __shared__ uint32_t tmem_base;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const size_t tile = blockIdx.x;

  // Operands: the tile's rows of A and B, zeros in the rows the tile does not use.
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (int i = tid; i < tl::kTcgen05AFull / 16; i += 128)
    reinterpret_cast<uint4*>(sa)[i] =
        i < tl::kTcgen05AImage / 16 ? reinterpret_cast<const uint4*>(a_img + tile * tl::kTcgen05AImage)[i] : zero;
  for (int i = tid; i < tl::kTcgen05BFull / 16; i += 128)
    reinterpret_cast<uint4*>(sb)[i] =
        i < tl::kTcgen05BImage / 16 ? reinterpret_cast<const uint4*>(b_img + tile * tl::kTcgen05BImage)[i] : zero;
  const uint32_t mbar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&mbar));
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(
                     static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base))),
                 "r"(tl::kTcgen05TmemCols)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(mbar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  tc_fence_before();
  __syncthreads();
  tc_fence_after();
  const uint32_t tmem = tmem_base;
  const uint32_t my_lanes = tmem + (static_cast<uint32_t>(32 * warp) << 16);  // lane in bits 31..16

  // C (warp 0's lanes are rows 0..31; other rows zero) and the scale-factor words, which every
  // 32-lane partition repeats (tcgen05_scale_slot).
  uint32_t r[16];
  const size_t row = tile * tl::kTcgen05TileM + lane;
#pragma unroll
  for (int j = 0; j < 16; ++j) r[j] = (warp == 0 && j < tl::kTcgen05TileN) ? fc[row * tl::kTcgen05TileN + j] : 0u;
  tc_st16(my_lanes, r);
  tc_st1(my_lanes + tl::kTcgen05SfaCol, fsa[row]);
  tc_st1(my_lanes + tl::kTcgen05SfbCol, lane < tl::kTcgen05TileN ? fsb[tile * tl::kTcgen05TileN + lane] : 0u);
  asm volatile("tcgen05.wait::st.sync.aligned;\n" ::: "memory");
  tc_fence_before();
  __syncthreads();
  tc_fence_after();

  if (tid == 0) {
    // The descriptors' start-address field (bits 0-13, laid out as in wgmma's descriptor,
    // fragment_layout.hpp); the host built the rest (tcgen05_smem_desc of address 0).
    const uint64_t da = adesc | tl::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sa)), 0, 0);
    const uint64_t db = bdesc | tl::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sb)), 0, 0);
    tc_issue<V>(tmem, da, db, idesc, tmem + tl::kTcgen05SfaCol, tmem + tl::kTcgen05SfbCol, enable_input_d, sid);
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(mbar_addr)
                 : "memory");
  }
  mbar_wait0(mbar_addr);
  tc_fence_after();
  __syncwarp();  // tcgen05.ld is .sync.aligned: the warp reconverged after the wait loop
  tc_ld16(my_lanes, r);
  if (warp == 0)
#pragma unroll
    for (int j = 0; j < tl::kTcgen05TileN; ++j) fd[row * tl::kTcgen05TileN + j] = r[j];
  tc_fence_before();
  __syncthreads();
  if (warp == 0) {
    tc_fence_after();
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(tmem), "r"(tl::kTcgen05TmemCols)
                 : "memory");
  }
#else
  (void)a_img, (void)b_img, (void)fc, (void)fsa, (void)fsb, (void)fd, (void)idesc, (void)adesc, (void)bdesc,
      (void)enable_input_d, (void)sid;
#endif
}

// cta_group::2: a cluster of 2 CTAs per device tile (blockIdx.x / 2), the pair's TMEM
// allocated by one warp in each CTA (tcgen05.alloc.cta_group::2: the same address in both),
// cluster barriers (barrier.cluster arrive.release / wait.acquire, with the tcgen05 fences)
// where one CTA's shared-memory and TMEM writes must be seen by the MMA the even CTA issues,
// tcgen05.commit.cta_group::2 multicast to the mbarrier of both CTAs (mask 0b11), and a
// cluster barrier before the pair deallocates (9.7.16.5, 9.7.16.7.1). Block-scaled kinds: each
// CTA writes the scale_A words of its own rows and the same scale_B words (tcgen05_layout.hpp,
// kTcgen05PairSfaCol: where a pair keeps them is read from CUTLASS and Triton).
template <int V>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    tc_pair_kernel(const uint8_t* a_img, const uint8_t* b_img, const uint32_t* fc, const uint32_t* fsa,
                   const uint32_t* fsb, uint32_t* fd, uint32_t idesc, uint64_t adesc, uint64_t bdesc, int enable_input_d,
                   int sid) {
#if TCEMU_TCGEN05_BODY
  __shared__ __align__(1024) uint8_t sa[tl::kTcgen05AFull];
  __shared__ __align__(1024) uint8_t sb[tl::kTcgen05BFull];
  __shared__ __align__(8) uint64_t mbar;
  __shared__ uint32_t tmem_base;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  const size_t tile = blockIdx.x / 2, piece = tile * 2 + rank;  // this CTA's 32 rows of the tile
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (int i = tid; i < tl::kTcgen05AFull / 16; i += 128)
    reinterpret_cast<uint4*>(sa)[i] =
        i < tl::kTcgen05AImage / 16 ? reinterpret_cast<const uint4*>(a_img + piece * tl::kTcgen05AImage)[i] : zero;
  for (int i = tid; i < tl::kTcgen05BFull / 16; i += 128)  // B's columns 0..7 in the even CTA
    reinterpret_cast<uint4*>(sb)[i] = rank == 0 && i < tl::kTcgen05BImage / 16
                                          ? reinterpret_cast<const uint4*>(b_img + tile * tl::kTcgen05BImage)[i]
                                          : zero;
  const uint32_t mbar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&mbar));
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(
                     static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base))),
                 "r"(tl::kTcgen05PairTmemCols)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n" ::: "memory");
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(mbar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  // All state spaces: the even CTA's tensor core also reads this CTA's shared memory.
  asm volatile("fence.proxy.async;\n" ::: "memory");
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  const uint32_t tmem = tmem_base;
  const uint32_t my_lanes = tmem + (static_cast<uint32_t>(32 * warp) << 16);
  uint32_t r[16], z[16];
  const size_t row = piece * tl::kTcgen05TileM + lane;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    r[j] = (warp == 0 && j < tl::kTcgen05TileN) ? fc[row * tl::kTcgen05TileN + j] : 0u;
    z[j] = 0;
  }
  tc_st16(my_lanes, r);       // D columns 0..15
  tc_st16(my_lanes + 16, z);  // and 16..31 (N = 32)
  if constexpr (tl::tcgen05_block_scaled(V)) {
    // Every 32-lane partition repeats the words, as in tc_kernel. scale_A: this CTA's rows;
    // scale_B: columns 0..7 of the instruction, the same in both CTAs.
    tc_st1(my_lanes + tl::kTcgen05PairSfaCol, fsa[row]);
    tc_st1(my_lanes + tl::kTcgen05PairSfbCol, lane < tl::kTcgen05TileN ? fsb[tile * tl::kTcgen05TileN + lane] : 0u);
  }
  asm volatile("tcgen05.wait::st.sync.aligned;\n" ::: "memory");
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  if (rank == 0 && tid == 0) {
    const uint64_t da = adesc | tl::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sa)), 0, 0);
    const uint64_t db = bdesc | tl::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(sb)), 0, 0);
    tc_issue<V>(tmem, da, db, idesc, tmem + tl::kTcgen05PairSfaCol, tmem + tl::kTcgen05PairSfbCol, enable_input_d, sid);
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n" ::"r"(
            mbar_addr),
        "h"(static_cast<uint16_t>(3))
        : "memory");
  }
  mbar_wait0(mbar_addr);
  tc_fence_after();
  __syncwarp();  // tcgen05.ld is .sync.aligned: the warp reconverged after the wait loop
  tc_ld16(my_lanes, r);
  if (warp == 0)
#pragma unroll
    for (int j = 0; j < tl::kTcgen05TileN; ++j) fd[row * tl::kTcgen05TileN + j] = r[j];
  tc_fence_before();
  cluster_sync();
  if (warp == 0) {
    tc_fence_after();
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\n" ::"r"(tmem), "r"(tl::kTcgen05PairTmemCols)
                 : "memory");
  }
#else
  (void)a_img, (void)b_img, (void)fc, (void)fsa, (void)fsb, (void)fd, (void)idesc, (void)adesc, (void)bdesc,
      (void)enable_input_d, (void)sid;
#endif
}

using Kernel = void (*)(const uint8_t*, const uint8_t*, const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*,
                        uint32_t, uint64_t, uint64_t, int, int);
const Kernel kKernels[tl::kTcgen05Variants] = {
    &tc_kernel<0>,      &tc_kernel<1>,      &tc_kernel<2>,       &tc_kernel<3>,      &tc_kernel<4>, &tc_kernel<5>,
    &tc_kernel<6>,      &tc_kernel<7>,      &tc_pair_kernel<8>,  &tc_pair_kernel<9>, &tc_pair_kernel<10>,
    &tc_pair_kernel<11>, &tc_pair_kernel<12>, &tc_pair_kernel<13>, &tc_pair_kernel<14>, &tc_pair_kernel<15>};

}  // namespace

std::string run_tcgen05(const std::string& ptx, int tiles, const Tcgen05Launch& l, const std::vector<uint8_t>& a_img,
                        const std::vector<uint8_t>& b_img, const std::vector<uint32_t>& c,
                        const std::vector<uint32_t>& sa, const std::vector<uint32_t>& sb, std::vector<uint32_t>& d) {
  int v = -1;
  for (int i = 0; i < tl::kTcgen05Variants; ++i)
    if (ptx == tl::kTcgen05Spellings[i]) v = i;
  if (v < 0) return "no tcgen05 kernel for " + ptx;
  if (l.scale_input_d > 15 || (l.scale_input_d >= 0 && v != 0 && v != 1 && v != 8 && v != 9))
    return "run_tcgen05: scale_input_d is 0..15 and only for kinds f16, tf32";
  const size_t T = static_cast<size_t>(tiles), P = static_cast<size_t>(tl::tcgen05_ctas(v)),
               words = T * P * tl::kTcgen05TileM * tl::kTcgen05TileN;
  if (tiles <= 0 || a_img.size() != T * P * tl::kTcgen05AImage || b_img.size() != T * tl::kTcgen05BImage ||
      c.size() != words || sa.size() != T * P * tl::kTcgen05TileM || sb.size() != T * tl::kTcgen05TileN)
    return "run_tcgen05: operand arrays of the wrong size";
  // Without an sm_100a image (another GPU) the kernel cannot be launched: say so.
  cudaFuncAttributes attr{};
  cudaError_t e = cudaFuncGetAttributes(&attr, kKernels[v]);
  if (e != cudaSuccess) return cuda_util::error(e, "tcgen05 kernel (built for sm_100a only)");
  cuda_util::DevBuf<uint8_t> da, db;
  cuda_util::DevBuf<uint32_t> dc, dsa, dsb, dd;
  if ((e = da.upload(a_img)) != cudaSuccess || (e = db.upload(b_img)) != cudaSuccess || (e = dc.upload(c)) != cudaSuccess ||
      (e = dsa.upload(sa)) != cudaSuccess || (e = dsb.upload(sb)) != cudaSuccess || (e = dd.upload(c)) != cudaSuccess)
    return cuda_util::error(e, "upload");
  // A pair kernel allocates 64 TMEM columns per CTA; 16 resident CTAs of an SM would ask for
  // 1024 of its 512. Unused dynamic shared memory (32 KiB) keeps at most 6 on an SM, so a pair
  // never waits for columns that CTAs waiting for their own partners hold.
  const size_t smem = P == 2 ? 32768 : 0;
  kKernels[v]<<<tiles * static_cast<int>(P), 128, smem>>>(da.p, db.p, dc.p, dsa.p, dsb.p, dd.p, l.idesc, l.adesc, l.bdesc, l.enable_input_d ? 1 : 0,
      l.scale_input_d);
  if ((e = cudaGetLastError()) != cudaSuccess) return cuda_util::error(e, "launch");
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_util::error(e, "kernel");
  d.resize(words);
  if ((e = cudaMemcpy(d.data(), dd.p, words * 4, cudaMemcpyDeviceToHost)) != cudaSuccess) return cuda_util::error(e, "download");
  return "";
}

}  // namespace tcemu_gpu
