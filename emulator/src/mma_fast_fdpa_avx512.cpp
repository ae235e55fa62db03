// The AVX-512 T-FDPA / ST-FDPA kernel of the fast whole-matrix path: the plan of
// mma_fast.cpp's opening comment written with intrinsics, so that the whole step runs on
// vectors, the rounding included. Each int32 lane is one D element of a block of kNB columns
// (two zmm registers); the step's end (C term, exact sum, rounding toward zero to f32) runs on
// int64 lanes, eight per register (mma_fast_avx512.hpp). A lane whose step holds a NaN or Inf
// (operand, scale or C) is recomputed by the generic step function, as in the other builds.
// Taken: C fused, an f32 accumulator rounded toward zero (rz_f32, rz_e8m13), products within
// int32; everything else runs the compiler-vectorised loops of mma_fast_fdpa.cpp.
#include "mma_fast_kernels.hpp"

#ifdef TCEMU_FAST_X86
#include "mma_fast_avx512.hpp"

namespace tcemu::detail::fast {

namespace {

using namespace avx512;

// The step's constants as vectors.
struct Consts {
  __m512i e_zero, F, r0;
};

// emax over the step's terms, on top of `em` (dp::imax of the exponent sums).
TCEMU_V512 void emax_terms(const FdpaStepOps& t, __m512i em[kH]) {
  for (size_t i = 0; i < t.L; ++i) {
    const __m512i ea = _mm512_set1_epi32(t.aE[i]);
    const int32_t* eb = t.bE + i * t.ldb;
    for (int h = 0; h < kH; ++h) em[h] = _mm512_max_epi32(em[h], _mm512_add_epi32(ea, _mm512_loadu_si512(eb + 16 * h)));
  }
}

// The exact sum of the terms aligned to emax: each product's magnitude shifted right by
// (emax + r0) - (ea + eb) (0 when that is 32 or more) and signed; int32 sums over runs of
// `chunk` terms, added in int64 (S: 8 lanes per register, columns in order).
TCEMU_V512 void sum_terms(const FdpaStepOps& t, const __m512i emr[kH], size_t chunk, __m512i S[2 * kH]) {
  for (int i = 0; i < 2 * kH; ++i) S[i] = _mm512_setzero_si512();
  for (size_t i0 = 0; i0 < t.L; i0 += chunk) {
    __m512i acc[kH];
    for (int h = 0; h < kH; ++h) acc[h] = _mm512_setzero_si512();
    const size_t end = std::min(t.L, i0 + chunk);
    for (size_t i = i0; i < end; ++i) {
      const __m512i ea = _mm512_set1_epi32(t.aE[i]), sa = _mm512_set1_epi32(t.as[i]);
      const int32_t* eb = t.bE + i * t.ldb;
      const int32_t* sb = t.bs + i * t.ldb;
      for (int h = 0; h < kH; ++h) {
        const __m512i prod = _mm512_mullo_epi32(sa, _mm512_loadu_si512(sb + 16 * h));
        const __m512i sh = _mm512_sub_epi32(emr[h], _mm512_add_epi32(ea, _mm512_loadu_si512(eb + 16 * h)));
        const __m512i mag = _mm512_srlv_epi32(_mm512_abs_epi32(prod), sh);
        acc[h] = _mm512_mask_sub_epi32(_mm512_add_epi32(acc[h], mag), _mm512_movepi32_mask(prod), acc[h], mag);
      }
    }
    for (int h = 0; h < kH; ++h) {
      S[2 * h] = _mm512_add_epi64(S[2 * h], wide(acc[h], 0));
      S[2 * h + 1] = _mm512_add_epi64(S[2 * h + 1], wide(acc[h], 1));
    }
  }
}

// One step of one row over kNB columns: code (the running f32 codes) in, the new codes out.
// Returns the lanes whose C is a NaN or Inf.
TCEMU_V512 uint32_t step_lanes(const Ctx& cx, const FdpaStepOps& t, const Consts& k, size_t chunk,
                               uint32_t* code) {
  uint32_t sp = 0;
  __m512i em[kH], emr[kH], S[2 * kH];
  AccLanes c[kH];
  const __m512i vbase = _mm512_set1_epi32(t.base), vzero_e = _mm512_max_epi32(vbase, k.e_zero);
  for (int h = 0; h < kH; ++h) {
    em[h] = _mm512_mask_mov_epi32(vbase, flags16(t.zb + 16 * h), vzero_e);
    c[h] = decode_f32(_mm512_loadu_si512(code + 16 * h));
    sp |= static_cast<uint32_t>(c[h].special) << (16 * h);
  }
  emax_terms(t, em);
  for (int h = 0; h < kH; ++h) {  // C fused: its exponent joins emax (e_zero for a zero C)
    em[h] = _mm512_max_epi32(em[h], _mm512_mask_mov_epi32(k.e_zero, _mm512_test_epi32_mask(c[h].sig, c[h].sig), c[h].E));
    emr[h] = _mm512_add_epi32(em[h], k.r0);
  }
  sum_terms(t, emr, chunk, S);
  const bool e8m13 = cx.p.rounding == OutputRounding::rz_e8m13, pz = cx.p.positive_zero;
  for (int h = 0; h < kH; ++h) {
    const __m512i q = _mm512_sub_epi32(em[h], k.F);
    __m256i out[2];
    for (int g = 0; g < 2; ++g) {
      const __m512i csig = _mm512_cvtepu32_epi64(g ? _mm512_extracti64x4_epi64(c[h].sig, 1) : _mm512_castsi512_si256(c[h].sig));
      out[g] = finish8(S[2 * h + g], wide(q, g), csig, wide(c[h].low, g), static_cast<__mmask8>(c[h].neg >> (8 * g)), e8m13, pz);
    }
    _mm512_storeu_si512(code + 16 * h, _mm512_inserti64x4(_mm512_castsi256_si512(out[0]), out[1], 1));
  }
  return sp;
}

// One step of one row (run_steps' Step).
struct FdpaStep {
  const Ctx& cx;
  const FdpaOps<int32_t>& o;
  size_t chunk;
  Consts k;
  TCEMU_V512 uint32_t operator()(size_t m, size_t n0, size_t s, uint32_t* code) const {
    return step_lanes(cx, fdpa_step_ops(cx, o, m, n0, s), k, chunk, code);
  }
};

}  // namespace

bool fdpa_avx512_takes(const Ctx& cx) { return takes_rounding(cx); }

TCEMU_AVX512 void run_fdpa_avx512(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, const DTile& tile,
                                  CodeSink D) {
  FdpaStep step{cx, o, chunk, {_mm512_set1_epi32(cx.p.e_zero), _mm512_set1_epi32(cx.p.F), _mm512_set1_epi32(o.r0)}};
  run_steps(cx, o.spA.data(), o.spB.data(), step, tile, D);
}

}  // namespace tcemu::detail::fast

#else  // no AVX-512 build: never chosen (kernel_isa() is baseline)

namespace tcemu::detail::fast {
bool fdpa_avx512_takes(const Ctx&) { return false; }
void run_fdpa_avx512(const Ctx&, const FdpaOps<int32_t>&, size_t, const DTile&, CodeSink) {}
}  // namespace tcemu::detail::fast

#endif
