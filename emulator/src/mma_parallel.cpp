// The threaded part of mma() (mma.cpp): D, from the problem decoded once (mma_prepared.hpp),
// computed tile by tile on every thread.
#include "tcemu/mma.hpp"

#include <algorithm>
#include <mutex>

#include "mma_prepared.hpp"
#include "mma_tiles.hpp"

namespace tcemu {

namespace detail {

TilePlan plan_tiles(size_t M, size_t N, size_t tiles, size_t threads) {
  auto ceil_div = [](size_t a, size_t b) { return (a + b - 1) / b; };
  M = std::max<size_t>(M, 1);
  N = std::max<size_t>(N, 1);
  const size_t T = std::max<size_t>(tiles, 1), W = std::max<size_t>(threads, 1);
  const size_t blocks = ceil_div(N, kTileCols);  // column blocks
  // Every grid of about T tiles (gr row tiles x ceil(T / gr) column tiles), costed as the
  // waves of tiles a thread runs times a tile's work: rows x cols multiply-add chains plus the
  // reading of its rows of A and columns of B (weighted as 8 chains each).
  TilePlan best;
  double best_cost = -1;
  for (size_t gr = 1; gr <= std::min(T, M); ++gr) {
    const size_t gc = std::min(ceil_div(T, gr), blocks);
    TilePlan t;
    t.rows = ceil_div(M, gr);
    t.cols = std::min(N, ceil_div(blocks, gc) * kTileCols);
    t.row_tiles = ceil_div(M, t.rows);
    t.col_tiles = ceil_div(N, t.cols);
    const double waves = static_cast<double>(ceil_div(t.row_tiles * t.col_tiles, W));
    const double rows = static_cast<double>(t.rows), cols = static_cast<double>(t.cols);
    const double cost = waves * (rows * cols + 8 * (rows + cols));
    if (best_cost < 0 || cost < best_cost) {
      best = t;
      best_cost = cost;
    }
  }
  return best;
}

CodeVector compute_tiled(const PreparedMma& prep, size_t M, size_t N, size_t K, int width, const Exec& exec,
                         const MmaProgress& progress) {
  // Four tiles a thread; with a progress report at least 8, so that it moves.
  const size_t T = static_cast<size_t>(thread_count(exec));
  const TilePlan plan = plan_tiles(M, N, progress ? std::max<size_t>(4 * T, 8) : 4 * T, T);
  CodeVector D(M * N, width);  // tiles write disjoint elements (whole bytes each)
  const CodeSink out = D.sink();
  std::mutex progress_lock;
  double done = 0;
  const double total = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  parallel_for(plan.row_tiles * plan.col_tiles, exec, [&](size_t t) {
    const size_t m0 = (t / plan.col_tiles) * plan.rows, n0 = (t % plan.col_tiles) * plan.cols;
    const DTile tile{m0, std::min(M, m0 + plan.rows), n0, std::min(N, n0 + plan.cols)};
    prep.run(tile, out);
    if (progress) {
      std::lock_guard<std::mutex> g(progress_lock);
      done += static_cast<double>(tile.m1 - m0) * static_cast<double>(tile.n1 - n0) * static_cast<double>(K);
      progress(done, total);
    }
  });
  return D;
}

}  // namespace detail

}  // namespace tcemu
