// Quantize cases (quant_case.hpp): the recipe object of the JSON, the shapes a recipe gives a
// tensor, and the emulator's result. Spellings are the canonical ones of the quant headers'
// to_string (scale modes "rceil-sat", axes "row"/"col"/"2d", NVFP4 orders "te-div6", ...).
#include "tcemu_golden/quant_case.hpp"

#include <bit>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace tcemu::golden {
namespace {

using nlohmann::json;
using namespace tcemu::quant;

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw GoldenError(where + ": " + msg); }

std::string kind_name(RecipeKind k) {
  switch (k) {
    case RecipeKind::mx: return "mx";
    case RecipeKind::nvfp4: return "nvfp4";
    case RecipeKind::fp8_current: return "fp8-current";
    case RecipeKind::fp8_block: return "fp8-block";
  }
  return "?";
}

std::string amax_nan_name(AmaxNan a) {
  switch (a) {
    case AmaxNan::propagate: return "propagate";
    case AmaxNan::ignore: return "ignore";
    case AmaxNan::ignore_nonfinite: return "ignore-nonfinite";
  }
  return "?";
}

// Option readers: each names the field it rejects.
void only_keys(const json& obj, const std::string& where, std::initializer_list<std::string_view> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || it.key() == a;
    if (!ok) fail(where + "." + it.key(), "unknown field");
  }
}

std::string str(const json& obj, const char* key, const std::string& where) {
  const json& v = obj.at(key);
  if (!v.is_string()) fail(where + "." + key, "must be a string");
  return v.get<std::string>();
}

bool boolean(const json& obj, const char* key, const std::string& where) {
  const json& v = obj.at(key);
  if (!v.is_boolean()) fail(where + "." + key, "must be true or false");
  return v.get<bool>();
}

int64_t integer(const json& obj, const char* key, const std::string& where, int64_t lo, int64_t hi) {
  const json& v = obj.at(key);
  if (!v.is_number_integer()) fail(where + "." + key, "must be an integer");
  const int64_t i = v.get<int64_t>();
  if (i < lo || i > hi) fail(where + "." + key, "must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  return i;
}

// A value from a fixed list of canonical spellings.
template <class T>
T choice(const json& obj, const char* key, const std::string& where, std::initializer_list<std::pair<const char*, T>> opts) {
  const std::string s = str(obj, key, where);
  std::string list;
  for (const auto& [name, v] : opts) {
    if (s == name) return v;
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  fail(where + "." + key, "unknown value '" + s + "' (one of " + list + ")");
}

Fmt fmt_choice(const json& obj, const char* key, const std::string& where, std::initializer_list<Fmt> allowed) {
  const std::string s = str(obj, key, where);
  std::string list;
  for (Fmt f : allowed) {
    if (s == info(f).name) return f;
    list += (list.empty() ? "" : ", ") + std::string(info(f).name);
  }
  fail(where + "." + key, "unknown value '" + s + "' (one of " + list + ")");
}

void read_mx(MxOptions& o, const json& j, const std::string& w) {
  only_keys(j, w, {"elem", "block", "axis", "scale", "round", "amax_nan", "cast", "rceil_log2", "rs_bits", "variant", "floor_path"});
  if (j.contains("elem")) o.elem = fmt_choice(j, "elem", w, {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::s8});
  if (j.contains("block")) o.block = static_cast<size_t>(integer(j, "block", w, 1, static_cast<int64_t>(kMaxMxBlock)));
  if (j.contains("axis"))
    o.axis = choice<BlockAxis>(j, "axis", w, {{"row", BlockAxis::rowwise}, {"col", BlockAxis::columnwise}, {"2d", BlockAxis::tile2d}});
  if (j.contains("scale"))
    o.scale = choice<MxScaleMode>(j, "scale", w,
                                  {{"floor", MxScaleMode::floor}, {"rceil-sat", MxScaleMode::rceil_sat}, {"rceil", MxScaleMode::rceil},
                                   {"rceil-legacy", MxScaleMode::rceil_legacy}, {"ceil", MxScaleMode::ceil}, {"even", MxScaleMode::even}});
  if (j.contains("round"))
    o.round = choice<Round>(j, "round", w, {{"rn", Round::rn}, {"rna", Round::rna}, {"rz", Round::rz}, {"rs", Round::rs}});
  if (j.contains("amax_nan"))
    o.amax_nan = choice<AmaxNan>(j, "amax_nan", w,
                                 {{"propagate", AmaxNan::propagate}, {"ignore", AmaxNan::ignore}, {"ignore-nonfinite", AmaxNan::ignore_nonfinite}});
  if (j.contains("cast")) o.cast = choice<ElemCast>(j, "cast", w, {{"ptx", ElemCast::ptx}, {"torch", ElemCast::torch}});
  if (j.contains("rceil_log2"))
    o.rceil_log2 = choice<RceilLog2>(j, "rceil_log2", w, {{"exact", RceilLog2::exact}, {"f32-log2", RceilLog2::f32_log2}});
  if (j.contains("rs_bits")) o.rs_bits = static_cast<uint8_t>(integer(j, "rs_bits", w, 0, 32));
  if (j.contains("variant"))
    o.variant = choice<MxVariant>(j, "variant", w,
                                  {{"current", MxVariant::current}, {"torchao-0.18", MxVariant::torchao_0_18}, {"te-2.12", MxVariant::te_2_12}});
  if (j.contains("floor_path"))
    o.floor_path = choice<TorchaoFloorPath>(j, "floor_path", w, {{"to_mx", TorchaoFloorPath::to_mx}, {"cuda", TorchaoFloorPath::cuda}});
  if (const std::string err = mx_options_error(o); !err.empty())
    fail(w + (o.floor_path == TorchaoFloorPath::cuda ? ".floor_path" : ".variant"), err);
}

void read_nvfp4(Nvfp4Options& o, const json& j, const std::string& w) {
  only_keys(j, w, {"order", "tile2d", "fast_math", "round", "rs_map", "global_amax", "rht", "rht_signs", "rht_out",
                   "te_test_reference", "four_over_six", "row_scaled", "e4m3_max", "err_fast_math", "block"});
  if (j.contains("err_fast_math")) o.err_fast_math = boolean(j, "err_fast_math", w);
  if (j.contains("four_over_six"))
    o.four_over_six = choice<FourOverSix>(j, "four_over_six", w,
                                          {{"off", FourOverSix::off}, {"mae", FourOverSix::min_mae}, {"mse", FourOverSix::min_mse}});
  if (j.contains("row_scaled")) o.row_scaled = boolean(j, "row_scaled", w);
  if (j.contains("e4m3_max")) {
    o.e4m3_max = static_cast<int>(integer(j, "e4m3_max", w, 0, 448));
    if (o.e4m3_max != 448 && o.e4m3_max != 256) fail(w + ".e4m3_max", "must be 448 or 256 (TE's nvfp4_e4m3_max)");
  }
  if (j.contains("te_test_reference")) o.te_test_reference = boolean(j, "te_test_reference", w);
  if (j.contains("order"))
    o.order = choice<Nvfp4Order>(j, "order", w,
                                 {{"te", Nvfp4Order::te}, {"te-div6", Nvfp4Order::te_div6}, {"torchao", Nvfp4Order::torchao},
                                  {"torchao-single", Nvfp4Order::torchao_single}, {"torchao-0.16", Nvfp4Order::torchao_0_16},
                                  {"torchao-single-0.17", Nvfp4Order::torchao_single_0_17},
                                  {"autoround-e5m3", Nvfp4Order::autoround_e5m3},
                                  {"autoround-e5m3-gs", Nvfp4Order::autoround_e5m3_gs}});
  if (j.contains("block")) {
    o.block = static_cast<size_t>(integer(j, "block", w, 1, 32));
    if (const std::string e = nvfp4_block_error(o.order, o.block); !e.empty()) fail(w + ".block", e);
  }
  if (j.contains("tile2d")) o.tile2d = boolean(j, "tile2d", w);
  if (j.contains("fast_math")) o.fast_math = boolean(j, "fast_math", w);
  if (j.contains("round")) o.round = choice<Round>(j, "round", w, {{"rn", Round::rn}, {"rs", Round::rs}});
  if (j.contains("rs_map"))
    o.rs_map = choice<RsBitMap>(j, "rs_map", w, {{"ptx_doc", RsBitMap::ptx_doc}, {"flashinfer_hw", RsBitMap::flashinfer_hw}});
  if (j.contains("global_amax")) {
    // f32 bits as "0x" and 8 hex digits: any f32, NaN and Inf included, survives JSON.
    const std::string s = str(j, "global_amax", w);
    const std::optional<uint32_t> v = parse_f32_hex(s);
    if (!v) fail(w + ".global_amax", "must be f32 bits as \"0x\" and 8 hex digits, not '" + s + "'");
    o.global_amax = std::bit_cast<float>(*v);
  }
  if (j.contains("rht")) o.rht = boolean(j, "rht", w);
  if (j.contains("rht_signs")) o.rht_signs = static_cast<uint16_t>(integer(j, "rht_signs", w, 0, 0xFFFF));
  if (j.contains("rht_out")) o.rht_out = choice<RhtOut>(j, "rht_out", w, {{"bf16", RhtOut::bf16}, {"f32", RhtOut::f32}});
}

}  // namespace

json upstream_json(const Recipe& r) {
  const Upstream u = recipe_upstream(r);
  return {{"repo", u.repo}, {"ref", u.ref}, {"file", u.file}};
}

json recipe_json(const Recipe& r) {
  json j = {{"name", r.name}, {"kind", kind_name(r.kind)}};
  switch (r.kind) {
    case RecipeKind::mx: {
      const MxOptions& o = r.mx;
      // The two defaults that depend on the scale mode are written resolved (quant.hpp).
      const AmaxNan nan = o.amax_nan ? *o.amax_nan : (o.scale == MxScaleMode::rceil_sat ? AmaxNan::ignore : AmaxNan::propagate);
      const ElemCast cast = o.cast ? *o.cast : (o.scale == MxScaleMode::rceil_sat ? ElemCast::ptx : ElemCast::torch);
      j["mx"] = {{"elem", std::string(info(o.elem).name)},
                 {"block", o.block},
                 {"axis", std::string(to_string(o.axis))},
                 {"scale", std::string(to_string(o.scale))},
                 {"round", std::string(to_string(o.round))},
                 {"amax_nan", amax_nan_name(nan)},
                 {"cast", cast == ElemCast::ptx ? "ptx" : "torch"},
                 {"rceil_log2", o.rceil_log2 == RceilLog2::exact ? "exact" : "f32-log2"},
                 {"rs_bits", o.rs_bits},
                 {"variant", std::string(to_string(o.variant))},
                 {"floor_path", std::string(to_string(o.floor_path))}};
      break;
    }
    case RecipeKind::nvfp4: {
      const Nvfp4Options& o = r.nvfp4;
      j["nvfp4"] = {{"order", std::string(to_string(o.order))},
                    {"tile2d", o.tile2d},
                    {"fast_math", o.fast_math},
                    {"round", std::string(to_string(o.round))},
                    {"rs_map", o.rs_map == RsBitMap::ptx_doc ? "ptx_doc" : "flashinfer_hw"},
                    {"rht", o.rht},
                    {"rht_signs", o.rht_signs},
                    {"rht_out", o.rht_out == RhtOut::bf16 ? "bf16" : "f32"},
                    {"te_test_reference", o.te_test_reference},
                    {"four_over_six", std::string(to_string(o.four_over_six))},
                    {"row_scaled", o.row_scaled},
                    {"e4m3_max", o.e4m3_max},
                    {"err_fast_math", o.err_fast_math}};
      if (o.global_amax) j["nvfp4"]["global_amax"] = f32_hex(std::bit_cast<uint32_t>(*o.global_amax));
      if (o.block != 16) j["nvfp4"]["block"] = o.block;  // auto-round's 32 (files before it: 16)
      break;
    }
    case RecipeKind::fp8_current:
      j["fp8"] = {{"format", std::string(info(r.fp8).name)}, {"pow2", r.pow2}};
      break;
    case RecipeKind::fp8_block:
      j["fp8"] = {{"format", std::string(info(r.fp8).name)}, {"pow2", r.pow2}, {"tile128", r.tile128}};
      break;
  }
  j["upstream"] = upstream_json(r);
  return j;
}

namespace {
// "upstream" is derived from the options (and x's format); a case that names another upstream
// version than its options compute is refused rather than silently re-labelled.
void check_upstream(const json& j, const Recipe& r, const std::string& w) {
  if (!j.contains("upstream")) return;
  const json& u = j["upstream"];
  if (!u.is_object()) fail(w + ".upstream", "must be an object {repo, ref, file}");
  only_keys(u, w + ".upstream", {"repo", "ref", "file"});
  const json want = upstream_json(r);
  for (const char* k : {"repo", "ref", "file"}) {
    if (!u.contains(k)) fail(w + ".upstream." + k, "missing");
    if (str(u, k, w + ".upstream") != want[k].get<std::string>())
      fail(w + ".upstream." + k, "is '" + u[k].get<std::string>() + "', but the recipe's options follow " +
                                     want["repo"].get<std::string>() + " " + want["ref"].get<std::string>() + " (" +
                                     want["file"].get<std::string>() + ")");
  }
}
}  // namespace

void check_recipe_upstream(const json& j, const Recipe& r, const std::string& where) { check_upstream(j, r, where); }

Recipe parse_recipe_json(const json& j, const std::string& w) {
  if (!j.is_object()) fail(w, "must be an object {name, kind, mx | nvfp4 | fp8, upstream}");
  only_keys(j, w, {"name", "kind", "mx", "nvfp4", "fp8", "upstream"});
  if (!j.contains("name")) fail(w + ".name", "missing");
  const std::string name = str(j, "name", w);
  std::optional<Recipe> found = find_recipe(name);
  if (!found) {
    std::string list;
    for (const RecipePreset& p : recipe_presets()) list += (list.empty() ? "" : ", ") + std::string(p.name);
    fail(w + ".name", "unknown recipe '" + name + "' (one of " + list + ")");
  }
  Recipe r = *found;
  const std::string kind = kind_name(r.kind);
  if (j.contains("kind")) {
    const std::string k = str(j, "kind", w);
    if (k != "mx" && k != "nvfp4" && k != "fp8-current" && k != "fp8-block")
      fail(w + ".kind", "unknown value '" + k + "' (one of mx, nvfp4, fp8-current, fp8-block)");
    if (k != kind) fail(w + ".kind", "is " + k + "; recipe '" + name + "' is " + kind);
  }
  const char* sub = r.kind == RecipeKind::mx ? "mx" : r.kind == RecipeKind::nvfp4 ? "nvfp4" : "fp8";
  for (const char* other : {"mx", "nvfp4", "fp8"})
    if (std::string_view(other) != sub && j.contains(other))
      fail(w + "." + other, "does not apply to recipe '" + name + "' (kind " + kind + ": options go in \"" + sub + "\")");
  if (!j.contains(sub)) return r;
  const json& o = j[sub];
  const std::string wo = w + "." + sub;
  if (!o.is_object()) fail(wo, "must be an object");
  switch (r.kind) {
    case RecipeKind::mx: read_mx(r.mx, o, wo); break;
    case RecipeKind::nvfp4: read_nvfp4(r.nvfp4, o, wo); break;
    case RecipeKind::fp8_current:
      only_keys(o, wo, {"format", "pow2"});
      break;
    case RecipeKind::fp8_block:
      only_keys(o, wo, {"format", "pow2", "tile128"});
      if (o.contains("tile128")) r.tile128 = boolean(o, "tile128", wo);
      break;
  }
  if (r.kind == RecipeKind::fp8_current || r.kind == RecipeKind::fp8_block) {
    if (o.contains("format")) r.fp8 = fmt_choice(o, "format", wo, {Fmt::e4m3, Fmt::e5m2});
    if (o.contains("pow2")) r.pow2 = boolean(o, "pow2", wo);
  }
  return r;
}

QuantShapes quant_shapes(const Recipe& r, size_t rows, size_t cols, const std::string& w) {
  QuantShapes s;
  BlockGrid g;
  switch (r.kind) {
    case RecipeKind::mx:
      s.codes = elem_type(r.mx.elem);
      s.scales = elem_type(Fmt::ue8m0);
      g = make_grid(rows, cols, r.mx.axis, r.mx.block);
      if (r.mx.round == Round::rs) s.rbits_rows = rows, s.rbits_cols = cols;
      break;
    case RecipeKind::nvfp4: {
      const Nvfp4Options& o = r.nvfp4;
      s.codes = elem_type(Fmt::e2m1);
      s.scales = elem_type(nvfp4_scale_fmt(o.order));
      s.global = nvfp4_has_global(o.order);
      s.global_rows = o.row_scaled ? rows : 1;
      g = make_grid(rows, cols, o.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, o.block);
      if (const std::string e = nvfp4_quantize_error(rows * cols, rows, cols,
                                                    [&] { Nvfp4Options p = o; p.global_amax.reset(); return p; }(), 0);
          nvfp4_autoround_order(o.order) && !e.empty())
        fail(w + ".nvfp4.order", e);
      if (o.te_test_reference && (o.order != Nvfp4Order::te || o.tile2d))
        fail(w + ".nvfp4.te_test_reference", "TE's test reference is modelled for order te with 1x16 blocks");
      if (o.rht && cols % 16 != 0)
        fail(w + ".nvfp4.rht", "the 16-point Hadamard transform needs a multiple of 16 columns, x has " + std::to_string(cols));
      if (nvfp4_te_variant(o) || o.e4m3_max != 448 || o.err_fast_math) {
        Nvfp4Options probe = o;  // the variant's rules on this shape (a 0-row / 0-col shape is checked elsewhere)
        probe.global_amax.reset();
        if (o.row_scaled && o.global_amax) fail(w + ".nvfp4.global_amax", "row-scaled NVFP4 takes each row's amax");
        if (const std::string e = nvfp4_quantize_error(rows * cols, rows, cols, probe, 0); !e.empty())
          fail(w + (o.row_scaled ? ".nvfp4.row_scaled" : ".nvfp4.four_over_six"), e);
      }
      if (o.round == Round::rs) {
        if (o.order != Nvfp4Order::te && o.order != Nvfp4Order::te_div6)
          fail(w + ".nvfp4.round", "stochastic rounding is modelled for TE's orders only (te, te-div6)");
        if (cols % 4 != 0)
          fail(w + ".nvfp4.round", "stochastic rounding packs 4 elements: x needs a multiple of 4 columns, has " + std::to_string(cols));
        s.rbits_rows = rows;
        s.rbits_cols = cols / 4;
      }
      break;
    }
    case RecipeKind::fp8_current:
      s.codes = elem_type(r.fp8);
      s.scales = elem_type(Fmt::f32);
      g = make_grid(1, 1, BlockAxis::rowwise, 1);
      break;
    case RecipeKind::fp8_block:
      s.codes = elem_type(r.fp8);
      s.scales = elem_type(Fmt::f32);
      g = make_grid(rows, cols, r.tile128 ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
      break;
  }
  s.scale_rows = g.scale_rows();
  s.scale_cols = g.scale_cols();
  return s;
}

std::vector<float> quant_input_values(const Array& x) {
  const std::vector<uint64_t> codes = x.logical();
  std::vector<float> v(codes.size());
  for (size_t i = 0; i < codes.size(); ++i) v[i] = code_to_f32(*x.type.fmt, codes[i]);
  return v;
}

Case quantize_case(const std::string& name, const Recipe& r, const Array& x, const std::vector<uint32_t>& rbits,
                   const Quantized& q, Provenance provenance) {
  const QuantShapes s = quant_shapes(r, x.rows, x.cols);
  Case c;
  c.name = name;
  c.op = OpKind::quantize;
  c.quant.recipe = r;
  c.quant.recipe.input = *x.type.fmt;
  c.quant.rows = x.rows;
  c.quant.cols = x.cols;
  c.operands["x"] = x;
  if (s.rbits_rows) {
    if (rbits.size() != s.rbits_rows * s.rbits_cols)
      throw GoldenError("case " + name + ": " + std::to_string(rbits.size()) + " random words, the recipe needs " +
                        std::to_string(s.rbits_rows * s.rbits_cols));
    c.operands["rbits"] = make_array(bits_type(32), s.rbits_rows, s.rbits_cols, {rbits.begin(), rbits.end()});
  }
  c.expected = make_array(s.codes, x.rows, x.cols, {q.codes.begin(), q.codes.end()});
  c.expected_name = "codes";
  std::vector<uint64_t> sc;
  if (s.scales.name == "f32")
    for (float f : q.scale_f32) sc.push_back(std::bit_cast<uint32_t>(f));
  else
    sc.assign(q.scale_codes.begin(), q.scale_codes.end());
  c.extra_expected["scales"] = make_array(s.scales, s.scale_rows, s.scale_cols, sc);
  if (s.global) {
    std::vector<uint64_t> g;
    if (s.global_rows == 1) g.push_back(std::bit_cast<uint32_t>(q.global_scale));
    for (float f : q.row_global) g.push_back(std::bit_cast<uint32_t>(f));
    c.extra_expected["global"] = make_array(elem_type(Fmt::f32), s.global_rows, 1, g, false, true);
  }
  c.provenance = std::move(provenance);
  return c;
}

namespace {
Quantized run_recipe(const Recipe& r0, const Array& x, const std::vector<uint32_t>& rbits, const std::string& name) {
  const std::vector<float> v = quant_input_values(x);
  Recipe r = r0;
  r.input = *x.type.fmt;  // TE picks kernels by the input's format
  Result<Quantized> q = quantize(r, v, x.rows, x.cols, rbits);
  if (!q.ok()) throw GoldenError("case " + name + ": recipe '" + r.name + "' refuses the input: " + q.error);
  return std::move(q.value);
}
}  // namespace

Case make_quantize_case(const std::string& name, const Recipe& r, const Array& x, const std::vector<uint32_t>& rbits,
                        Provenance provenance) {
  return quantize_case(name, r, x, rbits, run_recipe(r, x, rbits, name), std::move(provenance));
}

std::map<std::string, Array> evaluate_quantize(const Case& c) {
  const Array& x = c.operands.at("x");
  std::vector<uint32_t> rbits;
  if (auto it = c.operands.find("rbits"); it != c.operands.end())
    for (uint64_t w : it->second.logical()) rbits.push_back(static_cast<uint32_t>(w));
  const Case fresh = quantize_case(c.name, c.quant.recipe, x, rbits, run_recipe(c.quant.recipe, x, rbits, c.name), {});
  // In the layouts of the case's own arrays (a hand-written case may store them column-major).
  std::map<std::string, Array> out;
  auto like = [](const Array& layout, const Array& values) {
    if (layout.rows != values.rows || layout.cols != values.cols || !(layout.type == values.type)) return values;
    Array a = layout;
    a.npy.clear();
    for (size_t r = 0; r < a.rows; ++r)
      for (size_t k = 0; k < a.cols; ++k) a.set(r, k, values.at(r, k));
    return a;
  };
  out["codes"] = like(c.expected, fresh.expected);
  for (const auto& [name, a] : fresh.extra_expected) {
    auto it = c.extra_expected.find(name);
    out[name] = it == c.extra_expected.end() ? a : like(it->second, a);
  }
  return out;
}

}  // namespace tcemu::golden
