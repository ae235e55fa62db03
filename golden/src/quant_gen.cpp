// Generated quantize cases (quant_case.hpp, generate_quantize).
#include "tcemu/philox.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::golden {

Case generate_quantize(const QuantizeGenRequest& r) {
  if (r.rows == 0 || r.cols == 0) throw GoldenError("quantize: rows and cols must be positive");
  // The values: the source operand of a conversion case drawn with the same distribution and
  // seed (one generator of distributions for every op).
  ConvertGenRequest c;
  c.from = Fmt::f32;
  c.to = Fmt::e4m3;
  c.count = r.rows * r.cols;
  c.dist = r.dist;
  c.scale = r.scale;
  c.seed = r.seed;
  const Case conv = generate_convert(c);
  const Array x = make_array(elem_type(Fmt::f32), r.rows, r.cols, conv.operands.at("x").logical());
  const QuantShapes s = quant_shapes(r.recipe, r.rows, r.cols);
  const std::vector<uint32_t> rbits =
      s.rbits_rows ? philox_words(r.seed, r.philox_offset, s.rbits_rows * s.rbits_cols) : std::vector<uint32_t>{};
  Provenance p;
  std::string model = "tcemu::quant recipe ";
  model += r.recipe.name;
  nlohmann::json gen = {{"dist", std::string(to_string(r.dist))}, {"scale", r.scale}, {"rows", r.rows}, {"cols", r.cols}};
  if (!rbits.empty()) gen["philox"] = {{"seed", r.seed}, {"offset", r.philox_offset}, {"generator", "Philox4x32-10"}};
  p.fields = {{"source", "tcemu"},
              {"tcemu_version", std::string(kTcemuVersion)},
              {"model", model},
              {"seed", r.seed},
              {"generator", gen}};
  std::string name = r.name;
  if (name.empty()) {  // built piecewise: GCC 12 warns falsely on "literal" + std::string
    name = "quantize_";
    name += r.recipe.name;
    name += "_";
    name += to_string(r.dist);
    name += "_s";
    name += std::to_string(r.seed);
  }
  return make_quantize_case(name, r.recipe, x, rbits, std::move(p));
}

}  // namespace tcemu::golden
