// The reference's exact values and format properties against the numbers printed in
// docs/formats.md ([N1] below) and IEEE 754-2019 Table 3.5 ([IEEE]).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tcemu_ref/exact.hpp"

namespace {

namespace ref = tcemu::ref;
using tcemu::Fmt;
using ref::cpp_int;

ref::Exact val(const std::string& decimal) { return *ref::exact_from_decimal(decimal); }
ref::Exact pow2(int k) { return ref::make_finite(false, cpp_int(1), k); }

// Equal as numbers, with a readable failure.
void expect_value(const ref::Exact& got, const ref::Exact& want, const std::string& what) {
  EXPECT_EQ(ref::compare(got, want), 0) << what << ": got " << ref::exact_decimal(got) << ", want "
                                        << ref::exact_decimal(want);
}

struct FormatFacts {
  Fmt f;
  ref::Exact max;
  uint64_t max_code;
  ref::Exact min_normal;
  std::optional<ref::Exact> min_sub;
};

std::vector<FormatFacts> facts() {
  return {
      // [IEEE] binary64: (2 - 2^-52) * 2^1023, emin -1022, p 53.
      {Fmt::f64, ref::make_finite(false, (cpp_int(1) << 53) - 1, 971), 0x7fefffffffffffffull, pow2(-1022), pow2(-1074)},
      // [N1] f32: (2-2^-23)*2^127 = FLT_MAX, 2^-126, 2^-149.
      {Fmt::f32, val("340282346638528859811704183484516925440"), 0x7f7fffff, pow2(-126), pow2(-149)},
      // [N1] tf32: range "as f32", 10 fraction bits, so the largest is (2-2^-10)*2^127 at
      // 0x7f7fe000; 2^-126; 2^-136.
      {Fmt::tf32, ref::make_finite(false, cpp_int(2047), 117), 0x7f7fe000, pow2(-126), pow2(-136)},
      // [N1] f16: 65504 (0x7BFF), 2^-14, 2^-24.
      {Fmt::f16, val("65504"), 0x7bff, pow2(-14), pow2(-24)},
      // [N1] bf16: 0x7F7F = (1 + 127/128) * 2^127 = 255 * 2^120; 2^-126; 2^-133.
      {Fmt::bf16, ref::make_finite(false, cpp_int(255), 120), 0x7f7f, pow2(-126), pow2(-133)},
      // [N1] e4m3: 448 (0x7E), 2^-6, 2^-9.
      {Fmt::e4m3, val("448"), 0x7e, pow2(-6), pow2(-9)},
      // [N1] e5m2: 57344 (0x7B), 2^-14, 2^-16.
      {Fmt::e5m2, val("57344"), 0x7b, pow2(-14), pow2(-16)},
      // [N1] e3m2: 28 (0x1F), 0.25, 2^-4.
      {Fmt::e3m2, val("28"), 0x1f, val("0.25"), pow2(-4)},
      // [N1] e2m3: 7.5 (0x1F), 1, 2^-3.
      {Fmt::e2m3, val("7.5"), 0x1f, val("1"), pow2(-3)},
      // [N1] e2m1: 6 (0x7), 1, 0.5.
      {Fmt::e2m1, val("6"), 0x7, val("1"), val("0.5")},
      // [N1] ue8m0: 2^127 (0xFE), smallest 2^-127 (0x00), no subnormal.
      {Fmt::ue8m0, pow2(127), 0xfe, pow2(-127), std::nullopt},
      // [N1] ue4m3: 448, 2^-6, 2^-9; 7 bits, so the largest code is 0x7E.
      {Fmt::ue4m3, val("448"), 0x7e, pow2(-6), pow2(-9)},
      // Integers: the two's complement / binary range ends.
      {Fmt::s8, val("127"), 0x7f, val("1"), std::nullopt},
      {Fmt::u8, val("255"), 0xff, val("1"), std::nullopt},
      {Fmt::s4, val("7"), 0x7, val("1"), std::nullopt},
      {Fmt::u4, val("15"), 0xf, val("1"), std::nullopt},
  };
}

TEST(ReferenceFormats, PropertiesMatchFormatTable) {
  for (const FormatFacts& t : facts()) {
    const std::string name = ref::params(t.f).name;
    expect_value(ref::max_finite(t.f), t.max, name + " max finite");
    EXPECT_EQ(ref::max_finite_code(t.f, false), t.max_code) << name;
    expect_value(ref::exact_value(t.f, t.max_code), t.max, name + " value of the max code");
    expect_value(ref::min_normal(t.f), t.min_normal, name + " min normal");
    const auto sub = ref::min_subnormal(t.f);
    ASSERT_EQ(sub.has_value(), t.min_sub.has_value()) << name;
    if (sub) expect_value(*sub, *t.min_sub, name + " min subnormal");
  }
}

// Scanning every code of the small formats finds the same extremes as the formulas above.
TEST(ReferenceFormats, ExhaustiveScanFindsTheExtremes) {
  for (Fmt f : {Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3,
                Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4}) {
    const ref::FormatParams& p = ref::params(f);
    std::optional<ref::Exact> largest, smallest_positive;
    int nans = 0;
    for (uint64_t c = 0; c < (uint64_t{1} << p.width); ++c) {
      const ref::Exact x = ref::exact_value(f, c);
      if (x.kind == ref::Exact::nan) ++nans;
      if (x.kind != ref::Exact::finite) continue;
      if (!largest || ref::compare(x, *largest) > 0) largest = x;
      if (!x.sign && x.mant != 0 && (!smallest_positive || ref::compare(x, *smallest_positive) < 0)) smallest_positive = x;
    }
    expect_value(*largest, ref::max_finite(f), std::string(p.name) + " scan max");
    const ref::Exact want_min = ref::min_subnormal(f) ? *ref::min_subnormal(f) : ref::min_normal(f);
    expect_value(*smallest_positive, want_min, std::string(p.name) + " scan min");
    // [N1] NaN codes: f16 2 x 1023 fractions, bf16 2 x 127, e4m3 only 0x7F/0xFF, e5m2
    // 0x7D-0x7F signed, ue8m0 0xFF only, ue4m3 0x7F only, none in e3m2/e2m3/e2m1/integers.
    const int want_nans = f == Fmt::f16 ? 2046 : f == Fmt::bf16 ? 254 : f == Fmt::e4m3 ? 2 : f == Fmt::e5m2 ? 6
                        : (f == Fmt::ue8m0 || f == Fmt::ue4m3) ? 1 : 0;
    EXPECT_EQ(nans, want_nans) << p.name;
  }
}

TEST(ReferenceFormats, E2m1ValueSet) {
  // [N1] E2M1 values {0, 0.5, 1, 1.5, 2, 3, 4, 6} and negatives, both zeros.
  const char* want[] = {"0", "0.5", "1", "1.5", "2", "3", "4", "6"};
  for (uint64_t c = 0; c < 8; ++c) {
    EXPECT_EQ(ref::exact_decimal(Fmt::e2m1, c), want[c]) << c;
    EXPECT_EQ(ref::exact_decimal(Fmt::e2m1, c | 8), std::string("-") + want[c]) << c;
  }
}

TEST(ReferenceFormats, ExactDecimals) {
  // e4m3 0x01: 2^-9 [N1 min subnormal]; 0xFE: -448 [N1 max].
  EXPECT_EQ(ref::exact_decimal(Fmt::e4m3, 0x01), "0.001953125");
  EXPECT_EQ(ref::exact_decimal(Fmt::e4m3, 0xfe), "-448");
  EXPECT_EQ(ref::exact_decimal(Fmt::e4m3, 0x7f), "nan");  // [N1] NaN only 0x7F, 0xFF
  EXPECT_EQ(ref::exact_decimal(Fmt::e4m3, 0x80), "-0");
  EXPECT_EQ(ref::exact_decimal(Fmt::e5m2, 0x7c), "inf");  // [N1] Inf 0x7C/0xFC
  EXPECT_EQ(ref::exact_decimal(Fmt::e5m2, 0xfc), "-inf");
  EXPECT_EQ(ref::exact_decimal(Fmt::e5m2, 0x7b), "57344");
  EXPECT_EQ(ref::exact_decimal(Fmt::e3m2, 0x01), "0.0625");  // 2^-4 [N1]
  EXPECT_EQ(ref::exact_decimal(Fmt::e2m3, 0x01), "0.125");   // 2^-3 [N1]
  // f16 0x3555: exponent 13 - 15 = -2, fraction 0x155 = 341: 1365/4096 (by hand).
  EXPECT_EQ(ref::exact_decimal(Fmt::f16, 0x3555), "0.333251953125");
  // bf16 0xC049: -(1 + 73/128) * 2 = -201/64 (by hand).
  EXPECT_EQ(ref::exact_decimal(Fmt::bf16, 0xc049), "-3.140625");
  // tf32 0x3F802000 = 1 + 2^-10; the low 13 bits are ignored [N1 "treat it as bits & 0xFFFFE000"].
  EXPECT_EQ(ref::exact_decimal(Fmt::tf32, 0x3f802000), "1.0009765625");
  EXPECT_EQ(ref::exact_decimal(Fmt::tf32, 0x3f801fff), "1");
  // f32 0x00000001 = 2^-149 [N1], every digit (computed with Python's decimal module).
  EXPECT_EQ(ref::exact_decimal(Fmt::f32, 0x00000001),
            "0.00000000000000000000000000000000000000000000140129846432481707092372958328991613128026194187651"
            "577175706828388979108268586060148663818836212158203125");
  // [N1] ue8m0 0x00 is 2^-127 (Python's decimal module for the digits); 0x7F is 1; 0xFE 2^127.
  EXPECT_EQ(ref::exact_decimal(Fmt::ue8m0, 0x00),
            "0.0000000000000000000000000000000000000058774717541114375398436826861112283890933277838604376075437585"
            "313920862972736358642578125");
  EXPECT_EQ(ref::exact_decimal(Fmt::ue8m0, 0x7f), "1");
  EXPECT_EQ(ref::exact_decimal(Fmt::ue8m0, 0xfe), "170141183460469231731687303715884105728");
  EXPECT_EQ(ref::exact_decimal(Fmt::ue8m0, 0xff), "nan");
  EXPECT_EQ(ref::exact_decimal(Fmt::ue4m3, 0x7e), "448");
  // Two's complement integers.
  EXPECT_EQ(ref::exact_decimal(Fmt::s8, 0x80), "-128");
  EXPECT_EQ(ref::exact_decimal(Fmt::s8, 0xff), "-1");
  EXPECT_EQ(ref::exact_decimal(Fmt::u8, 0xff), "255");
  EXPECT_EQ(ref::exact_decimal(Fmt::s4, 0x8), "-8");
  EXPECT_EQ(ref::exact_decimal(Fmt::u4, 0xf), "15");
}

TEST(ReferenceFormats, CanonicalNanAndInfCodes) {
  // docs/conversions.md step 1 (canonical NaN per format), [N1] Inf codes.
  EXPECT_EQ(ref::canonical_nan_code(Fmt::f64), 0x7fffffffffffffffull);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::f32), 0x7fffffffu);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::tf32), 0x7fffe000u);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::f16), 0x7fffu);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::bf16), 0x7fffu);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::e4m3), 0x7fu);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::e5m2), 0x7fu);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::ue8m0), 0xffu);
  EXPECT_EQ(ref::canonical_nan_code(Fmt::ue4m3), 0x7fu);
  EXPECT_FALSE(ref::canonical_nan_code(Fmt::e2m1).has_value());
  EXPECT_FALSE(ref::canonical_nan_code(Fmt::s8).has_value());
  EXPECT_EQ(ref::inf_code(Fmt::f16, false), 0x7c00u);
  EXPECT_EQ(ref::inf_code(Fmt::bf16, true), 0xff80u);
  EXPECT_EQ(ref::inf_code(Fmt::e5m2, true), 0xfcu);
  EXPECT_EQ(ref::inf_code(Fmt::f32, false), 0x7f800000u);
  EXPECT_EQ(ref::inf_code(Fmt::tf32, false), 0x7f800000u);
  EXPECT_FALSE(ref::inf_code(Fmt::e4m3, false).has_value());
  EXPECT_FALSE(ref::inf_code(Fmt::ue8m0, false).has_value());
  EXPECT_FALSE(ref::zero_code(Fmt::ue8m0, false).has_value());  // [N1] "no zero"
  EXPECT_EQ(ref::zero_code(Fmt::e4m3, true), 0x80u);
  EXPECT_EQ(ref::zero_code(Fmt::ue4m3, true), 0x00u);
}

TEST(ReferenceFormats, CodesOutsideTheWidthAreRejected) {
  EXPECT_THROW(ref::exact_value(Fmt::e2m1, 0x10), std::invalid_argument);
  EXPECT_THROW(ref::exact_value(Fmt::ue4m3, 0x80), std::invalid_argument);  // 7-bit format
  EXPECT_THROW(ref::exact_value(Fmt::f16, 0x10000), std::invalid_argument);
  EXPECT_NO_THROW(ref::exact_value(Fmt::f64, ~uint64_t{0}));
}

TEST(ReferenceFormats, SubnormalMarkForFtz) {
  EXPECT_TRUE(ref::exact_value(Fmt::f16, 0x0001).subnormal);
  EXPECT_TRUE(ref::exact_value(Fmt::tf32, 0x00002000).subnormal);
  EXPECT_FALSE(ref::exact_value(Fmt::f16, 0x0400).subnormal);  // 2^-14, the smallest normal
  EXPECT_FALSE(ref::exact_value(Fmt::f16, 0x0000).subnormal);
  EXPECT_FALSE(ref::exact_value(Fmt::ue8m0, 0x00).subnormal);  // 2^-127 is normal: no subnormals
}

}  // namespace
