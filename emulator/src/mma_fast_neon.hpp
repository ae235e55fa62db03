// Internal: what the NEON (Advanced SIMD) kernels of the fast whole-matrix path share on
// aarch64 (mma_fast_fdpa_neon.cpp, mma_fast_gst_neon.cpp): the vector forms of
// dp_primitives.hpp's accumulator decode, alignment and rounding toward zero to f32 on 128-bit
// registers (every lane equals the scalar function it names; they follow mma_fast_avx2.hpp's
// forms, four int32 or two int64 lanes a register), and the loop over column blocks, rows and
// steps (mma_fast_run_steps.inc, built here for NEON). NEON shifts by a signed per-lane count
// (negative: right) read from the count's low byte, so every count is clamped to the lane
// width first; it has no 64-bit max or min (compare and select) and no movemask (the rare
// special lanes are read one by one). The leading-zero count of a sum comes from its exact
// conversion to double, as in the AVX2 form (exact below 2^51: the kernels' takes-checks).
// Included on aarch64 GCC/clang builds only (TCEMU_FAST_NEON).
#pragma once

#include "mma_fast_kernels.hpp"

#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#define TCEMU_VN TCEMU_HOT

namespace tcemu::detail::fast::neon {

constexpr int kH = kNB / 4;  // registers of int32 lanes per column block
static_assert(kNB == 32, "the lane masks below are 32 bits");

// bit j set where flag byte p[j] is nonzero, j < kNB (run_steps' special-lane flags): the
// flags are almost always all zero, so the bytes are read one by one only when not.
TCEMU_VN uint32_t flags32(const uint8_t* p) {
  uint64_t w[4];
  std::memcpy(w, p, sizeof w);
  if ((w[0] | w[1] | w[2] | w[3]) == 0) return 0;
  uint32_t m = 0;
  for (int j = 0; j < kNB; ++j) m |= static_cast<uint32_t>(p[j] != 0) << j;
  return m;
}

// The lanes of an all-ones mask as 4 bits.
TCEMU_VN uint32_t bits4(uint32x4_t m) {
  if (vmaxvq_u32(m) == 0) return 0;
  return (vgetq_lane_u32(m, 0) & 1) | (vgetq_lane_u32(m, 1) & 2) | (vgetq_lane_u32(m, 2) & 4) | (vgetq_lane_u32(m, 3) & 8);
}

// The running accumulators (f32 codes) decoded as dp::decode_acc does: significand, lowest-bit
// weight, E, sign and special (all-ones lanes).
struct AccLanes {
  int32x4_t sig, low, E;
  uint32x4_t neg, special;
};

TCEMU_VN AccLanes decode_f32(uint32x4_t code) {
  const int32x4_t eb = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(code, 23), vdupq_n_u32(0xFF)));
  const uint32x4_t fr = vandq_u32(code, vdupq_n_u32(0x7FFFFF));
  const uint32x4_t normal = vcgtq_s32(eb, vdupq_n_s32(0));
  AccLanes a;
  a.sig = vreinterpretq_s32_u32(vorrq_u32(fr, vandq_u32(normal, vdupq_n_u32(0x800000))));
  a.low = vsubq_s32(vmaxq_s32(eb, vdupq_n_s32(1)), vdupq_n_s32(150));  // 1 - bias - man
  a.E = vaddq_s32(a.low, vdupq_n_s32(23));
  a.neg = vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(code), 31));
  a.special = vceqq_s32(eb, vdupq_n_s32(0xFF));
  return a;
}

// int32 lanes [2h, 2h + 2) of v widened to int64, signed or unsigned.
TCEMU_VN int64x2_t wide(int32x4_t v, int h) { return h ? vmovl_high_s32(v) : vmovl_s32(vget_low_s32(v)); }
TCEMU_VN uint64x2_t wide_u(uint32x4_t v, int h) { return h ? vmovl_high_u32(v) : vmovl_u32(vget_low_u32(v)); }
TCEMU_VN uint64x2_t wide_mask(uint32x4_t v, int h) {
  return vreinterpretq_u64_s64(wide(vreinterpretq_s32_u32(v), h));
}

TCEMU_VN int64x2_t max64(int64x2_t a, int64x2_t b) { return vbslq_s64(vcgtq_s64(a, b), a, b); }
TCEMU_VN int64x2_t min64(int64x2_t a, int64x2_t b) { return vbslq_s64(vcgtq_s64(a, b), b, a); }

// v or -v where neg (all-ones lanes): dp::apply_sign.
TCEMU_VN int64x2_t signed64(int64x2_t v, uint64x2_t neg) {
  const int64x2_t n = vreinterpretq_s64_u64(neg);
  return vsubq_s64(veorq_s64(v, n), n);
}

// mag * 2^sh truncated (dp::align_trunc) on unsigned lanes, sh with |sh| < 2^31: a count out of
// [-63, 63] gives 0, as the x86 forms' pair of shifts does (the count clamped to +-64, which
// NEON's shift turns into 0).
TCEMU_VN uint64x2_t align64(uint64x2_t mag, int64x2_t sh) {
  sh = min64(max64(sh, vdupq_n_s64(-64)), vdupq_n_s64(64));
  return vshlq_u64(mag, sh);
}

// The end of the step on 2 lanes, as mma_fast_avx2.hpp's finish4: S + the C term aligned to
// 2^q (dp::aligned_term), rounded toward zero to f32 (dp::round_sum with rz_f32 / rz_e8m13 and
// the -0 rule). S is the exact sum of the product terms; |S + C term| < 2^51. Returns the f32
// codes in the low halves of the 64-bit lanes.
TCEMU_VN uint64x2_t finish2(int64x2_t S, int64x2_t q, uint64x2_t csig, int64x2_t clow, uint64x2_t cneg, bool e8m13,
                            bool pos_zero) {
  const int64x2_t t = vreinterpretq_s64_u64(align64(csig, vsubq_s64(clow, q)));
  const int64x2_t sum = vaddq_s64(S, signed64(t, cneg));
  const uint64x2_t neg = vcltzq_s64(sum);
  const uint64x2_t mag = vreinterpretq_u64_s64(signed64(sum, neg));  // dp::magnitude
  // floor(log2(mag)) = dp::bit_width(mag) - 1, from the exponent of mag converted exactly to
  // double (mag < 2^52).
  const uint64x2_t db = vreinterpretq_u64_f64(vcvtq_f64_u64(mag));
  const int64x2_t lg = vsubq_s64(vreinterpretq_s64_u64(vshrq_n_u64(db, 52)), vdupq_n_s64(1023));
  const int64x2_t top = vaddq_s64(q, lg);
  const int64x2_t lsb = max64(vsubq_s64(top, vdupq_n_s64(23)), vdupq_n_s64(-149));
  // dp::round_out toward zero: the kept bits, the biased exponent added, Inf above the range.
  const uint64x2_t kept = align64(mag, vsubq_s64(q, lsb));
  int64x2_t code = vaddq_s64(vreinterpretq_s64_u64(kept), vshlq_n_s64(vaddq_s64(lsb, vdupq_n_s64(149)), 23));
  code = min64(code, vdupq_n_s64(0x7F800000));
  uint64x2_t c = vbicq_u64(vreinterpretq_u64_s64(code), vceqzq_u64(mag));  // an exact zero sum: +0
  c = vorrq_u64(c, vandq_u64(neg, vdupq_n_u64(0x80000000)));
  if (e8m13) c = vandq_u64(c, vdupq_n_u64(~uint64_t{0x3FF}));
  if (pos_zero) c = vbicq_u64(c, vceqq_u64(c, vdupq_n_u64(0x80000000)));  // dp::positive_zero_rule
  return c;
}

// Two finish2 results (lanes 0-1 and 2-3) as 4 uint32 codes.
TCEMU_VN uint32x4_t pack4(uint64x2_t lo, uint64x2_t hi) { return vcombine_u32(vmovn_u64(lo), vmovn_u64(hi)); }

#define TCEMU_VEC_FN TCEMU_VN
#include "mma_fast_run_steps.inc"
#undef TCEMU_VEC_FN

}  // namespace tcemu::detail::fast::neon
