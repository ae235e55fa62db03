// Internal: the checks mma() applies to a problem before computing it, shared with the CUDA
// backend (emulator/cuda/), whose problems may live in GPU memory (hence sizes, not spans).
// Each returns an error message, or "" when the problem can be computed. And the hook through
// which mma() reaches the CUDA backend when the program links tcemu_cuda.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "tcemu/mma.hpp"

namespace tcemu::detail {

// What the checks read of a problem: its shape, types and the number of codes of each array.
struct ProblemShape {
  int M = 0, N = 0, K = 0;
  Fmt atype = Fmt::f16, btype = Fmt::f16;
  std::optional<Fmt> scale_type;
  int scale_block = 0;
  size_t nA = 0, nB = 0, nC = 0, nsa = 0, nsb = 0;
};
ProblemShape shape_of(const MmaProblem& pr);

// The checks of explicit datapath parameters: dimensions, array sizes, validate(), the scale layout, the options.
std::string check_problem(const DatapathParams& p, const ProblemShape& pr, int instr_k, const MmaOptions& opt);
// The checks of the problem against a catalog instruction (then check_problem runs).
std::string check_entry(const InstrEntry& e, const ProblemShape& pr, const MmaOptions& opt);
// Everything mma() checks before it computes: check_entry where the instruction is a catalog
// entry (and that its params and instr_k are the entry's), then check_problem.
std::string check_mma(const MmaInstr& in, const ProblemShape& pr, const MmaOptions& opt);

// The CUDA backend: computes `prob` (host or device operands, not yet checked) on CUDA device
// `device`. tcemu_cuda registers its function (the CUDA implementation or the stub) when a
// program links it (emulator/cuda/CMakeLists.txt forces the registering object in); without
// it mma() reports that the program has no CUDA backend.
using CudaMmaFn = MmaResult (*)(const MmaProblem& prob, int device);
struct CudaBackendRegistrar {
  explicit CudaBackendRegistrar(CudaMmaFn f);
};

}  // namespace tcemu::detail
