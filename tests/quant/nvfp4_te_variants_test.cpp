// TransformerEngine's 4over6 and row-scaled NVFP4 at d0067d0 (quant_nvfp4.hpp,
// docs/quantization.md). TE's own tests (tests/cpp/operator/test_cast_nvfp4_transpose.cu)
// compare the kernel with a reference computed at run time and hold no expected values, so
// the values here are worked out by hand from TE's rule ([HAND], each step shown).
#include <gtest/gtest.h>

#include <string>
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

// [HAND] One 16x16 tile (e4m3_max 256): rows 0-3 are [6, 4.5 x 15] (A), rows 4-15 [6, 1 x 15]
// (B). The tile amax is 6 in every row, so S_enc = 256, map6 = 0x78, map4 = 0x7C as above.
// Per row (the tests above): A rows have err_map6 = 15 * 0.5^2 = 3.75 (MAE 7.5) and err_map4 = 0,
// B rows err_map6 = 0 and err_map4 = 15 * 0.25^2 = 0.9375 (MAE 3.75). The 16 row errors are
// summed (all exact here): MSE 4 * 3.75 = 15 vs 12 * 0.9375 = 11.25, map4 wins for the whole
// tile (B rows take 1 * 0.6666667 -> 0.5, code 0x1); MAE 30 vs 45, map6 wins (A rows: 4.5 -> 4,
// code 0x6). One scale for the tile.
TEST(Nvfp4FourOverSix, TwoDimensionalTilesChooseOnTheSummedError) {
  std::vector<float> x;
  for (int r = 0; r < 16; ++r) {
    const auto row = block(6.0f, r < 4 ? 4.5f : 1.0f);
    x.insert(x.end(), row.begin(), row.end());
  }
  Nvfp4TeVariant v = four_over_six(256, FourOverSix::min_mse);
  v.tile2d = true;
  const Nvfp4TeVariantTensor mse = nvfp4_te_variant_quantize(x, 16, 16, v);
  ASSERT_EQ(mse.scales.size(), 1u);
  EXPECT_EQ(mse.scales[0], 0x7C);
  EXPECT_EQ(mse.picked_map4[0], 1);
  EXPECT_EQ(mse.codes[1], 0x5);         // A row under map4: 4.5 * 2/3 = 3
  EXPECT_EQ(mse.codes[5 * 16 + 1], 0x1);  // B row under map4
  v.four_over_six = FourOverSix::min_mae;
  const Nvfp4TeVariantTensor mae = nvfp4_te_variant_quantize(x, 16, 16, v);
  EXPECT_EQ(mae.scales[0], 0x78);
  EXPECT_EQ(mae.codes[1], 0x6);           // A row under map6: 4.5 -> 4
  EXPECT_EQ(mae.codes[5 * 16 + 1], 0x2);  // B row under map6: 1 exactly
  // 1x16 blocks on the same rows choose per row: A rows map4, B rows map6.
  v.tile2d = false;
  const Nvfp4TeVariantTensor rows = nvfp4_te_variant_quantize(x, 16, 16, v);
  EXPECT_EQ(rows.scales[0], 0x7C);
  EXPECT_EQ(rows.scales[5], 0x78);
}

// The same rules through nvfp4_quantize's options (and quant::quantize's presets, below): the
// bits of nvfp4_te_variant_quantize, in Nvfp4Tensor's layout; TE's dequantize kernel with E4M3
// max 256 gives [HAND] (sfb * amax) * f32(1 / 1536) = (384 * 6) * 0x1.555556p-11 = 1.5 (the
// product 1.50000003 rounds to 1.5), so code 0x5 (3) -> 4.5 and 0x6 (4) -> 6.
TEST(Nvfp4FourOverSix, OptionsOfNvfp4QuantizeRunTheVariant) {
  const auto x = block(6.0f, 4.5f);
  Nvfp4Options o;
  o.four_over_six = FourOverSix::min_mae;
  o.e4m3_max = 256;
  const Nvfp4Tensor q = nvfp4_quantize(x, 1, 16, o);
  const Nvfp4TeVariantTensor t = nvfp4_te_variant_quantize(x, 1, 16, four_over_six(256, FourOverSix::min_mae));
  EXPECT_EQ(q.codes, t.codes);
  EXPECT_EQ(q.scales, t.scales);
  EXPECT_EQ(q.global_scale, 256.0f);
  EXPECT_EQ(q.amax, 6.0f);
  EXPECT_EQ(q.e4m3_max, 256);
  const std::vector<float> te = nvfp4_dequantize(q, Nvfp4Dequant::te_kernel);
  EXPECT_EQ(te[0], 6.0f);
  EXPECT_EQ(te[1], 4.5f);
  EXPECT_EQ(nvfp4_dequantize(q), nvfp4_te_variant_dequantize(t));
}

// Row-scaled through the options: each row's S_enc and amax in row_scale / row_amax, and both
// dequantize rules per row ([HAND] from EachRowTakesItsOwnTensorScale: row 1 is twice row 0,
// both rows have block scale 0x7E = 448 and codes 0x7, 0x5). TE's kernel: (448 * amax) *
// f32(1/2688) = 1 (row 0) and 2 (row 1), so 6, 3, 12, 6 exactly; tcemu's order e * sfb * (1 /
// S_enc) with f32(1/448) = 0x1.249250p-9 and f32(1/224) gives 2688 * f32(1/448) = 0x1.800002p+2.
TEST(Nvfp4RowScaled, OptionsOfNvfp4QuantizeKeepEachRowsScale) {
  std::vector<float> x(32, 0.0f);
  x[0] = 6.0f, x[1] = 3.0f, x[16] = 12.0f, x[17] = 6.0f;
  Nvfp4Options o;
  o.row_scaled = true;
  const Nvfp4Tensor q = nvfp4_quantize(x, 2, 16, o);
  EXPECT_EQ(q.row_amax, (std::vector<float>{6.0f, 12.0f}));
  EXPECT_EQ(q.row_scale, (std::vector<float>{448.0f, 224.0f}));
  const std::vector<float> te = nvfp4_dequantize(q, Nvfp4Dequant::te_kernel);
  EXPECT_EQ(te[0], 6.0f);
  EXPECT_EQ(te[1], 3.0f);
  EXPECT_EQ(te[16], 12.0f);
  EXPECT_EQ(te[17], 6.0f);
  const std::vector<float> v = nvfp4_dequantize(q);
  EXPECT_EQ(v[0], 0x1.800002p+2f);
  EXPECT_EQ(v[1], 0x1.800002p+1f);
  EXPECT_EQ(v[16], 0x1.800002p+3f);
  EXPECT_EQ(v[17], 0x1.800002p+2f);
}

TEST(Nvfp4TeVariants, OptionsRefuseWhatTeRefuses) {
  Nvfp4Options o;
  o.four_over_six = FourOverSix::min_mae;
  EXPECT_EQ(nvfp4_quantize_error(16, 1, 16, o, 0), "");
  Nvfp4Options rs = o;
  rs.round = Round::rs;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, rs, 4).find("stochastic rounding"), std::string::npos);
  Nvfp4Options rht = o;
  rht.rht = true;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, rht, 0).find("RHT"), std::string::npos);
  Nvfp4Options torchao = o;
  torchao.order = Nvfp4Order::torchao;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, torchao, 0), "");
  Nvfp4Options plain256;
  plain256.e4m3_max = 256;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, plain256, 0).find("448"), std::string::npos);
  Nvfp4Options row2d;
  row2d.row_scaled = true;
  row2d.tile2d = true;
  EXPECT_NE(nvfp4_quantize_error(256, 16, 16, row2d, 0).find("2D"), std::string::npos);
  Nvfp4Options tile_rows = o;
  tile_rows.tile2d = true;
  EXPECT_NE(nvfp4_quantize_error(8 * 16, 8, 16, tile_rows, 0).find("multiple of 16"), std::string::npos);
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
