// The AVX-512 T-FDPA / ST-FDPA kernel of the fast whole-matrix path: the plan of
// mma_fast.cpp's opening comment written with intrinsics, so that the whole step runs on
// vectors, the rounding included. Each int32 lane is one D element of a block of kNB columns
// (two zmm registers); the step's end (C term, exact sum, rounding toward zero to f32) runs on
// int64 lanes, eight per register. Every lane computes what dp_primitives.hpp's scalar
// functions compute (the comments name them); a lane whose step holds a NaN or Inf (operand,
// scale or C) is recomputed by the generic step function (Fallback), as in the other builds.
// Taken: C fused, an f32 accumulator rounded toward zero (rz_f32, rz_e8m13), products within
// int32; everything else runs the compiler-vectorised loops of mma_fast_fdpa.cpp.
#include "mma_fast_kernels.hpp"

#ifdef TCEMU_FAST_X86
// GCC 12's AVX-512 headers start some intrinsics from an "undefined" register, which its
// -Wmaybe-uninitialized reports at every use (GCC bug 105593); the warning says nothing about
// this file's code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>

#define TCEMU_V512 TCEMU_AVX512 inline __attribute__((always_inline))

namespace tcemu::detail::fast {

namespace {

constexpr int kH = kNB / 16;  // zmm registers of int32 lanes per column block
static_assert(kNB == 32, "the lane masks below are 32 bits");

// The step's constants as vectors.
struct Consts {
  __m512i e_zero, F, r0;
};

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

// One row's operands of one step and the kNB columns of B they meet.
struct StepOps {
  const int32_t *aE, *as, *bE, *bs;
  size_t L, ldb;
};

// emax over the step's terms, on top of `em` (dp::imax of the exponent sums).
TCEMU_V512 void emax_terms(const StepOps& t, __m512i em[kH]) {
  for (size_t i = 0; i < t.L; ++i) {
    const __m512i ea = _mm512_set1_epi32(t.aE[i]);
    const int32_t* eb = t.bE + i * t.ldb;
    for (int h = 0; h < kH; ++h) em[h] = _mm512_max_epi32(em[h], _mm512_add_epi32(ea, _mm512_loadu_si512(eb + 16 * h)));
  }
}

// The exact sum of the terms aligned to emax: each product's magnitude shifted right by
// (emax + r0) - (ea + eb) (0 when that is 32 or more) and signed; int32 sums over runs of
// `chunk` terms, added in int64 (S: 8 lanes per register, columns in order).
TCEMU_V512 void sum_terms(const StepOps& t, const __m512i emr[kH], size_t chunk, __m512i S[2 * kH]) {
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
// Returns the lanes that need the generic step (a NaN or Inf in the step or in C).
TCEMU_V512 uint32_t step_lanes(const Ctx& cx, const StepOps& t, const Consts& k, int32_t base, uint32_t sp,
                               const uint8_t* zb, size_t chunk, uint32_t* code) {
  __m512i em[kH], emr[kH], S[2 * kH];
  AccLanes c[kH];
  const __m512i vbase = _mm512_set1_epi32(base), vzero_e = _mm512_max_epi32(vbase, k.e_zero);
  for (int h = 0; h < kH; ++h) {
    em[h] = _mm512_mask_mov_epi32(vbase, flags16(zb + 16 * h), vzero_e);
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

}  // namespace

bool fdpa_avx512_takes(const Ctx& cx) {
  return cx.fused && (cx.p.rounding == OutputRounding::rz_f32 || cx.p.rounding == OutputRounding::rz_e8m13);
}

TCEMU_AVX512 void run_fdpa_avx512(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, std::vector<uint64_t>& D) {
  const size_t K = cx.K, L = cx.L, Np = cx.Npad, S = cx.nsteps;
  const Consts k{_mm512_set1_epi32(cx.p.e_zero), _mm512_set1_epi32(cx.p.F), _mm512_set1_epi32(o.r0)};
  Fallback fb(cx);
  alignas(64) uint32_t code[kNB], old[kNB];
  uint64_t accum[kNB];
  for (size_t n0 = 0; n0 < cx.N; n0 += kNB) {
    const size_t nv = std::min<size_t>(kNB, cx.N - n0);
    const uint32_t valid = nv == 32 ? ~0u : (1u << nv) - 1;
    for (size_t m = 0; m < cx.M; ++m) {
      for (size_t j = 0; j < kNB; ++j) {
        const uint64_t c = j < nv ? start_c(cx, m, n0 + j) : 0;
        accum[j] = c;
        code[j] = static_cast<uint32_t>(cx.promote ? 0 : c);
      }
      for (size_t s = 0; s < S; ++s) {
        const size_t kk = s * L;
        const StepOps t{&o.aE[m * K + kk], &o.as[m * K + kk], &o.bE[kk * Np + n0], &o.bs[kk * Np + n0], L, Np};
        const int32_t base = (cx.partial || o.zA[m * S + s]) ? cx.p.e_zero : kNoE;
        uint32_t sp = o.spA[m * S + s] ? ~0u : 0u;
        const uint8_t* spb = &o.spB[s * Np + n0];
        sp |= static_cast<uint32_t>(flags16(spb)) | static_cast<uint32_t>(flags16(spb + 16)) << 16;
        std::copy(code, code + kNB, old);
        sp = step_lanes(cx, t, k, base, sp, &o.zB[s * Np + n0], chunk, code) & valid;
        for (; sp; sp &= sp - 1) {
          const int j = __builtin_ctz(sp);
          code[j] = static_cast<uint32_t>(fb.step(m, n0 + static_cast<size_t>(j), s, old[j]));
        }
        if (cx.promote && (kk + L) % cx.promote == 0)  // FP32 promotion (finish_step)
          for (size_t j = 0; j < nv; ++j) {
            accum[j] = dp::add_rne_f32(static_cast<uint32_t>(accum[j]), code[j]);
            code[j] = 0;
          }
      }
      for (size_t j = 0; j < nv; ++j) {  // final_d
        uint64_t d = code[j];
        if (cx.promote) d = cx.K % cx.promote ? dp::add_rne_f32(static_cast<uint32_t>(accum[j]), code[j]) : accum[j];
        D[m * cx.N + n0 + j] = d;
      }
    }
  }
}

}  // namespace tcemu::detail::fast

#else  // no AVX-512 build: never chosen (kernel_isa() is baseline)

namespace tcemu::detail::fast {
bool fdpa_avx512_takes(const Ctx&) { return false; }
void run_fdpa_avx512(const Ctx&, const FdpaOps<int32_t>&, size_t, std::vector<uint64_t>&) {}
}  // namespace tcemu::detail::fast

#endif
