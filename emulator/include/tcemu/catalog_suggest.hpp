// Nearest spellings for an unknown instruction: when find_instruction() finds nothing, the
// catalog's spellings closest to what was typed (edit distance over the '.'-separated tokens,
// ties broken by the distance in characters), preferring the given architecture.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/catalog.hpp"

namespace tcemu {

// Up to `n` catalog spellings nearest to `ptx`: those of `arch` (or its base arch) first,
// then of any other architecture; each spelling once.
std::vector<std::string> nearest_spellings(std::string_view arch, std::string_view ptx, size_t n = 3);

// find_instruction()'s error, with "; did you mean ...?" appended when no entry of that
// spelling exists on any architecture.
std::string lookup_error_with_suggestions(const InstrLookup& lookup, std::string_view arch, std::string_view ptx);

}  // namespace tcemu
