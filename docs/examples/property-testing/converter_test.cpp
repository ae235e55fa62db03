// Property tests of my:: converters against tcemu's model of cvt.rn.satfinite.e4m3x2.f32.
// The correct converter passes; each buggy one is caught, and the test shows the shrunk
// counterexample (the simplest input shrinking found, expected and actual codes decoded, the
// distance in ulps). The buggy cases assert that the bug IS caught, so this suite passes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <vector>

#include <tcemu/convert.hpp>
#include <tcemu/testing/generators.hpp>
#include <tcemu/testing/matchers.hpp>
#include <tcemu/testing/properties.hpp>

#include "my_converters.hpp"

namespace {

using tcemu::Fmt;
using namespace tcemu::testing;

const ConversionSpec& spec() {
  static const ConversionSpec s = ConversionSpec::ptx("cvt.rn.satfinite.e4m3x2.f32");
  return s;
}

TEST(MyConverter, TheCorrectOnePasses) {
  const PropertyResult r = converts_like(spec(), my::f32_to_e4m3);
  std::cout << r << "\n";
  EXPECT_THAT(r, Holds());
}

TEST(MyConverter, RoundingTiesAwayIsCaught) {
  const PropertyResult r = converts_like(spec(), my::f32_to_e4m3_ties_away);
  std::cout << r << "\n";  // e.g. x = f32 1.0625: expected e4m3 1, actual 1.125, 1 ulp
  ASSERT_FALSE(r.passed);
  ASSERT_TRUE(r.counterexample);
  EXPECT_GT(r.counterexample->shrink_steps, 0);  // shrunk from the first failing tie
  EXPECT_EQ(r.counterexample->ulps, 1u);
}

TEST(MyConverter, SaturatingTooLateIsCaught) {
  const PropertyResult r = converts_like(spec(), my::f32_to_e4m3_late_saturation);
  std::cout << r << "\n";  // an input in (464, 480): expected 0x7e (448), actual 0x7f (NaN)
  ASSERT_FALSE(r.passed);
  ASSERT_TRUE(r.counterexample);
  EXPECT_EQ(r.counterexample->expected->bits & 0x7f, 0x7eu);
  EXPECT_EQ(r.counterexample->actual->bits & 0x7f, 0x7fu);
}

// The same check as a plain assertion over an array, with tcemu's converter as the oracle.
TEST(MyConverter, BitExactOverInterestingInputs) {
  rc::Random random(42);  // a fixed draw of 256 inputs weighted toward ties and thresholds
  const auto xs = rc::gen::container<std::vector<Code>>(256, gen::interesting(Fmt::f32, Fmt::e4m3))(random, 100).value();
  std::vector<uint8_t> mine, ties_away;
  std::vector<uint64_t> want;
  for (const Code& x : xs) {
    const auto bits = static_cast<uint32_t>(x.bits);
    mine.push_back(my::f32_to_e4m3(bits));
    ties_away.push_back(my::f32_to_e4m3_ties_away(bits));
    want.push_back(spec().expected(x.bits));
  }
  EXPECT_THAT(mine, BitExact(Fmt::e4m3, want));
  // The buggy one differs; the matcher's message lists the first mismatches decoded.
  ::testing::StringMatchResultListener why;
  EXPECT_FALSE(::testing::ExplainMatchResult(BitExact(Fmt::e4m3, want), ties_away, &why));
  std::cout << "BitExact on the ties-away converter: " << why.str() << "\n";
}

}  // namespace
