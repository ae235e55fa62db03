// Generation: identical seeds give identical files, the distributions hold what their names
// promise (checked with the reference's independent decoding), and every catalog family and
// PTX cvt variant can be generated and read back.
#include <gtest/gtest.h>

#include "golden_test_support.hpp"
#include "tcemu_golden/committed_set.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_ref/exact.hpp"

namespace tcemu::golden {
namespace {

using test::TempDir;

TEST(GoldenGenerate, SameSeedSameFile) {
  TempDir d("det");
  for (Dist dist : all_distributions()) {
    MmaGenRequest q = test::mma_request("sm_120a", test::kMxf8, dist, 42);
    q.M = 32;
    q.K = 64;
    GoldenFile a{1, "", {generate_mma(q)}}, b{1, "", {generate_mma(q)}};
    write_golden(d.file("a.json"), a, 0);
    write_golden(d.file("b.json"), b, 0);
    EXPECT_EQ(test::slurp(d.file("a.json")), test::slurp(d.file("b.json"))) << to_string(dist);
    q.seed = 43;
    GoldenFile c{1, "", {generate_mma(q)}};
    write_golden(d.file("c.json"), c, 0);
    EXPECT_NE(test::slurp(d.file("a.json")), test::slurp(d.file("c.json"))) << to_string(dist);
  }
  ConvertGenRequest c;
  c.to = Fmt::e4m3;
  EXPECT_EQ(to_json(GoldenFile{1, "", {generate_convert(c)}}), to_json(GoldenFile{1, "", {generate_convert(c)}}));
}

// Counts of code classes, decoded by the reference (not by the emulator that generated them).
struct Classes {
  size_t zero = 0, subnormal = 0, normal = 0, inf = 0, nan = 0;
};
Classes classes(const Array& a, Fmt f) {
  Classes k;
  const ref::FormatParams& p = ref::params(f);
  for (size_t i = 0; i < a.storage_count(); ++i) {
    const ref::Exact x = ref::exact_value(f, a.at_storage(i));
    if (x.kind == ref::Exact::nan) ++k.nan;
    else if (x.kind == ref::Exact::inf) ++k.inf;
    else if (x.is_zero()) ++k.zero;
    else if (x.subnormal) ++k.subnormal;
    else ++k.normal;
    (void)p;
  }
  return k;
}

TEST(GoldenGenerate, DistributionsHoldWhatTheyPromise) {
  auto gen = [](Dist d) {
    MmaGenRequest q = test::mma_request("sm_90", test::kF16, d, 3);
    q.M = 64;
    q.K = 64;
    return generate_mma(q);
  };
  const Classes bits = classes(gen(Dist::bits).operands.at("A"), Fmt::f16);
  EXPECT_EQ(bits.nan + bits.inf, 0u);  // finite patterns only
  EXPECT_GT(bits.subnormal, 0u);
  const Classes sub = classes(gen(Dist::subnormal).operands.at("A"), Fmt::f16);
  EXPECT_GT(sub.subnormal, sub.normal);
  const Classes spec = classes(gen(Dist::specials).operands.at("A"), Fmt::f16);
  EXPECT_GT(spec.nan, 0u);
  EXPECT_GT(spec.inf, 0u);
  EXPECT_GT(spec.zero, 0u);
  // edges: the largest finite code (0x7bff / 0xfbff) appears.
  const Array edges = gen(Dist::edges).operands.at("A");
  size_t max_codes = 0;
  for (size_t i = 0; i < edges.storage_count(); ++i) max_codes += (edges.at_storage(i) & 0x7fff) == 0x7bff;
  EXPECT_GT(max_codes, 0u);
  // wide: many binades, and pairs of k whose products cancel: column k2 of A is column k1
  // negated while rows k1 and k2 of B are equal.
  const Case w = gen(Dist::wide);
  const Array& A = w.operands.at("A");
  const Array& B = w.operands.at("B");
  std::set<int> binades;
  for (size_t i = 0; i < A.storage_count(); ++i) binades.insert(static_cast<int>((A.at_storage(i) >> 10) & 0x1f));
  EXPECT_GE(binades.size(), 25u);
  size_t cancelling = 0;
  for (size_t k1 = 0; k1 < 64; ++k1)
    for (size_t k2 = 0; k2 < 64; ++k2) {
      if (k1 == k2) continue;
      bool same_b = true, neg_a = true;
      for (size_t n = 0; n < 8 && same_b; ++n) same_b = B.at(k1, n) == B.at(k2, n);
      for (size_t m = 0; m < 64 && neg_a; ++m) neg_a = A.at(m, k1) == (A.at(m, k2) ^ 0x8000);
      cancelling += same_b && neg_a;
    }
  EXPECT_GT(cancelling, 0u);
}

TEST(GoldenGenerate, ScalePatterns) {
  for (ScaleDist s : all_scale_distributions()) {
    MmaGenRequest q = test::mma_request("sm_120a", test::kMxf8, Dist::normal, 5);
    q.M = 64;
    q.K = 128;
    q.scales = s;
    const Case c = generate_mma(q);
    const Array& sa = c.operands.at("scale_A");
    size_t nan = 0, unit = 0, mn = 0, mx = 0;
    for (size_t i = 0; i < sa.storage_count(); ++i) {
      const uint64_t v = sa.at_storage(i);
      nan += v == 0xFF;
      unit += v == 0x7F;
      mn += v == 0x00;
      mx += v == 0xFE;
    }
    const size_t n = sa.storage_count();
    switch (s) {
      case ScaleDist::unit: EXPECT_EQ(unit, n); break;
      case ScaleDist::min: EXPECT_EQ(mn, n); break;
      case ScaleDist::max: EXPECT_EQ(mx, n); break;
      case ScaleDist::nan: EXPECT_GT(nan, 0u); break;
      case ScaleDist::zero_blocks: {
        EXPECT_EQ(unit, n);
        // Some 32-element blocks of A are all zero.
        const Array& A = c.operands.at("A");
        size_t zero_blocks = 0;
        for (size_t m = 0; m < 64; ++m)
          for (size_t b = 0; b < 4; ++b) {
            bool z = true;
            for (size_t k = b * 32; k < b * 32 + 32 && z; ++k) z = A.at(m, k) == 0;
            zero_blocks += z;
          }
        EXPECT_GT(zero_blocks, 0u);
        break;
      }
      case ScaleDist::mixed: EXPECT_GT(nan + mn + mx, 0u); EXPECT_GT(unit, 0u); break;
      case ScaleDist::random: EXPECT_EQ(nan, 0u); break;
    }
  }
}

TEST(GoldenGenerate, ConversionEdgesSitAtMidpoints) {
  // f32 -> e4m3 edges: most inputs round to a code whose neighbour is half an ulp away; check
  // a few exact facts instead: 464 (the overflow midpoint) or its neighbours appear.
  ConvertGenRequest q;
  q.from = Fmt::f32;
  q.to = Fmt::e4m3;
  q.count = 512;
  const Case c = generate_convert(q);
  const Array& x = c.operands.at("x");
  size_t near_464 = 0;
  for (size_t i = 0; i < x.rows; ++i) {
    const uint64_t v = x.at(i, 0) & 0x7fffffff;
    near_464 += v >= 0x43e7ffff && v <= 0x43e80001;  // 464 = 0x43e80000
  }
  EXPECT_GT(near_464, 0u);
}

TEST(GoldenGenerate, EveryFamilyAndCvtVariantGeneratesAndReadsBack) {
  TempDir d("families");
  for (const std::string& fam : catalog_families()) {
    GoldenFile f = family_set(fam);
    ASSERT_FALSE(f.cases.empty()) << fam;
    write_golden(d.file("f.json"), f, 0);
    GoldenFile g = read_golden(d.file("f.json"));
    ASSERT_EQ(g.cases.size(), f.cases.size()) << fam;
    for (size_t i = 0; i < f.cases.size(); ++i) EXPECT_EQ(g.cases[i].expected.raw, f.cases[i].expected.raw) << fam;
  }
  GoldenFile v = cvt_set();
  EXPECT_EQ(v.cases.size(), ptx_cvt_catalog().size());
  write_golden(d.file("v.json"), v, 0);
  EXPECT_EQ(read_golden(d.file("v.json")).cases.size(), v.cases.size());
}

TEST(GoldenGenerate, RefusesWhatCannotBeRun) {
  MmaGenRequest q = test::mma_request("sm_90", test::kF16);
  q.K = 24;
  EXPECT_THROW(generate_mma(q), GoldenError);
  q = test::mma_request("sm_70", test::kF16);
  EXPECT_THROW(generate_mma(q), GoldenError);
  CvtGenRequest c;
  c.ptx = "cvt.rn.e9m9x2.f32";  // no such format
  EXPECT_THROW(generate_cvt(c), GoldenError);
}

}  // namespace
}  // namespace tcemu::golden
