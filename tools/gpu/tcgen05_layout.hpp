// tcgen05.mma as tcemu-gpu runs it (host and device; see docs/gpu.md, "tcgen05.mma"):
//
//  - One kernel per catalog spelling of tcgen05.mma, cta_group::1 and ::2 (kind, block scaling,
//    scale_vec; CTA pairs: see kTcgen05InstrM and kTcgen05PairSfaCol): the
//    types, M, N and negation are runtime bits of the instruction descriptor (PTX ISA
//    9.7.16.4.2, Tables 42-44), built on the host by fragment_layout.hpp's tcgen05_idesc.
//  - A cta_group::1 launch is one instruction of shape M = 128, N = 16 (valid for every kind with
//    cta_group::1, Table 39) whose D data-path layout is the simplest of the ISA's: row i of D
//    in TMEM lane i, column j in column j (9.7.16.10.5.4, "Layout D"). Only rows 0..31 and
//    columns 0..7 carry a case's operands (a "device tile" of 32 x 8); the other rows of A and
//    columns of B are zero and their D is not read. 32 rows keep the scale factors in lanes
//    0..31 of column 0, where every reading of the ISA's scale-factor figures agrees.
//  - A (128 x K) and B (16 x K, stored N x K) sit in shared memory K-major without swizzle
//    (core matrices of 8 rows x 16 bytes, LBO = 128 between K neighbours, SBO = 256 between
//    8-row groups; 9.7.16.4.1 and fragment_layout.hpp's kmajor_offset); one K step is 32 bytes
//    per row for every kind.
#pragma once

#include <cstdint>

#include "fragment_layout.hpp"

namespace tcemu_gpu::layout {

// The kernels built, in the order of kTcgen05Spellings (device template argument).
enum class Tcgen05Variant : int {
  f16, tf32, f8f6f4, i8, mxf8f6f4_1x, mxf4_2x, mxf4nvf4_2x, mxf4nvf4_4x,  // cta_group::1
  pair_f16, pair_tf32, pair_f8f6f4, pair_i8,                             // cta_group::2
  pair_mxf8f6f4_1x, pair_mxf4_2x, pair_mxf4nvf4_2x, pair_mxf4nvf4_4x     // cta_group::2, block-scaled
};
inline constexpr int kTcgen05Variants = 16;
// The kinds of variants 0-7 (cta_group::1) and, in the same order, 8-15 (cta_group::2):
// X(index within the group, text after ".kind::", Tcgen05Kind, block-scaled). The one list
// the spellings, tcgen05_variant_kind, tcgen05_block_scaled and the kernels' inline assembly
// (tcgen05_device.cu) are built from.
#define TCEMU_TCGEN05_KINDS(X)                                    \
  X(0, "f16", f16, false)                                         \
  X(1, "tf32", tf32, false)                                       \
  X(2, "f8f6f4", f8f6f4, false)                                   \
  X(3, "i8", i8, false)                                           \
  X(4, "mxf8f6f4.block_scale.scale_vec::1X", mxf8f6f4, true)      \
  X(5, "mxf4.block_scale.scale_vec::2X", mxf4, true)              \
  X(6, "mxf4nvf4.block_scale.scale_vec::2X", mxf4nvf4, true)      \
  X(7, "mxf4nvf4.block_scale.scale_vec::4X", mxf4nvf4, true)
inline constexpr const char* kTcgen05Spellings[kTcgen05Variants] = {
#define TCEMU_TCGEN05_SPELLING_1(I, KIND, E, SCALED) "tcgen05.mma.cta_group::1.kind::" KIND,
#define TCEMU_TCGEN05_SPELLING_2(I, KIND, E, SCALED) "tcgen05.mma.cta_group::2.kind::" KIND,
    TCEMU_TCGEN05_KINDS(TCEMU_TCGEN05_SPELLING_1) TCEMU_TCGEN05_KINDS(TCEMU_TCGEN05_SPELLING_2)
#undef TCEMU_TCGEN05_SPELLING_1
#undef TCEMU_TCGEN05_SPELLING_2
};
TCEMU_FL_HD inline Tcgen05Kind tcgen05_variant_kind(int v) {
#define TCEMU_TCGEN05_KIND_ENUM(I, KIND, E, SCALED) Tcgen05Kind::E,
  constexpr Tcgen05Kind k[kTcgen05Variants / 2] = {TCEMU_TCGEN05_KINDS(TCEMU_TCGEN05_KIND_ENUM)};
#undef TCEMU_TCGEN05_KIND_ENUM
  return k[v % 8];
}
TCEMU_FL_HD constexpr bool tcgen05_block_scaled(int v) {
#define TCEMU_TCGEN05_KIND_SCALED(I, KIND, E, SCALED) SCALED,
  constexpr bool b[kTcgen05Variants / 2] = {TCEMU_TCGEN05_KINDS(TCEMU_TCGEN05_KIND_SCALED)};
#undef TCEMU_TCGEN05_KIND_SCALED
  return b[v % 8];
}
// CTAs per instruction: 2 for cta_group::2 (a CTA pair in a cluster of 2).
TCEMU_FL_HD constexpr int tcgen05_ctas(int v) { return v >= 8 ? 2 : 1; }

// Shapes of one launch and of the part of it a case uses, per CTA. cta_group::2 runs M = 256,
// N = 32 (Table 39; Layout A, 9.7.16.10.5.1: each CTA holds 128 rows of A and of D, D's rows
// in lanes 0..127 and all N columns; B is split along N, each CTA holding 16 of its columns in
// shared memory, the same descriptor in both): rows 0..31 of each CTA carry a case's rows (a
// device tile of 64 x 8), B's columns 0..7 sit in the even CTA and the odd CTA's half is zero.
inline constexpr int kTcgen05InstrM = 128, kTcgen05InstrN = 16;  // cta_group::1; times 2 for ::2
inline constexpr int kTcgen05TileM = 32, kTcgen05TileN = 8;        // per CTA
inline constexpr int kTcgen05RowBytes = 32;  // one K step of one row of A or B, every kind
inline constexpr uint32_t kTcgen05Lbo = 128, kTcgen05Sbo = 256;
// Bytes per device tile the host passes: rows 0..31 of A, rows (columns of B) 0..7 of B; the
// kernel zero-fills the rest of the 128- and 16-row images.
inline constexpr int kTcgen05AImage = kTcgen05TileM * kTcgen05RowBytes;  // 1024
inline constexpr int kTcgen05BImage = kTcgen05TileN * kTcgen05RowBytes;  // 256
inline constexpr int kTcgen05AFull = kTcgen05InstrM * kTcgen05RowBytes;  // 4096
inline constexpr int kTcgen05BFull = kTcgen05InstrN * kTcgen05RowBytes;  // 512
// Tensor memory columns used (32 allocated, the minimum): D (and C) in 0..15, one 32-bit word
// of scale_A in column 16 and of scale_B in column 24.
inline constexpr int kTcgen05TmemCols = 32, kTcgen05SfaCol = 16, kTcgen05SfbCol = 24;
// A CTA pair's D takes columns 0..31 (N = 32), so its kernels allocate 64 columns
// (tcgen05.alloc.cta_group::2) and keep the scale-factor words in columns 32 and 40, the same
// TMEM address in both CTAs (the pair's allocation returns one address). Where each CTA of the
// pair keeps the scale factors comes from public code, not from an ISA figure (docs/gpu.md,
// "tcgen05.mma"):
//  - scale_A is split along M like A and D: CTA p holds the words of its own 128 rows (rows
//    0..31 used: lanes 0..31 of column 32, one word per row as for cta_group::1);
//  - scale_B is NOT split like B: each CTA holds the words of all N columns of the
//    instruction, the same words in both (columns 0..7 used: lanes 0..7 of column 40).
// Sources: CUTLASS include/cutlass/gemm/collective/sm100_blockscaled_mma_warpspecialized.hpp
// (SFB tiled per CTA with the whole CTA N through a one-CTA scale-factor atom: "The M-dim does
// not affect the SFB"), CUTLASS examples/cute/tutorial/blackwell/mxfp8/
// 04_mma_tma_2sm_sm100_mxfp8.cu ("SFB is NOT split (each peer CTA holds full N)"; A and SFA
// split along M between the peer CTAs), Triton python/examples/gluon/
// 04-2cta-block-scale-matmul.py (scale-A TMEM layout split over the pair, scale-B replicated).
// The used columns 0..7 of B lie in the even CTA's half of B, so a split like B's (CTA 0's
// lanes 0..15 holding its 16 columns) would read the same words: the placement holds under
// either reading, and under either answer to which CTA's copy of scale_B the MMA reads.
inline constexpr int kTcgen05PairTmemCols = 64, kTcgen05PairSfaCol = 32, kTcgen05PairSfbCol = 40;

// Bit position of element k (0 <= k < the kind's K) in the 32-byte K row of its operand:
//  - kind::mxf4 / mxf4nvf4: packed e2m1, two per byte, element k in bits 4k..4k+3
//    (9.7.16.10.4: K = 64 in 32 bytes);
//  - kind::f8f6f4 / mxf8f6f4 with FP6 or FP4 elements: 16 elements packed contiguously, then
//    padded to 16 bytes (9.7.16.10.4.4, Figures 202-203; the layout TMA's .b6x16_p32 and
//    .b4x16_p64 produce): element k at bit 128*(k/16) + bits*(k%16);
//  - otherwise each element fills its own width (f16/bf16 16 bits, tf32 32, 8-bit types 8).
TCEMU_FL_HD inline int tcgen05_elem_bit(Tcgen05Kind kind, int code_bits, int k) {
  if (kind == Tcgen05Kind::mxf4 || kind == Tcgen05Kind::mxf4nvf4) return 4 * k;
  if ((kind == Tcgen05Kind::f8f6f4 || kind == Tcgen05Kind::mxf8f6f4) && code_bits < 8)
    return 128 * (k / 16) + code_bits * (k % 16);
  return code_bits * k;
}

}  // namespace tcemu_gpu::layout
