// compare's alternative datapath models (golden/src/models.cpp): outputs computed by the exact
// reference (reference/, independent of the emulator) with the case's datapath changed in one
// way must be explained by the model named for that change, on every sampled element.
#include <gtest/gtest.h>

#include "golden_test_support.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu::golden {
namespace {

// D of the case recomputed by the reference with datapath parameters p.
Array reference_output(const Case& c, const DatapathParams& p) {
  const Array& A = c.operands.at("A");
  const Array& B = c.operands.at("B");
  const Array& C = c.operands.at("C");
  const InstrEntry& e = *c.mma.entry;
  const size_t M = static_cast<size_t>(c.mma.M), N = static_cast<size_t>(c.mma.N), K = static_cast<size_t>(c.mma.K);
  Array act = c.expected;
  std::vector<uint64_t> a(K), b(K);
  for (size_t m = 0; m < M; ++m)
    for (size_t n = 0; n < N; ++n) {
      for (size_t k = 0; k < K; ++k) {
        a[k] = A.at(m, k);
        b[k] = B.at(k, n);
      }
      act.set(m, n, ref::fdpa_dot(p, e.atype, e.btype, a, b, C.at(m, n)));
    }
  return act;
}

const ModelFit* find_model(const CompareReport& r, const std::string& name) {
  for (const ModelFit& m : r.models)
    if (m.name == name) return &m;
  return nullptr;
}

Case f16_case(const char* arch) {
  MmaGenRequest q = test::mma_request(arch, test::kF16, Dist::normal, 31);
  q.M = 32;
  q.N = 16;
  q.K = 128;
  return generate_mma(q);
}

TEST(GoldenModels, NamesRneInsteadOfRz) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const Case c = f16_case(arch);
    DatapathParams p = c.mma.entry->params;
    ASSERT_EQ(p.rounding, OutputRounding::rz_f32);
    p.rounding = OutputRounding::rne_f32;
    const CompareReport r = compare(c, reference_output(c, p));
    ASSERT_GT(r.mismatches, 0u) << arch;
    const ModelFit* m = find_model(r, "the case's datapath with RNE to f32 instead of RZ to f32");
    ASSERT_NE(m, nullptr) << text_report(r);
    EXPECT_EQ(m->matched, m->sampled) << arch;
    EXPECT_LT(r.models[0].matched, r.models[0].sampled) << arch;  // the case's own model does not
  }
}

TEST(GoldenModels, NamesCAddedAfter) {
  const Case c = f16_case("sm_90");
  DatapathParams p = c.mma.entry->params;
  ASSERT_EQ(p.c_entry, CEntry::fused);
  p.c_entry = CEntry::rne_f32_after;
  const CompareReport r = compare(c, reference_output(c, p));
  ASSERT_GT(r.mismatches, 0u);
  const ModelFit* m = find_model(r, "the case's datapath with C added after by an f32 RNE add");
  ASSERT_NE(m, nullptr) << text_report(r);
  EXPECT_EQ(m->matched, m->sampled);
}

// Hopper/Ada FP8 truncation to e8m13 where the case says RZ to f32.
TEST(GoldenModels, NamesE8m13Truncation) {
  const Case c = f16_case("sm_90");
  DatapathParams p = c.mma.entry->params;
  ASSERT_TRUE(p.positive_zero);
  p.rounding = OutputRounding::rz_e8m13;
  const CompareReport r = compare(c, reference_output(c, p));
  const ModelFit* m = find_model(r, "the case's datapath with RZ to e8m13 instead of RZ to f32");
  ASSERT_NE(m, nullptr) << text_report(r);
  EXPECT_EQ(m->matched, m->sampled);
}

}  // namespace
}  // namespace tcemu::golden
