// Internal: the fast whole-matrix path of mma() (emulator/src/mma_fast.cpp).
#pragma once

#include <memory>
#include <optional>

#include "dp_host.hpp"
#include "mma_prepared.hpp"
#include "tcemu/mma.hpp"

namespace tcemu::detail {

// The fast kernels' operand handling, from the shared steps (dp_steps.hpp, dp_host.hpp) below
// the datapath rather than from mma.cpp or datapath.cpp's public wrappers: an operand decoded
// from its code; with its sign flipped when `neg` (wgmma imm-scale = -1); C * 2^-s formed
// exactly, then toward zero into the accumulator format (tcgen05 scale-input-d).
inline Operand decoded(Fmt f, uint64_t code) { return dp::decode_code(dp::format_row(f), code); }
inline Operand negated(Operand o, bool neg) {
  if (neg) o.neg ^= 1;
  return o;
}
inline uint64_t scale_c(uint64_t c, Fmt acc, int s) { return dp::scale_c(c, acc == Fmt::f16, s); }

// The problem decoded for the fast kernels, whose tiles compute the same D as the generic
// loop of mma_params, faster; nullptr for any parameters, options or operands it does not
// handle (the generic loop then runs). Only for problems that passed check_problem. Decoding
// uses exec's threads.
std::unique_ptr<PreparedMma> prepare_fast(const DatapathParams& p, const MmaProblem& pr, int instr_k,
                                          const MmaOptions& opt, const Exec& exec);
// The whole of D from prepare_fast on the calling thread (nullopt where it declines).
std::optional<MmaResult> mma_fast(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt);

// Which build of the kernels runs (AVX-512, AVX2, baseline) is converter_isa.hpp's choice;
// tests limit it with limit_convert_isa to check every build on one machine.
// For tests: true makes mma_fast decline everything, so that mma_params runs its generic loop
// and the two can be compared. Default false.
void disable_fast_path(bool on);

}  // namespace tcemu::detail
