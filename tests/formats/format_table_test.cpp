// The property table of every format against docs/formats.md (max finite, min normal, min
// subnormal, Inf and NaN codes), the decoder against the reference's exact values, decode
// classes, is_valid_code, names and hex spelling.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <optional>
#include <string>

#include "tcemu/format.hpp"
#include "tcemu_ref/exact.hpp"

namespace {

using tcemu::Fmt;
namespace ref = tcemu::ref;
using boost::multiprecision::cpp_int;

// One row of docs/formats.md: values as sig * 2^exp, codes as printed there (or implied by
// the field layout where the table gives a value only).
struct Row {
  Fmt f;
  uint64_t max_code;
  uint64_t max_sig;
  int max_exp;
  uint64_t min_normal_code;
  int min_normal_exp;                        // the value is 2^exp
  std::optional<uint64_t> min_sub_code;      // the value is 2^min_sub_exp
  int min_sub_exp;
  std::optional<uint64_t> inf;
  std::optional<uint64_t> nan;               // canonical NaN (docs/conversions.md step 1)
};

const Row kRows[] = {
    {Fmt::f64, 0x7FEFFFFFFFFFFFFF, (uint64_t{1} << 53) - 1, 1023 - 52, 0x0010000000000000, -1022, 1, -1074,
     0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF},
    {Fmt::f32, 0x7F7FFFFF, (1u << 24) - 1, 127 - 23, 0x00800000, -126, 1, -149, 0x7F800000, 0x7FFFFFFF},
    {Fmt::tf32, 0x7F7FE000, (1u << 11) - 1, 127 - 10, 0x00800000, -126, 0x2000, -136, 0x7F800000, 0x7FFFE000},
    {Fmt::f16, 0x7BFF, 65504, 0, 0x0400, -14, 1, -24, 0x7C00, 0x7FFF},
    {Fmt::bf16, 0x7F7F, 255, 127 - 7, 0x0080, -126, 1, -133, 0x7F80, 0x7FFF},
    {Fmt::e4m3, 0x7E, 448, 0, 0x08, -6, 1, -9, std::nullopt, 0x7F},
    {Fmt::e5m2, 0x7B, 57344, 0, 0x04, -14, 1, -16, 0x7C, 0x7F},
    {Fmt::e3m2, 0x1F, 28, 0, 0x04, -2, 1, -4, std::nullopt, std::nullopt},
    {Fmt::e2m3, 0x1F, 15, -1, 0x08, 0, 1, -3, std::nullopt, std::nullopt},
    {Fmt::e2m1, 0x7, 6, 0, 0x2, 0, 1, -1, std::nullopt, std::nullopt},
    {Fmt::ue8m0, 0xFE, 1, 127, 0x00, -127, std::nullopt, 0, std::nullopt, 0xFF},
    {Fmt::ue4m3, 0x7E, 448, 0, 0x08, -6, 1, -9, std::nullopt, 0x7F},
    // ue5m3 (PTX ISA 9.4, docs/formats.md): 0x01 = 2^-17, 0xFE = 114688 = 7 * 2^14, 0xFF NaN.
    {Fmt::ue5m3, 0xFE, 7, 14, 0x08, -14, 1, -17, std::nullopt, 0xFF},
};

ref::Exact pow2(int e) { return ref::make_finite(false, 1, e); }

TEST(FormatTable, MatchesPublishedFormatTable) {
  for (const Row& r : kRows) {
    SCOPED_TRACE(std::string(tcemu::info(r.f).name));
    EXPECT_EQ(tcemu::max_finite_code(r.f), r.max_code);
    EXPECT_EQ(ref::compare(ref::exact_value(r.f, r.max_code), ref::make_finite(false, cpp_int(r.max_sig), r.max_exp)), 0);
    EXPECT_EQ(tcemu::min_normal_code(r.f), r.min_normal_code);
    EXPECT_EQ(ref::compare(ref::exact_value(r.f, r.min_normal_code), pow2(r.min_normal_exp)), 0);
    EXPECT_EQ(tcemu::min_subnormal_code(r.f), r.min_sub_code);
    if (r.min_sub_code) {
      EXPECT_EQ(ref::compare(ref::exact_value(r.f, *r.min_sub_code), pow2(r.min_sub_exp)), 0);
    }
    EXPECT_EQ(tcemu::inf_code(r.f), r.inf);
    EXPECT_EQ(tcemu::canonical_nan(r.f), r.nan);
    // Signed formats: the negative codes carry the sign bit.
    const tcemu::FormatInfo& fi = tcemu::info(r.f);
    EXPECT_EQ(tcemu::max_finite_code(r.f, true), r.max_code | fi.sign_mask());
    if (r.inf) {
      EXPECT_EQ(tcemu::inf_code(r.f, true), *r.inf | fi.sign_mask());
    }
    // Zero: none in ue8m0; -0 in every signed float format.
    if (r.f == Fmt::ue8m0) {
      EXPECT_FALSE(tcemu::zero_code(r.f).has_value());
    } else {
      EXPECT_EQ(tcemu::zero_code(r.f), 0u);
      EXPECT_EQ(tcemu::zero_code(r.f, true), fi.sign_mask());
    }
    // The info() helpers agree with the values above.
    EXPECT_EQ(fi.emin(), r.min_normal_exp);
    // The reference's own table agrees too (two independent transcriptions of §1).
    EXPECT_EQ(ref::max_finite_code(r.f, false), r.max_code);
    EXPECT_EQ(ref::canonical_nan_code(r.f), r.nan);
    EXPECT_EQ(ref::inf_code(r.f, false), r.inf);
  }
}

TEST(FormatTable, IntegerRanges) {
  EXPECT_EQ(tcemu::max_finite_code(Fmt::s8), 0x7Fu);
  EXPECT_EQ(tcemu::max_finite_code(Fmt::s8, true), 0x80u);  // -128
  EXPECT_EQ(tcemu::max_finite_code(Fmt::u8), 0xFFu);
  EXPECT_EQ(tcemu::max_finite_code(Fmt::s4), 0x7u);
  EXPECT_EQ(tcemu::max_finite_code(Fmt::s4, true), 0x8u);
  EXPECT_EQ(tcemu::max_finite_code(Fmt::u4), 0xFu);
  for (Fmt f : {Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4}) {
    EXPECT_EQ(tcemu::min_normal_code(f), 1u);
    EXPECT_FALSE(tcemu::canonical_nan(f).has_value());
    EXPECT_FALSE(tcemu::inf_code(f).has_value());
  }
  EXPECT_EQ(tcemu::exact_decimal(Fmt::s8, 0x80), "-128");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::s4, 0xF), "-1");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::u4, 0xF), "15");
}

// Every code of every format of 16 bits or fewer: decode's value and class against the
// reference, and the number of codes in each class.
struct ClassCount {
  Fmt f;
  int zero, subnormal, normal, inf, nan;
};
const ClassCount kCounts[] = {
    {Fmt::f16, 2, 2046, 61440, 2, 2046},  {Fmt::bf16, 2, 254, 65024, 2, 254}, {Fmt::e4m3, 2, 14, 238, 0, 2},
    {Fmt::e5m2, 2, 6, 240, 2, 6},         {Fmt::e3m2, 2, 6, 56, 0, 0},        {Fmt::e2m3, 2, 14, 48, 0, 0},
    {Fmt::e2m1, 2, 2, 12, 0, 0},          {Fmt::ue8m0, 0, 0, 255, 0, 1},      {Fmt::ue4m3, 1, 7, 119, 0, 1},
    {Fmt::s8, 1, 0, 255, 0, 0},           {Fmt::u8, 1, 0, 255, 0, 0},         {Fmt::s4, 1, 0, 15, 0, 0},
    {Fmt::u4, 1, 0, 15, 0, 0},            {Fmt::ue5m3, 1, 7, 247, 0, 1},
};

TEST(FormatDecode, EveryCodeAgreesWithReference) {
  for (const ClassCount& cc : kCounts) {
    SCOPED_TRACE(std::string(tcemu::info(cc.f).name));
    int n[5] = {0, 0, 0, 0, 0};
    int bad = 0;
    const uint64_t total = uint64_t{1} << tcemu::info(cc.f).width;
    for (uint64_t c = 0; c < total; ++c) {
      tcemu::Decoded d = tcemu::decode(cc.f, c);
      ++n[static_cast<int>(d.cls)];
      ref::Exact x = ref::exact_value(cc.f, c);
      bool ok;
      switch (d.cls) {
        case tcemu::Class::nan: ok = x.kind == ref::Exact::nan; break;
        case tcemu::Class::inf: ok = x.kind == ref::Exact::inf && x.sign == d.sign; break;
        default:
          ok = x.kind == ref::Exact::finite && x.sign == d.sign &&
               ref::compare(x, ref::make_finite(d.sign, cpp_int(d.sig), d.exp)) == 0 &&
               (d.cls == tcemu::Class::zero) == x.is_zero() &&
               (d.cls == tcemu::Class::subnormal) == (x.subnormal && !x.is_zero());
      }
      if (!ok && bad++ < 10)
        ADD_FAILURE() << "code 0x" << std::hex << c << ": decode gives class " << int(d.cls) << " sig " << d.sig
                      << " exp " << std::dec << d.exp << ", reference " << ref::exact_decimal(x);
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(n[int(tcemu::Class::zero)], cc.zero);
    EXPECT_EQ(n[int(tcemu::Class::subnormal)], cc.subnormal);
    EXPECT_EQ(n[int(tcemu::Class::normal)], cc.normal);
    EXPECT_EQ(n[int(tcemu::Class::inf)], cc.inf);
    EXPECT_EQ(n[int(tcemu::Class::nan)], cc.nan);
  }
}

TEST(FormatDecode, Tf32IgnoresLowBits) {
  for (uint64_t c : {0x3F800000ull, 0x00002000ull, 0x7F800000ull, 0x7FC00000ull, 0x80800000ull}) {
    tcemu::Decoded a = tcemu::decode(Fmt::tf32, c), b = tcemu::decode(Fmt::tf32, c | 0x1FFF);
    EXPECT_EQ(a.cls, b.cls);
    EXPECT_EQ(a.sig, b.sig);
    EXPECT_EQ(a.exp, b.exp);
    EXPECT_EQ(a.sign, b.sign);
  }
  // 0x00001FFF is a nonzero f32 subnormal but tf32 zero.
  EXPECT_EQ(tcemu::decode(Fmt::tf32, 0x00001FFF).cls, tcemu::Class::zero);
}

TEST(FormatValidCode, WidthsAndPadding) {
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::tf32, 0x3F800000));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::tf32, 0x3F800001));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::tf32, 0x00001000));
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::tf32, 0xFFFFE000));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::tf32, 0x100000000ull));
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::ue4m3, 0x7F));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::ue4m3, 0x80));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::ue4m3, 0xFE));
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::ue8m0, 0xFF));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::ue8m0, 0x100));
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::e2m1, 0xF));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::e2m1, 0x10));
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::e3m2, 0x3F));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::e3m2, 0x40));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::e2m3, 0x40));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::f16, 0x10000));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::s4, 0x10));
  EXPECT_TRUE(tcemu::is_valid_code(Fmt::f64, ~uint64_t{0}));
  EXPECT_FALSE(tcemu::is_valid_code(Fmt::f32, 0x100000000ull));
}

TEST(FormatNames, ParseAndHex) {
  for (const auto& fi : tcemu::kFormats) {
    EXPECT_EQ(tcemu::parse_format(fi.name), fi.id) << fi.name;
    EXPECT_EQ(tcemu::to_hex(fi.id, 0).size(), fi.hex_digits) << fi.name;
  }
  EXPECT_FALSE(tcemu::parse_format("e9m9").has_value());
  EXPECT_FALSE(tcemu::parse_format("").has_value());
  EXPECT_EQ(tcemu::to_hex(Fmt::f16, 0x3C00), "3c00");
  EXPECT_EQ(tcemu::to_hex(Fmt::e2m1, 0x7), "7");
  EXPECT_EQ(tcemu::to_hex(Fmt::e3m2, 0x1F), "1f");
  EXPECT_EQ(tcemu::to_hex(Fmt::e4m3, 0x0), "00");
  EXPECT_EQ(tcemu::to_hex(Fmt::f64, 0x3FF0000000000000), "3ff0000000000000");
  EXPECT_EQ(tcemu::to_hex(Fmt::tf32, 0x3F800000), "3f800000");
  // Widths in hex digits per the `tcemu convert` contract: 2 for 6- and 8-bit formats.
  EXPECT_EQ(tcemu::info(Fmt::e2m3).hex_digits, 2);
  EXPECT_EQ(tcemu::info(Fmt::ue4m3).hex_digits, 2);
  EXPECT_EQ(tcemu::info(Fmt::u4).hex_digits, 1);
}

}  // namespace
