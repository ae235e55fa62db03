// UE5M3, PTX ISA 9.4's scale format (docs/formats.md): values worked out by hand from its
// definition (unsigned, 5 exponent and 3 fraction bits, bias 15, subnormals, no Inf, 0xFF the
// only NaN), checked on the emulator and on the exact reference. The exhaustive and stratified
// conversion tests cover every code and every rounding mode against the reference.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "tcemu/convert.hpp"
#include "tcemu_ref/convert_ref.hpp"

namespace {

using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;

uint64_t f32(float x) { return std::bit_cast<uint32_t>(x); }

struct Hand {
  float x;
  Round r;
  bool sat;
  uint64_t code;
  const char* why;
};

// [HAND] 1.0 = 2^0: biased exponent 15 = 0b01111, fraction 0: 0x78. 114688 = 1.75 * 2^16:
// exponent 31, fraction 0b110: 0xFE (0xFF, fraction 0b111, is NaN). 118784 is the midpoint of
// 114688 and the next step 122880: ties to even keep 0xFE (fraction 0b110 is even); above it RN
// overflows. 2^-17 = 0x01 (subnormal, 1/8 of 2^-14); 2^-18 is half of it: a tie, to even, 0x00.
const Hand kHand[] = {
    {1.0f, Round::rn, false, 0x78, "1"},
    {114688.0f, Round::rn, false, 0xFE, "max"},
    {118784.0f, Round::rn, false, 0xFE, "tie below NaN to even"},
    {118785.0f, Round::rn, true, 0xFE, "overflow, satfinite"},
    {118785.0f, Round::rn, false, 0xFF, "overflow, no satfinite: NaN (no Inf)"},
    {118785.0f, Round::rz, false, 0xFE, "RZ overflow gives max"},
    {114689.0f, Round::ru, false, 0xFF, "RU above max, no satfinite: NaN"},
    {114689.0f, Round::ru, true, 0xFE, "RU above max, satfinite"},
    {0x1p-14f, Round::rn, false, 0x08, "min normal"},
    {0x1p-17f, Round::rn, false, 0x01, "min subnormal"},
    {0x1p-18f, Round::rn, false, 0x00, "half the min subnormal: tie to even"},
    {0x1p-18f, Round::ru, false, 0x01, "RU of a tiny value"},
    {0x3p-19f, Round::rn, false, 0x01, "three quarters of the min subnormal"},
    {1.0625f, Round::rn, false, 0x78, "1 + 1/16: tie to even 1"},
    {1.0625f, Round::ru, false, 0x79, "RU"},
    {1.1875f, Round::rn, false, 0x7A, "1 + 3/16: tie to even 1.25"},
    {1.1875f, Round::rna, false, 0x7A, "RNA"},
    {1.0625f, Round::rna, false, 0x79, "RNA away"},
    {-1.0f, Round::rn, false, 0x78, "negative: its magnitude (the default NegToUnsigned)"},
};

TEST(Ue5m3, HandValuesOnEmulatorAndReference) {
  for (const Hand& h : kHand) {
    ConvertOptions o;
    o.round = h.r;
    o.satfinite = h.sat;
    SCOPED_TRACE(h.why);
    EXPECT_EQ(tcemu::convert(Fmt::f32, Fmt::ue5m3, f32(h.x), o).code, h.code);
    EXPECT_EQ(tcemu::ref::convert(Fmt::f32, Fmt::ue5m3, f32(h.x), o).code, h.code);
  }
  ConvertOptions o;
  EXPECT_EQ(tcemu::convert(Fmt::f32, Fmt::ue5m3, f32(NAN), o).code, 0xFFu);
  EXPECT_EQ(tcemu::ref::convert(Fmt::f32, Fmt::ue5m3, f32(NAN), o).code, 0xFFu);
  // Up: exact in f32 (0xFE -> 114688, 0x01 -> 2^-17), 0xFF -> the canonical f32 NaN.
  EXPECT_EQ(tcemu::convert(Fmt::ue5m3, Fmt::f32, 0xFE, o).code, f32(114688.0f));
  EXPECT_EQ(tcemu::convert(Fmt::ue5m3, Fmt::f32, 0x01, o).code, f32(0x1p-17f));
  EXPECT_EQ(tcemu::convert(Fmt::ue5m3, Fmt::f32, 0xFF, o).code, 0x7FFFFFFFu);
  // Every ue4m3 value is a ue5m3 value (the same fraction, 8 more binades each side).
  for (uint64_t c = 0; c < 0x7F; ++c) {
    const auto up = tcemu::convert(Fmt::ue4m3, Fmt::ue5m3, c, o);
    EXPECT_EQ(up.flags, 0) << c;
    EXPECT_EQ(tcemu::convert(Fmt::ue5m3, Fmt::ue4m3, up.code, o).code, c);
  }
}

}  // namespace
