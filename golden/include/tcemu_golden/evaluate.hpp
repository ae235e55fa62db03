// Runs a golden case's operation on its operands with the emulator: what `golden gen` writes
// as the expected result and what the committed-set test checks against.
#pragma once

#include <cstdint>
#include <vector>

#include "tcemu/mma.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

// The operands of an MMA case as the row-major logical arrays mma() takes.
struct MmaInputs {
  std::vector<uint64_t> A, B, C, sa, sb;
  MmaProblem problem(const Case& c) const;
};
MmaInputs mma_inputs(const Case& c);

// The emulator's result for the case, in logical order (row-major M x N for mma, one code per
// element / destination register for conversions). Throws GoldenError when the emulator
// refuses the problem.
std::vector<uint64_t> evaluate(const Case& c);

// The same, stored in the layout of the case's expected array.
Array evaluate_as_expected(const Case& c);

}  // namespace tcemu::golden
