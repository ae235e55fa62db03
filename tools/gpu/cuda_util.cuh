// Host-side CUDA runtime helpers shared by tcemu-gpu's device files (mma_device.cu,
// cvt_device.cu, tcgen05_device.cu): an error message naming the failed step, and a device
// buffer freed on scope exit.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tcemu_gpu::cuda_util {

// "what: cudaErrorX (description)".
inline std::string error(cudaError_t e, const char* what) {
  std::string s = what;
  s += ": ";
  s += cudaGetErrorName(e);
  s += " (";
  s += cudaGetErrorString(e);
  s += ")";
  return s;
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  // Allocates room for v (at least one element) and copies it there.
  cudaError_t upload(const std::vector<T>& v) {
    cudaError_t e = cudaMalloc(&p, std::max<size_t>(1, v.size()) * sizeof(T));
    if (e != cudaSuccess || v.empty()) return e;
    return cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t alloc(size_t n) { return cudaMalloc(&p, std::max<size_t>(1, n) * sizeof(T)); }
};

}  // namespace tcemu_gpu::cuda_util
