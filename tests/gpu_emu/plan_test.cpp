// The CUDA backend's plan and launch shapes (cuda_plan.hpp) on the shapes a GPU run meets:
// 8192 x 8192 D, tall and wide D (M = 2^20, N = 16 and the transpose), partial tiles, and D
// too large for one launch; every catalog family's shared-memory chunk at K = 8192. A launch
// a GPU would refuse (grid dimensions, shared memory) shows here without a GPU.
#include <gtest/gtest.h>

#include <climits>
#include <set>
#include <utility>
#include <vector>

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
// stride, ST-FDPA's scale runs, and shared memory within what every sm_80+ GPU grants a block with the opt-in
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
      // ST-FDPA's scale runs: whole scale blocks within whole steps (gcd(L, block)).
      if (e->params.kind == DatapathKind::st_fdpa) {
        EXPECT_EQ(pl.chain.L % pl.chain.srun, 0) << e->ptx;
        EXPECT_EQ(e->scale_block % pl.chain.srun, 0) << e->ptx;
      } else {
        EXPECT_EQ(pl.chain.srun, 1) << e->ptx;
      }
      const dp::TileArgs t = cuda_detail::tile_args(pl, nullptr, nullptr, nullptr, nullptr, {}, nullptr);
      EXPECT_EQ(pl.smem_bytes, static_cast<size_t>(dp::tile_smem_operands(t)) * sizeof(Operand)) << e->ptx;
      EXPECT_LE(pl.smem_bytes, size_t{163} << 10) << e->ptx;
    }
  }
}

// tile_load by every thread of a block: each element of the chunk's rows of A, B (and the
// scales) lands once, rows beyond M or N are zero operands, for every chunk length (those
// that are not a multiple of the 32 lanes of a load group included) and a thread count other
// than 256.
TEST(GpuEmuPlan, TileLoadPlacesEveryElementOnce) {
  const int64_t M = 20, N = 9, K = 200, sper = 200;
  auto tagged = [](int64_t rows, int64_t cols, uint32_t tag) {
    std::vector<Operand> v(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < v.size(); ++i) v[i].sig = tag + static_cast<uint32_t>(i) + 1;
    return v;
  };
  const std::vector<Operand> A = tagged(M, K, 0), Bt = tagged(N, K, 100000), SA = tagged(M, sper, 200000),
                             SB = tagged(N, sper, 300000);
  const int64_t m0 = 16, n0 = 0, k0 = 64;  // A rows 20 .. 31 and B rows 9 .. 15 lie beyond D
  for (bool scales : {false, true})
    for (int nthreads : {256, 96})
      for (int cl = 1; cl <= 136; ++cl) {
        dp::TileArgs t;
        t.ch.K = K;
        t.A = A.data();
        t.Bt = Bt.data();
        t.SA = SA.data();
        t.SB = SB.data();
        t.M = M;
        t.N = N;
        t.sper = sper;
        t.chunk = 136;
        t.stride = 137;
        t.smem_scales = scales;
        Operand sentinel;
        sentinel.special = 7;
        std::vector<Operand> smem(static_cast<size_t>(dp::tile_smem_operands(t)), sentinel);
        for (int tid = 0; tid < nthreads; ++tid) dp::tile_load(t, smem.data(), m0, n0, k0, cl, tid, nthreads);
        size_t bad = 0;
        for (int which = 0; which < (scales ? 2 : 1); ++which)
          for (int r = 0; r < dp::kTileM + dp::kTileN; ++r)
            for (int j = 0; j < t.stride; ++j) {
              const Operand& got = smem[static_cast<size_t>(dp::tile_row(t, which, r) + j)];
              uint32_t want_sig = 0;
              const bool loaded = j < cl;
              if (loaded && r < dp::kTileM && m0 + r < M)
                want_sig = (which ? SA : A)[static_cast<size_t>((m0 + r) * K + k0 + j)].sig;
              if (loaded && r >= dp::kTileM && n0 + r - dp::kTileM < N)
                want_sig = (which ? SB : Bt)[static_cast<size_t>((n0 + r - dp::kTileM) * K + k0 + j)].sig;
              bad += loaded ? (got.special != 0 || got.sig != want_sig) : got.special != 7;
            }
        EXPECT_EQ(bad, 0u) << "cl " << cl << " threads " << nthreads << (scales ? " with scales" : "");
      }
}

}  // namespace
}  // namespace tcemu
