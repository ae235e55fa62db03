// mma_record: runs tensor-core instructions of sm_90a (mma.sync and wgmma) on directed and
// random tiles and records inputs and hardware outputs as element codes, for later bit-exact
// comparison with the emulator's datapath models. It only records; it judges nothing except
// its own operand layouts (a self-check with exactly representable integer tiles).
//
// Each instruction runs in its own child process (fork before any CUDA call in the parent), so
// an instruction that faults or hangs cannot take the others down; the parent kills a child
// after --child-timeout seconds and notes it in the summary.
//
// Output (DIR/mma/<spelling>[_scale-d0|_scale-d1].txt, one per instruction and scale-d), format
// documented in docs/gpu.md and in each file's header; DIR/mma_summary.txt lists them.
//
// Usage: mma_record [--out DIR] [--only SUBSTRING] [--jobs N] [--random N] [--random-wg N]
//                   [--child-timeout S] [--list]
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gpu_common.hpp"
#include "mma_tiles.hpp"

using namespace tcemu_gpu;

namespace {

// ---------------------------------------------------------------------------------------
// Instructions. Columns: id, asm class, spelling, M, N, K, A, B, C, D formats.
// mma.sync classes name the register counts of A, B and C/D (F: f32 C/D, I: s32, H: f16x2).
// wgmma classes: FULL takes imm-scale-a/b and imm-trans-a/b, AB only the scales, INT neither.
// Element formats of the table (s32: the integer accumulator).
constexpr Fmt fmt_f16 = Fmt::f16, fmt_bf16 = Fmt::bf16, fmt_tf32 = Fmt::tf32, fmt_f32 = Fmt::f32, fmt_e4m3 = Fmt::e4m3,
              fmt_e5m2 = Fmt::e5m2, fmt_s8 = Fmt::s8, fmt_s32 = Fmt::s32;
#define F_(x) fmt_##x
#define TCEMU_MMA_SYNC(X)                                                                              \
  X(0, M424F, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, f16, f16, f32, f32)       \
  X(1, M422H, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, 8, 16, f16, f16, f16, f16)       \
  X(2, M424F, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, bf16, bf16, f32, f32)   \
  X(3, M424F, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8, tf32, tf32, f32, f32)     \
  X(4, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 8, 32, e4m3, e4m3, f32, f32)   \
  X(5, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", 16, 8, 32, e5m2, e5m2, f32, f32)   \
  X(6, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", 16, 8, 32, e4m3, e5m2, f32, f32)   \
  X(7, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", 16, 8, 32, e5m2, e4m3, f32, f32)   \
  X(8, M422H, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", 16, 8, 32, e4m3, e4m3, f16, f16)   \
  X(9, M422H, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", 16, 8, 32, e5m2, e5m2, f16, f16)   \
  X(10, M214F, "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32", 16, 8, 16, e4m3, e4m3, f32, f32)  \
  X(11, M424I, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 16, 8, 32, s8, s8, s32, s32)          \
  X(12, M424I, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", 16, 8, 32, s8, s8, s32, s32) \
  X(13, M214I, "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", 16, 8, 16, s8, s8, s32, s32)          \
  X(14, M214I, "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32", 16, 8, 16, s8, s8, s32, s32) \
  X(15, M214F, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 16, 8, 8, f16, f16, f32, f32)         \
  X(16, M212H, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", 16, 8, 8, f16, f16, f16, f16)         \
  X(17, M214F, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 16, 8, 8, bf16, bf16, f32, f32)     \
  X(18, M214F, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", 16, 8, 4, tf32, tf32, f32, f32)

#define TCEMU_WGMMA(X)                                                                                \
  X(100, WF32FULL, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", 64, 8, 16, f16, f16, f32, f32)   \
  X(101, WF16FULL, "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", 64, 8, 16, f16, f16, f16, f16)   \
  X(102, WF32FULL, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", 64, 8, 16, bf16, bf16, f32, f32) \
  X(103, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", 64, 8, 8, tf32, tf32, f32, f32)    \
  X(104, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", 64, 8, 32, e4m3, e4m3, f32, f32)  \
  X(105, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2", 64, 8, 32, e5m2, e5m2, f32, f32)  \
  X(106, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2", 64, 8, 32, e4m3, e5m2, f32, f32)  \
  X(107, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3", 64, 8, 32, e5m2, e4m3, f32, f32)  \
  X(108, WF16AB, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3", 64, 8, 32, e4m3, e4m3, f16, f16)  \
  X(109, WF16AB, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2", 64, 8, 32, e5m2, e5m2, f16, f16)  \
  X(110, WINT, "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8", 64, 8, 32, s8, s8, s32, s32)            \
  X(111, WINT, "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8", 64, 8, 32, s8, s8, s32, s32)

// ---- device: mma.sync ------------------------------------------------------------------
// Registers travel as raw 32-bit words; f32 operands are moved through float registers
// bit for bit (__uint_as_float is a move, never arithmetic).
#define UF(x) __uint_as_float(x)
#define FU(x) __float_as_uint(x)

#define ASM_M424F(SP)                                                                                        \
  float d0, d1, d2, d3;                                                                                      \
  asm volatile(SP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                               \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(UF(c[0])), "f"(UF(c[1])), \
                 "f"(UF(c[2])), "f"(UF(c[3])));                                                                \
  d[0] = FU(d0); d[1] = FU(d1); d[2] = FU(d2); d[3] = FU(d3);
#define ASM_M424I(SP)                                                                                  \
  asm volatile(SP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                         \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                        \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), \
                 "r"(c[2]), "r"(c[3]));
#define ASM_M422H(SP)                                                                                   \
  asm volatile(SP " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                                          \
               : "=r"(d[0]), "=r"(d[1])                                                                 \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
#define ASM_M214F(SP)                                                                                       \
  float d0, d1, d2, d3;                                                                                     \
  asm volatile(SP " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                                          \
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                                     \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(UF(c[0])), "f"(UF(c[1])), "f"(UF(c[2])), "f"(UF(c[3]))); \
  d[0] = FU(d0); d[1] = FU(d1); d[2] = FU(d2); d[3] = FU(d3);
#define ASM_M214I(SP)                                                                             \
  asm volatile(SP " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                                \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                   \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
#define ASM_M212H(SP)                                              \
  asm volatile(SP " {%0,%1}, {%2,%3}, {%4}, {%5,%6};"              \
               : "=r"(d[0]), "=r"(d[1])                            \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));

template <int ID>
__device__ void mma_op(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d);
#define TCEMU_DEF_MMA(ID, CLS, SP, M, N, K, FA, FB, FC, FD) \
  template <>                                               \
  __device__ void mma_op<ID>(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) { ASM_##CLS(SP) }
TCEMU_MMA_SYNC(TCEMU_DEF_MMA)
#undef TCEMU_DEF_MMA

// One warp per tile; every lane's registers at [(tile*32 + lane)*4 + r].
template <int ID>
__global__ void mma_kernel(const uint32_t* fa, const uint32_t* fb, const uint32_t* fc, uint32_t* fd) {
  const size_t base = (static_cast<size_t>(blockIdx.x) * 32 + threadIdx.x) * 4;
  uint32_t a[4], b[4], c[4], d[4] = {0, 0, 0, 0};
#pragma unroll
  for (int r = 0; r < 4; ++r) { a[r] = fa[base + r]; b[r] = fb[base + r]; c[r] = fc[base + r]; }
  mma_op<ID>(a, b, c, d);
#pragma unroll
  for (int r = 0; r < 4; ++r) fd[base + r] = d[r];
}

// ---- device: wgmma ---------------------------------------------------------------------
#define ASM_WF32FULL(SP)                                                                         \
  float d0 = UF(d[0]), d1 = UF(d[1]), d2 = UF(d[2]), d3 = UF(d[3]);                              \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" SP " {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\n}\n" \
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                                          \
               : "l"(da), "l"(db), "r"(scale_d));                                                \
  d[0] = FU(d0); d[1] = FU(d1); d[2] = FU(d2); d[3] = FU(d3);
#define ASM_WF32AB(SP)                                                                    \
  float d0 = UF(d[0]), d1 = UF(d[1]), d2 = UF(d[2]), d3 = UF(d[3]);                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" SP " {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}\n" \
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                                   \
               : "l"(da), "l"(db), "r"(scale_d));                                         \
  d[0] = FU(d0); d[1] = FU(d1); d[2] = FU(d2); d[3] = FU(d3);
#define ASM_WF16FULL(SP)                                                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n" SP " {%0,%1}, %2, %3, p, 1, 1, 0, 0;\n}\n" \
               : "+r"(d[0]), "+r"(d[1])                                                       \
               : "l"(da), "l"(db), "r"(scale_d));
#define ASM_WF16AB(SP)                                                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n" SP " {%0,%1}, %2, %3, p, 1, 1;\n}\n" \
               : "+r"(d[0]), "+r"(d[1])                                                 \
               : "l"(da), "l"(db), "r"(scale_d));
#define ASM_WINT(SP)                                                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" SP " {%0,%1,%2,%3}, %4, %5, p;\n}\n" \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                        \
               : "l"(da), "l"(db), "r"(scale_d));

template <int ID>
__device__ void wg_op(uint64_t da, uint64_t db, uint32_t* d, int scale_d);
#define TCEMU_DEF_WG(ID, CLS, SP, M, N, K, FA, FB, FC, FD) \
  template <>                                              \
  __device__ void wg_op<ID>(uint64_t da, uint64_t db, uint32_t* d, int scale_d) { ASM_##CLS(SP) }
TCEMU_WGMMA(TCEMU_DEF_WG)
#undef TCEMU_DEF_WG

constexpr int kWgAImage = 2048;  // 64 rows x 32 bytes of K
constexpr int kWgBImage = 256;   // 8 rows (N) x 32 bytes of K

// Shared-memory matrix descriptor, no swizzle (PTX ISA "Matrix Descriptor Format"): start
// address, leading- and stride-dimension byte offsets, each >> 4 in 14-bit fields.
__device__ uint64_t smem_desc(const void* p, uint32_t lbo, uint32_t sbo) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return static_cast<uint64_t>((addr >> 4) & 0x3fff) | (static_cast<uint64_t>((lbo >> 4) & 0x3fff) << 16) |
         (static_cast<uint64_t>((sbo >> 4) & 0x3fff) << 32);
}

// One warpgroup (128 threads) per tile. C enters through the accumulator registers.
template <int ID>
__global__ void __launch_bounds__(128) wg_kernel(const uint8_t* a_img, const uint8_t* b_img, const uint32_t* fc,
                                                 uint32_t* fd, uint32_t lbo, uint32_t sbo, int scale_d) {
  __shared__ __align__(1024) uint8_t sa[kWgAImage];
  __shared__ __align__(1024) uint8_t sb[kWgBImage];
  const int tid = threadIdx.x;
  const size_t tile = blockIdx.x;
  reinterpret_cast<uint4*>(sa)[tid] = reinterpret_cast<const uint4*>(a_img + tile * kWgAImage)[tid];
  if (tid < kWgBImage / 16) reinterpret_cast<uint4*>(sb)[tid] = reinterpret_cast<const uint4*>(b_img + tile * kWgBImage)[tid];
  // Generic-proxy stores must be made visible to the async proxy that wgmma reads through.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const size_t base = (tile * 128 + tid) * 4;
  uint32_t d[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) d[r] = fc[base + r];
  const uint64_t da = smem_desc(sa, lbo, sbo), db = smem_desc(sb, lbo, sbo);
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  wg_op<ID>(da, db, d, scale_d);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int r = 0; r < 4; ++r) fd[base + r] = d[r];
}

// ---- host: the table -------------------------------------------------------------------
using MmaLaunch = void (*)(int, const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*);
using WgLaunch = void (*)(int, const uint8_t*, const uint8_t*, const uint32_t*, uint32_t*, uint32_t, uint32_t, int);
template <int ID>
void launch_mma(int tiles, const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  mma_kernel<ID><<<tiles, 32>>>(a, b, c, d);
}
template <int ID>
void launch_wg(int tiles, const uint8_t* a, const uint8_t* b, const uint32_t* c, uint32_t* d, uint32_t lbo, uint32_t sbo,
               int scale_d) {
  wg_kernel<ID><<<tiles, 128>>>(a, b, c, d, lbo, sbo, scale_d);
}

struct Instr {
  int id;
  const char* spelling;
  bool wgmma;
  int ra, rb, rc;  // registers per thread of A, B, C/D (wgmma: only rc)
  TileFormats tf;
  MmaLaunch mma;
  WgLaunch wg;
};

constexpr int regs_a(const char* cls) { return cls[1] == '4' ? 4 : 2; }
constexpr int regs_b(const char* cls) { return cls[2] == '2' ? 2 : 1; }
constexpr int regs_c(const char* cls) { return cls[3] == '4' ? 4 : 2; }
constexpr int regs_wg(const char* cls) { return cls[1] == 'F' && cls[2] == '1' ? 2 : 4; }

const Instr kInstrs[] = {
#define TCEMU_ROW_MMA(ID, CLS, SP, M, N, K, FA, FB, FC, FD) \
  {ID, SP, false, regs_a(#CLS), regs_b(#CLS), regs_c(#CLS), {F_(FA), F_(FB), F_(FC), F_(FD), M, N, K}, &launch_mma<ID>, nullptr},
    TCEMU_MMA_SYNC(TCEMU_ROW_MMA)
#undef TCEMU_ROW_MMA
#define TCEMU_ROW_WG(ID, CLS, SP, M, N, K, FA, FB, FC, FD) \
  {ID, SP, true, 0, 0, regs_wg(#CLS), {F_(FA), F_(FB), F_(FC), F_(FD), M, N, K}, nullptr, &launch_wg<ID>},
        TCEMU_WGMMA(TCEMU_ROW_WG)
#undef TCEMU_ROW_WG
};

}  // namespace

namespace {

// ---- host: operand layouts -------------------------------------------------------------
// mma.sync fragments (PTX ISA "Matrix Fragments for mma.m16n8k*"): lane = 4*g + t.
//   A, register r, element e (EA elements per register): m = g + 8*(r&1),
//     k = EA*t + e + (K/2)*(r>>1)
//   B: k = EB*t + e + (K/2)*r, n = g
//   C/D, element i = r*EC + e: m = g + 8*(i>>1), n = 2t + (i&1)
// wgmma: C/D as above in each warp w of the warpgroup, rows offset by 16w; A and B in shared
// memory, K-major, no swizzle: 8x16-byte core matrices, K-direction core matrices 128 bytes
// apart, M/N-direction ones 256 bytes apart.

uint64_t fmt_mask(Fmt f) { return fmt_bits(f) >= 64 ? ~uint64_t{0} : (uint64_t{1} << fmt_bits(f)) - 1; }

struct Packed {
  std::vector<uint32_t> a, b, c;  // mma.sync fragments, or wgmma C (a, b empty)
  std::vector<uint8_t> a_img, b_img;
};

void pack_tile(const Instr& in, const Tile& t, Packed& p) {
  const TileFormats& tf = in.tf;
  const int K = tf.k, N = tf.n;
  const int ea = 32 / fmt_bits(tf.a), eb = 32 / fmt_bits(tf.b), ec = 32 / fmt_bits(tf.c);
  const int threads = in.wgmma ? 128 : 32;
  const size_t cbase = p.c.size();
  p.c.resize(cbase + threads * 4, 0);
  for (int tid = 0; tid < threads; ++tid) {
    const int lane = tid % 32, w = tid / 32, g = lane / 4, tt = lane % 4;
    for (int r = 0; r < in.rc; ++r)
      for (int e = 0; e < ec; ++e) {
        const int i = r * ec + e, m = 16 * w + g + 8 * (i >> 1), n = 2 * tt + (i & 1);
        p.c[cbase + tid * 4 + r] |= static_cast<uint32_t>((t.c[m * N + n] & fmt_mask(tf.c)) << (e * fmt_bits(tf.c)));
      }
  }
  if (!in.wgmma) {
    const size_t base = p.a.size();
    p.a.resize(base + 128, 0);
    p.b.resize(base + 128, 0);
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, tt = lane % 4;
      for (int r = 0; r < in.ra; ++r)
        for (int e = 0; e < ea; ++e) {
          const int m = g + 8 * (r & 1), k = ea * tt + e + (K / 2) * (r >> 1);
          p.a[base + lane * 4 + r] |= static_cast<uint32_t>((t.a[m * K + k] & fmt_mask(tf.a)) << (e * fmt_bits(tf.a)));
        }
      for (int r = 0; r < in.rb; ++r)
        for (int e = 0; e < eb; ++e) {
          const int k = eb * tt + e + (K / 2) * r, n = g;
          p.b[base + lane * 4 + r] |= static_cast<uint32_t>((t.b[k * N + n] & fmt_mask(tf.b)) << (e * fmt_bits(tf.b)));
        }
    }
    return;
  }
  const size_t abase = p.a_img.size(), bbase = p.b_img.size();
  p.a_img.resize(abase + kWgAImage, 0);
  p.b_img.resize(bbase + kWgBImage, 0);
  auto put = [](uint8_t* img, int row, int k, int bytes, uint64_t code) {
    const int kb = k * bytes;
    const int off = (row / 8) * 256 + (kb / 16) * 128 + (row % 8) * 16 + kb % 16;
    for (int i = 0; i < bytes; ++i) img[off + i] = static_cast<uint8_t>(code >> (8 * i));
  };
  const int ba = fmt_bits(tf.a) / 8, bb = fmt_bits(tf.b) / 8;
  for (int m = 0; m < tf.m; ++m)
    for (int k = 0; k < K; ++k) put(&p.a_img[abase], m, k, ba, t.a[m * K + k]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) put(&p.b_img[bbase], n, k, bb, t.b[k * N + n]);
}

void unpack_d(const Instr& in, const uint32_t* fd, Tile& t) {
  const TileFormats& tf = in.tf;
  const int ec = 32 / fmt_bits(tf.d), threads = in.wgmma ? 128 : 32;
  t.d.assign(tf.m * tf.n, 0);
  for (int tid = 0; tid < threads; ++tid) {
    const int lane = tid % 32, w = tid / 32, g = lane / 4, tt = lane % 4;
    for (int r = 0; r < in.rc; ++r)
      for (int e = 0; e < ec; ++e) {
        const int i = r * ec + e, m = 16 * w + g + 8 * (i >> 1), n = 2 * tt + (i & 1);
        t.d[m * tf.n + n] = (fd[tid * 4 + r] >> (e * fmt_bits(tf.d))) & fmt_mask(tf.d);
      }
  }
}

// Runs tiles on the GPU; false (with a message) on any CUDA error.
bool run_tiles(const Instr& in, std::vector<Tile>& tiles, uint32_t lbo, uint32_t sbo, int scale_d, std::string& err) {
  if (tiles.empty()) return true;
  Packed p;
  for (const Tile& t : tiles) pack_tile(in, t, p);
  const int threads = in.wgmma ? 128 : 32;
  const size_t nd = tiles.size() * threads * 4;
  uint32_t *da = nullptr, *db = nullptr, *dc = nullptr, *dd = nullptr;
  uint8_t *ia = nullptr, *ib = nullptr;
  auto fail = [&](cudaError_t e, const char* what) {
    err = std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    return false;
  };
  cudaError_t e;
  if ((e = cudaMalloc(&dc, nd * 4)) || (e = cudaMalloc(&dd, nd * 4))) return fail(e, "cudaMalloc");
  if ((e = cudaMemcpy(dc, p.c.data(), nd * 4, cudaMemcpyHostToDevice))) return fail(e, "copy C");
  if (!in.wgmma) {
    if ((e = cudaMalloc(&da, nd * 4)) || (e = cudaMalloc(&db, nd * 4))) return fail(e, "cudaMalloc");
    if ((e = cudaMemcpy(da, p.a.data(), nd * 4, cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(db, p.b.data(), nd * 4, cudaMemcpyHostToDevice)))
      return fail(e, "copy A/B");
    in.mma(static_cast<int>(tiles.size()), da, db, dc, dd);
  } else {
    if ((e = cudaMalloc(&ia, p.a_img.size())) || (e = cudaMalloc(&ib, p.b_img.size()))) return fail(e, "cudaMalloc");
    if ((e = cudaMemcpy(ia, p.a_img.data(), p.a_img.size(), cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(ib, p.b_img.data(), p.b_img.size(), cudaMemcpyHostToDevice)))
      return fail(e, "copy A/B images");
    in.wg(static_cast<int>(tiles.size()), ia, ib, dc, dd, lbo, sbo, scale_d);
  }
  if ((e = cudaGetLastError())) return fail(e, "launch");
  if ((e = cudaDeviceSynchronize())) return fail(e, "kernel");
  std::vector<uint32_t> hd(nd);
  if ((e = cudaMemcpy(hd.data(), dd, nd * 4, cudaMemcpyDeviceToHost))) return fail(e, "copy D");
  for (size_t i = 0; i < tiles.size(); ++i) unpack_d(in, &hd[i * threads * 4], tiles[i]);
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd); cudaFree(ia); cudaFree(ib);
  return true;
}

// Exact product of a layout-check tile (small integers: every datapath is exact).
int layout_mismatches(const Instr& in, const Tile& t, int scale_d, std::string& first) {
  const TileFormats& tf = in.tf;
  int bad = 0;
  for (int m = 0; m < tf.m; ++m)
    for (int n = 0; n < tf.n; ++n) {
      double s = scale_d ? value_of(tf.c, t.c[m * tf.n + n]) : 0.0;
      for (int k = 0; k < tf.k; ++k) s += value_of(tf.a, t.a[m * tf.k + k]) * value_of(tf.b, t.b[k * tf.n + n]);
      const double got = value_of(tf.d, t.d[m * tf.n + n]);
      if (got != s) {
        if (bad == 0) {
          std::ostringstream os;
          os << "D[" << m << "][" << n << "] = " << got << ", expected " << s;
          first = os.str();
        }
        ++bad;
      }
    }
  return bad;
}

struct Options {
  std::string out_dir = ".";
  std::string only;
  int jobs = 4;
  int random = 30;     // random tiles per distribution, mma.sync
  int random_wg = 12;  // per distribution, wgmma with scale-d = 1 (a quarter of it with scale-d = 0)
  int child_timeout = 90;
  bool list = false;
  int child = -1;  // internal: run this instruction index and exit
  bool host_dry_run = false;  // no GPU: D := C through the C/D packing, to check generation and sizes
};

std::string file_stem(const Instr& in, int scale_d) {
  std::string s = in.spelling;
  if (in.wgmma) s += scale_d ? "_scale-d1" : "_scale-d0";
  return s;
}

void write_record(const std::string& path, const Instr& in, const cudaDeviceProp& prop, int scale_d,
                  const std::string& layout, bool valid, const std::string& desc_note, const std::vector<Tile>& tiles) {
  std::ofstream f(path);
  const TileFormats& tf = in.tf;
  f << "# tcemu mma record, format 1 (docs/gpu.md). Codes are hex element codes of the named formats.\n"
    << "# Each tile: a line 'tile <i> <label>', then lines A (M*K codes, row-major A[m][k]), B (K*N codes,\n"
    << "# row-major B[k][n]), C (M*N, row-major), D (M*N, row-major): D = A*B + C as the hardware computed it.\n"
    << "instruction " << in.spelling << "\n"
    << "device " << prop.name << " sm_" << prop.major << prop.minor << "\n"
    << "shape M=" << tf.m << " N=" << tf.n << " K=" << tf.k << "\n"
    << "formats A=" << fmt_name(tf.a) << " B=" << fmt_name(tf.b) << " C=" << fmt_name(tf.c) << " D=" << fmt_name(tf.d)
    << "\n"
    << "scale_d " << scale_d << (scale_d ? " (C entered through the accumulator)" : " (D = A*B; C did not enter)") << "\n";
  if (in.wgmma) f << "operands A and B from shared memory, K-major, no swizzle; " << desc_note << "\n";
  f << "layout_check " << layout << "\n"
    << "status " << (valid ? "VALID" : "INVALID (layout self-check failed: do not use these tiles)") << "\n"
    << "tiles " << tiles.size() << "\n";
  auto row = [&](const char* tag, const std::vector<uint64_t>& v, Fmt fm) {
    f << tag;
    const int digits = fmt_bits(fm) / 4;
    for (uint64_t c : v) f << ' ' << hex(c, digits);
    f << '\n';
  };
  for (size_t i = 0; i < tiles.size(); ++i) {
    f << "tile " << i << ' ' << tiles[i].label << '\n';
    row("A", tiles[i].a, tf.a);
    row("B", tiles[i].b, tf.b);
    row("C", tiles[i].c, tf.c);
    row("D", tiles[i].d, tf.d);
  }
}

// The tiles of one run: layout checks, probes (float or integer), random tiles.
std::vector<Tile> build_tiles(const Instr& in, int n_random, uint64_t seed, std::vector<std::string>& skipped) {
  std::vector<Tile> tiles;
  const bool is_int = in.tf.a == Fmt::s8;
  for (const ValTile& v : is_int ? integer_probes(in.tf) : directed_probes(in.tf)) {
    if (auto t = realize(v, in.tf)) tiles.push_back(*t);
    else skipped.push_back(v.label);
  }
  SplitMix rng(seed);
  for (Dist d : {Dist::bits, Dist::unit, Dist::wide, Dist::subnormal})
    for (int i = 0; i < n_random; ++i) tiles.push_back(random_tile(in.tf, d, rng, i));
  if (in.tf.a == Fmt::tf32) {
    // The low 13 bits of a tf32 operand: the PTX ISA says the hardware ignores them.
    for (int i = 0; i < 4; ++i) {
      Tile t = random_tile(in.tf, Dist::unit, rng, i);
      t.label = "tf32-low-bits-set " + std::to_string(i);
      for (auto& c : t.a) c |= rng.next() & 0x1fff;
      for (auto& c : t.b) c |= rng.next() & 0x1fff;
      tiles.push_back(t);
    }
  }
  return tiles;
}

// Without a GPU: the tiles are built and written with D taken from C through pack_tile and
// unpack_d (C and D share their format in every instruction here), which checks that the two
// layouts are inverse and shows the size of the record. Prints the probes that did not fit.
int host_dry_run(const Instr& in, const Options& o) {
  cudaDeviceProp prop{};
  std::snprintf(prop.name, sizeof prop.name, "host-dry-run (no GPU; D is C)");
  const uint64_t seed = 0x6d6d615f7265ull + static_cast<uint64_t>(in.id);
  int bad = 0;
  for (int scale_d : in.wgmma ? std::vector<int>{1, 0} : std::vector<int>{1}) {
    std::vector<std::string> skipped;
    const int n_random = in.wgmma ? (scale_d ? o.random_wg : std::max(1, o.random_wg / 4)) : o.random;
    std::vector<Tile> tiles = build_tiles(in, n_random, seed ^ static_cast<uint64_t>(scale_d), skipped);
    std::vector<Tile> checks;
    for (int i = 0; i < 4; ++i) checks.push_back(layout_check_tile(in.tf, seed, i));
    tiles.insert(tiles.begin(), checks.begin(), checks.end());
    for (Tile& t : tiles) {
      Packed p;
      pack_tile(in, t, p);
      unpack_d(in, p.c.data(), t);
      if (t.d != t.c) ++bad;
    }
    write_record(o.out_dir + "/mma/" + file_stem(in, scale_d) + ".txt", in, prop, scale_d, "not run", false, "", tiles);
    std::printf("%-70s tiles %4zu  C/D round trip %s  not representable: %zu", file_stem(in, scale_d).c_str(), tiles.size(),
                bad ? "FAIL" : "ok", skipped.size());
    for (auto& sk : skipped) std::printf(" [%s]", sk.c_str());
    std::printf("\n");
  }
  return bad ? 1 : 0;
}

// Child: one instruction (both scale-d values for wgmma). Writes its files and a status file.
int run_child(const Instr& in, const Options& o) {
  cudaDeviceProp prop{};
  cudaError_t e = cudaGetDeviceProperties(&prop, 0);
  std::ofstream status(o.out_dir + "/mma/" + file_stem(in, 1) + ".status");
  if (e != cudaSuccess) {
    status << in.spelling << " cuda-error " << cudaGetErrorString(e) << "\n";
    return 1;
  }
  int rc = 0;
  const uint64_t seed = 0x6d6d615f7265ull + static_cast<uint64_t>(in.id);  // fixed per instruction
  std::vector<int> scales = in.wgmma ? std::vector<int>{1, 0} : std::vector<int>{1};
  for (int scale_d : scales) {
    const double t0 = now_s();
    // Descriptor conventions to try: the PTX ISA's (LBO = K-direction stride) first.
    std::vector<std::pair<uint32_t, uint32_t>> convs = in.wgmma ? std::vector<std::pair<uint32_t, uint32_t>>{{128, 256}, {256, 128}}
                                                                : std::vector<std::pair<uint32_t, uint32_t>>{{0, 0}};
    std::vector<Tile> checks;
    for (int i = 0; i < 4; ++i) checks.push_back(layout_check_tile(in.tf, seed, i));
    std::string layout = "FAIL", err, first, desc_note;
    bool valid = false;
    uint32_t lbo = convs[0].first, sbo = convs[0].second;
    for (auto [l, s] : convs) {
      lbo = l;
      sbo = s;
      std::vector<Tile> tries = checks;
      if (!run_tiles(in, tries, l, s, scale_d, err)) {
        layout = "ERROR " + err;
        break;
      }
      int bad = 0;
      std::string f1;
      for (const Tile& t : tries) bad += layout_mismatches(in, t, scale_d, f1);
      if (first.empty()) first = f1;
      if (bad == 0) {
        valid = true;
        checks = tries;
        layout = "PASS (4 tiles of small integers, exact)";
        break;
      }
      layout = "FAIL (" + std::to_string(bad) + " of " + std::to_string(4 * in.tf.m * in.tf.n) + " elements; first " + first + ")";
      checks = tries;
    }
    if (in.wgmma) {
      desc_note = "descriptor LBO=" + std::to_string(lbo) + " SBO=" + std::to_string(sbo) + " bytes";
      if (valid && lbo != 128) desc_note += " (the second convention tried: LBO and SBO swapped relative to the PTX ISA text)";
    }
    if (layout.rfind("ERROR", 0) == 0) {
      status << file_stem(in, scale_d) << " ERROR " << layout << "\n";
      status.flush();
      rc = 1;
      break;  // the CUDA context is unusable after a kernel fault
    }
    std::vector<std::string> skipped;
    const int n_random = in.wgmma ? (scale_d ? o.random_wg : std::max(1, o.random_wg / 4)) : o.random;
    std::vector<Tile> tiles = build_tiles(in, n_random, seed ^ static_cast<uint64_t>(scale_d), skipped);
    if (!run_tiles(in, tiles, lbo, sbo, scale_d, err)) {
      status << file_stem(in, scale_d) << " ERROR " << err << "\n";
      rc = 1;
      break;
    }
    tiles.insert(tiles.begin(), checks.begin(), checks.end());
    write_record(o.out_dir + "/mma/" + file_stem(in, scale_d) + ".txt", in, prop, scale_d, layout, valid, desc_note, tiles);
    status << file_stem(in, scale_d) << (valid ? " VALID" : " INVALID") << " tiles=" << tiles.size() << " layout_check=" << layout
           << (in.wgmma ? " " + desc_note : "") << " seconds=" << (now_s() - t0);
    if (!skipped.empty()) {
      status << " probes_not_representable=";
      for (size_t i = 0; i < skipped.size(); ++i) status << (i ? "|" : "") << skipped[i];
    }
    status << "\n";
    status.flush();
  }
  return rc;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "mma_record: %s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--out") o.out_dir = need();
    else if (a == "--only") o.only = need();
    else if (a == "--jobs") o.jobs = std::max(1, std::atoi(need().c_str()));
    else if (a == "--random") o.random = std::max(0, std::atoi(need().c_str()));
    else if (a == "--random-wg") o.random_wg = std::max(0, std::atoi(need().c_str()));
    else if (a == "--child-timeout") o.child_timeout = std::max(5, std::atoi(need().c_str()));
    else if (a == "--child") o.child = std::atoi(need().c_str());
    else if (a == "--list") o.list = true;
    else if (a == "--host-dry-run") o.host_dry_run = true;
    else {
      std::fprintf(stderr,
                   "usage: mma_record [--out DIR] [--only SUBSTRING] [--jobs N] [--random N] [--random-wg N] "
                   "[--child-timeout S] [--list]\n");
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, o)) return 2;
  now_s();
  const int n_instr = static_cast<int>(sizeof(kInstrs) / sizeof(kInstrs[0]));
  if (o.list) {
    for (const Instr& in : kInstrs) std::printf("%s\n", in.spelling);
    return 0;
  }
  if (o.child >= 0) return o.child < n_instr ? run_child(kInstrs[o.child], o) : 2;

  const std::string dir = o.out_dir + "/mma";
  ::mkdir(o.out_dir.c_str(), 0755);
  ::mkdir(dir.c_str(), 0755);
  if (o.host_dry_run) {
    int rc = 0;
    for (int i = 0; i < n_instr; ++i)
      if (o.only.empty() || std::string(kInstrs[i].spelling).find(o.only) != std::string::npos) rc |= host_dry_run(kInstrs[i], o);
    return rc;
  }
  std::vector<int> todo;
  for (int i = 0; i < n_instr; ++i)
    if (o.only.empty() || std::string(kInstrs[i].spelling).find(o.only) != std::string::npos) todo.push_back(i);
  logf("mma_record: %zu instructions, %d at a time, child timeout %d s\n", todo.size(), o.jobs, o.child_timeout);

  // Children are forked before this process touches CUDA (a CUDA context does not survive fork).
  struct Running { pid_t pid; int index; double start; };
  std::vector<Running> running;
  std::vector<std::string> outcome(n_instr, "not run");
  size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < o.jobs) {
      const int idx = todo[next++];
      std::fflush(stdout);
      const pid_t pid = ::fork();
      if (pid == 0) {
        const int rc = run_child(kInstrs[idx], o);
        std::fflush(stdout);
        ::_exit(rc);
      }
      if (pid < 0) { outcome[idx] = "fork failed"; continue; }
      running.push_back({pid, idx, now_s()});
    }
    ::usleep(20000);
    for (size_t r = 0; r < running.size();) {
      int st = 0;
      const pid_t w = ::waitpid(running[r].pid, &st, WNOHANG);
      const double age = now_s() - running[r].start;
      if (w == 0 && age > o.child_timeout) {
        ::kill(running[r].pid, SIGKILL);
        ::waitpid(running[r].pid, &st, 0);
        outcome[running[r].index] = "killed after " + std::to_string(o.child_timeout) + " s (hung)";
      } else if (w == 0) {
        ++r;
        continue;
      } else if (WIFEXITED(st)) {
        outcome[running[r].index] = WEXITSTATUS(st) == 0 ? "ok" : "exit " + std::to_string(WEXITSTATUS(st));
      } else if (WIFSIGNALED(st)) {
        outcome[running[r].index] = "signal " + std::to_string(WTERMSIG(st));
      }
      logf("%-66s %s (%.1f s)\n", kInstrs[running[r].index].spelling, outcome[running[r].index].c_str(), age);
      running.erase(running.begin() + static_cast<long>(r));
    }
  }

  // Summary: the children's status lines, or what happened to a child that wrote none.
  std::ofstream sum(o.out_dir + "/mma_summary.txt");
  sum << "# tools/gpu/mma_record: instruction[_scale-dN] status tiles layout_check ... (files in mma_record.tar.gz)\n";
  int valid = 0, other = 0;
  for (int idx : todo) {
    std::ifstream st(dir + "/" + file_stem(kInstrs[idx], 1) + ".status");
    std::string line;
    bool any = false;
    while (std::getline(st, line)) {
      sum << line << "\n";
      any = true;
      (line.find(" VALID ") != std::string::npos ? valid : other)++;
    }
    if (!any) { sum << kInstrs[idx].spelling << " NO-RESULT process: " << outcome[idx] << "\n"; ++other; }
    else if (outcome[idx] != "ok") sum << "#   " << kInstrs[idx].spelling << " process: " << outcome[idx] << "\n";
    std::remove((dir + "/" + file_stem(kInstrs[idx], 1) + ".status").c_str());
  }
  logf("mma_record: %d records VALID, %d not; summary in %s/mma_summary.txt\n", valid, other, o.out_dir.c_str());
  return 0;
}
