// mma_record (mma_record.cu): the instruction list (mma.sync and wgmma of sm_90a; shapes and
// formats from gen/mma_instrs.inc, which mma_record.cu includes first), one kernel per
// instruction and the host table of instructions with their launchers. Included by
// mma_record.cu inside its anonymous namespace; not a standalone header.
#pragma once

// ---------------------------------------------------------------------------------------
// Instructions. Kept here by hand: the record id (it seeds an instruction's random tiles, so it
// stays fixed), the asm class and the spelling. Shape, formats and register counts come from
// the catalog's generated table (gen/mma_instrs.inc, tools/gpu/gen_instr_tables.py), looked up
// by spelling; the static_asserts below stop the build when a spelling is not in that table or
// the asm class disagrees with it.
// mma.sync classes name the register counts of A, B and C/D and the accumulator (F: f32 C/D,
// I: s32, H: f16x2). wgmma classes: the accumulator (F32, F16, INT), then FULL (imm-scale-a/b
// and imm-trans-a/b: f16, bf16), AB (only the scales: the other floating types) or nothing.
#define TCEMU_MMA_SYNC(X)                                                       \
  X(0, M424F, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")              \
  X(1, M422H, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")              \
  X(2, M424F, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")            \
  X(3, M424F, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")             \
  X(4, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")            \
  X(5, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32")            \
  X(6, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32")            \
  X(7, M424F, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32")            \
  X(8, M422H, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16")            \
  X(9, M422H, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16")            \
  X(10, M214F, "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32")           \
  X(11, M424I, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")               \
  X(12, M424I, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32")     \
  X(13, M214I, "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32")               \
  X(14, M214I, "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32")     \
  X(15, M214F, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32")              \
  X(16, M212H, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16")              \
  X(17, M214F, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32")            \
  X(18, M214F, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32")

#define TCEMU_WGMMA(X)                                                          \
  X(100, WF32FULL, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")         \
  X(101, WF16FULL, "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16")         \
  X(102, WF32FULL, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16")       \
  X(103, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32")          \
  X(104, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3")         \
  X(105, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2")         \
  X(106, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2")         \
  X(107, WF32AB, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3")         \
  X(108, WF16AB, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3")         \
  X(109, WF16AB, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2")         \
  X(110, WINT, "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8")               \
  X(111, WINT, "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8")

// ---- the catalog's rows, and the checks of the hand-kept columns against them ----------
struct CatalogRow {
  const char* ptx;
  bool wgmma, wmma;
  int m, n, k;
  const char *at, *bt, *dt;
  char acc;
  int ra, rb, rc;
};
constexpr CatalogRow kCatalog[] = {
#define TCEMU_GPU_ROW(ID, PTX, WG, MASK, M, N, K, AT, BT, DT, ACC, ABB, AC, BC, CB, RA, RB, RC, SV, ST, WM) \
  {PTX, WG, WM, M, N, K, AT, BT, DT, ACC, RA, RB, RC},
    TCEMU_GPU_MMA_INSTRS(TCEMU_GPU_ROW)
#undef TCEMU_GPU_ROW
};

constexpr bool same_text(const char* a, const char* b) {
  while (*a != 0 && *a == *b) ++a, ++b;
  return *a == *b;
}
constexpr bool ends_with(const char* s, const char* tail) {
  int ns = 0, nt = 0;
  while (s[ns] != 0) ++ns;
  while (tail[nt] != 0) ++nt;
  return ns >= nt && same_text(s + ns - nt, tail);
}
// The catalog row of a spelling; -1 when the catalog has none.
constexpr int catalog_index(const char* spelling) {
  for (int i = 0; i < static_cast<int>(sizeof(kCatalog) / sizeof(kCatalog[0])); ++i)
    if (same_text(kCatalog[i].ptx, spelling)) return i;
  return -1;
}
constexpr const CatalogRow& catalog_row(const char* spelling) { return kCatalog[catalog_index(spelling)]; }
// An element format by its name in the catalog (tcemu::kAllFormats); -1 for a name it lacks.
constexpr int fmt_index(const char* name) {
  for (const tcemu::FormatInfo& f : tcemu::kAllFormats)
    if (f.name == std::string_view(name)) return static_cast<int>(f.id);
  return -1;
}
constexpr Fmt fmt_of(const char* name) { return static_cast<Fmt>(fmt_index(name)); }

// mma.sync class "M<ra><rb><rc><acc>" against the catalog's registers and accumulator; the
// spelling's last type (C) must be D's, the one format the table gives C and D.
constexpr bool mma_class_ok(const char* cls, const CatalogRow& r) {
  return !r.wgmma && !r.wmma && cls[0] == 'M' && cls[1] - '0' == r.ra && cls[2] - '0' == r.rb && cls[3] - '0' == r.rc &&
         cls[4] == r.acc && cls[5] == 0;
}
constexpr bool c_is_d(const char* spelling, const CatalogRow& r) {
  char tail[8] = {'.'};
  int i = 0;
  while (r.dt[i] != 0 && i < 6) tail[i + 1] = r.dt[i], ++i;
  return ends_with(spelling, tail);
}
// wgmma class "W<F32|F16|INT>[FULL|AB]": accumulator from the catalog, FULL for f16/bf16
// inputs, AB for the other floating inputs, nothing for integers (PTX ISA 9.7.15.5.2).
constexpr bool wg_class_ok(const char* cls, const CatalogRow& r) {
  if (!r.wgmma || cls[0] != 'W') return false;
  const bool f16in = same_text(r.at, "f16") || same_text(r.at, "bf16");
  const char* want = r.acc == 'I' ? "WINT" : r.acc == 'F' ? (f16in ? "WF32FULL" : "WF32AB") : (f16in ? "WF16FULL" : "WF16AB");
  return same_text(cls, want) && (r.acc == 'I' ? r.rc == 4 : r.rc == (r.acc == 'F' ? 4 : 2));
}
// Known formats, and A and B of one element width (mma_record_layout.cuh packs both with it).
constexpr bool formats_known(const CatalogRow& r) {
  return fmt_index(r.at) >= 0 && fmt_index(r.bt) >= 0 && fmt_index(r.dt) >= 0 &&
         tcemu::info(fmt_of(r.at)).width == tcemu::info(fmt_of(r.bt)).width;
}

#define TCEMU_CHECK_MMA(ID, CLS, SP)                                                                             \
  static_assert(catalog_index(SP) >= 0, "mma_record_instrs.cuh: " SP " is not in gen/mma_instrs.inc");          \
  static_assert(mma_class_ok(#CLS, catalog_row(SP)), "mma_record_instrs.cuh: class " #CLS " disagrees with the " \
                                                     "catalog's registers of " SP);                              \
  static_assert(c_is_d(SP, catalog_row(SP)), "mma_record_instrs.cuh: C and D of " SP " differ");                 \
  static_assert(formats_known(catalog_row(SP)), "mma_record_instrs.cuh: a format of " SP " is not a tcemu::Fmt, or A and B differ in width");
#define TCEMU_CHECK_WG(ID, CLS, SP)                                                                              \
  static_assert(catalog_index(SP) >= 0, "mma_record_instrs.cuh: " SP " is not in gen/mma_instrs.inc");          \
  static_assert(wg_class_ok(#CLS, catalog_row(SP)), "mma_record_instrs.cuh: class " #CLS " disagrees with the "  \
                                                    "catalog's types of " SP);                                   \
  static_assert(formats_known(catalog_row(SP)), "mma_record_instrs.cuh: a format of " SP " is not a tcemu::Fmt, or A and B differ in width");
TCEMU_MMA_SYNC(TCEMU_CHECK_MMA)
TCEMU_WGMMA(TCEMU_CHECK_WG)
#undef TCEMU_CHECK_MMA
#undef TCEMU_CHECK_WG

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
#define TCEMU_DEF_MMA(ID, CLS, SP) \
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
#define TCEMU_DEF_WG(ID, CLS, SP) \
  template <>                                              \
  __device__ void wg_op<ID>(uint64_t da, uint64_t db, uint32_t* d, int scale_d) { ASM_##CLS(SP) }
TCEMU_WGMMA(TCEMU_DEF_WG)
#undef TCEMU_DEF_WG

constexpr int kWgAImage = 2048;  // 64 rows x 32 bytes of K
constexpr int kWgBImage = 256;   // 8 rows (N) x 32 bytes of K

// Shared-memory matrix descriptor, no swizzle (PTX ISA "Matrix Descriptor Format"):
// fragment_layout.hpp's wgmma_desc of the buffer's shared-memory address.
__device__ uint64_t smem_desc(const void* p, uint32_t lbo, uint32_t sbo) {
  return layout::wgmma_desc(static_cast<uint32_t>(__cvta_generic_to_shared(p)), lbo, sbo);
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

// Shape, formats (C: D's) and register counts from the catalog row of the spelling.
constexpr TileFormats catalog_formats(const CatalogRow& r) {
  return {fmt_of(r.at), fmt_of(r.bt), fmt_of(r.dt), fmt_of(r.dt), r.m, r.n, r.k};
}
#define TCEMU_INSTR(ID, SP, WG, MMA, WGL)                                                                           \
  Instr{ID, SP, WG, catalog_row(SP).ra, catalog_row(SP).rb, catalog_row(SP).rc, catalog_formats(catalog_row(SP)), MMA, WGL}
constexpr Instr kInstrs[] = {
#define TCEMU_ROW_MMA(ID, CLS, SP) TCEMU_INSTR(ID, SP, false, &launch_mma<ID>, nullptr),
    TCEMU_MMA_SYNC(TCEMU_ROW_MMA)
#undef TCEMU_ROW_MMA
#define TCEMU_ROW_WG(ID, CLS, SP) TCEMU_INSTR(ID, SP, true, nullptr, &launch_wg<ID>),
        TCEMU_WGMMA(TCEMU_ROW_WG)
#undef TCEMU_ROW_WG
};
#undef TCEMU_INSTR

// The record ids and spellings are distinct (an id seeds its instruction's tiles).
constexpr bool rows_distinct() {
  const int n = static_cast<int>(sizeof(kInstrs) / sizeof(kInstrs[0]));
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (kInstrs[i].id == kInstrs[j].id || same_text(kInstrs[i].spelling, kInstrs[j].spelling)) return false;
  return true;
}
static_assert(rows_distinct(), "mma_record_instrs.cuh: two rows share an id or a spelling");
