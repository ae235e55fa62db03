// The committed golden set (golden/sets/): which cases it holds and how they are made, so
// `tcemu golden gen-set` regenerates it and a test can check it. One file per catalog family
// plus one for conversions (conventions) and one for PTX cvt instructions. See
// golden/sets/README.md for the sizes chosen and why.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

// Every family name of the catalog ("wgmma e4m3/e5m2", ...), sorted.
std::vector<std::string> catalog_families();
// A file name for a family: "wgmma_e4m3-e5m2.json".
std::string family_file_name(const std::string& family);

// The cases of one family: one instruction tile each, cycling through the family's distinct
// (architecture, types, variant) entries so that every distribution (and every scale pattern
// of block-scaled kinds) appears, within about `budget_bytes` of JSON.
GoldenFile family_set(const std::string& family, size_t budget_bytes = 120000, uint64_t seed = 1);
// Conversions under every convention for the narrow formats, and every PTX cvt variant.
GoldenFile conversion_set(uint64_t seed = 1);
GoldenFile cvt_set(uint64_t seed = 1);

}  // namespace tcemu::golden
