// Rules that every correct rounding obeys ([DOC] docs/conversions.md step 7), checked on the
// reference itself with RapidCheck and exhaustive sweeps. The dyadic path (codes) and the
// rational path (convert_rational) are separate code; they must agree bit for bit.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "tcemu_ref/convert_ref.hpp"

namespace {

namespace ref = tcemu::ref;
using tcemu::ConvertOptions;
using tcemu::ConvertResult;
using tcemu::Fmt;
using tcemu::Round;

const std::vector<Fmt> kFloatDests = {Fmt::f32,  Fmt::tf32, Fmt::f16,  Fmt::bf16,  Fmt::e4m3, Fmt::e5m2,
                                      Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3};
const std::vector<Fmt> kAllDests = {Fmt::f64,  Fmt::f32,  Fmt::tf32,  Fmt::f16,   Fmt::bf16, Fmt::e4m3,
                                    Fmt::e5m2, Fmt::e3m2, Fmt::e2m3,  Fmt::e2m1,  Fmt::ue8m0, Fmt::ue4m3,
                                    Fmt::s8,   Fmt::u8,   Fmt::s4,    Fmt::u4};

ConvertOptions with(Round r, bool sat = true) {
  ConvertOptions o;
  o.round = r;
  o.satfinite = sat;
  return o;
}

// The away-from-zero direction for x's sign (ru for positive, rd for negative). Unsigned
// float formats round |x| (neg_to_unsigned = magnitude), so away is always ru there.
Round away(const ref::Exact& x, Fmt to) {
  const ref::FormatParams& p = ref::params(to);
  return x.sign && (p.is_signed || p.is_int) ? Round::rd : Round::ru;
}

// 64 f32 bit patterns drawn from the whole 32-bit range (RapidCheck's integers scale with
// its size parameter, which would keep early cases among the subnormals), plus the drawn
// value itself so that shrinking still has something small to offer.
std::vector<uint32_t> f32_codes(uint32_t code) {
  std::vector<uint32_t> v = *rc::gen::container<std::vector<uint32_t>>(64, rc::gen::resize(100, rc::gen::arbitrary<uint32_t>()));
  v.push_back(code);
  return v;
}

// Finite values below satfinite's MAX (so every mode gives a finite, comparable result).
bool interesting(const ref::Exact& x) { return x.kind == ref::Exact::finite; }

RC_GTEST_PROP(ReferenceProperties, RsWithZeroBitsIsRz, (uint32_t drawn)) {
  for (uint32_t code : f32_codes(drawn)) {
    const ref::Exact x = ref::exact_value(Fmt::f32, code);
    for (Fmt to : kAllDests) {
      for (uint8_t bits : {uint8_t{0}, uint8_t{1}, uint8_t{5}, uint8_t{32}}) {
        ConvertOptions rs = with(Round::rs, false);
        rs.rs_bits = bits;
        RC_ASSERT(ref::convert_exact(x, to, rs, 0).code == ref::convert_exact(x, to, with(Round::rz, false)).code);
      }
    }
  }
}

RC_GTEST_PROP(ReferenceProperties, RsAllOnesIsRzOrAway, (uint32_t drawn)) {
  for (uint32_t code : f32_codes(drawn)) {
    const ref::Exact x = ref::exact_value(Fmt::f32, code);
    if (!interesting(x)) continue;
    for (Fmt to : kAllDests) {
      const uint64_t rs = ref::convert_exact(x, to, with(Round::rs), 0xffffffffu).code;
      const uint64_t rz = ref::convert_exact(x, to, with(Round::rz)).code;
      const uint64_t up = ref::convert_exact(x, to, with(away(x, to))).code;
      RC_ASSERT(rs == rz || rs == up);
    }
    // With 32 random bits all ones, every nonzero discarded fraction carries when at most 32
    // bits are discarded: true for normal f32 values into these formats (23 - m <= 32).
    for (Fmt to : {Fmt::tf32, Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e2m1}) {
      const ref::Exact mag = ref::make_finite(false, x.mant, x.exp);
      if (x.mant == 0 || ref::compare(mag, ref::min_normal(to)) < 0) continue;
      ConvertOptions rs32 = with(Round::rs);
      rs32.rs_bits = 32;
      RC_ASSERT(ref::convert_exact(x, to, rs32, 0xffffffffu).code == ref::convert_exact(x, to, with(away(x, to))).code);
    }
  }
}

RC_GTEST_PROP(ReferenceProperties, NearestIsOneOfTheNeighbours, (uint32_t drawn)) {
  for (uint32_t code : f32_codes(drawn)) {
    const ref::Exact x = ref::exact_value(Fmt::f32, code);
    if (!interesting(x)) continue;
    for (Fmt to : kAllDests) {
      const uint64_t rz = ref::convert_exact(x, to, with(Round::rz)).code;
      const uint64_t up = ref::convert_exact(x, to, with(away(x, to))).code;
      for (Round r : {Round::rn, Round::rna}) {
        const uint64_t c = ref::convert_exact(x, to, with(r)).code;
        RC_ASSERT(c == rz || c == up);
      }
    }
  }
}

// |x - rn(x)| <= |x - y| for both neighbours (within range): rn really is nearest.
RC_GTEST_PROP(ReferenceProperties, NearestIsNearest, (uint32_t drawn)) {
  for (uint32_t code : f32_codes(drawn)) {
    const ref::Exact x = ref::exact_value(Fmt::f32, code);
    if (!interesting(x) || x.mant == 0) continue;
    for (Fmt to : kFloatDests) {
      if (to == Fmt::ue8m0 || to == Fmt::ue4m3) continue;  // magnitude policy changes the value
      const auto value = [&](Round r) { return ref::exact_value(to, ref::convert_exact(x, to, with(r)).code); };
      const ref::Exact n = value(Round::rn), z = value(Round::rz), a = value(away(x, to));
      if (a.kind != ref::Exact::finite || ref::compare(a, z) == 0) continue;
      const ref::cpp_rational xv = ref::to_rational(x);
      auto dist = [&](const ref::Exact& y) {
        ref::cpp_rational d = ref::to_rational(y) - xv;
        return d < 0 ? ref::cpp_rational(-d) : d;
      };
      RC_ASSERT(dist(n) <= dist(z));
      RC_ASSERT(dist(n) <= dist(a));
    }
  }
}

RC_GTEST_PROP(ReferenceProperties, MonotoneInEveryMode, (uint32_t drawn_a, uint32_t drawn_b)) {
  const std::vector<uint32_t> as = f32_codes(drawn_a), bs = f32_codes(drawn_b);
  const auto rank = [](const ref::Exact& x) { return x.kind == ref::Exact::inf ? (x.sign ? -1 : 1) : 0; };
  const auto order = [&](const ref::Exact& p, const ref::Exact& q) {
    if (rank(p) != rank(q)) return rank(p) < rank(q) ? -1 : 1;
    if (rank(p) != 0) return 0;
    return ref::compare(p, q);
  };
  for (size_t i = 0; i < as.size(); ++i) {
    ref::Exact xa = ref::exact_value(Fmt::f32, as[i]), xb = ref::exact_value(Fmt::f32, bs[i]);
    if (xa.kind == ref::Exact::nan || xb.kind == ref::Exact::nan) continue;
    if (order(xa, xb) > 0) std::swap(xa, xb);
    for (Fmt to : {Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e2m1, Fmt::e3m2, Fmt::s8, Fmt::s4}) {
      for (Round r : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru}) {
        const ref::Exact ya = ref::exact_value(to, ref::convert_exact(xa, to, with(r)).code);
        const ref::Exact yb = ref::exact_value(to, ref::convert_exact(xb, to, with(r)).code);
        RC_ASSERT(order(ya, yb) <= 0);
      }
    }
  }
}

// The rational path must give the dyadic path's bits for dyadic inputs, in every mode.
RC_GTEST_PROP(ReferenceProperties, RationalPathAgreesWithDyadicPath, (uint32_t drawn, uint32_t rbits)) {
  for (uint32_t code : f32_codes(drawn)) {
    const ref::Exact x = ref::exact_value(Fmt::f32, code);
    const ref::Real r = ref::to_real(x);
    for (Fmt to : kAllDests) {
      for (Round m : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru, Round::rs}) {
        for (bool sat : {false, true}) {
          const ConvertOptions o = with(m, sat);
          const ConvertResult d = ref::convert_exact(x, to, o, rbits);
          const ConvertResult q = ref::convert_rational(r, to, o, rbits);
          RC_ASSERT(d.code == q.code);
          RC_ASSERT(d.flags == q.flags);
        }
      }
    }
  }
}

// Every code of every small format survives a trip through f64 and back, in every mode
// (NaN: the canonical NaN; ue8m0 has no subnormal/zero subtleties). Exhaustive.
TEST(ReferenceProperties, RoundTripThroughF64IsIdentity) {
  for (Fmt f : {Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3,
                Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4}) {
    const ref::FormatParams& p = ref::params(f);
    for (uint64_t c = 0; c < (uint64_t{1} << p.width); ++c) {
      const ref::Exact x = ref::exact_value(f, c);
      for (Round r : {Round::rn, Round::rz, Round::ru, Round::rs}) {
        const uint64_t wide = ref::convert(f, Fmt::f64, c, with(r, false), 0x12345u).code;
        const uint64_t back = ref::convert(Fmt::f64, f, wide, with(r, false), 0x6789u).code;
        const uint64_t want = x.kind == ref::Exact::nan ? *ref::canonical_nan_code(f) : c;
        ASSERT_EQ(back, want) << p.name << " code " << c << " mode " << static_cast<int>(r);
      }
    }
  }
}

// Exhaustive f16 -> e4m3 in the five deterministic modes: the result brackets x (rd <= x <=
// ru as numbers), and rn is rd or ru. Checks the grid logic across all binades at once.
TEST(ReferenceProperties, F16ToE4m3Brackets) {
  for (uint64_t c = 0; c < 0x10000; ++c) {
    const ref::Exact x = ref::exact_value(Fmt::f16, c);
    if (x.kind != ref::Exact::finite) continue;
    if (ref::compare(ref::make_finite(false, x.mant, x.exp), ref::max_finite(Fmt::e4m3)) > 0) continue;
    const ref::Exact d = ref::exact_value(Fmt::e4m3, ref::convert_exact(x, Fmt::e4m3, with(Round::rd)).code);
    const ref::Exact u = ref::exact_value(Fmt::e4m3, ref::convert_exact(x, Fmt::e4m3, with(Round::ru)).code);
    ASSERT_LE(ref::compare(d, x), 0) << c;
    ASSERT_GE(ref::compare(u, x), 0) << c;
    const ref::Exact n = ref::exact_value(Fmt::e4m3, ref::convert_exact(x, Fmt::e4m3, with(Round::rn)).code);
    ASSERT_TRUE(ref::compare(n, d) == 0 || ref::compare(n, u) == 0) << c;
  }
}

}  // namespace
