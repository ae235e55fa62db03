// Named quantization recipes (MXFP8 as TransformerEngine does it, NVFP4, FP8 current or
// blockwise scaling, ...) behind one interface, so that the command line and the analyzer
// treat them alike. A recipe is a preset of the options of quant.hpp, quant_nvfp4.hpp and
// quant_scaling.hpp; every field can be overridden after lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/quant.hpp"
#include "tcemu/quant_nvfp4.hpp"
#include "tcemu/quant_scaling.hpp"
#include "tcemu/result.hpp"

namespace tcemu::quant {

enum class RecipeKind : uint8_t { mx, nvfp4, fp8_current, fp8_block };

struct Recipe {
  std::string name;
  RecipeKind kind = RecipeKind::mx;
  MxOptions mx;          // kind mx
  Nvfp4Options nvfp4;    // kind nvfp4
  Fmt fp8 = Fmt::e4m3;   // kinds fp8_*
  bool pow2 = false;     // fp8_current: power-of-two scale; fp8_block: default true
  bool tile128 = false;  // fp8_block: 128x128 (else 1x128)
  // The input's format (f32, f16, bf16), not an option but a property of x: TE picks kernels
  // by it (NVFP4 fast math, blockwise FP8's value for an infinite scale). quantize() reads it.
  Fmt input = Fmt::f32;
  // Dequantization arithmetic (docs/quantization.md): OCP/torchao's and tcemu's by default,
  // or TransformerEngine's dequantize kernels.
  MxDequant mx_dequant = MxDequant::ocp;
  Nvfp4Dequant nvfp4_dequant = Nvfp4Dequant::tcemu;
};

struct RecipePreset {
  std::string_view name;
  std::string_view summary;
};
std::span<const RecipePreset> recipe_presets();
// nullopt for an unknown name.
std::optional<Recipe> find_recipe(std::string_view name);

// A quantized tensor of any recipe.
struct Quantized {
  size_t rows = 0, cols = 0;
  Fmt elem = Fmt::e4m3;          // element format of `codes`
  std::vector<uint8_t> codes;    // one per element
  Fmt scale_fmt = Fmt::ue8m0;    // ue8m0 (MX), e4m3 (NVFP4) or f32 (FP8 recipes: scale_inv)
  size_t scale_rows = 0, scale_cols = 0;
  std::vector<uint8_t> scale_codes;  // ue8m0 / e4m3
  std::vector<float> scale_f32;      // f32 scale_inv per block (fp8_block) or per tensor (fp8_current)
  float global_scale = 1.0f;         // NVFP4 per-tensor scale (see Nvfp4Tensor)
  float amax = 0.0f;                 // NVFP4: the tensor amax behind it (TE's dequantize kernel)
  // Row-scaled NVFP4 (Nvfp4Options::row_scaled): S_enc and amax of each row (global_scale and
  // amax unused); empty otherwise.
  std::vector<float> row_global, row_amax;
};

// The upstream implementation whose arithmetic a recipe (with its options resolved) follows:
// repository, the commit (full hash) or the last release tag of an older variant, and the
// file holding the arithmetic. Recorded in golden quantize cases (docs/golden.md).
struct Upstream {
  std::string repo;  // "pytorch/ao", "NVIDIA/TransformerEngine", "OCP"
  std::string ref;   // a commit hash, or a release tag ("v0.18.0") for an older variant
  std::string file;
};
inline constexpr std::string_view kTorchaoCommit = "36027d82d1ad9949597ea16002ff4940374b1b94";
inline constexpr std::string_view kTeCommit = "d0067d0da6cb01811b8072a7d304f0e00344ce2b";
Upstream recipe_upstream(const Recipe& r);

// Random words a recipe needs for n elements (stochastic rounding), 0 when it rounds to nearest.
size_t random_words_needed(const Recipe& r, size_t n);
// Quantizes a rows x cols tensor x (rbits: random_words_needed words for stochastic rounding).
// An error a user can cause (a size that is not rows * cols, options that do not go together,
// too few random words; the messages of mx_quantize_error, nvfp4_quantize_error,
// fp8_blockwise_error) is returned in Result::error, as quantize_error(r, x.size(), rows, cols,
// rbits.size()) would give it.
Result<Quantized> quantize(const Recipe& r, std::span<const float> x, size_t rows, size_t cols,
                           std::span<const uint32_t> rbits = {});
std::string quantize_error(const Recipe& r, size_t n, size_t rows, size_t cols, size_t rbits);
// The values of q. Codes or scales that do not match q's shapes or the recipe's blocks, or a
// dequantize arithmetic that does not apply to the recipe, are returned in Result::error.
Result<std::vector<float>> dequantize(const Recipe& r, const Quantized& q);
// The same on thread_count(exec) threads; the calls above use Exec{} (TCEMU_NUM_THREADS, else
// every core). Blocks (and pieces of the per-tensor amax) are independent, so the codes, scales
// and values are the same bits for every thread count.
Result<Quantized> quantize(const Recipe& r, std::span<const float> x, size_t rows, size_t cols,
                           std::span<const uint32_t> rbits, const Exec& exec);
Result<std::vector<float>> dequantize(const Recipe& r, const Quantized& q, const Exec& exec);
// dequantize(r, q, exec) written to out (q.rows x q.cols floats, row-major) instead of a new
// vector, so a caller that keeps its buffer allocates nothing: the same bits. Result::value is
// out. dequantize's errors, and an out of another size, are returned in Result::error (out
// then untouched).
Result<std::span<float>> dequantize_into(const Recipe& r, const Quantized& q, std::span<float> out, const Exec& exec);
// The largest magnitude an element of the recipe can hold before scaling (448, 6, ...).
// Precondition: the recipe's element format is one of its kind (mx_supported, fp8_format_error).
float element_max(const Recipe& r);

}  // namespace tcemu::quant
