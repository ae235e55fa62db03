// The GST-FDPA kernel of the fast whole-matrix path (the plan is in mma_fast.cpp's opening
// comment): operands as integers in units of their format's smallest lowest-bit weight, exact
// group sums as integer dot products over kNB columns, then per D element the scaled group
// terms, C and the rounding (dp::round_sum), as dp::gst_step does.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <vector>

#include "mma_fast_kernels.hpp"

namespace tcemu::detail::fast {

namespace {

// One GST group: exact integer sums of the products and whether any product is nonzero.
TCEMU_HOT void group_pass(const int32_t* __restrict av, const int32_t* __restrict bv, size_t ldb, size_t len, int32_t* __restrict gs,
                int32_t* __restrict any) {
  int32_t s[kNB] = {}, o[kNB] = {};
  for (size_t i = 0; i < len; ++i) {
    const int32_t a = av[i];
    const int32_t* __restrict b = bv + i * ldb;
    for (int j = 0; j < kNB; ++j) {
      const int32_t prod = a * b[j];
      s[j] += prod;
      o[j] |= prod;
    }
  }
  for (int j = 0; j < kNB; ++j) {
    gs[j] = s[j];
    any[j] = o[j];
  }
}

// ---- GST-FDPA ----------------------------------------------------------------------------

Scale to_scale(const Operand& o) {
  Scale s;
  s.E = o.E;
  s.low = o.low;
  s.sig = o.sig;
  s.neg = o.neg != 0;
  s.special = o.special != 0;
  return s;
}

TCEMU_HOT void run_gst_body(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) {
  const DatapathParams& p = cx.p;
  const size_t N = cx.N, K = cx.K, L = cx.L, S = cx.nsteps, Np = cx.Npad;
  const size_t G = static_cast<size_t>(p.group), gpl = L / G, ng = K / G;
  const auto &av = o.av, &bv = o.bv;
  const auto &spA = o.spA, &spB = o.spB;
  const std::vector<Scale>&sA = o.sA, &sB = o.sB;
  const int unit = o.unit;
  Fallback fb(cx);
  int32_t gs[64 * kNB], any[64 * kNB];
  Acc cur[kNB];
  for (size_t n0 = tile.n0; n0 < tile.n1; n0 += kNB) {
    const size_t nv = std::min<size_t>(kNB, tile.n1 - n0);
    for (size_t m = tile.m0; m < tile.m1; ++m) {
      for (size_t j = 0; j < nv; ++j) begin_chain(cx, cur[j], m, n0 + j);
      for (size_t s = 0; s < S; ++s) {
        const size_t k = s * L;
        for (size_t g = 0; g < gpl; ++g)
          group_pass(&av[m * K + k + g * G], &bv[n0 * K + (k + g * G) * kNB], kNB, G, &gs[g * kNB], &any[g * kNB]);
        const bool rowsp = spA[m * S + s] != 0;
        const Scale* sa = &sA[m * ng + k / G];
        for (size_t j = 0; j < nv; ++j) {
          Acc& c = cur[j];
          const size_t n = n0 + j;
          uint64_t d;
          if (rowsp || spB[s * Np + n] || c.special) {
            d = fb.step(m, n, s, c.chain.d);
          } else {
            const Scale* sb = &sB[n * ng + k / G];
            int emax = cx.partial ? p.e_zero : INT_MIN;
            for (size_t g = 0; g < gpl; ++g) {
              const bool zero = any[g * kNB + j] == 0 || sa[g].sig == 0 || sb[g].sig == 0;
              emax = std::max(emax, zero ? p.e_zero : sa[g].E + sb[g].E);
            }
            emax = std::max(emax, c.sig ? c.E : p.e_zero);
            const int q = emax - p.F;
            int64_t sum = 0;
            for (size_t g = 0; g < gpl; ++g) {
              const int64_t v = gs[g * kNB + j];
              if (v == 0) continue;
              const bool neg = (v < 0) ^ (sa[g].neg != sb[g].neg);
              const uint64_t mag = dp::magnitude(v) *
                                   (uint64_t{sa[g].sig} * sb[g].sig);
              sum += dp::apply_sign(dp::shift_trunc(mag, unit + sa[g].low + sb[g].low - q), neg);
            }
            sum += dp::apply_sign(dp::shift_trunc(c.sig, c.low - q), c.neg);
            d = dp::round_sum(p.rounding, p.positive_zero, sum, q);
          }
          finish_step(cx, k + L, d, c);
        }
      }
      for (size_t j = 0; j < nv; ++j) D.put(m * N + n0 + j, final_d(cx, cur[j]));
    }
  }
}

void run_gst_base(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) { run_gst_body(cx, o, tile, D); }
#ifdef TCEMU_FAST_X86
TCEMU_AVX2 void run_gst_avx2(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) {
  run_gst_body(cx, o, tile, D);
}
TCEMU_AVX512 void run_gst_avx512(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D) {
  run_gst_body(cx, o, tile, D);
}
#endif

// B's scales as ScalesB (o.sbv) for the intrinsics kernels.
ScalesB gst_vector_scales(const Ctx& cx, const GstOps& o, const Exec& exec) {
  const size_t ng = cx.K / static_cast<size_t>(cx.p.group), Np = cx.Npad;
  ScalesB b;
  b.E.resize(ng * Np);
  b.low.resize(ng * Np);
  b.sig.resize(ng * Np);
  for_row_blocks(Np, exec, [&](size_t n) {  // every element written, the padding columns too
    for (size_t g = 0; g < ng; ++g) {
      const Scale& s = o.sB[n * ng + g];
      b.E[g * Np + n] = s.E;
      b.low[g * Np + n] = s.low;
      b.sig[g * Np + n] = s.neg ? -static_cast<int32_t>(s.sig) : static_cast<int32_t>(s.sig);
    }
  });
  return b;
}

// The decoded problem and the kernel for the CPU's instruction set.
class PreparedGst final : public PreparedMma {
 public:
  PreparedGst(const Ctx& cx, GstOps o, const Exec& exec) : cx_(cx), o_(std::move(o)) {
    const ConvertIsa isa = kernel_isa();
    vec_ = (isa == ConvertIsa::avx512 && gst_avx512_takes(cx_)) || (isa == ConvertIsa::avx2 && gst_avx2_takes(cx_)) ||
           (isa == ConvertIsa::baseline && gst_neon_takes(cx_));  // NEON: aarch64's one build
    if (vec_) o_.sbv = gst_vector_scales(cx_, o_, exec);
  }
  void run(const DTile& tile, CodeSink D) const override {
    switch (kernel_isa()) {
#ifdef TCEMU_FAST_X86
      case ConvertIsa::avx512: return vec_ ? run_gst_avx512_vec(cx_, o_, tile, D) : run_gst_avx512(cx_, o_, tile, D);
      case ConvertIsa::avx2: return vec_ ? run_gst_avx2_vec(cx_, o_, tile, D) : run_gst_avx2(cx_, o_, tile, D);
#endif
      default: return vec_ ? run_gst_neon(cx_, o_, tile, D) : run_gst_base(cx_, o_, tile, D);
    }
  }

 private:
  Ctx cx_;
  GstOps o_;
  bool vec_ = false;
};

// An operand's integer value in units of 2^low0 (0 for a zero or special operand); false when
// it lies below that unit.
bool unit_value(const Operand& x, int low0, int32_t& v) {
  v = 0;
  if (x.special || x.sig == 0) return true;
  if (x.low < low0) return false;
  const int64_t w = static_cast<int64_t>(x.sig) << (x.low - low0);
  v = static_cast<int32_t>(x.neg ? -w : w);
  return true;
}

}  // namespace

// Decodes A by rows, B by steps (each step's flags are its own), the scales by rows and
// columns, on exec's threads, writing every element (B's padding columns too): the operand
// arrays come uninitialised.
std::unique_ptr<PreparedMma> fast_gst(const Ctx& cx, const Exec& exec) {
  const DatapathParams& p = cx.p;
  const size_t M = cx.M, N = cx.N, K = cx.K, L = cx.L, S = cx.nsteps, Np = cx.Npad;
  const size_t G = static_cast<size_t>(p.group), gpl = L / G, ng = K / G;
  const size_t blk = static_cast<size_t>(cx.pr.scale_block);
  // Operands as integers in units of their format's smallest lowest-bit weight.
  const FormatInfo &fa = info(cx.pr.atype), &fbi = info(cx.pr.btype);
  const int lowA = fa.emin() - fa.man_bits, lowB = fbi.emin() - fbi.man_bits;
  const int unit = lowA + lowB;
  auto units = [](const FormatInfo& f) {
    return std::ldexp(static_cast<double>((uint64_t{2} << f.man_bits) - 1), f.emax() - f.emin());
  };
  if (units(fa) * units(fbi) * static_cast<double>(G) > 2147483647.0) return nullptr;
  UninitVector<int32_t> av(M * K), bv(K * Np);
  UninitVector<uint8_t> spA(M * S), spB(S * Np);
  std::vector<Scale> sA(M * ng), sB(Np * ng);
  const Decoder decA(cx.pr.atype, cx.opt.negate_a), decB(cx.pr.btype, cx.opt.negate_b);
  const Decoder decS(*cx.pr.scale_type, false);
  std::atomic<bool> ok{true};  // false: an operand below its format's smallest lowest-bit weight
  for_row_blocks(M, exec, [&](size_t m) {
    std::fill_n(&spA[m * S], S, uint8_t{0});
    for (size_t k = 0; k < K; ++k) {
      const Operand x = decA(cx.pr.A[m * K + k]);
      spA[m * S + k / L] |= x.special;
      if (!unit_value(x, lowA, av[m * K + k])) ok.store(false, std::memory_order_relaxed);
    }
    for (size_t g = 0; g < ng; ++g) {
      sA[m * ng + g] = to_scale(decS(cx.pr.sa[m * cx.nb + g * G / blk]));
      spA[m * S + g / gpl] |= sA[m * ng + g].special;
    }
  });
  parallel_for(S, exec, [&](size_t s) {
    std::fill_n(&spB[s * Np], Np, uint8_t{0});
    for (size_t k = s * L; k < (s + 1) * L; ++k) {
      for (size_t n = 0; n < N; ++n) {
        const Operand x = decB(cx.pr.B[k * N + n]);
        spB[s * Np + n] |= x.special;
        if (!unit_value(x, lowB, bv[bpos(cx, k, n)])) ok.store(false, std::memory_order_relaxed);
      }
      for (size_t n = N; n < Np; ++n) bv[bpos(cx, k, n)] = 0;  // padding: no D element reads it
    }
  });
  if (!ok.load()) return nullptr;
  for_row_blocks(N, exec, [&](size_t n) {  // after B: a step's flags gather its operands' and scales'
    for (size_t g = 0; g < ng; ++g) {
      sB[n * ng + g] = to_scale(decS(cx.pr.sb[n * cx.nb + g * G / blk]));
      spB[(g / gpl) * Np + n] |= sB[n * ng + g].special;
    }
  });
  return std::make_unique<PreparedGst>(
      cx, GstOps{std::move(av), std::move(bv), std::move(spA), std::move(spB), std::move(sA), std::move(sB), unit, {}},
      exec);
}

}  // namespace tcemu::detail::fast
