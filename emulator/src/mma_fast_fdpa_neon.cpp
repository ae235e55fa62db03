// The NEON T-FDPA / ST-FDPA kernel of the fast whole-matrix path on aarch64: the AVX2 kernel
// of mma_fast_fdpa_avx2.cpp on 128-bit registers, so that Grace and other ARMv8 hosts run the
// whole step on vectors, the rounding included. Each int32 lane is one D element of a block of
// kNB columns (eight registers); the step's end (C term, exact sum, rounding toward zero to
// f32) runs on int64 lanes, two per register (mma_fast_neon.hpp). A lane whose step holds a NaN
// or Inf (operand, scale or C) is recomputed by the generic step function, as in the other
// builds. Taken: what the AVX2 kernel takes (C fused, an f32 accumulator rounded toward zero,
// products within int32, sums below 2^51: fdpa_sum_fits); everything else
// runs the compiler-vectorised loops of mma_fast_fdpa.cpp.
#include "mma_fast_kernels.hpp"

#include <cstring>

#ifdef TCEMU_FAST_NEON
#include "mma_fast_neon.hpp"

namespace tcemu::detail::fast {

namespace {

using namespace neon;

struct Consts {
  int32x4_t e_zero, F, r0;
};

// emax over the step's terms, on top of `em` (dp::imax of the exponent sums).
TCEMU_VN void emax_terms(const FdpaStepOps& t, int32x4_t em[kH]) {
  for (size_t i = 0; i < t.L; ++i) {
    const int32x4_t ea = vdupq_n_s32(t.aE[i]);
    const int32_t* eb = t.bE + i * t.ldb;
    for (int h = 0; h < kH; ++h) em[h] = vmaxq_s32(em[h], vaddq_s32(ea, vld1q_s32(eb + 4 * h)));
  }
}

// The exact sum of the terms aligned to emax, as the AVX2 kernel forms it: each product's
// magnitude shifted right by (emax + r0) - (ea + eb) (0 when that is 32 or more, the count
// read unsigned as AVX2's) and signed; int32 sums over runs of `chunk` terms, added in int64
// (S: 2 lanes per register, columns in order).
TCEMU_VN void sum_terms(const FdpaStepOps& t, const int32x4_t emr[kH], size_t chunk, int64x2_t S[2 * kH]) {
  for (int i = 0; i < 2 * kH; ++i) S[i] = vdupq_n_s64(0);
  for (size_t i0 = 0; i0 < t.L; i0 += chunk) {
    int32x4_t acc[kH];
    for (int h = 0; h < kH; ++h) acc[h] = vdupq_n_s32(0);
    const size_t end = std::min(t.L, i0 + chunk);
    for (size_t i = i0; i < end; ++i) {
      const int32x4_t ea = vdupq_n_s32(t.aE[i]), sa = vdupq_n_s32(t.as[i]);
      const int32_t* eb = t.bE + i * t.ldb;
      const int32_t* sb = t.bs + i * t.ldb;
      for (int h = 0; h < kH; ++h) {
        const int32x4_t prod = vmulq_s32(sa, vld1q_s32(sb + 4 * h));
        const uint32x4_t sh = vreinterpretq_u32_s32(vsubq_s32(emr[h], vaddq_s32(ea, vld1q_s32(eb + 4 * h))));
        const int32x4_t cnt = vnegq_s32(vreinterpretq_s32_u32(vminq_u32(sh, vdupq_n_u32(32))));
        const int32x4_t mag = vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(vabsq_s32(prod)), cnt));
        const int32x4_t neg = vshrq_n_s32(prod, 31);
        acc[h] = vaddq_s32(acc[h], vsubq_s32(veorq_s32(mag, neg), neg));
      }
    }
    for (int h = 0; h < kH; ++h) {
      S[2 * h] = vaddq_s64(S[2 * h], wide(acc[h], 0));
      S[2 * h + 1] = vaddq_s64(S[2 * h + 1], wide(acc[h], 1));
    }
  }
}

// One step of one row over kNB columns: code (the running f32 codes) in, the new codes out.
// Returns the lanes whose C is a NaN or Inf.
TCEMU_VN uint32_t step_lanes(const Ctx& cx, const FdpaStepOps& t, const Consts& k, size_t chunk,
                             uint32_t* code) {
  uint32_t sp = 0;
  int32x4_t em[kH], emr[kH];
  int64x2_t S[2 * kH];
  AccLanes c[kH];
  const int32x4_t vbase = vdupq_n_s32(t.base), vzero_e = vmaxq_s32(vbase, k.e_zero);
  for (int h = 0; h < kH; ++h) {
    // A zero product in the column's operands: e_zero joins emax (dp::fdpa_step's step 1).
    uint32_t z4;
    std::memcpy(&z4, t.zb + 4 * h, sizeof z4);
    const uint32x4_t zcol = vmovl_u16(vget_low_u16(vmovl_u8(vcreate_u8(z4))));
    em[h] = vbslq_s32(vceqzq_u32(zcol), vbase, vzero_e);
    c[h] = decode_f32(vld1q_u32(code + 4 * h));
    sp |= bits4(c[h].special) << (4 * h);
  }
  emax_terms(t, em);
  for (int h = 0; h < kH; ++h) {  // C fused: its exponent joins emax (e_zero for a zero C)
    em[h] = vmaxq_s32(em[h], vbslq_s32(vceqzq_s32(c[h].sig), k.e_zero, c[h].E));
    emr[h] = vaddq_s32(em[h], k.r0);
  }
  sum_terms(t, emr, chunk, S);
  const bool e8m13 = cx.p.rounding == OutputRounding::rz_e8m13, pz = cx.p.positive_zero;
  for (int h = 0; h < kH; ++h) {
    const int32x4_t q = vsubq_s32(em[h], k.F);
    uint64x2_t out[2];
    for (int g = 0; g < 2; ++g)
      out[g] = finish2(S[2 * h + g], wide(q, g), wide_u(vreinterpretq_u32_s32(c[h].sig), g), wide(c[h].low, g),
                       wide_mask(c[h].neg, g), e8m13, pz);
    vst1q_u32(code + 4 * h, pack4(out[0], out[1]));
  }
  return sp;
}

// One step of one row (run_steps' Step).
struct FdpaStep {
  const Ctx& cx;
  const FdpaOps<int32_t>& o;
  size_t chunk;
  Consts k;
  TCEMU_VN uint32_t operator()(size_t m, size_t n0, size_t s, uint32_t* code) const {
    return step_lanes(cx, fdpa_step_ops(cx, o, m, n0, s), k, chunk, code);
  }
};

}  // namespace

bool fdpa_neon_takes(const Ctx& cx) { return fdpa_sum_fits(cx); }

void run_fdpa_neon(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, const DTile& tile, CodeSink D) {
  FdpaStep step{cx, o, chunk, {vdupq_n_s32(cx.p.e_zero), vdupq_n_s32(cx.p.F), vdupq_n_s32(o.r0)}};
  run_steps(cx, o.spA.data(), o.spB.data(), step, tile, D);
}

}  // namespace tcemu::detail::fast

#else  // not aarch64: never chosen

namespace tcemu::detail::fast {
bool fdpa_neon_takes(const Ctx&) { return false; }
void run_fdpa_neon(const Ctx&, const FdpaOps<int32_t>&, size_t, const DTile&, CodeSink) {}
}  // namespace tcemu::detail::fast

#endif
