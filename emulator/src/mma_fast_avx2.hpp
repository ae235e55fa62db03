// Internal: what the AVX2 kernels of the fast whole-matrix path share (mma_fast_fdpa_avx2.cpp):
// the vector forms of dp_primitives.hpp's accumulator decode, alignment and rounding toward zero
// to f32 on 256-bit registers (every lane equals the scalar function it names, as in
// mma_fast_avx512.hpp, whose AVX-512 forms these follow), and the loop over column blocks,
// rows and steps (mma_fast_run_steps.inc, built here for AVX2). AVX2 has no mask registers and
// no 64-bit max, min, abs or leading-zero count: masks are all-ones lanes, and the end of a
// step converts the exact sum to double (exact below 2^51, which the kernels' parameters
// guarantee: fdpa_sum_fits, gst_sum_fits), scales it by 2^q and lets the FPU round it toward
// zero to f32 (finish4, under RoundTowardZero). Included on x86-64 GCC/clang builds only.
#pragma once

#include "mma_fast_kernels.hpp"

#include <immintrin.h>

#include <algorithm>

#define TCEMU_V256 TCEMU_AVX2 inline __attribute__((always_inline))

namespace tcemu::detail::fast::avx2 {

constexpr int kH = kNB / 8;  // ymm registers of int32 lanes per column block
static_assert(kNB == 32, "the lane masks below are 32 bits");

// bit j set where flag byte p[j] is nonzero, j < kNB (run_steps' special-lane flags).
TCEMU_V256 uint32_t flags32(const uint8_t* p) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())));
}

// The sign bits of 8 int32 lanes as 8 bits.
TCEMU_V256 uint32_t signs8(__m256i v) { return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(v))); }

// The running accumulators (f32 codes) decoded as dp::decode_acc does: significand, lowest-bit
// weight, E, sign (all-ones lanes) and whether it is a NaN or Inf (all-ones lanes).
struct AccLanes {
  __m256i sig, low, E, neg, special;
};

TCEMU_V256 AccLanes decode_f32(__m256i code) {
  const __m256i eb = _mm256_and_si256(_mm256_srli_epi32(code, 23), _mm256_set1_epi32(0xFF));
  const __m256i fr = _mm256_and_si256(code, _mm256_set1_epi32(0x7FFFFF));
  const __m256i normal = _mm256_cmpgt_epi32(eb, _mm256_setzero_si256());
  AccLanes a;
  a.sig = _mm256_or_si256(fr, _mm256_and_si256(normal, _mm256_set1_epi32(0x800000)));
  a.low = _mm256_sub_epi32(_mm256_max_epi32(eb, _mm256_set1_epi32(1)), _mm256_set1_epi32(150));  // 1 - bias - man
  a.E = _mm256_add_epi32(a.low, _mm256_set1_epi32(23));
  a.neg = _mm256_srai_epi32(code, 31);
  a.special = _mm256_cmpeq_epi32(eb, _mm256_set1_epi32(0xFF));
  return a;
}

// int32 lanes [4h, 4h + 4) of v widened to int64, signed or unsigned.
TCEMU_V256 __m256i wide(__m256i v, int h) {
  return _mm256_cvtepi32_epi64(h ? _mm256_extracti128_si256(v, 1) : _mm256_castsi256_si128(v));
}
TCEMU_V256 __m256i wide_u(__m256i v, int h) {
  return _mm256_cvtepu32_epi64(h ? _mm256_extracti128_si256(v, 1) : _mm256_castsi256_si128(v));
}

// v or -v where neg (all-ones lanes): dp::apply_sign.
TCEMU_V256 __m256i signed64(__m256i v, __m256i neg) { return _mm256_sub_epi64(_mm256_xor_si256(v, neg), neg); }

// mag * 2^sh truncated (dp::align_trunc) for |sh| < 64 on unsigned lanes: a count out of
// [0, 63] gives 0 in AVX2's variable shifts as in AVX-512's, so one of the two is the answer.
TCEMU_V256 __m256i align64(__m256i mag, __m256i sh) {
  return _mm256_or_si256(_mm256_sllv_epi64(mag, sh), _mm256_srlv_epi64(mag, _mm256_sub_epi64(_mm256_setzero_si256(), sh)));
}

// The FPU's rounding set to toward zero, subnormals kept (no flush to zero, no denormals read
// as zero), for the kernels' scope (their end of step converts with it); the caller's state
// restored after. MXCSR is per thread: other threads are not affected.
class RoundTowardZero {
 public:
  TCEMU_V256 RoundTowardZero() : old_(_mm_getcsr()) { _mm_setcsr((old_ & ~0xE040u) | 0x6000u); }  // RC = RZ, FTZ = DAZ = 0
  TCEMU_V256 ~RoundTowardZero() { _mm_setcsr(old_); }
  RoundTowardZero(const RoundTowardZero&) = delete;
  RoundTowardZero& operator=(const RoundTowardZero&) = delete;

 private:
  unsigned old_;
};

// The end of the step on 4 lanes, as mma_fast_avx512.hpp's finish8 computes it, under
// RoundTowardZero: S + the C term aligned to 2^q (dp::aligned_term) is an integer below 2^51,
// exact as a double; times 2^q (a power of two: exact); converted to f32 by the FPU, rounding
// toward zero: the kept bits and biased exponent of dp::round_out toward zero, subnormals
// included, a negative value below the smallest subnormal -0; and a value of 2^128 or more,
// which the conversion gives as the largest finite f32, is Inf (dp::round_out: Inf above the
// range). Returns the 4 f32 codes; the -0 rule and the e8m13 truncation follow in end8.
TCEMU_V256 __m128i finish4(__m256i S, __m256i q, __m256i csig, __m256i clow, __m256i cneg) {
  const __m256i sum = _mm256_add_epi64(S, signed64(align64(csig, _mm256_sub_epi64(clow, q)), cneg));
  const __m256i magic = _mm256_set1_epi64x(0x4338000000000000);  // 2^52 + 2^51: |sum| < 2^51 lands in its significand
  const __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(sum, magic)), _mm256_castsi256_pd(magic));
  const __m256d p2q = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(q, _mm256_set1_epi64x(1023)), 52));
  const __m256d v = _mm256_mul_pd(d, p2q);
  const __m128i code = _mm_castps_si128(_mm256_cvtpd_ps(v));
  const __m256d big = _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), v), _mm256_set1_pd(0x1p128), _CMP_GE_OQ);
  const __m128i big32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(big), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
  const __m128i inf = _mm_or_si128(_mm_and_si128(code, _mm_set1_epi32(static_cast<int>(0x80000000u))), _mm_set1_epi32(0x7F800000));
  return _mm_blendv_epi8(code, inf, big32);
}

// Two finish4 results (lanes 0-3, 4-7) as 8 codes, with rz_e8m13's truncation of the low 10
// bits and dp::positive_zero_rule where they apply.
TCEMU_V256 __m256i end8(__m128i lo, __m128i hi, bool e8m13, bool pos_zero) {
  __m256i code = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  if (e8m13) code = _mm256_and_si256(code, _mm256_set1_epi32(~0x3FF));
  if (pos_zero) code = _mm256_andnot_si256(_mm256_cmpeq_epi32(code, _mm256_set1_epi32(static_cast<int>(0x80000000u))), code);
  return code;
}

#define TCEMU_VEC_FN TCEMU_V256
#include "mma_fast_run_steps.inc"
#undef TCEMU_VEC_FN

}  // namespace tcemu::detail::fast::avx2
