// Runs a golden case's operation on its operands with the emulator: what `golden gen` writes
// as the expected result and what the committed-set test checks against.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tcemu/mma.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

// The operands of an MMA case as the row-major logical arrays mma() takes.
struct MmaInputs {
  std::vector<uint64_t> A, B, C, sa, sb;
  MmaProblem problem(const Case& c) const;
};
MmaInputs mma_inputs(const Case& c);  // mma: C of zeros when absent; gemm: C empty when absent

// The plan of a gemm case with its epilogue vectors (a_scale, b_scale, bias) from the operands.
GemmPlan gemm_plan(const Case& c);

// The emulator's result for the case, in logical order (row-major M x N for mma, one code per
// element / destination register for conversions). The error: the emulator refuses the
// problem (the throwing forms below throw it as GoldenError).
Result<std::vector<uint64_t>> try_evaluate(const Case& c);
std::vector<uint64_t> evaluate(const Case& c);

// The same, stored in the layout of the case's expected array (quantize: the codes).
Result<Array> try_evaluate_as_expected(const Case& c);
Array evaluate_as_expected(const Case& c);

// Every expected array of the case as the emulator computes it, by name: the one of
// evaluate_as_expected, and for quantize also "scales" and (NVFP4) "global".
Result<std::map<std::string, Array>> try_evaluate_all(const Case& c);
std::map<std::string, Array> evaluate_all(const Case& c);
// The names of the case's expected arrays the emulator does not reproduce bit for bit
// (empty: reproduced). What `tcemu golden check` reports for tcemu-made cases.
Result<std::vector<std::string>> try_not_reproduced(const Case& c);
std::vector<std::string> not_reproduced(const Case& c);

}  // namespace tcemu::golden
