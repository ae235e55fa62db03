// Internal: how the threaded mma (mma_parallel.cpp) cuts D into tiles and computes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mma_prepared.hpp"

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

// All M x N elements of D from `prep`, tile by tile on thread_count(exec) threads, reporting
// each finished tile to `progress` (may be empty). The same D as compute_all.
CodeVector compute_tiled(const PreparedMma& prep, size_t M, size_t N, size_t K, int width, const Exec& exec,
                         const MmaProgress& progress);

}  // namespace tcemu::detail
