// --device of `tcemu mma` and `tcemu golden gen`: where the emulator computes D, the CPU or a
// CUDA GPU (tcemu/mma_cuda.hpp, docs/gpu-emulation.md). A device string that is not a device,
// or a CUDA device that cannot run (no CUDA backend in this build, no driver, no such GPU),
// is an input error: exit status 2 with a one-line message.
#pragma once

#include <string>

#include "tcemu/mma_cuda.hpp"

namespace tcemu::cli {

// The help text of --device.
inline constexpr const char* kDeviceHelp =
    "where D is computed: cpu (the default), cuda (CUDA device 0) or cuda:N (docs/gpu-emulation.md)";

// The device of a --device value; for a CUDA device, checks that it can run the emulator's
// kernels. Throws InputError: "--device: unknown device 'x' (...)" or
// "--device cuda:N: cannot run the emulator on the GPU: <cuda_status().why_not>".
DeviceSpec device_arg(const std::string& s);

}  // namespace tcemu::cli
