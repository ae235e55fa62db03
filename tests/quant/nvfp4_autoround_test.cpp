// NVFP4 with UE5M3 block scales as intel/auto-round v0.16.1 computes it
// (auto_round/data_type/nvfp.py: nvfp4_v2, nvfp4_v2_with_global_scale, ref_fp4_quant,
// float_to_e5m3_frexp, cast_to_fp4), on values worked by hand from those functions' steps
// (docs/quantization.md, "auto-round's NVFP4 with UE5M3 scales"). The same functions run
// upstream in python/tests/test_autoround_nvfp4.py, on random and edge tensors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tcemu/quant_nvfp4.hpp"
#include "tcemu/quant_recipe.hpp"

namespace {

using namespace tcemu::quant;
using tcemu::Result;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }

void expect_values(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    else EXPECT_EQ(bits(got[i]), bits(want[i])) << what << " element " << i << ": " << got[i] << " want " << want[i];
  }
}

// nvfp4_v2 (no tensor scale), 2 x 20: each row a block of 16 and one of 4 (auto-round pads the
// row to 32 with zeros, which change no amax).
TEST(Nvfp4AutoRound, V2HandWorked) {
  const std::vector<float> x = {
      // row 0, block 0: amax 6; 6 * (float)(1/6) = 1.0f, UE5M3 0x78; elements x / 1 + 0
      6, 3, -1, 0.25f, -0.25f, 0.75f, 5, -0.0f, 0, 1.25f, 1.75f, 2.5f, 3.5f, -5, 4.5f, 0.1f,
      // block 1: amax 7; 7 * (float)(1/6) = 1.1666667f, RNE to 1.125 (0x79)
      7, -7, 1, 0,
      // row 1, block 0: a NaN: amax NaN, scale 0xFF, every value NaN
      0, 0, 0, kNaN, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0,
      // block 1: amax 1e6; 166666.67f clipped to 114688 (0xFE)
      1e6f, 1, -3e5f, 2};
  Nvfp4Options o;
  o.order = Nvfp4Order::autoround_e5m3;
  const Nvfp4Tensor q = nvfp4_quantize(x, 2, 20, o);
  EXPECT_EQ(q.scales, (std::vector<uint8_t>{0x78, 0x79, 0xFF, 0xFE}));
  EXPECT_EQ(q.global_scale, 1.0f);
  // cast_to_fp4 = sign(y) * RNE on the E2M1 grid: 0.25 -> 0 (tie to even), 5 -> 4, 2.5 -> 2,
  // 3.5 -> 4, 4.5 -> 4; a negative y that rounds to 0 gives -0 (sign -1 times 0); x = -0 gives
  // +0 (the "+ v" of ref_fp4_quant, v = 0, turns -0 into +0).
  const std::vector<uint8_t> row0 = {0x7, 0x5, 0xA, 0x0, 0x8, 0x2, 0x6, 0x0, 0x0, 0x2, 0x4, 0x4, 0x6, 0xE, 0x6, 0x0,
                                     0x7, 0xF, 0x2, 0x0};
  EXPECT_EQ(std::vector<uint8_t>(q.codes.begin(), q.codes.begin() + 20), row0);
  // 1e6 / 114688 = 8.7 -> clamp 6; 1 / 114688 -> +0; -3e5 / 114688 = -2.62 -> -3; 2 / 114688 -> +0.
  EXPECT_EQ(std::vector<uint8_t>(q.codes.begin() + 36, q.codes.end()), (std::vector<uint8_t>{0x7, 0x0, 0xD, 0x0}));
  std::vector<float> want = {6, 3, -1, 0, -0.0f, 1, 4, 0, 0, 1, 2, 2, 4, -4, 4, 0, 6.75f, -6.75f, 1.125f, 0};
  for (int i = 0; i < 16; ++i) want.push_back(kNaN);
  for (float v : {688128.0f, 0.0f, -344064.0f, 0.0f}) want.push_back(v);
  expect_values(nvfp4_dequantize(q), want, "v2");
}

// nvfp4_v2_with_global_scale: tensor amax 2^17, gs = 688128 * (1 / 2^17) = 5.25.
TEST(Nvfp4AutoRound, GlobalScaleHandWorked) {
  std::vector<float> x(32, 0.0f);
  x[0] = 131072.0f, x[1] = -65536.0f, x[2] = 1000.0f;  // block 1 all zeros
  Nvfp4Options o;
  o.order = Nvfp4Order::autoround_e5m3_gs;
  const Nvfp4Tensor q = nvfp4_quantize(x, 1, 32, o);
  EXPECT_EQ(q.global_scale, 5.25f);
  EXPECT_EQ(q.amax, 131072.0f);
  // 5.25 * (131072 * (float)(1/6) = 21845.334f) = 114688 (0xFE); a zero block: 0.
  EXPECT_EQ(q.scales, (std::vector<uint8_t>{0xFE, 0x00}));
  // dequant_scale = 114688 * (1 / 5.25f) = 0x1.555556p+14; 131072 / it = 6, -65536 / it = -3,
  // 1000 / it = 0.046 -> 0; values 6 * d = 2^17 and -3 * d = -2^16 (each one f32 rounding).
  std::vector<float> want(32, 0.0f);
  want[0] = 131072.0f, want[1] = -65536.0f;
  expect_values(nvfp4_dequantize(q), want, "gs");

  // A zero tensor: gs = 688128 * get_reciprocal(0) = 0, every scale 0, every value 0.
  const Nvfp4Tensor z = nvfp4_quantize(std::vector<float>(16, 0.0f), 1, 16, o);
  EXPECT_EQ(z.global_scale, 0.0f);
  expect_values(nvfp4_dequantize(z), std::vector<float>(16, 0.0f), "zero");
  // The smallest subnormal as the tensor amax: 1 / amax overflows to Inf, gs = Inf, and
  // Inf * 0 makes every block's scale NaN (auto-round returns NaN there too).
  std::vector<float> tiny(16, 0.0f);
  tiny[0] = 0x1p-149f;
  const Nvfp4Tensor t = nvfp4_quantize(tiny, 1, 16, o);
  EXPECT_EQ(t.scales, std::vector<uint8_t>{0xFF});
  expect_values(nvfp4_dequantize(t), std::vector<float>(16, kNaN), "tiny amax");
}

// group_size 32: one block per 32 elements; the scale of a block is its own amax's.
TEST(Nvfp4AutoRound, Block32) {
  std::vector<float> x(64, 1.0f);
  x[40] = 6.0f;
  Nvfp4Options o;
  o.order = Nvfp4Order::autoround_e5m3;
  o.block = 32;
  const Nvfp4Tensor q = nvfp4_quantize(x, 1, 64, o);
  EXPECT_EQ(q.grid.block_cols, 32u);
  // amax 1: 1 * (float)(1/6) = 0.16666667f -> UE5M3 0.15625 (e 12, m 2: 0x62) or 0.171875 (0x63): the latter.
  EXPECT_EQ(q.scales, (std::vector<uint8_t>{0x63, 0x78}));
}

TEST(Nvfp4AutoRound, Options) {
  Nvfp4Options o;
  o.order = Nvfp4Order::autoround_e5m3;
  EXPECT_EQ(nvfp4_quantize_error(16, 1, 16, o, 0), "");
  o.block = 32;
  EXPECT_EQ(nvfp4_quantize_error(16, 1, 16, o, 0), "");
  o.block = 64;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, o, 0).find("NVFP4 blocks are 16 elements"), std::string::npos);
  o.block = 32;
  o.order = Nvfp4Order::te;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, o, 0).find("32 is auto-round's"), std::string::npos);
  o = {};
  o.order = Nvfp4Order::autoround_e5m3_gs;
  o.tile2d = true;
  EXPECT_NE(nvfp4_quantize_error(256, 16, 16, o, 0).find("no tile2d"), std::string::npos);
  o.tile2d = false;
  o.rht = true;
  EXPECT_NE(nvfp4_quantize_error(16, 1, 16, o, 0).find("no Hadamard"), std::string::npos);
  EXPECT_EQ(nvfp4_scale_fmt(Nvfp4Order::autoround_e5m3), tcemu::Fmt::ue5m3);
  EXPECT_EQ(nvfp4_scale_fmt(Nvfp4Order::torchao), tcemu::Fmt::e4m3);
  EXPECT_FALSE(nvfp4_has_global(Nvfp4Order::autoround_e5m3));
  EXPECT_TRUE(nvfp4_has_global(Nvfp4Order::autoround_e5m3_gs));
  EXPECT_EQ(parse_nvfp4_order("autoround-e5m3-gs"), Nvfp4Order::autoround_e5m3_gs);
  EXPECT_EQ(to_string(Nvfp4Order::autoround_e5m3), "autoround-e5m3");
}

// The presets: UE5M3 scale codes through quant::quantize, and the upstream they name.
TEST(Nvfp4AutoRound, Presets) {
  const Recipe r = *find_recipe("nvfp4-e5m3-autoround");
  EXPECT_EQ(r.nvfp4.order, Nvfp4Order::autoround_e5m3);
  EXPECT_EQ(r.nvfp4.block, 16u);
  const Upstream u = recipe_upstream(r);
  EXPECT_EQ(u.repo, "intel/auto-round");
  EXPECT_EQ(u.ref, "v0.16.1");
  const std::vector<float> x = {7, -7, 1, 0};
  const Result<Quantized> q = quantize(r, x, 1, 4, {});
  ASSERT_TRUE(q.ok()) << q.error;
  EXPECT_EQ(q.value.scale_fmt, tcemu::Fmt::ue5m3);
  EXPECT_EQ(q.value.scale_codes, std::vector<uint8_t>{0x79});
  const Result<std::vector<float>> d = dequantize(r, q.value);
  ASSERT_TRUE(d.ok()) << d.error;
  expect_values(d.value, {6.75f, -6.75f, 1.125f, 0.0f}, "preset");
  EXPECT_EQ(find_recipe("nvfp4-e5m3-autoround-gs")->nvfp4.order, Nvfp4Order::autoround_e5m3_gs);
}

}  // namespace
