// The fast whole-matrix path (see mma_fast.hpp).
#include "mma_fast.hpp"

namespace tcemu::detail {

std::optional<MmaResult> mma_fast(const DatapathParams&, const MmaProblem&, int, const MmaOptions&) {
  return std::nullopt;
}

}  // namespace tcemu::detail
