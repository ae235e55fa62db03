// The emulator on a CUDA GPU: whether this build and machine can compute mma() (tcemu/mma.hpp)
// with Exec{.device = DeviceSpec::cuda(N)}, bit for bit what the CPU computes
// (docs/gpu-emulation.md). This is the emulated datapath of any catalog instruction run on
// whatever GPU is present (sm_80 or newer), not the real instruction (that is tools/gpu).
//
// The CUDA backend lives in the library tcemu_cuda: its CUDA implementation where the build has
// a CUDA compiler, otherwise a stub that reports that the build has no CUDA backend. A program
// that does not link tcemu_cuda gets that report too. Nothing here throws for a user's mistake
// or a missing GPU (docs/architecture.md, "Errors").
#pragma once

#include <string>

#include "tcemu/mma.hpp"

namespace tcemu {

// Whether this build has the CUDA backend and device `index` can run it.
struct CudaStatus {
  bool built = false;      // the library was compiled with the CUDA backend
  bool usable = false;     // ... and device `index` exists and can run its kernels
  std::string name;        // the device's name and compute capability, when usable
  std::string why_not;     // one line, when not usable: no CUDA in this build, no driver, no device N, ...
};
CudaStatus cuda_status(int index = 0);

}  // namespace tcemu
