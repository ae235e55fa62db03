// The element loops of the fast quantizers (quant_fast.hpp), compiled for x86-64-v4 (AVX-512),
// AVX2 and the baseline like the conversion kernels (converter_kernels.hpp) whose F32ToNarrow
// they cast with, and picked at run time by detail::convert_isa(). Everything a loop calls is
// forced inline so that it is compiled for the loop's ISA.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "converter_kernels.hpp"
#include "quant_fast.hpp"

#ifdef TCEMU_CVT_X86
#include <immintrin.h>
#endif

namespace tcemu::quant::detail {

namespace {

using tcemu::detail::ConvertIsa;
using tcemu::detail::F32ToNarrow;

TCEMU_CVT_HOT uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
TCEMU_CVT_HOT float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// |x| as bits under the NaN policy (see absmax_bits).
template <AmaxNan P>
TCEMU_CVT_HOT uint32_t masked_abs(float x) {
  const uint32_t a = bits_of(x) & 0x7FFFFFFFu;
  if constexpr (P == AmaxNan::ignore) return a > 0x7F800000u ? 0u : a;
  else if constexpr (P == AmaxNan::ignore_nonfinite) return a >= 0x7F800000u ? 0u : a;
  else return a;
}

// Runs K::body(args...) compiled for the best ISA the CPU has (within the tests' limit).
#ifdef TCEMU_CVT_X86
#define TCEMU_QF_ISA_RUN(K, ...)                                                          \
  switch (tcemu::detail::convert_isa()) {                                                \
    case ConvertIsa::avx512: return K::avx512(__VA_ARGS__);                               \
    case ConvertIsa::avx2: return K::avx2(__VA_ARGS__);                                   \
    default: return K::base(__VA_ARGS__);                                                 \
  }
#define TCEMU_QF_CLONES(RET, PARAMS, ARGS)                                                 \
  static RET base PARAMS { return body ARGS; }                                             \
  __attribute__((target("avx2"))) static RET avx2 PARAMS { return body ARGS; }             \
  __attribute__((target("arch=x86-64-v4"))) static RET avx512 PARAMS { return body ARGS; }
#else
#define TCEMU_QF_ISA_RUN(K, ...) return K::base(__VA_ARGS__);
#define TCEMU_QF_CLONES(RET, PARAMS, ARGS) \
  static RET base PARAMS { return body ARGS; }
#endif

// The max of x[0, n) folded into m. Sixteen elements at a time in two GCC vectors of eight
// lanes (AVX2's width: wider GCC vectors are split by the compiler, their compares one lane at
// a time); |x| bits are below 2^31, so signed compares order them.
#if defined(__GNUC__)
// The helpers below take and return vectors; they are forced inline into each ISA's loop, so
// no vector crosses a real call and the baseline build's ABI note does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
typedef int32_t I32x8 __attribute__((vector_size(32)));
TCEMU_CVT_HOT I32x8 load8(const float* x) {
  I32x8 v;
  std::memcpy(&v, x, sizeof v);
  return v;
}
TCEMU_CVT_HOT I32x8 max8(I32x8 a, I32x8 b) {
  const I32x8 gt = a > b;
  return (a & gt) | (b & ~gt);
}
TCEMU_CVT_HOT I32x8 min8(I32x8 a, I32x8 b) {
  const I32x8 lt = a < b;
  return (a & lt) | (b & ~lt);
}
// x[0, 8) as masked |x| bits under policy P.
template <AmaxNan P>
TCEMU_CVT_HOT I32x8 masked_abs8(const float* x) {
  I32x8 v = load8(x) & 0x7FFFFFFF;
  if constexpr (P == AmaxNan::ignore) v &= (v <= 0x7F800000);
  else if constexpr (P == AmaxNan::ignore_nonfinite) v &= (v < 0x7F800000);
  return v;
}
// The largest lane of v.
TCEMU_CVT_HOT uint32_t hmax8(I32x8 v) {
  v = max8(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3));
  v = max8(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5));
  v = max8(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
  return static_cast<uint32_t>(v[0]);
}
#endif

template <AmaxNan P>
TCEMU_CVT_HOT uint32_t fold_absmax(const float* x, size_t n, uint32_t m) {
  size_t i = 0;
#if defined(__GNUC__)
  if (n >= 16) {
    I32x8 a = masked_abs8<P>(x), b = masked_abs8<P>(x + 8);
    for (i = 16; i + 16 <= n; i += 16) {
      a = max8(a, masked_abs8<P>(x + i));
      b = max8(b, masked_abs8<P>(x + i + 8));
    }
    const uint32_t top = hmax8(max8(a, b));
    m = top > m ? top : m;
  }
#endif
  for (; i < n; ++i) {
    const uint32_t a = masked_abs<P>(x[i]);
    m = a > m ? a : m;
  }
  return m;
}

// The largest |x| bits of x[0, 16) (NaN above Inf) into hi, the smallest nonzero ones into lo
// (0x7FFFFFFF when all are zero). On vectors one reduction does both: the minimum as the
// maximum of the complements (|x| bits are below 2^31, their complements negative, ordered
// the other way), the maxima in lanes 0-3 and the complements in 4-7.
TCEMU_CVT_HOT void hi_lo_abs16(const float* x, uint32_t& hi, uint32_t& lo) {
#if defined(__GNUC__)
  I32x8 a = load8(x) & 0x7FFFFFFF, b = load8(x + 8) & 0x7FFFFFFF;
  const I32x8 m = max8(a, b);
  a |= (a == 0) & 0x7FFFFFFF;
  b |= (b == 0) & 0x7FFFFFFF;
  const I32x8 n = ~min8(a, b);
  I32x8 v = max8(__builtin_shufflevector(m, n, 0, 1, 2, 3, 8, 9, 10, 11), __builtin_shufflevector(m, n, 4, 5, 6, 7, 12, 13, 14, 15));
  v = max8(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5));
  v = max8(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
  hi = static_cast<uint32_t>(v[0]);
  lo = static_cast<uint32_t>(~v[4]);
#else
  hi = fold_absmax<AmaxNan::propagate>(x, 16, 0u);
  lo = 0x7FFFFFFFu;
  for (int i = 0; i < 16; ++i) {
    const uint32_t a = bits_of(x[i]) & 0x7FFFFFFFu;
    const uint32_t l = a == 0 ? 0x7FFFFFFFu : a;
    lo = l < lo ? l : lo;
  }
#endif
}

template <AmaxNan P>
struct Absmax {
  static TCEMU_CVT_HOT uint32_t body(const float* x, size_t n) { return fold_absmax<P>(x, n, 0u); }
  TCEMU_QF_CLONES(uint32_t, (const float* x, size_t n), (x, n))
};

// Segments of a fixed length SEG (0: the runtime length seg) folded into acc.
template <AmaxNan P, size_t SEG>
struct SegAbsmax {
  static TCEMU_CVT_HOT void body(const float* x, size_t n, size_t seg, uint32_t* acc) {
    const size_t len = SEG ? SEG : seg;
    size_t k = 0, i = 0;
    for (; i + len <= n; i += len, ++k) acc[k] = fold_absmax<P>(x + i, len, acc[k]);
    if (i < n) acc[k] = fold_absmax<P>(x + i, n - i, acc[k]);
  }
  TCEMU_QF_CLONES(void, (const float* x, size_t n, size_t seg, uint32_t* acc), (x, n, seg, acc))
};

template <AmaxNan P>
struct ElemAbsmax {  // seg 1
  static TCEMU_CVT_HOT void body(const float* x, size_t n, uint32_t* acc) {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t a = masked_abs<P>(x[i]);
      acc[i] = a > acc[i] ? a : acc[i];
    }
  }
  TCEMU_QF_CLONES(void, (const float* x, size_t n, uint32_t* acc), (x, n, acc))
};

template <AmaxNan P>
void segment_absmax_p(const float* x, size_t n, size_t seg, uint32_t* acc) {
  switch (seg) {
    case 1: { TCEMU_QF_ISA_RUN(ElemAbsmax<P>, x, n, acc) }
    case 16: { using K = SegAbsmax<P, 16>; TCEMU_QF_ISA_RUN(K, x, n, seg, acc) }
    case 32: { using K = SegAbsmax<P, 32>; TCEMU_QF_ISA_RUN(K, x, n, seg, acc) }
    case 128: { using K = SegAbsmax<P, 128>; TCEMU_QF_ISA_RUN(K, x, n, seg, acc) }
    default: { using K = SegAbsmax<P, 0>; TCEMU_QF_ISA_RUN(K, x, n, seg, acc) }
  }
}

#if defined(__GNUC__)
typedef float F32x8 __attribute__((vector_size(32)));
typedef uint32_t U32x8 __attribute__((vector_size(32)));
typedef uint8_t U8x32 __attribute__((vector_size(32)));
typedef uint8_t U8x8 __attribute__((vector_size(8)));
typedef uint8_t U8x16 __attribute__((vector_size(16)));
// The low bytes of the lanes of c into out[0, 8) (a byte shuffle: GCC scalarises the
// narrowing conversion).
TCEMU_CVT_HOT void store8(uint8_t* out, U32x8 c) {
  U8x32 b;
  std::memcpy(&b, &c, sizeof b);
  const U8x8 lo = __builtin_shufflevector(b, b, 0, 4, 8, 12, 16, 20, 24, 28);
  std::memcpy(out, &lo, sizeof lo);
}

// cvt.rn.satfinite of eight f32 into the narrow format D (F32ToNarrow<D, rn, true>::one of each
// lane, NaN included), as codes in 32-bit lanes. Magnitudes at or above D's smallest normal
// are rounded on the bits (the discarded bits plus half an ulp less one, plus the kept last
// bit: ties to even; a carry steps the exponent), rebiased and saturated at D's largest
// finite; smaller ones by the f32 adder itself: |y| + 2^(emin - m + 23) has D's subnormal
// quantum as its ulp, so the sum is |y| rounded to even on that grid and its low bits count
// the quanta (emin's normal code when it rounds up to 2^emin).
template <Fmt D>
TCEMU_CVT_HOT U32x8 narrow8(F32x8 y) {
  using K = F32ToNarrow<D, Round::rn, true>;
  constexpr int m = K::m;
  constexpr uint32_t rebias = static_cast<uint32_t>(127 - K::fi.bias) << 23;
  constexpr uint32_t min_normal = static_cast<uint32_t>(K::emin_b) << 23;
  constexpr uint32_t magic_bits = static_cast<uint32_t>(K::emin_b - m + 23) << 23;
  U32x8 u;
  std::memcpy(&u, &y, sizeof u);
  const U32x8 a = u & 0x7FFFFFFFu;
  const U32x8 normal = (a + ((1u << (22 - m)) - 1u) + ((a >> (23 - m)) & 1u) - rebias) >> (23 - m);
  F32x8 fa, magic;
  std::memcpy(&fa, &a, sizeof fa);
  const float mf = std::bit_cast<float>(magic_bits);
  magic = F32x8{} + mf;
  const F32x8 sum = fa + magic;
  U32x8 sub;
  std::memcpy(&sub, &sum, sizeof sub);
  sub -= magic_bits;
  U32x8 mag = a < min_normal ? sub : normal;
  mag = mag > K::max_mag ? K::max_mag : mag;  // beyond the largest finite and Inf: satfinite
  mag |= (u >> 31) << K::sign_shift;
  return a > 0x7F800000u ? U32x8{} + K::nan_code : mag;
}
#endif

// cvt.rs.satfinite.e2m1 of y with the random byte r (convert's Round::rs into e2m1: the top 8
// of the discarded bits, truncated, plus r; a carry out rounds away from zero; satfinite),
// nan_pos / nan_neg for a NaN of either sign. |y| >= 1 on the bits: the code is the exponent and
// first fraction bit, rebiased (exponent field e + 1 of e2m1 at f32 field 127 + e), the
// discarded top byte is fraction bits 21..14; saturated at 7 (6.0; Inf included). |y| < 1 on the
// 0.5 grid of e2m1's subnormals: floor(|y| * 512) (exact) holds the kept bit over the discarded
// top byte.
TCEMU_CVT_HOT uint32_t rs_e2m1_one(float y, uint32_t r, uint32_t nan_pos, uint32_t nan_neg) {
  const uint32_t u = bits_of(y), a = u & 0x7FFFFFFFu, s = u >> 31;
  if (a > 0x7F800000u) return s ? nan_neg : nan_pos;
  uint32_t mag;
  if (a >= 0x3F800000u) {
    mag = (a >> 22) - 252u + ((((a >> 14) & 0xFFu) + r) >> 8);
    mag = mag > 7u ? 7u : mag;
  } else {
    const uint32_t t = static_cast<uint32_t>(float_of(a) * 512.0f);
    mag = (t >> 8) + (((t & 0xFFu) + r) >> 8);
  }
  return mag | (s << 3);
}

// The random byte of element j (0..3) of a group of four under ptx_cvt_eval's e2m1x4 ptx_doc map:
// bytes 0, 2, 1, 3. A flashinfer_hw word is first rewritten into the ptx_doc word giving the
// same bytes (rs_word_to_doc).
constexpr uint32_t kRsShift[4] = {0, 16, 8, 24};
TCEMU_CVT_HOT uint32_t bitrev8(uint32_t x) {
  x = ((x & 0xF0u) >> 4) | ((x & 0x0Fu) << 4);
  x = ((x & 0xCCu) >> 2) | ((x & 0x33u) << 2);
  return ((x & 0xAAu) >> 1) | ((x & 0x55u) << 1);
}
// flashinfer_hw: elements 0..3 take byte 1, bitrev(byte 0), byte 3, bitrev(byte 2).
TCEMU_CVT_HOT uint32_t rs_word_to_doc(uint32_t w, bool flashinfer) {
  if (!flashinfer) return w;
  const uint32_t e0 = (w >> 8) & 0xFFu, e1 = bitrev8(w & 0xFFu), e2 = w >> 24, e3 = bitrev8((w >> 16) & 0xFFu);
  return e0 | (e2 << 8) | (e1 << 16) | (e3 << 24);
}

#if defined(__GNUC__)
typedef uint32_t U32x4w __attribute__((vector_size(16)));
// rs_word_to_doc of four words at once.
template <bool FLASHINFER>
TCEMU_CVT_HOT U32x4w rs_words_to_doc4(U32x4w w) {
  if constexpr (!FLASHINFER) {
    return w;
  } else {
    U32x4w b0 = w & 0xFFu, b2 = (w >> 16) & 0xFFu;  // the bytes bit-reversed (bitrev8)
    b0 = ((b0 & 0xF0u) >> 4) | ((b0 & 0x0Fu) << 4);
    b0 = ((b0 & 0xCCu) >> 2) | ((b0 & 0x33u) << 2);
    b0 = ((b0 & 0xAAu) >> 1) | ((b0 & 0x55u) << 1);
    b2 = ((b2 & 0xF0u) >> 4) | ((b2 & 0x0Fu) << 4);
    b2 = ((b2 & 0xCCu) >> 2) | ((b2 & 0x33u) << 2);
    b2 = ((b2 & 0xAAu) >> 1) | ((b2 & 0x55u) << 1);
    return ((w >> 8) & 0xFFu) | ((w >> 24) << 8) | (b0 << 16) | (b2 << 24);
  }
}
#endif

struct ScaleCastRsE2m1 {
#if defined(__GNUC__)
  // Elements x[0, 8) times m into out[0, 8); wv: each element's ptx_doc random word (the word
  // of its group of four).
  static TCEMU_CVT_HOT U32x8 eight(const float* x, F32x8 m, U32x8 wv, uint32_t nan_pos, uint32_t nan_neg) {
    const U32x8 shifts = {0, 16, 8, 24, 0, 16, 8, 24};
    F32x8 xv;
    std::memcpy(&xv, x, sizeof xv);
    const F32x8 y = xv * m;
    U32x8 u;
    std::memcpy(&u, &y, sizeof u);
    const U32x8 r = (wv >> shifts) & 0xFFu;
    const U32x8 a = u & 0x7FFFFFFFu, sign = u >> 31;
    U32x8 big = (a >> 22) - 252u + ((((a >> 14) & 0xFFu) + r) >> 8);
    big = big > 7u ? U32x8{} + 7u : big;
    F32x8 fa;
    std::memcpy(&fa, &a, sizeof fa);
    // |y| < 1 lanes only (elsewhere the product may exceed the integer range: unused).
    const F32x8 scaled = (a < 0x3F800000u) ? fa * 512.0f : F32x8{};
    const U32x8 t = __builtin_convertvector(__builtin_convertvector(scaled, I32x8), U32x8);
    const U32x8 small = (t >> 8) + (((t & 0xFFu) + r) >> 8);
    U32x8 c = (a < 0x3F800000u ? small : big) | (sign << 3);
    return a > 0x7F800000u ? (sign != 0u ? U32x8{} + nan_neg : U32x8{} + nan_pos) : c;
  }
  // Elements x[0, 16) times m into out[0, 16), words[0, 4) their random words.
  template <bool FLASHINFER>
  static TCEMU_CVT_HOT void sixteen(const float* x, F32x8 m0, F32x8 m1, const uint32_t* words, uint8_t* out,
                                    uint32_t nan_pos, uint32_t nan_neg) {
    U32x4w w;
    std::memcpy(&w, words, sizeof w);
    w = rs_words_to_doc4<FLASHINFER>(w);
    const U32x8 c0 = eight(x, m0, __builtin_shufflevector(w, w, 0, 0, 0, 0, 1, 1, 1, 1), nan_pos, nan_neg);
    const U32x8 c1 = eight(x + 8, m1, __builtin_shufflevector(w, w, 2, 2, 2, 2, 3, 3, 3, 3), nan_pos, nan_neg);
    U8x32 b0, b1;
    std::memcpy(&b0, &c0, sizeof b0);
    std::memcpy(&b1, &c1, sizeof b1);
    const U8x16 lo = __builtin_shufflevector(b0, b1, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60);
    std::memcpy(out, &lo, sizeof lo);
  }
  // Elements x[0, 8), words[0, 2).
  template <bool FLASHINFER>
  static TCEMU_CVT_HOT void eight_of(const float* x, F32x8 m, const uint32_t* words, uint8_t* out, uint32_t nan_pos,
                                     uint32_t nan_neg) {
    const U32x4w w = rs_words_to_doc4<FLASHINFER>(U32x4w{words[0], words[1], 0u, 0u});
    store8(out, eight(x, m, __builtin_shufflevector(w, w, 0, 0, 0, 0, 1, 1, 1, 1), nan_pos, nan_neg));
  }
#endif
  static TCEMU_CVT_HOT uint8_t one(float x, float m, const uint32_t* rbits, size_t i, bool flashinfer, uint32_t nan_pos,
                                   uint32_t nan_neg) {
    const uint32_t w = rs_word_to_doc(rbits[i / 4], flashinfer);
    return static_cast<uint8_t>(rs_e2m1_one(x * m, (w >> kRsShift[i % 4]) & 0xFFu, nan_pos, nan_neg));
  }
  // n a multiple of 4; rbits[k] for elements 4k .. 4k + 3; mul per element (bw 1) or per block
  // of bw elements (a multiple of 4).
  template <bool FLASHINFER>
  static TCEMU_CVT_HOT void run(const float* x, const float* mul, size_t bw, size_t n, const uint32_t* rbits,
                                uint8_t* out, uint32_t nan_pos, uint32_t nan_neg) {
    size_t i = 0;
    if (bw == 1) {
#if defined(__GNUC__)
      for (; i + 16 <= n; i += 16) {
        F32x8 m0, m1;
        std::memcpy(&m0, mul + i, sizeof m0);
        std::memcpy(&m1, mul + i + 8, sizeof m1);
        sixteen<FLASHINFER>(x + i, m0, m1, rbits + i / 4, out + i, nan_pos, nan_neg);
      }
      for (; i + 8 <= n; i += 8) {
        F32x8 m0;
        std::memcpy(&m0, mul + i, sizeof m0);
        eight_of<FLASHINFER>(x + i, m0, rbits + i / 4, out + i, nan_pos, nan_neg);
      }
#endif
      for (; i < n; ++i) out[i] = one(x[i], mul[i], rbits, i, FLASHINFER, nan_pos, nan_neg);
      return;
    }
    for (size_t k = 0; i < n; ++k) {
      const size_t end = n - i < bw ? n : i + bw;
      const float m = mul[k];
#if defined(__GNUC__)
      const F32x8 mv = F32x8{} + m;
      for (; i + 16 <= end; i += 16) sixteen<FLASHINFER>(x + i, mv, mv, rbits + i / 4, out + i, nan_pos, nan_neg);
      for (; i + 8 <= end; i += 8) eight_of<FLASHINFER>(x + i, mv, rbits + i / 4, out + i, nan_pos, nan_neg);
#endif
      for (; i < end; ++i) out[i] = one(x[i], m, rbits, i, FLASHINFER, nan_pos, nan_neg);
    }
  }
  static TCEMU_CVT_HOT void body(const float* x, const float* mul, size_t bw, size_t n, const uint32_t* rbits,
                                 bool flashinfer, uint8_t* out, uint32_t nan_pos, uint32_t nan_neg) {
    if (flashinfer) run<true>(x, mul, bw, n, rbits, out, nan_pos, nan_neg);
    else run<false>(x, mul, bw, n, rbits, out, nan_pos, nan_neg);
  }
  TCEMU_QF_CLONES(void,
                  (const float* x, const float* mul, size_t bw, size_t n, const uint32_t* rbits, bool flashinfer,
                   uint8_t* out, uint32_t nan_pos, uint32_t nan_neg),
                  (x, mul, bw, n, rbits, flashinfer, out, nan_pos, nan_neg))
};

template <Fmt D, bool CLAMP>
struct ScaleCast {
#if defined(__GNUC__)
  // Elements x[0, 8) times m into out[0, 8).
  static TCEMU_CVT_HOT void eight(const float* x, F32x8 m, uint8_t* out, float mx, uint8_t nan_code) {
    F32x8 xv;
    std::memcpy(&xv, x, sizeof xv);
    F32x8 y = xv * m;
    U32x8 yb;
    std::memcpy(&yb, &y, sizeof yb);
    const U32x8 nan = (yb & 0x7FFFFFFFu) > 0x7F800000u;
    if constexpr (CLAMP) {  // torch.clamp (a NaN is replaced below)
      y = y > mx ? mx : y;
      y = y < -mx ? -mx : y;
    }
    const U32x8 c = (narrow8<D>(y) & ~nan) | (nan & nan_code);
    store8(out, c);
  }
#endif
  static TCEMU_CVT_HOT uint8_t one(float x, float m, float mx, uint8_t nan_code) {
    float y = x * m;
    const bool nan = (bits_of(y) & 0x7FFFFFFFu) > 0x7F800000u;
    if constexpr (CLAMP) {
      y = y > mx ? mx : y;
      y = y < -mx ? -mx : y;
    }
    const uint8_t c = F32ToNarrow<D, Round::rn, true>::one(bits_of(y));
    return nan ? nan_code : c;
  }
  static TCEMU_CVT_HOT void body(const float* x, const float* mul, size_t bw, size_t n, uint8_t* out, float mx,
                                 uint8_t nan_code) {
    size_t i = 0;
    if (bw == 1) {
#if defined(__GNUC__)
      for (; i + 8 <= n; i += 8) {
        F32x8 mv;
        std::memcpy(&mv, mul + i, sizeof mv);
        eight(x + i, mv, out + i, mx, nan_code);
      }
#endif
      for (; i < n; ++i) out[i] = one(x[i], mul[i], mx, nan_code);
      return;
    }
    for (size_t k = 0; i < n; ++k) {  // one multiplier per block of bw elements
      const size_t end = n - i < bw ? n : i + bw;
      const float m = mul[k];
#if defined(__GNUC__)
      const F32x8 mv = F32x8{} + m;
      for (; i + 8 <= end; i += 8) eight(x + i, mv, out + i, mx, nan_code);
#endif
      for (; i < end; ++i) out[i] = one(x[i], m, mx, nan_code);
    }
  }
  TCEMU_QF_CLONES(void, (const float* x, const float* mul, size_t bw, size_t n, uint8_t* out, float mx, uint8_t nan_code),
                  (x, mul, bw, n, out, mx, nan_code))
};

template <Fmt D>
void scale_cast_f(const float* x, const float* mul, size_t bw, size_t n, uint8_t* out, const CastSpec& s) {
  if (s.clamp) {
    using K = ScaleCast<D, true>;
    TCEMU_QF_ISA_RUN(K, x, mul, bw, n, out, s.max, s.nan_code)
  }
  using K = ScaleCast<D, false>;
  TCEMU_QF_ISA_RUN(K, x, mul, bw, n, out, s.max, s.nan_code)
}

// The dequantization gathers. The baseline loops read one table entry per element; the AVX2
// ones (also the AVX-512 build's: the table lookups gain nothing from wider vectors) decode
// eight elements at a time: a 16-entry table row (e2m1) by two in-register permutes and a blend
// on the code's bit 3, a larger one by a hardware gather, the block's scale broadcast (or, with
// one-column blocks, eight scale codes widened).
#ifdef TCEMU_CVT_X86
#define TCEMU_QF_AVX2 inline __attribute__((always_inline, target("avx2")))
// Codes codes[0, 8) as 32-bit lanes.
TCEMU_QF_AVX2 __m256i codes8(const uint8_t* codes) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes)));
}
// row[idx] of a 16-entry row held as lo = row[0, 8), hi = row[8, 16) (idx < 16).
TCEMU_QF_AVX2 __m256 lookup16(__m256 lo, __m256 hi, __m256i idx) {
  const __m256 a = _mm256_permutevar8x32_ps(lo, idx), b = _mm256_permutevar8x32_ps(hi, idx);
  return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}
#endif

// table[sc[i / bw] * ncodes + codes[i]] (see gather_blocks), the scalar form: elements [i0, i1).
TCEMU_CVT_HOT uint32_t gather_blocks_scalar(const uint8_t* codes, size_t i0, size_t i1, size_t bw, const uint8_t* sc,
                                            const float* table, uint32_t ncodes, float* out) {
  uint32_t bad = 0;
  for (size_t i = i0; i < i1; ++i) {
    const uint32_t c = codes[i];
    const bool in = c < ncodes;
    out[i] = table[size_t{sc[i / bw]} * ncodes + (in ? c : 0u)];
    bad |= in ? 0u : 1u;
  }
  return bad;
}

struct GatherBlocks {
  static TCEMU_CVT_HOT bool base(const uint8_t* codes, size_t w, size_t bw, const uint8_t* sc, const float* table,
                                 uint32_t ncodes, float* out) {
    return gather_blocks_scalar(codes, 0, w, bw, sc, table, ncodes, out) != 0;
  }
#ifdef TCEMU_CVT_X86
  __attribute__((target("avx2"))) static bool avx2(const uint8_t* codes, size_t w, size_t bw, const uint8_t* sc,
                                                   const float* table, uint32_t ncodes, float* out) {
    return vec(codes, w, bw, sc, table, ncodes, out);
  }
  __attribute__((target("arch=x86-64-v4"))) static bool avx512(const uint8_t* codes, size_t w, size_t bw,
                                                                const uint8_t* sc, const float* table, uint32_t ncodes,
                                                                float* out) {
    return vec(codes, w, bw, sc, table, ncodes, out);
  }
  // ncodes is a power of two up to 256 (the element format's codes).
  static TCEMU_QF_AVX2 bool vec(const uint8_t* codes, size_t w, size_t bw, const uint8_t* sc, const float* table,
                                uint32_t ncodes, float* out) {
    const bool blocks8 = bw % 8 == 0;
    if (!blocks8 && bw != 1) return gather_blocks_scalar(codes, 0, w, bw, sc, table, ncodes, out) != 0;
    const __m256i top = _mm256_set1_epi32(static_cast<int>(ncodes - 1));
    __m256i badv = _mm256_setzero_si256();
    uint32_t bad = 0;
    size_t i = 0;
    if (blocks8 && ncodes == 16) {
      for (size_t k = 0; i < w; ++k) {
        const size_t end = std::min(w, i + bw);
        const float* row = table + size_t{sc[k]} * 16;
        const __m256 lo = _mm256_loadu_ps(row), hi = _mm256_loadu_ps(row + 8);
        for (; i + 8 <= end; i += 8) {
          const __m256i c = codes8(codes + i);
          badv = _mm256_or_si256(badv, _mm256_cmpgt_epi32(c, top));
          _mm256_storeu_ps(out + i, lookup16(lo, hi, _mm256_and_si256(c, top)));
        }
        bad |= gather_blocks_scalar(codes, i, end, bw, sc, table, ncodes, out);
        i = end;
      }
    } else if (blocks8) {
      for (size_t k = 0; i < w; ++k) {
        const size_t end = std::min(w, i + bw);
        const float* row = table + size_t{sc[k]} * ncodes;
        for (; i + 8 <= end; i += 8) {
          const __m256i c = codes8(codes + i);
          badv = _mm256_or_si256(badv, _mm256_cmpgt_epi32(c, top));
          _mm256_storeu_ps(out + i, _mm256_i32gather_ps(row, _mm256_and_si256(c, top), 4));
        }
        bad |= gather_blocks_scalar(codes, i, end, bw, sc, table, ncodes, out);
        i = end;
      }
    } else {  // one-column blocks: each element its own scale code
      const int shift = std::countr_zero(ncodes);
      for (; i + 8 <= w; i += 8) {
        const __m256i c = codes8(codes + i);
        badv = _mm256_or_si256(badv, _mm256_cmpgt_epi32(c, top));
        const __m256i off = _mm256_sll_epi32(codes8(sc + i), _mm_cvtsi32_si128(shift));
        _mm256_storeu_ps(out + i, _mm256_i32gather_ps(table, _mm256_add_epi32(off, _mm256_and_si256(c, top)), 4));
      }
      bad |= gather_blocks_scalar(codes, i, w, bw, sc, table, ncodes, out);
    }
    return bad != 0 || !_mm256_testz_si256(badv, badv);
  }
#endif
};

struct GatherMul {
  // A NaN product is the GPU's canonical 0x7FFFFFFF (TE's dequantize is an FMUL on the GPU),
  // whatever NaN the host's multiply propagates.
  static TCEMU_CVT_HOT void scalar(const uint8_t* codes, size_t i, size_t n, const float* vtab, float s, float* out) {
    for (; i < n; ++i) {
      const float p = vtab[codes[i]] * s;
      out[i] = p != p ? float_of(0x7FFFFFFFu) : p;
    }
  }
  static TCEMU_CVT_HOT void base(const uint8_t* codes, size_t n, const float* vtab, float s, float* out) {
    scalar(codes, 0, n, vtab, s, out);
  }
#ifdef TCEMU_CVT_X86
  __attribute__((target("avx2"))) static void avx2(const uint8_t* codes, size_t n, const float* vtab, float s,
                                                   float* out) {
    vec(codes, n, vtab, s, out);
  }
  __attribute__((target("arch=x86-64-v4"))) static void avx512(const uint8_t* codes, size_t n, const float* vtab,
                                                                float s, float* out) {
    vec(codes, n, vtab, s, out);
  }
  static TCEMU_QF_AVX2 void vec(const uint8_t* codes, size_t n, const float* vtab, float s, float* out) {
    const __m256 sv = _mm256_set1_ps(s), canon = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 p = _mm256_mul_ps(_mm256_i32gather_ps(vtab, codes8(codes + i), 4), sv);
      _mm256_storeu_ps(out + i, _mm256_blendv_ps(p, canon, _mm256_cmp_ps(p, p, _CMP_UNORD_Q)));
    }
    scalar(codes, i, n, vtab, s, out);
  }
#endif
};

// Round-to-nearest-even of a finite double into bf16, as f32 bits: first to f32 rounding to odd
// (the f32 nearest, stepped back toward zero when it rounded away, its last bit set when
// inexact), which keeps 16 bits beyond bf16's and so rounds once, then the conversion kernel's
// f32 -> bf16 (bf16 has f32's exponent range: its subnormals and overflow to Inf included).
[[maybe_unused]] TCEMU_CVT_HOT uint32_t double_to_bf16_rn(double d) {
  const float f = static_cast<float>(d);
  const double back = static_cast<double>(f);
  const uint32_t u = bits_of(f);
  const uint32_t inexact = back != d ? 1u : 0u;
  const uint32_t away = std::fabs(back) > std::fabs(d) ? 1u : 0u;
  const uint32_t mag = ((u & 0x7FFFFFFFu) - (inexact & away)) | inexact;
  return static_cast<uint32_t>(F32ToNarrow<Fmt::bf16, Round::rn, false>::one((u & 0x80000000u) | mag)) << 16;
}

#if defined(__GNUC__)
typedef double F64x4 __attribute__((vector_size(32)));
typedef float F32x4 __attribute__((vector_size(16)));
typedef int64_t I64x4 __attribute__((vector_size(32)));
typedef uint32_t U32x4 __attribute__((vector_size(16)));

// Round-to-nearest-even of four finite doubles into bf16, as f32 bits, in one rounding. At or
// above 2^-126 (bf16's normals) on the double's bits: its significand cut to bf16's 8 bits, ties
// to even (the discarded 45 bits plus half less one plus the kept last bit; a carry steps the
// exponent, from the largest bf16 up to 2^128); the f32 conversion of the result is then exact,
// or Inf from 2^128 as RN overflows. Below, on bf16's subnormal grid 2^-133 by the double adder:
// (d + C) - C with C = 1.5 * 2^-81, whose binade has that ulp for every |d| < 2^-126, is d rounded
// to even on the grid (exact in f32); the sign put back for those that round to zero.
TCEMU_CVT_HOT U32x4 double_to_bf16_rn4(F64x4 d) {
  I64x4 db;
  std::memcpy(&db, &d, sizeof db);
  const I64x4 normal = (db + ((int64_t{1} << 44) - 1) + ((db >> 45) & 1)) & ~((int64_t{1} << 45) - 1);
  const F64x4 c = F64x4{} + 0x1.8p-81;
  const F64x4 tiny = (d + c) - c;
  I64x4 tb;
  std::memcpy(&tb, &tiny, sizeof tb);
  tb |= db & INT64_MIN;
  const I64x4 r = (db & INT64_MAX) < std::bit_cast<int64_t>(0x1p-126) ? tb : normal;
  F64x4 rd;
  std::memcpy(&rd, &r, sizeof rd);
  const F32x4 f = __builtin_convertvector(rd, F32x4);
  U32x4 u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
#endif

struct Rht16 {
  // y_j = sum_i x_i w_ij with w_ij = s_i (-1)^popcount(i & j) / 4: the signed, quartered
  // inputs (exact) through the four butterfly stages of the fast Walsh-Hadamard transform in
  // double. Every intermediate is a signed sum of some of the 16 terms, whose bits span at
  // most (emax - emin) + 28 places for the f32 exponent fields emax, emin (subnormals counted
  // as 1) of the group's nonzero inputs: exact when that is <= 53, so the sums are the exact
  // ones. A zero result with a nonzero term is a cancellation: +0, as the exact rule has it
  // (adding +0 turns a -0 left by the butterflies' subtractions into +0).
  static TCEMU_CVT_HOT void body(const float* x, float* y, size_t groups, uint16_t mask, bool bf16, uint8_t* bad) {
    alignas(64) double sgn[16];
    for (int i = 0; i < 16; ++i) sgn[i] = ((mask >> i) & 1) ? -0.25 : 0.25;
    for (size_t g = 0; g < groups; ++g) {
      const float* in = x + g * 16;
      // Largest |x| bits (NaN above Inf), smallest nonzero |x| bits.
      uint32_t hi, lo;
      hi_lo_abs16(in, hi, lo);
      const int32_t fhi = static_cast<int32_t>(hi >> 23), flo = static_cast<int32_t>(lo >> 23);
      const bool ok = hi < 0x7F800000u && (fhi > 1 ? fhi : 1) - (flo > 1 ? flo : 1) <= 25;
      bad[g] = ok ? 0 : 1;
      if (!ok) continue;
      if (hi == 0) {  // all zeros: y_j is -0 when every signed term is -0, else +0
        for (int j = 0; j < 16; ++j) {
          bool all_neg = true;
          for (int i = 0; i < 16; ++i) {
            const bool w_pos = (((mask >> i) ^ static_cast<unsigned>(std::popcount(static_cast<unsigned>(i & j)))) & 1) == 0;
            all_neg = all_neg && (((bits_of(in[i]) >> 31) != 0) == w_pos);
          }
          y[g * 16 + j] = all_neg ? -0.0f : 0.0f;
        }
        continue;
      }
#if defined(__GNUC__)
      F64x4 v[4];
      for (int k = 0; k < 4; ++k) {
        F32x4 f;
        std::memcpy(&f, in + 4 * k, sizeof f);
        F64x4 s;
        std::memcpy(&s, sgn + 4 * k, sizeof s);
        v[k] = __builtin_convertvector(f, F64x4) * s;
      }
      // Stages 8 and 4 pair whole vectors; 2 and 1 pair lanes within them.
      F64x4 a = v[0] + v[2], b = v[1] + v[3], c = v[0] - v[2], d = v[1] - v[3];
      v[0] = a + b;
      v[1] = a - b;
      v[2] = c + d;
      v[3] = c - d;
      const F64x4 neg_hi = {1.0, 1.0, -1.0, -1.0}, neg_odd = {1.0, -1.0, 1.0, -1.0};
      for (int k = 0; k < 4; ++k) {
        F64x4 t = v[k];
        t = t * neg_hi + __builtin_shufflevector(t, t, 2, 3, 0, 1);
        t = t * neg_odd + __builtin_shufflevector(t, t, 1, 0, 3, 2);
        t += 0.0;
        if (bf16) {
          const U32x4 r = double_to_bf16_rn4(t);
          std::memcpy(y + g * 16 + 4 * k, &r, sizeof r);
        } else {
          const F32x4 r = __builtin_convertvector(t, F32x4);
          std::memcpy(y + g * 16 + 4 * k, &r, sizeof r);
        }
      }
#else
      double t[16];
      for (int i = 0; i < 16; ++i) t[i] = static_cast<double>(in[i]) * sgn[i];
      for (int h = 1; h < 16; h *= 2)
        for (int i = 0; i < 16; ++i)
          if ((i & h) == 0) {
            const double p = t[i], q = t[i + h];
            t[i] = p + q;
            t[i + h] = p - q;
          }
      for (int j = 0; j < 16; ++j) {
        t[j] += 0.0;
        y[g * 16 + j] = bf16 ? float_of(double_to_bf16_rn(t[j])) : static_cast<float>(t[j]);
      }
#endif
    }
  }
  TCEMU_QF_CLONES(void, (const float* x, float* y, size_t groups, uint16_t mask, bool bf16, uint8_t* bad),
                  (x, y, groups, mask, bf16, bad))
};

// nvfp4_te_block_scale_bits of each block amax (as bits) and the multiplier mul_tab[code].
struct Nvfp4BlockScales {
  static TCEMU_CVT_HOT void body(const uint32_t* amax, size_t nb, float s_enc, bool div6, const float* mul_tab,
                                 uint8_t* codes, float* mul) {
    const float c = s_enc * static_cast<float>(1.0 / 6.0);
    size_t k = 0;
#if defined(__GNUC__)
    // Eight blocks at a time: the same products, fminf(d, FLT_MAX) as a select (a NaN d
    // compares false: FLT_MAX, as fminf gives), the e4m3 cast of narrow8.
    for (; k + 8 <= nb; k += 8) {
      F32x8 a;
      std::memcpy(&a, amax + k, sizeof a);
      const F32x8 d = div6 ? a / 6.0f * s_enc : a * c;
      const F32x8 fmax = F32x8{} + std::numeric_limits<float>::max();
      const F32x8 m = d < fmax ? d : fmax;
      const U32x8 code = narrow8<Fmt::e4m3>(m);
      store8(codes + k, code);
      for (int j = 0; j < 8; ++j) mul[k + static_cast<size_t>(j)] = mul_tab[code[j]];
    }
#endif
    for (; k < nb; ++k) {
      const float a = float_of(amax[k]);
      const float d = div6 ? a / 6.0f * s_enc : a * c;
      const bool nan = (bits_of(d) & 0x7FFFFFFFu) > 0x7F800000u;
      const float m = nan ? std::numeric_limits<float>::max() : (d < std::numeric_limits<float>::max() ? d : std::numeric_limits<float>::max());
      const uint8_t code = F32ToNarrow<Fmt::e4m3, Round::rn, true>::one(bits_of(m));
      codes[k] = code;
      mul[k] = mul_tab[code];
    }
  }
  TCEMU_QF_CLONES(void,
                  (const uint32_t* amax, size_t nb, float s_enc, bool div6, const float* mul_tab, uint8_t* codes, float* mul),
                  (amax, nb, s_enc, div6, mul_tab, codes, mul))
};

struct MxRceilBlockScales {
  static TCEMU_CVT_HOT void body(const uint32_t* acc, size_t nb, bool propagate, float rcp, bool sat,
                                 const float* mul_tab, uint8_t* codes, float* mul) {
    for (size_t k = 0; k < nb; ++k) {
      const uint32_t a = acc[k];
      const float amax = propagate && a > 0x7F800000u ? std::numeric_limits<float>::quiet_NaN() : float_of(a);
      const uint8_t c = e8m0_round_up_bits(amax * rcp, sat);
      codes[k] = c;
      mul[k] = mul_tab[c];
    }
  }
  TCEMU_QF_CLONES(void,
                  (const uint32_t* acc, size_t nb, bool propagate, float rcp, bool sat, const float* mul_tab,
                   uint8_t* codes, float* mul),
                  (acc, nb, propagate, rcp, sat, mul_tab, codes, mul))
};

struct Bf16ToF32 {
  static TCEMU_CVT_HOT void body(const uint16_t* in, size_t n, float* out) {
    for (size_t i = 0; i < n; ++i) out[i] = float_of(static_cast<uint32_t>(in[i]) << 16);
  }
  TCEMU_QF_CLONES(void, (const uint16_t* in, size_t n, float* out), (in, n, out))
};

struct F32ToBf16Bits {
  static TCEMU_CVT_HOT void body(const float* in, size_t n, uint16_t* out) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint16_t>(bits_of(in[i]) >> 16);
  }
  TCEMU_QF_CLONES(void, (const float* in, size_t n, uint16_t* out), (in, n, out))
};

struct MxToMxBlockScales {
  static TCEMU_CVT_HOT void body(const uint32_t* acc, size_t nb, bool propagate, int mode, int emax, uint32_t even_add,
                                 const float* mul_tab, uint8_t* codes, float* mul) {
    for (size_t k = 0; k < nb; ++k) {
      // acc[k] is |amax| bits; above Inf a NaN (propagate), which gives 0xFF.
      uint32_t bits = acc[k];
      uint8_t c;
      if (propagate && bits > 0x7F800000u) {
        c = 0xFF;
      } else {
        if (mode == 2) bits = (bits + even_add) & 0xFF800000u;
        int pow2 = static_cast<int>((bits >> 23) & 0xFF) - 127;
        if (mode == 1 && (bits & 0x7FFFFFu) != 0) pow2 += 1;
        int unbiased = pow2 - emax;
        unbiased = unbiased < -127 ? -127 : unbiased > 128 ? 128 : unbiased;
        c = (bits & 0x7F800000u) == 0x7F800000u ? uint8_t{0xFF} : static_cast<uint8_t>(unbiased + 127);
      }
      codes[k] = c;
      mul[k] = mul_tab[c];
    }
  }
  TCEMU_QF_CLONES(void,
                  (const uint32_t* acc, size_t nb, bool propagate, int mode, int emax, uint32_t even_add,
                   const float* mul_tab, uint8_t* codes, float* mul),
                  (acc, nb, propagate, mode, emax, even_add, mul_tab, codes, mul))
};

}  // namespace

void mx_tomx_block_scales(const uint32_t* acc, size_t nb, bool propagate, int mode, int emax, uint32_t even_add,
                          const float* mul_tab, uint8_t* codes, float* mul) {
  TCEMU_QF_ISA_RUN(MxToMxBlockScales, acc, nb, propagate, mode, emax, even_add, mul_tab, codes, mul)
}

void bf16_to_f32(const uint16_t* in, size_t n, float* out) { TCEMU_QF_ISA_RUN(Bf16ToF32, in, n, out) }
void f32_to_bf16_bits(const float* in, size_t n, uint16_t* out) { TCEMU_QF_ISA_RUN(F32ToBf16Bits, in, n, out) }

void mx_rceil_block_scales(const uint32_t* acc, size_t nb, bool propagate, float rcp, bool sat, const float* mul_tab,
                           uint8_t* codes, float* mul) {
  TCEMU_QF_ISA_RUN(MxRceilBlockScales, acc, nb, propagate, rcp, sat, mul_tab, codes, mul)
}

void nvfp4_block_scales(const uint32_t* amax, size_t nb, float s_enc, bool div6, const float* mul_tab, uint8_t* codes,
                        float* mul) {
  TCEMU_QF_ISA_RUN(Nvfp4BlockScales, amax, nb, s_enc, div6, mul_tab, codes, mul)
}

uint32_t absmax_bits(const float* x, size_t n, AmaxNan policy) {
  switch (policy) {
    case AmaxNan::ignore: { TCEMU_QF_ISA_RUN(Absmax<AmaxNan::ignore>, x, n) }
    case AmaxNan::ignore_nonfinite: { TCEMU_QF_ISA_RUN(Absmax<AmaxNan::ignore_nonfinite>, x, n) }
    default: { TCEMU_QF_ISA_RUN(Absmax<AmaxNan::propagate>, x, n) }
  }
}

void segment_absmax(const float* x, size_t n, size_t seg, uint32_t* acc, AmaxNan policy) {
  switch (policy) {
    case AmaxNan::ignore: segment_absmax_p<AmaxNan::ignore>(x, n, seg, acc); return;
    case AmaxNan::ignore_nonfinite: segment_absmax_p<AmaxNan::ignore_nonfinite>(x, n, seg, acc); return;
    default: segment_absmax_p<AmaxNan::propagate>(x, n, seg, acc); return;
  }
}

void scale_cast(const float* x, const float* mul, size_t bw, size_t n, uint8_t* out, const CastSpec& s) {
  if (bw == 0) bw = 1;
  switch (s.elem) {
    case Fmt::e4m3: scale_cast_f<Fmt::e4m3>(x, mul, bw, n, out, s); return;
    case Fmt::e5m2: scale_cast_f<Fmt::e5m2>(x, mul, bw, n, out, s); return;
    case Fmt::e3m2: scale_cast_f<Fmt::e3m2>(x, mul, bw, n, out, s); return;
    case Fmt::e2m3: scale_cast_f<Fmt::e2m3>(x, mul, bw, n, out, s); return;
    default: scale_cast_f<Fmt::e2m1>(x, mul, bw, n, out, s); return;  // callers pass one of these five
  }
}

bool gather_blocks(const uint8_t* codes, size_t w, size_t bw, const uint8_t* sc, const float* table, uint32_t ncodes,
                   float* out) {
  TCEMU_QF_ISA_RUN(GatherBlocks, codes, w, bw, sc, table, ncodes, out)
}

void scale_cast_rs_e2m1(const float* x, const float* mul, size_t bw, size_t n, const uint32_t* rbits, RsBitMap map,
                        uint8_t nan_pos, uint8_t nan_neg, uint8_t* out) {
  if (bw == 0) bw = 1;
  TCEMU_QF_ISA_RUN(ScaleCastRsE2m1, x, mul, bw, n, rbits, map == RsBitMap::flashinfer_hw, out, nan_pos, nan_neg)
}

void gather_mul(const uint8_t* codes, size_t n, const float* vtab, float s, float* out) {
  TCEMU_QF_ISA_RUN(GatherMul, codes, n, vtab, s, out)
}

void rht16_groups(const float* x, float* y, size_t groups, uint16_t sign_mask, bool bf16, uint8_t* bad) {
  TCEMU_QF_ISA_RUN(Rht16, x, y, groups, sign_mask, bf16, bad)
}

}  // namespace tcemu::quant::detail
