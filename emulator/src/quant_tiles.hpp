// How the quantization recipes spread a tensor over threads: rectangles of whole scale blocks.
// Every element belongs to exactly one block and every block to exactly one rectangle, so a
// rectangle's amax, scales and codes depend on its own elements alone (plus per-tensor values
// computed before), and the results are the serial loop's for every thread count. The cut
// depends on the shape and the blocks only, never on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>

#include "tcemu/parallel.hpp"
#include "tcemu/quant.hpp"

namespace tcemu::quant::detail {

// About this many elements per rectangle (small enough for 7 threads to share a few hundred
// thousand elements, large enough that the loop's per-task cost does not show).
inline constexpr size_t kTileElems = size_t{1} << 14;

// Rectangles of tall blocks (a block row above kTileElems elements) span at least this many
// columns where the blocks allow: rows of 4 KiB of f32, which the memory streams well (128 x 128
// blocks one at a time read 128 rows of 512 bytes each).
inline constexpr size_t kTileMinCols = 1024;

// Dequantizers of tensors with at least this many elements tabulate their per-element function
// over every (scale code, element code) pair first (at most 64 Ki entries).
inline constexpr size_t kTableMin = size_t{1} << 18;

// A rectangle of whole blocks: rows [r0, r1), columns [c0, c1) of the tensor.
struct Tile {
  size_t r0, r1, c0, c1;
};

// Calls body(tile) for each rectangle of `g`, spread over thread_count(exec) threads. The
// rectangles are groups of whole block rows (when a block row has fewer than kTileElems
// elements) or pieces of one block row made of whole blocks.
template <class Body>
void for_each_tile(const BlockGrid& g, const Exec& exec, Body&& body) {
  if (g.rows == 0 || g.cols == 0) return;
  const size_t srows = g.scale_rows(), scols = g.scale_cols();
  const size_t brows = std::min(g.block_rows, g.rows);  // rows of one block row
  const size_t band = brows * g.cols;                   // its elements (<= rows * cols)
  size_t rows_per = 1, cols_per = scols;                // in blocks
  if (band < kTileElems) rows_per = std::max<size_t>(1, kTileElems / band);
  else cols_per = std::max<size_t>({1, kTileElems / g.block_cols / brows, kTileMinCols / g.block_cols});
  const size_t nr = (srows + rows_per - 1) / rows_per, nc = (scols + cols_per - 1) / cols_per;
  // start + count * unit, at most limit (without overflow for huge blocks).
  auto end = [](size_t start, size_t count, size_t unit, size_t limit) {
    return (limit - start) / unit >= count ? start + count * unit : limit;
  };
  parallel_for(nr * nc, exec, [&](size_t t) {
    const size_t i = t / nc, j = t % nc;
    Tile tile;
    tile.r0 = i * rows_per * g.block_rows;  // < rows: i * rows_per < scale_rows
    tile.r1 = end(tile.r0, rows_per, g.block_rows, g.rows);
    tile.c0 = j * cols_per * g.block_cols;
    tile.c1 = end(tile.c0, cols_per, g.block_cols, g.cols);
    body(tile);
  });
}

// Calls body(begin, end) over consecutive pieces of [0, n) (for element-wise work).
template <class Body>
void for_each_range(size_t n, const Exec& exec, Body&& body) {
  const size_t pieces = (n + kTileElems - 1) / kTileElems;
  parallel_for(pieces, exec, [&](size_t p) { body(p * kTileElems, std::min(n, (p + 1) * kTileElems)); });
}

}  // namespace tcemu::quant::detail
