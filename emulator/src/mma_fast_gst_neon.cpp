// The NEON GST-FDPA kernel of the fast whole-matrix path on aarch64: the AVX2 kernel of
// mma_fast_gst_avx2.cpp on 128-bit registers. Per step and kNB columns: the groups' exact
// integer sums (int32 lanes, eight registers), the step's largest exponent over the groups'
// scale exponents and C (a vector max), then on int64 lanes, two per register, each group's
// term (sum times the two scale significands, aligned to 2^q with truncation, signed) and
// mma_fast_neon.hpp's end of step. A lane whose step holds a NaN or Inf (operand, scale or C)
// is recomputed by the generic step function, as in the other builds. Taken: what the AVX2
// kernel takes (gst_sum_fits); everything else runs the compiler-vectorised loops of
// mma_fast_gst.cpp.
#include "mma_fast_kernels.hpp"

#ifdef TCEMU_FAST_NEON
#include "mma_fast_neon.hpp"

namespace tcemu::detail::fast {

namespace {

using namespace neon;

constexpr size_t kMaxGroups = 64;  // groups per step (mma_fast.cpp declines more)

// One step of one row (run_steps' Step).
struct GstStep {
  const Ctx& cx;
  const GstOps& o;
  const ScalesB& sb;

  // The groups' exact sums (gs) and whether any product of a group is nonzero (nz: all-ones
  // lanes).
  TCEMU_VN void group_sums(size_t m, size_t n0, size_t k, int32x4_t* gs, uint32x4_t* nz) const {
    const size_t G = static_cast<size_t>(cx.p.group);
    for (size_t g = 0; g < cx.L / G; ++g) {
      int32x4_t s[kH], any[kH];
      for (int h = 0; h < kH; ++h) s[h] = any[h] = vdupq_n_s32(0);
      const int32_t* av = &o.av[m * cx.K + k + g * G];
      for (size_t i = 0; i < G; ++i) {
        const int32x4_t a = vdupq_n_s32(av[i]);
        const int32_t* bv = &o.bv[n0 * cx.K + (k + g * G + i) * kNB];
        for (int h = 0; h < kH; ++h) {
          const int32x4_t prod = vmulq_s32(a, vld1q_s32(bv + 4 * h));
          s[h] = vaddq_s32(s[h], prod);
          any[h] = vorrq_s32(any[h], prod);
        }
      }
      for (int h = 0; h < kH; ++h) {
        gs[g * kH + h] = s[h];
        nz[g * kH + h] = vtstq_s32(any[h], any[h]);
      }
    }
  }

  TCEMU_VN uint32_t operator()(size_t m, size_t n0, size_t s, uint32_t* code) const {
    const DatapathParams& p = cx.p;
    const size_t G = static_cast<size_t>(p.group), gpl = cx.L / G, k = s * cx.L, g0 = k / G, Np = cx.Npad;
    const Scale* sa = &o.sA[m * (cx.K / G) + g0];
    int32x4_t gs[kMaxGroups * kH];
    uint32x4_t nzs[kMaxGroups * kH];
    group_sums(m, n0, k, gs, nzs);
    const int32x4_t ez = vdupq_n_s32(p.e_zero);
    int32x4_t em[kH];
    AccLanes c[kH];
    uint32_t sp = 0;
    for (int h = 0; h < kH; ++h) {
      em[h] = cx.partial ? ez : vdupq_n_s32(kNoE);
      for (size_t g = 0; g < gpl; ++g) {  // a group's exponent: e_zero when its sum is zero
        const size_t off = (g0 + g) * Np + n0 + 4 * static_cast<size_t>(h);
        const int32x4_t sbs = vld1q_s32(&sb.sig[off]);
        const uint32x4_t nz = sa[g].sig ? vandq_u32(vtstq_s32(sbs, sbs), nzs[g * kH + h]) : vdupq_n_u32(0);
        const int32x4_t e = vaddq_s32(vdupq_n_s32(sa[g].E), vld1q_s32(&sb.E[off]));
        em[h] = vmaxq_s32(em[h], vbslq_s32(nz, e, ez));
      }
      c[h] = decode_f32(vld1q_u32(code + 4 * h));
      sp |= bits4(c[h].special) << (4 * h);
      em[h] = vmaxq_s32(em[h], vbslq_s32(vceqzq_s32(c[h].sig), ez, c[h].E));
    }
    const bool e8m13 = p.rounding == OutputRounding::rz_e8m13;
    for (int h = 0; h < kH; ++h) {
      const int32x4_t q32 = vsubq_s32(em[h], vdupq_n_s32(p.F));
      uint64x2_t out[2];
      for (int b = 0; b < 2; ++b) {
        const int64x2_t q = wide(q32, b);
        int64x2_t S = vdupq_n_s64(0);
        for (size_t g = 0; g < gpl; ++g) {  // dp::shift_trunc(|v| * sa.sig * sb.sig, unit + lows - q), signed
          const size_t off = (g0 + g) * Np + n0 + 4 * static_cast<size_t>(h);
          const int32x4_t sab = vmulq_s32(vld1q_s32(&sb.sig[off]), vdupq_n_s32(static_cast<int32_t>(sa[g].sig)));
          const int64x2_t P = b ? vmull_high_s32(gs[g * kH + h], sab) : vmull_s32(vget_low_s32(gs[g * kH + h]), vget_low_s32(sab));
          const uint64x2_t pneg = vcltzq_s64(P);
          const uint64x2_t neg = sa[g].neg ? veorq_u64(pneg, vdupq_n_u64(~uint64_t{0})) : pneg;
          const int64x2_t low = vaddq_s64(wide(vld1q_s32(&sb.low[off]), b), vdupq_n_s64(o.unit + sa[g].low));
          const uint64x2_t t = align64(vreinterpretq_u64_s64(signed64(P, pneg)), vsubq_s64(low, q));
          S = vaddq_s64(S, signed64(vreinterpretq_s64_u64(t), neg));
        }
        out[b] = finish2(S, q, wide_u(vreinterpretq_u32_s32(c[h].sig), b), wide(c[h].low, b), wide_mask(c[h].neg, b),
                         e8m13, p.positive_zero);
      }
      vst1q_u32(code + 4 * h, pack4(out[0], out[1]));
    }
    return sp;
  }
};

}  // namespace

bool gst_neon_takes(const Ctx& cx) { return gst_sum_fits(cx) && cx.L / static_cast<size_t>(cx.p.group) <= kMaxGroups; }

void run_gst_neon(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) {
  GstStep step{cx, o, o.sbv};
  run_steps(cx, o.spA.data(), o.spB.data(), step, tile, D);
}

}  // namespace tcemu::detail::fast

#else  // not aarch64: never chosen

namespace tcemu::detail::fast {
bool gst_neon_takes(const Ctx&) { return false; }
void run_gst_neon(const Ctx&, const GstOps&, const DTile&, CodeSink) {}
}  // namespace tcemu::detail::fast

#endif
