// tcemu_cuda with the CUDA backend (tcemu/mma_cuda.hpp): the problem checked exactly as mma()
// and mma_params() check it (mma_checks.hpp), planned (cuda_plan.hpp) and run on the device
// (mma_cuda_kernels.cu).
#include "tcemu/mma_cuda.hpp"

#include <utility>

#include "mma_cuda_run.hpp"

namespace tcemu {

namespace {

MmaResult failed(std::string why) {
  MmaResult r;
  r.error = std::move(why);
  return r;
}

MmaResult run(const DatapathParams& p, const detail::ProblemShape& s, int instr_k, const MmaOptions& opt,
              const cuda_detail::RunInputs& in, int device) {
  const CudaStatus st = cuda_status(device);
  if (!st.usable) return failed(st.why_not);
  MmaResult r;
  r.error = cuda_detail::run_on_device(cuda_detail::make_plan(p, s, instr_k, opt), in, device, r.D);
  if (!r.error.empty()) r.D.clear();
  return r;
}

cuda_detail::HostOrDevice host_codes(std::span<const uint64_t> v) { return {dp::Codes{v.data(), 8}, v.size(), false}; }

}  // namespace

CudaStatus cuda_status(int index) {
  CudaStatus s;
  s.built = true;
  s.why_not = cuda_detail::device_status(index, s.name);
  s.usable = s.why_not.empty();
  return s;
}

MmaResult mma_params_cuda(const DatapathParams& p, const MmaProblem& prob, int instr_k, const MmaOptions& opt, int device) {
  const detail::ProblemShape s = detail::shape_of(prob);
  if (std::string e = detail::check_problem(p, s, instr_k, opt); !e.empty()) return failed(e);
  const cuda_detail::RunInputs in{host_codes(prob.A), host_codes(prob.B), host_codes(prob.C), host_codes(prob.sa),
                                  host_codes(prob.sb)};
  return run(p, s, instr_k, opt, in, device);
}

MmaResult mma_cuda(const InstrEntry& e, const MmaProblem& prob, const MmaOptions& opt, int device) {
  if (std::string err = detail::check_entry(e, detail::shape_of(prob), opt); !err.empty()) return failed(err);
  return mma_params_cuda(e.params, prob, e.K, opt, device);
}

MmaResult mma_cuda_device(const InstrEntry& e, const MmaDeviceProblem& prob, const MmaOptions& opt, int device) {
  detail::ProblemShape s;
  s.M = prob.M;
  s.N = prob.N;
  s.K = prob.K;
  s.atype = prob.atype;
  s.btype = prob.btype;
  s.scale_type = prob.scale_type;
  s.scale_block = prob.scale_block;
  s.nA = prob.A.count;
  s.nB = prob.B.count;
  // An absent C (count 0) is +0 everywhere.
  s.nC = prob.C.count == 0 && prob.M > 0 && prob.N > 0 ? static_cast<size_t>(prob.M) * static_cast<size_t>(prob.N) : prob.C.count;
  s.nsa = prob.sa.count;
  s.nsb = prob.sb.count;
  if (std::string err = detail::check_instr_problem(e, s, opt); !err.empty()) return failed(err);
  for (const auto& [c, name] : {std::pair{&prob.A, "A"}, std::pair{&prob.B, "B"}, std::pair{&prob.C, "C"},
                                 std::pair{&prob.sa, "scale_A"}, std::pair{&prob.sb, "scale_B"}}) {
    if (c->count == 0) continue;
    if (c->itemsize != 1 && c->itemsize != 2 && c->itemsize != 4 && c->itemsize != 8)
      return failed(std::string(name) + ": item size must be 1, 2, 4 or 8 bytes");
    if (!c->ptr) return failed(std::string(name) + ": null pointer");
  }
  const CudaStatus st = cuda_status(device);
  if (!st.usable) return failed(st.why_not);
  cuda_detail::RunInputs in;
  const std::pair<const DeviceCodes*, cuda_detail::HostOrDevice*> arrays[] = {
      {&prob.A, &in.A}, {&prob.B, &in.B}, {&prob.C, &in.C}, {&prob.sa, &in.sa}, {&prob.sb, &in.sb}};
  const char* names[] = {"A", "B", "C", "scale_A", "scale_B"};
  for (size_t i = 0; i < 5; ++i) {
    const DeviceCodes& c = *arrays[i].first;
    if (c.count == 0) continue;
    if (std::string err = cuda_detail::check_device_pointer(c.ptr, names[i]); !err.empty()) return failed(err);
    *arrays[i].second = cuda_detail::HostOrDevice{dp::Codes{c.ptr, c.itemsize}, c.count, true};
  }
  return run(e.params, s, e.K, opt, in, device);
}

}  // namespace tcemu
