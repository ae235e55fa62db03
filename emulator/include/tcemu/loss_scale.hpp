// Dynamic loss scaling, bit for bit: PyTorch's GradScaler (torch.amp) update rule and unscale
// arithmetic, and Megatron-LM's DynamicGradScaler with hysteresis.
//
// Sources: docs/quantization.md; PyTorch `aten/src/ATen/native/cuda/AmpKernels.cu`
// (_amp_update_scale_cuda_kernel, _amp_foreach_non_finite_check_and_unscale_) and
// `torch/amp/grad_scaler.py` (inv_scale = scale.double().reciprocal().float()); Megatron-LM
// `megatron/core/optimizer/grad_scaler.py` (DynamicGradScaler). docs/quantization.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tcemu/format.hpp"

namespace tcemu {

struct GradScalerOptions {
  float init_scale = 65536.0f;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int32_t growth_interval = 2000;
};

// Empty when the options are usable, else what is wrong (an interval of 0 or less, a growth
// factor not above 1, a backoff factor not below 1).
std::string grad_scaler_options_error(const GradScalerOptions& o);

class GradScaler {
 public:
  // Precondition: grad_scaler_options_error(o) is empty (std::invalid_argument with that
  // message otherwise).
  explicit GradScaler(const GradScalerOptions& o = {});
  float scale() const { return scale_; }
  int32_t growth_tracker() const { return tracker_; }
  // (float)(1 / (double)scale).
  float inv_scale() const;
  // _amp_update_scale_: on inf scale = (float)((double)scale * backoff), tracker 0; else
  // tracker + 1, and on reaching the interval scale = (float)((double)scale * growth) when that
  // is finite (else unchanged), tracker 0.
  void update(bool found_inf);
  // Unscales f32 gradients in place: g = g * inv_scale in f32 (g kept when inv_scale is 1);
  // returns found_inf: whether any input gradient was not finite.
  bool unscale(std::span<float> grads) const;
  // The same for gradients stored as f16 or bf16 codes: the product is computed in f32 and
  // rounded back (RN). Precondition: unscale_codes_error(f) is empty (std::invalid_argument
  // with that message for another format).
  bool unscale_codes(std::span<uint16_t> grads, Fmt f) const;
  static std::string unscale_codes_error(Fmt f);

 private:
  GradScalerOptions o_;
  float scale_;
  int32_t tracker_ = 0;
};

struct MegatronScalerOptions {
  float initial_scale = 4294967296.0f;  // 2^32
  float min_scale = 1.0f;
  float growth_factor = 2.0f;
  float backoff_factor = 0.5f;
  int32_t growth_interval = 1000;
  int32_t hysteresis = 2;
};

// Megatron: on inf, growth tracker 0 and hysteresis tracker - 1; when that reaches 0 or below,
// scale = max(scale * backoff, min_scale) (f32). Otherwise growth tracker + 1; on reaching the
// interval: tracker 0, hysteresis tracker reset, scale = scale * growth (f32; no Inf check,
// as in Megatron: a scale can overflow to Inf after 2^96 steps without inf).
// Empty when the options are usable, else what is wrong (an interval or hysteresis of 0 or less).
std::string megatron_scaler_options_error(const MegatronScalerOptions& o);

class MegatronDynamicScaler {
 public:
  // Precondition: megatron_scaler_options_error(o) is empty (std::invalid_argument with that
  // message otherwise).
  explicit MegatronDynamicScaler(const MegatronScalerOptions& o = {});
  float scale() const { return scale_; }
  float inv_scale() const { return 1.0f / scale_; }
  int32_t growth_tracker() const { return growth_tracker_; }
  int32_t hysteresis_tracker() const { return hysteresis_tracker_; }
  void update(bool found_inf);

 private:
  MegatronScalerOptions o_;
  float scale_;
  int32_t growth_tracker_ = 0;
  int32_t hysteresis_tracker_;
};

}  // namespace tcemu
