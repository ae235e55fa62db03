// The emulator on a CUDA GPU: mma() computed by CUDA kernels, bit for bit what the CPU computes
// (docs/gpu-emulation.md). This is the emulated datapath of any catalog instruction run on
// whatever GPU is present (sm_80 or newer), not the real instruction (that is tools/gpu).
//
// The functions live in the library tcemu_cuda: its CUDA implementation where the build has a
// CUDA compiler, otherwise a stub whose every call reports that the build has no CUDA backend.
// Nothing here throws for a user's mistake or a missing GPU: the result's `error` says what is
// wrong (docs/architecture.md, "Errors").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tcemu/mma.hpp"

namespace tcemu {

// Where a computation runs: "cpu", "cuda" (device 0) or "cuda:N".
struct DeviceSpec {
  enum class Kind : uint8_t { cpu, cuda } kind = Kind::cpu;
  int index = 0;  // the CUDA device ordinal (kind cuda)
};
// Parses "cpu", "cuda", "cuda:N"; nullopt for anything else.
std::optional<DeviceSpec> parse_device(std::string_view s);
std::string to_string(const DeviceSpec& d);

// Whether this build has the CUDA backend and device `index` can run it.
struct CudaStatus {
  bool built = false;      // the library was compiled with the CUDA backend
  bool usable = false;     // ... and device `index` exists and can run its kernels
  std::string name;        // the device's name and compute capability, when usable
  std::string why_not;     // one line, when not usable: no CUDA in this build, no driver, no device N, ...
};
CudaStatus cuda_status(int index = 0);

// mma() / mma_params() on the GPU: the same contract and the same D, bit for bit, as the CPU
// functions of mma.hpp (operands in host memory, D returned in host memory). Errors (a bad
// problem, as mma(); no CUDA backend; no usable device; a CUDA error) come back in
// MmaResult::error with D empty.
MmaResult mma_cuda(const InstrEntry& e, const MmaProblem& prob, const MmaOptions& opt = {}, int device = 0);
MmaResult mma_params_cuda(const DatapathParams& p, const MmaProblem& prob, int instr_k, const MmaOptions& opt = {},
                          int device = 0);

// Operands already in GPU memory (CUDA tensors reached through DLPack or
// __cuda_array_interface__): `ptr` is a device pointer to `count` unsigned codes of `itemsize`
// bytes (1, 2, 4 or 8), contiguous, in the order MmaProblem gives its spans. An empty array
// (count 0) stands for an absent C or absent scales.
struct DeviceCodes {
  const void* ptr = nullptr;
  int itemsize = 0;
  size_t count = 0;
};
struct MmaDeviceProblem {
  int M = 0, N = 0, K = 0;
  Fmt atype = Fmt::f16, btype = Fmt::f16;
  DeviceCodes A, B, C;
  std::optional<Fmt> scale_type;
  int scale_block = 0;
  DeviceCodes sa, sb;
};
// D comes back in host memory (MmaResult::D), as for mma_cuda.
MmaResult mma_cuda_device(const InstrEntry& e, const MmaDeviceProblem& prob, const MmaOptions& opt = {}, int device = 0);

}  // namespace tcemu
