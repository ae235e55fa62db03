// Internal: how the threaded mma (mma_parallel.cpp) cuts D into tiles.
#pragma once

#include <cstddef>

namespace tcemu::detail {

struct TilePlan {
  size_t rows = 0, cols = 0;  // of one tile (the last row / column of tiles may be smaller)
  size_t row_tiles = 0, col_tiles = 0;
};

// Tiles for an M x N problem, about `tiles` of them (the threaded mma asks for 4 a thread,
// so that the dynamic schedule evens out tiles that run slower): columns in multiples of
// kTileCols (mma_prepared.hpp), and the grid that does the least work per wave of tiles,
// counting a tile's rows of A and columns of B read beside its multiply-adds.
TilePlan plan_tiles(size_t M, size_t N, size_t tiles, size_t threads);

}  // namespace tcemu::detail
