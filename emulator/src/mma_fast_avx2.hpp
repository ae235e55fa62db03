// Internal: what the AVX2 kernels of the fast whole-matrix path share (mma_fast_fdpa_avx2.cpp):
// the vector forms of dp_primitives.hpp's accumulator decode, alignment and rounding toward zero
// to f32 on 256-bit registers (every lane equals the scalar function it names, as in
// mma_fast_avx512.hpp, whose AVX-512 forms these follow), and the loop over column blocks,
// rows and steps (mma_fast_run_steps.inc, built here for AVX2). AVX2 has no mask registers and
// no 64-bit max, min, abs or leading-zero count: masks are all-ones lanes, and the bit width of
// a sum comes from its exact conversion to double (exact below 2^52, which the kernels'
// parameters guarantee: fdpa_sum_fits, gst_sum_fits). Included on x86-64 GCC/clang builds only.
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

TCEMU_V256 __m256i max64(__m256i a, __m256i b) { return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b)); }
TCEMU_V256 __m256i min64(__m256i a, __m256i b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)); }

// v or -v where neg (all-ones lanes): dp::apply_sign.
TCEMU_V256 __m256i signed64(__m256i v, __m256i neg) { return _mm256_sub_epi64(_mm256_xor_si256(v, neg), neg); }

// mag * 2^sh truncated (dp::align_trunc) for |sh| < 64 on unsigned lanes: a count out of
// [0, 63] gives 0 in AVX2's variable shifts as in AVX-512's, so one of the two is the answer.
TCEMU_V256 __m256i align64(__m256i mag, __m256i sh) {
  return _mm256_or_si256(_mm256_sllv_epi64(mag, sh), _mm256_srlv_epi64(mag, _mm256_sub_epi64(_mm256_setzero_si256(), sh)));
}

// The end of the step on 4 lanes, as mma_fast_avx512.hpp's finish8: S + the C term aligned to
// 2^q (dp::aligned_term), rounded toward zero to f32 (dp::round_sum with rz_f32 / rz_e8m13 and
// the -0 rule). S is the exact sum of the product terms; |S + C term| < 2^52. Returns the f32
// codes in the low halves of the 64-bit lanes.
TCEMU_V256 __m256i finish4(__m256i S, __m256i q, __m256i csig, __m256i clow, __m256i cneg, bool e8m13, bool pos_zero) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i sum = _mm256_add_epi64(S, signed64(align64(csig, _mm256_sub_epi64(clow, q)), cneg));
  const __m256i neg = _mm256_cmpgt_epi64(zero, sum);
  const __m256i mag = signed64(sum, neg);  // dp::magnitude
  // floor(log2(mag)) = dp::bit_width(mag) - 1, from the exponent of mag as a double (exact:
  // mag < 2^52 placed in the significand of 2^52, then 2^52 subtracted).
  const __m256d big = _mm256_castsi256_pd(_mm256_set1_epi64x(0x4330000000000000));
  const __m256d dm = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(mag, _mm256_castpd_si256(big))), big);
  const __m256i lg = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(dm), 52), _mm256_set1_epi64x(1023));
  const __m256i top = _mm256_add_epi64(q, lg);
  const __m256i lsb = max64(_mm256_sub_epi64(top, _mm256_set1_epi64x(23)), _mm256_set1_epi64x(-149));
  // dp::round_out toward zero: the kept bits, the biased exponent added, Inf above the range.
  const __m256i kept = align64(mag, _mm256_sub_epi64(q, lsb));
  __m256i code = _mm256_add_epi64(kept, _mm256_slli_epi64(_mm256_add_epi64(lsb, _mm256_set1_epi64x(149)), 23));
  code = min64(code, _mm256_set1_epi64x(0x7F800000));
  code = _mm256_andnot_si256(_mm256_cmpeq_epi64(mag, zero), code);  // an exact zero sum: +0
  code = _mm256_or_si256(code, _mm256_and_si256(neg, _mm256_set1_epi64x(0x80000000)));
  if (e8m13) code = _mm256_and_si256(code, _mm256_set1_epi64x(~int64_t{0x3FF}));
  if (pos_zero)  // dp::positive_zero_rule
    code = _mm256_andnot_si256(_mm256_cmpeq_epi64(code, _mm256_set1_epi64x(0x80000000)), code);
  return code;
}

// Two finish4 results (lanes 0-3 and 4-7) as 8 int32 codes.
TCEMU_V256 __m256i pack8(__m256i lo, __m256i hi) {
  const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m128i l = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(lo, idx));
  const __m128i h = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(hi, idx));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(l), h, 1);
}

#define TCEMU_VEC_FN TCEMU_V256
#include "mma_fast_run_steps.inc"
#undef TCEMU_VEC_FN

}  // namespace tcemu::detail::fast::avx2
