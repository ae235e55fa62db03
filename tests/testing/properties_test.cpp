// The ready-made properties: a correct function (written with the exact reference,
// tcemu_reference, which shares no arithmetic with the emulator that serves as the oracle)
// passes, and each deliberately wrong one is caught with a counterexample that is checked
// against the reference and format facts (docs/formats.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "ref_classes.hpp"
#include "tcemu/testing/matchers.hpp"
#include "tcemu/testing/properties.hpp"
#include "tcemu_ref/convert_ref.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace {

using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;
using namespace tcemu::testing;
namespace ref = tcemu::ref;

ConvertOptions opts(Round r, bool sat) {
  ConvertOptions o;
  o.round = r;
  o.satfinite = sat;
  return o;
}

CheckOptions fast(int tests = 1000) {
  CheckOptions o;
  o.tests = tests;
  return o;
}

// f32 -> e4m3 as cvt.rn.satfinite (PTX ISA: RN, saturate to +-448, NaN -> 0x7f), by the reference.
uint64_t ref_e4m3(uint64_t x) { return ref::convert(Fmt::f32, Fmt::e4m3, x, opts(Round::rn, true)).code; }

TEST(ConvertsLike, TheReferenceConverterPasses) {
  const auto spec = ConversionSpec::ptx("cvt.rn.satfinite.e4m3x2.f32");
  EXPECT_EQ(spec.from, Fmt::f32);
  EXPECT_EQ(spec.to, Fmt::e4m3);
  const PropertyResult r = converts_like(spec, ref_e4m3, fast(3000));
  EXPECT_THAT(r, Holds());
  EXPECT_EQ(r.tests_run, 3000);
  EXPECT_EQ(r.to_string(), "PASSED converts like cvt.rn.satfinite.e4m3x2.f32: 3000 cases (seed 1)");
}

TEST(ConvertsLike, TiesAwayIsCaughtAtASimpleTie) {
  const auto r = converts_like(ConversionSpec::ptx("cvt.rn.satfinite.e4m3x2.f32"), [](uint64_t x) {
    return ref::convert(Fmt::f32, Fmt::e4m3, x, opts(Round::rna, true)).code;
  }, fast());
  ASSERT_FALSE(r.passed);
  ASSERT_TRUE(r.counterexample);
  const Counterexample& ce = *r.counterexample;
  const uint64_t x = ce.inputs.at(0).codes.bits.at(0);
  EXPECT_TRUE(tk_test::is_tie(Fmt::f32, Fmt::e4m3, x)) << r;
  EXPECT_EQ(ce.expected->bits, ref_e4m3(x));
  EXPECT_EQ(ce.ulps, 1u);
  EXPECT_GT(ce.shrink_steps, 0);
  // Shrunk to a tie with one set fraction bit below e4m3's precision (1.0625 = 1 + 2^-4 and its
  // kin), not the arbitrary tie first found.
  EXPECT_LE(std::popcount(x & 0x7fffffu), 1) << r;
  EXPECT_NE(r.to_string().find("why: the function converts x differently from cvt.rn.satfinite.e4m3x2.f32"),
            std::string::npos);
}

TEST(ConvertsLike, MissingSaturationIsCaughtAtTheThreshold) {
  const auto r = converts_like(ConversionSpec::ptx("cvt.rn.satfinite.e4m3x2.f32"), [](uint64_t x) {
    return ref::convert(Fmt::f32, Fmt::e4m3, x, opts(Round::rn, false)).code;  // 464 -> NaN
  }, fast());
  ASSERT_FALSE(r.passed);
  const Counterexample& ce = *r.counterexample;
  const float x = std::bit_cast<float>(static_cast<uint32_t>(ce.inputs.at(0).codes.bits.at(0)));
  // The first magnitude that overflows e4m3 under RN is 464 (docs/formats.md: 448 + half an ulp of 32).
  EXPECT_GE(std::fabs(x), 464.0f) << r;
  EXPECT_LE(std::fabs(x), 512.0f) << r;  // shrunk into the binade of the threshold
  EXPECT_EQ(ce.expected->bits & 0x7f, 0x7eu);  // +-448
  EXPECT_EQ(ce.actual->bits & 0x7f, 0x7fu);    // NaN
  EXPECT_FALSE(ce.ulps);                       // a NaN has no ulp distance
}

// ConversionSpec::ptx takes the element conversion of every cvt spelling (packed sources and
// destinations included) as the reference computes it with the spelling's options; the one
// exception is the measured sm_90 lowering of cvt.rna.satfinite.tf32.f32 (H200: one tf32 ulp
// below the truncated NaN), which the spec keeps and the plain options do not.
TEST(ConvertsLike, EveryPtxSpellingIsItsElementConversion) {
  int checked = 0;
  for (const std::string& s : tcemu::ptx_cvt_catalog()) {
    const auto spec = ConversionSpec::ptx(s);
    if (spec.options.round == Round::rs) continue;
    const auto r = converts_like(spec, [&](uint64_t x) { return ref::convert(spec.from, spec.to, x, spec.options).code; },
                                 fast(300));
    ++checked;
    if (spec.ptx_cvt->sm90_tf32_satfinite_nan) {
      ASSERT_FALSE(r.passed) << s;
      EXPECT_TRUE(tk_test::is_nan(Fmt::f32, r.counterexample->inputs[0].codes.bits[0])) << r;
      EXPECT_EQ(r.counterexample->expected->bits, 0x7fffc000u) << r;  // 0x7fffe000 - one tf32 ulp
    } else {
      EXPECT_TRUE(r.passed) << r;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(ConvertsLike, ConventionsAndOptions) {
  tcemu::OptionRequest req;
  const auto spec = ConversionSpec::convention("cuda-host", Fmt::f32, Fmt::bf16, req);
  EXPECT_THAT(converts_like(spec, [&](uint64_t x) { return ref::convert(Fmt::f32, Fmt::bf16, x, spec.options).code; },
                            fast()),
              Holds());
  // f32 -> bf16 truncation (a common hand-written shortcut) is not RN.
  const auto rz = converts_like(ConversionSpec::with_options(Fmt::f32, Fmt::bf16, opts(Round::rn, false)),
                                [](uint64_t x) { return (x >> 16) & 0xffff; }, fast());
  EXPECT_FALSE(rz.passed);
  EXPECT_THROW(ConversionSpec::ptx("cvt.rn.e4m3.f33"), std::invalid_argument);
  EXPECT_THROW(ConversionSpec::convention("no-such-convention", Fmt::f32, Fmt::e4m3), std::invalid_argument);
}

TEST(ConvertsLike, StochasticRoundingTakesTheRandomBits) {
  auto spec = ConversionSpec::with_options(Fmt::f32, Fmt::bf16, opts(Round::rs, false));
  EXPECT_THAT(converts_like_rs(spec, [&](uint64_t x, uint32_t rb) {
    return ref::convert(Fmt::f32, Fmt::bf16, x, spec.options, rb).code;
  }, fast()), Holds());
  const auto bad = converts_like_rs(spec, [&](uint64_t x, uint32_t) {
    return ref::convert(Fmt::f32, Fmt::bf16, x, opts(Round::rn, false)).code;
  }, fast());
  EXPECT_FALSE(bad.passed);
}

TEST(DotAgreesWith, TheReferenceDatapathPassesAndACorrectlyRoundedDotIsCaught) {
  const char* arch = "sm_90a";
  const char* ptx = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  const auto look = tcemu::find_instruction(arch, ptx);
  ASSERT_TRUE(look.entry) << look.error;
  const tcemu::InstrEntry& e = *look.entry;
  auto model = [&](const DotInputs& in) {
    return ref::fdpa_dot(e.params, e.atype, e.btype, in.a.bits, in.b.bits, in.c.bits);
  };
  EXPECT_THAT(dot_agrees_with(arch, ptx, model, {}, fast(300)), Holds());
  // Correct rounding of the exact sum: what a CPU reference in long double is close to, and
  // not what the tensor core (truncating alignment, RZ) computes.
  auto exact = [&](const DotInputs& in) {
    return ref::correctly_rounded(ref::exact_dot(e.atype, e.btype, in.a.bits, in.b.bits, Fmt::f32, in.c.bits), Fmt::f32,
                                  Round::rn);
  };
  const auto r = dot_agrees_with(arch, ptx, exact, {}, fast(300));
  ASSERT_FALSE(r.passed);
  const Counterexample& ce = *r.counterexample;
  EXPECT_EQ(ce.inputs.at(0).codes.bits.size(), 16u);
  EXPECT_EQ(ce.expected->bits, model(DotInputs{ce.inputs[0].codes, ce.inputs[1].codes, ce.inputs[2].codes.at(0), {}, {}}));
  EXPECT_THROW(dot_agrees_with("sm_90a", "mma.sync.no.such", model), std::invalid_argument);
}

TEST(DotAgreesWith, BlockScaledInstructions) {
  const char* arch = "sm_100a";
  const char* ptx = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X";
  DotOptions d;
  d.atype = Fmt::e4m3;
  d.btype = Fmt::e4m3;
  const auto look = tcemu::find_instruction(arch, ptx, Fmt::e4m3, Fmt::e4m3);
  ASSERT_TRUE(look.entry) << look.error;
  const tcemu::InstrEntry& e = *look.entry;
  auto model = [&](const DotInputs& in) {
    tcemu::BlockScales s;
    s.fmt = *e.scale_type;
    s.block = e.scale_block;
    s.a = in.sa.bits;
    s.b = in.sb.bits;
    return ref::fdpa_dot(e.params, e.atype, e.btype, in.a.bits, in.b.bits, in.c.bits, &s);
  };
  EXPECT_THAT(dot_agrees_with(arch, ptx, model, d, fast(200)), Holds());
  auto no_scales = [&](const DotInputs& in) {
    return ref::fdpa_dot(e.params, e.atype, e.btype, in.a.bits, in.b.bits, in.c.bits, nullptr);
  };
  EXPECT_FALSE(dot_agrees_with(arch, ptx, no_scales, d, fast(200)).passed);
}

// Quantizers: x -> e4m3 code of x / 2^-4 (a per-tensor power-of-two scale).
constexpr double kScale = 0x1p-4;
uint64_t quantize_ref(float x, Round r, bool sat) {
  const double y = static_cast<double>(x) / kScale;
  return ref::convert(Fmt::f64, Fmt::e4m3, std::bit_cast<uint64_t>(y), opts(r, sat)).code;
}

TEST(Quantizer, ACorrectQuantizerSatisfiesEveryLaw) {
  const QuantizerSpec q{Fmt::e4m3, kScale};
  auto fn = [](float x) { return quantize_ref(x, Round::rn, true); };
  EXPECT_THAT(quantizer_is_monotone(q, fn, fast()), Holds());
  EXPECT_THAT(quantizer_never_overflows(q, fn, fast()), Holds());
  EXPECT_THAT(quantizer_round_trips(q, fn, Bound::half_ulp, fast()), Holds());
  EXPECT_THAT(quantizer_round_trips(q, fn, Bound::one_ulp, fast()), Holds());
}

TEST(Quantizer, TruncationIsFaithfulButNotNearest) {
  const QuantizerSpec q{Fmt::e4m3, kScale};
  auto fn = [](float x) { return quantize_ref(x, Round::rz, true); };
  EXPECT_THAT(quantizer_round_trips(q, fn, Bound::one_ulp, fast()), Holds());
  const auto r = quantizer_round_trips(q, fn, Bound::half_ulp, fast());
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.counterexample->ulps, 1u) << r;
  EXPECT_THAT(quantizer_is_monotone(q, fn, fast()), Holds());
}

TEST(Quantizer, OverflowAndNonMonotonicityAreCaught) {
  const QuantizerSpec q{Fmt::e4m3, kScale};
  auto nosat = [](float x) { return quantize_ref(x, Round::rn, false); };
  const auto r = quantizer_never_overflows(q, nosat, fast());
  ASSERT_FALSE(r.passed);
  const float x = std::bit_cast<float>(static_cast<uint32_t>(r.counterexample->inputs[0].codes.bits[0]));
  EXPECT_GE(std::fabs(x) / kScale, 464.0) << r;
  // Wrapping the exponent: 2^8 * x quantized again, so large inputs land low.
  auto wraps = [](float x) {
    const uint64_t c = quantize_ref(x, Round::rn, true);
    return (c & 0x7f) >= 0x78 ? (c & 0x80) | 0x08 : c;
  };
  const auto m = quantizer_is_monotone(q, wraps, fast());
  ASSERT_FALSE(m.passed);
  EXPECT_EQ(m.counterexample->why, "x <= y but fn(x) > fn(y)");
}

TEST(CheckProperty, ExceptionsAndGivingUpBecomeErrors) {
  const auto r = check_property("throws", []() -> std::optional<Counterexample> { throw std::runtime_error("boom"); },
                                fast(10));
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.counterexample);
  EXPECT_NE(r.error.find("boom"), std::string::npos) << r.error;
}

}  // namespace
