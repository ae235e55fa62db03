// tcemu_cuda with the CUDA backend (tcemu/mma_cuda.hpp), what mma() runs for a CUDA device:
// the problem checked exactly as on the CPU (mma_checks.hpp), planned (cuda_plan.hpp) and run on the device
// (mma_cuda_kernels.cu).
#include "tcemu/mma_cuda.hpp"

#include <utility>
#include <vector>

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
  std::vector<uint64_t> D;  // the device's 64-bit codes, then held at D's container width
  r.error = cuda_detail::run_on_device(cuda_detail::make_plan(p, s, instr_k, opt), in, device, D);
  if (r.error.empty()) r.D = CodeVector(D, d_code_width(p));
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

namespace {

MmaResult host_problem(const MmaProblem& prob, int device) {
  const detail::ProblemShape s = detail::shape_of(prob);
  if (std::string e = detail::check_mma(prob.instr, s, prob.options); !e.empty()) return failed(e);
  const cuda_detail::RunInputs in{host_codes(prob.A), host_codes(prob.B), host_codes(prob.C), host_codes(prob.sa),
                                  host_codes(prob.sb)};
  return run(prob.instr.params, s, prob.instr.instr_k, prob.options, in, device);
}

MmaResult device_problem(const MmaProblem& prob, int device) {
  const DeviceOperands& ops = *prob.device_operands;
  detail::ProblemShape s;
  s.M = prob.M;
  s.N = prob.N;
  s.K = prob.K;
  s.atype = prob.atype;
  s.btype = prob.btype;
  s.scale_type = prob.scale_type;
  s.scale_block = prob.scale_block;
  s.nA = ops.A.count;
  s.nB = ops.B.count;
  // An absent C (count 0) is +0 everywhere.
  s.nC = ops.C.count == 0 && prob.M > 0 && prob.N > 0 ? static_cast<size_t>(prob.M) * static_cast<size_t>(prob.N) : ops.C.count;
  s.nsa = ops.sa.count;
  s.nsb = ops.sb.count;
  if (std::string err = detail::check_mma(prob.instr, s, prob.options); !err.empty()) return failed(err);
  for (const auto& [c, name] : {std::pair{&ops.A, "A"}, std::pair{&ops.B, "B"}, std::pair{&ops.C, "C"},
                                 std::pair{&ops.sa, "scale_A"}, std::pair{&ops.sb, "scale_B"}}) {
    if (c->count == 0) continue;
    if (c->itemsize != 1 && c->itemsize != 2 && c->itemsize != 4 && c->itemsize != 8)
      return failed(std::string(name) + ": item size must be 1, 2, 4 or 8 bytes");
    if (!c->ptr) return failed(std::string(name) + ": null pointer");
  }
  const CudaStatus st = cuda_status(device);
  if (!st.usable) return failed(st.why_not);
  cuda_detail::RunInputs in;
  const std::pair<const DeviceCodes*, cuda_detail::HostOrDevice*> arrays[] = {
      {&ops.A, &in.A}, {&ops.B, &in.B}, {&ops.C, &in.C}, {&ops.sa, &in.sa}, {&ops.sb, &in.sb}};
  const char* names[] = {"A", "B", "C", "scale_A", "scale_B"};
  for (size_t i = 0; i < 5; ++i) {
    const DeviceCodes& c = *arrays[i].first;
    if (c.count == 0) continue;
    if (std::string err = cuda_detail::check_device_pointer(c.ptr, names[i]); !err.empty()) return failed(err);
    *arrays[i].second = cuda_detail::HostOrDevice{dp::Codes{c.ptr, c.itemsize}, c.count, true};
  }
  return run(prob.instr.params, s, prob.instr.instr_k, prob.options, in, device);
}

// mma() with a CUDA device comes here (mma_checks.hpp).
MmaResult cuda_mma(const MmaProblem& prob, int device) {
  return prob.device_operands ? device_problem(prob, device) : host_problem(prob, device);
}

const detail::CudaBackendRegistrar registrar(&cuda_mma);

}  // namespace

}  // namespace tcemu

// The symbol emulator/cuda/CMakeLists.txt makes every program that links tcemu_cuda pull in,
// so that the registrar above runs.
extern "C" const int tcemu_cuda_backend_anchor = 1;
