// TransformerEngine's NVFP4 variants at d0067d0da6cb01811b8072a7d304f0e00344ce2b: 4over6
// (`transformer_engine/common/cast/nvfp4/quantize_4over6_nvfp4.cuh`: compute_scale_pair,
// cvt_fp32_to_fp4_8x_with_error, accumulate_dequant_error, quantize_stage_rowwise) and
// row-scaled NVFP4 (the same kernels with amax[global_row]; `common/cast/dispatch/quantize.cuh`
// for what goes together). Every step is one f32 operation rounded to nearest, in TE's order.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tcemu/quant_nvfp4.hpp"

namespace tcemu::quant {

std::optional<FourOverSix> parse_four_over_six(std::string_view s) {
  if (s == "off") return FourOverSix::off;
  if (s == "mse" || s == "min-mse") return FourOverSix::min_mse;
  if (s == "mae" || s == "min-mae") return FourOverSix::min_mae;
  return std::nullopt;
}
std::string_view to_string(FourOverSix f) {
  switch (f) {
    case FourOverSix::off: return "off";
    case FourOverSix::min_mse: return "mse";
    case FourOverSix::min_mae: return "mae";
  }
  return "?";
}

namespace {

constexpr float kFltMax = std::numeric_limits<float>::max();
constexpr size_t kGroup = 16;

float fminf_c(float a, float b) {  // fminf: a NaN operand is dropped
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return a < b ? a : b;
}

ConvertOptions sat_rn() {
  ConvertOptions c;
  c.satfinite = true;
  return c;
}
uint8_t to_e4m3(float v) { return static_cast<uint8_t>(convert(Fmt::f32, Fmt::e4m3, f32_bits(v), sat_rn()).code); }
uint8_t to_e2m1(float v) { return static_cast<uint8_t>(convert(Fmt::f32, Fmt::e2m1, f32_bits(v), sat_rn()).code); }

// core::compute_global_encode_scaling_factor_FP4<E4M3_MAX>.
float encode_scale(float amax, int e4m3_max) {
  float g = static_cast<float>(e4m3_max) * 6.0f / amax;
  g = fminf_c(g, kFltMax);
  if (amax == 0.0f || g == 0.0f) return 1.0f;
  return g;
}

// One candidate's codes and error (cvt_fp32_to_fp4_8x_with_error): the exact path
// (accumulate_dequant_error) or TE's fast-math one (Nvfp4TeVariant::err_fast_math).
float block_error(const float* x, uint8_t sfb, float mult, float amax, float s_enc, int e4m3_max, FourOverSix mode,
                  bool fast, uint8_t* q) {
  const float sf = code_to_f32(Fmt::e4m3, sfb);
  const float denom = 6.0f * static_cast<float>(e4m3_max);
  float err = 0.0f;
  for (size_t i = 0; i < kGroup; ++i) {
    q[i] = to_e2m1(x[i] * mult);
    const float e = code_to_f32(Fmt::e2m1, q[i]);
    const float diff = fast ? e * sf - x[i] * s_enc : ((e * sf) * amax) / denom - x[i];
    err = err + (mode == FourOverSix::min_mse ? diff * diff : std::fabs(diff));
  }
  return err;
}

}  // namespace

std::string nvfp4_te_variant_error(size_t n, size_t rows, size_t cols, const Nvfp4TeVariant& v) {
  if (n != rows * cols) return "tensor size does not match its shape";
  if (cols % kGroup != 0) return "TE's NVFP4 variants need cols a multiple of 16";
  if (v.e4m3_max != 448 && v.e4m3_max != 256) return "e4m3_max must be 448 or 256";
  if (v.e4m3_max == 256 && v.four_over_six == FourOverSix::off)
    return "e4m3_max 256 needs 4over6 (TE: non-4over6 NVFP4 quantization requires E4M3 max 448)";
  if (v.row_scaled && v.amax) return "row-scaled NVFP4 takes each row's amax; a tensor amax does not apply";
  if (v.err_fast_math && v.four_over_six == FourOverSix::off) return "err_fast_math is TE's 4over6 error option: it needs 4over6";
  if (v.tile2d && v.row_scaled) return "row-scaled NVFP4 does not support 2D quantization (TE)";
  if (v.tile2d && v.four_over_six == FourOverSix::off)
    return "16x16 blocks without 4over6 are the nvfp4-2d recipe (nvfp4_quantize), not a TE variant";
  if (v.tile2d && rows % kGroup != 0)
    return "4over6 with 16x16 blocks needs rows a multiple of 16 (TE: rows divisible by 16)";
  return "";
}

namespace {

// The two candidate scales of one block (compute_scale_pair: base = block_amax / 6 * S_enc;
// map4 expands it by 1.5) and their element multipliers.
struct ScalePair {
  uint8_t map4, map6;
  float inv4, inv6;
};
ScalePair scale_pair(float block_amax, float s_enc) {
  const float base = block_amax / 6.0f * s_enc;
  ScalePair p{to_e4m3(fminf_c(base * 1.5f, 448.0f)), to_e4m3(fminf_c(base, 448.0f)), 0.0f, 0.0f};
  const float s_dec = 1.0f / s_enc;
  p.inv4 = fminf_c(1.0f / (code_to_f32(Fmt::e4m3, p.map4) * s_dec), kFltMax);
  p.inv6 = fminf_c(1.0f / (code_to_f32(Fmt::e4m3, p.map6) * s_dec), kFltMax);
  return p;
}

float group_amax(const float* x) {
  float m = 0.0f;
  for (size_t i = 0; i < kGroup; ++i) m = std::fmax(m, std::fabs(x[i]));
  return m;
}

// reduce_group_sum_16: lane i adds lane i + offset for offset 8, 4, 2, 1 (in f32); lane 0's sum.
float shuffle_sum16(std::array<float, kGroup> v) {
  for (size_t off = kGroup / 2; off > 0; off /= 2)
    for (size_t i = 0; i < off; ++i) v[i] = v[i] + v[i + off];
  return v[0];
}

}  // namespace

Nvfp4TeVariantTensor nvfp4_te_variant_quantize(std::span<const float> x, size_t rows, size_t cols,
                                               const Nvfp4TeVariant& v) {
  if (const std::string e = nvfp4_te_variant_error(x.size(), rows, cols, v); !e.empty()) throw std::invalid_argument(e);
  Nvfp4TeVariantTensor t;
  t.rows = rows;
  t.cols = cols;
  t.tile2d = v.tile2d;
  const size_t nb = cols / kGroup, block_rows = v.tile2d ? kGroup : 1;
  t.codes.resize(rows * cols);
  t.scales.resize(rows / block_rows * nb);
  t.picked_map4.assign(t.scales.size(), 0);
  auto amax_of = [&](size_t r0, size_t r1) {
    float m = 0.0f;
    for (size_t i = r0 * cols; i < r1 * cols; ++i) m = std::fmax(m, std::fabs(x[i]));
    return m;
  };
  if (v.row_scaled) {
    for (size_t r = 0; r < rows; ++r) t.amax.push_back(amax_of(r, r + 1));
  } else {
    t.amax.push_back(v.amax ? *v.amax : amax_of(0, rows));
  }
  for (float a : t.amax) t.s_enc.push_back(encode_scale(a, v.e4m3_max));
  for (size_t r0 = 0; r0 < rows; r0 += block_rows) {
    const float amax = t.amax[v.row_scaled ? r0 : 0], s_enc = t.s_enc[v.row_scaled ? r0 : 0];
    for (size_t b = 0; b < nb; ++b) {
      auto group = [&](size_t r) { return &x[r * cols + b * kGroup]; };
      auto out = [&](size_t r) { return &t.codes[r * cols + b * kGroup]; };
      float block_amax = 0.0f;
      for (size_t r = r0; r < r0 + block_rows; ++r) block_amax = std::fmax(block_amax, group_amax(group(r)));
      const size_t si = r0 / block_rows * nb + b;
      if (v.four_over_six == FourOverSix::off) {  // 1x16 (nvfp4_te_variant_error)
        const uint8_t sfb = nvfp4_te_block_scale(block_amax, s_enc, Nvfp4Order::te);
        const float mult = nvfp4_te_element_scale(sfb, s_enc, false);
        for (size_t i = 0; i < kGroup; ++i) out(r0)[i] = to_e2m1(group(r0)[i] * mult);
        t.scales[si] = sfb;
        continue;
      }
      const ScalePair p = scale_pair(block_amax, s_enc);
      std::array<float, kGroup> err4{}, err6{};
      std::array<uint8_t, kGroup * kGroup> q4{}, q6{};  // up to 16 rows of one block, no allocation per block
      for (size_t i = 0; i < block_rows; ++i) {
        err4[i] = block_error(group(r0 + i), p.map4, p.inv4, amax, s_enc, v.e4m3_max, v.four_over_six, v.err_fast_math,
                              &q4[i * kGroup]);
        err6[i] = block_error(group(r0 + i), p.map6, p.inv6, amax, s_enc, v.e4m3_max, v.four_over_six, v.err_fast_math,
                              &q6[i * kGroup]);
      }
      const float e4 = v.tile2d ? shuffle_sum16(err4) : err4[0], e6 = v.tile2d ? shuffle_sum16(err6) : err6[0];
      const bool pick4 = e4 < e6;  // a tie keeps map6
      for (size_t i = 0; i < block_rows; ++i)
        std::copy_n(&(pick4 ? q4 : q6)[i * kGroup], kGroup, out(r0 + i));
      t.scales[si] = pick4 ? p.map4 : p.map6;
      t.picked_map4[si] = pick4;
    }
  }
  return t;
}

std::vector<float> nvfp4_te_variant_dequantize(const Nvfp4TeVariantTensor& q) {
  std::vector<float> out(q.codes.size());
  const bool per_row = q.s_enc.size() == q.rows && q.rows > 1;
  for (size_t r = 0; r < q.rows; ++r) {
    const float s_dec = 1.0f / q.s_enc[per_row ? r : 0];
    for (size_t c = 0; c < q.cols; ++c) {
      const float sf = code_to_f32(Fmt::e4m3, q.scales[(q.tile2d ? r / kGroup : r) * (q.cols / kGroup) + c / kGroup]);
      out[r * q.cols + c] = code_to_f32(Fmt::e2m1, q.codes[r * q.cols + c]) * sf * s_dec;
    }
  }
  return out;
}

}  // namespace tcemu::quant
