// Where conversions into a format change behaviour, as codes of the source format: rounding
// ties and overflow thresholds (internal to tcemu_testing).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <rapidcheck.h>

#include "tcemu/format.hpp"

namespace tcemu::testing::detail {

// Codes of `src` at every rounding tie of `dst` it holds exactly, and one src ulp either side.
// For destinations wider than 16 bits the list is `edge_tie_points` (`gen::tie` samples the
// rest at random).
const std::vector<uint64_t>& tie_points(Fmt src, Fmt dst);
// The ties at the zero / smallest-subnormal corner, every binade edge and the top of the range.
const std::vector<uint64_t>& edge_tie_points(Fmt src, Fmt dst);
// The midpoint of the dst values at ordinals k and k+1 as a code of src, if exact.
std::optional<uint64_t> midpoint_in(Fmt src, Fmt dst, int64_t k);
// Codes of `src` at and around the overflow thresholds of `dst`.
const std::vector<uint64_t>& overflow_points(Fmt src, Fmt dst);
// The src codes at and one ulp either side of `code`.
void add_with_neighbours(Fmt src, uint64_t code, std::vector<uint64_t>& out);
// Ordinal of the largest finite value (positive and negative side) of a format.
int64_t max_ordinal(Fmt f);
int64_t min_ordinal(Fmt f);

}  // namespace tcemu::testing::detail
