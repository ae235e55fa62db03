// Alternative arithmetic models that a kernel's output may follow instead of the case's
// model: used by compare to say "matches f32 FMA accumulation" or "matches RNE instead of
// RZ". Each model computes chosen output elements of a case from its operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

struct AltModel {
  std::string name, description;
  bool is_case_model = false;
  // Computes element (row, col) of the output (for conversions col = 0).
  std::function<uint64_t(size_t row, size_t col)> eval;
};

// The case's own model first, then the alternatives that apply to its operation and types.
// The returned models refer to `c` (keep it alive).
std::vector<AltModel> alternative_models(const Case& c);

}  // namespace tcemu::golden
