// The T-FDPA / ST-FDPA kernel of the fast whole-matrix path (the plan is in mma_fast.cpp's
// opening comment): operands as E / signed-significand arrays with the scales folded in, an
// emax pass and a sum pass per step over kNB columns, then per D element the C term, the
// rounding (dp::round_sum) and C added after, as dp::fdpa_step does.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <type_traits>
#include <vector>

#include "mma_fast_kernels.hpp"

namespace tcemu::detail::fast {

namespace {

// ---- vector kernels (each lane one D element; b points at column n0 of row k) --------------

TCEMU_HOT void emax_pass(const int32_t* __restrict aE, const int32_t* __restrict bE, size_t ldb, size_t len,
               int32_t* __restrict em) {
  for (size_t i = 0; i < len; ++i) {
    const int32_t ea = aE[i];
    const int32_t* __restrict eb = bE + i * ldb;
    for (int j = 0; j < kNB; ++j) em[j] = std::max(em[j], ea + eb[j]);
  }
}

// The truncated sum of one step for kNB columns: every product of A's scaled significand
// (as) and B's (bs) shifted right to the step's alignment (em + r0) and summed, in T: int32_t
// where a step's products and sums fit in it (twice the lanes), else int64_t.
template <typename T>
TCEMU_HOT void sum_pass(const int32_t* __restrict aE, const T* __restrict as, const int32_t* __restrict bE,
                        const int32_t* __restrict bs, size_t ldb, size_t len, int32_t r0, const int32_t* __restrict em,
                        T* __restrict S) {
  constexpr int32_t kTop = 8 * sizeof(T) - 1;  // the sign bit; also the largest shift
  T acc[kNB] = {};
  int32_t emr[kNB];
  for (int j = 0; j < kNB; ++j) emr[j] = em[j] + r0;
  for (size_t i = 0; i < len; ++i) {
    const int32_t ea = aE[i];
    const T sa = as[i];
    const int32_t* __restrict eb = bE + i * ldb;
    const int32_t* __restrict sb = bs + i * ldb;
    for (int j = 0; j < kNB; ++j) {
      const T prod = sa * static_cast<T>(sb[j]);
      const T msk = prod >> kTop;
      const T mag = (prod ^ msk) - msk;
      const T sh = std::min(emr[j] - (ea + eb[j]), kTop);
      const T t = mag >> sh;
      acc[j] += (t ^ msk) - msk;
    }
  }
  for (int j = 0; j < kNB; ++j) S[j] = acc[j];
}

// ---- T-FDPA and ST-FDPA --------------------------------------------------------------------

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

// Writes one folded operand: its step's flags, its E and significand << shift (kZeroE and 0
// for a zero or special operand, or one whose fold broke low == E - man); returns f.ok.
template <typename T>
bool put_folded(const Folded& f, int shift, uint8_t& special, uint8_t& zero, int32_t& E, T& sig) {
  special |= f.special;
  zero |= f.zero;
  const bool none = f.special || f.zero || !f.ok;
  E = none ? kZeroE : f.E;
  sig = none ? T{0} : static_cast<T>(f.sig * (int64_t{1} << shift));
  return f.ok;
}

struct FdpaPlan {
  int manA = 0, manB = 0, C0 = 0;
  uint64_t maxA = 0, maxB = 0;  // largest folded |significand|
};

// Decodes A by rows and B by steps (each step's flags are its own), on exec's threads, writing
// every element (zero and special operands as E = kZeroE, significand 0; B's padding columns
// too): the arrays come uninitialised.
template <typename T>
bool build_fdpa(const Ctx& cx, FdpaOps<T>& o, const FdpaPlan& plan, const Exec& exec) {
  const size_t M = cx.M, N = cx.N, K = cx.K, L = cx.L, S = cx.nsteps, Np = cx.Npad;
  const bool st = cx.p.kind == DatapathKind::st_fdpa;
  const size_t blk = st ? static_cast<size_t>(cx.pr.scale_block) : 1;
  const int c0l = std::max(plan.C0, 0);
  o.r0 = std::max(-plan.C0, 0);
  o.aE.resize(M * K);
  o.as.resize(M * K);
  o.spA.resize(M * S);
  o.zA.resize(M * S);
  o.bE.resize(K * Np);
  o.bs.resize(K * Np);
  o.spB.resize(S * Np);
  o.zB.resize(S * Np);
  const Decoder decA(cx.pr.atype, cx.opt.negate_a), decB(cx.pr.btype, cx.opt.negate_b);
  const Decoder decS(st ? *cx.pr.scale_type : Fmt::ue8m0, false);
  // An operand with its scale (the code at `scale`, block-scaled datapaths only) folded in.
  auto folded = [&](const Decoder& dec, uint64_t code, const uint64_t* scale, int man) {
    if (!st) return fold(dec(code), nullptr, man);
    const Operand sc = decS(*scale);
    return fold(dec(code), &sc, man);
  };
  std::atomic<bool> ok{true};
  for_row_blocks(M, exec, [&](size_t m) {
    std::fill_n(&o.spA[m * S], S, uint8_t{0});
    std::fill_n(&o.zA[m * S], S, uint8_t{0});
    for (size_t k = 0; k < K; ++k) {
      const Folded f = folded(decA, cx.pr.A[m * K + k], st ? &cx.pr.sa[m * cx.nb + k / blk] : nullptr, plan.manA);
      if (!put_folded(f, c0l, o.spA[m * S + k / L], o.zA[m * S + k / L], o.aE[m * K + k], o.as[m * K + k]))
        ok.store(false, std::memory_order_relaxed);
    }
  });
  parallel_for(S, exec, [&](size_t s) {
    std::fill_n(&o.spB[s * Np], Np, uint8_t{0});
    std::fill_n(&o.zB[s * Np], Np, uint8_t{0});
    for (size_t k = s * L; k < (s + 1) * L; ++k) {
      for (size_t n = 0; n < N; ++n) {
        const Folded f = folded(decB, cx.pr.B[k * N + n], st ? &cx.pr.sb[n * cx.nb + k / blk] : nullptr, plan.manB);
        if (!put_folded(f, 0, o.spB[s * Np + n], o.zB[s * Np + n], o.bE[bpos(cx, k, n)], o.bs[bpos(cx, k, n)]))
          ok.store(false, std::memory_order_relaxed);
      }
      for (size_t n = N; n < Np; ++n) {  // padding: zero operands that no D element reads
        o.bE[bpos(cx, k, n)] = kZeroE;
        o.bs[bpos(cx, k, n)] = 0;
      }
    }
  });
  return ok.load();
}

template <typename T>
TCEMU_HOT void run_fdpa_body(const Ctx& cx, const FdpaOps<T>& o, const DTile& tile, CodeSink D) {
  const DatapathParams& p = cx.p;
  const size_t K = cx.K, L = cx.L, Np = cx.Npad;
  Fallback fb(cx);
  alignas(64) int32_t em[kNB];
  alignas(64) T S[kNB];
  Acc cur[kNB];
  for (size_t n0 = tile.n0; n0 < tile.n1; n0 += kNB) {
    const size_t nv = std::min<size_t>(kNB, tile.n1 - n0);
    for (size_t m = tile.m0; m < tile.m1; ++m) {
      for (size_t j = 0; j < nv; ++j) begin_chain(cx, cur[j], m, n0 + j);
      for (size_t s = 0; s < cx.nsteps; ++s) {
        const size_t k = s * L;
        const bool rowsp = o.spA[m * cx.nsteps + s] != 0;
        const int32_t base = (cx.partial || o.zA[m * cx.nsteps + s]) ? p.e_zero : kNoE;
        const uint8_t* zb = &o.zB[s * Np + n0];
        for (int j = 0; j < kNB; ++j) em[j] = zb[j] ? std::max(base, p.e_zero) : base;
        emax_pass(&o.aE[m * K + k], &o.bE[n0 * K + k * kNB], kNB, L, em);
        if (cx.fused)
          for (size_t j = 0; j < nv; ++j)
            em[j] = std::max(em[j], cur[j].sig ? cur[j].E : p.e_zero);
        sum_pass<T>(&o.aE[m * K + k], &o.as[m * K + k], &o.bE[n0 * K + k * kNB], &o.bs[n0 * K + k * kNB], kNB, L, o.r0,
                    em, S);
        const uint8_t* spb = &o.spB[s * Np + n0];
        for (size_t j = 0; j < nv; ++j) {
          Acc& c = cur[j];
          uint64_t d;
          if (rowsp || spb[j] || c.special) {
            d = fb.step(m, n0 + j, s, c.chain.d);
          } else {
            const int q = em[j] - p.F;
            int64_t sum = S[j];
            if (cx.fused) sum += dp::aligned_term(c.sig, c.low, c.neg, q);  // c.low - q <= F - man < 64
            d = dp::round_sum(p.rounding, p.positive_zero, sum, q);
            if (!cx.fused) d = dp::add_rne_f32(static_cast<uint32_t>(d), static_cast<uint32_t>(c.chain.d));
          }
          finish_step(cx, k + L, d, c);
        }
      }
      for (size_t j = 0; j < nv; ++j) D.put(m * cx.N + n0 + j, final_d(cx, cur[j]));
    }
  }
}

template <typename T>
void run_fdpa_base(const Ctx& cx, const FdpaOps<T>& o, const DTile& tile, CodeSink D) {
  run_fdpa_body(cx, o, tile, D);
}
#ifdef TCEMU_FAST_X86
template <typename T>
TCEMU_AVX2 void run_fdpa_avx2(const Ctx& cx, const FdpaOps<T>& o, const DTile& tile, CodeSink D) {
  run_fdpa_body(cx, o, tile, D);
}
// The same loops built for AVX-512, for what the intrinsics kernel does not take.
template <typename T>
TCEMU_AVX512 void run_fdpa_avx512_loops(const Ctx& cx, const FdpaOps<T>& o, const DTile& tile, CodeSink D) {
  run_fdpa_body(cx, o, tile, D);
}
#endif

// The decoded problem and the kernel that runs on it: the intrinsics kernel of the CPU's
// instruction set (AVX-512, AVX2, or NEON on aarch64) when `chunk` > 0 (int32 sums over runs of `chunk` terms),
// else the loops of this file built for the CPU's instruction set.
template <typename T>
class PreparedFdpa final : public PreparedMma {
 public:
  PreparedFdpa(const Ctx& cx, size_t chunk) : cx_(cx), chunk_(chunk), isa_(kernel_isa()) {}
  bool build(const FdpaPlan& plan, const Exec& exec) { return build_fdpa(cx_, o_, plan, exec); }
  void run(const DTile& tile, CodeSink D) const override {
    if constexpr (std::is_same_v<T, int32_t>)
      if (chunk_) {
        if (isa_ == ConvertIsa::avx512) return run_fdpa_avx512(cx_, o_, chunk_, tile, D);
        if (isa_ == ConvertIsa::avx2) return run_fdpa_avx2_vec(cx_, o_, chunk_, tile, D);
        return run_fdpa_neon(cx_, o_, chunk_, tile, D);
      }
    switch (kernel_isa()) {
#ifdef TCEMU_FAST_X86
      case ConvertIsa::avx512: return run_fdpa_avx512_loops(cx_, o_, tile, D);
      case ConvertIsa::avx2: return run_fdpa_avx2(cx_, o_, tile, D);
#endif
      default: return run_fdpa_base(cx_, o_, tile, D);
    }
  }

 private:
  Ctx cx_;
  size_t chunk_;
  ConvertIsa isa_;  // the build that prepare chose the kernel for
  FdpaOps<T> o_;
};

template <typename T>
std::unique_ptr<PreparedMma> prepared_fdpa(const Ctx& cx, const FdpaPlan& plan, size_t chunk, const Exec& exec) {
  auto r = std::make_unique<PreparedFdpa<T>>(cx, chunk);
  if (!r->build(plan, exec)) return nullptr;
  return r;
}

}  // namespace

std::unique_ptr<PreparedMma> fast_fdpa(const Ctx& cx, const Exec& exec) {
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
  const bool a_fits = static_cast<double>(plan.maxA) * std::ldexp(1.0, c0l) <= 2147483647.0;
  // The AVX-512 kernel: every product (and A's shifted significand) an int32.
  // The intrinsics kernels (AVX-512, AVX2): every product (and A's shifted significand) an int32.
  const ConvertIsa isa = kernel_isa();
  const bool vec = (isa == ConvertIsa::avx512 && fdpa_avx512_takes(cx)) || (isa == ConvertIsa::avx2 && fdpa_avx2_takes(cx)) ||
                   (isa == ConvertIsa::baseline && fdpa_neon_takes(cx));  // NEON: aarch64's one build
  if (vec && term <= 2147483647.0 && a_fits)
    return prepared_fdpa<int32_t>(cx, plan, static_cast<size_t>(2147483647.0 / term), exec);
  if (bound <= 2147483647.0 && a_fits) return prepared_fdpa<int32_t>(cx, plan, 0, exec);
  if (bound <= std::ldexp(1.0, 60)) return prepared_fdpa<int64_t>(cx, plan, 0, exec);
  return nullptr;
}

}  // namespace tcemu::detail::fast
