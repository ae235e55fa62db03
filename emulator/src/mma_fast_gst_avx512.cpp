// The AVX-512 GST-FDPA kernel of the fast whole-matrix path: run_gst_body of
// mma_fast_gst.cpp written with intrinsics, so that the step's end runs on vectors too. Per
// step and kNB columns: the groups' exact integer sums (int32 lanes, two zmm registers), the
// step's largest exponent over the groups' scale exponents and C (a vector max), then on int64
// lanes, eight per register, each group's term (sum times the two scale significands, aligned
// to 2^q with truncation, signed) and the end of mma_fast_avx512.hpp (C's term, rounding
// toward zero to f32). A lane whose step holds a NaN or Inf (operand, scale or C) is
// recomputed by the generic step function, as in the other builds. Taken: C fused into an f32
// accumulator rounded toward zero; everything else runs the compiler-vectorised loops.
#include "mma_fast_kernels.hpp"

#ifdef TCEMU_FAST_X86
#include "mma_fast_avx512.hpp"

namespace tcemu::detail::fast {

namespace {

using namespace avx512;

constexpr size_t kMaxGroups = 64;  // groups per step (mma_fast.cpp declines more)

// One step of one row (run_steps' Step).
struct GstStep {
  const Ctx& cx;
  const GstOps& o;
  const ScalesB& sb;

  // The groups' exact sums (gs) and whether any product of a group is nonzero (any).
  TCEMU_V512 void group_sums(size_t m, size_t n0, size_t k, __m512i* gs, __mmask16* any) const {
    const size_t G = static_cast<size_t>(cx.p.group);
    for (size_t g = 0; g < cx.L / G; ++g) {
      __m512i s[kH], nz[kH];
      for (int h = 0; h < kH; ++h) s[h] = nz[h] = _mm512_setzero_si512();
      const int32_t* av = &o.av[m * cx.K + k + g * G];
      for (size_t i = 0; i < G; ++i) {
        const __m512i a = _mm512_set1_epi32(av[i]);
        const int32_t* bv = &o.bv[n0 * cx.K + (k + g * G + i) * kNB];
        for (int h = 0; h < kH; ++h) {
          const __m512i prod = _mm512_mullo_epi32(a, _mm512_loadu_si512(bv + 16 * h));
          s[h] = _mm512_add_epi32(s[h], prod);
          nz[h] = _mm512_or_si512(nz[h], prod);
        }
      }
      for (int h = 0; h < kH; ++h) {
        gs[g * kH + h] = s[h];
        any[g * kH + h] = _mm512_test_epi32_mask(nz[h], nz[h]);
      }
    }
  }

  TCEMU_V512 uint32_t operator()(size_t m, size_t n0, size_t s, uint32_t* code) const {
    const DatapathParams& p = cx.p;
    const size_t G = static_cast<size_t>(p.group), gpl = cx.L / G, k = s * cx.L, g0 = k / G, Np = cx.Npad;
    const Scale* sa = &o.sA[m * (cx.K / G) + g0];
    __m512i gs[kMaxGroups * kH];
    __mmask16 any[kMaxGroups * kH];
    group_sums(m, n0, k, gs, any);
    const __m512i ez = _mm512_set1_epi32(p.e_zero);
    __m512i em[kH];
    AccLanes c[kH];
    uint32_t sp = 0;
    for (int h = 0; h < kH; ++h) {
      em[h] = cx.partial ? ez : _mm512_set1_epi32(kNoE);
      for (size_t g = 0; g < gpl; ++g) {  // a group's exponent: e_zero when its sum is zero
        const size_t off = (g0 + g) * Np + n0 + 16 * static_cast<size_t>(h);
        const __m512i sbs = _mm512_loadu_si512(&sb.sig[off]);
        const __mmask16 nz = sa[g].sig ? any[g * kH + h] & _mm512_test_epi32_mask(sbs, sbs) : 0;
        const __m512i e = _mm512_add_epi32(_mm512_set1_epi32(sa[g].E), _mm512_loadu_si512(&sb.E[off]));
        em[h] = _mm512_max_epi32(em[h], _mm512_mask_mov_epi32(ez, nz, e));
      }
      c[h] = decode_f32(_mm512_loadu_si512(code + 16 * h));
      sp |= static_cast<uint32_t>(c[h].special) << (16 * h);
      em[h] = _mm512_max_epi32(em[h], _mm512_mask_mov_epi32(ez, _mm512_test_epi32_mask(c[h].sig, c[h].sig), c[h].E));
    }
    const bool e8m13 = p.rounding == OutputRounding::rz_e8m13;
    for (int h = 0; h < kH; ++h) {
      const __m512i q32 = _mm512_sub_epi32(em[h], _mm512_set1_epi32(p.F));
      __m256i out[2];
      for (int b = 0; b < 2; ++b) {
        const __m512i q = wide(q32, b);
        __m512i S = _mm512_setzero_si512();
        for (size_t g = 0; g < gpl; ++g) {  // dp::shift_trunc(|v| * sa.sig * sb.sig, unit + lows - q), signed
          const size_t off = (g0 + g) * Np + n0 + 16 * static_cast<size_t>(h);
          const __m512i sab = _mm512_mullo_epi32(_mm512_loadu_si512(&sb.sig[off]), _mm512_set1_epi32(static_cast<int32_t>(sa[g].sig)));
          const __m512i P = _mm512_mul_epi32(wide(gs[g * kH + h], b), wide(sab, b));
          const __mmask8 neg = static_cast<__mmask8>(_mm512_movepi64_mask(P) ^ (sa[g].neg ? 0xFF : 0));
          const __m512i low = _mm512_add_epi64(wide(_mm512_loadu_si512(&sb.low[off]), b), _mm512_set1_epi64(o.unit + sa[g].low));
          const __m512i t = align64(_mm512_abs_epi64(P), _mm512_sub_epi64(low, q));
          S = _mm512_mask_sub_epi64(_mm512_add_epi64(S, t), neg, S, t);
        }
        const __m512i csig = _mm512_cvtepu32_epi64(b ? _mm512_extracti64x4_epi64(c[h].sig, 1) : _mm512_castsi512_si256(c[h].sig));
        out[b] = finish8(S, q, csig, wide(c[h].low, b), static_cast<__mmask8>(c[h].neg >> (8 * b)), e8m13, p.positive_zero);
      }
      _mm512_storeu_si512(code + 16 * h, _mm512_inserti64x4(_mm512_castsi256_si512(out[0]), out[1], 1));
    }
    return sp;
  }
};

}  // namespace

bool gst_avx512_takes(const Ctx& cx) { return takes_rounding(cx) && cx.L / static_cast<size_t>(cx.p.group) <= kMaxGroups; }

TCEMU_AVX512 void run_gst_avx512_vec(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) {
  GstStep step{cx, o, o.sbv};
  run_steps(cx, o.spA.data(), o.spB.data(), step, tile, D);
}

}  // namespace tcemu::detail::fast

#else  // no AVX-512 build: never chosen (kernel_isa() is baseline)

namespace tcemu::detail::fast {
bool gst_avx512_takes(const Ctx&) { return false; }
void run_gst_avx512_vec(const Ctx&, const GstOps&, const DTile&, CodeSink) {}
}  // namespace tcemu::detail::fast

#endif
