// tcemu_cuda for a build without a CUDA compiler: every call says so (tcemu/mma_cuda.hpp).
#include "tcemu/mma_cuda.hpp"

namespace tcemu {

namespace {

constexpr const char* kNoCuda =
    "this build of tcemu has no CUDA backend (it was configured without a CUDA compiler; "
    "rebuild with the CUDA toolkit and -DTCEMU_ENABLE_CUDA=AUTO or ON)";

MmaResult no_cuda() {
  MmaResult r;
  r.error = kNoCuda;
  return r;
}

}  // namespace

CudaStatus cuda_status(int) {
  CudaStatus s;
  s.why_not = kNoCuda;
  return s;
}

MmaResult mma_cuda(const InstrEntry&, const MmaProblem&, const MmaOptions&, int) { return no_cuda(); }
MmaResult mma_params_cuda(const DatapathParams&, const MmaProblem&, int, const MmaOptions&, int) { return no_cuda(); }
MmaResult mma_cuda_device(const InstrEntry&, const MmaDeviceProblem&, const MmaOptions&, int) { return no_cuda(); }

}  // namespace tcemu
