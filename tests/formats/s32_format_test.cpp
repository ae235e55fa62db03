// s32, the int32 accumulator of integer MMA, is a format row like the others (width, signed
// integer, hex digits) but not a conversion format: kFormats, parse_format and the names the
// conversion commands accept leave it out; the accumulator and golden element types use it.
#include <gtest/gtest.h>

#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/golden.hpp"

namespace {

using tcemu::Fmt;

TEST(S32Format, IsAnInt32Row) {
  const tcemu::FormatInfo& fi = tcemu::info(Fmt::s32);
  EXPECT_EQ(fi.id, Fmt::s32);
  EXPECT_EQ(fi.name, "s32");
  EXPECT_EQ(fi.width, 32);
  EXPECT_EQ(fi.hex_digits, 8);
  EXPECT_TRUE(fi.is_int);
  EXPECT_TRUE(fi.is_signed);
  EXPECT_EQ(fi.code_mask(), 0xFFFFFFFFull);
  // Two's complement, as the MMA's int32 sums wrap.
  const tcemu::Decoded m = tcemu::decode(Fmt::s32, 0x80000000u);
  EXPECT_TRUE(m.sign);
  EXPECT_EQ(m.sig, uint64_t{1} << 31);
  const tcemu::Decoded p = tcemu::decode(Fmt::s32, 0x7FFFFFFFu);
  EXPECT_FALSE(p.sign);
  EXPECT_EQ(p.sig, 0x7FFFFFFFu);
  EXPECT_EQ(tcemu::to_hex(Fmt::s32, 0xFFFFFFFEu), "fffffffe");
}

TEST(S32Format, IsNotAConversionFormat) {
  EXPECT_EQ(tcemu::kFormats.size(), static_cast<size_t>(tcemu::kNumFormats));
  for (const tcemu::FormatInfo& fi : tcemu::kFormats) EXPECT_NE(fi.id, Fmt::s32);
  EXPECT_EQ(tcemu::kAllFormats.size(), static_cast<size_t>(tcemu::kNumAllFormats));
  EXPECT_EQ(tcemu::kAllFormats.back().id, Fmt::s32);
  EXPECT_FALSE(tcemu::parse_format("s32").has_value());
}

TEST(S32Format, IsTheIntegerAccumulatorAndAGoldenElementType) {
  EXPECT_EQ(tcemu::acc_format(tcemu::AccType::s32), Fmt::s32);
  EXPECT_EQ(tcemu::acc_format(tcemu::AccType::f32), Fmt::f32);
  EXPECT_EQ(tcemu::acc_format(tcemu::AccType::f16), Fmt::f16);
  const auto t = tcemu::golden::parse_elem_type("s32");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->fmt, Fmt::s32);
  EXPECT_EQ(t->bits, 32);
  EXPECT_EQ(t->bytes, 4);
  EXPECT_EQ(t->hex_digits, 8);
  EXPECT_EQ(tcemu::golden::npy_descr(*t), "<i4");
}

}  // namespace
