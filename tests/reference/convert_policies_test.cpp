// Every option of docs/conversions.md ([DOC] step n), with hand-computed codes ([HAND]) and
// the library behaviours of docs/sources.md, "Where libraries disagree" ([N2.3]).
#include <gtest/gtest.h>

#include <bit>

#include "tcemu_ref/convert_ref.hpp"

namespace {

namespace ref = tcemu::ref;
using tcemu::ConvertOptions;
using tcemu::ConvertResult;
using tcemu::Fmt;
using tcemu::NanOut;
using tcemu::NanToFinite;
using tcemu::NegToUnsigned;
using tcemu::Round;

uint64_t f32(float v) { return std::bit_cast<uint32_t>(v); }

TEST(ReferencePolicies, NanOut) {
  // [DOC] step 1. f32 -NaN 0xFFC00001 into e4m3: canonical 0x7F, keep_sign 0xFF,
  // all_ones 0xFF (also for +NaN), payload = keep_sign for e4m3 (one NaN per sign).
  ConvertOptions o;
  auto e4 = [&](uint64_t code) { return ref::convert(Fmt::f32, Fmt::e4m3, code, o).code; };
  EXPECT_EQ(e4(0xffc00001), 0x7fu);
  o.nan_out = NanOut::keep_sign;
  EXPECT_EQ(e4(0xffc00001), 0xffu);
  EXPECT_EQ(e4(0x7fc00001), 0x7fu);
  o.nan_out = NanOut::all_ones;
  EXPECT_EQ(e4(0x7fc00001), 0xffu);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x7fc00000, o).code, 0xffffu);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue8m0, 0xffc00000, o).code, 0xffu);  // unsigned: canonical
  // Overflow and Inf into e4m3 without satfinite give the NaN of step 6, 0x7F|sign; under
  // all_ones the all-ones code (the gfloat convention of [DOC]: "465 -> e4m3 0xff").
  EXPECT_EQ(e4(f32(465.0f)), 0xffu);
  EXPECT_EQ(e4(f32(INFINITY)), 0xffu);
  // tf32's code keeps its 13 low bits zero: all ones is 0xFFFFE000.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::tf32, 0x7fc00000, o).code, 0xffffe000u);
  o.nan_out = NanOut::keep_sign;
  EXPECT_EQ(e4(f32(465.0f)), 0x7fu);
  EXPECT_EQ(e4(f32(-465.0f)), 0xffu);
  o.nan_out = NanOut::canonical;
  EXPECT_EQ(e4(f32(465.0f)), 0x7fu);
  EXPECT_EQ(e4(f32(-INFINITY)), 0xffu);  // [N2.2] NOSAT keeps the sign of an overflow
  o.nan_out = NanOut::payload;
  EXPECT_EQ(e4(0xffc00001), 0xffu);
  // [HAND] payload f32 -> f16: the top 10 of 23 fraction bits, quiet bit 0x200 set.
  // 0x7FC00001: fraction 0x400001 >> 13 = 0x200 -> 0x7E00. 0x7F802000 (signalling, fraction
  // 0x2000) -> 0x001 | 0x200 -> 0x7E01.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x7fc00001, o).code, 0x7e00u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x7f802000, o).code, 0x7e01u);
  // f16 -> f32 zero-extends: 0x7C01 -> fraction 1 << 13 | 0x400000 -> 0x7FC02000;
  // 0xFD00 (fraction 0x100) -> 0x200000 | 0x400000 with the sign: 0xFFE00000.
  EXPECT_EQ(ref::convert(Fmt::f16, Fmt::f32, 0x7c01, o).code, 0x7fc02000u);
  EXPECT_EQ(ref::convert(Fmt::f16, Fmt::f32, 0xfd00, o).code, 0xffe00000u);
  // e4m3 NaN (fraction 0b111) -> f16: 0b111 << 7 = 0x380, quiet bit already in: 0x7F80.
  EXPECT_EQ(ref::convert(Fmt::e4m3, Fmt::f16, 0x7f, o).code, 0x7f80u);
  // payload_raw (convert.hpp): the same bit move without the quiet bit. f32 0x7F802000 ->
  // f16 fraction 0x001: 0x7C01; f32 0x7F800001 keeps no payload bit: 0x7C00 (Inf).
  o.nan_out = NanOut::payload_raw;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x7f802000, o).code, 0x7c01u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x7f800001, o).code, 0x7c00u);
  EXPECT_EQ(ref::convert(Fmt::bf16, Fmt::f32, 0xff81, o).code, 0xff810000u);  // 0x01 << 16
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, 0xff800001, o).code, 0xffu);   // one NaN per sign
  // canonical_f32_payload (convert.hpp): H200 cvt.ftz.f64.f32 gives 0x7FFFFFFFE0000000 (the
  // 23 fraction bits of 0x7FFFFFFF moved to the top of f64's 52).
  o.nan_out = NanOut::canonical_f32_payload;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f64, 0xffc00001, o).code, 0x7fffffffe0000000ull);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0xffc00001, o).code, 0x7fffu);
  o.nan_out = NanOut::payload;
  // into tf32: fraction 10 bits at bit 13. f32 0x7F800001: top 10 bits 0, quiet bit -> 0x7FC00000.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::tf32, 0x7f800001, o).code, 0x7fc00000u);
}

TEST(ReferencePolicies, NanToFinite) {
  // [DOC] step 1, [N2.3]: NaN -> e2m1 is 0x7 (CUDA), 0xF for -NaN (CUTLASS exmy), 0x8
  // (ml_dtypes), undefined (LLVM APFloat, gfloat).
  ConvertOptions o;
  auto e21 = [&](uint64_t code) { return ref::convert(Fmt::f32, Fmt::e2m1, code, o); };
  EXPECT_EQ(e21(0xffc00000).code, 0x7u);
  o.nan_to_finite = NanToFinite::signed_max;
  EXPECT_EQ(e21(0xffc00000).code, 0xfu);
  EXPECT_EQ(e21(0x7fc00000).code, 0x7u);
  o.nan_to_finite = NanToFinite::neg_zero;
  EXPECT_EQ(e21(0x7fc00000).code, 0x8u);
  o.nan_to_finite = NanToFinite::zero;
  EXPECT_EQ(e21(0xffc00000).code, 0x0u);
  EXPECT_EQ(e21(0xffc00000).flags & tcemu::kUndefined, 0);
  o.nan_to_finite = NanToFinite::undefined;
  EXPECT_NE(e21(0x7fc00000).flags & tcemu::kUndefined, 0);
  EXPECT_EQ(e21(f32(1.0f)).flags & tcemu::kUndefined, 0);  // only NaN is undefined
  // relu does not change a NaN [DOC step 1].
  o.nan_to_finite = NanToFinite::plus_max;
  o.relu = true;
  EXPECT_EQ(e21(0xffc00000).code, 0x7u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0xffc00000, o).code, 0x7fffu);
}

TEST(ReferencePolicies, NegativeIntoUnsigned) {
  // [DOC] step 3; [N2.3] -3.3 -> ue8m0: magnitude 0x80 (rz) / 0x81 (rp), ml_dtypes and
  // gfloat 0xFF (nan).
  ConvertOptions o;
  o.round = Round::rz;
  const uint64_t m33 = f32(-3.3f);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue8m0, m33, o).code, 0x80u);
  o.neg_to_unsigned = NegToUnsigned::nan;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue8m0, m33, o).code, 0xffu);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue4m3, 0x80000000, o).code, 0x7fu);  // -0 counts too
  o.neg_to_unsigned = NegToUnsigned::zero;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue8m0, m33, o).code, 0x00u);  // +0 -> 0x00 (2^-127)
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue4m3, m33, o).code, 0x00u);
  o.neg_to_unsigned = NegToUnsigned::undefined;
  EXPECT_NE(ref::convert(Fmt::f32, Fmt::ue8m0, m33, o).flags & tcemu::kUndefined, 0);
  EXPECT_NE(ref::convert(Fmt::f32, Fmt::ue8m0, 0x80000000, o).flags & tcemu::kUndefined, 0);
  EXPECT_NE(ref::convert(Fmt::f32, Fmt::ue4m3, f32(-INFINITY), o).flags & tcemu::kUndefined, 0);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue4m3, f32(3.3f), o).flags & tcemu::kUndefined, 0);
  // Integers clamp instead (step 8), whatever the policy.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::u8, m33, o).code, 0x00u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::u8, m33, o).flags & tcemu::kUndefined, 0);
  // [HAND] ue4m3 magnitude: -1.0 -> 1.0 = exponent 7: 0b0111_000 = 0x38.
  o.neg_to_unsigned = NegToUnsigned::magnitude;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue4m3, f32(-1.0f), o).code, 0x38u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue4m3, 0x80000000, o).code, 0x00u);
}

TEST(ReferencePolicies, Relu) {
  // [DOC] step 2: a set sign bit (negative, -0, -Inf) gives +0.
  ConvertOptions o;
  o.relu = true;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, f32(-1.0f), o).code, 0x0000u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x80000000, o).code, 0x0000u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(-INFINITY), o).code, 0x00u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(2.0f), o).code, 0x40u);  // 2 = exponent 8: 0b0_1000_000
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::s8, f32(-7.0f), o).code, 0x00u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::ue8m0, f32(-7.0f), o).code, 0x00u);  // +0 -> 2^-127
}

TEST(ReferencePolicies, Ftz) {
  // [DOC] steps 4 and 7: subnormal inputs and results become zero of the same sign.
  ConvertOptions o;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f32, 0x80000001, o).code, 0x80000001u);
  EXPECT_EQ(ref::convert(Fmt::f16, Fmt::f32, 0x0001, o).code, 0x33800000u);  // 2^-24
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, f32(0x1p-20f), o).code, 0x0010u);  // 2^-20 = 16 * 2^-24
  o.ftz = true;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f32, 0x00000001, o).code, 0x00000000u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f32, 0x80000001, o).code, 0x80000000u);
  EXPECT_EQ(ref::convert(Fmt::f16, Fmt::f32, 0x0001, o).code, 0x00000000u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, f32(0x1p-20f), o).code, 0x0000u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, f32(-0x1p-20f), o).code, 0x8000u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, f32(0x1p-14f), o).code, 0x0400u);  // smallest normal stays
  // A subnormal that rounds up to the smallest normal is not flushed: (2^-14 - 2^-25) rn.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, f32(0x1p-14f - 0x1p-25f), o).code, 0x0400u);
}

TEST(ReferencePolicies, StochasticRounding) {
  // [DOC] step 7, rs: up iff floor(f * 2^w) + r >= 2^w, w = 8 for e4m3, 13 for f16, 16 for bf16.
  ConvertOptions o;
  o.round = Round::rs;
  o.satfinite = true;
  // [HAND] 1.0625 in e4m3: ulp 1/8, f = 1/2, floor(f * 256) = 128.
  const uint64_t x = f32(1.0625f);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, x, o, 127).code, 0x38u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, x, o, 128).code, 0x39u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, x, o, 0xff00 | 127).code, 0x38u);  // bits above w unused
  // [HAND] f16: 1 + 2^-11 has f = 1/2, floor(f * 2^13) = 4096.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x3f801000, o, 4095).code, 0x3c00u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::f16, 0x3f801000, o, 4096).code, 0x3c01u);
  // [HAND] bf16: 1 + 2^-8 has f = 1/2, floor(f * 2^16) = 32768.
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::bf16, 0x3f808000, o, 32767).code, 0x3f80u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::bf16, 0x3f808000, o, 32768).code, 0x3f81u);
  // rs_bits = 1: only the top discarded bit counts. 1.0625 (f = 1/2) goes up with r = 1;
  // 1.03125 (f = 1/4) never does.
  o.rs_bits = 1;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, x, o, 1).code, 0x39u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, x, o, 0).code, 0x38u);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(1.03125f), o, 1).code, 0x38u);
  o.rs_bits = 33;
  EXPECT_THROW(ref::convert(Fmt::f32, Fmt::e4m3, x, o, 1), std::invalid_argument);
  // Overflow under rs [DOC]: 470 = 448 + 0.6875 * 32, floor(f * 256) = 176. No carry keeps
  // 448; a carry (r = 80) overflows: NaN 0x7F without satfinite, 0x7E with it. 500 (lo = 480
  // is above 448) without a carry rounds toward zero: MAX even without satfinite.
  o.rs_bits = 0;
  o.satfinite = false;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(470.0f), o, 79).code, 0x7eu);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(470.0f), o, 80).code, 0x7fu);
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(500.0f), o, 0).code, 0x7eu);
  o.satfinite = true;
  EXPECT_EQ(ref::convert(Fmt::f32, Fmt::e4m3, f32(470.0f), o, 80).code, 0x7eu);
}

TEST(ReferencePolicies, ExactDiscardedFractionOfRationals) {
  // rs on a rational reads the exact discarded fraction: 1 + 1/3 * 2^-10 into f16 has
  // f = 1/3, floor(f * 2^13) = 2730; r = 5461 gives 8191 (no carry), 5462 carries.
  ConvertOptions o;
  o.round = Round::rs;
  const ref::cpp_rational x = 1 + ref::cpp_rational(1, 3 * 1024);
  EXPECT_EQ(ref::convert_rational(x, Fmt::f16, o, 5461).code, 0x3c00u);
  EXPECT_EQ(ref::convert_rational(x, Fmt::f16, o, 5462).code, 0x3c01u);
  EXPECT_EQ(ref::convert_rational(-x, Fmt::f16, o, 5462).code, 0xbc01u);
}

TEST(ReferencePolicies, UndefinedIsTheOnlyFlaggedNoResult) {
  // kUndefined appears only for nan_to_finite = undefined and neg_to_unsigned = undefined.
  ConvertOptions o;
  for (uint64_t c = 0; c < 0x100; ++c)
    for (Fmt to : {Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3, Fmt::f16, Fmt::s4})
      EXPECT_EQ(ref::convert(Fmt::e5m2, to, c, o).flags & tcemu::kUndefined, 0) << c;
}

}  // namespace
