// RapidCheck properties of rounding, with values compared through the reference's exact
// values (tcemu::ref::exact_value / compare), never through the emulator's decoder:
// monotonic rounding, rz never increases magnitude, rd <= exact <= ru, satfinite never
// gives Inf, rs with zero bits is rz and with all-one bits is rz or one step away.
// Each generated input is checked against every destination, mode and satfinite setting.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cstdlib>
#include <vector>

#include "convert_test_support.hpp"

namespace tctest {
namespace {

namespace ref = tcemu::ref;

// 5000 cases per property instead of RapidCheck's 100 (each case is cheap); RC_PARAMS set by
// the caller takes precedence. RapidCheck reads it at the first check, after this runs.
const bool kMoreCases = [] { return setenv("RC_PARAMS", "max_success=5000", 0) == 0; }();

const Round kModes[] = {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru};

// f32 codes: mostly exponents near the narrow formats' ranges, sometimes any bit pattern.
rc::Gen<uint32_t> gen_f32() {
  return rc::gen::oneOf(
      rc::gen::arbitrary<uint32_t>(),
      rc::gen::apply(
          [](bool s, int e, uint32_t m) {
            return (s ? 0x80000000u : 0u) | (static_cast<uint32_t>(e + 127) << 23) | (m & 0x7FFFFFu);
          },
          rc::gen::arbitrary<bool>(), rc::gen::inRange(-135, 40), rc::gen::arbitrary<uint32_t>()),
      rc::gen::apply([](uint32_t m) { return m & 0x807FFFFFu; }, rc::gen::arbitrary<uint32_t>()));  // subnormals
}

bool is_nan(const ref::Exact& x) { return x.kind == ref::Exact::nan; }

// Total order on non-NaN exact values: -Inf < finite < +Inf.
int order(const ref::Exact& a, const ref::Exact& b) {
  auto rank = [](const ref::Exact& x) { return x.kind == ref::Exact::inf ? (x.sign ? -1 : 1) : 0; };
  int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (ra != 0) return 0;
  return ref::compare(a, b);
}

ref::Exact magnitude(ref::Exact x) {
  x.sign = false;
  return x;
}

ref::Exact value_of(Fmt f, uint64_t code) { return ref::exact_value(f, code); }

ConvertOptions opts(Round r, bool sat) {
  ConvertOptions o;
  o.round = r;
  o.satfinite = sat;
  return o;
}

bool is_unsigned(Fmt f) { return !tcemu::info(f).is_signed; }

// Below ue8m0's smallest value 2^-127 every mode gives 0x00 (docs/conversions.md step 7):
// the directed-rounding bounds do not hold there by definition.
bool below_ue8m0_min(Fmt to, const ref::Exact& x) {
  return to == Fmt::ue8m0 && x.kind == ref::Exact::finite && ref::compare(magnitude(x), ref::min_normal(Fmt::ue8m0)) < 0;
}

RC_GTEST_PROP(ConvertProperties, MonotonicRounding, ()) {
  uint32_t a = *gen_f32();
  // The second input is often a close neighbour, where monotonicity breaks if it breaks.
  uint32_t b = *rc::gen::oneOf(gen_f32(), rc::gen::apply([a](uint32_t d) { return a + (d & 0x3FFFu); },
                                                         rc::gen::arbitrary<uint32_t>()));
  ref::Exact xa = value_of(Fmt::f32, a), xb = value_of(Fmt::f32, b);
  RC_PRE(!is_nan(xa) && !is_nan(xb));
  if (order(xa, xb) > 0) {
    std::swap(a, b);
    std::swap(xa, xb);
  }
  for (Fmt to : all_formats()) {
    // Negative inputs into an unsigned format take the magnitude: not monotonic there.
    if (is_unsigned(to) && (xa.sign || xb.sign)) continue;
    for (Round r : kModes)
      for (bool sat : {false, true}) {
        auto ra = tcemu::convert(Fmt::f32, to, a, opts(r, sat));
        auto rb = tcemu::convert(Fmt::f32, to, b, opts(r, sat));
        ref::Exact va = value_of(to, ra.code), vb = value_of(to, rb.code);
        if (is_nan(va) || is_nan(vb)) continue;  // overflow into NaN (e4m3) has no order
        RC_ASSERT(order(va, vb) <= 0);
      }
  }
}

RC_GTEST_PROP(ConvertProperties, RzNeverIncreasesMagnitude, ()) {
  uint32_t a = *gen_f32();
  ref::Exact x = value_of(Fmt::f32, a);
  RC_PRE(!is_nan(x));
  for (Fmt to : all_formats()) {
    if (below_ue8m0_min(to, x)) continue;
    for (bool sat : {false, true}) {
      auto r = tcemu::convert(Fmt::f32, to, a, opts(Round::rz, sat));
      ref::Exact v = value_of(to, r.code);
      if (is_nan(v)) continue;  // Inf into e4m3 / ue8m0 without satfinite
      RC_ASSERT(order(magnitude(v), magnitude(x)) <= 0);
    }
  }
}

RC_GTEST_PROP(ConvertProperties, RdBelowExactBelowRu, ()) {
  uint32_t a = *gen_f32();
  ref::Exact x = value_of(Fmt::f32, a);
  RC_PRE(x.kind == ref::Exact::finite);
  for (Fmt to : all_formats()) {
    if (below_ue8m0_min(to, x)) continue;
    if (is_unsigned(to) && x.sign && !x.is_zero()) continue;  // magnitude taken
    // Formats without Inf cannot bound a value above MAX from above (saturation, or the
    // integer clamp): only in-range values.
    if (!tcemu::info(to).has_inf() && order(magnitude(x), ref::max_finite(to)) > 0) continue;
    auto d = tcemu::convert(Fmt::f32, to, a, opts(Round::rd, false));
    auto u = tcemu::convert(Fmt::f32, to, a, opts(Round::ru, false));
    ref::Exact vd = value_of(to, d.code), vu = value_of(to, u.code);
    if (!is_nan(vd)) RC_ASSERT(order(vd, x) <= 0);
    if (!is_nan(vu)) RC_ASSERT(order(x, vu) <= 0);
  }
}

RC_GTEST_PROP(ConvertProperties, SatfiniteNeverGivesInf, ()) {
  uint32_t a = *rc::gen::oneOf(gen_f32(), rc::gen::element(0x7F800000u, 0xFF800000u, 0x7F7FFFFFu, 0xFF7FFFFFu));
  uint32_t rb = *rc::gen::arbitrary<uint32_t>();
  ref::Exact x = value_of(Fmt::f32, a);
  for (Fmt to : all_formats()) {
    for (Round r : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru, Round::rs}) {
      auto res = tcemu::convert(Fmt::f32, to, a, opts(r, true), rb);
      ref::Exact v = value_of(to, res.code);
      RC_ASSERT(v.kind != ref::Exact::inf);
      if (!is_nan(x)) RC_ASSERT(!is_nan(v));  // overflow saturates, never NaN either
    }
  }
}

RC_GTEST_PROP(ConvertProperties, RsWithZeroBitsIsRz, ()) {
  uint32_t a = *gen_f32();
  for (Fmt to : all_formats())
    for (bool sat : {false, true}) {
      auto rs = tcemu::convert(Fmt::f32, to, a, opts(Round::rs, sat), 0u);
      auto rz = tcemu::convert(Fmt::f32, to, a, opts(Round::rz, sat));
      RC_ASSERT(rs.code == rz.code);
    }
}

RC_GTEST_PROP(ConvertProperties, RsWithAllOneBitsNeverBelowRz, ()) {
  uint32_t a = *gen_f32();
  ref::Exact x = value_of(Fmt::f32, a);
  RC_PRE(!is_nan(x));
  for (Fmt to : all_formats()) {
    if (is_unsigned(to) && x.sign) continue;  // magnitude or clamp: no single "away"
    for (bool sat : {false, true}) {
      auto rs = tcemu::convert(Fmt::f32, to, a, opts(Round::rs, sat), 0xFFFFFFFFu);
      auto rz = tcemu::convert(Fmt::f32, to, a, opts(Round::rz, sat));
      // Away from zero: ru for positive inputs, rd for negative ones.
      Round away = x.sign ? Round::rd : Round::ru;
      auto aw = tcemu::convert(Fmt::f32, to, a, opts(away, sat));
      RC_ASSERT(rs.code == rz.code || rs.code == aw.code);
      ref::Exact vs = value_of(to, rs.code), vz = value_of(to, rz.code);
      if (!is_nan(vs) && !is_nan(vz)) RC_ASSERT(order(magnitude(vs), magnitude(vz)) >= 0);
    }
  }
}

// decode / encode round trip of every code of the small formats; random f32, tf32, f64.
TEST(ConvertProperties, DecodeEncodeRoundTripEveryCode) {
  long bad = 0;
  for (Fmt f : small_formats()) {
    const uint64_t n = uint64_t{1} << tcemu::info(f).width;
    for (uint64_t c = 0; c < n; ++c) {
      tcemu::Decoded d = tcemu::decode(f, c);
      if (d.cls == tcemu::Class::inf || d.cls == tcemu::Class::nan) continue;
      auto e = tcemu::encode_exact(f, d.sign, d.sig, d.exp);
      if ((!e || *e != c) && bad++ < 20)
        ADD_FAILURE() << tcemu::info(f).name << " code " << hex(c) << " re-encodes as "
                      << (e ? hex(*e) : std::string("nothing"));
    }
  }
  EXPECT_EQ(bad, 0);
}

RC_GTEST_PROP(ConvertProperties, DecodeEncodeRoundTripWide, ()) {
  const Fmt f = *rc::gen::element(Fmt::f32, Fmt::tf32, Fmt::f64);
  uint64_t c = *rc::gen::arbitrary<uint64_t>() & tcemu::info(f).code_mask();
  if (f == Fmt::tf32) c &= ~uint64_t{0x1FFF};
  tcemu::Decoded d = tcemu::decode(f, c);
  RC_PRE(d.cls != tcemu::Class::inf && d.cls != tcemu::Class::nan);
  auto e = tcemu::encode_exact(f, d.sign, d.sig, d.exp);
  RC_ASSERT(e.has_value());
  RC_ASSERT(*e == c);
}

}  // namespace
}  // namespace tctest
