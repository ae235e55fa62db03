// Golden cases of op "quantize": lossless round trips for every recipe preset (inline hex and
// .npy), evaluation, every reading error with a message naming the field, and compare on the
// codes and on the scales. Values: the published block containing 480 (torchao's contract, positive_satfinite) (FLOOR: scale
// 2^0 = 0x7f and 480 -> 448 = 0x7e; RCEIL: scale 2^1 = 0x80 and 480 -> 240 = 0x77; 1.0 is e4m3
// 0x38, 0.5 is 0x30), written by hand as JSON, not by the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <set>

#include "golden_test_support.hpp"
#include "tcemu/philox.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::golden {
namespace {

using nlohmann::json;
using test::TempDir;
namespace q = tcemu::quant;

Provenance prov(uint64_t seed) {
  Provenance p;
  p.fields = {{"source", "tcemu"}, {"tcemu_version", std::string(kTcemuVersion)}, {"model", "test"}, {"seed", seed},
              {"generator", {{"test", "quantize_case_test"}}}};
  return p;
}

// rows x cols f32 codes, normal with a few wide values and specials (NaN only where asked).
Array input(size_t rows, size_t cols, uint64_t seed, bool specials) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<uint64_t> v(rows * cols);
  for (size_t i = 0; i < v.size(); ++i) {
    float f = n(g);
    if (i % 17 == 3) f *= 1000.0f;
    if (i % 29 == 5) f = 0.0f;
    v[i] = std::bit_cast<uint32_t>(f);
  }
  if (specials) v[7] = 0x7FC00000u;  // a NaN
  return make_array(elem_type(Fmt::f32), rows, cols, v);
}

// Every preset, plus variants that exercise every option group: stochastic rounding (MX and
// NVFP4), the RHT, a given global amax, FP8 e5m2 and exact block scales.
std::vector<q::Recipe> recipes() {
  std::vector<q::Recipe> out;
  for (const q::RecipePreset& p : q::recipe_presets()) out.push_back(*q::find_recipe(p.name));
  q::Recipe r = *q::find_recipe("mx");
  r.mx.round = Round::rs;
  r.mx.axis = q::BlockAxis::tile2d;
  r.mx.block = 8;
  r.mx.cast = q::ElemCast::ptx;
  r.mx.rceil_log2 = q::RceilLog2::f32_log2;
  out.push_back(r);
  r = *q::find_recipe("mxfp8-torchao");
  r.mx.axis = q::BlockAxis::columnwise;
  r.mx.amax_nan = q::AmaxNan::ignore_nonfinite;
  out.push_back(r);
  r = *q::find_recipe("nvfp4");
  r.nvfp4.round = Round::rs;
  r.nvfp4.rht = true;
  r.nvfp4.fast_math = true;
  r.nvfp4.rs_map = RsBitMap::flashinfer_hw;
  r.nvfp4.global_amax = 1234.5f;
  out.push_back(r);
  r = *q::find_recipe("fp8-block1x128");
  r.fp8 = Fmt::e5m2;
  r.pow2 = false;
  out.push_back(r);
  r = *q::find_recipe("fp8-current");
  r.pow2 = true;
  out.push_back(r);
  // Older upstream releases, named variants (docs/quantization.md).
  r = *q::find_recipe("mxfp4");
  r.mx.variant = q::MxVariant::torchao_0_18;
  out.push_back(r);
  r = *q::find_recipe("mxfp8");
  r.mx.variant = q::MxVariant::te_2_12;
  out.push_back(r);
  // TE's 4over6 with MSE and E4M3 max 448 (the presets cover MAE / 256 and row-scaled).
  r = *q::find_recipe("nvfp4-4over6");
  r.nvfp4.four_over_six = q::FourOverSix::min_mse;
  r.nvfp4.e4m3_max = 448;
  out.push_back(r);
  for (q::Nvfp4Order o : {q::Nvfp4Order::torchao_single, q::Nvfp4Order::torchao_0_16, q::Nvfp4Order::torchao_single_0_17}) {
    r = *q::find_recipe("nvfp4-torchao");
    r.nvfp4.order = o;
    out.push_back(r);
  }
  return out;
}

Case sample_case(const q::Recipe& r, size_t rows = 4, size_t cols = 160, uint64_t seed = 1) {
  const Array x = input(rows, cols, seed, r.kind == q::RecipeKind::mx);
  std::vector<uint32_t> rbits(q::random_words_needed(r, rows * cols));
  std::mt19937 g(static_cast<uint32_t>(seed));
  for (uint32_t& w : rbits) w = g();
  return make_quantize_case(std::string("q_").append(r.name), r, x, rbits, prov(seed));
}

void expect_same_case(const Case& a, const Case& b) {
  EXPECT_EQ(b.op, OpKind::quantize);
  EXPECT_EQ(recipe_json(a.quant.recipe), recipe_json(b.quant.recipe));
  ASSERT_EQ(a.operands.size(), b.operands.size());
  for (const auto& [n, arr] : a.operands) {
    EXPECT_EQ(arr.type.name, b.operands.at(n).type.name) << n;
    EXPECT_EQ(arr.raw, b.operands.at(n).raw) << n;
  }
  EXPECT_EQ(a.expected.type.name, b.expected.type.name);
  EXPECT_EQ(a.expected.raw, b.expected.raw);
  ASSERT_EQ(a.extra_expected.size(), b.extra_expected.size());
  for (const auto& [n, arr] : a.extra_expected) {
    EXPECT_EQ(arr.type.name, b.extra_expected.at(n).type.name) << n;
    EXPECT_EQ(arr.rows, b.extra_expected.at(n).rows) << n;
    EXPECT_EQ(arr.cols, b.extra_expected.at(n).cols) << n;
    EXPECT_EQ(arr.raw, b.extra_expected.at(n).raw) << n;
  }
}

TEST(QuantizeCase, RoundTripEveryRecipeInlineAndNpy) {
  TempDir dir("quantize_rt");
  for (const q::Recipe& r : recipes()) {
    SCOPED_TRACE(recipe_json(r).dump());
    for (size_t threshold : {size_t{0}, size_t{16}}) {
      GoldenFile f;
      f.cases.push_back(sample_case(r));
      const Case original = f.cases[0];
      const std::string path = dir.file(std::string("rt").append(std::to_string(threshold)).append(".json"));
      write_golden(path, f, threshold);
      const GoldenFile back = read_golden(path);
      ASSERT_EQ(back.cases.size(), 1u);
      expect_same_case(original, back.cases[0]);
      EXPECT_EQ(back.cases[0].expected.npy.empty(), threshold == 0);
      // The recipe read back quantizes alike: the case reproduces.
      EXPECT_TRUE(not_reproduced(back.cases[0]).empty());
      // The document is a fixed point of read + write.
      GoldenFile again = back;
      write_golden(path, again, 0);
      GoldenFile once = f;
      write_golden(dir.file("once.json"), once, 0);
      EXPECT_EQ(test::slurp(path), test::slurp(dir.file("once.json")));
    }
  }
}

TEST(QuantizeCase, EvaluationMatchesTheRecipeBitForBit) {
  for (const q::Recipe& r : recipes()) {
    SCOPED_TRACE(r.name);
    const Case c = sample_case(r, 3, 96, 9);
    const std::map<std::string, Array> all = evaluate_all(c);
    EXPECT_EQ(all.at("codes").raw, c.expected.raw);
    EXPECT_EQ(all.at("scales").raw, c.extra_expected.at("scales").raw);
    EXPECT_EQ(all.count("global"), r.kind == q::RecipeKind::nvfp4 && q::nvfp4_has_global(r.nvfp4.order) ? 1u : 0u);
    EXPECT_EQ(evaluate_as_expected(c).raw, c.expected.raw);
    // Planted differences are seen per array.
    Case bad = c;
    bad.expected.set(1, 5, bad.expected.at(1, 5) ^ 1);
    EXPECT_EQ(not_reproduced(bad), std::vector<std::string>{"codes"});
    bad = c;
    Array& s = bad.extra_expected.at("scales");
    s.set(0, 0, s.at(0, 0) ^ 1);
    EXPECT_EQ(not_reproduced(bad), std::vector<std::string>{"scales"});
  }
}

// The published block containing 480, written by hand (x: 1.0 everywhere, 480 at element 3 of
// each of the 2 rows of 32).
json published_480(const std::string& recipe, const std::string& scale_hex, const std::string& big_code,
                   const std::string& one_code) {
  std::string x, codes;
  for (int i = 0; i < 64; ++i) {
    x += i % 32 == 3 ? "43f00000" : "3f800000";
    codes += i % 32 == 3 ? big_code : one_code;
  }
  json c = {{"name", std::string("block480_").append(recipe)},
            {"op", "quantize"},
            {"recipe", {{"name", recipe}}},
            {"operands", {{"x", {{"type", "f32"}, {"shape", {2, 32}}, {"hex", x}}}}},
            {"expected",
             {{"codes", {{"type", "e4m3"}, {"shape", {2, 32}}, {"hex", codes}}},
              {"scales", {{"type", "ue8m0"}, {"shape", {2, 1}}, {"hex", scale_hex + scale_hex}}}}},
            {"provenance", {{"source", "tcemu"}, {"tcemu_version", "0.1.0"}, {"model", "torchao _mxfp8_test_utils.py"}, {"seed", 0},
                            {"generator", "by hand"}}}};
  return {{"format", "tcemu-golden"}, {"version", 1}, {"cases", {c}}};
}

TEST(QuantizeCase, PublishedBlockContaining480ThroughJson) {
  // FLOOR (OCP MX, recipe mx): scale 2^0, 480 -> 448; RCEIL (mxfp8, TE): scale 2^1, 480 -> 240.
  const GoldenFile floor = parse_golden(published_480("mx", "7f", "7e", "38"), ".", "floor");
  const GoldenFile rceil = parse_golden(published_480("mxfp8", "80", "77", "30"), ".", "rceil");
  EXPECT_TRUE(not_reproduced(floor.cases[0]).empty());
  EXPECT_TRUE(not_reproduced(rceil.cases[0]).empty());
  // Each recipe with the other's expected result is caught, codes and scales both.
  json swapped = published_480("mxfp8", "7f", "7e", "38");
  const GoldenFile wrong = parse_golden(swapped, ".", "swapped");
  EXPECT_EQ(not_reproduced(wrong.cases[0]), (std::vector<std::string>{"codes", "scales"}));
  // Written by the emulator, the same case reads back identical to the hand-written one.
  const Case made = make_quantize_case("block480_mxfp8", *q::find_recipe("mxfp8"), rceil.cases[0].operands.at("x"), {},
                                       rceil.cases[0].provenance);
  EXPECT_EQ(made.expected.raw, rceil.cases[0].expected.raw);
  EXPECT_EQ(made.extra_expected.at("scales").raw, rceil.cases[0].extra_expected.at("scales").raw);
}

// A valid document to break: NVFP4 with stochastic rounding (rbits and global present).
json valid_doc(const std::string& recipe = "nvfp4", Round round = Round::rs) {
  q::Recipe r = *q::find_recipe(recipe);
  if (r.kind == q::RecipeKind::nvfp4) r.nvfp4.round = round;
  if (r.kind == q::RecipeKind::mx) r.mx.round = round;
  GoldenFile f;
  f.cases.push_back(sample_case(r, 2, 32, 3));
  return to_json(f);
}

std::string read_error(const json& doc) {
  try {
    parse_golden(doc, ".", "f");
  } catch (const GoldenError& e) {
    return e.what();
  }
  return "(accepted)";
}

#define EXPECT_ERROR(doc, field, words)                                 \
  do {                                                                  \
    const std::string m = read_error(doc);                              \
    EXPECT_NE(m.find(std::string("f.cases[0].") + field + ":"), std::string::npos) << m; \
    EXPECT_NE(m.find(words), std::string::npos) << m;                   \
  } while (0)

TEST(QuantizeCase, ReadingErrorsNameTheField) {
  const json ok = valid_doc();
  ASSERT_EQ(read_error(ok), "(accepted)");
  json d = ok;
  d["cases"][0]["recipe"]["name"] = "nvfp5";
  EXPECT_ERROR(d, "recipe.name", "unknown recipe 'nvfp5'");
  d = ok;
  d["cases"][0]["recipe"].erase("name");
  EXPECT_ERROR(d, "recipe.name", "missing");
  d = ok;
  d["cases"][0].erase("recipe");
  EXPECT_ERROR(d, "recipe", "missing");
  d = ok;
  d["cases"][0]["recipe"]["kind"] = "mx";
  EXPECT_ERROR(d, "recipe.kind", "recipe 'nvfp4' is nvfp4");
  d = ok;
  d["cases"][0]["recipe"]["kind"] = "mxx";
  EXPECT_ERROR(d, "recipe.kind", "unknown value 'mxx'");
  d = ok;
  d["cases"][0]["recipe"]["mx"] = json::object();
  EXPECT_ERROR(d, "recipe.mx", "does not apply to recipe 'nvfp4'");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["order"] = "cublas";
  EXPECT_ERROR(d, "recipe.nvfp4.order", "unknown value 'cublas'");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["order"] = "torchao";  // rs is modelled for TE's order only
  EXPECT_ERROR(d, "recipe.nvfp4.round", "TE's orders only");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["round"] = "rz";
  EXPECT_ERROR(d, "recipe.nvfp4.round", "unknown value 'rz'");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["global_amax"] = "1.5";
  EXPECT_ERROR(d, "recipe.nvfp4.global_amax", "8 hex digits");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["rht_signs"] = 70000;
  EXPECT_ERROR(d, "recipe.nvfp4.rht_signs", "0..65535");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["tile2d"] = 1;
  EXPECT_ERROR(d, "recipe.nvfp4.tile2d", "true or false");
  // TE's variants: their option values, what TE refuses, and one S_enc per row when row-scaled.
  const json rn = valid_doc("nvfp4-row-scaled", Round::rn);
  ASSERT_EQ(read_error(rn), "(accepted)");
  d = rn;
  d["cases"][0]["recipe"]["nvfp4"]["e4m3_max"] = 300;
  EXPECT_ERROR(d, "recipe.nvfp4.e4m3_max", "448 or 256");
  d = rn;
  d["cases"][0]["recipe"]["nvfp4"]["four_over_six"] = "max";
  EXPECT_ERROR(d, "recipe.nvfp4.four_over_six", "unknown value 'max'");
  d = rn;
  d["cases"][0]["recipe"]["nvfp4"]["tile2d"] = true;
  EXPECT_ERROR(d, "recipe.nvfp4.row_scaled", "2D");
  d = rn;
  d["cases"][0]["expected"]["global"]["shape"] = json::array({1});
  d["cases"][0]["expected"]["global"]["hex"] = "43e00000";
  EXPECT_ERROR(d, "expected.global.shape", "must be [2]");
  d = valid_doc("nvfp4-4over6", Round::rn);
  d["cases"][0]["recipe"]["nvfp4"]["tile2d"] = true;  // 2 rows: TE's 16x16 4over6 needs 16
  EXPECT_ERROR(d, "recipe.nvfp4.four_over_six", "multiple of 16");
  d = ok;
  d["cases"][0]["recipe"]["nvfp4"]["colour"] = "red";
  EXPECT_ERROR(d, "recipe.nvfp4.colour", "unknown field");
  d = ok;
  d["cases"][0]["operands"].erase("rbits");
  EXPECT_ERROR(d, "operands.rbits", "missing");
  d = ok;
  d["cases"][0]["operands"]["rbits"]["shape"] = {2, 7};
  d["cases"][0]["operands"]["rbits"]["hex"] = std::string(2 * 7 * 8, '0');
  EXPECT_ERROR(d, "operands.rbits.shape", "one random word per 4 elements");
  d = ok;
  d["cases"][0]["expected"].erase("global");
  EXPECT_ERROR(d, "expected.global", "missing");
  d = ok;
  d["cases"][0]["expected"]["global"]["shape"] = {2};
  d["cases"][0]["expected"]["global"]["hex"] = "0000000000000000";
  EXPECT_ERROR(d, "expected.global.shape", "must be [1]");
  d = ok;
  d["cases"][0]["expected"].erase("scales");
  EXPECT_ERROR(d, "expected.scales", "missing");
  d = ok;
  d["cases"][0]["expected"]["scales"]["shape"] = {2, 1};
  d["cases"][0]["expected"]["scales"]["hex"] = "0000";
  EXPECT_ERROR(d, "expected.scales.shape", "recipe 'nvfp4'");
  d = ok;
  d["cases"][0]["expected"]["scales"]["type"] = "ue8m0";
  EXPECT_ERROR(d, "expected.scales.type", "needs e4m3");
  d = ok;
  d["cases"][0]["expected"]["codes"]["shape"] = {2, 16};
  d["cases"][0]["expected"]["codes"]["hex"] = std::string(32, '0');
  EXPECT_ERROR(d, "expected.codes.shape", "the shape of x");
  d = ok;
  d["cases"][0]["expected"]["codes"]["type"] = "e4m3";
  d["cases"][0]["expected"]["codes"]["hex"] = std::string(64 * 2, '0');
  EXPECT_ERROR(d, "expected.codes.type", "needs e2m1");
  d = ok;
  {
    std::string h = d["cases"][0]["expected"]["codes"]["hex"];
    h[0] = 'g';
    d["cases"][0]["expected"]["codes"]["hex"] = h;
  }
  EXPECT_ERROR(d, "expected.codes.hex", "not a hex digit");
  d = ok;
  d["cases"][0]["expected"]["D"] = d["cases"][0]["expected"]["codes"];
  EXPECT_ERROR(d, "expected.D", "unknown field");
  d = ok;
  d["cases"][0]["operands"]["x"]["type"] = "e4m3";
  d["cases"][0]["operands"]["x"]["hex"] = std::string(64 * 2, '0');
  EXPECT_ERROR(d, "operands.x.type", "f32, f16 or bf16");
  d = ok;
  d["cases"][0]["operands"]["x"]["shape"] = {64};
  d["cases"][0]["operands"]["x"].erase("order");
  EXPECT_ERROR(d, "operands.x.shape", "[rows, cols]");
  d = ok;
  d["cases"][0]["op"] = "quantise";
  EXPECT_ERROR(d, "op", "quantize");

  // Without stochastic rounding: rbits refused; an MX recipe has no global scale.
  const json mx = valid_doc("mxfp6-e3m2", Round::rn);
  ASSERT_EQ(read_error(mx), "(accepted)");
  d = mx;
  d["cases"][0]["operands"]["rbits"] = {{"type", "b32"}, {"shape", {2, 32}}, {"hex", std::string(64 * 8, '0')}};
  EXPECT_ERROR(d, "operands.rbits", "only stochastic rounding");
  d = mx;
  d["cases"][0]["expected"]["global"] = {{"type", "f32"}, {"shape", {1}}, {"hex", "3f800000"}};
  EXPECT_ERROR(d, "expected.global", "only NVFP4");
  d = mx;  // e3m2 codes are 6 bits: 0x40 is out of range
  {
    std::string h = d["cases"][0]["expected"]["codes"]["hex"];
    h[0] = '4';
    h[1] = '0';
    d["cases"][0]["expected"]["codes"]["hex"] = h;
  }
  EXPECT_ERROR(d, "expected.codes.hex", "out of range for e3m2");
  d = mx;
  d["cases"][0]["recipe"]["mx"]["scale"] = "round";
  EXPECT_ERROR(d, "recipe.mx.scale", "unknown value 'round'");
  d = mx;
  d["cases"][0]["recipe"]["mx"]["axis"] = "diag";
  EXPECT_ERROR(d, "recipe.mx.axis", "unknown value 'diag'");
  d = mx;
  d["cases"][0]["recipe"]["mx"]["elem"] = "f16";
  EXPECT_ERROR(d, "recipe.mx.elem", "unknown value 'f16'");
  d = mx;
  d["cases"][0]["recipe"]["mx"]["block"] = 0;
  EXPECT_ERROR(d, "recipe.mx.block", "must be in 1..");
  d = mx;
  d["cases"][0]["recipe"]["mx"]["round"] = "rs";
  EXPECT_ERROR(d, "operands.rbits", "missing");
  d = mx;  // a block of 16 gives 2 x 2 scales, not the 2 x 1 written
  d["cases"][0]["recipe"]["mx"]["block"] = 16;
  EXPECT_ERROR(d, "expected.scales.shape", "recipe 'mxfp6-e3m2'");

  const json fp8 = valid_doc("fp8-current", Round::rn);
  ASSERT_EQ(read_error(fp8), "(accepted)");
  d = fp8;
  d["cases"][0]["recipe"]["fp8"]["tile128"] = true;
  EXPECT_ERROR(d, "recipe.fp8.tile128", "unknown field");
  d = fp8;
  d["cases"][0]["recipe"]["fp8"]["format"] = "e2m1";
  EXPECT_ERROR(d, "recipe.fp8.format", "unknown value 'e2m1'");
  d = fp8;
  d["cases"][0]["expected"]["scales"]["type"] = "ue8m0";
  d["cases"][0]["expected"]["scales"]["hex"] = "7f";
  EXPECT_ERROR(d, "expected.scales.type", "needs f32");
}

TEST(QuantizeCase, CompareFindsPlantedDifferences) {
  TempDir dir("quantize_cmp");
  const Case c = sample_case(*q::find_recipe("nvfp4"), 4, 64, 5);
  // Codes: the main expected array, against an array (what an .npy or raw file gives).
  Array act = c.expected;
  act.set(2, 17, act.at(2, 17) ^ 0x3);
  CompareReport r = compare(c, act);
  EXPECT_EQ(r.mismatches, 1u);
  ASSERT_EQ(r.first.size(), 1u);
  EXPECT_EQ(r.first[0].row, 2u);
  EXPECT_EQ(r.first[0].col, 17u);
  EXPECT_EQ(r.expected_name, "codes");
  // Scales and global: parts, read from a golden ACTUAL holding the same case.
  GoldenFile f;
  f.cases.push_back(c);
  Array& s = f.cases[0].extra_expected.at("scales");
  s.set(3, 1, s.at(3, 1) ^ 0x10);
  write_golden(dir.file("actual.json"), f, 0);
  const std::vector<Case> parts = expected_parts(c);
  ASSERT_EQ(parts.size(), 2u);  // global, scales
  size_t total = 0;
  for (const Case& p : parts) {
    const Array a = read_actual(dir.file("actual.json"), p);
    const CompareReport pr = compare(p, a);
    total += pr.mismatches;
    if (p.expected_name == "scales") {
      EXPECT_EQ(pr.mismatches, 1u);
      ASSERT_EQ(pr.first.size(), 1u);
      EXPECT_EQ(pr.first[0].row, 3u);
      EXPECT_EQ(pr.first[0].col, 1u);
    } else {
      EXPECT_EQ(p.expected_name, "global");
      EXPECT_EQ(pr.mismatches, 0u);
    }
  }
  EXPECT_EQ(total, 1u);
  EXPECT_EQ(compare(c, read_actual(dir.file("actual.json"), c)).mismatches, 0u);
}

// golden gen's quantize cases: deterministic in the seed, Philox words for rs, reproduced.
TEST(QuantizeCase, GeneratedCasesAreDeterministic) {
  QuantizeGenRequest g;
  g.recipe = *q::find_recipe("mxfp8");
  g.recipe.mx.round = Round::rs;
  g.rows = 3;
  g.cols = 64;
  g.dist = Dist::specials;
  g.seed = 4;
  g.philox_offset = 8;
  const Case a = generate_quantize(g), b = generate_quantize(g);
  EXPECT_EQ(a.name, "quantize_mxfp8_specials_s4");
  EXPECT_EQ(a.operands.at("x").raw, b.operands.at("x").raw);
  EXPECT_EQ(a.expected.raw, b.expected.raw);
  const std::vector<uint32_t> words = philox_words(4, 8, 3 * 64);
  EXPECT_EQ(a.operands.at("rbits").logical(), std::vector<uint64_t>(words.begin(), words.end()));
  EXPECT_TRUE(not_reproduced(a).empty());
  EXPECT_EQ(a.provenance.fields.at("generator").at("dist"), "specials");
  g.seed = 5;
  EXPECT_NE(generate_quantize(g).operands.at("x").raw, a.operands.at("x").raw);
}

// Each case records the upstream version its recipe follows; a case naming another one is
// refused, naming the field.
TEST(QuantizeCase, RecordsTheUpstreamVersion) {
  EXPECT_EQ(valid_doc("nvfp4-4over6", Round::rn)["cases"][0]["recipe"]["upstream"]["file"],
            "transformer_engine/common/cast/nvfp4/quantize_4over6_nvfp4.cuh");
  json d = valid_doc("mx", Round::rn);
  const json& u = d["cases"][0]["recipe"]["upstream"];
  EXPECT_EQ(u["repo"], "pytorch/ao");
  EXPECT_EQ(u["ref"], "36027d82d1ad9949597ea16002ff4940374b1b94");
  EXPECT_EQ(u["file"], "torchao/prototype/mx_formats/mx_tensor.py");
  EXPECT_EQ(d["cases"][0]["recipe"]["mx"]["variant"], "current");
  json te = valid_doc("mxfp8", Round::rn);
  EXPECT_EQ(te["cases"][0]["recipe"]["upstream"]["repo"], "NVIDIA/TransformerEngine");
  EXPECT_EQ(te["cases"][0]["recipe"]["upstream"]["ref"], "d0067d0da6cb01811b8072a7d304f0e00344ce2b");
  // The older variant names its last release.
  d["cases"][0]["recipe"]["mx"]["variant"] = "torchao-0.18";
  d["cases"][0]["recipe"]["upstream"]["ref"] = "v0.18.0";
  EXPECT_NO_THROW(parse_golden(d, ".", "variant"));
  d["cases"][0]["recipe"]["upstream"]["ref"] = "36027d82d1ad9949597ea16002ff4940374b1b94";
  EXPECT_ERROR(d, "recipe.upstream.ref", "follow pytorch/ao v0.18.0");
  d["cases"][0]["recipe"]["mx"]["variant"] = "te-2.12";
  EXPECT_ERROR(d, "recipe.mx.variant", "rceil-sat only");
  // NVFP4 fast math: bf16 x goes to TE's tuned kernel, f32 x to the other one.
  q::Recipe r = *q::find_recipe("nvfp4");
  r.nvfp4.fast_math = true;
  Array x = make_array(elem_type(Fmt::bf16), 1, 16, std::vector<uint64_t>(16, 0x3F80));
  const Case c = make_quantize_case("fast", r, x, {}, prov(1));
  EXPECT_EQ(recipe_json(c.quant.recipe)["upstream"]["file"],
            "transformer_engine/common/cast/nvfp4/specialized/quantize_transpose_nvfp4_tuned_1D.cuh");
  x = make_array(elem_type(Fmt::f32), 1, 16, std::vector<uint64_t>(16, 0x3F800000));
  EXPECT_EQ(recipe_json(make_quantize_case("f32", r, x, {}, prov(1)).quant.recipe)["upstream"]["file"],
            "transformer_engine/common/cast/nvfp4/quantize_transpose_nvfp4.cuh");
}

// The JSON Schema lists the presets and option values the reader accepts.
TEST(QuantizeCase, SchemaListsTheRecipes) {
  const json s = json::parse(test::slurp(std::string(TCEMU_SOURCE_DIR) + "/golden/schema/golden-v1.schema.json"));
  std::set<std::string> listed, known;
  for (const auto& n : s["$defs"]["recipe"]["properties"]["name"]["enum"]) listed.insert(n.get<std::string>());
  for (const q::RecipePreset& p : q::recipe_presets()) known.insert(std::string(p.name));
  EXPECT_EQ(listed, known);
  // Every value the writer produces for the variants is one the schema lists.
  for (const q::Recipe& r : recipes()) {
    const json j = recipe_json(r);
    const json& props = s["$defs"]["recipe"]["properties"];
    EXPECT_NE(std::find(props["kind"]["enum"].begin(), props["kind"]["enum"].end(), j["kind"]), props["kind"]["enum"].end());
    for (const char* sub : {"mx", "nvfp4", "fp8"}) {
      if (!j.contains(sub)) continue;
      for (auto it = j[sub].begin(); it != j[sub].end(); ++it) {
        ASSERT_TRUE(props[sub]["properties"].contains(it.key())) << sub << "." << it.key();
        const json& def = props[sub]["properties"][it.key()];
        if (def.contains("enum")) {
          EXPECT_NE(std::find(def["enum"].begin(), def["enum"].end(), it.value()), def["enum"].end()) << it.key();
        }
      }
    }
  }
}

}  // namespace
}  // namespace tcemu::golden
