// The threaded whole-matrix MMA (mma_parallel.hpp): D cut into tiles, one mma() call per tile.
#include "tcemu/mma_parallel.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "mma_tiles.hpp"

namespace tcemu {

namespace detail {

TileLimits& mma_tile_limits() {
  static TileLimits lim;
  return lim;
}

TilePlan plan_tiles(size_t M, size_t N, size_t K, size_t mstep, int threads, const TileLimits& lim) {
  auto ceil_div = [](size_t a, size_t b) { return (a + b - 1) / b; };
  auto round_up = [&](size_t a, size_t step) { return ceil_div(a, step) * step; };
  mstep = std::max<size_t>(mstep, 1);
  const size_t cstep = std::max<size_t>(lim.col_step, 1), T = static_cast<size_t>(std::max(threads, 1));
  // The largest tile the limits allow.
  size_t max_cols = N;
  if (K * N > lim.decoded) max_cols = std::max(cstep, lim.decoded / K / cstep * cstep);
  const size_t max_rows = std::max(mstep, lim.decoded / K / mstep * mstep);
  // Every grid of about T tiles (gr row tiles x ceil(T / gr) column tiles), costed as the
  // waves of tiles a thread runs times a tile's work: rows x cols multiply-add chains plus the
  // decoding of its rows of A and columns of B (weighted as 8 chains each).
  TilePlan best;
  double best_cost = -1;
  for (size_t gr = 1; gr <= T; ++gr) {
    const size_t gc = ceil_div(T, gr);
    TilePlan t;
    t.rows = std::min({M, round_up(ceil_div(M, gr), mstep), max_rows});
    t.cols = std::min({N, gc == 1 ? N : round_up(ceil_div(N, gc), cstep), max_cols});
    t.rows = std::max<size_t>(1, std::min(t.rows, std::max(mstep, lim.output / t.cols / mstep * mstep)));
    t.rows = std::min(t.rows, M);
    t.row_tiles = ceil_div(M, t.rows);
    t.col_tiles = ceil_div(N, t.cols);
    const double waves = static_cast<double>(ceil_div(t.row_tiles * t.col_tiles, T));
    const double rows = static_cast<double>(t.rows), cols = static_cast<double>(t.cols);
    const double cost = waves * (rows * cols + 8 * (rows + cols));
    if (best_cost < 0 || cost < best_cost) {
      best = t;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace detail

namespace {

bool scaled(const InstrEntry& e) {
  return e.params.kind == DatapathKind::st_fdpa || e.params.kind == DatapathKind::gst_fdpa;
}

// Whether the spans agree with M, N, K (and the scale block) so that tiles can be cut from
// them; anything else goes to the single-threaded call, which names the problem.
bool well_formed(const InstrEntry& e, const MmaProblem& pr) {
  if (pr.M < 1 || pr.N < 1 || pr.K < 1) return false;
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  if (pr.A.size() != M * K || pr.B.size() != K * N || pr.C.size() != M * N) return false;
  if (!scaled(e)) return true;
  if (pr.scale_block < 1 || K % static_cast<size_t>(pr.scale_block) != 0) return false;
  const size_t nb = K / static_cast<size_t>(pr.scale_block);
  return pr.sa.size() == M * nb && pr.sb.size() == N * nb;
}

}  // namespace

MmaResult mma(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt, const Exec& exec) {
  return mma(e, pr, opt, exec, nullptr);
}

MmaResult mma(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt, const Exec& exec,
              const MmaProgress& progress) {
  const int threads = thread_count(exec);
  if ((threads <= 1 && !progress) || !well_formed(e, pr)) return mma(e, pr, opt);
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  const size_t nb = scaled(e) ? K / static_cast<size_t>(pr.scale_block) : 0;
  // With a progress report, at least 8 tiles, so that it moves.
  const int plan_threads = progress ? std::max(threads, 8) : threads;
  const detail::TilePlan plan =
      detail::plan_tiles(M, N, K, static_cast<size_t>(std::max(e.M, 1)), plan_threads, detail::mma_tile_limits());
  const size_t tiles = plan.row_tiles * plan.col_tiles;
  MmaResult out;
  out.D.resize(M * N);
  std::vector<std::string> errors(tiles);
  std::mutex progress_lock;
  double done = 0;
  const double total = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  parallel_for(tiles, exec, [&](size_t t) {
    const size_t m0 = (t / plan.col_tiles) * plan.rows, n0 = (t % plan.col_tiles) * plan.cols;
    const size_t ms = std::min(plan.rows, M - m0), ns = std::min(plan.cols, N - n0);
    MmaProblem sub = pr;
    sub.M = static_cast<int>(ms);
    sub.N = static_cast<int>(ns);
    sub.A = pr.A.subspan(m0 * K, ms * K);
    std::vector<uint64_t> b, c;  // column tiles: B's and C's columns copied out
    if (ns == N) {
      sub.C = pr.C.subspan(m0 * N, ms * N);
    } else {
      b.resize(K * ns);
      for (size_t k = 0; k < K; ++k) std::copy_n(&pr.B[k * N + n0], ns, &b[k * ns]);
      c.resize(ms * ns);
      for (size_t i = 0; i < ms; ++i) std::copy_n(&pr.C[(m0 + i) * N + n0], ns, &c[i * ns]);
      sub.B = b;
      sub.C = c;
    }
    if (nb) {
      sub.sa = pr.sa.subspan(m0 * nb, ms * nb);
      sub.sb = pr.sb.subspan(n0 * nb, ns * nb);
    }
    MmaResult r = mma(e, sub, opt);
    if (!r.error.empty()) {
      errors[t] = std::move(r.error);
      return;
    }
    for (size_t i = 0; i < ms; ++i) std::copy_n(&r.D[i * ns], ns, &out.D[(m0 + i) * N + n0]);
    if (progress) {
      std::lock_guard<std::mutex> g(progress_lock);
      done += static_cast<double>(ms) * static_cast<double>(ns) * static_cast<double>(K);
      progress(done, total);
    }
  });
  for (std::string& err : errors)
    if (!err.empty()) return MmaResult{{}, std::move(err)};
  return out;
}

}  // namespace tcemu
