// The CUDA backend's plan and launch shapes (cuda_plan.hpp) on the shapes a GPU run meets:
// 8192 x 8192 D, tall and wide D (M = 2^20, N = 16 and the transpose), partial tiles, and D
// too large for one launch; every catalog family's shared-memory chunk at K = 8192. A launch
// a GPU would refuse (grid dimensions, shared memory) shows here without a GPU.
#include <gtest/gtest.h>

#include <climits>
#include <set>
#include <utility>

#include "../../emulator/cuda/cuda_plan.hpp"
#include "emu_cases.hpp"

namespace tcemu {
namespace {

// The plan of entry e for an M x N x K problem (the problem checks passed: K a multiple of e.K).
cuda_detail::Plan plan_for(const InstrEntry& e, int M, int N, int K) {
  detail::ProblemShape s;
  s.M = M;
  s.N = N;
  s.K = K;
  s.atype = e.atype;
  s.btype = e.btype;
  s.scale_type = e.scale_type;
  s.scale_block = e.scale_block;
  return cuda_detail::make_plan(e.params, s, e.K, MmaOptions{});
}

const InstrEntry& mxf4nvf4() {
  const InstrLookup lk = find_instruction("sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
                                          Fmt::e2m1, Fmt::e2m1, AccType::f32, Fmt::ue4m3);
  EXPECT_NE(lk.entry, nullptr) << lk.error;
  return *lk.entry;
}

TEST(GpuEmuPlan, TileLaunchOnLargeTallAndWideShapes) {
  const InstrEntry& e = mxf4nvf4();
  // {M, N, blocks, tiles per row of D}: a one-dimensional grid, far below gridDim.x's 2^31 - 1.
  const struct {
    int M, N;
    unsigned blocks;
    int64_t tiles_n;
  } shapes[] = {{8192, 8192, 262144, 512}, {1 << 20, 16, 65536, 1}, {16, 1 << 20, 65536, 65536},
                {1 << 20, 1 << 10, 4194304, 64}, {17, 33, 6, 3}, {1, 1, 1, 1}};
  for (const auto& sh : shapes) {
    const cuda_detail::TileLaunch l = cuda_detail::tile_launch(plan_for(e, sh.M, sh.N, 64));
    EXPECT_EQ(l.error, "") << sh.M << " x " << sh.N;
    EXPECT_EQ(l.blocks, sh.blocks) << sh.M << " x " << sh.N;
    EXPECT_EQ(l.tiles_n, sh.tiles_n) << sh.M << " x " << sh.N;
  }
  // More tiles than one launch holds: a message, not a launch with a wrapped block count.
  const cuda_detail::TileLaunch huge = cuda_detail::tile_launch(plan_for(e, INT_MAX, INT_MAX, 64));
  EXPECT_NE(huge.error.find("more than one kernel launch holds"), std::string::npos) << huge.error;
  EXPECT_EQ(huge.blocks, 0u);
}

TEST(GpuEmuPlan, EveryBlockOriginCoversDOnce) {
  const InstrEntry& e = mxf4nvf4();
  for (const auto& [M, N] : {std::pair{17, 33}, std::pair{16, 16}, std::pair{1, 100}, std::pair{100, 1}}) {
    const cuda_detail::TileLaunch l = cuda_detail::tile_launch(plan_for(e, M, N, 64));
    std::set<std::pair<int64_t, int64_t>> seen;
    for (int64_t b = 0; b < l.blocks; ++b) {
      int64_t m0 = 0, n0 = 0;
      dp::tile_origin(b, l.tiles_n, m0, n0);
      EXPECT_TRUE(m0 < M && n0 < N && m0 % dp::kTileM == 0 && n0 % dp::kTileN == 0) << m0 << " " << n0;
      seen.insert({m0, n0});
    }
    const size_t tiles = static_cast<size_t>((M + dp::kTileM - 1) / dp::kTileM) * static_cast<size_t>((N + dp::kTileN - 1) / dp::kTileN);
    EXPECT_EQ(seen.size(), tiles) << M << " x " << N;
    EXPECT_EQ(static_cast<size_t>(l.blocks), tiles);
  }
}

TEST(GpuEmuPlan, GridStrideBlocksStayWithinLimits) {
  EXPECT_EQ(cuda_detail::stride_blocks(0), 1u);
  EXPECT_EQ(cuda_detail::stride_blocks(1), 1u);
  EXPECT_EQ(cuda_detail::stride_blocks(256), 1u);
  EXPECT_EQ(cuda_detail::stride_blocks(257), 2u);
  EXPECT_EQ(cuda_detail::stride_blocks(int64_t{8192} * 8192), 65536u);  // decode of an 8192 x 8192 operand
  EXPECT_EQ(cuda_detail::stride_blocks(int64_t{1} << 40), 65536u);
}

// Every family at K = 8192 (and at its instruction's K): whole steps per chunk, an odd row
// stride, and shared memory within what every sm_80+ GPU grants a block with the opt-in
// (163 KiB on sm_80; above 48 KiB the kernel asks for it with cudaFuncSetAttribute).
TEST(GpuEmuPlan, ChunksOfEveryFamilyFitSharedMemory) {
  for (const InstrEntry* e : test::family_entries()) {
    for (int K : {e->K, 8192 / e->K * e->K}) {
      const cuda_detail::Plan pl = plan_for(*e, 8192, 8192, K);
      EXPECT_GT(pl.chunk, 0) << e->ptx;
      EXPECT_EQ(pl.chunk % pl.chain.L, 0) << e->ptx;
      EXPECT_LE(pl.chunk, K) << e->ptx;
      EXPECT_EQ(pl.stride % 2, 1) << e->ptx;
      EXPECT_GE(pl.stride, pl.chunk) << e->ptx;
      EXPECT_EQ(pl.smem_scales, e->params.kind == DatapathKind::st_fdpa) << e->ptx;
      const dp::TileArgs t = cuda_detail::tile_args(pl, nullptr, nullptr, nullptr, nullptr, {}, nullptr);
      EXPECT_EQ(pl.smem_bytes, static_cast<size_t>(dp::tile_smem_operands(t)) * sizeof(Operand)) << e->ptx;
      EXPECT_LE(pl.smem_bytes, size_t{163} << 10) << e->ptx;
    }
  }
}

}  // namespace
}  // namespace tcemu
