// Golden cases of op "quantize" (docs/golden.md): a quantization recipe of quant_recipe.hpp
// applied to a rows x cols tensor x; expected are the element codes, the block scales (UE8M0
// or E4M3 codes, or f32 scale_inv for the FP8 recipes) and, for NVFP4, the per-tensor scale.
// Stochastic rounding's random words travel as operand rbits (not regenerated from a seed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tcemu/quant_recipe.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

// The arrays a recipe gives a rows x cols tensor.
struct QuantShapes {
  ElemType codes, scales;            // element format; ue8m0 / e4m3 / f32
  size_t scale_rows = 0, scale_cols = 0;
  size_t rbits_rows = 0, rbits_cols = 0;  // 0 x 0: the recipe takes no random bits
  bool global = false;               // NVFP4: expected "global" (f32 [global_rows])
  size_t global_rows = 1;            // row-scaled NVFP4: one S_enc per row
};
// The error names the option when the recipe cannot quantize that shape (`where` prefixes the
// message, e.g. "cases[0].recipe"); quant_shapes throws it as GoldenError.
Result<QuantShapes> try_quant_shapes(const quant::Recipe& r, size_t rows, size_t cols, const std::string& where = "recipe");
QuantShapes quant_shapes(const quant::Recipe& r, size_t rows, size_t cols, const std::string& where = "recipe");

// The recipe as JSON: {"name", "kind", "mx" | "nvfp4" | "fp8": {every option, resolved},
// "upstream": {"repo", "ref", "file"}} (quant::recipe_upstream; r.input must be x's format).
nlohmann::json recipe_json(const quant::Recipe& r);
// Refuses (GoldenError naming the field) a recipe JSON whose "upstream" differs from what `r`
// (parsed from it, with r.input set to x's format) follows; absent "upstream" passes.
// try_check_recipe_upstream returns that message, empty when it passes.
std::string try_check_recipe_upstream(const nlohmann::json& j, const quant::Recipe& r, const std::string& where);
void check_recipe_upstream(const nlohmann::json& j, const quant::Recipe& r, const std::string& where);
// Back: the preset `name` with the options given (missing ones keep the preset's value).
// The error names the field for an unknown recipe, kind or option value (parse_recipe_json
// throws it as GoldenError).
Result<quant::Recipe> try_parse_recipe_json(const nlohmann::json& j, const std::string& where);
quant::Recipe parse_recipe_json(const nlohmann::json& j, const std::string& where);

// x as f32 values (f16 / bf16 codes convert exactly), row-major.
std::vector<float> quant_input_values(const Array& x);

// A quantize case from a result the caller computed with quant::quantize (the CLI), or ...
// The error: the recipe cannot quantize x's shape, or rbits is not the count it takes.
Result<Case> try_quantize_case(const std::string& name, const quant::Recipe& r, const Array& x,
                               const std::vector<uint32_t>& rbits, const quant::Quantized& q, Provenance provenance);
Case quantize_case(const std::string& name, const quant::Recipe& r, const Array& x, const std::vector<uint32_t>& rbits,
                   const quant::Quantized& q, Provenance provenance);
// ... computed here. x: f32, f16 or bf16 codes [rows, cols]; rbits as random_words_needed().
// The error: the recipe refuses the input (make_quantize_case throws it as GoldenError).
Result<Case> try_make_quantize_case(const std::string& name, const quant::Recipe& r, const Array& x,
                                    const std::vector<uint32_t>& rbits, Provenance provenance);
Case make_quantize_case(const std::string& name, const quant::Recipe& r, const Array& x,
                        const std::vector<uint32_t>& rbits, Provenance provenance);

// The emulator's expected arrays for a quantize case: "codes", "scales" and (NVFP4) "global",
// in the layout of the case's arrays. The error: the recipe refuses the input (thrown as
// GoldenError by evaluate_quantize).
Result<std::map<std::string, Array>> try_evaluate_quantize(const Case& c);
std::map<std::string, Array> evaluate_quantize(const Case& c);

// `tcemu golden gen --recipe NAME`: x drawn from a distribution of generate.hpp (as the f32
// source of an f32 -> e4m3 conversion case with the same seed), random words for stochastic
// rounding from Philox4x32-10 (seed, philox_offset), the expected arrays by the emulator.
struct QuantizeGenRequest {
  quant::Recipe recipe;
  size_t rows = 4, cols = 64;
  Dist dist = Dist::normal;
  double scale = 1.0;
  uint64_t seed = 1, philox_offset = 0;
  std::string name;  // "" = quantize_<recipe>_<dist>_s<seed>
};
// The error names what is wrong with the request (generate_quantize throws it).
Result<Case> try_generate_quantize(const QuantizeGenRequest& r);
Case generate_quantize(const QuantizeGenRequest& r);

}  // namespace tcemu::golden
