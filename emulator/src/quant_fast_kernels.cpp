// The element loops of the fast quantizers (quant_fast.hpp), compiled for x86-64-v4 (AVX-512),
// AVX2 and the baseline like the conversion kernels (converter_kernels.hpp) whose F32ToNarrow
// they cast with, and picked at run time by detail::convert_isa(). Everything a loop calls is
// forced inline so that it is compiled for the loop's ISA.
#include <bit>
#include <cstring>

#include "converter_kernels.hpp"
#include "quant_fast.hpp"

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

template <AmaxNan P>
struct Absmax {
  static TCEMU_CVT_HOT uint32_t body(const float* x, size_t n) {
    uint32_t m = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t a = masked_abs<P>(x[i]);
      m = a > m ? a : m;
    }
    return m;
  }
  TCEMU_QF_CLONES(uint32_t, (const float* x, size_t n), (x, n))
};

// Segments of a fixed length SEG (0: the runtime length seg) folded into acc.
template <AmaxNan P, size_t SEG>
struct SegAbsmax {
  static TCEMU_CVT_HOT void body(const float* x, size_t n, size_t seg, uint32_t* acc) {
    const size_t len = SEG ? SEG : seg;
    size_t k = 0, i = 0;
    for (; i + len <= n; i += len, ++k) {
      uint32_t m = acc[k];
      for (size_t j = 0; j < len; ++j) {
        const uint32_t a = masked_abs<P>(x[i + j]);
        m = a > m ? a : m;
      }
      acc[k] = m;
    }
    if (i < n) {
      uint32_t m = acc[k];
      for (; i < n; ++i) {
        const uint32_t a = masked_abs<P>(x[i]);
        m = a > m ? a : m;
      }
      acc[k] = m;
    }
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

template <Fmt D, bool CLAMP>
struct ScaleCast {
  static TCEMU_CVT_HOT void body(const float* x, const float* mul, size_t n, uint8_t* out, float mx, uint8_t nan_code) {
    for (size_t i = 0; i < n; ++i) {
      float y = x[i] * mul[i];
      const bool nan = (bits_of(y) & 0x7FFFFFFFu) > 0x7F800000u;
      if constexpr (CLAMP) {  // torch.clamp (a NaN is replaced below)
        y = y > mx ? mx : y;
        y = y < -mx ? -mx : y;
      }
      const uint8_t c = F32ToNarrow<D, Round::rn, true>::one(bits_of(y));
      out[i] = nan ? nan_code : c;
    }
  }
  TCEMU_QF_CLONES(void, (const float* x, const float* mul, size_t n, uint8_t* out, float mx, uint8_t nan_code),
                  (x, mul, n, out, mx, nan_code))
};

template <Fmt D>
void scale_cast_f(const float* x, const float* mul, size_t n, uint8_t* out, const CastSpec& s) {
  if (s.clamp) {
    using K = ScaleCast<D, true>;
    TCEMU_QF_ISA_RUN(K, x, mul, n, out, s.max, s.nan_code)
  }
  using K = ScaleCast<D, false>;
  TCEMU_QF_ISA_RUN(K, x, mul, n, out, s.max, s.nan_code)
}

struct Gather {
  static TCEMU_CVT_HOT bool body(const uint8_t* codes, const uint32_t* off, size_t n, const float* table,
                                 uint32_t ncodes, float* out) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t c = codes[i];
      const bool in = c < ncodes;
      const float v = table[off[i] + (in ? c : 0u)];
      out[i] = v;
      bad |= in ? 0u : 1u;
    }
    return bad != 0;
  }
  TCEMU_QF_CLONES(bool,
                  (const uint8_t* codes, const uint32_t* off, size_t n, const float* table, uint32_t ncodes, float* out),
                  (codes, off, n, table, ncodes, out))
};

struct GatherMul {
  static TCEMU_CVT_HOT void body(const uint8_t* codes, size_t n, const float* vtab, float s, float* out) {
    // Both operands NaN: the first one, as x86's scalar multiply of the scalar loop's
    // vtab * s gives it (the compiler may swap a vector multiply's operands).
    for (size_t i = 0; i < n; ++i) {
      const float v = vtab[codes[i]];
      const float p = v * s;
      out[i] = (bits_of(v) & 0x7FFFFFFFu) > 0x7F800000u ? float_of(bits_of(v) | 0x400000u) : p;
    }
  }
  TCEMU_QF_CLONES(void, (const uint8_t* codes, size_t n, const float* vtab, float s, float* out), (codes, n, vtab, s, out))
};

// Round-to-nearest-even of a finite double into bf16, as an f32 (bf16 has f32's exponent
// range: its subnormals are multiples of 2^-133), overflow to Inf.
TCEMU_CVT_HOT float double_to_bf16_rn(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  const uint32_t sign = static_cast<uint32_t>(u >> 63) << 31;
  const uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
  const int64_t e = static_cast<int64_t>(a >> 52) - 1023;  // a != 0: normal in double
  const uint64_t sig = (a & 0xFFFFFFFFFFFFFull) | (uint64_t{1} << 52);
  const int64_t eg = e > -126 ? e : -126;
  int64_t shift = 45 + (eg - e);
  shift = shift < 63 ? shift : 63;
  uint64_t kept = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  kept += (rem > half) | ((rem == half) & kept & 1);
  uint64_t mag = (static_cast<uint64_t>(eg + 126) << 7) + kept;  // bf16 magnitude bits
  mag = mag >= (uint64_t{0xFF} << 7) ? (uint64_t{0xFF} << 7) : mag;
  const uint32_t r = a == 0 ? sign : sign | (static_cast<uint32_t>(mag) << 16);
  return float_of(r);
}

struct Rht16 {
  static TCEMU_CVT_HOT void body(const float* x, float* y, size_t groups, uint16_t mask, bool bf16, uint8_t* bad) {
    for (size_t g = 0; g < groups; ++g) {
      const float* in = x + g * 16;
      int32_t fmax = 0, fmin = 255;
      uint32_t nonfinite = 0;
      double t[16];
      for (int i = 0; i < 16; ++i) {
        const uint32_t b = bits_of(in[i]);
        const int32_t field = static_cast<int32_t>((b >> 23) & 0xFF);
        nonfinite |= field == 255 ? 1u : 0u;
        const bool nz = (b & 0x7FFFFFFFu) != 0;
        const int32_t eff = field ? field : 1;  // a subnormal's last bit is worth 2^-149 as field 1's
        fmax = nz && eff > fmax ? eff : fmax;
        fmin = nz && eff < fmin ? eff : fmin;
        t[i] = static_cast<double>(in[i]) * (((mask >> i) & 1) ? -0.25 : 0.25);  // exact
      }
      // Every partial sum below is a sum of some of the t[i] (signs flipped): its bits span at
      // most (fmax - fmin) + 28 places, exact in double when that is <= 53.
      const bool ok = nonfinite == 0 && fmax - fmin <= 25;
      bad[g] = ok ? 0 : 1;
      if (!ok) continue;
      if (fmin == 255) {  // all zeros: y_j is -0 when every signed term is -0, else +0
        for (int j = 0; j < 16; ++j) {
          bool all_neg = true;
          for (int i = 0; i < 16; ++i)
            all_neg = all_neg && ((bits_of(in[i]) >> 31) ^ ((mask >> i) & 1u) ^ (std::popcount(static_cast<unsigned>(i & j)) & 1u));
          y[g * 16 + j] = all_neg ? -0.0f : 0.0f;
        }
        continue;
      }
      // With a nonzero term, a zero result is a cancellation: +0 in IEEE arithmetic, as the
      // exact rule has it (-0 only when every signed term is -0).
      for (int h = 1; h < 16; h <<= 1)  // Walsh-Hadamard butterflies: y_j = sum_i t_i (-1)^popcount(i & j)
        for (int i = 0; i < 16; i += 2 * h)
          for (int k = i; k < i + h; ++k) {
            const double a = t[k], b = t[k + h];
            t[k] = a + b;
            t[k + h] = a - b;
          }
      for (int j = 0; j < 16; ++j) y[g * 16 + j] = bf16 ? double_to_bf16_rn(t[j]) : static_cast<float>(t[j]);
    }
  }
  TCEMU_QF_CLONES(void, (const float* x, float* y, size_t groups, uint16_t mask, bool bf16, uint8_t* bad),
                  (x, y, groups, mask, bf16, bad))
};

}  // namespace

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

void scale_cast(const float* x, const float* mul, size_t n, uint8_t* out, const CastSpec& s) {
  switch (s.elem) {
    case Fmt::e4m3: scale_cast_f<Fmt::e4m3>(x, mul, n, out, s); return;
    case Fmt::e5m2: scale_cast_f<Fmt::e5m2>(x, mul, n, out, s); return;
    case Fmt::e3m2: scale_cast_f<Fmt::e3m2>(x, mul, n, out, s); return;
    case Fmt::e2m3: scale_cast_f<Fmt::e2m3>(x, mul, n, out, s); return;
    default: scale_cast_f<Fmt::e2m1>(x, mul, n, out, s); return;  // callers pass one of these five
  }
}

bool gather(const uint8_t* codes, const uint32_t* off, size_t n, const float* table, uint32_t ncodes, float* out) {
  TCEMU_QF_ISA_RUN(Gather, codes, off, n, table, ncodes, out)
}

void gather_mul(const uint8_t* codes, size_t n, const float* vtab, float s, float* out) {
  TCEMU_QF_ISA_RUN(GatherMul, codes, n, vtab, s, out)
}

void rht16_groups(const float* x, float* y, size_t groups, uint16_t sign_mask, bool bf16, uint8_t* bad) {
  TCEMU_QF_ISA_RUN(Rht16, x, y, groups, sign_mask, bf16, bad)
}

}  // namespace tcemu::quant::detail
