// Per-tensor scale arithmetic around GEMMs (see quant_gemm_scales.hpp).
#include "tcemu/quant_gemm_scales.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quant_tiles.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/quant.hpp"
#include "tcemu/quant_scaling.hpp"

namespace tcemu::quant {

float torchao_amax(std::span<const float> x, const Exec& exec) {
  // Pieces of fixed size, combined in order: the same result for every thread count (a NaN
  // anywhere makes the maximum NaN, whatever the order).
  constexpr size_t kPiece = size_t{1} << 16;
  const size_t pieces = (x.size() + kPiece - 1) / kPiece;
  std::vector<float> part(pieces, 0.0f);
  detail::for_each_range(pieces, exec, [&](size_t b, size_t e) {
    for (size_t p = b; p < e; ++p) {
      float m = 0.0f;
      const size_t end = std::min(x.size(), (p + 1) * kPiece);
      for (size_t i = p * kPiece; i < end; ++i) {
        const float a = std::fabs(x[i]);
        if (std::isnan(a) || std::isnan(m)) m = std::numeric_limits<float>::quiet_NaN();
        else m = std::max(m, a);
      }
      part[p] = m;
    }
  });
  float m = 0.0f;
  for (float p : part) m = (std::isnan(p) || std::isnan(m)) ? std::numeric_limits<float>::quiet_NaN() : std::max(m, p);
  return m;
}

float torchao_fp8_scale(float amax, Fmt f, bool pow2) {
  const double a = static_cast<double>(amax);
  const double clamped = std::isnan(a) ? a : std::max(a, 1e-12);
  float s = static_cast<float>(static_cast<double>(fp8_max(f)) / clamped);
  if (pow2) s = std::exp2(std::floor(std::log2(s)));  // exact for every finite positive f32 s
  return s;
}

std::vector<uint8_t> torchao_fp8_cast(std::span<const float> x, float scale, Fmt f, const Exec& exec) {
  const float mx = fp8_max(f);
  ConvertOptions c;  // c10's cast: RNE, no saturation, NaN keeps its sign
  c.satfinite = false;
  c.nan_out = NanOut::keep_sign;
  std::vector<uint8_t> out(x.size());
  detail::for_each_range(x.size(), exec, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      float y = x[i] * scale;
      if (std::isnan(y)) y = f32_from_bits(0x7FFFFFFFu);
      if (y > mx) y = mx;
      if (y < -mx) y = -mx;
      out[i] = static_cast<uint8_t>(convert(Fmt::f32, f, f32_bits(y), c, 0).code);
    }
  });
  return out;
}

float torchao_fp8_scale_inv(float scale) { return 1.0f / scale; }

TorchaoRows torchao_fp8_quantize_rows(std::span<const float> x, size_t rows, size_t k, Fmt f, bool pow2,
                                      const Exec& exec) {
  TorchaoRows r;
  r.codes.resize(rows * k);
  r.amax.resize(rows);
  r.scale.resize(rows);
  r.scale_inv.resize(rows);
  const Exec one{1};
  parallel_for(rows, exec, [&](size_t i) {
    const std::span<const float> row = x.subspan(i * k, k);
    r.amax[i] = torchao_amax(row, one);
    r.scale[i] = torchao_fp8_scale(r.amax[i], f, pow2);
    r.scale_inv[i] = torchao_fp8_scale_inv(r.scale[i]);
    const std::vector<uint8_t> c = torchao_fp8_cast(row, r.scale[i], f, one);
    std::copy(c.begin(), c.end(), r.codes.begin() + static_cast<std::ptrdiff_t>(i * k));
  });
  return r;
}

float te_nvfp4_gemm_alpha(float alpha_in, float amax_a, float amax_b, float e4m3_max_a, float e4m3_max_b) {
  constexpr float fp4_max = 6.0f;
  const float factor_inv = 1.0f / (fp4_max * fp4_max * e4m3_max_a * e4m3_max_b);
  return alpha_in * amax_a * amax_b * factor_inv;
}

}  // namespace tcemu::quant
