// The per-tensor scale arithmetic that recipes do around a GEMM, outside the quantize kernels
// of quant_scaling.hpp / quant_nvfp4.hpp: torchao float8 training's tensorwise scaling, and the
// alpha of TransformerEngine's NVFP4 GEMM. Each function is one upstream rule, in its order of
// f32 / f64 operations (docs/torch.md, "Recipes").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tcemu/format.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu::quant {

// torchao float8 (pytorch/ao 36027d8, torchao/float8/float8_utils.py tensor_to_amax):
// torch.max(torch.abs(x)), so a NaN element makes the amax NaN.
float torchao_amax(std::span<const float> x, const Exec& exec);
// amax_to_scale: float32(fp8_max / max(float64(amax), 1e-12)) (EPS = 1e-12, the division in
// f64, torch.clamp propagates NaN); with pow2 (round_scales_to_power_of_2, rowwise recipes)
// 2^floor(log2(scale)). Precondition: f is e4m3 or e5m2 (fp8_format_error).
float torchao_fp8_scale(float amax, Fmt f, bool pow2);
// hp_tensor_and_scale_to_float8 / to_fp8_saturated: y = x * scale (f32, a NaN product the GPU's
// canonical 0x7FFFFFFF), torch.clamp(y, -max, max) (NaN passes), then c10's FP8 cast (round to
// nearest even, no saturation, NaN keeps its sign).
std::vector<uint8_t> torchao_fp8_cast(std::span<const float> x, float scale, Fmt f, const Exec& exec);
// What torchao hands torch._scaled_mm as scale_a / scale_b: scale.reciprocal(), 1.0f / scale.
float torchao_fp8_scale_inv(float scale);

// Axiswise scaling (torchao's `rowwise` recipes: tensor_to_amax with AXISWISE, amax_to_scale,
// hp_tensor_and_scale_to_float8 with a keepdim scale): each row of the rows x k matrix x (row
// major) gets its own amax, scale and cast, each by the rule above. Rows are independent, so
// the result is the same for every thread count.
struct TorchaoRows {
  std::vector<uint8_t> codes;  // rows x k
  std::vector<float> amax, scale, scale_inv;  // one per row
};
TorchaoRows torchao_fp8_quantize_rows(std::span<const float> x, size_t rows, size_t k, Fmt f, bool pow2,
                                      const Exec& exec);

// TransformerEngine d0067d0 transformer_engine/common/recipe/nvfp4.cu
// compute_nvfp4_per_tensor_scale_kernel, which cublaslt_gemm.cu runs before an NVFP4 GEMM:
// factor_inv = 1.0f / (6 * 6 * e4m3_max_a * e4m3_max_b) and
// alpha = alpha_in * amax_a * amax_b * factor_inv, f32 operations left to right. e4m3_max is
// the tensor's nvfp4_e4m3_max (448; 256 for TE's 4over6 tensors).
float te_nvfp4_gemm_alpha(float alpha_in, float amax_a, float amax_b, float e4m3_max_a = 448.0f,
                          float e4m3_max_b = 448.0f);

}  // namespace tcemu::quant
