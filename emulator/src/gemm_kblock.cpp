// The K-block-scaled GEMM (see gemm_kblock.hpp).
#include "tcemu/gemm_kblock.hpp"

#include <algorithm>

#include "tcemu/mma.hpp"

namespace tcemu {

std::string kblock_error(const InstrEntry& e, const MmaProblem& prob, const KBlockScaling& s) {
  if (s.block < 1 || s.block % e.K)
    return "block: " + std::to_string(s.block) + " is not a positive multiple of the instruction's K (" +
           std::to_string(e.K) + ")";
  if (prob.scale_type) return "the instruction must not be block-scaled itself (its scales are per 16 or 32)";
  if (!prob.C.empty()) return "C: a K-block-scaled GEMM takes no C";
  if (prob.K % e.K) return "K = " + std::to_string(prob.K) + " does not tile into the instruction's K";
  const size_t nb = (static_cast<size_t>(prob.K) + s.block - 1) / s.block;
  if (s.sa.size() != static_cast<size_t>(prob.M) * nb)
    return "scale_a: " + std::to_string(s.sa.size()) + " scales; M x ceil(K/block) = " +
           std::to_string(static_cast<size_t>(prob.M) * nb) + " needed";
  if (s.sb.size() != static_cast<size_t>(prob.N) * nb)
    return "scale_b: " + std::to_string(s.sb.size()) + " scales; ceil(K/block) x N = " +
           std::to_string(static_cast<size_t>(prob.N) * nb) + " needed";
  if (!s.bias.empty() && s.bias.size() != static_cast<size_t>(prob.N))
    return "bias: " + std::to_string(s.bias.size()) + " values; N = " + std::to_string(prob.N) + " needed";
  if (s.out_type != Fmt::f32 && s.out_type != Fmt::bf16 && s.out_type != Fmt::f16 && s.out_type != Fmt::e4m3 &&
      s.out_type != Fmt::e5m2)
    return "out_type: " + std::string(info(s.out_type).name) + " (one of f32, bf16, f16, e4m3, e5m2)";
  return {};
}

GemmResult gemm_kblock(const InstrEntry& e, const MmaProblem& prob, const KBlockScaling& s, const MmaOptions& opt,
                       const Exec& exec) {
  GemmResult res;
  res.error = kblock_error(e, prob, s);
  if (!res.error.empty()) return res;
  const size_t M = static_cast<size_t>(prob.M), N = static_cast<size_t>(prob.N), K = static_cast<size_t>(prob.K);
  const size_t nb = (K + s.block - 1) / s.block;
  // acc = +0; for each K block: p = the chain over the block from +0; acc = fma(sa * sb, p, acc).
  std::vector<uint32_t> acc(M * N, 0);
  std::vector<uint64_t> a_blk, b_blk;
  const std::vector<uint64_t> zero_c(M * N, 0);  // each block chains from +0
  for (size_t j = 0; j < nb; ++j) {
    const size_t k0 = j * s.block, kc = std::min(K, k0 + s.block) - k0;
    a_blk.resize(M * kc);
    b_blk.resize(kc * N);
    for (size_t m = 0; m < M; ++m) std::copy_n(prob.A.begin() + m * K + k0, kc, a_blk.begin() + m * kc);
    std::copy_n(prob.B.begin() + k0 * N, kc * N, b_blk.begin());
    MmaProblem sub = prob;
    sub.K = static_cast<int>(kc);
    sub.A = a_blk;
    sub.B = b_blk;
    sub.C = zero_c;
    const MmaResult r = mma(sub.with(e, opt), exec);
    if (!r.error.empty()) {
      res.error = r.error;
      return res;
    }
    const ConvertOptions exact;
    parallel_for(M, exec, [&](size_t m) {
      for (size_t n = 0; n < N; ++n) {
        const size_t i = m * N + n;
        const uint32_t p = e.dtype == AccType::f16 ? static_cast<uint32_t>(convert(Fmt::f16, Fmt::f32, r.D[i], exact).code)
                                                   : static_cast<uint32_t>(r.D[i]);
        acc[i] = f32_fma(f32_mul(s.sa[m * nb + j], s.sb[n * nb + j]), p, acc[i]);
      }
    });
  }
  ConvertOptions oo;
  oo.round = s.out_round;
  oo.satfinite = s.satfinite;
  const Converter out(Fmt::f32, s.out_type, oo);
  res.D.assign(M * N, 0);
  parallel_for(M, exec, [&](size_t m) {
    for (size_t n = 0; n < N; ++n) {
      const size_t i = m * N + n;
      const uint32_t t = s.bias.empty() ? acc[i] : f32_add(acc[i], s.bias[n]);
      res.D[i] = out(t).code;
    }
  });
  return res;
}

}  // namespace tcemu
