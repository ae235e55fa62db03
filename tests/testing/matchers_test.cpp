// The matchers' verdicts and their messages, word for word, and the .npy reader. Decoded
// values in the expected messages are docs/formats.md facts (e4m3 0x7e = 448, 0x39 = 1.125, bf16 0x3f80 = 1, ...).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "tcemu/testing/matchers.hpp"
#include "tcemu/testing/npy.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

using tcemu::Fmt;
using tcemu::testing::BitExact;
using tcemu::testing::Code;
using tcemu::testing::Codes;
using tcemu::testing::NanAware;
using tcemu::testing::WithinUlps;

// The explanation a matcher gives for a value (empty when it matches).
template <class T, class M>
std::string explain(const M& m, const T& actual) {
  ::testing::Matcher<const T&> mm = m;
  ::testing::StringMatchResultListener l;
  const bool ok = mm.MatchAndExplain(actual, &l);
  return ok ? std::string() : (l.str().empty() ? std::string("<no explanation>") : l.str());
}
template <class T, class M>
bool matches(const M& m, const T& actual) {
  ::testing::Matcher<const T&> mm = m;
  return mm.Matches(actual);
}
template <class T, class M>
std::string description(const M& m) {
  ::testing::Matcher<const T&> mm = m;
  return ::testing::DescribeMatcher<const T&>(mm);
}

TEST(BitExact, ScalarCodeMessageDecodesBothSides) {
  const uint8_t nan = 0x7f;
  EXPECT_EQ(explain(BitExact(Fmt::e4m3, 0x7e), nan),
            "expected e4m3 0x7e (448), actual 0x7f (nan), not comparable in ulps (NaN)");
  const uint8_t next = 0x3a;
  EXPECT_EQ(explain(BitExact(Fmt::e4m3, 0x39), next), "expected e4m3 0x39 (1.125), actual 0x3a (1.25), 1 ulp apart");
  const uint8_t same = 0x39;
  EXPECT_EQ(explain(BitExact(Fmt::e4m3, 0x39), same), "");
  EXPECT_EQ(description<uint8_t>(BitExact(Fmt::e4m3, 0x7e)), "is bit-exact to e4m3 0x7e (448)");
}

TEST(BitExact, FloatsCompareByBits) {
  EXPECT_TRUE(matches(BitExact(1.0f), 1.0f));
  EXPECT_FALSE(matches(BitExact(0.0f), -0.0f));  // -0 has another bit pattern
  EXPECT_EQ(explain(BitExact(1.0f), std::nextafter(1.0f, 2.0f)),
            "expected f32 0x3f800000 (1), actual 0x3f800001 (1.00000011920928955078125), 1 ulp apart");
  EXPECT_TRUE(matches(BitExact(0.5), 0.5));
  EXPECT_TRUE(matches(BitExact(Code{Fmt::bf16, 0x3f80}), Code{Fmt::bf16, 0x3f80}));
  EXPECT_EQ(explain(BitExact(Code{Fmt::bf16, 0x3f80}), Code{Fmt::f16, 0x3c00}),
            "the actual code is f16, the expectation bf16");
}

TEST(BitExact, ArrayMessageListsTheFirstMismatches) {
  const std::vector<uint8_t> want{0x38, 0x39, 0x7e, 0x00};
  const std::vector<uint8_t> got{0x38, 0x3a, 0x7e, 0x80};
  EXPECT_EQ(explain(BitExact(Fmt::e4m3, want), got),
            "2 of 4 e4m3 elements differ (largest distance 1 ulp); mismatches:\n"
            "  [1] expected 0x39 (1.125), actual 0x3a (1.25), 1 ulp apart\n"
            "  [3] expected 0x00 (0), actual 0x80 (-0), 0 ulps apart");
  EXPECT_TRUE(matches(BitExact(Fmt::e4m3, want), want));
  // Other containers and element types hold the same codes.
  const std::array<int8_t, 4> signed_codes{0x38, 0x39, 0x7e, 0x00};
  EXPECT_TRUE(matches(BitExact(Fmt::e4m3, want), signed_codes));
  EXPECT_EQ(explain(BitExact(Fmt::e4m3, want), std::vector<uint8_t>{1, 2}), "has 2 elements, expected 4");
  EXPECT_EQ(description<std::vector<uint8_t>>(BitExact(Fmt::e4m3, want)),
            "is bit-exact to 4 e4m3 codes [0x38 (1), 0x39 (1.125), 0x7e (448), 0x00 (0)]");
}

TEST(BitExact, LongArraysShowEightAndCountAll) {
  std::vector<uint16_t> want(100, 0x3f80), got(100, 0x3f81);  // bf16 1 and 1.0078125
  const std::string msg = explain(BitExact(Fmt::bf16, want), got);
  EXPECT_EQ(msg.substr(0, msg.find('\n')), "100 of 100 bf16 elements differ (largest distance 1 ulp); first mismatches:");
  EXPECT_EQ(std::count(msg.begin(), msg.end(), '\n'), 8);
  EXPECT_NE(msg.find("  [7] expected 0x3f80 (1), actual 0x3f81 (1.0078125), 1 ulp apart"), std::string::npos);
}

TEST(BitExact, CodesOutsideTheFormatAndWrongTypesAreNamed) {
  const uint8_t wide = 0x1f;  // e2m1 is 4 bits
  EXPECT_EQ(explain(BitExact(Fmt::e2m1, 0x1), wide), "expected e2m1 0x1 (0.5), actual 0x1f (not a code of e2m1)");
  const std::vector<float> f{1.0f};
  EXPECT_EQ(explain(BitExact(Fmt::e4m3, std::vector<uint8_t>{0x38}), f),
            "the values are f32 (by their C++ type) but the expectation is e4m3 codes");
  // tf32 codes live in f32 containers.
  EXPECT_TRUE(matches(BitExact(Fmt::tf32, 0x3f800000), 1.0f));
}

TEST(NanAware, AnyNanMatchesAnyNan) {
  const uint32_t qnan = 0x7fc00000, canonical = 0x7fffffff, neg = 0xffc00001, inf = 0x7f800000;
  EXPECT_TRUE(matches(NanAware(Fmt::f32, canonical), qnan));
  EXPECT_TRUE(matches(NanAware(Fmt::f32, canonical), neg));
  EXPECT_FALSE(matches(BitExact(Fmt::f32, canonical), qnan));
  EXPECT_EQ(explain(NanAware(Fmt::f32, canonical), inf),
            "expected f32 0x7fffffff (nan), actual 0x7f800000 (inf), not comparable in ulps (NaN)");
  EXPECT_EQ(description<uint32_t>(NanAware(Fmt::f32, canonical)),
            "is bit-exact (any NaN matching any NaN) to f32 0x7fffffff (nan)");
  // Numbers still compare bit for bit.
  EXPECT_FALSE(matches(NanAware(Fmt::f32, 0x00000000), uint32_t{0x80000000}));
}

TEST(WithinUlps, CountsRepresentableValues) {
  const uint16_t one = 0x3f80;  // bf16 1.0
  EXPECT_TRUE(matches(WithinUlps(1, Fmt::bf16, one), uint16_t{0x3f81}));
  EXPECT_TRUE(matches(WithinUlps(1, Fmt::bf16, one), uint16_t{0x3f7f}));  // across the binade edge
  EXPECT_FALSE(matches(WithinUlps(1, Fmt::bf16, one), uint16_t{0x3f82}));
  EXPECT_EQ(explain(WithinUlps(1, Fmt::bf16, one), uint16_t{0x3f82}),
            "expected bf16 0x3f80 (1), actual 0x3f82 (1.015625), 2 ulps apart");
  EXPECT_TRUE(matches(WithinUlps(0, Fmt::bf16, uint16_t{0x0000}), uint16_t{0x8000}));  // +0 and -0
  EXPECT_TRUE(matches(WithinUlps(1, Fmt::bf16, uint16_t{0x0001}), uint16_t{0x8000}));  // min subnormal, -0
  EXPECT_TRUE(matches(WithinUlps(3, Fmt::f32, uint32_t{0x7fffffff}), uint32_t{0xffc00000}));  // NaN, NaN
  EXPECT_TRUE(matches(WithinUlps(1, Fmt::f16, uint16_t{0x7bff}), uint16_t{0x7c00}));  // 65504 and Inf
  EXPECT_EQ(description<uint16_t>(WithinUlps(2, Fmt::bf16, one)), "is within 2 ulps of bf16 0x3f80 (1)");
  const std::vector<float> want{1.0f, 2.0f}, got{std::nextafter(1.0f, 0.0f), 2.0f};
  EXPECT_TRUE(matches(WithinUlps(1, want), got));
  EXPECT_EQ(explain(WithinUlps(0, want), got),
            "1 of 2 f32 elements differ (largest distance 1 ulp); mismatches:\n"
            "  [0] expected 0x3f800000 (1), actual 0x3f7fffff (0.999999940395355224609375), 1 ulp apart");
}

TEST(Holds, ShowsTheCounterexample) {
  tcemu::testing::PropertyResult bad;
  bad.property = "p";
  bad.counterexample = tcemu::testing::Counterexample{};
  bad.counterexample->why = "because";
  ::testing::Matcher<const tcemu::testing::PropertyResult&> m = tcemu::testing::Holds();
  ::testing::StringMatchResultListener l;
  EXPECT_FALSE(m.MatchAndExplain(bad, &l));
  EXPECT_NE(l.str().find("FAILED p after 0 passing cases (seed 0); shrunk through 0 simpler failing cases to:\n  why: because"),
            std::string::npos)
      << l.str();
  bad.passed = true;
  EXPECT_TRUE(m.Matches(bad));
}

}  // namespace

namespace {

// read_npy_codes against files written by tcemu_golden's own .npy writer.
TEST(ReadNpy, ReadsWhatTheGoldenWriterWrites) {
  const std::string path = ::testing::TempDir() + "tk_npy_test.npy";
  tcemu::io::write_npy(path, tcemu::io::make_npy("<f4", {2, 3}, {0x3f800000, 0x7fffffff, 0, 0x80000000, 1, 0x43e88000}));
  const auto a = tcemu::testing::read_npy_codes(path);
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<size_t>{2, 3}));
  EXPECT_THAT(a.bits, BitExact(Fmt::f32, std::vector<uint64_t>{0x3f800000, 0x7fffffff, 0, 0x80000000, 1, 0x43e88000}));
  tcemu::io::write_npy(path, tcemu::io::make_npy("|u1", {4}, {0x7e, 0x7f, 0x00, 0xff}));
  EXPECT_THAT(tcemu::testing::read_npy_codes(path).bits, BitExact(Fmt::e4m3, std::vector<uint64_t>{0x7e, 0x7f, 0x00, 0xff}));
  EXPECT_THROW(tcemu::testing::read_npy_codes(path + ".missing"), std::runtime_error);
}

}  // namespace
