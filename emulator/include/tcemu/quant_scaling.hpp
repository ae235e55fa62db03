// Per-tensor and blockwise FP8 scaling recipes of TransformerEngine: delayed scaling (an amax
// history), current scaling (optionally power-of-two scales) and 1x128 / 128x128 blockwise
// scaling. The cast itself is cvt.rn.satfinite.{e4m3,e5m2}.f32 of x * scale.
//
// Sources: TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b:
// `common/recipe/recipe_common.cuh` (compute_scale_from_amax, compute_scale_from_types),
// `common/recipe/current_scaling.cu`, `common/recipe/delayed_scaling.cu` (the fused amax and
// scale update), `common/cast/fp8_blockwise/`, `pytorch/quantization.py` (_default_sf_compute,
// the unfused update). Written out in docs/quantization.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/format.hpp"
#include "tcemu/parallel.hpp"
#include "tcemu/quant.hpp"

namespace tcemu::quant {

// FP8 max of e4m3 (448) or e5m2 (57344). Precondition: fp8_format_error(f) is empty
// (std::invalid_argument with that message for another format). Every call below that takes an
// FP8 format has this precondition.
float fp8_max(Fmt f);
std::string fp8_format_error(Fmt f);

// TE compute_scale_from_amax: amax below epsilon becomes epsilon; Inf, NaN or 0 amax gives 1;
// scale = fp8_max / amax; an infinite quotient gives value_for_inf; with pow2 the f32 fraction
// bits are cleared (a power of two at or below the quotient).
float te_scale_from_amax(float amax, float fp8_max, bool pow2, float epsilon = 0.0f,
                         float value_for_inf = 3.4028234663852886e38f);

// cvt.rn.satfinite of x * scale (f32 product) into e4m3 / e5m2.
uint8_t fp8_cast(float x, float scale, Fmt f);
std::vector<uint8_t> fp8_cast(std::span<const float> x, float scale, Fmt f);
// code * scale_inv in f32 (TE dequantize).
std::vector<float> fp8_dequantize(std::span<const uint8_t> codes, float scale_inv, Fmt f);
// Whole-tensor calls without an Exec use Exec{} (TCEMU_NUM_THREADS, else every core); these take
// the thread count. The result is the same for every thread count.
std::vector<uint8_t> fp8_cast(std::span<const float> x, float scale, Fmt f, const Exec& exec);
std::vector<float> fp8_dequantize(std::span<const uint8_t> codes, float scale_inv, Fmt f, const Exec& exec);

struct PerTensorFp8 {
  Fmt fmt = Fmt::e4m3;
  std::vector<uint8_t> codes;
  float scale = 1.0f, scale_inv = 1.0f, amax = 0.0f;
};

// Current scaling: the amax of this tensor (fmaxf: NaN ignored) gives its scale.
PerTensorFp8 fp8_current_scaling(std::span<const float> x, Fmt f, bool pow2 = false, float epsilon = 0.0f);
PerTensorFp8 fp8_current_scaling(std::span<const float> x, Fmt f, bool pow2, float epsilon, const Exec& exec);

// Blockwise FP8 (1x128 for activations/gradients, 128x128 for weights): one scale per block by
// te_scale_from_amax (power of two by default), scale_inv = 1 / scale stored per block.
struct BlockwiseFp8 {
  BlockGrid grid;
  Fmt fmt = Fmt::e4m3;
  std::vector<uint8_t> codes;
  std::vector<float> scale_inv;  // grid.scale_count()
};
// `input` is the tensor's format: an infinite quotient gives its largest finite value
// (compute_scale_from_types: FLT_MAX for f32, 0x1.FEp127 for bf16, 65504 for f16).
// Precondition: fp8_blockwise_error(x.size(), rows, cols, f, input) is empty (an input format
// other than f32/bf16/f16, a size that is not rows * cols, a format that is not FP8);
// std::invalid_argument with that message otherwise.
std::string fp8_blockwise_error(size_t n, size_t rows, size_t cols, Fmt f, Fmt input);
BlockwiseFp8 fp8_blockwise(std::span<const float> x, size_t rows, size_t cols, Fmt f, bool tile_128x128,
                           bool pow2 = true, float epsilon = 0.0f, Fmt input = Fmt::f32);
BlockwiseFp8 fp8_blockwise(std::span<const float> x, size_t rows, size_t cols, Fmt f, bool tile_128x128, bool pow2,
                           float epsilon, Fmt input, const Exec& exec);
std::vector<float> fp8_blockwise_dequantize(const BlockwiseFp8& q);
std::vector<float> fp8_blockwise_dequantize(const BlockwiseFp8& q, const Exec& exec);

// Delayed scaling: the scale used at step t comes from the amax history up to step t-1.
enum class AmaxAlgo : uint8_t { max, most_recent };
// Which of TE's two update paths: `fused` (default: delayed_scaling.cu's kernel, taken unless
// NVTE_UNFUSED_FP8_UPDATE=1 or a callable algorithm): amax over the rolled history with fmaxf
// (NaN dropped), scale = (fp8_max * 2^-margin) / amax; `python` (quantization.py
// _default_sf_compute): torch.max over the history (NaN propagates), (fp8_max / amax) / 2^margin.
enum class DelayedUpdate : uint8_t { fused, python };
enum class Fp8Recipe : uint8_t { e4m3, e5m2, hybrid };  // HYBRID: e4m3 forward, e5m2 backward
std::optional<Fp8Recipe> parse_fp8_recipe(std::string_view s);

struct DelayedScalingOptions {
  int margin = 0;
  size_t history_len = 1024;
  AmaxAlgo algo = AmaxAlgo::max;
  Fp8Recipe recipe = Fp8Recipe::hybrid;
  DelayedUpdate update = DelayedUpdate::fused;
};

// Empty when the options are usable, else what is wrong (a history length of 0).
std::string delayed_scaling_options_error(const DelayedScalingOptions& o);

class DelayedScaling {
 public:
  // `backward`: the tensor is a gradient (HYBRID then uses e5m2). Precondition:
  // delayed_scaling_options_error(o) is empty (std::invalid_argument with that message otherwise).
  explicit DelayedScaling(const DelayedScalingOptions& o, bool backward = false);
  Fmt format() const { return fmt_; }
  float scale() const { return scale_; }
  float scale_inv() const { return scale_inv_; }
  // The history, index 0 the slot that the current step writes (TE's amax_history[:, i]).
  const std::vector<float>& history() const { return history_; }
  // Casts with the current scale and records the tensor's amax (fmaxf) in slot 0.
  std::vector<uint8_t> quantize(std::span<const float> x);
  void record_amax(float amax);  // what quantize() records, for replaying amax sequences
  // End of step: amax from the history (max or most recent), new scale
  // (fp8_max / amax) / 2^margin kept when amax is 0 or not finite, Inf -> FLT_MAX; then the
  // history rolls by one (slot 0 moves to the end) and slot 0 is cleared.
  void update();

 private:
  DelayedScalingOptions o_;
  Fmt fmt_;
  float scale_ = 1.0f, scale_inv_ = 1.0f;
  std::vector<float> history_;
};

}  // namespace tcemu::quant
