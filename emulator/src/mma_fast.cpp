// The fast whole-matrix path (see mma_fast.hpp): the same arithmetic as mma_params' generic
// loop (fdpa_step_decoded / gst_step_decoded on each D element), reorganised so that a
// compiler vectorises it:
//  - operands are decoded once into separate arrays (structure of arrays): alignment exponent
//    E and signed integer significand; B keeps its row-major [k][n] layout so that one A value
//    meets a run of consecutive columns n, and each vector lane is one D element;
//  - T-FDPA / ST-FDPA: for every finite nonzero operand the weight of the significand's lowest
//    bit is E - man_bits, so a term's shift to 2^q is (F - man_a - man_b) - (emax - e_i): the
//    constant part is folded into A's significands (into the right shift when negative) and
//    the rest is a right shift, truncating the magnitude toward zero as the model does. The
//    lanes are int32 when L terms of the largest possible magnitude fit, else int64. A zero or special operand gets a very low
//    E and significand 0: its term adds 0 and never sets emax. Whether a step holds a zero
//    product (which contributes e_zero to emax) is a per-row / per-column flag, because a
//    product is zero exactly when one of its operands is. ST-FDPA folds each term's scales
//    into its operands (the products, exponents and signs multiply and add the same way);
//  - GST-FDPA: each operand becomes the integer value / 2^(smallest lowest-bit weight of its
//    format), so a group's exact sum is a plain integer dot product; the group terms, C and
//    the rounding are per D element, as in gst_step_decoded;
//  - a step whose row or column holds a NaN or Inf (operand or scale), or whose C is NaN or
//    Inf, is recomputed by the generic step function on decoded operands, so every special
//    rule stays the generic path's.
// Everything it does not handle is declined (nullopt), and the generic loop runs.
#include "mma_fast.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <vector>

namespace tcemu::detail {

// A new field in any of these changes what the generic loop computes: review the whitelist in
// `accepts` below (every field is checked there) and then update the sizes.
static_assert(sizeof(DatapathParams) == 28, "DatapathParams changed: review mma_fast's whitelist");
static_assert(sizeof(MmaOptions) == 12, "MmaOptions changed: review mma_fast's whitelist");
static_assert(sizeof(void*) != 8 || sizeof(MmaProblem) == 104, "MmaProblem changed: review mma_fast");

namespace {

// The kernels are compiled twice, for x86-64 with AVX2 (and the bit-manipulation extensions
// every AVX2 CPU has: lzcnt for the rounding) and for the baseline, and picked at run time:
// the library needs no -march flag and runs on CPUs without AVX2. Everything a kernel calls on
// its hot path is forced inline so that it is compiled with the kernel's instruction set.
std::atomic<bool> g_baseline_only{false};  // use_baseline_kernels
std::atomic<bool> g_disabled{false};       // disable_fast_path

#if defined(__GNUC__) && defined(__x86_64__)
#define TCEMU_FAST_X86 1
#define TCEMU_HOT inline __attribute__((always_inline))
#define TCEMU_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
#if !defined(__clang__)  // clang 14 does not know "lzcnt" here (the fuzz build); AVX2 CPUs have it
                          __builtin_cpu_supports("lzcnt") &&
#endif
                          __builtin_cpu_supports("popcnt");
  return yes && !g_baseline_only.load(std::memory_order_relaxed);
}
#else
#define TCEMU_HOT inline
#endif

constexpr int kNB = 32;               // columns (D elements) processed together
constexpr int32_t kZeroE = -(1 << 20);  // E of a zero or special operand: below any real sum
constexpr int32_t kNoE = -(1 << 29);    // emax before any term

// ---- which problems this path takes ------------------------------------------------------

bool accepts(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  // DatapathParams, every field.
  if (p.kind != DatapathKind::t_fdpa && p.kind != DatapathKind::st_fdpa && p.kind != DatapathKind::gst_fdpa) return false;
  if (p.L < 1 || p.L > 256 || p.F < 1 || p.F > 48) return false;
  if (p.e_zero < -4000 || p.e_zero > 4000) return false;
  if (p.rounding != OutputRounding::rz_f32 && p.rounding != OutputRounding::rne_f16 &&
      p.rounding != OutputRounding::rz_e8m13)
    return false;
  if (p.c_entry != CEntry::fused && p.c_entry != CEntry::rne_f32_after) return false;
  if (p.c_entry == CEntry::rne_f32_after && (p.kind == DatapathKind::gst_fdpa || p.rounding == OutputRounding::rne_f16))
    return false;
  if (p.group < 1 || p.group > 256) return false;  // read by gst_fdpa only
  if (p.satfinite || p.widen_to_f16 || p.kpair_halves) return false;
  (void)p.positive_zero;  // handled: the rounded step result -0 becomes +0 (see plus_zero)
  // MmaOptions, every field.
  if (opt.promote_every < 0) return false;
  if (opt.promote_every > 0 && p.rounding == OutputRounding::rne_f16) return false;
  (void)opt.negate_a;
  (void)opt.negate_b;
  (void)opt.scale_d;
  if (opt.scale_input_d < -1 || opt.scale_input_d > 15) return false;
  // The problem (already validated by mma_params).
  const size_t L = std::min(static_cast<size_t>(p.L), static_cast<size_t>(instr_k));
  if (static_cast<size_t>(pr.K) % L != 0) return false;
  const bool scaled = p.kind != DatapathKind::t_fdpa;
  if (scaled != pr.scale_type.has_value()) return false;
  if (scaled && *pr.scale_type != Fmt::ue8m0 && *pr.scale_type != Fmt::ue4m3) return false;
  if (p.kind == DatapathKind::gst_fdpa && (L % static_cast<size_t>(p.group) != 0 || L / static_cast<size_t>(p.group) > 64))
    return false;
  for (Fmt f : {pr.atype, pr.btype})
    if (info(f).is_int || info(f).man_bits > 10 || f == Fmt::f64 || f == Fmt::f32 || f == Fmt::ue8m0 || f == Fmt::ue4m3)
      return false;
  return true;
}

// ---- shared pieces -------------------------------------------------------------------------

// trunc0(mag * 2^sh) for any sh (as the datapath's shift_trunc).
TCEMU_HOT uint64_t shift_trunc(uint64_t mag, int sh) {
  if (sh >= 0) return sh >= 64 ? 0 : mag << sh;
  return sh <= -64 ? 0 : mag >> -sh;
}

// round_to_float (datapath.cpp) for the f32 and f16 outputs with no sticky bit, and
// apply_output_rounding on top of it, repeated here so that they inline: the one rounding per
// step was the largest cost left. Same steps as there; mma_fast_test compares every result.
template <bool Half, bool Nearest>
TCEMU_HOT uint64_t round_out(bool neg, uint64_t mag, int exp) {
  constexpr int man = Half ? 10 : 23, width = Half ? 16 : 32, ebits = Half ? 5 : 8, bias = Half ? 15 : 127;
  constexpr int emax = bias, lsb_min = 1 - bias - man;
  constexpr uint64_t inf = ((uint64_t{1} << ebits) - 1) << man;
  const uint64_t sign = neg ? uint64_t{1} << (width - 1) : 0;
  const int top = exp + std::bit_width(mag) - 1;  // mag != 0
  if (top > emax) return sign | inf;
  const int lsb = std::max(top - man, lsb_min);
  uint64_t q;
  if (lsb <= exp) {
    q = mag << (exp - lsb);
  } else {
    const int sh = lsb - exp;
    q = sh >= 64 ? 0 : mag >> sh;
    if constexpr (Nearest) {
      bool up;
      if (sh > 64) {
        up = false;
      } else if (sh == 64) {
        up = mag > (uint64_t{1} << 63);
      } else {
        const uint64_t rem = mag & ((uint64_t{1} << sh) - 1);
        const uint64_t half = uint64_t{1} << (sh - 1);
        up = rem > half || (rem == half && (q & 1));
      }
      q += up ? 1 : 0;
    }
  }
  uint64_t code = q + (static_cast<uint64_t>(lsb - lsb_min) << man);
  if (code >= inf) code = inf;
  return sign | code;
}

TCEMU_HOT uint64_t output_rounding(OutputRounding r, bool neg, uint64_t mag, int exp) {
  if (mag == 0) return 0;  // an exact zero sum gives +0
  switch (r) {
    case OutputRounding::rz_f32: return round_out<false, false>(neg, mag, exp);
    case OutputRounding::rne_f16: return round_out<true, true>(neg, mag, exp);
    case OutputRounding::rz_e8m13: return round_out<false, false>(neg, mag, exp) & ~uint64_t{0x3FF};
  }
  return 0;
}

// DatapathParams::positive_zero: a step result that rounded to -0 is +0 (before C is added
// after, as in the step functions).
TCEMU_HOT uint64_t plus_zero(const DatapathParams& p, uint64_t d) {
  const uint64_t sign = p.rounding == OutputRounding::rne_f16 ? 0x8000 : 0x80000000u;
  return (p.positive_zero && d == sign) ? 0 : d;
}

TCEMU_HOT int64_t apply_sign(uint64_t t, bool neg) {
  return neg ? -static_cast<int64_t>(t) : static_cast<int64_t>(t);
}

// The running accumulator of one D element: its code and the fields the next step reads.
struct Acc {
  uint64_t code = 0;
  uint32_t sig = 0;
  int32_t low = 0, E = 0;
  bool neg = false, special = false;
};

TCEMU_HOT void set_acc(Acc& a, Fmt out, uint64_t c) {
  const bool h = out == Fmt::f16;
  const int man = h ? 10 : 23, ebits = h ? 5 : 8, bias = h ? 15 : 127;
  const uint32_t x = static_cast<uint32_t>(c);
  a.code = c;
  a.neg = ((x >> (man + ebits)) & 1) != 0;
  const uint32_t eb = (x >> man) & ((1u << ebits) - 1), f = x & ((1u << man) - 1);
  a.special = eb == (1u << ebits) - 1;
  if (a.special) {
    a.sig = 0;
    a.low = a.E = 0;
    return;
  }
  a.sig = eb == 0 ? f : (f | (1u << man));
  a.low = (eb == 0 ? 1 : static_cast<int>(eb)) - bias - man;
  a.E = a.low + man;
}

// Everything about the problem that the kernels share.
struct Ctx {
  const DatapathParams& p;
  const MmaProblem& pr;
  const MmaOptions& opt;
  size_t M, N, K, L, nsteps, Npad, nb;  // nb: scales per row / column
  Fmt acc;
  bool fused, partial;
  size_t promote;  // in k; 0 = off
};

// The starting accumulator of D element (m, n), as the generic loop forms it.
uint64_t start_c(const Ctx& cx, size_t m, size_t n) {
  uint64_t c = cx.opt.scale_d ? cx.pr.C[m * cx.N + n] : 0;
  if (cx.opt.scale_input_d >= 0) c = scale_c(c, cx.acc, cx.opt.scale_input_d);
  return c;
}

// The generic step on decoded operands for one D element (the specials' path).
class Fallback {
 public:
  explicit Fallback(const Ctx& cx) : cx_(cx), a_(cx.L), b_(cx.L), sa_(cx.L), sb_(cx.L) {}
  uint64_t step(size_t m, size_t n, size_t s, uint64_t c) {
    const Ctx& cx = cx_;
    const size_t k = s * cx.L, L = cx.L;
    if (m != am_ || s != as_) {
      for (size_t i = 0; i < L; ++i) a_[i] = negated(decode_operand(cx.pr.atype, cx.pr.A[m * cx.K + k + i]), cx.opt.negate_a);
      am_ = m;
      as_ = s;
    }
    for (size_t i = 0; i < L; ++i) b_[i] = negated(decode_operand(cx.pr.btype, cx.pr.B[(k + i) * cx.N + n]), cx.opt.negate_b);
    const DatapathParams& p = cx.p;
    if (p.kind == DatapathKind::t_fdpa) return fdpa_step_decoded(p, a_.data(), b_.data(), L, c);
    const size_t blk = static_cast<size_t>(cx.pr.scale_block);
    const Fmt st = *cx.pr.scale_type;
    if (p.kind == DatapathKind::st_fdpa) {
      for (size_t i = 0; i < L; ++i) {
        sa_[i] = decode_operand(st, cx.pr.sa[m * cx.nb + (k + i) / blk]);
        sb_[i] = decode_operand(st, cx.pr.sb[n * cx.nb + (k + i) / blk]);
      }
      return fdpa_step_decoded(p, a_.data(), b_.data(), L, c, sa_.data(), sb_.data());
    }
    const size_t G = static_cast<size_t>(p.group), g0 = k / G;
    for (size_t g = 0; g < L / G; ++g) {
      sa_[g] = decode_operand(st, cx.pr.sa[m * cx.nb + (g0 + g) * G / blk]);
      sb_[g] = decode_operand(st, cx.pr.sb[n * cx.nb + (g0 + g) * G / blk]);
    }
    return gst_step_decoded(p, a_.data(), b_.data(), L, c, sa_.data(), sb_.data());
  }

 private:
  const Ctx& cx_;
  std::vector<Operand> a_, b_, sa_, sb_;
  size_t am_ = SIZE_MAX, as_ = SIZE_MAX;
};

// After a step: FP32 promotion, then the new running accumulator.
TCEMU_HOT void finish_step(const Ctx& cx, size_t k_end, uint64_t d, Acc& cur, uint64_t& accum) {
  if (cx.promote && k_end % cx.promote == 0) {
    accum = f32_add_rne(static_cast<uint32_t>(accum), static_cast<uint32_t>(d));
    d = 0;
  }
  set_acc(cur, cx.acc, d);
}

TCEMU_HOT uint64_t final_d(const Ctx& cx, const Acc& cur, uint64_t accum) {
  if (!cx.promote) return cur.code;
  if (cx.K % cx.promote != 0) return f32_add_rne(static_cast<uint32_t>(accum), static_cast<uint32_t>(cur.code));
  return accum;
}

// ---- vector kernels (each lane one D element; b points at column n0 of row k) --------------

TCEMU_HOT void emax_pass(const int32_t* __restrict aE, const int32_t* __restrict bE, size_t ldb, size_t len,
               int32_t* __restrict em) {
  for (size_t i = 0; i < len; ++i) {
    const int32_t ea = aE[i];
    const int32_t* __restrict eb = bE + i * ldb;
    for (int j = 0; j < kNB; ++j) em[j] = std::max(em[j], ea + eb[j]);
  }
}

TCEMU_HOT void sum_pass_i32(const int32_t* __restrict aE, const int32_t* __restrict as, const int32_t* __restrict bE,
                  const int32_t* __restrict bs, size_t ldb, size_t len, int32_t r0, const int32_t* __restrict em,
                  int32_t* __restrict S) {
  int32_t acc[kNB] = {};
  int32_t emr[kNB];
  for (int j = 0; j < kNB; ++j) emr[j] = em[j] + r0;
  for (size_t i = 0; i < len; ++i) {
    const int32_t ea = aE[i], sa = as[i];
    const int32_t* __restrict eb = bE + i * ldb;
    const int32_t* __restrict sb = bs + i * ldb;
    for (int j = 0; j < kNB; ++j) {
      const int32_t prod = sa * sb[j];
      const int32_t msk = prod >> 31;
      const int32_t mag = (prod ^ msk) - msk;
      const int32_t sh = std::min(emr[j] - (ea + eb[j]), 31);
      const int32_t t = mag >> sh;
      acc[j] += (t ^ msk) - msk;
    }
  }
  for (int j = 0; j < kNB; ++j) S[j] = acc[j];
}

TCEMU_HOT void sum_pass_i64(const int32_t* __restrict aE, const int64_t* __restrict as, const int32_t* __restrict bE,
                  const int32_t* __restrict bs, size_t ldb, size_t len, int32_t r0, const int32_t* __restrict em,
                  int64_t* __restrict S) {
  int64_t acc[kNB] = {};
  int32_t emr[kNB];
  for (int j = 0; j < kNB; ++j) emr[j] = em[j] + r0;
  for (size_t i = 0; i < len; ++i) {
    const int32_t ea = aE[i];
    const int64_t sa = as[i];
    const int32_t* __restrict eb = bE + i * ldb;
    const int32_t* __restrict sb = bs + i * ldb;
    for (int j = 0; j < kNB; ++j) {
      const int64_t prod = sa * static_cast<int64_t>(sb[j]);
      const int64_t msk = prod >> 63;
      const int64_t mag = (prod ^ msk) - msk;
      const int64_t sh = std::min(emr[j] - (ea + eb[j]), 63);
      const int64_t t = mag >> sh;
      acc[j] += (t ^ msk) - msk;
    }
  }
  for (int j = 0; j < kNB; ++j) S[j] = acc[j];
}

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

// ---- T-FDPA and ST-FDPA --------------------------------------------------------------------

// Decoded operands with scales folded in (ST-FDPA), as E / signed significand arrays, and the
// per-step flags. Declines (returns false) when an operand breaks low == E - man or the sums
// could leave the chosen integer width.
template <typename T>
struct FdpaOps {
  std::vector<int32_t> aE;  // M x K
  std::vector<T> as;        // M x K, significand << c0l, signed
  std::vector<int32_t> bE, bs;   // K x Npad
  std::vector<uint8_t> spA, zA;  // M x nsteps: a NaN/Inf, a zero (folded) operand in the step
  std::vector<uint8_t> spB, zB;  // nsteps x Npad
  int32_t r0 = 0;
};

// One operand, its scale folded in; false when the decoded form breaks low == E - man.
struct Folded {
  int64_t sig = 0;  // signed
  int32_t E = kZeroE;
  bool special = false, zero = true, ok = true;
};

inline Folded fold(const Operand& x, const Operand* s, int man) {
  Folded f;
  f.special = x.special || (s && s->special);
  if (f.special) return f;
  const bool zero = x.sig == 0 || (s && s->sig == 0);
  if (zero) return f;
  f.zero = false;
  int64_t sig = x.sig;
  int E = x.E, low = x.low;
  bool neg = x.neg;
  if (s) {
    sig *= s->sig;
    E += s->E;
    low += s->low;
    neg ^= s->neg != 0;
  }
  f.ok = low == E - man;
  f.sig = neg ? -sig : sig;
  f.E = E;
  return f;
}

struct FdpaPlan {
  int manA = 0, manB = 0, C0 = 0;
  uint64_t maxA = 0, maxB = 0;  // largest folded |significand|
};

template <typename T>
bool build_fdpa(const Ctx& cx, FdpaOps<T>& o, const FdpaPlan& plan) {
  const size_t M = cx.M, N = cx.N, K = cx.K, L = cx.L, S = cx.nsteps, Np = cx.Npad;
  const bool st = cx.p.kind == DatapathKind::st_fdpa;
  const size_t blk = st ? static_cast<size_t>(cx.pr.scale_block) : 1;
  const int c0l = std::max(plan.C0, 0);
  o.r0 = std::max(-plan.C0, 0);
  o.aE.assign(M * K, kZeroE);
  o.as.assign(M * K, 0);
  o.spA.assign(M * S, 0);
  o.zA.assign(M * S, 0);
  o.bE.assign(K * Np, kZeroE);
  o.bs.assign(K * Np, 0);
  o.spB.assign(S * Np, 0);
  o.zB.assign(S * Np, 0);
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) {
      const Operand x = negated(decode_operand(cx.pr.atype, cx.pr.A[m * K + k]), cx.opt.negate_a);
      Operand sc;
      if (st) sc = decode_operand(*cx.pr.scale_type, cx.pr.sa[m * cx.nb + k / blk]);
      const Folded f = fold(x, st ? &sc : nullptr, plan.manA);
      if (!f.ok) return false;
      o.spA[m * S + k / L] |= f.special;
      o.zA[m * S + k / L] |= f.zero;
      if (f.special || f.zero) continue;
      o.aE[m * K + k] = f.E;
      o.as[m * K + k] = static_cast<T>(f.sig * (int64_t{1} << c0l));
    }
  for (size_t k = 0; k < K; ++k)
    for (size_t n = 0; n < N; ++n) {
      const Operand x = negated(decode_operand(cx.pr.btype, cx.pr.B[k * N + n]), cx.opt.negate_b);
      Operand sc;
      if (st) sc = decode_operand(*cx.pr.scale_type, cx.pr.sb[n * cx.nb + k / blk]);
      const Folded f = fold(x, st ? &sc : nullptr, plan.manB);
      if (!f.ok) return false;
      o.spB[(k / L) * Np + n] |= f.special;
      o.zB[(k / L) * Np + n] |= f.zero;
      if (f.special || f.zero) continue;
      o.bE[k * Np + n] = f.E;
      o.bs[k * Np + n] = static_cast<int32_t>(f.sig);
    }
  return true;
}

template <typename T>
TCEMU_HOT void run_fdpa_body(const Ctx& cx, const FdpaOps<T>& o, std::vector<uint64_t>& D) {
  const DatapathParams& p = cx.p;
  const size_t K = cx.K, L = cx.L, Np = cx.Npad;
  Fallback fb(cx);
  alignas(64) int32_t em[kNB];
  alignas(64) T S[kNB];
  Acc cur[kNB];
  uint64_t accum[kNB];
  for (size_t n0 = 0; n0 < cx.N; n0 += kNB) {
    const size_t nv = std::min<size_t>(kNB, cx.N - n0);
    for (size_t m = 0; m < cx.M; ++m) {
      for (size_t j = 0; j < nv; ++j) {
        const uint64_t c = start_c(cx, m, n0 + j);
        accum[j] = c;
        set_acc(cur[j], cx.acc, cx.promote ? 0 : c);
      }
      for (size_t s = 0; s < cx.nsteps; ++s) {
        const size_t k = s * L;
        const bool rowsp = o.spA[m * cx.nsteps + s] != 0;
        const int32_t base = (cx.partial || o.zA[m * cx.nsteps + s]) ? p.e_zero : kNoE;
        const uint8_t* zb = &o.zB[s * Np + n0];
        for (int j = 0; j < kNB; ++j) em[j] = zb[j] ? std::max(base, p.e_zero) : base;
        emax_pass(&o.aE[m * K + k], &o.bE[k * Np + n0], Np, L, em);
        if (cx.fused)
          for (size_t j = 0; j < nv; ++j)
            em[j] = std::max(em[j], cur[j].sig ? cur[j].E : p.e_zero);
        if constexpr (sizeof(T) == 4)
          sum_pass_i32(&o.aE[m * K + k], &o.as[m * K + k], &o.bE[k * Np + n0], &o.bs[k * Np + n0], Np, L, o.r0, em, S);
        else
          sum_pass_i64(&o.aE[m * K + k], &o.as[m * K + k], &o.bE[k * Np + n0], &o.bs[k * Np + n0], Np, L, o.r0, em, S);
        const uint8_t* spb = &o.spB[s * Np + n0];
        for (size_t j = 0; j < nv; ++j) {
          Acc& c = cur[j];
          uint64_t d;
          if (rowsp || spb[j] || c.special) {
            d = fb.step(m, n0 + j, s, c.code);
          } else {
            const int q = em[j] - p.F;
            int64_t sum = S[j];
            if (cx.fused) {  // sh <= F - man < 64 (emax >= E(C)); both shifts formed, one kept
              const int sh = c.low - q;
              const uint64_t left = uint64_t{c.sig} << (sh & 63), right = uint64_t{c.sig} >> std::clamp(-sh, 0, 63);
              sum += apply_sign(sh >= 0 ? left : right, c.neg);
            }
            const bool neg = sum < 0;
            d = plus_zero(p, output_rounding(p.rounding, neg, neg ? 0 - static_cast<uint64_t>(sum) : static_cast<uint64_t>(sum), q));
            if (!cx.fused) d = f32_add_rne(static_cast<uint32_t>(d), static_cast<uint32_t>(c.code));
          }
          finish_step(cx, k + L, d, c, accum[j]);
        }
      }
      for (size_t j = 0; j < nv; ++j) D[m * cx.N + n0 + j] = final_d(cx, cur[j], accum[j]);
    }
  }
}

template <typename T>
void run_fdpa_base(const Ctx& cx, const FdpaOps<T>& o, std::vector<uint64_t>& D) {
  run_fdpa_body(cx, o, D);
}
#ifdef TCEMU_FAST_X86
template <typename T>
TCEMU_AVX2 void run_fdpa_avx2(const Ctx& cx, const FdpaOps<T>& o, std::vector<uint64_t>& D) {
  run_fdpa_body(cx, o, D);
}
#endif
template <typename T>
void run_fdpa(const Ctx& cx, const FdpaOps<T>& o, std::vector<uint64_t>& D) {
#ifdef TCEMU_FAST_X86
  if (cpu_has_avx2()) return run_fdpa_avx2(cx, o, D);
#endif
  run_fdpa_base(cx, o, D);
}

std::optional<MmaResult> fast_fdpa(const Ctx& cx) {
  const bool st = cx.p.kind == DatapathKind::st_fdpa;
  FdpaPlan plan;
  const int manS = st ? info(*cx.pr.scale_type).man_bits : 0;
  plan.manA = info(cx.pr.atype).man_bits + manS;
  plan.manB = info(cx.pr.btype).man_bits + manS;
  plan.C0 = cx.p.F - plan.manA - plan.manB;
  // Largest |significand| of each side (scale significands included): bounds every term.
  auto sig_bound = [](Fmt f) { return (uint64_t{2} << info(f).man_bits) - 1; };
  const uint64_t sA = st ? sig_bound(*cx.pr.scale_type) : 1;
  plan.maxA = sig_bound(cx.pr.atype) * sA;
  plan.maxB = sig_bound(cx.pr.btype) * sA;
  const int c0l = std::max(plan.C0, 0);
  const double term = static_cast<double>(plan.maxA) * static_cast<double>(plan.maxB) * std::ldexp(1.0, c0l);
  const double bound = term * static_cast<double>(cx.L);
  MmaResult r;
  r.D.assign(cx.M * cx.N, 0);
  if (bound <= 2147483647.0 && static_cast<double>(plan.maxA) * std::ldexp(1.0, c0l) <= 2147483647.0) {
    FdpaOps<int32_t> o;
    if (!build_fdpa(cx, o, plan)) return std::nullopt;
    run_fdpa(cx, o, r.D);
    return r;
  }
  if (bound <= std::ldexp(1.0, 60)) {
    FdpaOps<int64_t> o;
    if (!build_fdpa(cx, o, plan)) return std::nullopt;
    run_fdpa(cx, o, r.D);
    return r;
  }
  return std::nullopt;
}

// ---- GST-FDPA ----------------------------------------------------------------------------

struct Scale {
  int32_t E = 0, low = 0;
  uint32_t sig = 0;
  bool neg = false, special = false;
};

Scale to_scale(const Operand& o) {
  Scale s;
  s.E = o.E;
  s.low = o.low;
  s.sig = o.sig;
  s.neg = o.neg != 0;
  s.special = o.special != 0;
  return s;
}

// GST-FDPA operands as integers in units of 2^unit, scales per group, per-step special flags.
struct GstOps {
  std::vector<int32_t> av, bv;    // M x K, K x Npad
  std::vector<uint8_t> spA, spB;  // M x nsteps, nsteps x Npad
  std::vector<Scale> sA, sB;      // M x (K / group), Npad x (K / group)
  int unit = 0;
};

TCEMU_HOT void run_gst_body(const Ctx& cx, const GstOps& o, std::vector<uint64_t>& D) {
  const DatapathParams& p = cx.p;
  const size_t M = cx.M, N = cx.N, K = cx.K, L = cx.L, S = cx.nsteps, Np = cx.Npad;
  const size_t G = static_cast<size_t>(p.group), gpl = L / G, ng = K / G;
  const std::vector<int32_t>&av = o.av, &bv = o.bv;
  const std::vector<uint8_t>&spA = o.spA, &spB = o.spB;
  const std::vector<Scale>&sA = o.sA, &sB = o.sB;
  const int unit = o.unit;
  Fallback fb(cx);
  int32_t gs[64 * kNB], any[64 * kNB];
  Acc cur[kNB];
  uint64_t accum[kNB];
  for (size_t n0 = 0; n0 < N; n0 += kNB) {
    const size_t nv = std::min<size_t>(kNB, N - n0);
    for (size_t m = 0; m < M; ++m) {
      for (size_t j = 0; j < nv; ++j) {
        const uint64_t c = start_c(cx, m, n0 + j);
        accum[j] = c;
        set_acc(cur[j], cx.acc, cx.promote ? 0 : c);
      }
      for (size_t s = 0; s < S; ++s) {
        const size_t k = s * L;
        for (size_t g = 0; g < gpl; ++g)
          group_pass(&av[m * K + k + g * G], &bv[(k + g * G) * Np + n0], Np, G, &gs[g * kNB], &any[g * kNB]);
        const bool rowsp = spA[m * S + s] != 0;
        const Scale* sa = &sA[m * ng + k / G];
        for (size_t j = 0; j < nv; ++j) {
          Acc& c = cur[j];
          const size_t n = n0 + j;
          uint64_t d;
          if (rowsp || spB[s * Np + n] || c.special) {
            d = fb.step(m, n, s, c.code);
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
              const uint64_t mag = (v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)) *
                                   (uint64_t{sa[g].sig} * sb[g].sig);
              sum += apply_sign(shift_trunc(mag, unit + sa[g].low + sb[g].low - q), neg);
            }
            sum += apply_sign(shift_trunc(c.sig, c.low - q), c.neg);
            const bool neg = sum < 0;
            d = plus_zero(p, output_rounding(p.rounding, neg, neg ? 0 - static_cast<uint64_t>(sum) : static_cast<uint64_t>(sum), q));
          }
          finish_step(cx, k + L, d, c, accum[j]);
        }
      }
      for (size_t j = 0; j < nv; ++j) D[m * N + n0 + j] = final_d(cx, cur[j], accum[j]);
    }
  }
}

void run_gst_base(const Ctx& cx, const GstOps& o, std::vector<uint64_t>& D) { run_gst_body(cx, o, D); }
#ifdef TCEMU_FAST_X86
TCEMU_AVX2 void run_gst_avx2(const Ctx& cx, const GstOps& o, std::vector<uint64_t>& D) { run_gst_body(cx, o, D); }
#endif

std::optional<MmaResult> fast_gst(const Ctx& cx) {
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
  if (units(fa) * units(fbi) * static_cast<double>(G) > 2147483647.0) return std::nullopt;
  std::vector<int32_t> av(M * K, 0), bv(K * Np, 0);
  std::vector<uint8_t> spA(M * S, 0), spB(S * Np, 0);
  std::vector<Scale> sA(M * ng), sB(Np * ng);
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) {
      const Operand x = negated(decode_operand(cx.pr.atype, cx.pr.A[m * K + k]), cx.opt.negate_a);
      if (x.special) {
        spA[m * S + k / L] = 1;
        continue;
      }
      if (x.sig == 0) continue;
      if (x.low < lowA) return std::nullopt;
      const int64_t v = static_cast<int64_t>(x.sig) << (x.low - lowA);
      av[m * K + k] = static_cast<int32_t>(x.neg ? -v : v);
    }
  for (size_t k = 0; k < K; ++k)
    for (size_t n = 0; n < N; ++n) {
      const Operand x = negated(decode_operand(cx.pr.btype, cx.pr.B[k * N + n]), cx.opt.negate_b);
      if (x.special) {
        spB[(k / L) * Np + n] = 1;
        continue;
      }
      if (x.sig == 0) continue;
      if (x.low < lowB) return std::nullopt;
      const int64_t v = static_cast<int64_t>(x.sig) << (x.low - lowB);
      bv[k * Np + n] = static_cast<int32_t>(x.neg ? -v : v);
    }
  const Fmt stype = *cx.pr.scale_type;
  for (size_t m = 0; m < M; ++m)
    for (size_t g = 0; g < ng; ++g) {
      sA[m * ng + g] = to_scale(decode_operand(stype, cx.pr.sa[m * cx.nb + g * G / blk]));
      spA[m * S + g / gpl] |= sA[m * ng + g].special;
    }
  for (size_t n = 0; n < N; ++n)
    for (size_t g = 0; g < ng; ++g) {
      sB[n * ng + g] = to_scale(decode_operand(stype, cx.pr.sb[n * cx.nb + g * G / blk]));
      spB[(g / gpl) * Np + n] |= sB[n * ng + g].special;
    }

  GstOps o{std::move(av), std::move(bv), std::move(spA), std::move(spB), std::move(sA), std::move(sB), unit};
  MmaResult r;
  r.D.assign(M * N, 0);
#ifdef TCEMU_FAST_X86
  if (cpu_has_avx2()) {
    run_gst_avx2(cx, o, r.D);
    return r;
  }
#endif
  run_gst_base(cx, o, r.D);
  return r;
}

}  // namespace

void use_baseline_kernels(bool on) { g_baseline_only.store(on, std::memory_order_relaxed); }
void disable_fast_path(bool on) { g_disabled.store(on, std::memory_order_relaxed); }

std::optional<MmaResult> mma_fast(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  if (g_disabled.load(std::memory_order_relaxed) || !accepts(p, pr, instr_k, opt)) return std::nullopt;
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  const size_t L = std::min(static_cast<size_t>(p.L), static_cast<size_t>(instr_k));
  const size_t nb = pr.scale_block > 0 ? K / static_cast<size_t>(pr.scale_block) : 0;
  const size_t promote = opt.promote_every > 0 ? static_cast<size_t>(opt.promote_every) * static_cast<size_t>(instr_k) : 0;
  const Ctx cx{p, pr, opt, M, N, K, L, K / L, (N + kNB - 1) / kNB * kNB, nb, output_format(p.rounding),
               p.c_entry == CEntry::fused, L < static_cast<size_t>(p.L), promote};
  if (p.kind == DatapathKind::gst_fdpa) return fast_gst(cx);
  return fast_fdpa(cx);
}

}  // namespace tcemu::detail
