// The AVX2 GST-FDPA kernel of the fast whole-matrix path: mma_fast_gst_avx512.cpp's kernel on
// 256-bit registers, so that a CPU without AVX-512 runs the step's end on vectors too. Per step
// and kNB columns: the groups' exact integer sums (int32 lanes, four ymm registers), the step's
// largest exponent over the groups' scale exponents and C (a vector max), then on int64 lanes,
// four per register, each group's term (sum times the two scale significands, aligned to 2^q
// with truncation, signed) and mma_fast_avx2.hpp's end of step (C's term, rounding toward zero
// to f32). A lane whose step holds a NaN or Inf (operand, scale or C) is recomputed by the
// generic step function, as in the other builds. Taken: C fused into an f32 accumulator rounded
// toward zero, sums below 2^51 (gst_sum_fits); everything else runs the compiler-vectorised
// loops of mma_fast_gst.cpp.
#include "mma_fast_kernels.hpp"

#ifdef TCEMU_FAST_X86
#include "mma_fast_avx2.hpp"

namespace tcemu::detail::fast {

namespace {

using namespace avx2;

constexpr size_t kMaxGroups = 64;  // groups per step (mma_fast.cpp declines more)

TCEMU_V256 __m256i load(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// One step of one row (run_steps' Step).
struct GstStep {
  const Ctx& cx;
  const GstOps& o;
  const ScalesB& sb;

  // The groups' exact sums (gs) and whether any product of a group is nonzero (nz: all-ones
  // lanes).
  TCEMU_V256 void group_sums(size_t m, size_t n0, size_t k, __m256i* gs, __m256i* nz) const {
    const size_t G = static_cast<size_t>(cx.p.group);
    for (size_t g = 0; g < cx.L / G; ++g) {
      __m256i s[kH], any[kH];
      for (int h = 0; h < kH; ++h) s[h] = any[h] = _mm256_setzero_si256();
      const int32_t* av = &o.av[m * cx.K + k + g * G];
      for (size_t i = 0; i < G; ++i) {
        const __m256i a = _mm256_set1_epi32(av[i]);
        const int32_t* bv = &o.bv[n0 * cx.K + (k + g * G + i) * kNB];
        for (int h = 0; h < kH; ++h) {
          const __m256i prod = _mm256_mullo_epi32(a, load(bv + 8 * h));
          s[h] = _mm256_add_epi32(s[h], prod);
          any[h] = _mm256_or_si256(any[h], prod);
        }
      }
      const __m256i zero = _mm256_setzero_si256();
      for (int h = 0; h < kH; ++h) {
        gs[g * kH + h] = s[h];
        nz[g * kH + h] = _mm256_xor_si256(_mm256_cmpeq_epi32(any[h], zero), _mm256_set1_epi32(-1));
      }
    }
  }

  TCEMU_V256 uint32_t operator()(size_t m, size_t n0, size_t s, uint32_t* code) const {
    const DatapathParams& p = cx.p;
    const size_t G = static_cast<size_t>(p.group), gpl = cx.L / G, k = s * cx.L, g0 = k / G, Np = cx.Npad;
    const Scale* sa = &o.sA[m * (cx.K / G) + g0];
    __m256i gs[kMaxGroups * kH], nzs[kMaxGroups * kH];
    group_sums(m, n0, k, gs, nzs);
    const __m256i ez = _mm256_set1_epi32(p.e_zero), zero = _mm256_setzero_si256();
    __m256i em[kH];
    AccLanes c[kH];
    uint32_t sp = 0;
    for (int h = 0; h < kH; ++h) {
      em[h] = cx.partial ? ez : _mm256_set1_epi32(kNoE);
      for (size_t g = 0; g < gpl; ++g) {  // a group's exponent: e_zero when its sum is zero
        const size_t off = (g0 + g) * Np + n0 + 8 * static_cast<size_t>(h);
        const __m256i sbs = load(&sb.sig[off]);
        const __m256i nz = sa[g].sig ? _mm256_andnot_si256(_mm256_cmpeq_epi32(sbs, zero), nzs[g * kH + h]) : zero;
        const __m256i e = _mm256_add_epi32(_mm256_set1_epi32(sa[g].E), load(&sb.E[off]));
        em[h] = _mm256_max_epi32(em[h], _mm256_blendv_epi8(ez, e, nz));
      }
      c[h] = decode_f32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + 8 * h)));
      sp |= signs8(c[h].special) << (8 * h);
      em[h] = _mm256_max_epi32(em[h], _mm256_blendv_epi8(c[h].E, ez, _mm256_cmpeq_epi32(c[h].sig, zero)));
    }
    const bool e8m13 = p.rounding == OutputRounding::rz_e8m13;
    for (int h = 0; h < kH; ++h) {
      const __m256i q32 = _mm256_sub_epi32(em[h], _mm256_set1_epi32(p.F));
      __m128i out[2];
      for (int b = 0; b < 2; ++b) {
        const __m256i q = wide(q32, b);
        __m256i S = _mm256_setzero_si256();
        for (size_t g = 0; g < gpl; ++g) {  // dp::shift_trunc(|v| * sa.sig * sb.sig, unit + lows - q), signed
          const size_t off = (g0 + g) * Np + n0 + 8 * static_cast<size_t>(h);
          const __m256i sab = _mm256_mullo_epi32(load(&sb.sig[off]), _mm256_set1_epi32(static_cast<int32_t>(sa[g].sig)));
          const __m256i P = _mm256_mul_epi32(wide(gs[g * kH + h], b), wide(sab, b));
          const __m256i pneg = _mm256_cmpgt_epi64(zero, P);
          const __m256i neg = sa[g].neg ? _mm256_xor_si256(pneg, _mm256_set1_epi64x(-1)) : pneg;
          const __m256i low = _mm256_add_epi64(wide(load(&sb.low[off]), b), _mm256_set1_epi64x(o.unit + sa[g].low));
          const __m256i t = align64(signed64(P, pneg), _mm256_sub_epi64(low, q));
          S = _mm256_add_epi64(S, signed64(t, neg));
        }
        out[b] = finish4(S, q, wide_u(c[h].sig, b), wide(c[h].low, b), wide(c[h].neg, b));
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(code + 8 * h), end8(out[0], out[1], e8m13, p.positive_zero));
    }
    return sp;
  }
};

}  // namespace

bool gst_avx2_takes(const Ctx& cx) { return gst_sum_fits(cx) && cx.L / static_cast<size_t>(cx.p.group) <= kMaxGroups; }

TCEMU_AVX2 void run_gst_avx2_vec(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) {
  const RoundTowardZero rz;  // finish4's conversion
  GstStep step{cx, o, o.sbv};
  run_steps(cx, o.spA.data(), o.spB.data(), step, tile, D);
}

}  // namespace tcemu::detail::fast

#else  // no x86-64 build: never chosen (kernel_isa() is baseline)

namespace tcemu::detail::fast {
bool gst_avx2_takes(const Ctx&) { return false; }
void run_gst_avx2_vec(const Ctx&, const GstOps&, const DTile&, CodeSink) {}
}  // namespace tcemu::detail::fast

#endif
