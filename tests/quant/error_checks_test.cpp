// The error convention of the quantization recipes and loss scalers (docs/architecture.md,
// "Errors"): quant::quantize / dequantize return a user's error in Result::error; the building
// blocks throw std::invalid_argument only for a precondition whose checking function the header
// names, and that function returns the very message the call throws.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcemu/loss_scale.hpp"
#include "tcemu/quant_recipe.hpp"

namespace {

using namespace tcemu;
using namespace tcemu::quant;

// The message `call` throws, "" when it returns.
std::string thrown(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(ErrorConvention, MxQuantizeErrorIsWhatItThrows) {
  const std::vector<float> x(64, 1.0f);
  std::vector<MxOptions> opts(6);
  opts[0].elem = Fmt::f16;                        // not an MX element
  opts[1].round = Round::ru;                      // not an MX rounding
  opts[2].variant = MxVariant::te_2_12;           // a variant of another scale mode
  opts[3].round = Round::rs;                      // no random words
  opts[4].block = 0;                              // make_grid's precondition
  for (size_t k = 0; k < 5; ++k) {
    const MxOptions& o = opts[k];
    const std::string want = mx_quantize_error(x.size(), 2, 32, o, 0);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(thrown([&] { (void)mx_quantize(x, 2, 32, o); }), want);
  }
  EXPECT_EQ(thrown([&] { (void)mx_quantize(x, 3, 32, MxOptions{}); }), mx_quantize_error(64, 3, 32, MxOptions{}, 0));
  EXPECT_EQ(mx_quantize_error(64, 2, 32, opts[5], 0), "");  // the defaults
}

TEST(ErrorConvention, Nvfp4AndFp8ErrorsAreWhatTheyThrow) {
  const std::vector<float> x(32, 1.0f);
  Nvfp4Options rs;
  rs.round = Round::rs;
  Nvfp4Options rht;
  rht.rht = true;
  for (const Nvfp4Options& o : {rs, rht}) {
    const size_t cols = o.rht ? 8 : 32, rows = o.rht ? 4 : 1;
    const std::string want = nvfp4_quantize_error(x.size(), rows, cols, o, 0);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(thrown([&] { (void)nvfp4_quantize(x, rows, cols, o); }), want);
  }
  EXPECT_EQ(thrown([&] { (void)rht16(x, 4, 8); }), rht16_error(32, 4, 8));
  Nvfp4Tensor t;
  t.order = Nvfp4Order::torchao;
  EXPECT_EQ(thrown([&] { (void)nvfp4_dequantize(t, Nvfp4Dequant::te_kernel); }),
            nvfp4_dequantize_error(t, Nvfp4Dequant::te_kernel));
  EXPECT_EQ(thrown([&] { (void)fp8_blockwise(x, 1, 32, Fmt::f16, false); }),
            fp8_blockwise_error(32, 1, 32, Fmt::f16, Fmt::f32));
  EXPECT_EQ(thrown([&] { (void)fp8_blockwise(x, 1, 32, Fmt::e4m3, false, true, 0.0f, Fmt::e4m3); }),
            fp8_blockwise_error(32, 1, 32, Fmt::e4m3, Fmt::e4m3));
  EXPECT_EQ(thrown([] { (void)fp8_max(Fmt::bf16); }), fp8_format_error(Fmt::bf16));
  DelayedScalingOptions d;
  d.history_len = 0;
  EXPECT_EQ(thrown([&] { DelayedScaling s(d); }), delayed_scaling_options_error(d));
  // A history of 2^40 steps is refused by its length, not by a bad_alloc.
  d.history_len = size_t{1} << 40;
  EXPECT_EQ(delayed_scaling_options_error(d), "amax history length 1099511627776 is above 2^20 (1048576)");
  EXPECT_EQ(thrown([&] { DelayedScaling s(d); }), delayed_scaling_options_error(d));
  d.history_len = size_t{1} << 20;
  EXPECT_EQ(delayed_scaling_options_error(d), "");
  // An MX block beyond 2^20 (once a wrapped ceiling division: SIGFPE, or a wild index).
  MxOptions mo;
  mo.block = ~size_t{0};
  EXPECT_EQ(thrown([&] { (void)mx_quantize(x, 1, 32, mo); }), "block size 18446744073709551615 is above 2^20 (1048576)");
}

TEST(ErrorConvention, RecipesReturnTheMessage) {
  const std::vector<float> x(64, 1.0f);
  for (const RecipePreset& p : recipe_presets()) {
    const Recipe r = *find_recipe(p.name);
    const Result<Quantized> bad = quantize(r, x, 3, 32);  // 64 values, shape 3x32
    EXPECT_EQ(bad.error, quantize_error(r, 64, 3, 32, 0)) << p.name;
    EXPECT_FALSE(bad.error.empty()) << p.name;
    EXPECT_TRUE(bad.value.codes.empty()) << p.name;
    const Result<Quantized> good = quantize(r, x, 2, 32, std::vector<uint32_t>(random_words_needed(r, 64), 7u));
    ASSERT_TRUE(good.ok()) << p.name << ": " << good.error;
    EXPECT_TRUE(dequantize(r, good.value).ok()) << p.name;
    Quantized cut = good.value;
    cut.codes.pop_back();
    EXPECT_EQ(dequantize(r, cut).error, "element codes do not match the shape") << p.name;
  }
}

TEST(ErrorConvention, LossScalerErrorsAreWhatTheyThrow) {
  GradScalerOptions g;
  g.growth_factor = 1.0;
  EXPECT_EQ(thrown([&] { GradScaler s(g); }), grad_scaler_options_error(g));
  EXPECT_FALSE(grad_scaler_options_error(g).empty());
  MegatronScalerOptions m;
  m.hysteresis = 0;
  EXPECT_EQ(thrown([&] { MegatronDynamicScaler s(m); }), megatron_scaler_options_error(m));
  EXPECT_FALSE(megatron_scaler_options_error(m).empty());
  std::vector<uint16_t> codes(4, 0x3C00);
  EXPECT_EQ(thrown([&] { (void)GradScaler{}.unscale_codes(codes, Fmt::f32); }), GradScaler::unscale_codes_error(Fmt::f32));
  EXPECT_EQ(GradScaler::unscale_codes_error(Fmt::bf16), "");
}

// Hostile scales (issue 32): a NaN, infinite, zero or negative starting scale is refused with
// the message that names it; a negative NVFP4 global amax too (NaN and Inf stay: a tensor can
// have them, and the implementations' NaN policies apply).
TEST(ErrorConvention, NanAndNonPositiveScalesAreRefused) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 0.0f, -1.0f}) {
    GradScalerOptions g;
    g.init_scale = bad;
    EXPECT_EQ(grad_scaler_options_error(g), "initial scale must be a positive finite number") << bad;
    EXPECT_EQ(thrown([&] { GradScaler s(g); }), grad_scaler_options_error(g)) << bad;
  }
  GradScalerOptions fine;
  fine.init_scale = 0x1p-149f;  // the smallest positive float
  EXPECT_EQ(grad_scaler_options_error(fine), "");
  const std::vector<float> x(32, 1.0f);
  Nvfp4Options o;
  o.global_amax = -1.0f;
  EXPECT_EQ(nvfp4_quantize_error(32, 1, 32, o, 0), "global_amax is a magnitude: it cannot be negative");
  EXPECT_EQ(thrown([&] { (void)nvfp4_quantize(x, 1, 32, o); }), nvfp4_quantize_error(32, 1, 32, o, 0));
  for (float ok : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -0.0f}) {
    o.global_amax = ok;
    EXPECT_EQ(nvfp4_quantize_error(32, 1, 32, o, 0), "") << ok;
  }
}

}  // namespace
