// tcemu_cuda for a build without a CUDA compiler: mma() on a CUDA device and cuda_status say so (tcemu/mma_cuda.hpp).
#include "tcemu/mma_cuda.hpp"

#include "../src/mma_checks.hpp"

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

namespace {
MmaResult cuda_mma(const MmaProblem&, int) { return no_cuda(); }
const detail::CudaBackendRegistrar registrar(&cuda_mma);
}  // namespace

}  // namespace tcemu

// The symbol emulator/cuda/CMakeLists.txt makes every program that links tcemu_cuda pull in.
extern "C" const int tcemu_cuda_backend_anchor = 1;
