// Internal: a whole-matrix MMA problem decoded once, from which any tile of D is computed.
// mma() (mma.cpp) computes the whole of D from it on the calling thread, or on several
// threads it decodes once and computes the tiles on every thread (mma_parallel.cpp), so that no
// thread decodes, copies or holds an operand a second time. Every D element is one chained
// dot product over K (docs/datapath.md) and depends on nothing else: a tile computes exactly
// the elements the whole call computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tcemu/code_vector.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu::detail {

// D's elements [m0, m1) x [n0, n1). n0 is a multiple of kTileCols (the fast kernels' column
// block), n1 such a multiple or N.
struct DTile {
  size_t m0 = 0, m1 = 0, n0 = 0, n1 = 0;
};
inline constexpr size_t kTileCols = 32;

class PreparedMma {
 public:
  PreparedMma() = default;
  PreparedMma(const PreparedMma&) = delete;  // holds pointers into itself
  PreparedMma& operator=(const PreparedMma&) = delete;
  virtual ~PreparedMma() = default;
  // Writes the tile's elements of D (row-major M x N). Const and without shared mutable
  // state: tiles may run on several threads at once.
  virtual void run(const DTile& tile, CodeSink D) const = 0;
};

// The problem decoded by the fast path (mma_fast.cpp) when it takes it, else by the generic
// loop. The problem must have passed check_problem (mma_checks.hpp); the prepared problem
// reads its spans (A, B, C, scales) and must not outlive them. Decoding uses exec's threads.
std::unique_ptr<PreparedMma> prepare_mma(const DatapathParams& p, const MmaProblem& pr, int instr_k,
                                         const MmaOptions& opt, const Exec& exec);

// All M x N elements of D from `prep`, on the calling thread, as codes of `width` bytes
// (d_code_width).
CodeVector compute_all(const PreparedMma& prep, size_t M, size_t N, int width);

}  // namespace tcemu::detail
