// compare: planted single-bit differences, swapped tiles, the other storage order, NaN
// equality, reading ACTUAL files, and an output computed with plain f32 FMA accumulation,
// which the report must name as such. The FMA output is computed here from the reference's
// exact operand values (not by tcemu's models).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "golden_test_support.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/npy.hpp"
#include "tcemu_ref/exact.hpp"

namespace tcemu::golden {
namespace {

using test::TempDir;

Case f16_case(int M = 32, int N = 16, int K = 64, Dist d = Dist::normal, bool d_col = false) {
  MmaGenRequest q = test::mma_request("sm_90", test::kF16, d, 11);
  q.M = M;
  q.N = N;
  q.K = K;
  q.d_col = d_col;
  return generate_mma(q);
}

TEST(GoldenCompare, IdenticalOutput) {
  const Case c = f16_case();
  const CompareReport r = compare(c, c.expected);
  EXPECT_TRUE(r.identical());
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.total, 512u);
  EXPECT_NE(r.verdict.find("IDENTICAL"), std::string::npos);
}

TEST(GoldenCompare, FindsEveryPlantedSingleBitDifference) {
  for (bool col : {false, true}) {
    const Case c = f16_case(32, 16, 64, Dist::normal, col);
    for (int bit : {0, 7, 22, 30, 31}) {
      Array act = c.expected;
      const size_t row = 17, cl = 5;
      const uint64_t e = act.at(row, cl);
      act.set(row, cl, e ^ (uint64_t{1} << bit));
      const CompareReport r = compare(c, act);
      ASSERT_EQ(r.mismatches, 1u) << "bit " << bit;
      ASSERT_EQ(r.first.size(), 1u);
      EXPECT_EQ(r.first[0].row, row);
      EXPECT_EQ(r.first[0].col, cl);
      EXPECT_EQ(r.first[0].expected, e);
      EXPECT_EQ(r.first[0].actual, e ^ (uint64_t{1} << bit));
      if (bit == 0) {
        ASSERT_TRUE(r.first[0].ulps.has_value());
        EXPECT_EQ(*r.first[0].ulps, 1u);
        ASSERT_EQ(r.histogram.size(), 1u);
        EXPECT_EQ(r.histogram[0].label, "1");
      }
      if (bit == 22) {
        EXPECT_EQ(*r.first[0].ulps, uint64_t{1} << 22);
      }
      EXPECT_EQ(r.row_counts[row], 1u);
      EXPECT_EQ(r.col_counts[cl], 1u);
      EXPECT_EQ(r.tile_counts[(row / 16) * 2 + cl / 8], 1u);
      EXPECT_NE(r.verdict.find("1 of 512"), std::string::npos) << r.verdict;
      // The case's own model explains every sampled element except the planted one.
      ASSERT_FALSE(r.models.empty());
      EXPECT_TRUE(r.models[0].is_case_model);
      EXPECT_EQ(r.models[0].matched + 1, r.models[0].sampled);
    }
  }
}

TEST(GoldenCompare, SwappedTilesAreNamed) {
  const Case c = f16_case(32, 16, 32);
  Array act = c.expected;
  // Swap instruction tiles (0, 0) and (1, 1) (16 x 8 each).
  for (size_t r = 0; r < 16; ++r)
    for (size_t k = 0; k < 8; ++k) {
      const uint64_t a = act.at(r, k), b = act.at(16 + r, 8 + k);
      act.set(r, k, b);
      act.set(16 + r, 8 + k, a);
    }
  const CompareReport r = compare(c, act);
  EXPECT_GT(r.mismatches, 200u);
  EXPECT_EQ(r.tile_counts[1], 0u);
  EXPECT_EQ(r.tile_counts[2], 0u);
  bool named = false;
  for (const std::string& f : r.findings)
    named = named || (f.find("LAYOUT") != std::string::npos && f.find("tile (0, 0) holds the expected tile (1, 1)") != std::string::npos);
  EXPECT_TRUE(named) << text_report(r);
  EXPECT_NE(r.verdict.find("layout problem"), std::string::npos) << r.verdict;
}

TEST(GoldenCompare, OutputInTheOtherStorageOrder) {
  const Case c = f16_case(32, 16, 16);
  Array act = c.expected;
  act.col_major = true;  // the kernel wrote D column-major; read back as row-major below
  for (size_t r = 0; r < 32; ++r)
    for (size_t k = 0; k < 16; ++k) act.set(r, k, c.expected.at(r, k));
  act.col_major = false;
  const CompareReport r = compare(c, act);
  ASSERT_GT(r.mismatches, 0u);
  bool named = false;
  for (const std::string& f : r.findings) named = named || f.find("other storage order") != std::string::npos;
  EXPECT_TRUE(named) << text_report(r);
}

// The test's own plain f32 FMA loop: operand values from the reference's exact decoding.
float ref_value(Fmt f, uint64_t code) {
  const ref::Exact x = ref::exact_value(f, code);
  if (x.kind == ref::Exact::nan) return NAN;
  if (x.kind == ref::Exact::inf) return x.sign ? -INFINITY : INFINITY;
  float v = std::ldexp(static_cast<float>(x.mant.convert_to<double>()), x.exp);
  return x.sign ? -v : v;
}

// A 32 x 16 x 128 f16 case of `arch` and the output of plain f32 FMA accumulation on its
// operands (in k order, from C).
std::pair<Case, Array> f32_fma_output(const char* arch) {
  MmaGenRequest q = test::mma_request(arch, test::kF16, Dist::normal, 21);
  q.M = 32;
  q.N = 16;
  q.K = 128;
  Case c = generate_mma(q);
  const Array& A = c.operands.at("A");
  const Array& B = c.operands.at("B");
  const Array& C = c.operands.at("C");
  Array act = c.expected;
  for (size_t m = 0; m < 32; ++m)
    for (size_t n = 0; n < 16; ++n) {
      float d = ref_value(Fmt::f32, C.at(m, n));
      for (size_t k = 0; k < 128; ++k) d = std::fmaf(ref_value(Fmt::f16, A.at(m, k)), ref_value(Fmt::f16, B.at(k, n)), d);
      uint32_t bits;
      std::memcpy(&bits, &d, 4);
      act.set(m, n, bits);
    }
  return {std::move(c), std::move(act)};
}

TEST(GoldenCompare, NamesPlainF32FmaAccumulation) {
  for (const char* arch : {"sm_90", "sm_80"}) {
    const auto [c, act] = f32_fma_output(arch);
    const CompareReport r = compare(c, act);
    ASSERT_GT(r.mismatches, 20u) << "FMA accumulation should differ from the tensor-core model";
    const ModelFit* best = nullptr;
    for (const ModelFit& m : r.models)
      if (!m.is_case_model && (!best || m.matched > best->matched)) best = &m;
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(best->name, "plain f32 FMA accumulation in k order");
    EXPECT_EQ(best->matched, best->sampled);
    EXPECT_NE(r.verdict.find("matches plain f32 FMA accumulation in k order on every sampled element"), std::string::npos)
        << r.verdict;
  }
}

// The model diagnosis runs on every core: its report (every model's counts, the verdict, the
// whole JSON) is the same for 1, 2, 3 and 7 threads, for an MMA case (FMA output, and one
// with every third element's low bit flipped) and a conversion case.
TEST(GoldenCompare, DiagnosisIdenticalForEveryThreadCount) {
  auto [c, fma] = f32_fma_output("sm_90");
  Array flipped = c.expected;
  for (size_t m = 0; m < 32; ++m)
    for (size_t n = 0; n < 16; ++n)
      if ((m * 16 + n) % 3 == 0) flipped.set(m, n, flipped.at(m, n) ^ 1);
  ConvertGenRequest q;
  q.from = Fmt::f32;
  q.to = Fmt::e4m3;
  q.count = 300;
  q.dist = Dist::normal;
  const Case conv = generate_convert(q);
  Array conv_act = conv.expected;
  for (size_t i = 0; i < conv_act.rows; i += 2) conv_act.set(i, 0, conv_act.at(i, 0) ^ 1);
  const std::pair<const Case*, const Array*> inputs[] = {{&c, &fma}, {&c, &flipped}, {&conv, &conv_act}};
  for (const auto& [cs, act] : inputs) {
    CompareOptions o;
    o.exec = Exec{1};
    const CompareReport one = compare(*cs, *act, o);
    ASSERT_GT(one.mismatches, 0u);
    ASSERT_GT(one.models.size(), 2u);
    const std::string want = json_report(one).dump();
    for (int t : {2, 3, 7}) {
      o.exec = Exec{t};
      EXPECT_EQ(json_report(compare(*cs, *act, o)).dump(), want) << t << " threads";
    }
  }
}

TEST(GoldenCompare, NansEqualOption) {
  const Case c = f16_case(16, 8, 16, Dist::specials);
  Array act = c.expected;
  size_t nans = 0;
  for (size_t r = 0; r < 16; ++r)
    for (size_t k = 0; k < 8; ++k)
      if ((act.at(r, k) & 0x7f800000) == 0x7f800000 && (act.at(r, k) & 0x7fffff)) {
        act.set(r, k, 0xffc00001);  // another NaN
        ++nans;
      }
  ASSERT_GT(nans, 0u);
  CompareOptions o;
  EXPECT_EQ(compare(c, act, o).mismatches, nans);
  o.nans_equal = true;
  EXPECT_EQ(compare(c, act, o).mismatches, 0u);
}

TEST(GoldenCompare, ReadsRawNpyAndGoldenActuals) {
  TempDir d("actual");
  const Case c = f16_case(16, 8, 16);
  GoldenFile f{1, "", {c}};
  write_golden(d.file("e.json"), f, 0);
  // raw
  {
    std::ofstream o(d.file("d.bin"), std::ios::binary);
    o.write(reinterpret_cast<const char*>(c.expected.raw.data()), static_cast<std::streamsize>(c.expected.raw.size()));
  }
  EXPECT_TRUE(compare(c, read_actual(d.file("d.bin"), c)).identical());
  {
    std::ofstream o(d.file("short.bin"), std::ios::binary);
    o.write("abc", 3);
  }
  try {
    read_actual(d.file("short.bin"), c);
    FAIL();
  } catch (const GoldenError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 3 bytes; expected 16 x 8 f32"), std::string::npos) << e.what();
  }
  // npy
  io::NpyArray n;
  n.descr = "<f4";
  n.shape = {16, 8};
  n.data = c.expected.raw;
  io::write_npy(d.file("d.npy"), n);
  EXPECT_TRUE(compare(c, read_actual(d.file("d.npy"), c)).identical());
  n.descr = "<f2";
  n.shape = {16, 16};
  io::write_npy(d.file("h.npy"), n);
  EXPECT_THROW(read_actual(d.file("h.npy"), c), GoldenError);
  // golden
  EXPECT_TRUE(compare(c, read_actual(d.file("e.json"), c)).identical());
  Case other = c;
  other.name = "other";
  EXPECT_THROW(read_actual(d.file("e.json"), other), GoldenError);
}

TEST(GoldenCompare, ConversionAlternatives) {
  // An f32 -> f16 conversion done with RZ instead of RN: the report names the rounding.
  ConvertGenRequest q;
  q.from = Fmt::f32;
  q.to = Fmt::f16;
  q.count = 256;
  q.dist = Dist::normal;
  const Case c = generate_convert(q);
  Array act = c.expected;
  const Array& x = c.operands.at("x");
  for (size_t i = 0; i < x.rows; ++i) {
    // Truncate by hand: f32 normal in f16's range -> drop 13 fraction bits (the test's own RZ).
    const uint32_t b = static_cast<uint32_t>(x.at(i, 0));
    const uint32_t sign = (b >> 16) & 0x8000;
    const int e = static_cast<int>((b >> 23) & 0xff) - 127;
    if (e < -14 || e > 15) {
      act.set(i, 0, c.expected.at(i, 0));
      continue;
    }
    act.set(i, 0, sign | static_cast<uint32_t>((e + 15) << 10) | ((b >> 13) & 0x3ff));
  }
  const CompareReport r = compare(c, act);
  ASSERT_GT(r.mismatches, 0u);
  EXPECT_NE(r.verdict.find("rounding rz"), std::string::npos) << text_report(r);
}

}  // namespace
}  // namespace tcemu::golden
