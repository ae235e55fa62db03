// Internal: what the AVX-512 kernels of the fast whole-matrix path share
// (mma_fast_fdpa_avx512.cpp, mma_fast_gst_avx512.cpp): the vector forms of dp_primitives.hpp's
// accumulator decode, alignment and rounding toward zero to f32 (every lane equals the scalar
// function it names), and the loop over column blocks, rows and steps with the generic step
// for lanes that meet a NaN or Inf (mma_fast_run_steps.inc, built here for AVX-512). Included on
// x86-64 GCC/clang builds only.
#pragma once

#include "mma_fast_kernels.hpp"

// GCC 12's AVX-512 headers start some intrinsics from an "undefined" register, which its
// -Wmaybe-uninitialized reports at every use (GCC bug 105593); the warning says nothing about
// the kernels' code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>

#define TCEMU_V512 TCEMU_AVX512 inline __attribute__((always_inline))

namespace tcemu::detail::fast::avx512 {

constexpr int kH = kNB / 16;  // zmm registers of int32 lanes per column block
static_assert(kNB == 32, "the lane masks below are 32 bits");

// 16 flags (bytes) as a mask.
TCEMU_V512 __mmask16 flags16(const uint8_t* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm_test_epi8_mask(v, v);
}

// The running accumulators (f32 codes) decoded as dp::decode_acc does: significand, lowest-bit
// weight, sign, and whether it is a NaN or Inf.
struct AccLanes {
  __m512i sig, low, E;
  __mmask16 neg, special;
};

TCEMU_V512 AccLanes decode_f32(__m512i code) {
  const __m512i eb = _mm512_and_si512(_mm512_srli_epi32(code, 23), _mm512_set1_epi32(0xFF));
  const __m512i fr = _mm512_and_si512(code, _mm512_set1_epi32(0x7FFFFF));
  AccLanes a;
  a.sig = _mm512_mask_or_epi32(fr, _mm512_test_epi32_mask(eb, eb), fr, _mm512_set1_epi32(0x800000));
  a.low = _mm512_sub_epi32(_mm512_max_epi32(eb, _mm512_set1_epi32(1)), _mm512_set1_epi32(150));  // 1 - bias - man
  a.E = _mm512_add_epi32(a.low, _mm512_set1_epi32(23));
  a.neg = _mm512_movepi32_mask(code);
  a.special = _mm512_cmpeq_epi32_mask(eb, _mm512_set1_epi32(0xFF));
  return a;
}

// int32 lanes [8h, 8h + 8) of v widened to int64.
TCEMU_V512 __m512i wide(__m512i v, int h) {
  return _mm512_cvtepi32_epi64(h ? _mm512_extracti64x4_epi64(v, 1) : _mm512_castsi512_si256(v));
}

// mag * 2^sh truncated (dp::align_trunc) for |sh| < 64 on unsigned lanes: a count out of
// [0, 63] (a negative one reads as a huge unsigned count) gives 0, so one of the two shifts
// is the answer and the other 0 (both mag when sh == 0).
TCEMU_V512 __m512i align64(__m512i mag, __m512i sh) {
  return _mm512_or_si512(_mm512_sllv_epi64(mag, sh), _mm512_srlv_epi64(mag, _mm512_sub_epi64(_mm512_setzero_si512(), sh)));
}

// The end of the step on 8 lanes: S + the C term aligned to 2^q (dp::aligned_term), rounded
// toward zero to f32 (dp::round_sum with rz_f32 / rz_e8m13 and the -0 rule). S is the exact
// sum of the product terms.
TCEMU_V512 __m256i finish8(__m512i S, __m512i q, __m512i csig, __m512i clow, __mmask8 cneg, bool e8m13, bool pos_zero) {
  const __m512i t = align64(csig, _mm512_sub_epi64(clow, q));
  const __m512i sum = _mm512_mask_sub_epi64(_mm512_add_epi64(S, t), cneg, S, t);
  const __mmask8 neg = _mm512_movepi64_mask(sum);
  const __m512i mag = _mm512_abs_epi64(sum);  // dp::magnitude
  const __m512i bw = _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_lzcnt_epi64(mag));  // dp::bit_width
  const __m512i top = _mm512_add_epi64(q, _mm512_sub_epi64(bw, _mm512_set1_epi64(1)));
  const __m512i lsb = _mm512_max_epi64(_mm512_sub_epi64(top, _mm512_set1_epi64(23)), _mm512_set1_epi64(-149));
  // dp::round_out toward zero: the kept bits, the biased exponent added, Inf above the range.
  const __m512i kept = align64(mag, _mm512_sub_epi64(q, lsb));
  __m512i code = _mm512_add_epi64(kept, _mm512_slli_epi64(_mm512_add_epi64(lsb, _mm512_set1_epi64(149)), 23));
  code = _mm512_min_epi64(code, _mm512_set1_epi64(0x7F800000));
  code = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(mag, mag), code);  // an exact zero sum: +0
  code = _mm512_mask_or_epi64(code, neg, code, _mm512_set1_epi64(0x80000000));
  if (e8m13) code = _mm512_and_si512(code, _mm512_set1_epi64(~int64_t{0x3FF}));
  if (pos_zero)  // dp::positive_zero_rule
    code = _mm512_maskz_mov_epi64(_mm512_cmpneq_epi64_mask(code, _mm512_set1_epi64(0x80000000)), code);
  return _mm512_cvtepi64_epi32(code);
}

// bit j set where flag byte p[j] is nonzero, j < kNB (run_steps' special-lane flags).
TCEMU_V512 uint32_t flags32(const uint8_t* p) {
  return static_cast<uint32_t>(flags16(p)) | static_cast<uint32_t>(flags16(p + 16)) << 16;
}

#define TCEMU_VEC_FN TCEMU_V512
#include "mma_fast_run_steps.inc"
#undef TCEMU_VEC_FN

}  // namespace tcemu::detail::fast::avx512
