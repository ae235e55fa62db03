// Per-tensor and blockwise FP8 scaling against exact arithmetic and docs/quantization.md /
// TransformerEngine's documented rules (docs/quantization.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "quant_ref.hpp"
#include "tcemu/quant_scaling.hpp"

namespace {

using namespace tcemu::quant;
using tcemu::ConvertOptions;
using tcemu::Fmt;
namespace R = qref::R;

int fp8_ref(float x, float scale, Fmt f) {
  ConvertOptions c;
  c.satfinite = true;
  return static_cast<int>(R::convert(Fmt::f32, f, qref::bits(qref::fmul(x, scale)), c).code);
}

std::vector<float> random_tensor(std::mt19937& g, size_t n, int spread) {
  std::uniform_int_distribution<int> man(0, (1 << 23) - 1), ex(-spread, spread);
  std::vector<float> x(n);
  for (auto& v : x) v = std::ldexp(1.0f + man(g) / 8388608.0f, ex(g)) * (man(g) & 1 ? -1.0f : 1.0f);
  return x;
}

TEST(CurrentScaling, ScaleIsMaxOverAmaxRoundedOnce) {
  std::mt19937 g(3);
  for (Fmt f : {Fmt::e4m3, Fmt::e5m2})
    for (bool pow2 : {false, true}) {
      const auto x = random_tensor(g, 300, 20);
      const PerTensorFp8 q = fp8_current_scaling(x, f, pow2);
      float amax = 0;
      for (float v : x) amax = std::max(amax, std::fabs(v));
      const float maxf = f == Fmt::e4m3 ? 448.0f : 57344.0f;
      float s = qref::fdiv(maxf, amax);
      if (pow2) s = qref::rn32(qref::real_pow2(qref::floor_log2(qref::real(s).mag)));  // the power of two at or below
      EXPECT_EQ(qref::bits(q.scale), qref::bits(s));
      EXPECT_EQ(qref::bits(q.scale_inv), qref::bits(qref::fdiv(1.0f, s)));
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(int(q.codes[i]), fp8_ref(x[i], s, f)) << i;
    }
}

TEST(CurrentScaling, EdgeAmaxes) {
  EXPECT_EQ(te_scale_from_amax(0.0f, 448.0f, false), 1.0f);
  EXPECT_EQ(te_scale_from_amax(std::numeric_limits<float>::infinity(), 448.0f, false), 1.0f);
  EXPECT_EQ(te_scale_from_amax(0x1p-149f, 448.0f, false), std::numeric_limits<float>::max());  // Inf quotient
  EXPECT_EQ(te_scale_from_amax(0x1p-149f, 448.0f, true), 0x1p127f);  // FLT_MAX's power of two
  EXPECT_EQ(te_scale_from_amax(1.0f, 448.0f, true), 256.0f);
  EXPECT_EQ(te_scale_from_amax(0.5f, 448.0f, false, 1.0f), 448.0f);  // epsilon floor
}

TEST(Blockwise, OneBy128And128By128) {
  std::mt19937 g(4);
  for (bool tile : {false, true}) {
    const size_t rows = tile ? 130 : 3, cols = 200;  // partial blocks
    const auto x = random_tensor(g, rows * cols, 10);
    const BlockwiseFp8 q = fp8_blockwise(x, rows, cols, Fmt::e4m3, tile);
    const BlockGrid gr = make_grid(rows, cols, tile ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
    std::vector<float> amax(gr.scale_count(), 0.0f);
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) {
        float& a = amax[(r / gr.block_rows) * gr.scale_cols() + c / gr.block_cols];
        a = std::max(a, std::fabs(x[r * cols + c]));
      }
    std::vector<float> scale(amax.size());
    for (size_t b = 0; b < amax.size(); ++b) {
      scale[b] = qref::rn32(qref::real_pow2(qref::floor_log2(qref::real(qref::fdiv(448.0f, amax[b])).mag)));
      EXPECT_EQ(qref::bits(q.scale_inv[b]), qref::bits(qref::fdiv(1.0f, scale[b])));
    }
    const auto d = fp8_blockwise_dequantize(q);
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) {
        const size_t i = r * cols + c, b = (r / gr.block_rows) * gr.scale_cols() + c / gr.block_cols;
        ASSERT_EQ(int(q.codes[i]), fp8_ref(x[i], scale[b], Fmt::e4m3)) << i;
        ASSERT_EQ(qref::bits(d[i]), qref::bits(qref::fmul(qref::rn32(qref::real_of(Fmt::e4m3, q.codes[i])), q.scale_inv[b])));
      }
  }
}

// Delayed scaling, worked by hand from docs/quantization.md / TE's amax-history rule: step t uses the
// scale from step t-1; history of 2, "max": amaxes 1, 2, 0.5, 0 give scales 1 (initial),
// 448/1, 448/2, 448/2 (history {0.5, 2}), then 448/0.5 (history {0, 0.5}).
TEST(DelayedScaling, HistoryMaxAndMostRecent) {
  DelayedScalingOptions o;
  o.history_len = 2;
  o.recipe = Fp8Recipe::e4m3;
  DelayedScaling d(o);
  const float amaxes[] = {1.0f, 2.0f, 0.5f, 0.0f};
  const float used[] = {1.0f, 448.0f, 224.0f, 224.0f};
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(d.scale(), used[t]) << "step " << t;
    d.record_amax(amaxes[t]);
    d.update();
  }
  EXPECT_EQ(d.scale(), 896.0f);
  o.algo = AmaxAlgo::most_recent;
  DelayedScaling m(o);
  const float used_recent[] = {1.0f, 448.0f, 224.0f, 896.0f};
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(m.scale(), used_recent[t]) << "step " << t;
    m.record_amax(amaxes[t]);
    m.update();
  }
  EXPECT_EQ(m.scale(), 896.0f);  // amax 0 keeps the previous scale
}

TEST(DelayedScaling, MarginHybridAndNonFinite) {
  DelayedScalingOptions o;
  o.margin = 2;
  o.history_len = 4;
  DelayedScaling fwd(o), bwd(o, true);
  EXPECT_EQ(fwd.format(), Fmt::e4m3);  // HYBRID: e4m3 forward
  EXPECT_EQ(bwd.format(), Fmt::e5m2);  // e5m2 backward
  bwd.record_amax(1.0f);
  bwd.update();
  EXPECT_EQ(bwd.scale(), 57344.0f / 4);
  bwd.record_amax(std::numeric_limits<float>::infinity());
  bwd.update();
  EXPECT_EQ(bwd.scale(), 57344.0f / 4);  // kept when amax is not finite
  DelayedScaling tiny(o);
  tiny.record_amax(0x1p-149f);
  tiny.update();
  EXPECT_EQ(tiny.scale(), std::numeric_limits<float>::max());  // Inf becomes FLT_MAX
  // quantize() casts with the current scale and records this tensor's amax.
  const std::vector<float> x = {1.0f, -3.0f};
  DelayedScaling q(o);
  const auto codes = q.quantize(x);
  EXPECT_EQ(q.history()[0], 3.0f);
  EXPECT_EQ(int(codes[1]), fp8_ref(-3.0f, 1.0f, Fmt::e4m3));
}

}  // namespace
