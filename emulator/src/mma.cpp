// Whole-matrix MMA: the fast path (mma_fast.cpp) where it applies, else the generic loop
// here: A and B are decoded once (B transposed so that both walk K contiguously), then every
// D element is one chained dot product of the steps of dp_steps.hpp (dp_matrix.hpp's layout,
// the same code the CUDA kernels run).
#include "tcemu/mma.hpp"

#include <algorithm>
#include <vector>

#include "dp_host.hpp"
#include "mma_checks.hpp"
#include "mma_fast.hpp"
#include "mma_prepared.hpp"

namespace tcemu {

namespace detail {

ProblemShape shape_of(const MmaProblem& pr) {
  return ProblemShape{pr.M,          pr.N,          pr.K,          pr.atype,     pr.btype,     pr.scale_type,
                      pr.scale_block, pr.A.size(), pr.B.size(), pr.C.size(), pr.sa.size(), pr.sb.size()};
}

std::string check_problem(const DatapathParams& p, const ProblemShape& pr, int instr_k, const MmaOptions& opt) {
  if (pr.M < 1 || pr.N < 1 || pr.K < 1) return "M, N and K must be positive";
  if (instr_k < 1 || pr.K % instr_k != 0)
    return "K = " + std::to_string(pr.K) + " is not a multiple of the instruction's K = " + std::to_string(instr_k);
  if (instr_k % p.L != 0 && p.L % instr_k != 0) return "instruction K and L do not nest";
  if (p.kpair_halves && instr_k != 2 * p.L) return "k-pair halves: the instruction's K must be 2L";
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  if (pr.nA != M * K) return "A must hold M*K codes";
  if (pr.nB != K * N) return "B must hold K*N codes";
  if (pr.nC != M * N) return "C must hold M*N codes";
  if (std::string e = validate(p, pr.atype, pr.btype, pr.scale_type); !e.empty()) return e;
  const bool scaled = p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa;
  if (scaled) {
    if (!pr.scale_type || pr.scale_block < 1) return "block-scaled datapath needs a scale type and block size";
    if (K % static_cast<size_t>(pr.scale_block) != 0) return "K must be a multiple of the scale block";
    const size_t nb = K / static_cast<size_t>(pr.scale_block);
    if (pr.nsa != M * nb || pr.nsb != N * nb) return "scales must hold M*(K/block) and N*(K/block) codes";
    if (p.kind == DatapathKind::gst_fdpa && pr.scale_block % p.group != 0 && p.group % pr.scale_block != 0)
      return "scale block and group do not nest";
    if (p.kind == DatapathKind::gst_fdpa && pr.scale_block < p.group) return "GST-FDPA: scale block smaller than the group";
  }
  if (opt.scale_input_d > 15) return "scale-input-d must be in 0..15";
  return "";
}

std::string check_entry(const InstrEntry& e, const ProblemShape& pr, const MmaOptions& opt) {
  if (pr.atype != e.atype || pr.btype != e.btype)
    return "operand types differ from the instruction's (" + std::string(info(e.atype).name) + ", " +
           std::string(info(e.btype).name) + ")";
  if (e.scale_type && (pr.scale_type != e.scale_type || pr.scale_block != e.scale_block))
    return "scales must be " + std::string(info(*e.scale_type).name) + " per " + std::to_string(e.scale_block) + " elements";
  if (opt.promote_every > 0 && e.dtype != AccType::f32) return "FP32 promotion needs an f32 accumulator";
  return "";
}

std::string check_instr_problem(const InstrEntry& e, const ProblemShape& pr, const MmaOptions& opt) {
  if (std::string err = check_entry(e, pr, opt); !err.empty()) return err;
  return check_problem(e.params, pr, e.K, opt);
}

Operand negated(Operand o, bool neg) {
  if (neg) o.neg ^= 1;
  return o;
}

uint64_t scale_c(uint64_t c, Fmt acc, int s) { return dp::scale_c(c, acc == Fmt::f16, s); }

}  // namespace detail

namespace detail {

namespace {

// The generic loop: A and B decoded once into the step order (dp::decode_on_host; B
// transposed so that both walk K contiguously), then every D element one chain of steps
// (dp::chain_element), as the CUDA kernels compute it.
class GenericMma final : public PreparedMma {
 public:
  GenericMma(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt)
      : korder_(dp::korder_table(p, instr_k)),
        dparams_(dp::decode_params(p, pr.M, pr.N, pr.K, pr.atype, pr.btype, pr.scale_type, pr.scale_block, instr_k,
                                   opt, korder_.empty() ? nullptr : korder_.data())),
        dc_(dp::decode_on_host(dparams_, pr)),
        sp_(dp::step_params(p)),
        ch_(dp::chain_params(p, pr.K, instr_k, opt)),
        C_(pr.C),
        N_(static_cast<size_t>(pr.N)),
        K_(static_cast<size_t>(pr.K)) {}

  void run(const DTile& t, uint64_t* D) const override {
    const size_t N = N_, K = K_, sper = static_cast<size_t>(dparams_.sper);
    // Columns in blocks whose decoded B stays in cache while every row of A passes over it.
    const size_t nblock = std::max<size_t>(1, (size_t{192} << 10) / (K * sizeof(Operand)));
    for (size_t n0 = t.n0; n0 < t.n1; n0 += nblock)
      for (size_t m = t.m0; m < t.m1; ++m)
        for (size_t n = n0; n < std::min(t.n1, n0 + nblock); ++n) {
          const Operand* sa = sper ? &dc_.SA[m * sper] : nullptr;
          const Operand* sb = sper ? &dc_.SB[n * sper] : nullptr;
          D[m * N + n] = dp::chain_element(sp_, ch_, &dc_.A[m * K], &dc_.Bt[n * K], sa, sb, dp::start_c(ch_, C_[m * N + n]));
        }
  }

 private:
  std::vector<int32_t> korder_;  // dparams_ points into it
  dp::DecodeParams dparams_;
  dp::HostDecoded dc_;
  dp::StepParams sp_;
  dp::ChainParams ch_;
  std::span<const uint64_t> C_;
  size_t N_, K_;
};

}  // namespace

std::unique_ptr<PreparedMma> prepare_mma(const DatapathParams& p, const MmaProblem& pr, int instr_k,
                                         const MmaOptions& opt, const Exec& exec) {
  if (std::unique_ptr<PreparedMma> fast = prepare_fast(p, pr, instr_k, opt, exec)) return fast;
  return std::make_unique<GenericMma>(p, pr, instr_k, opt);
}

std::vector<uint64_t> compute_all(const PreparedMma& prep, size_t M, size_t N) {
  std::vector<uint64_t> D(M * N);
  prep.run(DTile{0, M, 0, N}, D.data());
  return D;
}

}  // namespace detail

MmaResult mma_params(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  MmaResult r;
  if (std::string e = detail::check_problem(p, detail::shape_of(pr), instr_k, opt); !e.empty()) {
    r.error = e;
    return r;
  }
  r.D = detail::compute_all(*detail::prepare_mma(p, pr, instr_k, opt, Exec{1}), static_cast<size_t>(pr.M),
                             static_cast<size_t>(pr.N));
  return r;
}

MmaResult mma(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt) {
  if (std::string err = detail::check_entry(e, detail::shape_of(pr), opt); !err.empty()) {
    MmaResult r;
    r.error = err;
    return r;
  }
  return mma_params(e.params, pr, e.K, opt);
}

MmaProblem make_problem(const InstrEntry& e, int M, int N, int K, std::span<const uint64_t> A,
                        std::span<const uint64_t> B, std::span<const uint64_t> C, std::span<const uint64_t> sa,
                        std::span<const uint64_t> sb) {
  MmaProblem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.atype = e.atype;
  p.btype = e.btype;
  p.A = A;
  p.B = B;
  p.C = C;
  if (e.scale_type) {
    p.scale_type = e.scale_type;
    p.scale_block = e.scale_block;
    p.sa = sa;
    p.sb = sb;
  }
  return p;
}

MmaResult mma_dot(const InstrEntry& e, std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t c,
                  std::span<const uint64_t> sa, std::span<const uint64_t> sb, const MmaOptions& opt) {
  const uint64_t C[1] = {c};
  return mma(e, make_problem(e, 1, 1, static_cast<int>(a.size()), a, b, C, sa, sb), opt);
}

}  // namespace tcemu
