// The shared datapath primitives (emulator/src/dp_primitives.hpp) against their stated
// contracts. Expected values come from independent oracles: the exact reference (reference/,
// rational arithmetic) for the roundings, the host's IEEE f32 addition (SSE, round to nearest
// even) for add_rne_f32, 128-bit integer arithmetic for the shifts, and docs/datapath.md §1's
// special-value rules typed in.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "../../emulator/src/dp_primitives.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu {
namespace {

using ref::Rational;

Rational value(bool neg, uint64_t mag, int exp) {
  Rational v{ref::Integer(mag)};
  const ref::Integer one = 1;
  v = exp >= 0 ? v * Rational(ref::Integer(one << exp)) : v / Rational(ref::Integer(one << -exp));
  return neg ? -v : v;
}

uint64_t random_mag(std::mt19937_64& r) {
  const int bits = static_cast<int>(r() % 64) + 1;
  return r() >> (64 - bits) | (uint64_t{1} << (bits - 1));
}

TEST(DatapathPrimitives, ShiftTruncIsTruncationTowardZero) {
  std::mt19937_64 r(1);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t mag = random_mag(r);
    const int sh = static_cast<int>(r() % 200) - 100;
    unsigned __int128 want;
    if (sh >= 0) want = sh >= 64 ? 0 : (static_cast<unsigned __int128>(mag) << sh);
    else want = sh <= -64 ? 0 : static_cast<unsigned __int128>(mag) / (static_cast<unsigned __int128>(1) << -sh);
    if (sh >= 0 && sh < 64 && (want >> 64) != 0) continue;  // outside the contract: result wraps
    ASSERT_EQ(dp::shift_trunc(mag, sh), static_cast<uint64_t>(want)) << mag << " " << sh;
    // align_trunc: the same wherever its preconditions hold (sh <= 63, mag < 2^63).
    if (sh <= 63 && mag < (uint64_t{1} << 63)) {
      ASSERT_EQ(dp::align_trunc(mag, sh), static_cast<uint64_t>(want));
    }
  }
  EXPECT_EQ(dp::shift_trunc(0, 1000), 0u);
  EXPECT_EQ(dp::shift_trunc(5, -64), 0u);
}

TEST(DatapathPrimitives, AlignedTermCarriesTheSign) {
  EXPECT_EQ(dp::aligned_term(12, 0, 1, 2), -3);   // -(12 * 2^0 / 2^2)
  EXPECT_EQ(dp::aligned_term(13, 0, 1, 2), -3);   // truncated toward zero, not down
  EXPECT_EQ(dp::aligned_term(13, 0, 0, 2), 3);
  EXPECT_EQ(dp::aligned_term(3, 4, 0, 1), 24);
}

TEST(DatapathPrimitives, ShiftRightStickyKeepsTheLostBits) {
  std::mt19937_64 r(2);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = r() >> (r() % 64);
    const int sh = static_cast<int>(r() % 80);
    bool sticky = true;
    const uint64_t got = dp::shift_right_sticky(x, sh, &sticky);
    // x as the high half of a 128-bit integer: shifted right, its high half is the result and
    // its low half the bits shifted out (all of them while sh <= 64; beyond, every bit of x).
    const unsigned __int128 shifted = (static_cast<unsigned __int128>(x) << 64) >> (sh > 64 ? 64 : sh);
    ASSERT_EQ(got, sh >= 64 ? 0 : static_cast<uint64_t>(shifted >> 64)) << x << " " << sh;
    ASSERT_EQ(sticky, sh > 64 ? x != 0 : static_cast<uint64_t>(shifted) != 0) << x << " " << sh;
  }
}

// round_out / round_output against the reference's exact rounding.
TEST(DatapathPrimitives, RoundOutMatchesTheExactReference) {
  std::mt19937_64 r(3);
  for (int i = 0; i < 40000; ++i) {
    const uint64_t mag = random_mag(r);
    const bool neg = r() & 1;
    const bool half = r() & 1, nearest = r() & 1;
    // Exponents around each format's whole range, overflow and total underflow included.
    const int exp = half ? static_cast<int>(r() % 120) - 90 : static_cast<int>(r() % 420) - 250;
    const uint64_t want = ref::round_to(value(neg, mag, exp), half ? Fmt::f16 : Fmt::f32, nearest ? Round::rn : Round::rz, neg);
    const dp::FloatLayout f = half ? dp::f16_layout() : dp::f32_layout();
    ASSERT_EQ(dp::round_out(f, neg, mag, exp, false, nearest), want) << mag << " 2^" << exp << " neg " << neg;
  }
}

TEST(DatapathPrimitives, RoundOutputEveryRounding) {
  struct R {
    OutputRounding r;
    Fmt f;
    Round m;
  };
  const R cases[] = {{OutputRounding::rz_f32, Fmt::f32, Round::rz},
                     {OutputRounding::rne_f32, Fmt::f32, Round::rn},
                     {OutputRounding::rne_f16, Fmt::f16, Round::rn},
                     {OutputRounding::rz_f16, Fmt::f16, Round::rz}};
  std::mt19937_64 rng(4);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t mag = random_mag(rng);
    const bool neg = rng() & 1;
    const int exp = static_cast<int>(rng() % 300) - 200;
    for (const R& c : cases)
      ASSERT_EQ(dp::round_output(c.r, neg, mag, exp), ref::round_to(value(neg, mag, exp), c.f, c.m, neg));
  }
  // An exact zero is +0 whatever the sign; rz_e8m13 keeps 13 fraction bits.
  EXPECT_EQ(dp::round_output(OutputRounding::rz_f16, true, 0, 3), 0u);
  EXPECT_EQ(dp::round_output(OutputRounding::rz_e8m13, false, 0x3FFFFF, -22), 0x3F7FFC00u);  // 1 - 2^-22: 1 - 2^-14, 13 fraction bits kept
}

TEST(DatapathPrimitives, RoundSumAppliesTheMinusZeroRule) {
  // -2^-160 truncates to -0 in f32; with positive_zero it is +0. An exact zero is +0 always.
  EXPECT_EQ(dp::round_sum(OutputRounding::rz_f32, false, -1, -160), 0x80000000u);
  EXPECT_EQ(dp::round_sum(OutputRounding::rz_f32, true, -1, -160), 0u);
  EXPECT_EQ(dp::round_sum(OutputRounding::rz_f16, false, -1, -40), 0x8000u);
  EXPECT_EQ(dp::round_sum(OutputRounding::rz_f16, true, -1, -40), 0u);
  EXPECT_EQ(dp::round_sum(OutputRounding::rne_f16, false, 0, 0), 0u);
  EXPECT_EQ(dp::round_sum(OutputRounding::rz_f32, false, -3, 0), 0xC0400000u);  // -3.0f
  EXPECT_EQ(dp::round_sum(OutputRounding::rz_f32, false, INT64_MIN, 0), 0xDF000000u);  // -2^63
}

TEST(DatapathPrimitives, DecodeAccMatchesTheFormatDecode) {
  auto same = [](Fmt f, const dp::FloatLayout& l, uint64_t code) {
    const Operand a = dp::decode_acc(l, code), b = decode_operand(f, code);
    ASSERT_EQ(a.special, b.special) << code;
    ASSERT_EQ(a.neg, b.neg) << code;
    ASSERT_EQ(a.sig, b.sig) << code;
    if (a.special == 0 && a.sig != 0) {
      ASSERT_EQ(a.low, b.low) << code;
      ASSERT_EQ(a.E, b.E) << code;
    }
  };
  for (uint64_t c = 0; c < 0x10000; ++c) same(Fmt::f16, dp::f16_layout(), c);
  std::mt19937_64 r(5);
  for (int i = 0; i < 200000; ++i) same(Fmt::f32, dp::f32_layout(), r() & 0xFFFFFFFF);
  for (uint64_t c : {0x0ull, 0x80000000ull, 0x1ull, 0x7F800000ull, 0xFF800000ull, 0x7FC00000ull, 0x007FFFFFull})
    same(Fmt::f32, dp::f32_layout(), c);
}

TEST(DatapathPrimitives, AddRneF32IsIeeeAddition) {
  std::mt19937_64 r(6);
  auto bits = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  auto flt = [](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  for (int i = 0; i < 400000; ++i) {
    uint32_t x = static_cast<uint32_t>(r()), y = static_cast<uint32_t>(r());
    // Bring the exponents close often, so that cancellation and carries are exercised.
    if (i % 2) y = (y & 0x807FFFFF) | ((x & 0x7F800000) + ((static_cast<uint32_t>(r() % 64) << 23) & 0x1F800000));
    if (i % 7 == 0) y = x ^ 0x80000000u ^ static_cast<uint32_t>(r() % 4);
    const float s = flt(x) + flt(y);
    const uint32_t got = dp::add_rne_f32(x, y);
    if (std::isnan(s)) {
      ASSERT_EQ(got, 0x7FFFFFFFu) << std::hex << x << " " << y;
    } else {
      ASSERT_EQ(got, bits(s)) << std::hex << x << " " << y;
    }
  }
  EXPECT_EQ(dp::add_rne_f32(0x80000000u, 0x80000000u), 0x80000000u);  // -0 + -0 = -0
  EXPECT_EQ(dp::add_rne_f32(0x80000000u, 0u), 0u);
  EXPECT_EQ(dp::add_rne_f32(0x7F800000u, 0xFF800000u), 0x7FFFFFFFu);  // Inf - Inf
}

TEST(DatapathPrimitives, AddRneF16IsTheRoundedExactSum) {
  for (uint64_t x = 0; x < 0x10000; x += 53)
    for (uint64_t y = x % 7; y < 0x10000; y += 613) {
      const uint64_t got = dp::add_rne_f16(x, y);
      const ref::ExactValue a = ref::value_of(Fmt::f16, x), b = ref::value_of(Fmt::f16, y);
      if (a.kind != ref::ExactValue::finite || b.kind != ref::ExactValue::finite) continue;  // specials below
      const Rational s = a.v + b.v;
      const bool neg_zero = s == 0 && a.neg && b.neg;
      ASSERT_EQ(got, ref::round_to(s, Fmt::f16, Round::rn, neg_zero)) << std::hex << x << " " << y;
    }
  EXPECT_EQ(dp::add_rne_f16(0x7C00, 0xFC00), 0x7FFFu);  // Inf - Inf
  EXPECT_EQ(dp::add_rne_f16(0x7C00, 0x3C00), 0x7C00u);
  EXPECT_EQ(dp::add_rne_f16(0x7E01, 0x3C00), 0x7FFFu);  // NaN in: the canonical NaN
}

// docs/datapath.md §1: any NaN, Inf*0 (also Inf times a zero scale), +Inf with -Inf give NaN; else
// the Inf's sign.
TEST(DatapathPrimitives, SpecialResults) {
  Operand inf, ninf, zero, one, nan;
  inf.special = 1;
  ninf.special = 1;
  ninf.neg = 1;
  one.sig = 1;
  nan.special = 2;
  auto run = [](std::initializer_list<std::initializer_list<const Operand*>> terms, const Operand& c) {
    dp::SpecialScan s;
    for (auto t : terms) dp::scan_term(s, t.begin(), static_cast<int>(t.size()));
    dp::scan_acc(s, c);
    return dp::special_code(s, dp::f32_layout());
  };
  EXPECT_EQ(run({{&inf, &one}}, zero), 0x7F800000u);
  EXPECT_EQ(run({{&inf, &one}, {&one, &one}}, ninf), 0x7FFFFFFFu);
  EXPECT_EQ(run({{&ninf, &one}}, zero), 0xFF800000u);
  EXPECT_EQ(run({{&ninf, &ninf}}, zero), 0x7F800000u);  // -Inf * -Inf = +Inf
  EXPECT_EQ(run({{&inf, &zero}}, zero), 0x7FFFFFFFu);
  EXPECT_EQ(run({{&inf, &one, &zero, &one}}, zero), 0x7FFFFFFFu);  // Inf times a zero scale
  EXPECT_EQ(run({{&one, &one, nullptr, &nan}}, zero), 0x7FFFFFFFu);
  EXPECT_EQ(run({{&one, &one}}, nan), 0x7FFFFFFFu);
  dp::SpecialScan s;
  dp::scan_acc(s, ninf);
  EXPECT_EQ(dp::special_code(s, dp::f16_layout()), 0xFC00u);
}

TEST(DatapathPrimitives, Int32Result) {
  EXPECT_EQ(dp::int32_result(int64_t{1} << 31, false), 0x80000000u);  // wraps
  EXPECT_EQ(dp::int32_result(int64_t{1} << 31, true), 0x7FFFFFFFu);   // clamps
  EXPECT_EQ(dp::int32_result(-(int64_t{1} << 40), true), 0x80000000u);
  EXPECT_EQ(dp::int32_result(-5, false), 0xFFFFFFFBu);
}

}  // namespace
}  // namespace tcemu
