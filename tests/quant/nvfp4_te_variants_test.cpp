// TransformerEngine's 4over6 and row-scaled NVFP4 at d0067d0 (quant_nvfp4.hpp,
// docs/quantization.md). TE's own tests (tests/cpp/operator/test_cast_nvfp4_transpose.cu)
// compare the kernel with a reference computed at run time and hold no expected values, so
// the values here are worked out by hand from TE's rule ([HAND], each step shown).
#include <gtest/gtest.h>

#include <vector>

#include "tcemu/quant_nvfp4.hpp"

namespace tcemu::quant {
namespace {

std::vector<float> block(float first, float rest) {
  std::vector<float> v(16, rest);
  v[0] = first;
  return v;
}

Nvfp4TeVariant four_over_six(int e4m3_max, FourOverSix m = FourOverSix::min_mse) {
  Nvfp4TeVariant v;
  v.four_over_six = m;
  v.e4m3_max = e4m3_max;
  return v;
}

// [HAND] e4m3_max 256, x = [6, 4.5 x 15]: S_enc = 1536 / 6 = 256; map6 = e4m3(256) = 0x78,
// map4 = e4m3(384) = 0x7C; multipliers 1 and f32(1/1.5). map6 gives 4.5 -> 4 (0x6), error 15 *
// 0.5^2 = 3.75; map4 gives 4.5 * 0.6666667 = 3 (0x5) and 6 -> 4 (0x6), dequantized ((3 * 384) *
// 6) / 1536 = 4.5 and 6: error 0. map4 wins (for the absolute error too).
TEST(Nvfp4FourOverSix, MapToFourWinsWhenItFitsTheBlock) {
  for (FourOverSix m : {FourOverSix::min_mse, FourOverSix::min_mae}) {
    const auto x = block(6.0f, 4.5f);
    const Nvfp4TeVariantTensor t = nvfp4_te_variant_quantize(x, 1, 16, four_over_six(256, m));
    EXPECT_EQ(t.s_enc.at(0), 256.0f);
    EXPECT_EQ(t.scales.at(0), 0x7C);
    EXPECT_EQ(t.picked_map4.at(0), 1);
    EXPECT_EQ(t.codes[0], 0x6);
    for (size_t i = 1; i < 16; ++i) EXPECT_EQ(t.codes[i], 0x5) << i;
    const std::vector<float> d = nvfp4_te_variant_dequantize(t);
    EXPECT_EQ(d[1], 4.5f);  // 3 * 384 * (1/256)
  }
}

// [HAND] x = [6, 1 x 15], e4m3_max 256: map6 is exact (error 0); map4 takes 1 * 0.6666667 to
// 0.5 (0x1), dequantized 0.75: error 15 * 0.0625. map6 stays: 0x78, codes 0x7 and 0x2.
TEST(Nvfp4FourOverSix, MapToSixWinsWhenTheGridFits) {
  const auto x = block(6.0f, 1.0f);
  const Nvfp4TeVariantTensor t = nvfp4_te_variant_quantize(x, 1, 16, four_over_six(256));
  EXPECT_EQ(t.scales.at(0), 0x78);
  EXPECT_EQ(t.picked_map4.at(0), 0);
  EXPECT_EQ(t.codes[0], 0x7);
  for (size_t i = 1; i < 16; ++i) EXPECT_EQ(t.codes[i], 0x2) << i;
}

// [HAND] e4m3_max 448, x = [6, 4.5 x 15]: S_enc = 448, base = 448: both scales clamp to 448
// (0x7E), the candidates are equal, and a tie keeps map6 (err_map4 < err_map6 is false).
// A block of zeros next to it: both scales 0, multiplier FLT_MAX, codes 0, map6.
TEST(Nvfp4FourOverSix, TiesKeepMapToSix) {
  std::vector<float> x = block(6.0f, 4.5f);
  x.resize(32, 0.0f);
  const Nvfp4TeVariantTensor t = nvfp4_te_variant_quantize(x, 1, 32, four_over_six(448));
  EXPECT_EQ(t.scales.at(0), 0x7E);
  EXPECT_EQ(t.picked_map4.at(0), 0);
  EXPECT_EQ(t.codes[1], 0x6);
  EXPECT_EQ(t.scales.at(1), 0x00);
  EXPECT_EQ(t.picked_map4.at(1), 0);
  for (size_t i = 16; i < 32; ++i) EXPECT_EQ(t.codes[i], 0x0);
}

// [HAND] rows [6, 3, 1.5, 0.5, 0...] and twice that. Row-scaled: S_enc 448 and 224, each
// row's block scale e4m3(6 * (448 * f32(1/6))) = e4m3(448.00003) = 0x7E, the same codes
// 0x7 0x5 0x3 0x1. One tensor scale (amax 12, S_enc 224): row 0's scale is e4m3(224.00002) = 0x76.
TEST(Nvfp4RowScaled, EachRowTakesItsOwnTensorScale) {
  std::vector<float> x(32, 0.0f);
  const float row0[4] = {6.0f, 3.0f, 1.5f, 0.5f};
  for (int i = 0; i < 4; ++i) {
    x[i] = row0[i];
    x[16 + i] = 2 * row0[i];
  }
  Nvfp4TeVariant rs;
  rs.row_scaled = true;
  const Nvfp4TeVariantTensor t = nvfp4_te_variant_quantize(x, 2, 16, rs);
  EXPECT_EQ(t.amax, (std::vector<float>{6.0f, 12.0f}));
  EXPECT_EQ(t.s_enc, (std::vector<float>{448.0f, 224.0f}));
  EXPECT_EQ(t.scales, (std::vector<uint8_t>{0x7E, 0x7E}));
  const uint8_t want[4] = {0x7, 0x5, 0x3, 0x1};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(t.codes[i], want[i]) << i;
    EXPECT_EQ(t.codes[16 + i], want[i]) << i;
  }
  const Nvfp4TeVariantTensor g = nvfp4_te_variant_quantize(x, 2, 16, Nvfp4TeVariant{});
  EXPECT_EQ(g.s_enc, (std::vector<float>{224.0f}));
  EXPECT_EQ(g.scales, (std::vector<uint8_t>{0x76, 0x7E}));
  // Without 4over6 the blocks are TE's order-te blocks: the same as nvfp4_quantize's.
  Nvfp4Options o;
  const Nvfp4Tensor n = nvfp4_quantize(x, 2, 16, o);
  EXPECT_EQ(n.scales, g.scales);
  EXPECT_EQ(n.codes, g.codes);
}

TEST(Nvfp4TeVariants, RejectsWhatTeRejects) {
  EXPECT_NE(nvfp4_te_variant_error(16, 1, 16, Nvfp4TeVariant{FourOverSix::off, false, 256, {}}), "");
  EXPECT_NE(nvfp4_te_variant_error(8, 1, 8, Nvfp4TeVariant{}), "");
  EXPECT_NE(nvfp4_te_variant_error(16, 1, 16, Nvfp4TeVariant{FourOverSix::off, true, 448, 3.0f}), "");
  EXPECT_NE(nvfp4_te_variant_error(16, 1, 16, Nvfp4TeVariant{FourOverSix::min_mse, false, 300, {}}), "");
  EXPECT_EQ(nvfp4_te_variant_error(16, 1, 16, Nvfp4TeVariant{FourOverSix::min_mae, true, 256, {}}), "");
  EXPECT_THROW(nvfp4_te_variant_quantize(std::vector<float>(8), 1, 8, Nvfp4TeVariant{}), std::invalid_argument);
  EXPECT_EQ(parse_four_over_six("mse"), FourOverSix::min_mse);
  EXPECT_EQ(parse_four_over_six("bogus"), std::nullopt);
}

}  // namespace
}  // namespace tcemu::quant
