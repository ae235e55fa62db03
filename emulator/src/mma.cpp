// Whole-matrix MMA: the fast path (mma_fast.cpp) where it applies, else the generic loop
// here: A and B are decoded once (B transposed so that both walk K contiguously), then every
// D element is one chained dot product of the steps of dp_steps.hpp (dp_matrix.hpp's layout,
// the same code the CUDA kernels run).
#include "tcemu/mma.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "dp_host.hpp"
#include "mma_checks.hpp"
#include "mma_fast.hpp"
#include "mma_prepared.hpp"
#include "mma_tiles.hpp"

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
  if (pr.nC != 0 && pr.nC != M * N) return "C must hold M*N codes (or none: C = +0)";
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

std::string check_mma(const MmaInstr& in, const ProblemShape& pr, const MmaOptions& opt) {
  if (in.entry) {
    if (in.params != in.entry->params || in.instr_k != in.entry->K)
      return "the datapath parameters differ from the instruction's (give the entry or the parameters, not both)";
    if (std::string err = check_entry(*in.entry, pr, opt); !err.empty()) return err;
  }
  return check_problem(in.params, pr, in.instr_k, opt);
}

namespace {
CudaMmaFn g_cuda_mma = nullptr;  // constant-initialised: set before main by tcemu_cuda's registrar
}  // namespace

CudaBackendRegistrar::CudaBackendRegistrar(CudaMmaFn f) { g_cuda_mma = f; }

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

  void run(const DTile& t, CodeSink D) const override {
    const size_t N = N_, K = K_, sper = static_cast<size_t>(dparams_.sper);
    // Columns in blocks whose decoded B stays in cache while every row of A passes over it.
    const size_t nblock = std::max<size_t>(1, (size_t{192} << 10) / (K * sizeof(Operand)));
    for (size_t n0 = t.n0; n0 < t.n1; n0 += nblock)
      for (size_t m = t.m0; m < t.m1; ++m)
        for (size_t n = n0; n < std::min(t.n1, n0 + nblock); ++n) {
          const Operand* sa = sper ? &dc_.SA[m * sper] : nullptr;
          const Operand* sb = sper ? &dc_.SB[n * sper] : nullptr;
          D.put(m * N + n, dp::chain_element(sp_, ch_, &dc_.A[m * K], &dc_.Bt[n * K], sa, sb, dp::start_c(ch_, C_.empty() ? 0 : C_[m * N + n])));
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

CodeVector compute_all(const PreparedMma& prep, size_t M, size_t N, int width) {
  CodeVector D(M * N, width);
  prep.run(DTile{0, M, 0, N}, D.sink());
  return D;
}

}  // namespace detail

MmaResult mma(const MmaProblem& pr, Exec exec, const MmaProgress& progress) {
  if (exec.device.kind == DeviceSpec::Kind::cuda) {
    if (!detail::g_cuda_mma)
      return MmaResult{{}, "this program has no CUDA backend (it does not link the library tcemu_cuda)"};
    return detail::g_cuda_mma(pr, exec.device.index);
  }
  if (pr.device_operands)
    return MmaResult{{}, "the operands are in GPU memory: compute on a CUDA device (Exec::device)"};
  if (std::string err = detail::check_mma(pr.instr, detail::shape_of(pr), pr.options); !err.empty())
    return MmaResult{{}, std::move(err)};
  const int threads = thread_count(exec);
  exec.threads = threads;
  const std::unique_ptr<detail::PreparedMma> prep =
      detail::prepare_mma(pr.instr.params, pr, pr.instr.instr_k, pr.options, exec);
  MmaResult r;
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N);
  const int width = d_code_width(pr.instr.params);
  if (threads <= 1 && !progress) r.D = detail::compute_all(*prep, M, N, width);
  else r.D = detail::compute_tiled(*prep, M, N, static_cast<size_t>(pr.K), width, exec, progress);
  return r;
}

MmaProblem make_problem(const InstrEntry& e, int M, int N, int K, std::span<const uint64_t> A,
                        std::span<const uint64_t> B, std::span<const uint64_t> C, std::span<const uint64_t> sa,
                        std::span<const uint64_t> sb, const MmaOptions& opt) {
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
  p.instr = e;
  p.options = opt;
  return p;
}

}  // namespace tcemu
