// Internal, host only: how the CUDA backend computes a validated problem (the plan), and the
// same computation run on the host in the kernels' order (run_plan_on_host), which the host
// tests compare with the CPU emulator and the committed golden set where no GPU exists.
//
// A plan: operands decoded into dp_matrix.hpp's layout (one thread per element: decode_a,
// decode_bt, decode_scale), then either the tiled kernel (blocks of kTileM x kTileN D elements;
// K walked in chunks through shared memory: tile_load, then tile_compute) or, where a chunk
// does not fit in shared memory, one thread per D element (element_direct).
#pragma once

#include <cstddef>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "../src/dp_host.hpp"
#include "../src/mma_checks.hpp"

namespace tcemu::cuda_detail {

// Kernel arguments are copied to the device byte for byte, and the shared-memory layout
// (odd row stride: the rows of consecutive threads in different banks) assumes an operand of
// three 4-byte words.
static_assert(std::is_trivially_copyable_v<dp::TileArgs> && std::is_trivially_copyable_v<dp::DecodeParams> &&
              std::is_trivially_copyable_v<dp::Codes>);
static_assert(sizeof(Operand) == 12 && alignof(Operand) == 4);

struct Plan {
  dp::StepParams step;
  dp::ChainParams chain;
  dp::DecodeParams dec;         // dec.korder: set to the table's copy where it runs
  std::vector<int32_t> korder;  // k order within an instruction; empty: k order
  int64_t M = 0, N = 0, K = 0;
  int chunk = 0, stride = 0;
  bool smem_scales = false;
  size_t smem_bytes = 0;  // per block for the tiled kernel
};

// Terms per shared-memory stage the plan aims at (rounded to whole steps, at least one).
constexpr int kChunkTarget = 64;

inline Plan make_plan(const DatapathParams& p, const detail::ProblemShape& s, int instr_k, const MmaOptions& opt) {
  Plan pl;
  pl.step = dp::step_params(p);
  pl.chain = dp::chain_params(p, s.K, instr_k, opt);
  pl.korder = dp::korder_table(p, instr_k);
  pl.dec = dp::decode_params(p, s.M, s.N, s.K, s.atype, s.btype, s.scale_type, s.scale_block, instr_k, opt, nullptr);
  // ST-FDPA's steps start at multiples of L and its scale blocks at multiples of the block, so
  // each run of gcd(L, block) terms from a step's start shares one scale pair.
  if (p.kind == DatapathKind::st_fdpa) pl.chain.srun = std::gcd(pl.chain.L, s.scale_block);
  pl.M = s.M;
  pl.N = s.N;
  pl.K = s.K;
  const int L = pl.chain.L;
  pl.chunk = L * (L < kChunkTarget ? kChunkTarget / L : 1);
  if (pl.chunk > s.K) pl.chunk = s.K;  // K is a multiple of L
  // An odd stride (in 12-byte operands: an odd number of 4-byte words) puts the rows of
  // consecutive threads in different shared-memory banks.
  pl.stride = pl.chunk | 1;
  pl.smem_scales = p.kind == DatapathKind::st_fdpa;
  pl.smem_bytes = static_cast<size_t>((pl.smem_scales ? 2 : 1) * (dp::kTileM + dp::kTileN) * pl.stride) * sizeof(Operand);
  return pl;
}

// The launch of the grid-stride kernels (decode, direct): kStrideThreads per block, at most
// kMaxStrideBlocks blocks (the threads then loop), at least one.
constexpr int kStrideThreads = 256;
constexpr int64_t kMaxStrideBlocks = 65536;
inline unsigned stride_blocks(int64_t count) {
  const int64_t b = (count + kStrideThreads - 1) / kStrideThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > kMaxStrideBlocks ? kMaxStrideBlocks : b));
}

// The launch of the tiled kernel: one block of dp::kTileThreads per tile of D, numbered row of
// tiles by row of tiles in a one-dimensional grid (gridDim.x reaches 2^31 - 1, gridDim.y and z
// only 65535, which a tall or wide D would pass). error: D has more tiles than one launch holds.
struct TileLaunch {
  int64_t tiles_n = 0;
  unsigned blocks = 0;
  std::string error;
};
constexpr int64_t kMaxGridX = 2147483647;
inline TileLaunch tile_launch(const Plan& pl) {
  TileLaunch l;
  const int64_t tiles_m = (pl.M + dp::kTileM - 1) / dp::kTileM;
  l.tiles_n = (pl.N + dp::kTileN - 1) / dp::kTileN;
  if (tiles_m * l.tiles_n > kMaxGridX) {
    l.error = "D has " + std::to_string(tiles_m * l.tiles_n) + " tiles of " + std::to_string(dp::kTileM) + " x " +
              std::to_string(dp::kTileN) + ", more than one kernel launch holds (" + std::to_string(kMaxGridX) + ")";
    return l;
  }
  l.blocks = static_cast<unsigned>(tiles_m * l.tiles_n);
  return l;
}

inline dp::TileArgs tile_args(const Plan& pl, const Operand* A, const Operand* Bt, const Operand* SA, const Operand* SB,
                              dp::Codes C, uint64_t* D) {
  dp::TileArgs t;
  t.p = pl.step;
  t.ch = pl.chain;
  t.A = A;
  t.Bt = Bt;
  t.SA = SA;
  t.SB = SB;
  t.M = pl.M;
  t.N = pl.N;
  t.sper = pl.dec.sper;
  t.C = C;
  t.D = D;
  t.chunk = pl.chunk;
  t.stride = pl.stride;
  t.smem_scales = pl.smem_scales;
  return t;
}

// The codes of a problem: host or device pointers with their item sizes.
struct ProblemCodes {
  dp::Codes A, B, C, sa, sb;
};

// tile_compute instantiated for the plan's kind, as the tiled kernel is (tile_kernel<Kind>).
inline void tile_compute_for_kind(const dp::TileArgs& t, dp::ChainState& s, const Operand* smem, int64_t m0, int64_t n0,
                                  int64_t k0, int cl, int ty, int tx) {
  switch (t.p.kind) {
    case DatapathKind::t_fdpa: return dp::tile_compute<static_cast<int>(DatapathKind::t_fdpa)>(t, s, smem, m0, n0, k0, cl, ty, tx);
    case DatapathKind::st_fdpa: return dp::tile_compute<static_cast<int>(DatapathKind::st_fdpa)>(t, s, smem, m0, n0, k0, cl, ty, tx);
    case DatapathKind::gst_fdpa: return dp::tile_compute<static_cast<int>(DatapathKind::gst_fdpa)>(t, s, smem, m0, n0, k0, cl, ty, tx);
    case DatapathKind::integer: break;
  }
  dp::tile_compute<static_cast<int>(DatapathKind::integer)>(t, s, smem, m0, n0, k0, cl, ty, tx);
}

// The plan run on the host exactly as the GPU runs it: the decode kernels' elements, then
// either every block of the tiled kernel (each chunk: every thread's share of the load, then
// every thread's steps; blocks as tile_launch numbers them) or every thread of the direct
// kernel. `tiled` chooses the kernel.
inline std::vector<uint64_t> run_plan_on_host(Plan pl, const ProblemCodes& in, bool tiled) {
  pl.dec.korder = pl.korder.empty() ? nullptr : pl.korder.data();
  const dp::DecodeParams& d = pl.dec;
  std::vector<Operand> A(static_cast<size_t>(d.M * d.K)), Bt(static_cast<size_t>(d.N * d.K));
  std::vector<Operand> SA(static_cast<size_t>(d.M * d.sper)), SB(static_cast<size_t>(d.N * d.sper));
  for (size_t i = 0; i < A.size(); ++i) A[i] = dp::decode_a(d, in.A, static_cast<int64_t>(i));
  for (size_t i = 0; i < Bt.size(); ++i) Bt[i] = dp::decode_bt(d, in.B, static_cast<int64_t>(i));
  for (size_t i = 0; i < SA.size(); ++i) SA[i] = dp::decode_scale(d, in.sa, static_cast<int64_t>(i));
  for (size_t i = 0; i < SB.size(); ++i) SB[i] = dp::decode_scale(d, in.sb, static_cast<int64_t>(i));
  std::vector<uint64_t> D(static_cast<size_t>(pl.M * pl.N));
  const dp::TileArgs t = tile_args(pl, A.data(), Bt.data(), SA.data(), SB.data(), in.C, D.data());
  if (!tiled) {
    for (int64_t i = 0; i < pl.M * pl.N; ++i) dp::element_direct(t, i);
    return D;
  }
  std::vector<Operand> smem(static_cast<size_t>(dp::tile_smem_operands(t)));
  std::vector<dp::ChainState> st(dp::kTileThreads);
  const TileLaunch l = tile_launch(pl);
  if (!l.error.empty()) return {};
  for (int64_t blk = 0; blk < l.blocks; ++blk) {
    int64_t m0 = 0, n0 = 0;
    dp::tile_origin(blk, l.tiles_n, m0, n0);
    for (int tid = 0; tid < dp::kTileThreads; ++tid)
      st[static_cast<size_t>(tid)] = dp::tile_begin(t, m0 + tid / dp::kTileN, n0 + tid % dp::kTileN);
    for (int64_t k0 = 0; k0 < pl.K; k0 += pl.chunk) {
      const int cl = static_cast<int>(pl.K - k0 < pl.chunk ? pl.K - k0 : pl.chunk);
      for (int tid = 0; tid < dp::kTileThreads; ++tid) dp::tile_load(t, smem.data(), m0, n0, k0, cl, tid, dp::kTileThreads);
      for (int tid = 0; tid < dp::kTileThreads; ++tid)
        tile_compute_for_kind(t, st[static_cast<size_t>(tid)], smem.data(), m0, n0, k0, cl, tid / dp::kTileN, tid % dp::kTileN);
    }
    for (int tid = 0; tid < dp::kTileThreads; ++tid)
      dp::tile_end(t, st[static_cast<size_t>(tid)], m0 + tid / dp::kTileN, n0 + tid % dp::kTileN);
  }
  return D;
}

}  // namespace tcemu::cuda_detail
