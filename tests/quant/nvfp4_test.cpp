// NVFP4 against an exact-arithmetic re-derivation of TransformerEngine's and torchao's
// arithmetic order (docs/quantization.md), the RHT against an exact rational
// sum, and stochastic rounding's two ends (all-zero random bits = rz, all-ones = up when inexact).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "quant_ref.hpp"
#include "tcemu/quant_nvfp4.hpp"

namespace {

using namespace tcemu::quant;
using qref::R::cpp_rational;
using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;
namespace R = qref::R;

constexpr float kFltMax = std::numeric_limits<float>::max();
R::Real num(int n) { R::Real r; r.sign = n < 0; r.mag = n < 0 ? -n : n; return r; }
float code_f32(Fmt f, uint64_t c) { return qref::rn32(qref::real_of(f, c)); }

int e4m3_sat(float v) {
  ConvertOptions c;
  c.satfinite = true;
  return static_cast<int>(R::convert(Fmt::f32, Fmt::e4m3, qref::bits(v), c).code);
}
int e4m3_torch(float v) {
  ConvertOptions c;
  c.nan_out = tcemu::NanOut::keep_sign;
  return static_cast<int>(R::convert(Fmt::f32, Fmt::e4m3, qref::bits(v), c).code);
}
int e2m1(float v, Round r = Round::rn, uint32_t rb = 0) {
  ConvertOptions c;
  c.satfinite = true;
  c.round = r;
  return static_cast<int>(R::convert(Fmt::f32, Fmt::e2m1, qref::bits(v), c, rb).code);
}
float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

std::vector<float> random_tensor(std::mt19937& g, size_t n) {
  std::uniform_int_distribution<int> kind(0, 9), exp(-12, 12), man(0, 255), sh(0, 10);
  std::vector<float> x(n);
  for (auto& v : x) {
    const int k = kind(g);
    if (k == 0) { v = 0.0f; continue; }
    v = std::ldexp(1.0f + man(g) / 256.0f, exp(g) / 3 - sh(g));
    if (k & 1) v = -v;
  }
  return x;
}

struct Expect {
  std::vector<int> scales, codes;
  std::vector<float> deq;
  float global = 1.0f;
};

Expect reference(const std::vector<float>& x, size_t rows, size_t cols, const Nvfp4Options& o, Round r = Round::rn,
                 uint32_t rb = 0) {
  const BlockGrid g = make_grid(rows, cols, o.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, 16);
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  std::vector<float> bamax(g.scale_count(), 0.0f);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) {
      float& a = bamax[(i / g.block_rows) * g.scale_cols() + j / g.block_cols];
      a = std::max(a, std::fabs(x[i * cols + j]));
    }
  Expect e;
  std::vector<float> mul(bamax.size()), div(bamax.size());
  const bool te = o.order == Nvfp4Order::te || o.order == Nvfp4Order::te_div6;
  if (te) {
    e.global = amax == 0 ? 1.0f : qref::fdiv(2688.0f, amax);
    const float rcp6 = qref::rn32(qref::div(num(1), num(6)));
    const float s_dec = qref::rn32(qref::div(num(1), qref::real(e.global)));
    for (size_t b = 0; b < bamax.size(); ++b) {
      const float d = o.order == Nvfp4Order::te ? qref::fmul(bamax[b], qref::fmul(e.global, rcp6))
                                                : qref::fmul(qref::fdiv(bamax[b], 6.0f), e.global);
      e.scales.push_back(e4m3_sat(d));
      const float sfb = code_f32(Fmt::e4m3, e.scales[b]);
      if (o.fast_math) {
        const float q = sfb == 0 ? kFltMax : std::min(qref::fdiv(e.global, sfb), 0x1.FEp127f);
        mul[b] = code_f32(Fmt::bf16, R::convert(Fmt::f32, Fmt::bf16, qref::bits(q), ConvertOptions{}).code);
      } else {
        const float p = qref::fmul(sfb, s_dec);
        mul[b] = p == 0 ? kFltMax : std::min(qref::fdiv(1.0f, p), kFltMax);
      }
    }
  } else {
    e.global = o.order == Nvfp4Order::torchao ? qref::fdiv(amax, 2688.0f) : 1.0f;
    for (size_t b = 0; b < bamax.size(); ++b) {
      float s = qref::fdiv(bamax[b], 6.0f);
      if (o.order == Nvfp4Order::torchao) s = qref::fdiv(s, e.global);
      e.scales.push_back(e4m3_torch(clampf(s, 0x1p-6f, 448.0f)));
      const float sfb = code_f32(Fmt::e4m3, e.scales[b]);
      div[b] = o.order == Nvfp4Order::torchao ? qref::fmul(e.global, sfb) : sfb;
    }
  }
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) {
      const size_t b = (i / g.block_rows) * g.scale_cols() + j / g.block_cols;
      const float v = x[i * cols + j];
      const float y = te ? qref::fmul(v, mul[b]) : clampf(qref::fdiv(v, div[b]), -6.0f, 6.0f);
      e.codes.push_back(e2m1(y, r, rb));
      const float el = code_f32(Fmt::e2m1, e.codes.back());
      const float sfb = code_f32(Fmt::e4m3, e.scales[b]);
      e.deq.push_back(te ? qref::fmul(qref::fmul(el, sfb), qref::fdiv(1.0f, e.global)) : qref::fmul(el, qref::fmul(e.global, sfb)));
    }
  return e;
}

void compare(const Nvfp4Tensor& q, const Expect& e, const char* what) {
  EXPECT_EQ(qref::bits(q.global_scale), qref::bits(e.global)) << what;
  ASSERT_EQ(q.scales.size(), e.scales.size());
  int bad = 0;
  for (size_t b = 0; b < e.scales.size() && bad < 5; ++b)
    if (int(q.scales[b]) != e.scales[b]) { ADD_FAILURE() << what << " scale " << b; ++bad; }
  for (size_t i = 0; i < e.codes.size() && bad < 5; ++i)
    if (int(q.codes[i]) != e.codes[i]) { ADD_FAILURE() << what << " code " << i << ": " << int(q.codes[i]) << " vs " << e.codes[i]; ++bad; }
  const auto d = nvfp4_dequantize(q);
  for (size_t i = 0; i < e.deq.size() && bad < 5; ++i)
    if (qref::bits(d[i]) != qref::bits(e.deq[i])) { ADD_FAILURE() << what << " dequantized " << i; ++bad; }
}

TEST(Nvfp4, EveryOrder1dAnd2dFastMathOrNot) {
  std::mt19937 g(5);
  for (Nvfp4Order ord : {Nvfp4Order::te, Nvfp4Order::te_div6, Nvfp4Order::torchao, Nvfp4Order::torchao_single})
    for (bool tile : {false, true})
      for (bool fast : {false, true}) {
        Nvfp4Options o;
        o.order = ord;
        o.tile2d = tile;
        o.fast_math = fast;
        const size_t rows = 20, cols = 48;
        auto x = random_tensor(g, rows * cols);
        for (size_t j = 0; j < 16; ++j) x[j] = 0.0f;  // a zero block
        compare(nvfp4_quantize(x, rows, cols, o), reference(x, rows, cols, o), to_string(ord).data());
      }
}

TEST(Nvfp4, TeGlobalScaleEdges) {
  // docs/quantization.md: S_enc = 2688 / amax, FLT_MAX cap, amax 0 gives 1.
  EXPECT_EQ(nvfp4_te_encode_scale(0.0f), 1.0f);
  EXPECT_EQ(nvfp4_te_encode_scale(2688.0f), 1.0f);
  EXPECT_EQ(nvfp4_te_encode_scale(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(nvfp4_te_encode_scale(0x1p-149f), kFltMax);
}

TEST(Nvfp4, StochasticRoundingEnds) {
  std::mt19937 g(8);
  const size_t rows = 4, cols = 32;
  const auto x = random_tensor(g, rows * cols);
  Nvfp4Options o;
  o.round = Round::rs;
  std::vector<uint32_t> zeros(rows * cols / 4, 0u), ones(rows * cols / 4, 0xFFFFFFFFu);
  compare(nvfp4_quantize(x, rows, cols, o, zeros), reference(x, rows, cols, o, Round::rs, 0), "rs zeros");
  compare(nvfp4_quantize(x, rows, cols, o, ones), reference(x, rows, cols, o, Round::rs, 0xFF), "rs ones");
}

TEST(Nvfp4, RejectsBadInput) {
  Nvfp4Options o;
  o.round = Round::rs;
  std::vector<float> x(32, 1.0f);
  EXPECT_THROW(nvfp4_quantize(x, 1, 32, o), std::invalid_argument);  // no random bits
  EXPECT_THROW(rht16(x, 1, 8), std::invalid_argument);               // not a multiple of 16... (shape mismatch too)
}

// y_j = sum_i x_i s_i (-1)^popcount(i&j) / 4, exact, rounded once.
TEST(Rht16, MatchesExactSumRoundedOnce) {
  std::mt19937 g(11);
  std::uniform_int_distribution<int> man(0, (1 << 23) - 1), ex(-30, 30);
  const int signs[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};  // docs/quantization.md
  for (RhtOut out : {RhtOut::bf16, RhtOut::f32}) {
    std::vector<float> x(4 * 32);
    for (auto& v : x) v = std::ldexp(1.0f + man(g) / 8388608.0f, ex(g)) * (man(g) & 1 ? -1.0f : 1.0f);
    const auto y = rht16(x, 4, 32, kTeRhtSignMask, out);
    for (size_t r = 0; r < 4; ++r)
      for (size_t grp = 0; grp < 32; grp += 16)
        for (int j = 0; j < 16; ++j) {
          cpp_rational sum = 0;
          for (int i = 0; i < 16; ++i) {
            const R::Real xi = qref::real(x[r * 32 + grp + static_cast<size_t>(i)]);
            const int sgn = signs[i] * ((std::popcount(static_cast<unsigned>(i & j)) & 1) ? -1 : 1);
            sum += (xi.sign ? -xi.mag : xi.mag) * sgn / 4;
          }
          const Fmt to = out == RhtOut::bf16 ? Fmt::bf16 : Fmt::f32;
          const uint64_t code = R::convert_rational(sum, to, ConvertOptions{}).code;
          EXPECT_EQ(qref::bits(y[r * 32 + grp + static_cast<size_t>(j)]), qref::bits(code_f32(to, code)));
        }
  }
}

TEST(Rht16, UnitVectorsGiveSignedQuarterRows) {
  const int signs[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  for (int i = 0; i < 16; ++i) {
    std::vector<float> x(16, 0.0f);
    x[i] = 1.0f;
    const auto y = rht16(x, 1, 16);
    for (int j = 0; j < 16; ++j) {
      const int h = (std::popcount(static_cast<unsigned>(i & j)) & 1) ? -1 : 1;
      EXPECT_EQ(y[j], 0.25f * signs[i] * h) << i << "," << j;
    }
  }
}

}  // namespace

namespace {

// The rht option quantizes the transformed tensor: expected = TE's order applied to the exact
// RHT sums rounded once to bf16.
TEST(Nvfp4, RhtThenTeOrder) {
  std::mt19937 g(21);
  const size_t rows = 3, cols = 32;
  const auto x = random_tensor(g, rows * cols);
  const int signs[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  std::vector<float> t(x.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t grp = 0; grp < cols; grp += 16)
      for (int j = 0; j < 16; ++j) {
        cpp_rational sum = 0;
        for (int i = 0; i < 16; ++i) {
          const R::Real xi = qref::real(x[r * cols + grp + static_cast<size_t>(i)]);
          const int sgn = signs[i] * ((std::popcount(static_cast<unsigned>(i & j)) & 1) ? -1 : 1);
          sum += (xi.sign ? -xi.mag : xi.mag) * sgn / 4;
        }
        t[r * cols + grp + static_cast<size_t>(j)] = code_f32(Fmt::bf16, R::convert_rational(sum, Fmt::bf16, ConvertOptions{}).code);
      }
  Nvfp4Options o;
  o.rht = true;
  Nvfp4Options plain;
  compare(nvfp4_quantize(x, rows, cols, o), reference(t, rows, cols, plain), "rht");
}

}  // namespace
