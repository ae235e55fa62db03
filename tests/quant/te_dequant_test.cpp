// TransformerEngine's dequantize kernels (MxDequant::te, Nvfp4Dequant::te_kernel), from their
// source at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b: common/cast/mxfp8/dequantize_mxfp8.cuh
// (block_scale = ptx::exp2f(e): 2^(e-127), e = 0 the subnormal 2^-127, e = 255 NaN (since
// 4ff5fdfed); before that (TE <= v2.18, MxDequant::te_2_18) the f32 with bits e << 23; then
// block_scale times the element in f32) and common/cast/nvfp4/dequantize_nvfp4.cuh
// (final_scale = float(sfb) * amax * factor_inv with factor_inv = (float)(1.0 / (6.0 * 448.0)),
// then element * final_scale). Expected values: exact rationals of tcemu::ref, each f32
// multiplication rounded to nearest even by the reference, NaN as the GPU's canonical
// 0x7fffffff.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "tcemu/quant.hpp"
#include "tcemu/quant_nvfp4.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu::quant {
namespace {

using ref::ExactValue;
using ref::Rational;

// x * y in f32, rounded to nearest even, IEEE specials; NaN as 0x7fffffff.
uint32_t ref_fmul(const ExactValue& x, const ExactValue& y) {
  const bool xz = x.kind == ExactValue::finite && x.v == 0, yz = y.kind == ExactValue::finite && y.v == 0;
  if (x.kind == ExactValue::nan || y.kind == ExactValue::nan) return 0x7fffffff;
  if ((x.kind == ExactValue::inf && yz) || (y.kind == ExactValue::inf && xz)) return 0x7fffffff;
  const bool neg = x.neg != y.neg;
  if (x.kind == ExactValue::inf || y.kind == ExactValue::inf) return neg ? 0xff800000u : 0x7f800000u;
  return static_cast<uint32_t>(ref::round_to(x.v * y.v, Fmt::f32, Round::rn, neg));
}
ExactValue f32_value(uint32_t bits) { return ref::value_of(Fmt::f32, bits); }
Rational pow2r(int k) {
  Rational r = 1;
  for (int i = 0; i < k; ++i) r *= 2;
  for (int i = 0; i > k; --i) r /= 2;
  return r;
}

TEST(TeDequantize, MxScaleIsTwoToTheCode) {
  for (Fmt elem : {Fmt::e4m3, Fmt::e5m2, Fmt::e2m1})
    for (int s : {0, 1, 2, 100, 127, 128, 200, 254, 255}) {
      // exp2f: 2^(s-127) exactly (2^-127 is the subnormal 0x00400000), NaN for 255.
      const ExactValue mult = s == 255 ? f32_value(0x7fffffff) : ExactValue{ExactValue::finite, false, pow2r(s - 127)};
      for (uint32_t code = 0; code < (1u << info(elem).width); ++code) {
        const uint32_t expect = ref_fmul(ref::value_of(elem, code), mult);
        const uint32_t got = std::bit_cast<uint32_t>(mx_dequantize_element(elem, static_cast<uint8_t>(code),
                                                                          static_cast<uint8_t>(s), MxDequant::te));
        ASSERT_EQ(got, expect) << info(elem).name << " code " << code << " scale " << s;
      }
    }
}

TEST(TeDequantize, MxScaleBitsAreTheF32ExponentInTe218) {
  for (Fmt elem : {Fmt::e4m3, Fmt::e5m2, Fmt::e2m1})
    for (int s : {0, 1, 2, 100, 127, 128, 200, 254, 255}) {
      const ExactValue mult = f32_value(static_cast<uint32_t>(s) << 23);  // 0 -> +0, 255 -> +Inf
      for (uint32_t code = 0; code < (1u << info(elem).width); ++code) {
        const uint32_t expect = ref_fmul(ref::value_of(elem, code), mult);
        const uint32_t got = std::bit_cast<uint32_t>(mx_dequantize_element(elem, static_cast<uint8_t>(code),
                                                                          static_cast<uint8_t>(s), MxDequant::te_2_18));
        ASSERT_EQ(got, expect) << info(elem).name << " code " << code << " scale " << s;
      }
    }
  // Where TE <= v2.18 parted from OCP: scale 0 was +0, 0xFF Inf.
  EXPECT_EQ(std::bit_cast<uint32_t>(mx_dequantize_element(Fmt::e4m3, 0x38, 0x00, MxDequant::ocp)), 0x00400000u);  // 2^-127
  EXPECT_EQ(std::bit_cast<uint32_t>(mx_dequantize_element(Fmt::e4m3, 0x38, 0x00, MxDequant::te)), 0x00400000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(mx_dequantize_element(Fmt::e4m3, 0x38, 0x00, MxDequant::te_2_18)), 0x00000000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(mx_dequantize_element(Fmt::e4m3, 0x38, 0xFF, MxDequant::te_2_18)), 0x7f800000u);
  EXPECT_TRUE(std::isnan(mx_dequantize_element(Fmt::e4m3, 0x38, 0xFF, MxDequant::ocp)));
}

TEST(TeDequantize, Nvfp4KernelFromTheTensorAmax) {
  // factor_inv: 1/2688 rounded to f32 (the double 1/2688 is within one f32 rounding of it).
  const uint32_t factor_inv = static_cast<uint32_t>(ref::round_to(Rational(1, 2688), Fmt::f32, Round::rn));
  const float amaxes[] = {2688.0f, 1.0f, 3.5f, 0.001f, 12345.678f, 3.0e38f};
  const uint8_t sfbs[] = {0x38, 0x01, 0x7e, 0x00, 0x45, 0x7f};  // 1, min subnormal, 448, 0, 3.25, NaN
  Nvfp4Tensor q;
  q.grid = make_grid(1, 16, BlockAxis::rowwise, 16);
  q.order = Nvfp4Order::te;
  for (uint8_t c = 0; c < 16; ++c) q.codes.push_back(c);
  for (float amax : amaxes)
    for (uint8_t sfb : sfbs) {
      q.amax = amax;
      q.scales = {sfb};
      const std::vector<float> d = nvfp4_dequantize(q, Nvfp4Dequant::te_kernel);
      const uint32_t t = ref_fmul(ref::value_of(Fmt::e4m3, sfb), f32_value(std::bit_cast<uint32_t>(amax)));
      const uint32_t final_scale = ref_fmul(f32_value(t), f32_value(factor_inv));
      for (uint8_t c = 0; c < 16; ++c)
        EXPECT_EQ(std::bit_cast<uint32_t>(d[c]), ref_fmul(ref::value_of(Fmt::e2m1, c), f32_value(final_scale)))
            << "amax " << amax << " sfb " << int(sfb) << " code " << int(c);
    }
  q.order = Nvfp4Order::torchao;
  EXPECT_THROW(nvfp4_dequantize(q, Nvfp4Dequant::te_kernel), std::invalid_argument);
}

}  // namespace
}  // namespace tcemu::quant
