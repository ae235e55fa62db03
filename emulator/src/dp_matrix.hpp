// Internal: the whole-matrix MMA of the generic datapath as plain __host__ __device__ pieces,
// shared by mma.cpp's generic loop (CPU), the CUDA kernels (emulator/cuda/) and the host run
// of those kernels' phases that tests them (emulator/cuda/cuda_plan.hpp, run_plan_on_host):
//  - decoding: A, B and the scales decoded once into the step order (A as M rows of K
//    operands, B transposed to N rows of K, the scales expanded per term (ST-FDPA) or per group
//    (GST-FDPA)), one element per call so that a loop or a grid of threads can run it;
//  - the tiled kernel's phases: a block of kTileM x kTileN D elements walks K in chunks; each
//    chunk's operands are loaded into shared memory by all threads (tile_load), then every
//    thread runs the chunk's steps of its own D element (tile_compute, dp_steps.hpp's
//    chain_step). The CUDA kernel separates the phases with __syncthreads; the host run
//    calls them in the same order.
// Only <cstdint>; every index is int64_t (8192^3 problems have 2^26 D elements and 2^26 operands
// per matrix, and the products of dimensions exceed int32).
#pragma once

#include <cstdint>

#include "dp_steps.hpp"

namespace tcemu::dp {

// Codes of `itemsize` bytes (1, 2, 4 or 8), unsigned, contiguous. A null ptr reads as 0.
struct Codes {
  const void* ptr = nullptr;
  int itemsize = 8;
};

TCEMU_DP_HD uint64_t code_at(const Codes& c, int64_t i) {
  if (!c.ptr) return 0;
  switch (c.itemsize) {
    case 1: return static_cast<const uint8_t*>(c.ptr)[i];
    case 2: return static_cast<const uint16_t*>(c.ptr)[i];
    case 4: return static_cast<const uint32_t*>(c.ptr)[i];
    default: return static_cast<const uint64_t*>(c.ptr)[i];
  }
}

// What decoding needs: the formats, the options that act on operands, the shape, the scale
// layout (nb = K / scale_block scales per row of the codes, sper = K / unit after expansion),
// and the k order within an instruction (korder[j] for j < per_instr; null: k order).
struct DecodeParams {
  FormatRow fa, fb, fs;
  bool widen = false, negate_a = false, negate_b = false;
  int64_t M = 0, N = 0, K = 0;
  int64_t blk = 1, nb = 0, unit = 0, sper = 0;
  const int32_t* korder = nullptr;
  int per_instr = 1;
};

// The code's k of step position j.
TCEMU_DP_HD int64_t k_of(const DecodeParams& d, int64_t j) {
  if (!d.korder) return j;
  return j - j % d.per_instr + d.korder[j % d.per_instr];
}

TCEMU_DP_STEP Operand decode_term(const DecodeParams& d, const FormatRow& f, uint64_t code, bool neg) {
  Operand o = decode_code(f, code);
  if (d.widen) o = dp::widened_to_f16(o);
  if (neg) o.neg ^= 1;
  return o;
}

// Element i of the decoded A (M x K, i = m * K + j) and of the decoded, transposed B (N x K,
// i = n * K + j; B's codes are K x N row-major).
TCEMU_DP_STEP Operand decode_a(const DecodeParams& d, const Codes& A, int64_t i) {
  const int64_t m = i / d.K, j = i % d.K;
  return decode_term(d, d.fa, code_at(A, m * d.K + k_of(d, j)), d.negate_a);
}
TCEMU_DP_STEP Operand decode_bt(const DecodeParams& d, const Codes& B, int64_t i) {
  const int64_t n = i / d.K, j = i % d.K;
  return decode_term(d, d.fb, code_at(B, k_of(d, j) * d.N + n), d.negate_b);
}
// Element i of an expanded scale array (rows x sper, i = r * sper + j) from its codes
// (rows x nb).
TCEMU_DP_STEP Operand decode_scale(const DecodeParams& d, const Codes& s, int64_t i) {
  const int64_t r = i / d.sper, j = i % d.sper;
  return decode_code(d.fs, code_at(s, r * d.nb + j * d.unit / d.blk));
}

// ---- the tiled kernel's phases ------------------------------------------------------------

constexpr int kTileM = 16, kTileN = 16, kTileThreads = kTileM * kTileN;

// Everything a block needs (device pointers on the GPU, host pointers in the host run).
struct TileArgs {
  StepParams p;
  ChainParams ch;
  const Operand *A = nullptr, *Bt = nullptr, *SA = nullptr, *SB = nullptr;  // decoded
  int64_t M = 0, N = 0, sper = 0;
  Codes C;               // M x N accumulator codes (null: +0)
  uint64_t* D = nullptr;  // M x N
  int chunk = 0;          // terms per shared-memory stage: a multiple of ch.L
  int stride = 0;         // row stride of the shared tiles, in operands (>= chunk)
  bool smem_scales = false;  // ST-FDPA: the per-term scales go through shared memory too
};

// The first D element of tiled-kernel block b, blocks numbered row of tiles by row of tiles
// (tiles_n tiles in a row of D).
TCEMU_DP_HD void tile_origin(int64_t b, int64_t tiles_n, int64_t& m0, int64_t& n0) {
  m0 = (b / tiles_n) * kTileM;
  n0 = (b % tiles_n) * kTileN;
}

// Operands of shared memory one block needs.
TCEMU_DP_HD int64_t tile_smem_operands(const TileArgs& t) {
  return int64_t{t.smem_scales ? 2 : 1} * (kTileM + kTileN) * t.stride;
}

// Offset of a shared tile row: A rows [0, kTileM), B rows [kTileM, kTileM + kTileN), then the same for the
// scales (smem_scales); each row `stride` operands, its first cl the chunk's.
TCEMU_DP_HD int64_t tile_row(const TileArgs& t, int which, int r) { return (int64_t{which} * (kTileM + kTileN) + r) * t.stride; }

// Thread tid's share of loading chunk [k0, k0 + cl) of block (m0, n0) into shared memory
// (rows beyond M or N are zero operands). The threads work in groups of kLoadLanes (a warp on
// the GPU), a group one row at a time: the row's 64-bit index arithmetic once per group and
// row, consecutive threads on consecutive operands. nthreads: a multiple of kLoadLanes.
constexpr int kLoadLanes = 32;
TCEMU_DP_HD void tile_load(const TileArgs& t, Operand* smem, int64_t m0, int64_t n0, int64_t k0, int cl, int tid,
                           int nthreads) {
  constexpr int rows = kTileM + kTileN;
  const int nrows = (t.smem_scales ? 2 : 1) * rows;
  const int group = tid / kLoadLanes, lane = tid % kLoadLanes, ngroups = nthreads / kLoadLanes;
  for (int q = group; q < nrows; q += ngroups) {
    const int which = q / rows, r = q % rows;
    const Operand* src = nullptr;  // the row's operand k0; null beyond M or N
    if (r < kTileM) {
      const int64_t m = m0 + r;
      if (m < t.M) src = which ? t.SA + m * t.sper + k0 : t.A + m * t.ch.K + k0;
    } else {
      const int64_t n = n0 + (r - kTileM);
      if (n < t.N) src = which ? t.SB + n * t.sper + k0 : t.Bt + n * t.ch.K + k0;
    }
    Operand* dst = smem + tile_row(t, which, r);
    if (src) {
      for (int j = lane; j < cl; j += kLoadLanes) dst[j] = src[j];
    } else {
      for (int j = lane; j < cl; j += kLoadLanes) dst[j] = Operand{};
    }
  }
}

// The steps of chunk [k0, k0 + cl) from shared memory for D element (m, n); sa, sb the
// per-term scales in shared memory (Scaled: ST-FDPA with smem_scales) or unused.
template <int KindT, bool Scaled>
TCEMU_DP_STEP void tile_steps_shared(const TileArgs& t, ChainState& s, const Operand* a, const Operand* b,
                                     const Operand* sa, const Operand* sb, int64_t k0, int cl) {
  for (int kk = 0; kk < cl; kk += t.ch.L) {
    const int len = cl - kk < t.ch.L ? cl - kk : t.ch.L;
    chain_step<KindT>(t.p, t.ch, s, k0 + kk, len, a + kk, b + kk, Scaled ? sa + kk : nullptr,
                      Scaled ? sb + kk : nullptr);
  }
}

// The steps of chunk [k0, k0 + cl) for D element (m0 + ty, n0 + tx), from shared memory
// (KindT as chain_step's). Each path reads its scales from one memory (shared or global), so
// that a GPU compiler knows the memory of every pointer (no generic loads).
template <int KindT = -1>
TCEMU_DP_STEP void tile_compute(const TileArgs& t, ChainState& s, const Operand* smem, int64_t m0, int64_t n0,
                                int64_t k0, int cl, int ty, int tx) {
  const int64_t m = m0 + ty, n = n0 + tx;
  if (m >= t.M || n >= t.N) return;
  const int unit = scale_unit(t.p);
  const Operand* a = smem + tile_row(t, 0, ty);
  const Operand* b = smem + tile_row(t, 0, kTileM + tx);
  // A kind known at compile time keeps only its own paths: the unscaled kinds read no scales,
  // GST-FDPA's per-group scales never go through shared memory.
  constexpr bool unscaled_kind = KindT == static_cast<int>(DatapathKind::t_fdpa) || KindT == static_cast<int>(DatapathKind::integer);
  constexpr bool scaled_kind = KindT == static_cast<int>(DatapathKind::st_fdpa) || KindT == static_cast<int>(DatapathKind::gst_fdpa);
  constexpr bool gst_kind = KindT == static_cast<int>(DatapathKind::gst_fdpa);
  if constexpr (unscaled_kind) {
    tile_steps_shared<KindT, false>(t, s, a, b, nullptr, nullptr, k0, cl);
  } else if (!gst_kind && t.smem_scales) {
    tile_steps_shared<KindT, true>(t, s, a, b, smem + tile_row(t, 1, ty), smem + tile_row(t, 1, kTileM + tx), k0, cl);
  } else if (!scaled_kind && !unit) {
    tile_steps_shared<KindT, false>(t, s, a, b, nullptr, nullptr, k0, cl);
  } else {
    const Operand* sa = t.SA + m * t.sper;
    const Operand* sb = t.SB + n * t.sper;
    for (int kk = 0; kk < cl; kk += t.ch.L) {
      const int len = cl - kk < t.ch.L ? cl - kk : t.ch.L;
      const int64_t k = k0 + kk;
      chain_step<KindT>(t.p, t.ch, s, k, len, a + kk, b + kk, sa + k / unit, sb + k / unit);
    }
  }
}

// The start and the end of D element (m0 + ty, n0 + tx)'s chain.
TCEMU_DP_STEP ChainState tile_begin(const TileArgs& t, int64_t m, int64_t n) {
  const uint64_t c = (m < t.M && n < t.N) ? code_at(t.C, m * t.N + n) : 0;
  return chain_begin(t.ch, start_c(t.ch, c));
}
TCEMU_DP_STEP void tile_end(const TileArgs& t, const ChainState& s, int64_t m, int64_t n) {
  if (m < t.M && n < t.N) t.D[m * t.N + n] = chain_end(t.ch, s);
}

// One thread per D element without shared memory (the kernel for chunks too large for it):
// D element i = m * N + n.
TCEMU_DP_STEP void element_direct(const TileArgs& t, int64_t i) {
  const int64_t m = i / t.N, n = i % t.N, K = t.ch.K;
  const int unit = scale_unit(t.p);
  const uint64_t c = start_c(t.ch, code_at(t.C, i));
  t.D[i] = chain_element(t.p, t.ch, t.A + m * K, t.Bt + n * K, unit ? t.SA + m * t.sper : nullptr,
                         unit ? t.SB + n * t.sper : nullptr, c);
}

}  // namespace tcemu::dp
