// Internal: how the threaded mma (mma_parallel.cpp) cuts D into tiles.
#pragma once

#include <cstddef>

namespace tcemu::detail {

struct TileLimits {
  // Elements of A (rows x K) or B (K x columns) one tile may decode: each tile's mma() call
  // holds its rows of A and columns of B decoded (8 to 16 bytes an element), so this bounds
  // the memory every thread adds to the operands.
  size_t decoded = size_t{8} << 20;
  // D elements of one tile (its result is held until copied into D).
  size_t output = size_t{1} << 20;
  // Column tiles are multiples of this many columns (the fast path's kernels take 32 at a time).
  size_t col_step = 64;
};

struct TilePlan {
  size_t rows = 0, cols = 0;  // of one tile (the last row / column of tiles may be smaller)
  size_t row_tiles = 0, col_tiles = 0;
};

// Tiles for an M x N x K problem on `threads` threads: about one tile a thread, the grid of
// rows (multiples of `mstep`, the instruction's M) and columns (multiples of col_step) that
// gives each thread the least work, decoding included, within the limits.
TilePlan plan_tiles(size_t M, size_t N, size_t K, size_t mstep, int threads, const TileLimits& lim);

// For tests: the limits the threaded mma uses (small ones force column tiles on small
// problems). Not thread-safe; tests set them before calling mma.
TileLimits& mma_tile_limits();

}  // namespace tcemu::detail
