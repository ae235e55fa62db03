// Per-tensor and blockwise FP8 scaling (see quant_scaling.hpp, docs/quantization.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "quant_fast.hpp"
#include "quant_tiles.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/quant.hpp"
#include "tcemu/quant_scaling.hpp"

namespace tcemu::quant {

namespace {
// a * b in f32 as the GPU's FMUL gives it: a NaN result is the canonical 0x7FFFFFFF (the host's
// multiply would propagate one operand's payload, which one depending on the compiler).
float gpu_product(float a, float b) {
  const float p = a * b;
  return std::isnan(p) ? f32_from_bits(0x7FFFFFFFu) : p;
}
}  // namespace

std::string fp8_format_error(Fmt f) {
  if (f == Fmt::e4m3 || f == Fmt::e5m2) return {};
  return "FP8 scaling needs e4m3 or e5m2, not " + std::string(info(f).name);
}

float fp8_max(Fmt f) {
  if (f == Fmt::e4m3) return 448.0f;
  if (f == Fmt::e5m2) return 57344.0f;
  throw std::invalid_argument(fp8_format_error(f));
}

float te_scale_from_amax(float amax, float max_fp8, bool pow2, float epsilon, float value_for_inf) {
  if (amax < epsilon) amax = epsilon;
  if (std::isinf(amax) || amax == 0.0f || std::isnan(amax)) return 1.0f;
  float scale = max_fp8 / amax;  // __fdiv_rn
  if (std::isinf(scale)) scale = value_for_inf;
  if (pow2) scale = f32_from_bits(f32_bits(scale) & 0xFF800000u);  // keep sign and exponent
  return scale;
}

uint8_t fp8_cast(float x, float scale, Fmt f) {
  ConvertOptions c;
  c.satfinite = true;  // cvt.rn.satfinite: the only FP8 cvt
  return static_cast<uint8_t>(convert(Fmt::f32, f, f32_bits(x * scale), c).code);
}

std::vector<uint8_t> fp8_cast(std::span<const float> x, float scale, Fmt f) { return fp8_cast(x, scale, f, Exec{}); }

std::vector<uint8_t> fp8_cast(std::span<const float> x, float scale, Fmt f, const Exec& exec) {
  (void)fp8_max(f);
  if (detail::fast_quant_enabled()) return detail::fp8_cast_fast(x, scale, f, exec);  // the same bits
  std::vector<uint8_t> out(x.size());
  detail::for_each_range(x.size(), exec, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = fp8_cast(x[i], scale, f);
  });
  return out;
}

std::vector<float> fp8_dequantize(std::span<const uint8_t> codes, float scale_inv, Fmt f) {
  return fp8_dequantize(codes, scale_inv, f, Exec{});
}

std::vector<float> fp8_dequantize(std::span<const uint8_t> codes, float scale_inv, Fmt f, const Exec& exec) {
  if (detail::fast_quant_enabled() && fp8_format_error(f).empty()) return detail::fp8_dequantize_fast(codes, scale_inv, f, exec);
  std::vector<float> out(codes.size());
  detail::for_each_range(codes.size(), exec, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = gpu_product(code_to_f32(f, codes[i]), scale_inv);
  });
  return out;
}

PerTensorFp8 fp8_current_scaling(std::span<const float> x, Fmt f, bool pow2, float epsilon) {
  return fp8_current_scaling(x, f, pow2, epsilon, Exec{});
}

PerTensorFp8 fp8_current_scaling(std::span<const float> x, Fmt f, bool pow2, float epsilon, const Exec& exec) {
  PerTensorFp8 r;
  r.fmt = f;
  r.amax = mx_amax(x, AmaxNan::ignore, exec);
  r.scale = te_scale_from_amax(r.amax, fp8_max(f), pow2, epsilon);
  r.scale_inv = 1.0f / r.scale;
  r.codes = fp8_cast(x, r.scale, f, exec);
  return r;
}

BlockwiseFp8 fp8_blockwise(std::span<const float> x, size_t rows, size_t cols, Fmt f, bool tile_128x128, bool pow2,
                           float epsilon, Fmt input) {
  return fp8_blockwise(x, rows, cols, f, tile_128x128, pow2, epsilon, input, Exec{});
}

std::string fp8_blockwise_error(size_t n, size_t rows, size_t cols, Fmt f, Fmt input) {
  if (input != Fmt::f32 && input != Fmt::bf16 && input != Fmt::f16)
    return "blockwise FP8 input must be f32, bf16 or f16, not " + std::string(info(input).name);
  if (n != rows * cols) return "tensor size does not match its shape";
  return fp8_format_error(f);
}

BlockwiseFp8 fp8_blockwise(std::span<const float> x, size_t rows, size_t cols, Fmt f, bool tile_128x128, bool pow2,
                           float epsilon, Fmt input, const Exec& exec) {
  if (const std::string err = fp8_blockwise_error(x.size(), rows, cols, f, input); !err.empty())
    throw std::invalid_argument(err);
  const float value_for_inf = code_to_f32(input, max_finite_code(input));
  BlockwiseFp8 q;
  q.fmt = f;
  q.grid = make_grid(rows, cols, tile_128x128 ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
  const float max_fp8 = fp8_max(f);
  if (detail::fast_quant_enabled()) {  // the same bits, vectorised (quant_fast.hpp)
    detail::fp8_blockwise_fast(x, cols, pow2, epsilon, value_for_inf, exec, q);
    return q;
  }
  // Each rectangle of whole blocks (quant_tiles.hpp) on its own: amax, scales, codes.
  const BlockGrid& g = q.grid;
  std::vector<float> amax(g.scale_count(), 0.0f);
  std::vector<float> scale(amax.size());
  q.scale_inv.resize(amax.size());
  q.codes.resize(x.size());
  detail::for_each_tile(g, exec, [&](const detail::Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const float m = std::fabs(x[r * cols + c]);
        float& a = amax[g.scale_index(r, c)];
        if (m > a) a = m;  // fmaxf: NaN ignored
      }
    for (size_t br = t.r0 / g.block_rows; br <= (t.r1 - 1) / g.block_rows; ++br)
      for (size_t bc = t.c0 / g.block_cols; bc <= (t.c1 - 1) / g.block_cols; ++bc) {
        const size_t b = br * g.scale_cols() + bc;
        scale[b] = te_scale_from_amax(amax[b], max_fp8, pow2, epsilon, value_for_inf);
        q.scale_inv[b] = 1.0f / scale[b];
      }
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c)
        q.codes[r * cols + c] = fp8_cast(x[r * cols + c], scale[g.scale_index(r, c)], f);
  });
  return q;
}

std::vector<float> fp8_blockwise_dequantize(const BlockwiseFp8& q) { return fp8_blockwise_dequantize(q, Exec{}); }

std::vector<float> fp8_blockwise_dequantize(const BlockwiseFp8& q, const Exec& exec) {
  if (detail::fast_quant_enabled() && fp8_format_error(q.fmt).empty()) return detail::fp8_blockwise_dequantize_fast(q, exec);
  std::vector<float> out(q.codes.size());
  detail::for_each_tile(q.grid, exec, [&](const detail::Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const size_t i = r * q.grid.cols + c;
        out[i] = gpu_product(code_to_f32(q.fmt, q.codes[i]), q.scale_inv[q.grid.scale_index(r, c)]);
      }
  });
  return out;
}

std::optional<Fp8Recipe> parse_fp8_recipe(std::string_view s) {
  if (s == "e4m3") return Fp8Recipe::e4m3;
  if (s == "e5m2") return Fp8Recipe::e5m2;
  if (s == "hybrid") return Fp8Recipe::hybrid;
  return std::nullopt;
}

std::string delayed_scaling_options_error(const DelayedScalingOptions& o) {
  if (o.history_len == 0) return "amax history length must be at least 1";
  // One float per step kept per tensor: a length beyond 2^20 steps is a mistake (a bad_alloc
  // for 2^40), not a history.
  if (o.history_len > (size_t{1} << 20))
    return "amax history length " + std::to_string(o.history_len) + " is above 2^20 (1048576)";
  return "";
}

DelayedScaling::DelayedScaling(const DelayedScalingOptions& o, bool backward) : o_(o) {
  if (const std::string err = delayed_scaling_options_error(o); !err.empty()) throw std::invalid_argument(err);
  fmt_ = o.recipe == Fp8Recipe::e4m3 ? Fmt::e4m3
         : o.recipe == Fp8Recipe::e5m2 ? Fmt::e5m2
         : (backward ? Fmt::e5m2 : Fmt::e4m3);
  history_.assign(o.history_len, 0.0f);
}

void DelayedScaling::record_amax(float amax) { history_[0] = amax; }

std::vector<uint8_t> DelayedScaling::quantize(std::span<const float> x) {
  record_amax(mx_amax(x, AmaxNan::ignore));
  return fp8_cast(x, scale_, fmt_);
}

void DelayedScaling::update() {
  float amax;
  float sf;
  if (o_.update == DelayedUpdate::fused) {
    // delayed_scaling.cu: fmaxf over the history (NaN dropped); MOST_RECENT reads slot 0.
    amax = 0.0f;
    for (float a : history_)
      if (a > amax) amax = a;
    if (o_.algo == AmaxAlgo::most_recent) amax = history_[0];
    const float scaled_max = fp8_max(fmt_) * std::ldexp(1.0f, -o_.margin);  // fp8_max * std::pow(2.f, -margin)
    sf = scaled_max / amax;
  } else if (o_.algo == AmaxAlgo::most_recent) {
    amax = history_[0];
    sf = (fp8_max(fmt_) / amax) / std::ldexp(1.0f, o_.margin);
  } else {  // torch.max over the history: NaN propagates
    amax = history_[0];
    for (float a : history_) {
      if (std::isnan(a)) { amax = a; break; }
      if (a > amax) amax = a;
    }
    sf = (fp8_max(fmt_) / amax) / std::ldexp(1.0f, o_.margin);
  }
  float s = scale_;
  if (amax > 0.0f && std::isfinite(amax)) s = sf;
  if (std::isinf(s)) s = std::numeric_limits<float>::max();
  scale_ = s;
  scale_inv_ = 1.0f / s;
  std::rotate(history_.begin(), history_.begin() + 1, history_.end());  // torch.roll(h, -1)
  history_[0] = 0.0f;
}

}  // namespace tcemu::quant
