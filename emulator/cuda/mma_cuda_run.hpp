// Internal: what the host side of the CUDA backend (mma_cuda.cpp) asks of its device side
// (mma_cuda_kernels.cu). Every function returns an error message, or "" on success.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cuda_plan.hpp"

namespace tcemu::cuda_detail {

// One array of codes: in host memory (64-bit codes, copied to the device) or already on it.
struct HostOrDevice {
  dp::Codes codes;
  size_t count = 0;
  bool on_device = false;
};
struct RunInputs {
  HostOrDevice A, B, C, sa, sb;
};

// Runs a plan on device `device` (decode, then the tiled or the direct kernel); D in host memory.
std::string run_on_device(const Plan& plan, const RunInputs& in, int device, std::vector<uint64_t>& D);
// "" when device `index` can run the kernels (`name` then says which it is), else why not.
std::string device_status(int index, std::string& name);
// "" when p points into GPU memory (device or managed).
std::string check_device_pointer(const void* p, const char* what);

}  // namespace tcemu::cuda_detail
