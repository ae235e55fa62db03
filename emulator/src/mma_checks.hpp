// Internal: the checks mma() and mma_params() apply to a problem before computing it, shared
// with the CUDA backend (emulator/cuda/), whose problems may live in GPU memory (hence sizes,
// not spans). Each returns an error message, or "" when the problem can be computed.
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

// mma_params' checks: dimensions, array sizes, validate(), the scale layout, the options.
std::string check_problem(const DatapathParams& p, const ProblemShape& pr, int instr_k, const MmaOptions& opt);
// mma()'s checks of the problem against the instruction (then check_problem runs).
std::string check_entry(const InstrEntry& e, const ProblemShape& pr, const MmaOptions& opt);
// Both, in that order: everything mma(e, ...) checks before it computes.
std::string check_instr_problem(const InstrEntry& e, const ProblemShape& pr, const MmaOptions& opt);

}  // namespace tcemu::detail
