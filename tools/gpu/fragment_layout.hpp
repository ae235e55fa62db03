// Operand layouts of the tensor-core instructions: which lane and which register (and which
// bits of it) hold which matrix element, where the block scale factors sit, and where wgmma /
// tcgen05 read their operands in shared memory. Plain functions compiled for host and device
// (TCEMU_FL_HD), so the kernels of tcemu-gpu and its host-side packing use the same code and the
// host unit tests (tests/gpu/fragment_layout_test.cpp) check it against the PTX ISA's tables.
//
// Section numbers are those of the PTX ISA 9.x ("Parallel Thread Execution ISA", NVIDIA):
//   9.7.14.5.1   Matrix Fragments for mma.m8n8k4 with .f16 floating point type
//   9.7.14.5.7   Matrix Fragments for mma.m16n8k8 (f16/bf16 and tf32)
//   9.7.14.5.6   Matrix Fragments for mma.m16n8k4 (tf32)
//   9.7.14.5.8/9 Matrix Fragments for mma.m16n8k16 (floating point / integer and FP8)
//   9.7.14.5.10  Matrix Fragments for mma.m16n8k32 (s4/u4; s8/u8/e4m3/e5m2/e3m2/e2m3/e2m1)
//   9.7.14.5.11  Matrix Fragments for mma.m16n8k64 (s4/u4/e2m1)
//   9.7.14.3     Block Scaling for mma.sync (scale-a/b-data, {byte-id, thread-id} selectors)
//   9.7.15.5.1.1 wgmma Register Fragments (C/D of m64nNk*)
//   9.7.15.5.1.2 Shared Memory Matrix Layout (core matrices 8 rows x 16 bytes, LBO/SBO)
//   9.7.15.5.1.2.1 Matrix Descriptor Format (wgmma)
//   9.7.16.4.1   tcgen05 Shared memory descriptor; 9.7.16.4.2 Instruction descriptor
//   9.7.16.10.7  tcgen05 Block Scaling: Scale Factor A ID / B ID (byte offsets in a TMEM word)
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TCEMU_FL_HD __host__ __device__
#else
#define TCEMU_FL_HD
#endif

namespace tcemu_gpu::layout {

// A matrix position. For mma.m8n8k4 `sub` is which of the warp's 4 independent MMAs (the
// quad-pair, 9.7.14.5.1); 0 elsewhere.
struct Coord {
  int row = 0, col = 0, sub = 0;
};

enum class Operand : uint8_t { A, B, C };  // C stands for C and D (same layout)

// The operand layout class of an mma.sync instruction: its shape and the width in bits of one
// element in the registers (16 f16/bf16, 32 tf32, 8 for s8/u8/FP8 and the FP6/FP4 of
// kind::f8f6f4, which travel in 8-bit containers, 4 for s4/u4 and the packed e2m1 of
// kind::mxf4/mxf4nvf4) and of one accumulator element (32 f32/s32, 16 f16).
struct MmaSyncShape {
  int m = 16, n = 8, k = 16;
  int ab_bits = 16;
  int c_bits = 32;
};

// Elements of each operand one lane holds.
TCEMU_FL_HD inline int mma_elems_per_lane(const MmaSyncShape& s, Operand op) {
  if (s.m == 8 && s.n == 8 && s.k == 4) return op == Operand::C ? 8 : 4;  // each quad-pair: 4 MMAs
  switch (op) {
    case Operand::A: return s.m * s.k / 32;
    case Operand::B: return s.k * s.n / 32;
    default: return s.m * s.n / 32;
  }
}
TCEMU_FL_HD inline int elem_bits(const MmaSyncShape& s, Operand op) { return op == Operand::C ? s.c_bits : s.ab_bits; }
// 32-bit registers of an operand per lane (f16x2 pairs count as one register).
TCEMU_FL_HD inline int mma_regs_per_lane(const MmaSyncShape& s, Operand op) {
  return (mma_elems_per_lane(s, op) * elem_bits(s, op) + 31) / 32;
}
// Element i of a lane lives in register i*bits/32 at bit (i*bits)%32: "elements (low to
// high)" in the ISA's fragment tables.
TCEMU_FL_HD inline int elem_reg(const MmaSyncShape& s, Operand op, int i) { return i * elem_bits(s, op) / 32; }
TCEMU_FL_HD inline int elem_shift(const MmaSyncShape& s, Operand op, int i) { return i * elem_bits(s, op) % 32; }

// True for the shapes/element widths the functions below know (the ones PTX defines for
// mma.sync with .row.col and dense operands, b1 and f64 excepted).
TCEMU_FL_HD inline bool mma_sync_supported(const MmaSyncShape& s) {
  if (s.m == 8 && s.n == 8 && s.k == 4) return s.ab_bits == 16 && (s.c_bits == 16 || s.c_bits == 32);
  if (s.m != 16 || s.n != 8) return false;
  switch (s.k) {
    case 4: return s.ab_bits == 32;
    case 8: return s.ab_bits == 16 || s.ab_bits == 32;
    case 16: return s.ab_bits == 16 || s.ab_bits == 8;
    case 32: return s.ab_bits == 8 || s.ab_bits == 4;
    case 64: return s.ab_bits == 4;
    default: return false;
  }
}

// Row and column (A: M x K, B: K x N, C/D: M x N) of element i held by `lane`.
// A is .row and B is .col (the only layouts of the m16n8k* shapes; for m8n8k4 the ones the
// catalog's spellings use), which the formulas below encode.
TCEMU_FL_HD inline Coord mma_sync_coord(const MmaSyncShape& s, Operand op, int lane, int i) {
  const int g = lane >> 2, t = lane & 3;  // groupID, threadID_in_group
  Coord c;
  if (s.m == 8 && s.n == 8 && s.k == 4) {
    // 9.7.14.5.1: quad-pair q = lanes 4q..4q+3 (low) and 4q+16..4q+19 (high).
    c.sub = (lane >> 2) & 3;
    const int hi = lane >= 16 ? 4 : 0;
    switch (op) {
      case Operand::A: c.row = (lane & 3) + hi; c.col = i; break;  // row-major A
      case Operand::B: c.row = i; c.col = (lane & 3) + hi; break;  // column-major B
      default:
        if (s.c_bits == 16) {
          c.row = (lane & 3) + hi;
          c.col = i;
        } else {  // f32: X = (lane & 0b1) + (i & 0b10); col = (i & 0b100) + (lane & 0b10) + (i & 0b1)
          c.row = (lane & 1) + (i & 2) + hi;
          c.col = (i & 4) + (lane & 2) + (i & 1);
        }
    }
    return c;
  }
  if (op == Operand::C) {  // every m16n8k*: row g (+8 for c2, c3), col 2t + (i & 1)
    c.row = g + 8 * (i >> 1);
    c.col = 2 * t + (i & 1);
    return c;
  }
  const bool a = op == Operand::A;
  switch (s.k) {
    case 4:  // tf32 (9.7.14.5.6): a0 (g, t), a1 (g+8, t); b0 (t, g)
      if (a) { c.row = g + 8 * i; c.col = t; } else { c.row = t; c.col = g; }
      break;
    case 8:
      if (s.ab_bits == 16) {  // 9.7.14.5.7 f16/bf16: a_i row g (+8 for i>=2), col 2t+(i&1); b_i row 2t+i
        if (a) { c.row = g + 8 * (i >> 1); c.col = 2 * t + (i & 1); } else { c.row = 2 * t + i; c.col = g; }
      } else {  // tf32: a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4); b0 (t,g) b1 (t+4,g)
        if (a) { c.row = g + 8 * (i & 1); c.col = t + 4 * (i >> 1); } else { c.row = t + 4 * i; c.col = g; }
      }
      break;
    case 16:
      if (s.ab_bits == 16) {  // 9.7.14.5.8: row g for i in {0,1,4,5}; col 2t+(i&1) (+8 for i>=4)
        if (a) { c.row = g + 8 * ((i >> 1) & 1); c.col = 2 * t + (i & 1) + 8 * (i >> 2); }
        else { c.row = 2 * t + (i & 1) + 8 * (i >> 1); c.col = g; }
      } else {  // 8-bit (9.7.14.5.9): a_i row g (+8 for i>=4), col 4t+(i&3); b_i row 4t+i
        if (a) { c.row = g + 8 * (i >> 2); c.col = 4 * t + (i & 3); } else { c.row = 4 * t + i; c.col = g; }
      }
      break;
    case 32:
      if (s.ab_bits == 8) {  // 9.7.14.5.10: row g for i in [0,4) u [8,12); col 4t+(i&3) (+16 for i>=8)
        if (a) { c.row = g + 8 * ((i >> 2) & 1); c.col = 4 * t + (i & 3) + 16 * (i >> 3); }
        else { c.row = 4 * t + (i & 3) + 16 * (i >> 2); c.col = g; }
      } else {  // 4-bit: a_i row g (+8 for i>=8), col 8t+(i&7); b_i row 8t+i
        if (a) { c.row = g + 8 * (i >> 3); c.col = 8 * t + (i & 7); } else { c.row = 8 * t + i; c.col = g; }
      }
      break;
    default:  // 64, 4-bit (9.7.14.5.11): row g for i in [0,8) u [16,24); col 8t+(i&7) (+32 for i>=16)
      if (a) { c.row = g + 8 * ((i >> 3) & 1); c.col = 8 * t + (i & 7) + 32 * (i >> 4); }
      else { c.row = 8 * t + (i & 7) + 32 * (i >> 3); c.col = g; }
      break;
  }
  return c;
}

// ---- Block scaling for mma.sync (9.7.14.3) --------------------------------------------------
// scale_A is M x V and scale_B is V x N (V = scale_vec: 1, 2 or 4 scales per row/column per
// instruction). Each lane passes one 32-bit scale-a-data and one scale-b-data register; the
// selectors pick which lanes and which bytes count:
//  - thread-id-a in {0, 1} picks the thread pair (lane%4 == 2*tid, 2*tid+1) of each quad that
//    supplies SF_A; in Figure 43 the first thread of the pair holds row g, the second row g+8.
//  - thread-id-b in {0..3}: lane%4 == thread-id-b supplies SF_B of column g.
//  - byte-id: 1X one byte (0..3); 2X a byte pair starting at 0 or 2; 4X all four (must be 0).
//    Scale j of the row/column sits in byte byte-id + j.
struct ScaleSlot {
  int lane = 0, byte = 0;
};
TCEMU_FL_HD inline bool scale_selectors_valid(int scale_vec, int byte_id, int thread_id, bool is_a) {
  if (is_a ? (thread_id < 0 || thread_id > 1) : (thread_id < 0 || thread_id > 3)) return false;
  switch (scale_vec) {
    case 1: return byte_id >= 0 && byte_id <= 3;
    case 2: return byte_id == 0 || byte_id == 2;
    case 4: return byte_id == 0;
    default: return false;
  }
}
// Where scale j (0 <= j < scale_vec) of row `row` (0..15) of A sits.
TCEMU_FL_HD inline ScaleSlot mma_scale_a_slot(int row, int j, int byte_id, int thread_id_a) {
  ScaleSlot s;
  s.lane = 4 * (row & 7) + 2 * thread_id_a + (row >> 3);
  s.byte = byte_id + j;
  return s;
}
// Where scale j of column `col` (0..7) of B sits.
TCEMU_FL_HD inline ScaleSlot mma_scale_b_slot(int col, int j, int byte_id, int thread_id_b) {
  ScaleSlot s;
  s.lane = 4 * col + thread_id_b;
  s.byte = byte_id + j;
  return s;
}

// ---- kind::f8f6f4 element containers (9.7.14.2, 9.7.16.4.x) ---------------------------------
// In mma.sync kind::f8f6f4 registers, FP6 and FP4 elements travel in 8-bit containers. The
// ISA's figures put the FP6 code in bits 2..7 and the FP4 code in bits 2..5 of the byte
// (padding below, and above for FP4). tcgen05's shared memory packs them instead (16 codes,
// then padding to 16 bytes: tcgen05_layout.hpp).
TCEMU_FL_HD inline uint32_t f8f6f4_container(uint32_t code, int bits) {
  return bits == 8 ? (code & 0xffu) : ((code & ((1u << bits) - 1)) << 2);
}
TCEMU_FL_HD inline uint32_t f8f6f4_code(uint32_t byte, int bits) {
  return bits == 8 ? (byte & 0xffu) : ((byte >> 2) & ((1u << bits) - 1));
}

// ---- wgmma (9.7.15.5.1) -------------------------------------------------------------------
// C/D of wgmma.m64nNk*: warp w of the warpgroup holds rows 16w..16w+15; in it, element i of a
// lane: row 16w + g + 8*((i>>1)&1), col 8*(i>>2) + 2t + (i&1), for i < N/2.
TCEMU_FL_HD inline Coord wgmma_c_coord(int thread, int i) {
  const int w = thread >> 5, lane = thread & 31, g = lane >> 2, t = lane & 3;
  Coord c;
  c.row = 16 * w + g + 8 * ((i >> 1) & 1);
  c.col = 8 * (i >> 2) + 2 * t + (i & 1);
  return c;
}
TCEMU_FL_HD inline int wgmma_c_elems_per_thread(int n) { return n / 2; }

// Byte offset of element (row, k) of a K-major operand (A: row = m; B stored N x K: row = n)
// in the canonical no-swizzle layout: core matrices of 8 rows x 16 bytes, each stored as 128
// contiguous bytes (row r at 16r); the core matrix holding (row, k) starts at
// (row/8)*SBO + (byte_k/16)*LBO, the "stride" (M/N) and "leading" (K) dimension byte offsets.
// elem_bits >= 8 (wgmma has no sub-byte operands in shared memory here).
TCEMU_FL_HD inline uint32_t kmajor_offset(int row, int k, int elem_bits_, uint32_t lbo, uint32_t sbo) {
  const uint32_t kb = static_cast<uint32_t>(k * elem_bits_ / 8);
  return static_cast<uint32_t>(row / 8) * sbo + (kb / 16) * lbo + static_cast<uint32_t>(row % 8) * 16 + kb % 16;
}
// The densest no-swizzle packing of a rows x K operand: K-direction core matrices adjacent
// (LBO = 128), then the next 8 rows (SBO = 128 * K-bytes/16).
TCEMU_FL_HD inline uint32_t kmajor_lbo() { return 128; }
TCEMU_FL_HD inline uint32_t kmajor_sbo(int k, int elem_bits_) {
  return 128u * static_cast<uint32_t>((k * elem_bits_ / 8 + 15) / 16);
}

// wgmma matrix descriptor (9.7.15.5.1.2.1): bits 0-13 start address >> 4, 16-29 LBO >> 4,
// 32-45 SBO >> 4, 49-51 base offset (0), 62-63 swizzle mode (0 = none).
TCEMU_FL_HD inline uint64_t wgmma_desc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((smem_addr >> 4) & 0x3fff) | (static_cast<uint64_t>((lbo >> 4) & 0x3fff) << 16) |
         (static_cast<uint64_t>((sbo >> 4) & 0x3fff) << 32);
}
// tcgen05 shared-memory descriptor (9.7.16.4.1): as wgmma's in bits 0-45, plus the fixed
// constant 0b001 in bits 46-48, base offset 49-51, leading-dimension mode bit 52 (0: relative
// byte offset), swizzle mode in bits 61-63 (0 = none).
TCEMU_FL_HD inline uint64_t tcgen05_smem_desc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo) {
  return wgmma_desc(smem_addr, lbo, sbo) | (uint64_t{1} << 46);
}

// ---- tcgen05 instruction descriptor (9.7.16.4.2, Tables 42-44) ------------------------------
enum class Tcgen05Kind : uint8_t { f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4 };
struct Tcgen05Desc {
  Tcgen05Kind kind = Tcgen05Kind::f16;
  int m = 128, n = 16;
  int dtype = 1;          // f16 = 0, f32 = 1, s32 = 2 (non-block-scaled kinds)
  int atype = 0, btype = 0;  // kind-specific codes of Tables 42-44 (see tcgen05_type_code)
  bool saturate = false;  // kind::i8
  bool scale_ue8m0 = true;  // block-scaled kinds: bit 23 (UE8M0 = 1, UE4M3 = 0)
  int sfa_id = 0, sfb_id = 0;
  bool negate_a = false, negate_b = false;  // bits 13, 14 (kind::i8: must be 0)
};
// Type codes: kind::f16 F16 = 0, BF16 = 1; kind::tf32 TF32 = 2; f8f6f4/mxf8f6f4 E4M3 = 0,
// E5M2 = 1, E2M3 = 3, E3M2 = 4, E2M1 = 5; i8 U8 = 0, S8 = 1; mxf4/mxf4nvf4 E2M1 = 1.
TCEMU_FL_HD inline uint32_t tcgen05_idesc(const Tcgen05Desc& d) {
  uint32_t v = 0;
  const bool scaled = d.kind == Tcgen05Kind::mxf8f6f4 || d.kind == Tcgen05Kind::mxf4 || d.kind == Tcgen05Kind::mxf4nvf4;
  v |= static_cast<uint32_t>(d.atype & 7) << 7;
  v |= static_cast<uint32_t>(d.btype & (d.kind == Tcgen05Kind::mxf4 || d.kind == Tcgen05Kind::mxf4nvf4 ? 3 : 7)) << 10;
  v |= static_cast<uint32_t>((d.n >> 3) & 0x3f) << 17;
  if (d.negate_a) v |= 1u << 13;
  if (d.negate_b) v |= 1u << 14;
  if (!scaled) {
    if (d.saturate) v |= 1u << 3;
    v |= static_cast<uint32_t>(d.dtype & 3) << 4;
    v |= static_cast<uint32_t>((d.m >> 4) & 0x1f) << 24;
  } else {
    v |= static_cast<uint32_t>(d.sfb_id & 3) << 4;
    if (d.scale_ue8m0) v |= 1u << 23;
    v |= static_cast<uint32_t>((d.m >> 7) & 3) << 27;
    v |= static_cast<uint32_t>(d.sfa_id & 3) << 29;
  }
  return v;
}

// ---- tcgen05 scale factors in tensor memory (9.7.16.10.7.2-3) --------------------------------
// Row r of scale_A (r < 128) and row n of scale_B (n < 128, one per column of D) keep their V
// scales in one 32-bit TMEM word: 1X at byte SF_ID, 2X at bytes SF_ID (0 or 2) and SF_ID + 1,
// 4X at bytes 0..3 (SF_ID = 0). Figures 231-233 / 240-242 (images in the ISA; as CUTLASS,
// DeepGEMM and other public kernels read them) put the 128 rows as 32 lanes x 4 columns: row r
// in lane r % 32 of column r / 32, the 32 lanes repeated in each 32-lane partition (which is
// why tcgen05.cp has the .warpx4 multicast). An earlier reading here was lane = r; the two
// agree for r < 32, the only rows tcemu-gpu uses (docs/gpu.md). M or N > 128 (cta_group::2,
// N = 256) use layouts this function does not cover.
struct TmemSlot {
  int lane = 0, col = 0, byte = 0;  // lane within each 32-lane partition, column offset, byte
};
TCEMU_FL_HD inline TmemSlot tcgen05_scale_slot(int row, int j, int sf_id) {
  TmemSlot s;
  s.lane = row % 32;
  s.col = row / 32;
  s.byte = sf_id + j;
  return s;
}

}  // namespace tcemu_gpu::layout
