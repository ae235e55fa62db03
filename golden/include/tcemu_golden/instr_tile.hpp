// The output tile one instruction produces, which a golden case's M and N must tile into and
// which compare's pattern analysis uses. mma.sync, wmma and wgmma: the shape in the spelling.
// tcgen05.mma leaves M and N to the instruction descriptor [PTX §9.7.16]: cta_group::1 takes
// M = 64 or 128, cta_group::2 M = 128 or 256; N a multiple of 8 (M = 64) or 16, up to 256. Its
// default tile is the smallest (64 x 8, or 128 x 16), so small golden cases stay small.
#pragma once

#include <string>

#include "tcemu/catalog.hpp"

namespace tcemu::golden {

struct InstrTile {
  int m = 0, n = 0;
};

InstrTile default_tile(const InstrEntry& e);
// "" when the tile is one the instruction can have, else why not.
std::string check_tile(const InstrEntry& e, InstrTile t);

}  // namespace tcemu::golden
