// Whole-matrix MMA: the fast path (mma_fast.cpp) where it applies, else the generic loop
// here: A and B are decoded once (B transposed so that both walk K contiguously), then every
// D element is one chained dot product of the step functions of datapath.cpp.
#include "tcemu/mma.hpp"

#include <algorithm>
#include <vector>

#include "mma_fast.hpp"

namespace tcemu {

namespace {

std::string check(const DatapathParams& p, const MmaProblem& pr, int instr_k) {
  if (pr.M < 1 || pr.N < 1 || pr.K < 1) return "M, N and K must be positive";
  if (instr_k < 1 || pr.K % instr_k != 0)
    return "K = " + std::to_string(pr.K) + " is not a multiple of the instruction's K = " + std::to_string(instr_k);
  if (instr_k % p.L != 0 && p.L % instr_k != 0) return "instruction K and L do not nest";
  if (p.kpair_halves && instr_k != 2 * p.L) return "k-pair halves: the instruction's K must be 2L";
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  if (pr.A.size() != M * K) return "A must hold M*K codes";
  if (pr.B.size() != K * N) return "B must hold K*N codes";
  if (pr.C.size() != M * N) return "C must hold M*N codes";
  if (std::string e = validate(p, pr.atype, pr.btype, pr.scale_type); !e.empty()) return e;
  const bool scaled = p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa;
  if (scaled) {
    if (!pr.scale_type || pr.scale_block < 1) return "block-scaled datapath needs a scale type and block size";
    if (K % static_cast<size_t>(pr.scale_block) != 0) return "K must be a multiple of the scale block";
    const size_t nb = K / static_cast<size_t>(pr.scale_block);
    if (pr.sa.size() != M * nb || pr.sb.size() != N * nb) return "scales must hold M*(K/block) and N*(K/block) codes";
    if (p.kind == DatapathKind::gst_fdpa && pr.scale_block % p.group != 0 && p.group % pr.scale_block != 0)
      return "scale block and group do not nest";
    if (p.kind == DatapathKind::gst_fdpa && pr.scale_block < p.group) return "GST-FDPA: scale block smaller than the group";
  }
  return "";
}

}  // namespace

namespace detail {

Operand negated(Operand o, bool neg) {
  if (neg) o.neg ^= 1;
  return o;
}

uint64_t scale_c(uint64_t c, Fmt acc, int s) {
  const Operand o = decode_operand(acc, c);
  if (o.special || o.sig == 0 || s <= 0) return c;
  return round_to_float(o.neg, o.sig, o.low - s, false, acc, false);
}

}  // namespace detail

using detail::negated;
using detail::scale_c;

namespace {

// The generic loop's operands: A and B decoded once (B transposed so that both walk K
// contiguously), in the order the steps take them (within each instruction, k-pair halves
// permute k: instruction_k_order; otherwise k order), and the scales expanded to what the
// step functions index: one per term (ST-FDPA) or per group (GST-FDPA).
struct DecodedProblem {
  std::vector<Operand> A, Bt, SA, SB;
  size_t sper = 0;  // scales per row of A / column of B after expansion
};

DecodedProblem decode_problem(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  const std::vector<size_t> korder = instruction_k_order(p, static_cast<size_t>(instr_k));
  auto k_of = [&](size_t j) { return j - j % korder.size() + korder[j % korder.size()]; };
  auto dec = [&](Fmt f, uint64_t code, bool neg) {
    const Operand o = decode_operand(f, code);
    return negated(p.widen_to_f16 ? widened_to_f16(o) : o, neg);
  };
  DecodedProblem d;
  d.A.resize(M * K);
  d.Bt.resize(N * K);
  for (size_t m = 0; m < M; ++m)
    for (size_t j = 0; j < K; ++j) d.A[m * K + j] = dec(pr.atype, pr.A[m * K + k_of(j)], opt.negate_a);
  for (size_t j = 0; j < K; ++j)
    for (size_t n = 0; n < N; ++n) d.Bt[n * K + j] = dec(pr.btype, pr.B[k_of(j) * N + n], opt.negate_b);
  if (p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa) {
    const size_t blk = static_cast<size_t>(pr.scale_block), nb = K / blk;
    const size_t unit = p.kind == DatapathKind::st_fdpa ? 1 : static_cast<size_t>(p.group);
    d.sper = K / unit;
    d.SA.resize(M * d.sper);
    d.SB.resize(N * d.sper);
    for (size_t m = 0; m < M; ++m)
      for (size_t j = 0; j < d.sper; ++j) d.SA[m * d.sper + j] = decode_operand(*pr.scale_type, pr.sa[m * nb + j * unit / blk]);
    for (size_t n = 0; n < N; ++n)
      for (size_t j = 0; j < d.sper; ++j) d.SB[n * d.sper + j] = decode_operand(*pr.scale_type, pr.sb[n * nb + j * unit / blk]);
  }
  return d;
}

// How the steps of one D element chain: the step length (L terms, or a whole instruction
// whose K is below L: its missing terms are zero products, sm_90 m16n8k8 f16 runs a 16-term
// datapath), the accumulator format, C added after the instruction, FP32 promotion.
struct Chain {
  size_t K, L, per_instr, promote;  // promote in k; 0 = off
  Fmt acc;
  bool is_int, after_instr;
};

// D element (m, n): its steps chained over K from the starting accumulator c.
uint64_t chain_element(const DatapathParams& p, const DecodedProblem& dc, const Chain& ch, size_t m, size_t n, uint64_t c) {
  const size_t K = ch.K, L = ch.L;
  const Operand* a = &dc.A[m * K];
  const Operand* b = &dc.Bt[n * K];
  uint64_t accum = c;                // f32 promotion accumulator (promote > 0)
  uint64_t d = ch.promote ? 0 : c;   // the tensor-core accumulator
  uint64_t chain = 0;                // C added after the instruction: its steps' chain
  for (size_t k = 0; k < K; k += L) {
    const size_t len = std::min(L, K - k);
    if (ch.after_instr) {
      // The instruction's steps chain from +0; its result is added to D after its last step.
      chain = fdpa_step_decoded(p, a + k, b + k, len, k % ch.per_instr == 0 ? 0 : chain);
      if ((k + len) % ch.per_instr == 0) d = add_rne(ch.acc, d, chain);
    } else {
      switch (p.kind) {
        case DatapathKind::t_fdpa: d = fdpa_step_decoded(p, a + k, b + k, len, d); break;
        case DatapathKind::st_fdpa:
          d = fdpa_step_decoded(p, a + k, b + k, len, d, &dc.SA[m * dc.sper + k], &dc.SB[n * dc.sper + k]);
          break;
        case DatapathKind::gst_fdpa: {
          const size_t g0 = k / static_cast<size_t>(p.group);
          d = gst_step_decoded(p, a + k, b + k, len, d, &dc.SA[m * dc.sper + g0], &dc.SB[n * dc.sper + g0]);
          break;
        }
        case DatapathKind::integer: d = int_step_decoded(p, a + k, b + k, len, d); break;
      }
    }
    if (ch.promote && (k + len) % ch.promote == 0) {
      accum = f32_add_rne(static_cast<uint32_t>(accum), static_cast<uint32_t>(d));
      d = 0;
    }
  }
  if (ch.promote && K % ch.promote != 0) accum = f32_add_rne(static_cast<uint32_t>(accum), static_cast<uint32_t>(d));
  return ch.promote ? accum : d;
}

}  // namespace

MmaResult mma_params(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  MmaResult r;
  if (std::string e = check(p, pr, instr_k); !e.empty()) {
    r.error = e;
    return r;
  }
  if (opt.scale_input_d > 15) {
    r.error = "scale-input-d must be in 0..15";
    return r;
  }
  if (auto fast = detail::mma_fast(p, pr, instr_k, opt)) return std::move(*fast);
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  const DecodedProblem dc = decode_problem(p, pr, instr_k, opt);
  Chain ch;
  ch.K = K;
  ch.L = std::min(static_cast<size_t>(p.L), static_cast<size_t>(instr_k));
  ch.per_instr = static_cast<size_t>(instr_k);
  ch.is_int = p.kind == DatapathKind::integer;
  ch.acc = ch.is_int ? Fmt::f32 : output_format(p.rounding);
  ch.after_instr = p.c_entry == CEntry::rne_after_instruction;
  ch.promote = opt.promote_every > 0 ? static_cast<size_t>(opt.promote_every) * ch.per_instr : 0;
  r.D.resize(M * N);
  // Columns in blocks whose decoded B stays in cache while every row of A passes over it.
  const size_t nblock = std::max<size_t>(1, (size_t{192} << 10) / (K * sizeof(Operand)));
  for (size_t n0 = 0; n0 < N; n0 += nblock)
    for (size_t m = 0; m < M; ++m)
      for (size_t n = n0; n < std::min(N, n0 + nblock); ++n) {
        uint64_t c = opt.scale_d ? pr.C[m * N + n] : 0;
        if (opt.scale_input_d >= 0 && !ch.is_int) c = scale_c(c, ch.acc, opt.scale_input_d);
        r.D[m * N + n] = chain_element(p, dc, ch, m, n, c);
      }
  return r;
}

MmaResult mma(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt) {
  MmaResult r;
  if (pr.atype != e.atype || pr.btype != e.btype) {
    r.error = "operand types differ from the instruction's (" + std::string(info(e.atype).name) + ", " +
              std::string(info(e.btype).name) + ")";
    return r;
  }
  if (e.scale_type && (pr.scale_type != e.scale_type || pr.scale_block != e.scale_block)) {
    r.error = "scales must be " + std::string(info(*e.scale_type).name) + " per " + std::to_string(e.scale_block) + " elements";
    return r;
  }
  if (opt.promote_every > 0 && e.dtype != AccType::f32) {
    r.error = "FP32 promotion needs an f32 accumulator";
    return r;
  }
  return mma_params(e.params, pr, e.K, opt);
}

MmaResult mma_dot(const InstrEntry& e, std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t c,
                  std::span<const uint64_t> sa, std::span<const uint64_t> sb, const MmaOptions& opt) {
  MmaProblem p;
  p.M = 1;
  p.N = 1;
  p.K = static_cast<int>(a.size());
  p.atype = e.atype;
  p.btype = e.btype;
  p.A = a;
  p.B = b;
  const uint64_t C[1] = {c};
  p.C = C;
  p.scale_type = e.scale_type;
  p.scale_block = e.scale_block;
  p.sa = sa;
  p.sb = sb;
  return mma(e, p, opt);
}

}  // namespace tcemu
