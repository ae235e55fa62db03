// The threaded whole-matrix MMA (mma() with Exec{t}, mma_parallel.cpp) against mma() on one thread: every D
// element equal bit for bit for 1, 2, 3 and 7 threads, on shapes that do not divide into the
// tiles evenly (M not a multiple of the instruction's M or of the thread count, odd N), for one
// catalog entry of every distinct datapath (T-FDPA, ST-FDPA, GST-FDPA block-scaled, integer,
// C added after the instruction, FP8 widened to f16), with the fast path on and off, and on
// problems wide enough for column tiles (N over several column blocks, not a multiple of one). The single-threaded mma() is itself checked against the exact reference
// (differential_test), per-dot-product chains (mma_fast_test) and the golden sets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../../emulator/src/mma_fast.hpp"
#include "../../emulator/src/mma_tiles.hpp"
#include "kernel_builds.hpp"
#include "random_operands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/mma.hpp"

namespace tcemu {
namespace {

using test::Dist;
using test::Rng;

std::vector<const InstrEntry*> one_entry_per_datapath() {
  std::vector<const InstrEntry*> out;
  std::set<std::tuple<std::string, int, int, int, int, int, int>> seen;
  for (const InstrEntry& e : catalog()) {
    auto key = std::make_tuple(e.arch + describe(e.params), static_cast<int>(e.atype), static_cast<int>(e.btype),
                               static_cast<int>(e.dtype), e.scale_type ? static_cast<int>(*e.scale_type) : -1,
                               e.scale_block, e.K);
    if (seen.insert(key).second) out.push_back(&e);
  }
  return out;
}

using Problem = test::OwnedProblem;

Problem random_problem(const InstrEntry& e, int M, int N, int instrs, Rng& r) {
  Problem p{&e, M, N, e.K * instrs, {}, {}, {}, {}, {}};
  const size_t m = static_cast<size_t>(M), n = static_cast<size_t>(N), k = static_cast<size_t>(p.K);
  const Dist d = test::kDists[r() % std::size(test::kDists)];
  for (size_t i = 0; i < m * k; ++i) p.A.push_back(test::random_code(e.atype, d, r));
  for (size_t i = 0; i < k * n; ++i) p.B.push_back(test::random_code(e.btype, d, r));
  const bool int_acc = e.dtype == AccType::s32;
  for (size_t i = 0; i < m * n; ++i)
    p.C.push_back(!int_acc ? test::random_code(acc_format(e.dtype), Dist::normal, r) : (r() & 0xFFFFFFFFu));
  if (e.scale_type) {
    const size_t nb = k / static_cast<size_t>(e.scale_block);
    for (size_t i = 0; i < m * nb; ++i) p.sa.push_back(test::random_scale(*e.scale_type, d, r));
    for (size_t i = 0; i < n * nb; ++i) p.sb.push_back(test::random_scale(*e.scale_type, d, r));
  }
  return p;
}

MmaOptions random_options(const InstrEntry& e, Rng& r) {
  MmaOptions o;
  o.negate_a = r() % 3 == 0;
  o.negate_b = r() % 3 == 0;
  o.scale_d = r() % 5 != 0;
  if (e.dtype != AccType::s32) {
    const int s[] = {-1, -1, 0, 3};
    o.scale_input_d = s[r() % 4];
  }
  if (e.dtype == AccType::f32 && r() % 3 == 0) o.promote_every = 1 + static_cast<int>(r() % 2);
  return o;
}

// What check_all runs. wide: N of 2 to 4 column blocks (kTileCols) and not a multiple of one,
// so that 3 and 7 threads cut D into column tiles too. fast_only: the entries the fast kernels
// may take.
struct Check {
  bool generic = false, wide = false, fast_only = false;
  std::vector<int> threads{1, 2, 3, 7};
};

// Checks every entry on one random problem against mma(); returns the kinds it covered.
std::set<DatapathKind> check_all(uint64_t seed, const Check& how) {
  const bool generic = how.generic, wide = how.wide, fast_only = how.fast_only;
  Rng r(seed);
  std::set<DatapathKind> kinds;
  int bad = 0, problems = 0;
  for (const InstrEntry* e : one_entry_per_datapath()) {
    const DatapathKind k = e->params.kind;
    if (fast_only && k != DatapathKind::t_fdpa && k != DatapathKind::st_fdpa && k != DatapathKind::gst_fdpa) continue;
    // M: two instruction tiles and a remainder, so that no thread count divides the rows.
    const int M = 2 * std::max(e->M, 1) + 5 + static_cast<int>(r() % 3);
    const int N = wide ? 33 + 2 * static_cast<int>(r() % 48) : 9 + 2 * static_cast<int>(r() % 12);
    const Problem p = random_problem(*e, M, N, 1 + static_cast<int>(r() % 3), r);
    const MmaOptions opt = random_options(*e, r);
    if (generic) detail::disable_fast_path(true);
    const MmaResult want = mma(p.view().with(*e, opt), Exec{1});
    if (!want.error.empty()) {
      detail::disable_fast_path(false);
      ADD_FAILURE() << e->ptx << ": " << want.error;
      continue;
    }
    for (int t : how.threads) {
      const MmaResult got = mma(p.view().with(*e, opt), Exec{t});
      ++problems;
      if (got.D != want.D) {
        ++bad;
        ADD_FAILURE() << e->arch << " " << e->ptx << " (" << describe(e->params) << ") M=" << M << " N=" << N
                      << " K=" << p.K << " threads=" << t << ": " << (got.error.empty() ? "D differs" : got.error);
      }
    }
    detail::disable_fast_path(false);
    kinds.insert(e->params.kind);
  }
  EXPECT_EQ(bad, 0) << "of " << problems;
  return kinds;
}

TEST(MmaParallel, EveryDatapathEveryThreadCountEqualsSingleThreaded) {
  const std::set<DatapathKind> kinds = check_all(20261201, {});
  EXPECT_EQ(kinds, (std::set<DatapathKind>{DatapathKind::t_fdpa, DatapathKind::st_fdpa, DatapathKind::gst_fdpa,
                                           DatapathKind::integer}));
}

TEST(MmaParallel, GenericLoopEveryThreadCountEqualsSingleThreaded) { check_all(4242, {.generic = true}); }

// Column tiles: several column blocks, the last one partial.
TEST(MmaParallel, WideProblemsColumnTilesEqualSingleThreaded) {
  EXPECT_GT(detail::plan_tiles(37, 95, 12, 3).col_tiles, 1u);
  check_all(99, {.wide = true, .threads = {3, 7}});
  check_all(98, {.generic = true, .wide = true, .threads = {3, 7}});
}

// Every build of the fast kernels (baseline, AVX2, AVX-512) computes tiles of D: the threaded
// call on wide problems against the single-threaded one, both limited to that build.
TEST(MmaParallel, EveryKernelBuildTilesEqualSingleThreaded) {
  test::for_each_kernel_build(
      [](uint64_t isa) { check_all(300 + isa, {.wide = true, .fast_only = true, .threads = {3}}); });
}

TEST(MmaParallel, PlanCoversTheProblem) {
  struct Shape {
    size_t M, N;
  };
  for (const Shape sh : {Shape{1024, 1024}, Shape{8192, 8192}, Shape{37, 95}, Shape{1, 1}, Shape{5, 4096},
                         Shape{4096, 5}, Shape{130, 33}})
    for (size_t t : {1, 2, 3, 7, 16}) {
      const detail::TilePlan a = detail::plan_tiles(sh.M, sh.N, 4 * t, t);
      const std::string at = std::to_string(sh.M) + " x " + std::to_string(sh.N) + ", " + std::to_string(t) + " threads";
      EXPECT_EQ(a.cols % detail::kTileCols == 0 || a.cols == sh.N, true) << at;  // tiles start at column blocks
      // The grid covers D, and no row or column of tiles is empty.
      EXPECT_GE(a.rows * a.row_tiles, sh.M) << at;
      EXPECT_GE(a.cols * a.col_tiles, sh.N) << at;
      EXPECT_LT((a.row_tiles - 1) * a.rows, sh.M) << at;
      EXPECT_LT((a.col_tiles - 1) * a.cols, sh.N) << at;
      // Most threads have a tile where D has enough rows and column blocks (a grid may leave one
      // idle when that makes the tiles smaller: 6 tiles for 7 threads), and at most 8 a thread.
      const size_t tiles = a.row_tiles * a.col_tiles;
      if (sh.M * ((sh.N + 31) / 32) >= 4 * t) {
        EXPECT_GE(4 * tiles, 3 * t) << at;
      }
      EXPECT_LE(tiles, 8 * t) << at;
    }
  // 1024^2 on 2 threads: 8 tiles of a quarter of the columns and half the rows.
  const detail::TilePlan b = detail::plan_tiles(1024, 1024, 8, 2);
  EXPECT_EQ(b.row_tiles * b.col_tiles, 8u);
}

TEST(MmaParallel, MalformedProblemsGetTheSingleThreadedError) {
  const InstrEntry& e = *find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16").entry;
  Rng r(5);
  Problem p = random_problem(e, 70, 9, 2, r);
  p.A.pop_back();
  const MmaResult one = mma(p.view().with(e), Exec{1});
  ASSERT_FALSE(one.error.empty());
  EXPECT_EQ(mma(p.view().with(e), Exec{3}).error, one.error);
  EXPECT_TRUE(mma(p.view().with(e), Exec{3}).D.empty());
  Problem q = random_problem(e, 70, 9, 2, r);
  MmaOptions bad;
  bad.scale_input_d = 16;  // found by every tile
  EXPECT_EQ(mma(q.view().with(e, bad), Exec{3}).error, mma(q.view().with(e, bad), Exec{1}).error);
  EXPECT_THROW(mma(q.view().with(e), Exec{-1}), std::invalid_argument);
}

TEST(MmaParallel, ProgressReachesTheTotal) {
  const InstrEntry& e = *find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16").entry;
  Rng r(6);
  const Problem p = random_problem(e, 200, 17, 2, r);
  double last = -1, total = 0;
  int calls = 0;
  const MmaResult got = mma(p.view().with(e), Exec{2}, [&](double done, double all) {
    EXPECT_GT(done, last);
    last = done;
    total = all;
    ++calls;
  });
  EXPECT_EQ(got.D, mma(p.view().with(e), Exec{1}).D);
  EXPECT_GT(calls, 1);
  EXPECT_EQ(last, 200.0 * 17 * 32);
  EXPECT_EQ(total, last);
}

TEST(Threads, EnvironmentAndExplicitCounts) {
  EXPECT_EQ(thread_count(Exec{5}), 5);
  ::setenv("TCEMU_NUM_THREADS", "3", 1);
  EXPECT_EQ(thread_count(), 3);
  EXPECT_EQ(threads_env_error(), "");
  ::setenv("TCEMU_NUM_THREADS", "3x", 1);
  EXPECT_THROW(thread_count(), std::invalid_argument);
  EXPECT_NE(threads_env_error(), "");
  ::setenv("TCEMU_NUM_THREADS", "0", 1);
  EXPECT_THROW(thread_count(), std::invalid_argument);
  EXPECT_EQ(thread_count(Exec{2}), 2);  // an explicit count does not read the variable
  ::unsetenv("TCEMU_NUM_THREADS");
  EXPECT_GE(thread_count(), 1);
  EXPECT_THROW(thread_count(Exec{kMaxThreads + 1}), std::invalid_argument);
}

TEST(Threads, ParallelForRunsEveryIndexOnceAndRethrows) {
  std::vector<int> hits(1000, 0);
  parallel_for(hits.size(), Exec{7}, [&](size_t i) { ++hits[i]; });
  EXPECT_EQ(hits, std::vector<int>(1000, 1));
  EXPECT_THROW(parallel_for(50, Exec{3}, [](size_t i) { if (i == 17) throw std::runtime_error("x"); }),
               std::runtime_error);
}

}  // namespace
}  // namespace tcemu
