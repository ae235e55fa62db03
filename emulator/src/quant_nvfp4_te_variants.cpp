// TransformerEngine's NVFP4 variants at d0067d0da6cb01811b8072a7d304f0e00344ce2b: 4over6
// (`transformer_engine/common/cast/nvfp4/quantize_4over6_nvfp4.cuh`: compute_scale_pair,
// cvt_fp32_to_fp4_8x_with_error, accumulate_dequant_error, quantize_stage_rowwise) and
// row-scaled NVFP4 (the same kernels with amax[global_row]; `common/cast/dispatch/quantize.cuh`
// for what goes together). Every step is one f32 operation rounded to nearest, in TE's order.
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

float block_error(const float* x, uint8_t sfb, float mult, float amax, int e4m3_max, FourOverSix mode, uint8_t* q) {
  const float sf = code_to_f32(Fmt::e4m3, sfb);
  const float denom = 6.0f * static_cast<float>(e4m3_max);
  float err = 0.0f;
  for (size_t i = 0; i < kGroup; ++i) {
    q[i] = to_e2m1(x[i] * mult);
    const float val = ((code_to_f32(Fmt::e2m1, q[i]) * sf) * amax) / denom;
    const float diff = val - x[i];
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
  return "";
}

Nvfp4TeVariantTensor nvfp4_te_variant_quantize(std::span<const float> x, size_t rows, size_t cols,
                                               const Nvfp4TeVariant& v) {
  if (const std::string e = nvfp4_te_variant_error(x.size(), rows, cols, v); !e.empty()) throw std::invalid_argument(e);
  Nvfp4TeVariantTensor t;
  t.rows = rows;
  t.cols = cols;
  t.codes.resize(rows * cols);
  t.scales.resize(rows * (cols / kGroup));
  t.picked_map4.assign(rows * (cols / kGroup), 0);
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
  for (size_t r = 0; r < rows; ++r) {
    const float amax = t.amax[v.row_scaled ? r : 0], s_enc = t.s_enc[v.row_scaled ? r : 0];
    for (size_t b = 0; b < cols / kGroup; ++b) {
      const float* xb = &x[r * cols + b * kGroup];
      uint8_t* qb = &t.codes[r * cols + b * kGroup];
      float block_amax = 0.0f;
      for (size_t i = 0; i < kGroup; ++i) block_amax = std::fmax(block_amax, std::fabs(xb[i]));
      const size_t si = r * (cols / kGroup) + b;
      if (v.four_over_six == FourOverSix::off) {
        const uint8_t sfb = nvfp4_te_block_scale(block_amax, s_enc, Nvfp4Order::te);
        const float mult = nvfp4_te_element_scale(sfb, s_enc, false);
        for (size_t i = 0; i < kGroup; ++i) qb[i] = to_e2m1(xb[i] * mult);
        t.scales[si] = sfb;
        continue;
      }
      // compute_scale_pair: base = block_amax / 6 * S_enc; map4 expands it by 1.5.
      const float base = block_amax / 6.0f * s_enc;
      const uint8_t map4 = to_e4m3(fminf_c(base * 1.5f, 448.0f)), map6 = to_e4m3(fminf_c(base, 448.0f));
      const float s_dec = 1.0f / s_enc;
      const float inv4 = fminf_c(1.0f / (code_to_f32(Fmt::e4m3, map4) * s_dec), kFltMax);
      const float inv6 = fminf_c(1.0f / (code_to_f32(Fmt::e4m3, map6) * s_dec), kFltMax);
      uint8_t q4[kGroup], q6[kGroup];
      const float err4 = block_error(xb, map4, inv4, amax, v.e4m3_max, v.four_over_six, q4);
      const float err6 = block_error(xb, map6, inv6, amax, v.e4m3_max, v.four_over_six, q6);
      const bool pick4 = err4 < err6;  // a tie keeps map6
      for (size_t i = 0; i < kGroup; ++i) qb[i] = pick4 ? q4[i] : q6[i];
      t.scales[si] = pick4 ? map4 : map6;
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
      const float sf = code_to_f32(Fmt::e4m3, q.scales[r * (q.cols / kGroup) + c / kGroup]);
      out[r * q.cols + c] = code_to_f32(Fmt::e2m1, q.codes[r * q.cols + c]) * sf * s_dec;
    }
  }
  return out;
}

}  // namespace tcemu::quant
