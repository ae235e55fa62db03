// tcemu quantize / dequantize: a recipe of quant_recipe.hpp applied to an .npy tensor.
// quantize writes OUT.codes.npy (element codes, uint8, the input's shape), OUT.scales.npy
// (uint8 scale codes [scale_rows, scale_cols], or float32 scale_inv for the FP8 recipes) and,
// for NVFP4, OUT.global.npy (float32 [1]: TE's S_enc or torchao's per-tensor scale) and
// OUT.amax.npy (float32 [1]: the tensor amax, which TE's dequantize kernel reads), and
// OUT.json: the same as one golden-format case of op "quantize" (quant_case.hpp), which
// `tcemu golden check` re-verifies and `tcemu compare` takes as EXPECTED. Arrays above
// --npy-threshold elements are referenced from OUT.json, not copied: x is the input file (by
// its path relative to OUT.json), codes / scales / global the files above.
// dequantize reads them back (same recipe options) and writes float32 values.
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <memory>

#include "cli_util.hpp"
#include "cmd_quant_io.hpp"
#include "commands.hpp"
#include "tcemu/philox.hpp"
#include "tcemu/quant_recipe.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::cli {
namespace {

using namespace tcemu::quant;

struct QuantArgs {
  std::string recipe, input, output, in_format, elem, scale, axis, round, order, fp8, dequant, variant, four_over_six;
  std::optional<size_t> block;  // unset: the recipe's (32); 0 is refused by the MX rules
  int e4m3_max = 0;
  bool fast_math = false, rht = false, pow2 = false, no_pow2 = false, list = false, row_scaled = false,
       err_fast_math = false;
  uint64_t seed = 0, offset = 0;
  size_t npy_threshold = 4096;
};

void add_recipe_options(CLI::App* cmd, QuantArgs& a) {
  cmd->add_option("--recipe", a.recipe, "recipe name (--list shows them)");
  cmd->add_option("--elem", a.elem, "MX element format: e4m3 e5m2 e3m2 e2m3 e2m1 s8");
  cmd->add_option("--scale", a.scale, "MX scale mode: floor rceil-sat rceil rceil-legacy ceil even");
  cmd->add_option("--block", a.block, "MX block size (default 32); NVFP4 16, or 32 with an auto-round order");
  cmd->add_option("--axis", a.axis, "MX blocks: row (default), col, 2d");
  cmd->add_option("--round", a.round, "element rounding: rn (default), rna, rz (MX), rs (MX, NVFP4: Philox bits)");
  cmd->add_option("--variant", a.variant, "MX: an older upstream release's arithmetic: torchao-0.18 (floor/ceil/even), te-2.12 (rceil-sat)");
  cmd->add_option("--order", a.order,
                  "NVFP4 arithmetic order: te, te-div6, torchao, torchao-single, torchao-0.16, torchao-single-0.17, "
                  "autoround-e5m3, autoround-e5m3-gs (UE5M3 block scales)");
  cmd->add_flag("--fast-math", a.fast_math, "NVFP4 (TE, bf16 input, 1x16): bf16 coefficient and fma.rn.f32.bf16");
  cmd->add_flag("--rht", a.rht, "NVFP4: 16-point random Hadamard transform of each row first (TE signs)");
  cmd->add_option("--four-over-six", a.four_over_six, "NVFP4 (TE 4over6): off, mae or mse (the block error that picks map-to-4 or map-to-6)");
  cmd->add_flag("--err-fast-math", a.err_fast_math, "NVFP4 4over6: TE's NVTE_NVFP4_4OVER6_ERR_USE_FAST_MATH error (q * sfb - x * S_enc)");
  cmd->add_flag("--row-scaled", a.row_scaled, "NVFP4 (TE): one amax and S_enc per row");
  cmd->add_option("--e4m3-max", a.e4m3_max, "NVFP4: the E4M3 bound of S_enc, 448 or 256 (256 only with 4over6)");
  cmd->add_option("--fp8", a.fp8, "FP8 recipes: e4m3 (default) or e5m2");
  cmd->add_option("--dequant", a.dequant,
                  "dequantize arithmetic: MX ocp (default), te (TE's kernel) or te-2.18 (TE <= v2.18: scale 0 -> 0, 0xFF -> Inf); "
                  "NVFP4 tcemu (default) or te (TE's kernel, from the tensor amax)");
  cmd->add_flag("--pow2", a.pow2, "fp8-current: power-of-two scale");
  cmd->add_flag("--no-pow2", a.no_pow2, "fp8-block*: exact (not power-of-two) scales");
  cmd->add_option("--seed", a.seed, "Philox4x32-10 seed for rs (curand_init seed)");
  cmd->add_option("--offset", a.offset, "Philox offset in 32-bit words for rs");
  cmd->add_flag("--list", a.list, "list the recipes");
}

// A recipe option that applies to recipes of kind k only: InputError for another recipe.
void need(const QuantArgs& a, const Recipe& r, RecipeKind k, const char* opt) {
  if (r.kind != k) throw InputError(std::string(opt) + " does not apply to recipe '" + a.recipe + "'");
}

// --elem, --scale, --block, --axis (MX recipes; --block also sets the NVFP4 block).
void apply_mx_layout(const QuantArgs& a, Recipe& r) {
  if (!a.elem.empty()) {
    need(a, r, RecipeKind::mx, "--elem");
    auto f = parse_format(a.elem);
    if (!f || !mx_supported(*f)) throw InputError("--elem must be e4m3, e5m2, e3m2, e2m3, e2m1 or s8, not '" + a.elem + "'");
    r.mx.elem = *f;
  }
  if (!a.scale.empty()) {
    need(a, r, RecipeKind::mx, "--scale");
    auto m = parse_mx_scale_mode(a.scale);
    if (!m) throw InputError("--scale must be floor, rceil-sat, rceil, rceil-legacy, ceil or even, not '" + a.scale + "'");
    r.mx.scale = *m;
  }
  if (a.block && r.kind == RecipeKind::nvfp4) {
    r.nvfp4.block = *a.block;  // checked with the order (nvfp4_block_error)
  } else if (a.block) {
    need(a, r, RecipeKind::mx, "--block");
    r.mx.block = *a.block;
  }
  if (!a.axis.empty()) {
    need(a, r, RecipeKind::mx, "--axis");
    auto ax = parse_block_axis(a.axis);
    if (!ax) throw InputError("--axis must be row, col or 2d, not '" + a.axis + "'");
    r.mx.axis = *ax;
  }
}

// --round: the element rounding each kind of recipe allows.
void apply_round(const QuantArgs& a, Recipe& r) {
  if (!a.round.empty()) {
    auto rd = parse_round(a.round);
    if (!rd) throw InputError("unknown rounding '" + a.round + "'");
    if (r.kind == RecipeKind::mx) {
      if (*rd != Round::rn && *rd != Round::rna && *rd != Round::rz && *rd != Round::rs)
        throw InputError("MX element rounding is rn, rna, rz or rs");
      r.mx.round = *rd;
    } else if (r.kind == RecipeKind::nvfp4) {
      if (*rd != Round::rn && *rd != Round::rs) throw InputError("NVFP4 element rounding is rn or rs");
      r.nvfp4.round = *rd;
    } else if (*rd != Round::rn) {
      throw InputError("FP8 recipes use cvt.rn.satfinite only");
    }
  }
}

// --dequant: the dequantize arithmetic (MX or NVFP4).
void apply_dequant(const QuantArgs& a, Recipe& r) {
  if (!a.dequant.empty()) {
    if (r.kind == RecipeKind::mx) {
      auto d = parse_mx_dequant(a.dequant);
      if (!d) throw InputError("--dequant for MX recipes is ocp, te or te-2.18, not '" + a.dequant + "'");
      r.mx_dequant = *d;
    } else if (r.kind == RecipeKind::nvfp4) {
      auto d = parse_nvfp4_dequant(a.dequant);
      if (!d) throw InputError("--dequant for NVFP4 recipes is tcemu or te, not '" + a.dequant + "'");
      if (*d == Nvfp4Dequant::te_kernel && !nvfp4_te_order(r.nvfp4.order))
        throw InputError("--dequant te needs a TE order (te, te-div6)");
      r.nvfp4_dequant = *d;
    } else {
      throw InputError("--dequant applies to MX and NVFP4 recipes only");
    }
  }
}

Recipe resolve_recipe(const QuantArgs& a) {
  if (a.recipe.empty()) throw InputError("--recipe NAME is required (--list shows the names)");
  auto found = find_recipe(a.recipe);
  if (!found) throw InputError("unknown recipe '" + a.recipe + "' (--list shows the names)");
  Recipe& r = *found;
  apply_mx_layout(a, r);
  apply_round(a, r);
  if (!a.variant.empty()) {
    need(a, r, RecipeKind::mx, "--variant");
    auto v = parse_mx_variant(a.variant);
    if (!v) throw InputError("--variant must be current, torchao-0.18 or te-2.12, not '" + a.variant + "'");
    r.mx.variant = *v;
    if (const std::string err = mx_options_error(r.mx); !err.empty()) throw InputError("--variant: " + err);
  }
  if (!a.order.empty()) {
    need(a, r, RecipeKind::nvfp4, "--order");
    auto o = parse_nvfp4_order(a.order);
    if (!o)
      throw InputError("--order must be te, te-div6, torchao, torchao-single, torchao-0.16, torchao-single-0.17, "
                       "autoround-e5m3 or autoround-e5m3-gs");
    r.nvfp4.order = *o;
  }
  if (a.fast_math) { need(a, r, RecipeKind::nvfp4, "--fast-math"); r.nvfp4.fast_math = true; }
  if (a.rht) { need(a, r, RecipeKind::nvfp4, "--rht"); r.nvfp4.rht = true; }
  if (!a.four_over_six.empty()) {
    need(a, r, RecipeKind::nvfp4, "--four-over-six");
    auto f = parse_four_over_six(a.four_over_six);
    if (!f) throw InputError("--four-over-six must be off, mae or mse, not '" + a.four_over_six + "'");
    r.nvfp4.four_over_six = *f;
  }
  if (a.row_scaled) { need(a, r, RecipeKind::nvfp4, "--row-scaled"); r.nvfp4.row_scaled = true; }
  if (a.err_fast_math) { need(a, r, RecipeKind::nvfp4, "--err-fast-math"); r.nvfp4.err_fast_math = true; }
  if (a.e4m3_max) {
    need(a, r, RecipeKind::nvfp4, "--e4m3-max");
    if (a.e4m3_max != 448 && a.e4m3_max != 256) throw InputError("--e4m3-max must be 448 or 256");
    r.nvfp4.e4m3_max = a.e4m3_max;
  }
  if (!a.fp8.empty()) {
    if (r.kind != RecipeKind::fp8_current && r.kind != RecipeKind::fp8_block) throw InputError("--fp8 applies to FP8 recipes only");
    if (a.fp8 == "e4m3") r.fp8 = Fmt::e4m3;
    else if (a.fp8 == "e5m2") r.fp8 = Fmt::e5m2;
    else throw InputError("--fp8 must be e4m3 or e5m2");
  }
  if (a.pow2) { need(a, r, RecipeKind::fp8_current, "--pow2"); r.pow2 = true; }
  if (a.no_pow2) { need(a, r, RecipeKind::fp8_block, "--no-pow2"); r.pow2 = false; }
  apply_dequant(a, r);
  return r;
}

int list_recipes() {
  for (const RecipePreset& p : recipe_presets()) std::cout << p.name << "\t" << p.summary << "\n";
  return 0;
}

std::vector<uint64_t> widen(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }
std::vector<uint64_t> f32_codes(const std::vector<float>& v) {
  std::vector<uint64_t> r;
  for (float f : v) r.push_back(std::bit_cast<uint32_t>(f));
  return r;
}

// OUT.json: one golden case (op quantize) holding x, the random words (stochastic rounding),
// and the codes / scales / global just written; arrays above the threshold go to .npy files
// named OUT.<case>.<array>.npy next to it.
void write_case(const QuantArgs& a, const Recipe& r, const QuantInput& in, const std::vector<uint32_t>& rbits,
                const Quantized& q) {
  namespace g = tcemu::golden;
  g::Provenance prov;
  prov.source = "tcemu";
  nlohmann::json gen = {{"command", "tcemu quantize"}, {"input", a.input}, {"input_format", in.format}};
  if (!rbits.empty()) gen["philox"] = {{"seed", a.seed}, {"offset", a.offset}, {"generator", "Philox4x32-10"}};
  prov.fields = {{"source", "tcemu"},
                 {"tcemu_version", std::string(g::kTcemuVersion)},
                 {"model", "tcemu::quant recipe " + r.name},
                 {"seed", a.seed},
                 {"generator", gen}};
  const g::Array x = g::make_array(g::elem_type(*parse_format(in.format)), in.rows, in.cols, in.codes);
  const std::filesystem::path out(a.output);
  const std::string name = out.filename().string();
  g::GoldenFile f;
  f.description = "tcemu quantize --recipe " + r.name + " " + a.input;
  f.cases.push_back(value_of(g::try_quantize_case(name.empty() ? "quantize" : name, r, x, rbits, q, std::move(prov))));
  // Large arrays are referenced, not copied: x is the input file (its path relative to the
  // JSON), codes / scales / global are the OUT.*.npy files just written; only the random
  // words of stochastic rounding get a file of their own (OUT.rbits.npy).
  g::Case& c = f.cases.back();
  const std::filesystem::path dir = out.parent_path();
  auto place = [&](g::Array& arr, const std::string& file, bool write) {
    if (a.npy_threshold == 0 || arr.storage_count() <= a.npy_threshold) return;
    arr.npy = file;
    if (write) {
      io::NpyArray n;
      n.descr = g::npy_descr(arr.type);
      n.shape = {arr.rows, arr.cols};
      n.data = arr.raw;
      check_error(io::try_write_npy((dir / file).string(), n));
    }
  };
  const std::filesystem::path input = std::filesystem::absolute(a.input);
  place(c.operands.at("x"), std::filesystem::relative(input, std::filesystem::absolute(dir.empty() ? "." : dir)).string(), false);
  if (c.operands.count("rbits")) place(c.operands.at("rbits"), name + ".rbits.npy", true);
  place(c.expected, name + ".codes.npy", false);
  for (auto& [key, arr] : c.extra_expected) place(arr, name + "." + key + ".npy", false);
  std::ofstream json_out(a.output + ".json");
  json_out << g::to_json(f).dump(1) << "\n";
  if (!json_out) throw InputError(a.output + ".json: cannot write");
}

int run_quantize(const QuantArgs& a) {
  if (a.list) return list_recipes();
  Recipe r = resolve_recipe(a);
  if (a.input.empty() || a.output.empty()) throw InputError("quantize needs IN.npy and -o OUT (a path prefix)");
  const QuantInput in = read_quant_input(a.input, a.in_format);
  if (in.values.empty()) {  // a golden case holds no empty array: OUT.json would not load
    std::string shape;
    for (size_t d : in.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    throw InputError(a.input + ": shape (" + shape + (in.shape.size() == 1 ? ",)" : ")") + " has no elements to quantize");
  }
  r.input = *parse_format(in.format);
  const size_t words = random_words_needed(r, in.values.size());
  const std::vector<uint32_t> rbits = words ? philox_words(a.seed, a.offset, words) : std::vector<uint32_t>{};
  Result<Quantized> res = quantize(r, in.values, in.rows, in.cols, rbits);
  if (!res.ok()) throw InputError("recipe '" + r.name + "': " + res.error);
  const Quantized& q = res.value;
  check_error(io::try_write_npy(a.output + ".codes.npy", io::make_npy("|u1", in.shape, widen(q.codes))));
  if (q.scale_fmt == Fmt::f32)
    check_error(io::try_write_npy(a.output + ".scales.npy", io::make_npy("<f4", {q.scale_rows, q.scale_cols}, f32_codes(q.scale_f32))));
  else
    check_error(io::try_write_npy(a.output + ".scales.npy", io::make_npy("|u1", {q.scale_rows, q.scale_cols}, widen(q.scale_codes))));
  const bool global = r.kind == RecipeKind::nvfp4 && nvfp4_has_global(r.nvfp4.order);
  if (r.kind == RecipeKind::nvfp4) {  // row-scaled: one per row
    const bool per_row = r.nvfp4.row_scaled;
    const std::vector<size_t> shape = {per_row ? in.rows : 1};
    const std::vector<float> g = per_row ? q.row_global : std::vector<float>{q.global_scale};
    const std::vector<float> m = per_row ? q.row_amax : std::vector<float>{q.amax};
    if (global) check_error(io::try_write_npy(a.output + ".global.npy", io::make_npy("<f4", shape, f32_codes(g))));
    check_error(io::try_write_npy(a.output + ".amax.npy", io::make_npy("<f4", shape, f32_codes(m))));
  }
  write_case(a, r, in, rbits, q);
  std::cout << "recipe " << r.name << ": " << in.rows << "x" << in.cols << " " << info(q.elem).name << " elements, "
            << q.scale_rows << "x" << q.scale_cols << " " << info(q.scale_fmt).name << " scales -> " << a.output
            << ".{codes,scales" << (global ? ",global" : "") << (r.kind == RecipeKind::nvfp4 ? ",amax" : "") << "}.npy and " << a.output
            << ".json (golden case)\n";
  return 0;
}

int run_dequantize(const QuantArgs& a) {
  if (a.list) return list_recipes();
  const Recipe r = resolve_recipe(a);
  if (a.input.empty() || a.output.empty()) throw InputError("dequantize needs IN (the prefix quantize wrote) and -o OUT.npy");
  const io::NpyArray codes = value_of(io::try_read_npy(a.input + ".codes.npy"));
  const io::NpyArray scales = value_of(io::try_read_npy(a.input + ".scales.npy"));
  if (codes.descr != "|u1") throw InputError(a.input + ".codes.npy: expected uint8 codes, found '" + codes.descr + "'");
  if (codes.shape.empty()) throw InputError(a.input + ".codes.npy: a scalar has no blocks");
  Quantized q;
  q.cols = codes.shape.back();
  q.rows = codes.count() / (q.cols ? q.cols : 1);
  // Codes outside the recipe's element format (mxfp8 codes given to mxfp4, ...) are refused.
  const Fmt elem = r.kind == RecipeKind::mx ? r.mx.elem : r.kind == RecipeKind::nvfp4 ? Fmt::e2m1 : r.fp8;
  const FormatInfo& ei = info(elem);
  for (size_t i = 0; i < codes.count(); ++i) {
    const uint64_t c = codes.bits(i);
    if (c & ~ei.code_mask()) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(c));
      throw InputError(a.input + ".codes.npy: element " + std::to_string(i) + " is " + hex + ", not a " +
                       std::string(ei.name) + " code (" + std::to_string(ei.width) + " bits), the element format of recipe '" +
                       r.name + "'; were these codes written with another recipe?");
    }
    q.codes.push_back(static_cast<uint8_t>(c));
  }
  if (scales.shape.size() != 2) throw InputError(a.input + ".scales.npy: expected a 2-D array of scales");
  q.scale_rows = scales.shape[0];
  q.scale_cols = scales.shape[1];
  const bool fp8 = r.kind == RecipeKind::fp8_current || r.kind == RecipeKind::fp8_block;
  if (scales.descr != (fp8 ? "<f4" : "|u1"))
    throw InputError(a.input + ".scales.npy: recipe '" + r.name + "' expects " + (fp8 ? "float32" : "uint8") + " scales");
  for (size_t i = 0; i < scales.count(); ++i) {
    if (fp8) q.scale_f32.push_back(std::bit_cast<float>(static_cast<uint32_t>(scales.bits(i))));
    else q.scale_codes.push_back(static_cast<uint8_t>(scales.bits(i)));
  }
  if (r.kind == RecipeKind::nvfp4 && nvfp4_has_global(r.nvfp4.order)) {  // one-level torchao: none
    // One float32, or one per row for a row-scaled tensor.
    const size_t n = r.nvfp4.row_scaled ? q.rows : 1;
    const std::string what = n == 1 ? "one float32" : std::to_string(n) + " float32 (one per row: row-scaled)";
    auto read_f32 = [&](const std::string& file) {
      const io::NpyArray m = value_of(io::try_read_npy(file));
      if (m.descr != "<f4" || m.count() != n) throw InputError(file + ": expected " + what);
      std::vector<float> v;
      for (size_t i = 0; i < n; ++i) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(m.bits(i))));
      return v;
    };
    const std::vector<float> g = read_f32(a.input + ".global.npy");
    // Row-scaled dequantization reads each row's amax (TE's kernel) as well as its S_enc.
    const bool want_amax = r.nvfp4_dequant == Nvfp4Dequant::te_kernel || r.nvfp4.row_scaled;
    const std::vector<float> m = want_amax ? read_f32(a.input + ".amax.npy") : std::vector<float>(n, 0.0f);
    if (r.nvfp4.row_scaled) {
      q.row_global = g;
      q.row_amax = m;
    } else {
      q.global_scale = g[0];
      q.amax = m[0];
    }
  }
  const Result<std::vector<float>> v = dequantize(r, q);
  if (!v.ok()) throw InputError("recipe '" + r.name + "': " + v.error);
  check_error(io::try_write_npy(a.output, io::make_npy("<f4", codes.shape, f32_codes(v.value))));
  return 0;
}

}  // namespace

void add_quantize_command(CLI::App& app, Runner& run) {
  auto a = std::make_shared<QuantArgs>();
  auto* cmd = app.add_subcommand("quantize", "Quantize an .npy tensor (f32/f16/bf16) with a recipe: MX, NVFP4, FP8 scaling");
  add_recipe_options(cmd, *a);
  cmd->add_option("input", a->input, "IN.npy");
  cmd->add_option("-o,--output", a->output, "output prefix: writes PREFIX.codes.npy, PREFIX.scales.npy (and PREFIX.global.npy) and PREFIX.json (a golden case)");
  cmd->add_option("--input-format", a->in_format, "f32, f16 or bf16 (default: from the dtype; <u2 means bf16 codes)");
  cmd->add_option("--npy-threshold", a->npy_threshold,
                  "PREFIX.json: arrays with more elements go to .npy files next to it (0: all inline as hex)")
      ->capture_default_str();
  cmd->callback([&run, a] { run = [a] { return run_quantize(*a); }; });

  auto d = std::make_shared<QuantArgs>();
  auto* deq = app.add_subcommand("dequantize", "Dequantize what tcemu quantize wrote (same recipe options) to float32 .npy");
  add_recipe_options(deq, *d);
  deq->add_option("input", d->input, "the prefix given to quantize -o");
  deq->add_option("-o,--output", d->output, "OUT.npy (float32)");
  deq->callback([&run, d] { run = [d] { return run_dequantize(*d); }; });
}

}  // namespace tcemu::cli
