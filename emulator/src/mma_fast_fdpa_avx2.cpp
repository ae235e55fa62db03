// The AVX2 T-FDPA / ST-FDPA kernel of the fast whole-matrix path: mma_fast_fdpa_avx512.cpp's
// kernel on 256-bit registers, so that a CPU without AVX-512 runs the whole step on vectors,
// the rounding included. Each int32 lane is one D element of a block of kNB columns (four ymm
// registers); the step's end (C term, exact sum, rounding toward zero to f32) runs on int64
// lanes, four per register (mma_fast_avx2.hpp). A lane whose step holds a NaN or Inf (operand,
// scale or C) is recomputed by the generic step function, as in the other builds. Taken: C
// fused, an f32 accumulator rounded toward zero (rz_f32, rz_e8m13), products within int32 and
// sums below 2^51 (fdpa_sum_fits); everything else runs the compiler-vectorised loops of
// mma_fast_fdpa.cpp.
#include "mma_fast_kernels.hpp"

#ifdef TCEMU_FAST_X86
#include "mma_fast_avx2.hpp"

namespace tcemu::detail::fast {

namespace {

using namespace avx2;

struct Consts {
  __m256i e_zero, F, r0;
};

// emax over the step's terms, on top of `em` (dp::imax of the exponent sums).
TCEMU_V256 void emax_terms(const FdpaStepOps& t, __m256i em[kH]) {
  for (size_t i = 0; i < t.L; ++i) {
    const __m256i ea = _mm256_set1_epi32(t.aE[i]);
    const int32_t* eb = t.bE + i * t.ldb;
    for (int h = 0; h < kH; ++h)
      em[h] = _mm256_max_epi32(em[h], _mm256_add_epi32(ea, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + 8 * h))));
  }
}

// The exact sum of the terms aligned to emax, as the AVX-512 kernel forms it: each product's
// magnitude shifted right by (emax + r0) - (ea + eb) (0 when that is 32 or more) and signed;
// int32 sums over runs of `chunk` terms, added in int64 (S: 4 lanes per register, columns in
// order).
TCEMU_V256 void sum_terms(const FdpaStepOps& t, const __m256i emr[kH], size_t chunk, __m256i S[2 * kH]) {
  for (int i = 0; i < 2 * kH; ++i) S[i] = _mm256_setzero_si256();
  for (size_t i0 = 0; i0 < t.L; i0 += chunk) {
    __m256i acc[kH];
    for (int h = 0; h < kH; ++h) acc[h] = _mm256_setzero_si256();
    const size_t end = std::min(t.L, i0 + chunk);
    for (size_t i = i0; i < end; ++i) {
      const __m256i ea = _mm256_set1_epi32(t.aE[i]), sa = _mm256_set1_epi32(t.as[i]);
      const int32_t* eb = t.bE + i * t.ldb;
      const int32_t* sb = t.bs + i * t.ldb;
      for (int h = 0; h < kH; ++h) {
        const __m256i prod = _mm256_mullo_epi32(sa, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 8 * h)));
        const __m256i e = _mm256_add_epi32(ea, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eb + 8 * h)));
        const __m256i mag = _mm256_srlv_epi32(_mm256_abs_epi32(prod), _mm256_sub_epi32(emr[h], e));
        const __m256i neg = _mm256_srai_epi32(prod, 31);
        acc[h] = _mm256_add_epi32(acc[h], _mm256_sub_epi32(_mm256_xor_si256(mag, neg), neg));
      }
    }
    for (int h = 0; h < kH; ++h) {
      S[2 * h] = _mm256_add_epi64(S[2 * h], wide(acc[h], 0));
      S[2 * h + 1] = _mm256_add_epi64(S[2 * h + 1], wide(acc[h], 1));
    }
  }
}

// One step of one row over kNB columns: code (the running f32 codes) in, the new codes out.
// Returns the lanes whose C is a NaN or Inf.
TCEMU_V256 uint32_t step_lanes(const Ctx& cx, const FdpaStepOps& t, const Consts& k, size_t chunk,
                               uint32_t* code) {
  uint32_t sp = 0;
  __m256i em[kH], emr[kH], S[2 * kH];
  AccLanes c[kH];
  const __m256i vbase = _mm256_set1_epi32(t.base), vzero_e = _mm256_max_epi32(vbase, k.e_zero);
  for (int h = 0; h < kH; ++h) {
    // A zero product in the column's operands: e_zero joins emax (dp::fdpa_step's step 1).
    const __m256i zcol = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(t.zb + 8 * h)));
    em[h] = _mm256_blendv_epi8(vzero_e, vbase, _mm256_cmpeq_epi32(zcol, _mm256_setzero_si256()));
    c[h] = decode_f32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code + 8 * h)));
    sp |= signs8(c[h].special) << (8 * h);
  }
  emax_terms(t, em);
  for (int h = 0; h < kH; ++h) {  // C fused: its exponent joins emax (e_zero for a zero C)
    const __m256i czero = _mm256_cmpeq_epi32(c[h].sig, _mm256_setzero_si256());
    em[h] = _mm256_max_epi32(em[h], _mm256_blendv_epi8(c[h].E, k.e_zero, czero));
    emr[h] = _mm256_add_epi32(em[h], k.r0);
  }
  sum_terms(t, emr, chunk, S);
  const bool e8m13 = cx.p.rounding == OutputRounding::rz_e8m13, pz = cx.p.positive_zero;
  for (int h = 0; h < kH; ++h) {
    const __m256i q = _mm256_sub_epi32(em[h], k.F);
    __m128i out[2];
    for (int g = 0; g < 2; ++g) out[g] = finish4(S[2 * h + g], wide(q, g), wide_u(c[h].sig, g), wide(c[h].low, g), wide(c[h].neg, g));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(code + 8 * h), end8(out[0], out[1], e8m13, pz));
  }
  return sp;
}

// One step of one row (run_steps' Step).
struct FdpaStep {
  const Ctx& cx;
  const FdpaOps<int32_t>& o;
  size_t chunk;
  Consts k;
  TCEMU_V256 uint32_t operator()(size_t m, size_t n0, size_t s, uint32_t* code) const {
    return step_lanes(cx, fdpa_step_ops(cx, o, m, n0, s), k, chunk, code);
  }
};

}  // namespace

bool fdpa_avx2_takes(const Ctx& cx) { return fdpa_sum_fits(cx); }

TCEMU_AVX2 void run_fdpa_avx2_vec(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, const DTile& tile,
                                  CodeSink D) {
  const RoundTowardZero rz;  // finish4's conversion
  FdpaStep step{cx, o, chunk, {_mm256_set1_epi32(cx.p.e_zero), _mm256_set1_epi32(cx.p.F), _mm256_set1_epi32(o.r0)}};
  run_steps(cx, o.spA.data(), o.spB.data(), step, tile, D);
}

}  // namespace tcemu::detail::fast

#else  // no x86-64 build: never chosen (kernel_isa() is baseline)

namespace tcemu::detail::fast {
bool fdpa_avx2_takes(const Ctx&) { return false; }
void run_fdpa_avx2_vec(const Ctx&, const FdpaOps<int32_t>&, size_t, const DTile&, CodeSink) {}
}  // namespace tcemu::detail::fast

#endif
