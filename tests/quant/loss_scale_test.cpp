// Dynamic loss scaling: PyTorch's own GradScaler test case, the update rule of docs/quantization.md,
// unscale arithmetic against exact rounding, Megatron's hysteresis, and the property that
// GradScaler's scale never becomes Inf.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "quant_ref.hpp"
#include "tcemu/loss_scale.hpp"

namespace {

using tcemu::GradScaler;
using tcemu::GradScalerOptions;
using tcemu::MegatronDynamicScaler;
using tcemu::MegatronScalerOptions;
namespace R = qref::R;

// pytorch/pytorch test_cuda.py / test_torch.py test_grad_scaling_update_scale: scale 4,
// growth 2, backoff 0.25, interval 2. No inf: tracker 1, scale 4. No inf: tracker 0, scale 8.
// Inf: tracker 0, scale 2.
TEST(GradScaler, PyTorchUpdateScaleTest) {
  GradScalerOptions o;
  o.init_scale = 4.0f;
  o.growth_factor = 2.0;
  o.backoff_factor = 0.25;
  o.growth_interval = 2;
  GradScaler s(o);
  s.update(false);
  EXPECT_EQ(s.scale(), 4.0f);
  EXPECT_EQ(s.growth_tracker(), 1);
  s.update(false);
  EXPECT_EQ(s.scale(), 8.0f);
  EXPECT_EQ(s.growth_tracker(), 0);
  s.update(true);
  EXPECT_EQ(s.scale(), 2.0f);
  EXPECT_EQ(s.growth_tracker(), 0);
}

TEST(GradScaler, DefaultsAndGrowthThatWouldOverflow) {
  GradScaler d;
  EXPECT_EQ(d.scale(), 65536.0f);  // 2^16
  GradScalerOptions o;
  o.init_scale = 0x1p127f;
  o.growth_interval = 1;
  GradScaler s(o);
  s.update(false);
  EXPECT_EQ(s.scale(), 0x1p127f);  // 2^128 is not finite: unchanged
  EXPECT_EQ(s.growth_tracker(), 0);
}

TEST(GradScaler, BackoffRoundsTheDoubleProductOnce) {
  // scale * backoff is computed in double and stored as float: 3 * 0.1 = 0.3000000000000000166
  // (double), rounded to f32.
  GradScalerOptions o;
  o.init_scale = 3.0f;
  o.backoff_factor = 0.1;
  GradScaler s(o);
  s.update(true);
  R::Real p;
  p.mag = R::cpp_rational(3) * R::to_real(R::exact_value(tcemu::Fmt::f64, std::bit_cast<uint64_t>(0.1))).mag;
  const float twice = qref::from_bits(static_cast<uint32_t>(
      R::convert(tcemu::Fmt::f64, tcemu::Fmt::f32, R::convert_rational(p, tcemu::Fmt::f64, tcemu::ConvertOptions{}).code,
                 tcemu::ConvertOptions{}).code));
  EXPECT_EQ(qref::bits(s.scale()), qref::bits(twice));
}

TEST(GradScaler, UnscaleMultipliesByFloatOfDoubleReciprocal) {
  GradScalerOptions o;
  o.init_scale = 3.0f;
  GradScaler s(o);
  R::Real one;
  one.mag = 1;
  R::Real three;
  three.mag = 3;
  const uint64_t inv64 = R::convert_rational(qref::div(one, three), tcemu::Fmt::f64, tcemu::ConvertOptions{}).code;
  const float inv = qref::from_bits(static_cast<uint32_t>(R::convert(tcemu::Fmt::f64, tcemu::Fmt::f32, inv64, tcemu::ConvertOptions{}).code));
  EXPECT_EQ(qref::bits(s.inv_scale()), qref::bits(inv));
  std::vector<float> g = {1.0f, -7.5f, 0x1p-140f};
  const std::vector<float> orig = g;
  EXPECT_FALSE(s.unscale(g));
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(qref::bits(g[i]), qref::bits(qref::fmul(orig[i], inv)));
  std::vector<float> bad = {1.0f, std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(s.unscale(bad));
  std::vector<uint16_t> h = {0x3C00, 0x7C00};  // f16 1.0, +Inf
  EXPECT_TRUE(s.unscale_codes(h, tcemu::Fmt::f16));
  tcemu::ConvertOptions rn;
  EXPECT_EQ(h[0], R::convert(tcemu::Fmt::f32, tcemu::Fmt::f16, qref::bits(inv), rn).code);
}

// Megatron DynamicGradScaler: hysteresis 2 means the first inf only decrements the tracker.
TEST(Megatron, Hysteresis) {
  MegatronScalerOptions o;
  o.initial_scale = 1024.0f;
  o.growth_interval = 2;
  o.hysteresis = 2;
  o.min_scale = 256.0f;
  MegatronDynamicScaler s(o);
  s.update(true);
  EXPECT_EQ(s.scale(), 1024.0f);
  EXPECT_EQ(s.hysteresis_tracker(), 1);
  s.update(true);
  EXPECT_EQ(s.scale(), 512.0f);
  s.update(true);  // tracker stays <= 0: every further inf backs off
  EXPECT_EQ(s.scale(), 256.0f);
  s.update(true);
  EXPECT_EQ(s.scale(), 256.0f);  // min_scale
  s.update(false);
  s.update(false);  // interval reached: grow, hysteresis reset
  EXPECT_EQ(s.scale(), 512.0f);
  EXPECT_EQ(s.hysteresis_tracker(), 2);
  EXPECT_EQ(s.growth_tracker(), 0);
}

RC_GTEST_PROP(GradScalerProperties, ScaleNeverReachesInf, (const std::vector<bool>& flags)) {
  GradScalerOptions o;
  o.init_scale = *rc::gen::element(1.0f, 65536.0f, 0x1p120f, 0x1p127f);
  o.growth_interval = *rc::gen::inRange(1, 4);
  o.growth_factor = *rc::gen::element(2.0, 3.0, 1e10);
  GradScaler s(o);
  for (bool f : flags) {
    s.update(f);
    RC_ASSERT(std::isfinite(s.scale()));
  }
  for (int i = 0; i < 300; ++i) {
    s.update(false);
    RC_ASSERT(std::isfinite(s.scale()));
  }
}

}  // namespace
