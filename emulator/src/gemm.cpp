// tcemu::gemm (gemm.hpp): each chunk of K is one whole-matrix mma chained from +0 (the
// threaded mma of mma.hpp), the partials are combined as the plan says, and the
// epilogue runs per element of D on the threads of parallel.hpp. Every element's result is
// fixed by its row and column alone, so D is the same for every thread count.
#include <algorithm>
#include <functional>

#include "tcemu/gemm.hpp"
#include "tcemu/mma.hpp"

namespace tcemu {
namespace {

constexpr uint32_t kOne = 0x3F800000u;

bool is_zero_f32(uint32_t x) { return (x & 0x7FFFFFFFu) == 0; }

bool out_type_ok(Fmt f) {
  return f == Fmt::f32 || f == Fmt::bf16 || f == Fmt::f16 || f == Fmt::e4m3 || f == Fmt::e5m2;
}

std::string sz(size_t n) { return std::to_string(n); }

// The chunk sizes to run: the plan's, or the whole K as one chain.
std::vector<int> chunks_of(const GemmPlan& plan, int K) {
  return plan.chunks.empty() ? std::vector<int>{K} : plan.chunks;
}

// The sub-problem of K range [k0, k0 + kc): A's columns, B's rows, the scales' blocks; C = +0
// (an empty C).
struct SubProblem {
  std::vector<uint64_t> A, sa, sb;
  MmaProblem p;
};

void make_sub(const MmaProblem& prob, int k0, int kc, SubProblem& s) {
  const size_t M = static_cast<size_t>(prob.M), N = static_cast<size_t>(prob.N), K = static_cast<size_t>(prob.K);
  s.A.resize(M * static_cast<size_t>(kc));
  for (size_t m = 0; m < M; ++m)
    std::copy_n(prob.A.begin() + static_cast<std::ptrdiff_t>(m * K + static_cast<size_t>(k0)), kc,
                s.A.begin() + static_cast<std::ptrdiff_t>(m * static_cast<size_t>(kc)));
  s.p = prob;
  s.p.K = kc;
  s.p.A = s.A;
  s.p.B = prob.B.subspan(static_cast<size_t>(k0) * N, static_cast<size_t>(kc) * N);
  s.p.C = {};
  if (prob.scale_type) {
    const size_t blk = static_cast<size_t>(prob.scale_block), kb = K / blk, b0 = static_cast<size_t>(k0) / blk,
                 nb = static_cast<size_t>(kc) / blk;
    s.sa.resize(M * nb);
    s.sb.resize(N * nb);
    for (size_t m = 0; m < M; ++m)
      std::copy_n(prob.sa.begin() + static_cast<std::ptrdiff_t>(m * kb + b0), nb,
                  s.sa.begin() + static_cast<std::ptrdiff_t>(m * nb));
    for (size_t n = 0; n < N; ++n)
      std::copy_n(prob.sb.begin() + static_cast<std::ptrdiff_t>(n * kb + b0), nb,
                  s.sb.begin() + static_cast<std::ptrdiff_t>(n * nb));
    s.p.sa = s.sa;
    s.p.sb = s.sb;
  }
}

}  // namespace

uint32_t epilogue_f32(const Epilogue& ep, uint32_t acc, uint32_t c, uint32_t sa, uint32_t sb, bool has_bias,
                      uint32_t bias) {
  const bool use_c = !is_zero_f32(ep.beta);
  uint32_t t = 0;
  switch (ep.order) {
    case EpilogueOrder::fold: {
      const uint32_t g = f32_mul(f32_mul(sa, sb), ep.alpha);
      t = f32_mul(g, acc);
      if (use_c) t = f32_fma(ep.beta, c, t);
      if (has_bias) t = f32_add(t, bias);
      break;
    }
    case EpilogueOrder::cutlass_sm90: {
      const uint32_t g = f32_mul(f32_mul(sa, sb), ep.alpha);
      t = has_bias ? f32_fma(g, acc, bias) : f32_mul(g, acc);
      if (use_c) t = f32_fma(ep.beta, c, t);
      break;
    }
    case EpilogueOrder::cutlass_2x:
      t = use_c ? f32_fma(ep.alpha, acc, f32_mul(ep.beta, c)) : f32_mul(ep.alpha, acc);
      break;
    case EpilogueOrder::sequential:
      t = f32_mul(f32_mul(f32_mul(acc, sa), sb), ep.alpha);
      if (use_c) t = f32_fma(ep.beta, c, t);
      if (has_bias) t = f32_add(t, bias);
      break;
  }
  return t;
}

std::string check_plan(const InstrEntry& e, const MmaProblem& prob, const GemmPlan& plan) {
  if (e.dtype == AccType::s32)
    return "gemm takes instructions that accumulate in f32 or f16; " + e.ptx + " accumulates in s32";
  if (!plan.mma.scale_d || plan.mma.scale_input_d != -1)
    return "gemm runs each chunk from +0: scale_d and scale_input_d are not options of a GEMM plan";
  if (prob.M < 1 || prob.N < 1 || prob.K < 1)
    return "M, N and K must be at least 1 (M = " + std::to_string(prob.M) + ", N = " + std::to_string(prob.N) +
           ", K = " + std::to_string(prob.K) + ")";
  const size_t M = static_cast<size_t>(prob.M), N = static_cast<size_t>(prob.N), K = static_cast<size_t>(prob.K);
  if (prob.A.size() != M * K) return "A holds " + sz(prob.A.size()) + " codes; M x K = " + sz(M * K);
  if (prob.B.size() != K * N) return "B holds " + sz(prob.B.size()) + " codes; K x N = " + sz(K * N);
  if (!prob.C.empty() && prob.C.size() != M * N)
    return "C holds " + sz(prob.C.size()) + " codes; M x N = " + sz(M * N);
  if (K % static_cast<size_t>(e.K))
    return "K = " + sz(K) + " does not tile into " + e.ptx + " (K = " + std::to_string(e.K) + " per instruction)";
  if (prob.scale_type) {
    if (prob.scale_block < 1 || K % static_cast<size_t>(prob.scale_block))
      return "K = " + sz(K) + " is not a multiple of the scale block " + std::to_string(prob.scale_block);
    const size_t kb = K / static_cast<size_t>(prob.scale_block);
    if (prob.sa.size() != M * kb) return "scale_a holds " + sz(prob.sa.size()) + " scales; M x K/block = " + sz(M * kb);
    if (prob.sb.size() != N * kb) return "scale_b holds " + sz(prob.sb.size()) + " scales; N x K/block = " + sz(N * kb);
  }
  if (plan.chunks.size() > static_cast<size_t>(kMaxSplits))
    return "chunks: " + sz(plan.chunks.size()) + " chunks; at most " + std::to_string(kMaxSplits);
  long long total = 0;
  const int unit = prob.scale_type ? std::max(e.K, prob.scale_block) : e.K;
  for (size_t j = 0; j < plan.chunks.size(); ++j) {
    const int c = plan.chunks[j];
    if (c < 0) return "chunks[" + sz(j) + "] = " + std::to_string(c) + " is negative";
    if (c % e.K || (prob.scale_type && c % prob.scale_block))
      return "chunks[" + sz(j) + "] = " + std::to_string(c) + " is not a multiple of " + std::to_string(unit) +
             " (the instruction's K" + (prob.scale_type ? std::string(" and the scale block") : std::string()) + ")";
    total += c;
  }
  if (!plan.chunks.empty() && total != prob.K)
    return "chunks sum to " + std::to_string(total) + "; K = " + std::to_string(prob.K);
  const Epilogue& ep = plan.epilogue;
  if (!out_type_ok(ep.out_type))
    return "out_type: " + std::string(info(ep.out_type).name) + " is not an output of a GEMM (f32, bf16, f16, e4m3, e5m2)";
  if (ep.out_round == Round::rs) return "out_round: stochastic rounding needs random bits; a GEMM output takes rn, rz, rd, ru or rna";
  if (ep.a_scale.size() > 1 && ep.a_scale.size() != M)
    return "a_scale: " + sz(ep.a_scale.size()) + " values; one (per tensor) or M = " + sz(M) + " (one per row)";
  if (ep.b_scale.size() > 1 && ep.b_scale.size() != N)
    return "b_scale: " + sz(ep.b_scale.size()) + " values; one (per tensor) or N = " + sz(N) + " (one per column)";
  if (!ep.bias.empty() && ep.bias.size() != N) return "bias: " + sz(ep.bias.size()) + " values; N = " + sz(N);
  if (ep.order == EpilogueOrder::cutlass_2x && (!ep.a_scale.empty() || !ep.b_scale.empty() || !ep.bias.empty()))
    return "epilogue cutlass-2x (LinearCombination) takes no scales and no bias; use fold, cutlass-sm90 or sequential";
  if (plan.combine == Combine::cutlass_serial && ep.order != EpilogueOrder::cutlass_2x)
    return "cutlass-serial split-K runs CUTLASS 2.x LinearCombination: its epilogue is cutlass-2x, not " +
           std::string(to_string(ep.order));
  return "";
}

GemmResult gemm(const InstrEntry& e, const MmaProblem& prob, const GemmPlan& plan, const Exec& exec) {
  GemmResult res;
  res.error = check_plan(e, prob, plan);
  if (!res.error.empty()) return res;
  const size_t M = static_cast<size_t>(prob.M), N = static_cast<size_t>(prob.N), MN = M * N;
  const std::vector<int> chunks = chunks_of(plan, prob.K);
  const Epilogue& ep = plan.epilogue;

  ConvertOptions oo;
  oo.round = ep.out_round;
  oo.satfinite = ep.satfinite;
  const Converter out(Fmt::f32, ep.out_type, oo);
  const Converter back(ep.out_type, Fmt::f32, ConvertOptions{});
  const bool one_chain = plan.chunks.empty();
  Epilogue later = ep;  // cutlass-serial's partitions after the first: beta = 1, source = D
  later.beta = kOne;
  const bool has_bias = !ep.bias.empty();
  auto scale_a = [&](size_t m) { return ep.a_scale.empty() ? kOne : ep.a_scale[ep.a_scale.size() == 1 ? 0 : m]; };
  auto scale_b = [&](size_t n) { return ep.b_scale.empty() ? kOne : ep.b_scale[ep.b_scale.size() == 1 ? 0 : n]; };
  auto bias_of = [&](size_t n) { return has_bias ? ep.bias[n] : 0u; };
  auto c_of = [&](size_t i) { return prob.C.empty() ? 0u : static_cast<uint32_t>(prob.C[i]); };
  // Element-wise a[i] = a[i] + b[i] (f32, RNE), over the rows on the threads.
  auto add_into = [&](std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    parallel_for(M, exec, [&](size_t m) {
      for (size_t i = m * N; i < (m + 1) * N; ++i) a[i] = f32_add(a[i], b[i]);
    });
  };

  // Each chunk's partial (f32 codes; f16 accumulators widen exactly) is folded in as soon as it
  // is computed: the running sum (forward, parallel), D (serial), or the pairwise tree held as
  // a stack of complete blocks of 1, 2, 4, ... partials (at most log2(s) + 1 of them).
  std::vector<uint32_t> acc;
  std::vector<std::pair<std::vector<uint32_t>, size_t>> tree;
  res.D.assign(MN, 0);
  SubProblem sub;
  int k0 = 0;
  for (size_t j = 0; j < chunks.size(); ++j) {
    std::vector<uint32_t> p(MN, 0);
    if (chunks[j] > 0) {
      make_sub(prob, k0, chunks[j], sub);
      const MmaResult r = mma(sub.p.with(e, plan.mma), exec);
      if (!r.error.empty()) {
        res.error = r.error;
        res.D.clear();
        return res;
      }
      const ConvertOptions exact;
      for (size_t i = 0; i < MN; ++i)
        p[i] = e.dtype == AccType::f16 ? static_cast<uint32_t>(convert(Fmt::f16, Fmt::f32, r.D[i], exact).code)
                                       : static_cast<uint32_t>(r.D[i]);
    }
    k0 += chunks[j];
    if (one_chain) {
      acc = std::move(p);
      continue;
    }
    switch (plan.combine) {
      case Combine::f32_forward:
        if (j == 0) acc = std::move(p);
        else add_into(acc, p);
        break;
      case Combine::cutlass_parallel:
        if (j == 0) acc.assign(MN, 0);  // ReduceSplitK: accumulator.clear()
        add_into(acc, p);
        break;
      case Combine::cutlass_serial:
        parallel_for(M, exec, [&](size_t m) {
          for (size_t n = 0; n < N; ++n) {
            const size_t i = m * N + n;
            res.D[i] = j == 0 ? out(epilogue_f32(ep, p[i], c_of(i), scale_a(m), scale_b(n), has_bias, bias_of(n))).code
                              : out(epilogue_f32(later, p[i], static_cast<uint32_t>(back(res.D[i]).code), scale_a(m),
                                                 scale_b(n), has_bias, bias_of(n)))
                                    .code;
          }
        });
        break;
      case Combine::f32_tree:
        tree.emplace_back(std::move(p), 1);
        while (tree.size() >= 2 && tree[tree.size() - 2].second == tree.back().second) {
          add_into(tree[tree.size() - 2].first, tree.back().first);
          tree[tree.size() - 2].second *= 2;
          tree.pop_back();
        }
        break;
    }
  }
  if (!one_chain && plan.combine == Combine::cutlass_serial) return res;
  if (!one_chain && plan.combine == Combine::f32_tree) {
    // The blocks left (sizes falling left to right) join from the right: the level-by-level
    // pairing with an odd last one carried up gives exactly these sums.
    while (tree.size() > 1) {
      add_into(tree[tree.size() - 2].first, tree.back().first);
      tree.pop_back();
    }
    acc = std::move(tree[0].first);
  }
  // ReduceSplitK calls the two-operand LinearCombination with a cleared (+0) source when beta
  // is 0: fma(alpha, acc, beta * +0), not alpha * acc (they differ for a -0 product).
  // (Only with that epilogue: another order given with the parallel combine is applied as it is.)
  const bool cleared_source = !one_chain && plan.combine == Combine::cutlass_parallel &&
                              ep.order == EpilogueOrder::cutlass_2x && is_zero_f32(ep.beta);
  parallel_for(M, exec, [&](size_t m) {
    for (size_t n = 0; n < N; ++n) {
      const size_t i = m * N + n;
      res.D[i] = cleared_source ? out(f32_fma(ep.alpha, acc[i], f32_mul(ep.beta, 0))).code
                                : out(epilogue_f32(ep, acc[i], c_of(i), scale_a(m), scale_b(n), has_bias, bias_of(n))).code;
    }
  });
  return res;
}

}  // namespace tcemu
