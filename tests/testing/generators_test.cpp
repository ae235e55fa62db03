// Each generator of tcemu::testing reaches every category it promises, measured over many
// draws; what a drawn code is comes from the exact reference (ref_classes.hpp) and the
// format facts of docs/formats.md, not from the generators' own tables.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "ref_classes.hpp"
#include "tcemu/testing/generators.hpp"
#include "tcemu_ref/exact.hpp"

namespace {

using tcemu::Fmt;
using tcemu::testing::Code;
namespace gen = tcemu::testing::gen;
namespace ref = tcemu::ref;
using tk_test::is_tie;
using tk_test::step;
using tk_test::value;

template <class T>
std::vector<T> draw(const rc::Gen<T>& g, int n, uint64_t seed = 7) {
  rc::Random r(seed);
  std::vector<T> out;
  for (int i = 0; i < n; ++i) out.push_back(g(r.split(), 100).value());
  return out;
}

// Special categories of a format from the reference's values.
std::string special_category(Fmt f, uint64_t c) {
  const ref::Exact e = ref::exact_value(f, c);
  const std::string s = e.sign ? "-" : "+";
  if (e.kind == ref::Exact::nan) {
    const auto& p = ref::params(f);
    if (p.nan == ref::NanCodes::ieee) {
      const bool quiet = (c >> (p.pad_bits + p.man_bits - 1)) & 1;
      return s + (quiet ? "qnan" : "snan");
    }
    return s + "nan";
  }
  if (e.kind == ref::Exact::inf) return s + "inf";
  const ref::cpp_rational v = abs(ref::to_rational(e));
  if (v == 0) return s + "zero";
  if (auto ms = ref::min_subnormal(f); ms && v == ref::to_rational(*ms)) return s + "min_subnormal";
  const auto mn = ref::to_rational(ref::min_normal(f));
  if (auto ms = ref::min_subnormal(f); ms && v == mn - ref::to_rational(*ms)) return s + "max_subnormal";
  if (v == mn) return s + "min_normal";
  if (v == abs(ref::to_rational(ref::max_finite(f)))) return s + "max_finite";
  if (ref::params(f).is_int && v == 1) return s + "one";
  if (ref::params(f).is_int && v == -ref::params(f).int_min) return s + "min";
  return "other";
}

// What docs/formats.md says each format has.
std::set<std::string> promised_specials(Fmt f) {
  const auto& p = ref::params(f);
  std::set<std::string> want;
  const std::vector<std::string> signs = p.is_signed ? std::vector<std::string>{"+", "-"} : std::vector<std::string>{"+"};
  if (p.is_int) {
    want = {"+zero", "+max_finite"};
    // 1 is the smallest normal of an integer format (the reference calls it so).
    want.insert("+min_normal");
    if (p.is_signed) want.insert({"-min_normal", "-min"});
    return want;
  }
  for (const auto& s : signs) {
    if (ref::zero_code(f, s == "-")) want.insert(s + "zero");
    if (p.has_subnormals && p.man_bits > 0) want.insert(s + "min_subnormal");
    if (p.has_subnormals && p.man_bits > 1) want.insert(s + "max_subnormal");  // e2m1: the same value
    want.insert({s + "min_normal", s + "max_finite"});
    if (p.has_inf()) want.insert(s + "inf");
    if (p.nan == ref::NanCodes::ieee) want.insert({s + "qnan", s + "snan"});
    else if (p.has_nan()) want.insert(s + "nan");
  }
  return want;
}

const Fmt kAll[] = {Fmt::f64, Fmt::f32, Fmt::tf32, Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2,
                    Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3, Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4};

TEST(Generators, SpecialReachesEveryCategoryOfEveryFormat) {
  for (Fmt f : kAll) {
    std::set<std::string> seen;
    for (const Code& c : draw(gen::special(f), 3000)) {
      ASSERT_EQ(c.fmt, f);
      ASSERT_TRUE(tcemu::is_valid_code(f, c.bits)) << tcemu::testing::describe(c);
      seen.insert(special_category(f, c.bits));
    }
    for (const auto& want : promised_specials(f)) {
      EXPECT_TRUE(seen.count(want)) << tcemu::info(f).name << " never drew " << want;
    }
    EXPECT_FALSE(seen.count("other")) << tcemu::info(f).name;
  }
}

TEST(Generators, ArbitraryCoversTheCodeSpace) {
  for (Fmt f : kAll) {
    const auto& p = ref::params(f);
    std::set<uint64_t> seen;
    for (const Code& c : draw(gen::arbitrary(f), 4000)) {
      ASSERT_TRUE(tcemu::is_valid_code(f, c.bits)) << tcemu::info(f).name;
      seen.insert(c.bits);
    }
    const int value_bits = p.width - p.pad_bits;
    if (value_bits <= 8) {
      EXPECT_EQ(seen.size(), size_t{1} << value_bits) << tcemu::info(f).name;  // all of them
    } else {
      EXPECT_GT(seen.size(), 3800u) << tcemu::info(f).name;
    }
  }
}

// Categories around the rounding ties of dst: at a tie, one src ulp below or above, each sign,
// ties among dst's subnormals, the tie between 0 and the smallest subnormal, the top tie.
std::set<std::string> tie_categories(Fmt src, Fmt dst, const std::vector<Code>& codes) {
  std::set<std::string> seen;
  const ref::cpp_rational max_dst = abs(ref::to_rational(ref::max_finite(dst)));
  const ref::cpp_rational min_normal = ref::to_rational(ref::min_normal(dst));
  const auto min_sub = ref::min_subnormal(dst);
  const ref::cpp_rational top_ulp =
      ref::params(dst).is_int ? ref::cpp_rational(1) : ref::to_rational(ref::make_finite(false, 1, ref::max_finite(dst).exp));
  for (const Code& c : codes) {
    std::string where;
    uint64_t tie = c.bits;
    if (is_tie(src, dst, c.bits)) {
      where = "at";
    } else if (auto up = step(src, c.bits, 1); up && is_tie(src, dst, *up)) {
      where = "below";
      tie = *up;
    } else if (auto down = step(src, c.bits, -1); down && is_tie(src, dst, *down)) {
      where = "above";
      tie = *down;
    } else {
      seen.insert("not near a tie");
      continue;
    }
    const ref::cpp_rational v = value(src, tie);
    seen.insert(where + (v < 0 ? "-" : "+"));
    const ref::cpp_rational a = abs(v);
    if (a < min_normal) seen.insert("subnormal range");
    if (min_sub && 2 * a == ref::to_rational(*min_sub)) seen.insert("zero/min_subnormal");
    if (a < max_dst && a > max_dst - top_ulp) seen.insert("top");
  }
  return seen;
}

TEST(Generators, TieReachesEveryTieCategory) {
  struct Pair { Fmt src, dst; bool subnormal, top_tie; };
  const Pair pairs[] = {{Fmt::f32, Fmt::e4m3, true, true},  {Fmt::f32, Fmt::e5m2, true, true},
                        {Fmt::f32, Fmt::e2m1, true, true},  {Fmt::f32, Fmt::e3m2, true, true},
                        {Fmt::f32, Fmt::bf16, true, true},  {Fmt::f32, Fmt::f16, true, true},
                        {Fmt::f16, Fmt::e4m3, true, true},  {Fmt::bf16, Fmt::e4m3, true, true},
                        {Fmt::f64, Fmt::f32, true, true},   {Fmt::f32, Fmt::tf32, true, true},
                        {Fmt::f32, Fmt::s8, false, true},   {Fmt::f32, Fmt::ue8m0, false, false}};
  for (const Pair& p : pairs) {
    const auto seen = tie_categories(p.src, p.dst, draw(gen::tie(p.src, p.dst), 3000));
    const std::string name = std::string(tcemu::info(p.src).name) + " -> " + std::string(tcemu::info(p.dst).name);
    EXPECT_FALSE(seen.count("not near a tie")) << name;
    const bool signed_dst = ref::params(p.dst).is_signed;
    for (const char* w : {"at", "below", "above"}) {
      EXPECT_TRUE(seen.count(std::string(w) + "+")) << name << " " << w;
      if (signed_dst) {
        EXPECT_TRUE(seen.count(std::string(w) + "-")) << name << " " << w << "-";
      }
    }
    if (p.subnormal) {
      EXPECT_TRUE(seen.count("subnormal range")) << name;
      EXPECT_TRUE(seen.count("zero/min_subnormal")) << name;
    }
    if (p.top_tie && tcemu::info(p.dst).width <= 16) {
      EXPECT_TRUE(seen.count("top")) << name;
    }
  }
}

TEST(Generators, TieFailsWhenTheSourceHoldsNoTie) {
  rc::Random r(1);
  EXPECT_THROW(gen::tie(Fmt::e4m3, Fmt::f32)(r, 0).value(), rc::GenerationFailure);
}

TEST(Generators, OverflowReachesEveryThreshold) {
  struct Pair { Fmt src, dst; };
  const Pair pairs[] = {{Fmt::f32, Fmt::e4m3}, {Fmt::f32, Fmt::e5m2}, {Fmt::f32, Fmt::e2m1}, {Fmt::f32, Fmt::f16},
                        {Fmt::f32, Fmt::bf16}, {Fmt::f64, Fmt::f32}, {Fmt::f16, Fmt::e4m3}, {Fmt::f32, Fmt::s8}};
  for (const Pair& p : pairs) {
    const std::string name = std::string(tcemu::info(p.src).name) + " -> " + std::string(tcemu::info(p.dst).name);
    // Thresholds from the reference, per sign: M, M + ulp(M)/2, M + ulp(M) (ulp(M) = 2^exp of
    // M's last bit); those beyond the range of src cannot be drawn.
    const ref::cpp_rational src_max = abs(ref::to_rational(ref::max_finite(p.src)));
    std::set<std::string> seen, want;
    for (bool neg : {false, true}) {
      const ref::Exact m = ref::exact_value(p.dst, ref::max_finite_code(p.dst, neg));
      const ref::cpp_rational M = abs(ref::to_rational(m));
      const ref::cpp_rational ulp = ref::params(p.dst).is_int ? ref::cpp_rational(1)
                                                               : ref::to_rational(ref::make_finite(false, 1, m.exp));
      const std::pair<const char*, ref::cpp_rational> ts[] = {{"max", M}, {"max+ulp/2", M + ulp / 2}, {"max+ulp", M + ulp}};
      for (const auto& [tname, t] : ts) {
        if (t < src_max) {
          for (const char* w : {"at ", "below ", "above "}) want.insert(std::string(w) + tname + (neg ? "-" : "+"));
        }
      }
      for (const Code& c : draw(gen::overflow(p.src, p.dst), 2000)) {
        if (tk_test::negative(p.src, c.bits) != neg) continue;
        std::string where = "elsewhere";
        for (int d : {0, 1, -1}) {
          const auto x = d ? step(p.src, c.bits, d) : std::optional<uint64_t>(c.bits);
          if (!x || !tk_test::is_finite(p.src, *x)) continue;
          const ref::cpp_rational a = abs(value(p.src, *x));
          const std::string at = d == 0 ? "at " : d == 1 ? "below " : "above ";
          for (const auto& [tname, t] : ts) {
            if (a == t && where == "elsewhere") where = at + tname;
          }
        }
        seen.insert(where + (neg ? "-" : "+"));
      }
    }
    EXPECT_FALSE(seen.count("elsewhere+") || seen.count("elsewhere-")) << name;
    for (const auto& w : want) EXPECT_TRUE(seen.count(w)) << name << ": never " << w;
  }
}

TEST(Generators, InterestingMixesTheCategoriesAndNegativesForUnsignedScales) {
  for (Fmt dst : {Fmt::e4m3, Fmt::ue8m0, Fmt::ue4m3}) {
    int special = 0, tie = 0, neg = 0, n = 4000;
    for (const Code& c : draw(gen::interesting(Fmt::f32, dst), n)) {
      if (special_category(Fmt::f32, c.bits) != "other") ++special;
      if (is_tie(Fmt::f32, dst, c.bits)) ++tie;
      if (tk_test::negative(Fmt::f32, c.bits) && tk_test::is_finite(Fmt::f32, c.bits)) ++neg;
    }
    EXPECT_GT(special, n / 10) << tcemu::info(dst).name;
    EXPECT_GT(tie, n / 20) << tcemu::info(dst).name;
    EXPECT_GT(neg, n / 20) << tcemu::info(dst).name;
  }
}

TEST(Generators, SpreadKeepsExponentsInRangeAndReachesEach) {
  const gen::Spread s{-3, 2, 10, 0};
  for (Fmt f : {Fmt::f32, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e2m1}) {
    std::set<int> exps;
    int zeros = 0;
    for (const Code& c : draw(gen::spread(f, s), 3000)) {
      const ref::Exact e = ref::exact_value(f, c.bits);
      ASSERT_EQ(e.kind, ref::Exact::finite);
      if (e.mant == 0) { ++zeros; continue; }
      const int msb = static_cast<int>(boost::multiprecision::msb(e.mant));
      exps.insert(e.exp + msb);
    }
    const auto& p = ref::params(f);
    const int lo = std::max(-3, p.emin() - (p.has_subnormals ? p.man_bits : 0)), hi = std::min(2, p.emax());
    EXPECT_EQ(*exps.begin(), lo) << tcemu::info(f).name;
    EXPECT_EQ(*exps.rbegin(), hi) << tcemu::info(f).name;
    EXPECT_EQ(exps.size(), static_cast<size_t>(hi - lo + 1)) << tcemu::info(f).name;
    EXPECT_GT(zeros, 150);
    EXPECT_LT(zeros, 450);
  }
}

TEST(Generators, VectorsAndMatricesHaveTheirShape) {
  for (const auto& v : draw(gen::vector(Fmt::e4m3, 32), 20)) EXPECT_EQ(v.bits.size(), 32u);
  for (const auto& m : draw(gen::matrix(Fmt::bf16, 3, 5), 20)) {
    EXPECT_EQ(m.bits.size(), 15u);
    EXPECT_EQ(m.rows, 3);
    EXPECT_EQ(m.cols, 5);
  }
}

TEST(Generators, ScaledBlocksReachEveryPattern) {
  for (auto [elem, scale, size] : {std::tuple{Fmt::e4m3, Fmt::ue8m0, 32}, std::tuple{Fmt::e2m1, Fmt::ue4m3, 16}}) {
    std::set<std::string> seen;
    for (const auto& b : draw(gen::scaled_block(elem, scale, size), 500)) {
      ASSERT_EQ(b.elems.bits.size(), static_cast<size_t>(size));
      bool all_zero = true, all_max = true;
      for (uint64_t c : b.elems.bits) {
        all_zero = all_zero && value(elem, c) == 0;
        all_max = all_max && abs(value(elem, c)) == abs(ref::to_rational(ref::max_finite(elem)));
      }
      if (all_zero) seen.insert("zero");
      if (all_max && value(scale, b.scale.bits) == ref::to_rational(ref::max_finite(scale))) seen.insert("saturating");
      if (tk_test::is_nan(scale, b.scale.bits)) seen.insert("nan_scale");
      if (!tk_test::is_nan(scale, b.scale.bits)) {
        const ref::cpp_rational v = value(scale, b.scale.bits);
        const ref::cpp_rational smallest = ref::min_subnormal(scale) ? ref::to_rational(*ref::min_subnormal(scale))
                                                        : ref::to_rational(ref::min_normal(scale));
        if (v == smallest) seen.insert("smallest scale");
        if (v == ref::to_rational(ref::max_finite(scale)) && !all_max) seen.insert("largest scale");
        if (v >= ref::cpp_rational(1, 16) && v <= 16 && !all_zero) seen.insert("ordinary");
      }
    }
    for (const char* want : {"zero", "saturating", "nan_scale", "smallest scale", "largest scale", "ordinary"})
      EXPECT_TRUE(seen.count(want)) << tcemu::info(elem).name << " never drew " << want;
  }
}

TEST(Generators, QuantizerInputReachesEveryBlockPattern) {
  std::set<std::string> seen;
  const double max_elem = 448;  // e4m3 (docs/formats.md)
  for (const auto& t : draw(gen::quantizer_input(2, 64, 32, Fmt::e4m3), 300)) {
    ASSERT_EQ(t.values.size(), 128u);
    for (size_t b = 0; b < 4; ++b) {
      float amax = 0;
      bool nan = false, inf = false;
      for (size_t i = 0; i < 32; ++i) {
        const float x = t.values[b * 32 + i];
        if (std::isnan(x)) nan = true;
        else if (std::isinf(x)) inf = true;
        else amax = std::max(amax, std::fabs(x));
      }
      if (nan) seen.insert("nan");
      if (inf) seen.insert("inf");
      if (!nan && !inf && amax == 0) seen.insert("zero");
      if (amax > 0 && amax < 0x1p-126f) seen.insert("subnormal amax");
      if (amax >= 0x1p125f) seen.insert("near FLT_MAX");
      int e;
      const double fr = std::frexp(amax / max_elem, &e);
      if (fr == 0.5) seen.insert("at a scale boundary");
      if (std::nextafter(amax, 0.0f) / max_elem == std::ldexp(0.5, e) ||
          std::nextafter(amax, 1e38f) / max_elem == std::ldexp(0.5, e - 1) ||
          std::nextafter(amax, 1e38f) / max_elem == std::ldexp(0.5, e))
        seen.insert("one ulp from a scale boundary");
    }
  }
  for (const char* want : {"nan", "inf", "zero", "subnormal amax", "near FLT_MAX", "at a scale boundary",
                           "one ulp from a scale boundary"})
    EXPECT_TRUE(seen.count(want)) << "never drew " << want;
}

// Shrinking: every candidate is simpler, and failing cases end at simple values.
TEST(Shrinking, CandidatesAreValidAndEndAtZero) {
  for (Fmt f : kAll) {
    for (const Code& c : draw(gen::arbitrary(f), 200)) {
      // Following the first candidate repeatedly must terminate (a strict order).
      Code x = c;
      for (int i = 0; i < 10000; ++i) {
        const auto next = tcemu::testing::simpler_codes(x);
        for (const Code& k : next) ASSERT_TRUE(tcemu::is_valid_code(f, k.bits));
        if (next.empty()) break;
        x = next.back();
        ASSERT_LT(i, 9999) << "shrinking does not terminate for " << tcemu::testing::describe(c);
      }
    }
    // The first candidate of any nonzero code is the zero (1.0 for ue8m0, which has none).
    const auto first = tcemu::testing::simpler_codes(Code{f, tcemu::max_finite_code(f)});
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(value(f, first[0].bits), ref::zero_code(f, false) ? 0 : 1) << tcemu::info(f).name;
  }
}

}  // namespace
