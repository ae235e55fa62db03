// mma_record (mma_record.cu): the instruction table (mma.sync and wgmma of sm_90a), one
// kernel per instruction and the host table of instructions with their launchers. Included
// by mma_record.cu inside its anonymous namespace; not a standalone header.
#pragma once

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
