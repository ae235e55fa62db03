// Block-scaled steps with UE5M3 scales (the tcgen05 instruction descriptor's scale_format 2,
// PTX ISA 9.4; docs/datapath.md §9): the emulator's GST-FDPA and ST-FDPA steps against the
// exact reference's, on random E2M1/E4M3 operands and scales that reach ue5m3's whole range
// (0x00, subnormals, 0xFE = 114688, NaN 0xFF). The catalog has no entry with these scales yet
// (no target of it gives them); the datapath takes them through BlockScales.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu::test {
namespace {

uint64_t scale(std::mt19937_64& g) {
  switch (g() % 8) {
    case 0: return 0x00;                  // zero
    case 1: return 1 + g() % 7;           // subnormal
    case 2: return 0xFE;                  // max
    case 3: return g() % 50 == 0 ? 0xFF : 0x78;  // rarely NaN, else 1
    default: return 0x40 + g() % 0x70;    // 2^-7 .. 2^6
  }
}

// The parameters of an existing entry (`stype`: its own scale type), run with ue5m3 scales.
void run(const char* arch, const char* ptx, Fmt t, Fmt stype, int block, int reps) {
  const InstrLookup lk = find_instruction(arch, ptx, t, t, AccType::f32, stype);
  ASSERT_NE(lk.entry, nullptr) << lk.error;
  const DatapathParams& p = lk.entry->params;
  std::mt19937_64 g(7);
  const int K = lk.entry->K * 2;  // two chained steps
  const uint64_t mask = (uint64_t{1} << info(t).width) - 1;
  int differ = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<uint64_t> a(K), b(K), sa(K / block), sb(K / block);
    for (auto& x : a) x = g() & mask;
    for (auto& x : b) x = g() & mask;
    for (auto& x : sa) x = scale(g);
    for (auto& x : sb) x = scale(g);
    const uint64_t c = r % 3 == 0 ? 0 : static_cast<uint32_t>(g()) & 0x8F7FFFFFu;  // finite f32
    const BlockScales s{Fmt::ue5m3, block, sa, sb};
    ASSERT_EQ(check_dot_args(p, t, t, a.size(), b.size(), &s, false), "");
    const uint64_t got = fdpa_dot(p, t, t, a, b, c, &s);
    const uint64_t want = ref::fdpa_dot(p, t, t, a, b, c, &s);
    if (got != want && differ++ < 5) ADD_FAILURE() << ptx << " rep " << r << ": " << std::hex << got << " vs " << want;
  }
  EXPECT_EQ(differ, 0);
}

TEST(Ue5m3Scales, GstFdpaAgreesWithReference) {
  run("sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", Fmt::e2m1, Fmt::ue4m3, 16, 3000);
}

TEST(Ue5m3Scales, StFdpaAgreesWithReference) {
  run("sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", Fmt::e4m3, Fmt::ue8m0, 32, 1500);
}

TEST(Ue5m3Scales, AcceptedAsAScaleNotAsAnOperand) {
  const InstrLookup lk = find_instruction("sm_100a", "tcgen05.mma.cta_group::1.kind::f16", Fmt::f16, Fmt::f16, AccType::f32);
  ASSERT_NE(lk.entry, nullptr);
  EXPECT_NE(validate(lk.entry->params, Fmt::ue5m3, Fmt::f16), "");
}

}  // namespace
}  // namespace tcemu::test
