// tools/gpu/fragment_layout.hpp against the PTX ISA's layout tables. Expected values are
// transcribed by hand from the ISA's formulas and tables (section numbers in the header), plus
// the register layout tools/gpu/mma_record.cu used on an H200, whose layout self-check passed
// on the hardware for 19 mma.sync and 12 wgmma instructions (golden/hw/h200/mma_summary.txt):
// that formula is written differently (per register and element) and is repeated here as data.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "fragment_layout.hpp"

using namespace tcemu_gpu::layout;

namespace {

struct NamedShape {
  const char* name;
  MmaSyncShape s;
};

const std::vector<NamedShape>& all_shapes() {
  static const std::vector<NamedShape> v = {
      {"m8n8k4 f16 -> f32", {8, 8, 4, 16, 32}},   {"m8n8k4 f16 -> f16", {8, 8, 4, 16, 16}},
      {"m16n8k4 tf32", {16, 8, 4, 32, 32}},       {"m16n8k8 f16", {16, 8, 8, 16, 32}},
      {"m16n8k8 f16 -> f16", {16, 8, 8, 16, 16}}, {"m16n8k8 tf32", {16, 8, 8, 32, 32}},
      {"m16n8k16 f16", {16, 8, 16, 16, 32}},      {"m16n8k16 8-bit", {16, 8, 16, 8, 32}},
      {"m16n8k32 8-bit", {16, 8, 32, 8, 32}},     {"m16n8k32 8-bit -> f16", {16, 8, 32, 8, 16}},
      {"m16n8k32 4-bit", {16, 8, 32, 4, 32}},     {"m16n8k64 4-bit", {16, 8, 64, 4, 32}},
  };
  return v;
}

// Every element of every operand is held by exactly one (lane, element) pair: the layout is a
// bijection from 32 lanes x elements onto the matrix (for m8n8k4: onto 4 matrices).
TEST(FragmentLayout, EveryShapeIsABijection) {
  for (const auto& ns : all_shapes()) {
    const MmaSyncShape& s = ns.s;
    ASSERT_TRUE(mma_sync_supported(s)) << ns.name;
    for (Operand op : {Operand::A, Operand::B, Operand::C}) {
      const int rows = op == Operand::B ? s.k : s.m, cols = op == Operand::A ? s.k : s.n;
      const int subs = s.m == 8 ? 4 : 1;
      std::set<std::tuple<int, int, int>> seen;
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < mma_elems_per_lane(s, op); ++i) {
          const Coord c = mma_sync_coord(s, op, lane, i);
          ASSERT_GE(c.row, 0) << ns.name;
          ASSERT_LT(c.row, rows) << ns.name << " op " << int(op) << " lane " << lane << " i " << i;
          ASSERT_GE(c.col, 0) << ns.name;
          ASSERT_LT(c.col, cols) << ns.name << " op " << int(op) << " lane " << lane << " i " << i;
          ASSERT_TRUE(seen.insert({c.sub, c.row, c.col}).second)
              << ns.name << " op " << int(op) << " lane " << lane << " i " << i << " duplicates (" << c.row << ","
              << c.col << ")";
        }
      EXPECT_EQ(seen.size(), static_cast<size_t>(rows * cols * subs)) << ns.name << " op " << int(op);
    }
  }
}

// Register counts of the ISA's fragment tables ("a vector expression containing four .b32
// registers ...").
TEST(FragmentLayout, RegisterCountsMatchTheFragmentTables) {
  struct Row {
    MmaSyncShape s;
    int ra, rb, rc;
  };
  const Row rows[] = {
      {{8, 8, 4, 16, 32}, 2, 2, 8},   // two f16x2, two f16x2, eight f32
      {{8, 8, 4, 16, 16}, 2, 2, 4},   // four f16x2 accumulators
      {{16, 8, 4, 32, 32}, 2, 1, 4},  // 9.7.14.5.6
      {{16, 8, 8, 16, 32}, 2, 1, 4},  {{16, 8, 8, 16, 16}, 2, 1, 2}, {{16, 8, 8, 32, 32}, 4, 2, 4},
      {{16, 8, 16, 16, 32}, 4, 2, 4}, {{16, 8, 16, 8, 32}, 2, 1, 4}, {{16, 8, 32, 8, 32}, 4, 2, 4},
      {{16, 8, 32, 8, 16}, 4, 2, 2},  {{16, 8, 32, 4, 32}, 2, 1, 4}, {{16, 8, 64, 4, 32}, 4, 2, 4},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(mma_regs_per_lane(r.s, Operand::A), r.ra) << r.s.k << " " << r.s.ab_bits;
    EXPECT_EQ(mma_regs_per_lane(r.s, Operand::B), r.rb) << r.s.k << " " << r.s.ab_bits;
    EXPECT_EQ(mma_regs_per_lane(r.s, Operand::C), r.rc) << r.s.k << " " << r.s.ab_bits;
  }
}

void expect_coords(const MmaSyncShape& s, Operand op, int lane, const std::vector<std::pair<int, int>>& want,
                   const char* what) {
  ASSERT_EQ(static_cast<int>(want.size()), mma_elems_per_lane(s, op)) << what;
  for (int i = 0; i < static_cast<int>(want.size()); ++i) {
    const Coord c = mma_sync_coord(s, op, lane, i);
    EXPECT_EQ(c.row, want[i].first) << what << " element " << i;
    EXPECT_EQ(c.col, want[i].second) << what << " element " << i;
  }
}

// Specific rows, worked out by hand from the ISA's formulas for one lane.
TEST(FragmentLayout, TableRowsByHand) {
  // 9.7.14.5.8 m16n8k16 f16, lane 5 (groupID 1, threadID_in_group 1).
  expect_coords({16, 8, 16, 16, 32}, Operand::A, 5, {{1, 2}, {1, 3}, {9, 2}, {9, 3}, {1, 10}, {1, 11}, {9, 10}, {9, 11}},
                "m16n8k16 A lane 5");
  expect_coords({16, 8, 16, 16, 32}, Operand::B, 5, {{2, 1}, {3, 1}, {10, 1}, {11, 1}}, "m16n8k16 B lane 5");
  expect_coords({16, 8, 16, 16, 32}, Operand::C, 5, {{1, 2}, {1, 3}, {9, 2}, {9, 3}}, "m16n8k16 C lane 5");
  // 9.7.14.5.10 m16n8k32 8-bit, lane 6 (g 1, t 2).
  expect_coords({16, 8, 32, 8, 32}, Operand::A, 6,
                {{1, 8}, {1, 9}, {1, 10}, {1, 11}, {9, 8}, {9, 9}, {9, 10}, {9, 11},
                 {1, 24}, {1, 25}, {1, 26}, {1, 27}, {9, 24}, {9, 25}, {9, 26}, {9, 27}},
                "m16n8k32 A lane 6");
  expect_coords({16, 8, 32, 8, 32}, Operand::B, 6, {{8, 1}, {9, 1}, {10, 1}, {11, 1}, {24, 1}, {25, 1}, {26, 1}, {27, 1}},
                "m16n8k32 B lane 6");
  // 9.7.14.5.10 m16n8k32 4-bit, lane 7 (g 1, t 3).
  expect_coords({16, 8, 32, 4, 32}, Operand::A, 7,
                {{1, 24}, {1, 25}, {1, 26}, {1, 27}, {1, 28}, {1, 29}, {1, 30}, {1, 31},
                 {9, 24}, {9, 25}, {9, 26}, {9, 27}, {9, 28}, {9, 29}, {9, 30}, {9, 31}},
                "m16n8k32 s4 A lane 7");
  // 9.7.14.5.11 m16n8k64 4-bit, lane 31 (g 7, t 3).
  {
    std::vector<std::pair<int, int>> want;
    for (int i = 0; i < 32; ++i) want.push_back({(i >> 3) & 1 ? 15 : 7, 24 + (i & 7) + (i >= 16 ? 32 : 0)});
    expect_coords({16, 8, 64, 4, 32}, Operand::A, 31, want, "m16n8k64 A lane 31");
    std::vector<std::pair<int, int>> wb;
    for (int i = 0; i < 16; ++i) wb.push_back({24 + (i & 7) + (i >= 8 ? 32 : 0), 7});
    expect_coords({16, 8, 64, 4, 32}, Operand::B, 31, wb, "m16n8k64 B lane 31");
  }
  // 9.7.14.5.7 m16n8k8 tf32, lane 0: a0 (0,0) a1 (8,0) a2 (0,4) a3 (8,4); b0 (0,0) b1 (4,0).
  expect_coords({16, 8, 8, 32, 32}, Operand::A, 0, {{0, 0}, {8, 0}, {0, 4}, {8, 4}}, "m16n8k8 tf32 A lane 0");
  expect_coords({16, 8, 8, 32, 32}, Operand::B, 0, {{0, 0}, {4, 0}}, "m16n8k8 tf32 B lane 0");
  // 9.7.14.5.6 m16n8k4 tf32, lane 13 (g 3, t 1): a0 (3,1) a1 (11,1); b0 (1,3).
  expect_coords({16, 8, 4, 32, 32}, Operand::A, 13, {{3, 1}, {11, 1}}, "m16n8k4 A lane 13");
  expect_coords({16, 8, 4, 32, 32}, Operand::B, 13, {{1, 3}}, "m16n8k4 B lane 13");
  // 9.7.14.5.9 m16n8k16 8-bit, lane 30 (g 7, t 2): a0..3 (7, 8..11), a4..7 (15, 8..11).
  expect_coords({16, 8, 16, 8, 32}, Operand::A, 30, {{7, 8}, {7, 9}, {7, 10}, {7, 11}, {15, 8}, {15, 9}, {15, 10}, {15, 11}},
                "m16n8k16 s8 A lane 30");
  // 9.7.14.5.1 m8n8k4: lane 17 is the high group of quad-pair 0; f32 C: X = (lane&1) + (i&2).
  {
    const MmaSyncShape s{8, 8, 4, 16, 32};
    expect_coords(s, Operand::A, 17, {{5, 0}, {5, 1}, {5, 2}, {5, 3}}, "m8n8k4 A lane 17");
    expect_coords(s, Operand::B, 17, {{0, 5}, {1, 5}, {2, 5}, {3, 5}}, "m8n8k4 B lane 17");
    expect_coords(s, Operand::C, 17, {{5, 0}, {5, 1}, {7, 0}, {7, 1}, {5, 4}, {5, 5}, {7, 4}, {7, 5}}, "m8n8k4 C lane 17");
    expect_coords(s, Operand::C, 2, {{0, 2}, {0, 3}, {2, 2}, {2, 3}, {0, 6}, {0, 7}, {2, 6}, {2, 7}}, "m8n8k4 C lane 2");
    EXPECT_EQ(mma_sync_coord(s, Operand::A, 17, 0).sub, 0);
    EXPECT_EQ(mma_sync_coord(s, Operand::A, 21, 0).sub, 1);
    EXPECT_EQ(mma_sync_coord(s, Operand::A, 12, 0).sub, 3);
    expect_coords({8, 8, 4, 16, 16}, Operand::C, 18, {{6, 0}, {6, 1}, {6, 2}, {6, 3}, {6, 4}, {6, 5}, {6, 6}, {6, 7}},
                  "m8n8k4 f16 C lane 18");
  }
}

// The register formula mma_record.cu ran on the H200 (layout self-check PASS for every
// instruction): lane = 4g + t; A register r, element e (EA per register):
// m = g + 8(r&1), k = EA*t + e + (K/2)(r>>1); B: k = EB*t + e + (K/2)r, n = g;
// C element i = r*EC + e: m = g + 8(i>>1), n = 2t + (i&1).
TEST(FragmentLayout, AgreesWithTheLayoutValidatedOnH200) {
  struct Recorded {
    MmaSyncShape s;
    int ra, rb;
  };
  const Recorded rec[] = {
      {{16, 8, 16, 16, 32}, 4, 2}, {{16, 8, 16, 16, 16}, 4, 2}, {{16, 8, 8, 32, 32}, 4, 2}, {{16, 8, 32, 8, 32}, 4, 2},
      {{16, 8, 32, 8, 16}, 4, 2},  {{16, 8, 16, 8, 32}, 2, 1},  {{16, 8, 8, 16, 32}, 2, 1}, {{16, 8, 8, 16, 16}, 2, 1},
      {{16, 8, 4, 32, 32}, 2, 1},
  };
  for (const Recorded& r : rec) {
    const MmaSyncShape& s = r.s;
    const int ea = 32 / s.ab_bits, ec = 32 / s.c_bits, K = s.k;
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < r.ra; ++reg)
        for (int e = 0; e < ea; ++e) {
          const int i = reg * ea + e;
          const Coord c = mma_sync_coord(s, Operand::A, lane, i);
          EXPECT_EQ(c.row, g + 8 * (reg & 1)) << "K " << K << " lane " << lane << " i " << i;
          EXPECT_EQ(c.col, ea * t + e + (K / 2) * (reg >> 1)) << "K " << K << " lane " << lane << " i " << i;
          EXPECT_EQ(elem_reg(s, Operand::A, i), reg);
          EXPECT_EQ(elem_shift(s, Operand::A, i), e * s.ab_bits);
        }
      for (int reg = 0; reg < r.rb; ++reg)
        for (int e = 0; e < ea; ++e) {
          const int i = reg * ea + e;
          const Coord c = mma_sync_coord(s, Operand::B, lane, i);
          EXPECT_EQ(c.row, ea * t + e + (K / 2) * reg) << "K " << K << " lane " << lane << " i " << i;
          EXPECT_EQ(c.col, g);
        }
      for (int i = 0; i < 4; ++i) {
        const Coord c = mma_sync_coord(s, Operand::C, lane, i);
        EXPECT_EQ(c.row, g + 8 * (i >> 1));
        EXPECT_EQ(c.col, 2 * t + (i & 1));
        EXPECT_EQ(elem_reg(s, Operand::C, i), i / ec);
      }
    }
  }
}

// 9.7.14.3: thread-id-a picks the thread pair, thread-id-b the thread; byte-id the byte(s).
TEST(FragmentLayout, BlockScaleSelectors) {
  // Table 37: valid selector values.
  EXPECT_TRUE(scale_selectors_valid(1, 3, 1, true));
  EXPECT_FALSE(scale_selectors_valid(1, 0, 2, true));  // thread-id-a in [0, 1]
  EXPECT_TRUE(scale_selectors_valid(1, 0, 3, false));  // thread-id-b in [0, 3]
  EXPECT_TRUE(scale_selectors_valid(2, 2, 0, true));
  EXPECT_FALSE(scale_selectors_valid(2, 1, 0, true));
  EXPECT_FALSE(scale_selectors_valid(4, 2, 0, false));
  EXPECT_TRUE(scale_selectors_valid(4, 0, 1, true));
  // thread-id-a = 0: lanes with lane%4 in {0, 1} supply SF_A; 1: lane%4 in {2, 3}.
  for (int tid : {0, 1})
    for (int row = 0; row < 16; ++row) {
      const ScaleSlot sl = mma_scale_a_slot(row, 0, 0, tid);
      EXPECT_EQ(sl.lane / 4, row % 8);
      EXPECT_TRUE(sl.lane % 4 == 2 * tid || sl.lane % 4 == 2 * tid + 1) << row;
    }
  // The 16 rows land on 16 distinct lanes (a bijection onto the chosen thread pairs).
  std::set<int> lanes;
  for (int row = 0; row < 16; ++row) lanes.insert(mma_scale_a_slot(row, 0, 0, 1).lane);
  EXPECT_EQ(lanes.size(), 16u);
  // thread-id-b: lane%4 == thread-id-b supplies SF_B of column groupID.
  for (int tid = 0; tid < 4; ++tid)
    for (int col = 0; col < 8; ++col) {
      const ScaleSlot sl = mma_scale_b_slot(col, 0, 0, tid);
      EXPECT_EQ(sl.lane, 4 * col + tid);
    }
  // byte-id: 1X one byte at byte-id; 2X bytes byte-id, byte-id+1; 4X bytes 0..3.
  EXPECT_EQ(mma_scale_a_slot(3, 0, 3, 0).byte, 3);
  EXPECT_EQ(mma_scale_b_slot(3, 1, 2, 0).byte, 3);
  EXPECT_EQ(mma_scale_b_slot(3, 3, 0, 0).byte, 3);
}

TEST(FragmentLayout, F8F6F4Containers) {
  EXPECT_EQ(f8f6f4_container(0xab, 8), 0xabu);
  EXPECT_EQ(f8f6f4_container(0x3f, 6), 0xfcu);  // FP6 in bits 2..7
  EXPECT_EQ(f8f6f4_container(0xf, 4), 0x3cu);   // FP4 in bits 2..5
  for (int bits : {4, 6, 8})
    for (uint32_t c = 0; c < (1u << bits); ++c) EXPECT_EQ(f8f6f4_code(f8f6f4_container(c, bits), bits), c);
}

// 9.7.15.5.1.1: wgmma m64nNk* C/D. Warp w rows 16w..16w+15; a bijection for every N.
TEST(FragmentLayout, WgmmaAccumulatorIsABijection) {
  for (int n : {8, 16, 64, 128, 256}) {
    std::set<std::pair<int, int>> seen;
    for (int th = 0; th < 128; ++th)
      for (int i = 0; i < wgmma_c_elems_per_thread(n); ++i) {
        const Coord c = wgmma_c_coord(th, i);
        ASSERT_LT(c.row, 64);
        ASSERT_LT(c.col, n);
        ASSERT_TRUE(seen.insert({c.row, c.col}).second) << n << " " << th << " " << i;
      }
    EXPECT_EQ(seen.size(), static_cast<size_t>(64 * n));
  }
  // Thread 37 (warp 1, lane 5: g 1, t 1), element 6: row 16 + 1 + 8, col 8 + 2.
  const Coord c = wgmma_c_coord(37, 6);
  EXPECT_EQ(c.row, 25);
  EXPECT_EQ(c.col, 10);
}

// 9.7.15.5.1.2: no-swizzle K-major. The values are those mma_record used on the H200 (LBO 128,
// SBO 256 for 32 bytes of K: layout check PASS for all 12 wgmma instructions).
TEST(FragmentLayout, KMajorCoreMatrices) {
  EXPECT_EQ(kmajor_lbo(), 128u);
  EXPECT_EQ(kmajor_sbo(16, 16), 256u);  // f16, K = 16: 32 bytes = 2 core matrices
  EXPECT_EQ(kmajor_sbo(32, 8), 256u);
  EXPECT_EQ(kmajor_sbo(8, 32), 256u);
  // Element (row 9, k 10) of f16, K = 16: core matrix (1, 1) at 256 + 128, row 1 at +16, byte 4.
  EXPECT_EQ(kmajor_offset(9, 10, 16, 128, 256), 256u + 128u + 16u + 4u);
  // A 64 x 32 e4m3 operand fills 2048 bytes exactly once.
  std::set<uint32_t> seen;
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 32; ++k) ASSERT_TRUE(seen.insert(kmajor_offset(r, k, 8, 128, 256)).second);
  EXPECT_EQ(*seen.rbegin(), 2047u);
}

TEST(FragmentLayout, Descriptors) {
  // wgmma descriptor: address >> 4 in 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45.
  EXPECT_EQ(wgmma_desc(0x400, 128, 256), uint64_t{0x40} | (uint64_t{8} << 16) | (uint64_t{16} << 32));
  EXPECT_EQ(tcgen05_smem_desc(0, 0, 0), uint64_t{1} << 46);
  // tcgen05 instruction descriptor, Table 42: kind::f16 f32 <- bf16 x bf16, M = 128, N = 256.
  Tcgen05Desc d;
  d.kind = Tcgen05Kind::f16;
  d.dtype = 1;
  d.atype = d.btype = 1;
  d.m = 128;
  d.n = 256;
  EXPECT_EQ(tcgen05_idesc(d), (1u << 4) | (1u << 7) | (1u << 10) | (32u << 17) | (8u << 24));
  // Table 43: kind::mxf8f6f4 e2m1 x e4m3, M = 128, N = 64, SFA_ID 3, SFB_ID 1, UE8M0.
  Tcgen05Desc m;
  m.kind = Tcgen05Kind::mxf8f6f4;
  m.atype = 5;
  m.btype = 0;
  m.m = 128;
  m.n = 64;
  m.sfa_id = 3;
  m.sfb_id = 1;
  EXPECT_EQ(tcgen05_idesc(m), (1u << 4) | (5u << 7) | (8u << 17) | (1u << 23) | (1u << 27) | (3u << 29));
  // Table 44: kind::mxf4nvf4 with UE4M3 scales: bit 23 clear; btype is 2 bits (10-11).
  Tcgen05Desc q = m;
  q.kind = Tcgen05Kind::mxf4nvf4;
  q.atype = q.btype = 1;
  q.scale_ue8m0 = false;
  q.sfa_id = 2;
  q.sfb_id = 2;
  EXPECT_EQ(tcgen05_idesc(q), (2u << 4) | (1u << 7) | (1u << 10) | (8u << 17) | (1u << 27) | (2u << 29));
}

TEST(FragmentLayout, Tcgen05ScaleBytes) {
  // 9.7.16.10.7.2: 1X at byte SFA_ID, 2X at SFA_ID (0 or 2) + j, 4X bytes 0..3.
  EXPECT_EQ(tcgen05_scale_slot(77, 0, 3).byte, 3);
  EXPECT_EQ(tcgen05_scale_slot(77, 0, 3).lane, 13);  // 32-lane chunks in columns: 77 = 2*32 + 13
  EXPECT_EQ(tcgen05_scale_slot(77, 0, 3).col, 2);
  EXPECT_EQ(tcgen05_scale_slot(5, 1, 2).byte, 3);
  EXPECT_EQ(tcgen05_scale_slot(5, 3, 0).byte, 3);
}

TEST(FragmentLayout, UnsupportedShapesAreRefused) {
  EXPECT_FALSE(mma_sync_supported({16, 8, 128, 4, 32}));
  EXPECT_FALSE(mma_sync_supported({16, 8, 16, 32, 32}));
  EXPECT_FALSE(mma_sync_supported({8, 8, 4, 32, 32}));
}

}  // namespace
