// Device side of tcemu-gpu's PTX cvt (gpu_backend.hpp: run_cvt): one kernel per variant of
// cvt_variants.cuh, each executing the instruction exactly as spelled once per element.
// Built for sm_90a, sm_100a and sm_120a like mma_device.cu; a variant's assembly exists only
// on the targets of its mask (cvt_ops.cuh), and run_cvt refuses to launch it elsewhere.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_arch.cuh"
#include "cvt_variants.cuh"
#include "cuda_util.cuh"
#include "gpu_backend.hpp"

namespace tcemu_gpu {
namespace {

#include "cvt_ops.cuh"

template <int ID>
__global__ void cvt_run_kernel(const uint64_t* src, const uint32_t* rbits, uint32_t n, uint64_t* out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const uint64_t* s = src + static_cast<size_t>(t) * kCvtMaxSrcs;
  out[t] = cvt_op<ID>(s[0], s[1], s[2], s[3], rbits[t]);
}

using CvtLaunch = void (*)(const uint64_t*, const uint32_t*, uint32_t, uint64_t*);
template <int ID>
void launch_cvt(const uint64_t* src, const uint32_t* rbits, uint32_t n, uint64_t* out) {
  cvt_run_kernel<ID><<<(n + 255) / 256, 256>>>(src, rbits, n, out);
}
const CvtLaunch kCvtLaunch[] = {
#define TCEMU_CVT_ROW(ID, SHAPE, MASK, SP) &launch_cvt<ID>,
    TCEMU_CVT_VARIANTS(TCEMU_CVT_ROW)
#undef TCEMU_CVT_ROW
};

}  // namespace

std::string run_cvt(const CvtInfo& in, const std::vector<uint64_t>& src, const std::vector<uint32_t>& rbits,
                    std::vector<uint64_t>& d) {
  if (in.id < 0 || in.id >= kNumCvtVariants) return std::string("no kernel for ") + in.ptx;
  if (src.size() != rbits.size() * kCvtMaxSrcs) return "run_cvt: src must hold 4 registers per element of rbits";
  // The kernel of a variant is empty on a target whose mask lacks it: refuse rather than
  // return zeros.
  int dev = 0;
  cudaDeviceProp p{};
  cudaError_t e;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess)
    return cuda_util::error(e, "cudaGetDeviceProperties");
  if (!(in.arch_mask & arch_bit_of(p.major, p.minor)))
    return std::string(in.ptx) + " does not exist on compute capability " + std::to_string(p.major) + "." +
           std::to_string(p.minor) + " (no kernel body there)";
  const size_t n = rbits.size();
  cuda_util::DevBuf<uint64_t> ds, dd;
  cuda_util::DevBuf<uint32_t> dr;
  if ((e = ds.upload(src)) != cudaSuccess || (e = dr.upload(rbits)) != cudaSuccess || (e = dd.alloc(n)) != cudaSuccess)
    return cuda_util::error(e, "upload");
  if (n > 0) {
    kCvtLaunch[in.id](ds.p, dr.p, static_cast<uint32_t>(n), dd.p);
    if ((e = cudaGetLastError()) != cudaSuccess) return cuda_util::error(e, "launch");
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_util::error(e, "kernel");
  }
  d.resize(n);
  if (n > 0 && (e = cudaMemcpy(d.data(), dd.p, n * sizeof(uint64_t), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return cuda_util::error(e, "download");
  return "";
}

}  // namespace tcemu_gpu
