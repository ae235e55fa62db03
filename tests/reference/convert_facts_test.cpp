// Directed conversions whose results are stated by the sources: the CUDA 13.0 host headers (docs/sources.md) ([N2.2],
// NVIDIA's CUDA 13.0 host headers), sources.md, library table ([N2.3], the library table), formats.md ([N1]),
// docs/conversions.md ([DOC]), or worked out by hand from IEEE 754 rounding ([HAND], the
// arithmetic is in the comment).
#include <gtest/gtest.h>

#include <bit>

#include "tcemu_ref/convert_ref.hpp"

namespace {

namespace ref = tcemu::ref;
using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;

ConvertOptions opts(Round r, bool sat = false) {
  ConvertOptions o;
  o.round = r;
  o.satfinite = sat;
  return o;
}
uint64_t f32(float v) { return std::bit_cast<uint32_t>(v); }
uint64_t from_f32(uint64_t code, Fmt to, const ConvertOptions& o, uint32_t rbits = 0) {
  return ref::convert(Fmt::f32, to, code, o, rbits).code;
}
uint64_t from_dec(const char* text, Fmt to, const ConvertOptions& o) { return ref::convert_decimal(text, to, o).code; }

TEST(ReferenceFacts, E4m3OverflowThreshold) {
  // [N2.2] E4M3 overflows iff |x| > 464; 464 ties to even giving 448 (0x7E).
  // By hand: 464 = 14.5 * 32 on the binade [256, 512) grid of 32; 14 is even.
  EXPECT_EQ(from_f32(f32(464.0f), Fmt::e4m3, opts(Round::rn, true)), 0x7eu);
  EXPECT_EQ(from_f32(f32(464.0f), Fmt::e4m3, opts(Round::rn, false)), 0x7eu);
  EXPECT_EQ(from_f32(f32(-464.0f), Fmt::e4m3, opts(Round::rn, false)), 0xfeu);
  // 464.0001: SATFINITE gives 0x7E, NOSAT 0x7F|sign [N2.2].
  EXPECT_EQ(from_dec("464.0001", Fmt::e4m3, opts(Round::rn, true)), 0x7eu);
  EXPECT_EQ(from_dec("464.0001", Fmt::e4m3, opts(Round::rn, false)), 0x7fu);
  EXPECT_EQ(from_dec("-464.0001", Fmt::e4m3, opts(Round::rn, false)), 0xffu);
  EXPECT_EQ(from_dec("-464.0001", Fmt::e4m3, opts(Round::rn, true)), 0xfeu);
  EXPECT_EQ(from_f32(0x43e80001, Fmt::e4m3, opts(Round::rn, false)), 0x7fu);  // 464 + 2^-15
  // [N2.3] 465 -> e4m3: nosat 0x7F, sat 0x7E.
  EXPECT_EQ(from_f32(f32(465.0f), Fmt::e4m3, opts(Round::rn, false)), 0x7fu);
  EXPECT_EQ(from_f32(f32(465.0f), Fmt::e4m3, opts(Round::rn, true)), 0x7eu);
  // [N2.2] Inf takes the overflow branch: NOSAT 0x7F|sign, SAT ±0x7E.
  EXPECT_EQ(from_f32(f32(-INFINITY), Fmt::e4m3, opts(Round::rn, false)), 0xffu);
  EXPECT_EQ(from_f32(f32(INFINITY), Fmt::e4m3, opts(Round::rn, true)), 0x7eu);
  // [N2.2] NaN from a float gives 0x7F, sign dropped (canonical NaN, the default).
  EXPECT_EQ(from_f32(0xffc00000, Fmt::e4m3, opts(Round::rn, false)), 0x7fu);
  EXPECT_EQ(from_f32(0xffc00000, Fmt::e5m2, opts(Round::rn, true)), 0x7fu);
}

TEST(ReferenceFacts, E5m2OverflowThreshold) {
  // [N2.2] E5M2 overflows iff |x| >= 61440: SAT ±0x7B, NOSAT ±Inf (0x7C / 0xFC).
  // By hand: 61440 = 7.5 * 8192 on the [32768, 65536) grid; 7 is odd, so up to 65536.
  EXPECT_EQ(from_f32(f32(61440.0f), Fmt::e5m2, opts(Round::rn, false)), 0x7cu);
  EXPECT_EQ(from_f32(f32(61440.0f), Fmt::e5m2, opts(Round::rn, true)), 0x7bu);
  EXPECT_EQ(from_f32(f32(-61440.0f), Fmt::e5m2, opts(Round::rn, false)), 0xfcu);
  EXPECT_EQ(from_dec("61439.99", Fmt::e5m2, opts(Round::rn, false)), 0x7bu);
  EXPECT_EQ(from_f32(f32(INFINITY), Fmt::e5m2, opts(Round::rn, false)), 0x7cu);
}

TEST(ReferenceFacts, Fp8TinyValuesAndUpConversion) {
  // [N2.2] |x| <= minsub/2 gives ±0. e4m3 minsub 2^-9: 2^-10 is a tie with 0 (even).
  EXPECT_EQ(from_f32(f32(0x1p-10f), Fmt::e4m3, opts(Round::rn)), 0x00u);
  EXPECT_EQ(from_f32(f32(-0x1p-10f), Fmt::e4m3, opts(Round::rn)), 0x80u);
  EXPECT_EQ(from_f32(0x3a802000, Fmt::e4m3, opts(Round::rn)), 0x01u);  // 2^-10 * (1 + 2^-10)
  // [N2.2] up-conversion is exact; NaN becomes 0x7FFF. By hand: 448 = 1.75 * 2^8 in f16 is
  // exponent 23 (0b10111), fraction 0b11 << 8: 0x5F00.
  EXPECT_EQ(ref::convert(Fmt::e4m3, Fmt::f16, 0x7e, opts(Round::rn)).code, 0x5f00u);
  EXPECT_EQ(ref::convert(Fmt::e4m3, Fmt::f16, 0xff, opts(Round::rn)).code, 0x7fffu);
  EXPECT_EQ(ref::convert(Fmt::e5m2, Fmt::f16, 0xfc, opts(Round::rn)).code, 0xfc00u);
}

TEST(ReferenceFacts, Fp6Fp4AlwaysSaturate) {
  // [N2.2] FP6/FP4: NaN gives +MAXNORM (0x1F / 0x1F / 0x7); ±0 kept; overflow saturates.
  EXPECT_EQ(from_f32(0xffc00000, Fmt::e2m1, opts(Round::rn, true)), 0x7u);
  EXPECT_EQ(from_f32(0x7fc00000, Fmt::e2m3, opts(Round::rn, true)), 0x1fu);
  EXPECT_EQ(from_f32(0x7fc00000, Fmt::e3m2, opts(Round::rz, true)), 0x1fu);
  EXPECT_EQ(from_f32(0x80000000, Fmt::e2m1, opts(Round::rn, true)), 0x8u);
  EXPECT_EQ(from_f32(f32(100.0f), Fmt::e2m1, opts(Round::rn, false)), 0x7u);  // no Inf, no NaN: MAX
  EXPECT_EQ(from_f32(f32(-100.0f), Fmt::e2m1, opts(Round::rn, false)), 0xfu);
  EXPECT_EQ(from_f32(f32(INFINITY), Fmt::e3m2, opts(Round::rn, false)), 0x1fu);
  // [HAND] e2m1 between 4 (0x6) and 6 (0x7): 5.9 is nearer 6; rz gives 4.
  EXPECT_EQ(from_f32(f32(5.9f), Fmt::e2m1, opts(Round::rn, true)), 0x7u);
  EXPECT_EQ(from_f32(f32(5.9f), Fmt::e2m1, opts(Round::rz, true)), 0x6u);
}

TEST(ReferenceFacts, Ue8m0) {
  // [N2.2]/[N2.3] 5.0 -> ue8m0: rz 0x81 (4 = 2^2, 127 + 2), rp 0x82 (8).
  EXPECT_EQ(from_f32(f32(5.0f), Fmt::ue8m0, opts(Round::rz)), 0x81u);
  EXPECT_EQ(from_f32(f32(5.0f), Fmt::ue8m0, opts(Round::ru)), 0x82u);
  // [N2.3] -3.3 with the sign ignored (magnitude): rz 0x80, rp 0x81.
  EXPECT_EQ(from_f32(f32(-3.3f), Fmt::ue8m0, opts(Round::rz)), 0x80u);
  EXPECT_EQ(from_f32(f32(-3.3f), Fmt::ue8m0, opts(Round::ru)), 0x81u);
  // [N2.2] subnormals and 0 give 0x00; NaN 0xFF; satfinite turns Inf into 0xFE.
  EXPECT_EQ(from_f32(0x00000001, Fmt::ue8m0, opts(Round::rz)), 0x00u);
  EXPECT_EQ(from_f32(0x00000000, Fmt::ue8m0, opts(Round::rz)), 0x00u);
  EXPECT_EQ(from_f32(0x7fc00000, Fmt::ue8m0, opts(Round::rz, true)), 0xffu);
  EXPECT_EQ(from_f32(f32(INFINITY), Fmt::ue8m0, opts(Round::ru, true)), 0xfeu);
  EXPECT_EQ(from_f32(f32(INFINITY), Fmt::ue8m0, opts(Round::ru, false)), 0xffu);
  // [N2.2] rp: +1 when |x| > 2^-127 has bits below its power of two. f32 0x00400001 is
  // 2^-127 + 2^-149, so rp gives 2^-126 (0x01); 0x003FFFFF is below 2^-127 and gives 0x00
  // ([DOC] step 7: below the smallest value, the smallest value in every mode).
  EXPECT_EQ(from_f32(0x00400001, Fmt::ue8m0, opts(Round::ru)), 0x01u);
  EXPECT_EQ(from_f32(0x00400001, Fmt::ue8m0, opts(Round::rz)), 0x00u);
  EXPECT_EQ(from_f32(0x003fffff, Fmt::ue8m0, opts(Round::ru)), 0x00u);
  // Above 2^127: rz keeps 0xFE; rp overflows to NaN 0xFF, or 0xFE with satfinite [N2.2].
  EXPECT_EQ(from_f32(f32(0x1.8p127f), Fmt::ue8m0, opts(Round::rz)), 0xfeu);
  EXPECT_EQ(from_f32(f32(0x1.8p127f), Fmt::ue8m0, opts(Round::ru)), 0xffu);
  EXPECT_EQ(from_f32(f32(0x1.8p127f), Fmt::ue8m0, opts(Round::ru, true)), 0xfeu);
  // rn ties (only ml_dtypes rounds ue8m0 to nearest [DOC conventions]): with no fraction bits
  // every significand is 1, so "ties to even" is read on the code, i.e. the exponent, as
  // ml_dtypes' bit-pattern rounding does. 3 = midway 2 (0x80) / 4 (0x81): 0x80; 6 = midway
  // 4 (0x81) / 8 (0x82): 0x82; 1.5: 1 (0x7F) / 2 (0x80): 0x80. UNVERIFIED reading of [DOC].
  EXPECT_EQ(from_f32(f32(3.0f), Fmt::ue8m0, opts(Round::rn)), 0x80u);
  EXPECT_EQ(from_f32(f32(6.0f), Fmt::ue8m0, opts(Round::rn)), 0x82u);
  EXPECT_EQ(from_f32(f32(1.5f), Fmt::ue8m0, opts(Round::rn)), 0x80u);
  EXPECT_EQ(from_f32(f32(5.0f), Fmt::ue8m0, opts(Round::rn)), 0x81u);  // [N2.3] ml_dtypes 0x81
  EXPECT_EQ(from_f32(f32(5.0f), Fmt::ue8m0, opts(Round::rna)), 0x81u);
  EXPECT_EQ(from_f32(f32(6.0f), Fmt::ue8m0, opts(Round::rna)), 0x82u);
  // [N1] ue8m0 0x00 (2^-127) converts to bf16 0x0040 (subnormal 2^6 * 2^-133).
  EXPECT_EQ(ref::convert(Fmt::ue8m0, Fmt::bf16, 0x00, opts(Round::rn)).code, 0x0040u);
  EXPECT_EQ(ref::convert(Fmt::ue8m0, Fmt::bf16, 0xff, opts(Round::rn)).code, 0x7fffu);
  EXPECT_EQ(ref::convert(Fmt::ue8m0, Fmt::bf16, 0xfe, opts(Round::rn)).code, 0x7f00u);  // 2^127
}

TEST(ReferenceFacts, F16AndBf16Ieee) {
  // [N2.1]/[N2.2] IEEE overflow without satfinite. [HAND] 65520 = 65504 + 16 is the midpoint
  // of 65504 (significand 0x7FF, odd) and 65536: up, so Inf under rn; rz keeps 65504.
  EXPECT_EQ(from_f32(f32(65520.0f), Fmt::f16, opts(Round::rn)), 0x7c00u);
  EXPECT_EQ(from_f32(f32(65519.0f), Fmt::f16, opts(Round::rn)), 0x7bffu);
  EXPECT_EQ(from_f32(f32(65520.0f), Fmt::f16, opts(Round::rz)), 0x7bffu);
  EXPECT_EQ(from_f32(f32(65520.0f), Fmt::f16, opts(Round::rn, true)), 0x7bffu);
  EXPECT_EQ(from_f32(f32(1e6f), Fmt::f16, opts(Round::ru)), 0x7c00u);
  EXPECT_EQ(from_f32(f32(1e6f), Fmt::f16, opts(Round::rd)), 0x7bffu);
  EXPECT_EQ(from_f32(f32(-1e6f), Fmt::f16, opts(Round::rd)), 0xfc00u);
  EXPECT_EQ(from_f32(f32(-1e6f), Fmt::f16, opts(Round::ru)), 0xfbffu);
  // [HAND] ties to even: 1 + 2^-11 is halfway between 0x3C00 (even) and 0x3C01: 0x3C00;
  // 1 + 3*2^-11 is halfway between 0x3C01 (odd) and 0x3C02: 0x3C02. rna goes away.
  EXPECT_EQ(from_f32(0x3f801000, Fmt::f16, opts(Round::rn)), 0x3c00u);
  EXPECT_EQ(from_f32(0x3f803000, Fmt::f16, opts(Round::rn)), 0x3c02u);
  EXPECT_EQ(from_f32(0x3f801000, Fmt::f16, opts(Round::rna)), 0x3c01u);
  // [HAND] bf16: f32 0x3F808000 = 1 + 2^-8 is halfway between 0x3F80 and 0x3F81: 0x3F80;
  // 0x3F818000 halfway between 0x3F81 and 0x3F82: 0x3F82.
  EXPECT_EQ(from_f32(0x3f808000, Fmt::bf16, opts(Round::rn)), 0x3f80u);
  EXPECT_EQ(from_f32(0x3f818000, Fmt::bf16, opts(Round::rn)), 0x3f82u);
  // [N2.2] NaN gives 0x7FFF.
  EXPECT_EQ(from_f32(0xffc00000, Fmt::f16, opts(Round::rn)), 0x7fffu);
  EXPECT_EQ(from_f32(0xffc00000, Fmt::bf16, opts(Round::rn)), 0x7fffu);
}

TEST(ReferenceFacts, Tf32) {
  // [HAND] tf32 keeps 10 fraction bits: f32 1 + 2^-11 is a tie between 0x3F800000 (even)
  // and 0x3F802000; rna (PTX cvt.rna.tf32.f32) goes away; 1 + 3*2^-11 goes to even 0x3F804000.
  EXPECT_EQ(from_f32(0x3f801000, Fmt::tf32, opts(Round::rn)), 0x3f800000u);
  EXPECT_EQ(from_f32(0x3f801000, Fmt::tf32, opts(Round::rna)), 0x3f802000u);
  EXPECT_EQ(from_f32(0x3f803000, Fmt::tf32, opts(Round::rn)), 0x3f804000u);
  EXPECT_EQ(from_f32(0x3f801fff, Fmt::tf32, opts(Round::rz)), 0x3f800000u);
  EXPECT_EQ(from_f32(0x7fc00000, Fmt::tf32, opts(Round::rn)), 0x7fffe000u);  // [DOC] step 1
  EXPECT_EQ(from_f32(0x7f7fffff, Fmt::tf32, opts(Round::rn)), 0x7f800000u);  // FLT_MAX rounds up: Inf
  EXPECT_EQ(from_f32(0x7f7fffff, Fmt::tf32, opts(Round::rz)), 0x7f7fe000u);
}

TEST(ReferenceFacts, E2m1TiesToEven) {
  // [HAND] e2m1 grid: 0, 0.5 | 1, 1.5 | 2, 3 | 4, 6 (codes 0..7); ties go to the even
  // significand (lo counted in ulps of the binade; subnormal ulp 0.5, significand 0 or 1).
  const ConvertOptions rn = opts(Round::rn, true);
  EXPECT_EQ(from_f32(f32(1.125f), Fmt::e2m1, rn), 0x2u);  // nearer 1.0 (not a tie)
  EXPECT_EQ(from_f32(f32(1.125f), Fmt::e2m1, opts(Round::ru, true)), 0x3u);  // up to 1.5
  EXPECT_EQ(from_f32(f32(1.25f), Fmt::e2m1, rn), 0x2u);   // 1.0 (sig 2) vs 1.5 (sig 3): 1.0
  EXPECT_EQ(from_f32(f32(1.75f), Fmt::e2m1, rn), 0x4u);   // 1.5 (sig 3) vs 2.0: 2.0
  EXPECT_EQ(from_f32(f32(2.5f), Fmt::e2m1, rn), 0x4u);    // 2 (sig 2) vs 3: 2
  EXPECT_EQ(from_f32(f32(3.5f), Fmt::e2m1, rn), 0x6u);    // 3 (sig 3) vs 4: 4
  EXPECT_EQ(from_f32(f32(5.0f), Fmt::e2m1, rn), 0x6u);    // 4 (sig 2) vs 6 (sig 3): 4
  EXPECT_EQ(from_f32(f32(0.25f), Fmt::e2m1, rn), 0x0u);   // 0 vs 0.5 (sig 1): 0
  EXPECT_EQ(from_f32(f32(0.75f), Fmt::e2m1, rn), 0x2u);   // 0.5 (sig 1) vs 1.0: 1.0
  EXPECT_EQ(from_f32(f32(-0.75f), Fmt::e2m1, rn), 0xau);
  EXPECT_EQ(from_f32(f32(0.25f), Fmt::e2m1, opts(Round::rna, true)), 0x1u);
  EXPECT_EQ(from_f32(f32(-0.25f), Fmt::e2m1, rn), 0x8u);  // -0
}

TEST(ReferenceFacts, DecimalInputsRoundOnce) {
  // [HAND, well known] 0.1 as f32 is 0x3DCCCCCD (rz 0x3DCCCCCC), as f64 0x3FB999999999999A;
  // 1e-9f is 0x3089705F (compiler/Python agree).
  EXPECT_EQ(from_dec("0.1", Fmt::f32, opts(Round::rn)), 0x3dcccccdu);
  EXPECT_EQ(from_dec("0.1", Fmt::f32, opts(Round::rz)), 0x3dccccccu);
  EXPECT_EQ(from_dec("-0.1", Fmt::f32, opts(Round::rd)), 0xbdcccccdu);
  EXPECT_EQ(from_dec("0.1", Fmt::f64, opts(Round::rn)), 0x3fb999999999999aull);
  EXPECT_EQ(from_dec("1e-9", Fmt::f32, opts(Round::rn)), 0x3089705fu);
  EXPECT_EQ(from_dec("0x1p-3", Fmt::e4m3, opts(Round::rn)), 0x20u);  // 2^-3: exponent 4, 0b0_0100_000
  EXPECT_EQ(from_dec("-inf", Fmt::f16, opts(Round::rn)), 0xfc00u);
  EXPECT_EQ(from_dec("nan", Fmt::e2m1, opts(Round::rn)), 0x7u);
}

TEST(ReferenceFacts, IntegerDestinations) {
  // [DOC] step 8 (PTX float-to-integer conversions saturate); [HAND] the roundings.
  const ConvertOptions rn = opts(Round::rn);
  EXPECT_EQ(from_f32(f32(2.5f), Fmt::s8, rn), 0x02u);   // tie to even
  EXPECT_EQ(from_f32(f32(3.5f), Fmt::s8, rn), 0x04u);
  EXPECT_EQ(from_f32(f32(-2.5f), Fmt::s8, rn), 0xfeu);  // -2
  EXPECT_EQ(from_f32(f32(-2.5f), Fmt::s8, opts(Round::rna)), 0xfdu);  // -3
  EXPECT_EQ(from_f32(f32(300.0f), Fmt::s8, rn), 0x7fu);
  EXPECT_EQ(from_f32(f32(-300.0f), Fmt::s8, rn), 0x80u);
  EXPECT_EQ(from_f32(0x7fc00000, Fmt::s8, rn), 0x00u);  // NaN gives 0
  EXPECT_EQ(from_f32(f32(-INFINITY), Fmt::s8, rn), 0x80u);
  EXPECT_EQ(from_f32(f32(INFINITY), Fmt::u8, rn), 0xffu);
  EXPECT_EQ(from_f32(f32(-5.0f), Fmt::u8, rn), 0x00u);
  EXPECT_EQ(from_f32(f32(-0.3f), Fmt::u8, rn), 0x00u);
  EXPECT_EQ(from_f32(f32(7.6f), Fmt::s4, rn), 0x7u);    // 8 clamps to 7
  EXPECT_EQ(from_f32(f32(-8.4f), Fmt::s4, rn), 0x8u);   // -8
  EXPECT_EQ(from_f32(f32(15.9f), Fmt::u4, opts(Round::rz)), 0xfu);
  EXPECT_EQ(from_f32(f32(-0.5f), Fmt::s8, opts(Round::rd)), 0xffu);  // -1
  EXPECT_EQ(from_f32(f32(0.25f), Fmt::s8, opts(Round::ru)), 0x01u);
  EXPECT_EQ(ref::convert(Fmt::s8, Fmt::e4m3, 0x80, rn).code, 0xf0u);  // -128 = -2^7: 0b1_1110_000
  EXPECT_EQ(ref::convert(Fmt::s8, Fmt::u4, 0x7f, rn).code, 0xfu);
}

}  // namespace
