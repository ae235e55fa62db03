// Dynamic loss scaling (see loss_scale.hpp, docs/quantization.md).
#include "tcemu/loss_scale.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tcemu/convert.hpp"

namespace tcemu {

std::string grad_scaler_options_error(const GradScalerOptions& o) {
  // torch.amp.GradScaler does not check init_scale, but its update keeps the scale finite and
  // positive (it grows only to a finite value): a NaN, infinite or non-positive start is no
  // state its scaler reaches, and would scale every loss to NaN or Inf.
  if (!(o.init_scale > 0.0f) || !std::isfinite(o.init_scale)) return "initial scale must be a positive finite number";
  if (o.growth_interval <= 0) return "growth interval must be positive";
  if (!(o.growth_factor > 1.0)) return "growth factor must be greater than 1";
  if (!(o.backoff_factor < 1.0)) return "backoff factor must be less than 1";
  return {};
}

GradScaler::GradScaler(const GradScalerOptions& o) : o_(o), scale_(o.init_scale) {
  if (const std::string err = grad_scaler_options_error(o); !err.empty()) throw std::invalid_argument(err);
}

float GradScaler::inv_scale() const { return static_cast<float>(1.0 / static_cast<double>(scale_)); }

void GradScaler::update(bool found_inf) {
  if (found_inf) {
    // float * double is computed in double, then stored back into the float tensor.
    scale_ = static_cast<float>(static_cast<double>(scale_) * o_.backoff_factor);
    tracker_ = 0;
    return;
  }
  const int32_t successful = tracker_ + 1;
  if (successful == o_.growth_interval) {
    const float grown = static_cast<float>(static_cast<double>(scale_) * o_.growth_factor);
    if (std::isfinite(grown)) scale_ = grown;
    tracker_ = 0;
  } else {
    tracker_ = successful;
  }
}

bool GradScaler::unscale(std::span<float> grads) const {
  const float inv = inv_scale();
  bool found_inf = false;
  for (float& g : grads) {
    if (!std::isfinite(g)) found_inf = true;
    if (inv != 1.0f) g = g * inv;
  }
  return found_inf;
}

std::string GradScaler::unscale_codes_error(Fmt f) {
  return f == Fmt::f16 || f == Fmt::bf16 ? "" : "gradient codes must be f16 or bf16";
}

bool GradScaler::unscale_codes(std::span<uint16_t> grads, Fmt f) const {
  if (const std::string err = unscale_codes_error(f); !err.empty()) throw std::invalid_argument(err);
  const float inv = inv_scale();
  bool found_inf = false;
  ConvertOptions rn;
  for (uint16_t& g : grads) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(convert(f, Fmt::f32, g, rn).code));
    if (!std::isfinite(v)) found_inf = true;
    if (inv != 1.0f) g = static_cast<uint16_t>(convert(Fmt::f32, f, std::bit_cast<uint32_t>(v * inv), rn).code);
  }
  return found_inf;
}

std::string megatron_scaler_options_error(const MegatronScalerOptions& o) {
  if (o.growth_interval <= 0) return "growth interval must be positive";
  if (o.hysteresis <= 0) return "hysteresis must be positive";
  return {};
}

MegatronDynamicScaler::MegatronDynamicScaler(const MegatronScalerOptions& o)
    : o_(o), scale_(o.initial_scale), hysteresis_tracker_(o.hysteresis) {
  if (const std::string err = megatron_scaler_options_error(o); !err.empty()) throw std::invalid_argument(err);
}

void MegatronDynamicScaler::update(bool found_inf) {
  if (found_inf) {
    growth_tracker_ = 0;
    hysteresis_tracker_ -= 1;
    if (hysteresis_tracker_ <= 0) {
      const float s = scale_ * o_.backoff_factor;
      scale_ = s > o_.min_scale ? s : o_.min_scale;  // torch.max(scale * backoff, min_scale)
    }
  } else {
    growth_tracker_ += 1;
    if (growth_tracker_ == o_.growth_interval) {
      growth_tracker_ = 0;
      hysteresis_tracker_ = o_.hysteresis;
      scale_ = scale_ * o_.growth_factor;
    }
  }
}

}  // namespace tcemu
