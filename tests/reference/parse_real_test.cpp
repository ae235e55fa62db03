// Reading numbers as text: decimal, hex float, inf, nan; dyadic detection; clear errors.
#include <gtest/gtest.h>

#include "tcemu_ref/exact.hpp"

namespace {

namespace ref = tcemu::ref;
using ref::cpp_int;
using ref::cpp_rational;

TEST(ReferenceParse, DecimalsAndHexFloats) {
  EXPECT_EQ(ref::parse_real("-465").mag, cpp_rational(465));
  EXPECT_TRUE(ref::parse_real("-465").sign);
  EXPECT_EQ(ref::parse_real("1e-9").mag, cpp_rational(cpp_int(1), cpp_int(1000000000)));
  EXPECT_EQ(ref::parse_real("+2.5E3").mag, cpp_rational(2500));
  EXPECT_EQ(ref::parse_real("0.1").mag, cpp_rational(cpp_int(1), cpp_int(10)));
  EXPECT_EQ(ref::parse_real(".5").mag, cpp_rational(cpp_int(1), cpp_int(2)));
  EXPECT_EQ(ref::parse_real("0x1p-3").mag, cpp_rational(cpp_int(1), cpp_int(8)));
  EXPECT_EQ(ref::parse_real("-0x1.8p4").mag, cpp_rational(24));  // 1.5 * 16
  EXPECT_EQ(ref::parse_real("0xA.8").mag, cpp_rational(cpp_int(21), cpp_int(2)));
  EXPECT_EQ(ref::parse_real("inf").kind, ref::Exact::inf);
  EXPECT_TRUE(ref::parse_real("-Infinity").sign);
  EXPECT_EQ(ref::parse_real("NaN").kind, ref::Exact::nan);
  EXPECT_TRUE(ref::parse_real("-0").sign);
  EXPECT_EQ(ref::parse_real("-0").mag, cpp_rational(0));
}

TEST(ReferenceParse, DyadicValuesBecomeExact) {
  EXPECT_EQ(ref::exact_decimal(*ref::exact_from_decimal("0x1p-3")), "0.125");
  EXPECT_EQ(ref::exact_decimal(*ref::exact_from_decimal("-465")), "-465");
  EXPECT_EQ(ref::exact_decimal(*ref::exact_from_decimal("0.001953125")), "0.001953125");
  EXPECT_EQ(ref::exact_decimal(*ref::exact_from_decimal("-0")), "-0");
  EXPECT_EQ(ref::exact_decimal(*ref::exact_from_decimal("-inf")), "-inf");
  EXPECT_FALSE(ref::exact_from_decimal("0.1").has_value());
  EXPECT_FALSE(ref::exact_from_decimal("1e-9").has_value());
}

TEST(ReferenceParse, BadTextIsAClearError) {
  for (const char* bad : {"", "-", "abc", "1.5e", "1e+", "0x", "0xp3", "1..2", "1.5 ", "1e99999999", "infinit"}) {
    try {
      ref::parse_real(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
