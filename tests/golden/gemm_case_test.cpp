// Golden cases of op gemm (a library GEMM: K schedule and epilogue, docs/golden.md):
//  - ReferenceAgrees: every case of golden/sets/gemm_plans.json against an exact evaluation of
//    the plan's definition (docs/gemm.md) written here: each chunk's partial by the reference
//    datapath (tcemu_ref fdpa_dot, Boost.Multiprecision, no code shared with the emulator; the
//    catalog entry's parameters as committed_set_test hands them), every f32 step of the
//    combine and of the epilogue formed exactly and rounded to nearest even by the reference's
//    conversion, the output conversion by the reference conversion. Not tcemu::gemm.
//  - CommittedFileIsRegenerated: gemm_plan_set() writes golden/sets/gemm_plans.json byte for byte.
//  - Round trips, and reading errors that name the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <set>

#include "tcemu_golden/committed_set.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_ref/convert_ref.hpp"
#include "tcemu_ref/datapath_ref.hpp"
#include "golden_test_support.hpp"

namespace tcemu::golden {
namespace {

using ref::ExactValue;
using ref::Rational;

constexpr uint32_t kNaN = 0x7FFFFFFFu;  // the canonical NaN of an epilogue step (gemm.hpp)

std::filesystem::path sets_dir() { return std::filesystem::path(TCEMU_SOURCE_DIR) / "golden" / "sets"; }

// ---- f32 operations in exact arithmetic (IEEE 754 rules, round to nearest even) ----------

bool is_nan(const ExactValue& v) { return v.kind == ExactValue::nan; }
bool is_inf(const ExactValue& v) { return v.kind == ExactValue::inf; }
bool is_zero(const ExactValue& v) { return v.kind == ExactValue::finite && v.v == 0; }
uint32_t inf_code(bool neg) { return neg ? 0xFF800000u : 0x7F800000u; }
uint32_t zero_code(bool neg) { return neg ? 0x80000000u : 0u; }

uint32_t round_f32(const Rational& x) {
  ConvertOptions rn;
  rn.round = Round::rn;
  return static_cast<uint32_t>(ref::convert_rational(x, Fmt::f32, rn).code);
}

// x + y + z of finite values where `zero_neg` is the sign an exact zero takes.
uint32_t sum_finite(const Rational& s, bool zero_neg) { return s == 0 ? zero_code(zero_neg) : round_f32(s); }

uint32_t mul(uint32_t a, uint32_t b) {
  const ExactValue x = ref::value_of(Fmt::f32, a), y = ref::value_of(Fmt::f32, b);
  const bool neg = x.neg != y.neg;
  if (is_nan(x) || is_nan(y) || (is_inf(x) && is_zero(y)) || (is_zero(x) && is_inf(y))) return kNaN;
  if (is_inf(x) || is_inf(y)) return inf_code(neg);
  return sum_finite(x.v * y.v, neg);
}

uint32_t add(uint32_t a, uint32_t b) {
  const ExactValue x = ref::value_of(Fmt::f32, a), y = ref::value_of(Fmt::f32, b);
  if (is_nan(x) || is_nan(y) || (is_inf(x) && is_inf(y) && x.neg != y.neg)) return kNaN;
  if (is_inf(x)) return inf_code(x.neg);
  if (is_inf(y)) return inf_code(y.neg);
  return sum_finite(x.v + y.v, is_zero(x) && is_zero(y) && x.neg && y.neg);
}

uint32_t fma(uint32_t a, uint32_t b, uint32_t c) {
  const ExactValue x = ref::value_of(Fmt::f32, a), y = ref::value_of(Fmt::f32, b), z = ref::value_of(Fmt::f32, c);
  const bool pneg = x.neg != y.neg;
  if (is_nan(x) || is_nan(y) || is_nan(z) || (is_inf(x) && is_zero(y)) || (is_zero(x) && is_inf(y))) return kNaN;
  const bool pinf = is_inf(x) || is_inf(y);
  if (pinf && is_inf(z) && pneg != z.neg) return kNaN;
  if (pinf) return inf_code(pneg);
  if (is_inf(z)) return inf_code(z.neg);
  const Rational p = x.v * y.v;
  return sum_finite(p + z.v, p == 0 && is_zero(z) && pneg && z.neg);
}

// ---- the plan's definition (docs/gemm.md) --------------------------------------------------

bool zero_f32(uint32_t x) { return (x & 0x7FFFFFFFu) == 0; }

uint32_t epilogue(EpilogueOrder o, uint32_t alpha, uint32_t beta, uint32_t acc, uint32_t c, uint32_t sa, uint32_t sb,
                  const uint32_t* bias) {
  const bool use_c = !zero_f32(beta);
  uint32_t t = 0;
  switch (o) {
    case EpilogueOrder::fold:
      t = mul(mul(mul(sa, sb), alpha), acc);
      if (use_c) t = fma(beta, c, t);
      if (bias) t = add(t, *bias);
      return t;
    case EpilogueOrder::cutlass_sm90: {
      const uint32_t g = mul(mul(sa, sb), alpha);
      t = bias ? fma(g, acc, *bias) : mul(g, acc);
      return use_c ? fma(beta, c, t) : t;
    }
    case EpilogueOrder::cutlass_2x:
      return use_c ? fma(alpha, acc, mul(beta, c)) : mul(alpha, acc);
    case EpilogueOrder::sequential:
      t = mul(mul(mul(acc, sa), sb), alpha);
      if (use_c) t = fma(beta, c, t);
      if (bias) t = add(t, *bias);
      return t;
  }
  return 0;
}

uint64_t to_out(uint32_t t, const Epilogue& ep) {
  ConvertOptions o;
  o.round = ep.out_round;
  o.satfinite = ep.satfinite;
  return ref::convert(Fmt::f32, ep.out_type, t, o).code;
}

// The partial of K range [k0, k0 + kc) of element (m, n): the instruction chain from +0 by the
// reference datapath, widened exactly to f32.
uint32_t partial(const Case& c, size_t m, size_t n, size_t k0, size_t kc) {
  if (kc == 0) return 0;
  const uint64_t d = test::reference_dot(c, m, n, k0, kc, 0);
  if (c.mma.entry->dtype == AccType::f32) return static_cast<uint32_t>(d);
  return static_cast<uint32_t>(ref::convert(Fmt::f16, Fmt::f32, d, ConvertOptions{}).code);
}

uint32_t vec_at(const Case& c, const char* name, size_t i) {
  auto it = c.operands.find(name);
  if (it == c.operands.end()) return 0x3F800000u;
  return static_cast<uint32_t>(it->second.rows == 1 ? it->second.at(0, 0) : it->second.at(i, 0));
}

uint64_t reference_element(const Case& c, size_t m, size_t n) {
  const GemmPlan& plan = c.gemm.plan;
  const Epilogue& ep = plan.epilogue;
  const uint32_t cc = c.operands.count("C") ? static_cast<uint32_t>(c.operands.at("C").at(m, n)) : 0;
  const uint32_t sa = vec_at(c, "a_scale", m), sb = vec_at(c, "b_scale", n);
  uint32_t bias = 0;
  const uint32_t* bp = nullptr;
  if (c.operands.count("bias")) {
    bias = static_cast<uint32_t>(c.operands.at("bias").at(n, 0));
    bp = &bias;
  }
  std::vector<uint32_t> p;
  size_t k0 = 0;
  const std::vector<int> chunks = plan.chunks.empty() ? std::vector<int>{c.mma.K} : plan.chunks;
  for (int kc : chunks) {
    p.push_back(partial(c, m, n, k0, static_cast<size_t>(kc)));
    k0 += static_cast<size_t>(kc);
  }
  uint32_t acc = p[0];
  if (!plan.chunks.empty()) switch (plan.combine) {
      case Combine::f32_forward:
        for (size_t j = 1; j < p.size(); ++j) acc = add(acc, p[j]);
        break;
      case Combine::f32_tree: {
        std::vector<uint32_t> level = p;
        while (level.size() > 1) {
          std::vector<uint32_t> next;
          for (size_t j = 0; j + 1 < level.size(); j += 2) next.push_back(add(level[j], level[j + 1]));
          if (level.size() % 2) next.push_back(level.back());
          level = next;
        }
        acc = level[0];
        break;
      }
      case Combine::cutlass_parallel:
        acc = 0;
        for (uint32_t x : p) acc = add(acc, x);
        if (ep.order == EpilogueOrder::cutlass_2x && zero_f32(ep.beta))
          return to_out(fma(ep.alpha, acc, mul(ep.beta, 0)), ep);  // LinearCombination with a cleared source
        break;
      case Combine::cutlass_serial: {
        uint64_t d = to_out(epilogue(ep.order, ep.alpha, ep.beta, p[0], cc, sa, sb, bp), ep);
        for (size_t j = 1; j < p.size(); ++j) {
          const uint32_t back = static_cast<uint32_t>(ref::convert(ep.out_type, Fmt::f32, d, ConvertOptions{}).code);
          d = to_out(epilogue(ep.order, ep.alpha, 0x3F800000u, p[j], back, sa, sb, bp), ep);
        }
        return d;
      }
    }
  return to_out(epilogue(ep.order, ep.alpha, ep.beta, acc, cc, sa, sb, bp), ep);
}

const GoldenFile& committed() {
  static const GoldenFile f = read_golden((sets_dir() / "gemm_plans.json").string());
  return f;
}

TEST(GoldenGemmCase, ReferenceAgreesOnEveryElementOfTheCommittedSet) {
  const GoldenFile& f = committed();
  ASSERT_GE(f.cases.size(), 10u);
  std::set<Combine> combines;
  std::set<EpilogueOrder> orders;
  std::set<Fmt> outs;
  bool chain = false, sat = false;
  for (const Case& c : f.cases) {
    ASSERT_EQ(c.op, OpKind::gemm) << c.name;
    const MmaOptions& o = c.gemm.plan.mma;
    ASSERT_FALSE(o.promote_every || o.negate_a || o.negate_b) << c.name << ": the reference here has no promotion";
    if (c.gemm.plan.chunks.empty()) chain = true;
    else combines.insert(c.gemm.plan.combine);
    orders.insert(c.gemm.plan.epilogue.order);
    outs.insert(c.gemm.plan.epilogue.out_type);
    sat = sat || c.gemm.plan.epilogue.satfinite;
    size_t diff = 0, first_m = 0, first_n = 0;
    for (size_t m = 0; m < static_cast<size_t>(c.mma.M); ++m)
      for (size_t n = 0; n < static_cast<size_t>(c.mma.N); ++n)
        if (reference_element(c, m, n) != c.expected.at(m, n) && diff++ == 0) {
          first_m = m;
          first_n = n;
        }
    EXPECT_EQ(diff, 0u) << c.name << ": first differing element (" << first_m << ", " << first_n << ")";
  }
  // The set covers every combine, every epilogue order, one chain, every output type, saturation.
  EXPECT_EQ(combines.size(), 4u);
  EXPECT_EQ(orders.size(), 4u);
  EXPECT_EQ(outs.size(), 5u);
  EXPECT_TRUE(chain);
  EXPECT_TRUE(sat);
}

TEST(GoldenGemmCase, CommittedFileIsRegenerated) {
  GoldenFile f = gemm_plan_set();
  const test::TempDir dir("gemm_case");
  write_golden(dir.file("gemm_plans.json"), f, 0);
  EXPECT_TRUE(test::slurp(dir.file("gemm_plans.json")) == test::slurp((sets_dir() / "gemm_plans.json").string()))
      << "regenerate: tcemu golden gen-set golden/sets";
}

TEST(GoldenGemmCase, RegressionEmulatorReproducesEveryCase) {
  for (const Case& c : committed().cases) EXPECT_TRUE(not_reproduced(c).empty()) << c.name;
}

// A case of the committed set as JSON, for the reading errors below.
nlohmann::json committed_json(size_t i) {
  std::ifstream in(sets_dir() / "gemm_plans.json");
  return nlohmann::json::parse(in)["cases"][i];
}

std::string read_error(const nlohmann::json& c) {
  const nlohmann::json doc = {{"format", "tcemu-golden"}, {"version", 1}, {"cases", {c}}};
  try {
    parse_golden(doc, ".", "g.json");
  } catch (const GoldenError& e) {
    return e.what();
  }
  return "";
}

TEST(GoldenGemmCase, RoundTripKeepsThePlan) {
  const Case& c0 = committed().cases[0];
  GoldenFile f;
  f.cases.push_back(c0);
  const GoldenFile g = parse_golden(to_json(f), ".", "g.json");
  const Case& c = g.cases[0];
  EXPECT_EQ(c.gemm.plan.chunks, c0.gemm.plan.chunks);
  EXPECT_EQ(c.gemm.preset, c0.gemm.preset);
  EXPECT_EQ(c.gemm.split_k, c0.gemm.split_k);
  EXPECT_EQ(c.gemm.plan.epilogue.alpha, c0.gemm.plan.epilogue.alpha);
  EXPECT_EQ(c.expected.raw, c0.expected.raw);
  // The first case is cuBLASLt's plan for K = 320, s = 3: 128 + 128 + 64, f32 output.
  const nlohmann::json j = committed_json(0);
  EXPECT_EQ(j["plan"]["preset"], "cublaslt-bitequiv");
  EXPECT_EQ(j["plan"]["chunks"], nlohmann::json({128, 128, 64}));
  EXPECT_EQ(j["plan"]["combine"], "f32-forward");
  EXPECT_EQ(j["epilogue"]["out_type"], "f32");
  EXPECT_EQ(j["epilogue"]["alpha"], "0x3e99999a");  // 0.3 in f32: alpha * acc rounds
  EXPECT_TRUE(j["operands"].contains("bias"));
  EXPECT_EQ(read_error(j), "");
}

TEST(GoldenGemmCase, ReadingErrorsNameTheField) {
  using nlohmann::json;
  struct Bad {
    size_t case_index;  // of the committed set: 0 bitequiv s = 3 of K = 320, 3 CUTLASS serial with C
    std::function<void(json&)> edit;
    std::string field, words;
  };
  const std::vector<Bad> bad = {
      {0, [](json& k) { k["plan"]["preset"] = "cublas-magic"; }, "cases[0].plan", "unknown plan 'cublas-magic'"},
      {0, [](json& k) { k["plan"]["chunks"] = {128, 128, 32}; }, "cases[0].plan.chunks",
       "split_k = 3 of K = 320 gives [128, 128, 64]"},
      {0, [](json& k) { k["plan"]["chunks"] = {128, 128, 32}; k["plan"].erase("split_k"); }, "cases[0].plan.chunks",
       "chunks sum to 288; K = 320"},
      {0, [](json& k) { k["plan"]["combine"] = "f32-tree"; }, "cases[0].plan.combine",
       "plan cublaslt-bitequiv combines f32-forward"},
      {0, [](json& k) { k["plan"]["combine"] = "f32-sideways"; }, "cases[0].plan.combine", "unknown combine"},
      {0, [](json& k) { k["plan"]["schedule"] = "chain"; }, "cases[0].plan.chunks", "one chain over K"},
      {0, [](json& k) { k["plan"]["schedule"] = "zigzag"; }, "cases[0].plan.schedule", "must be \"chain\""},
      {0, [](json& k) { k["plan"].erase("split_k"); k["plan"].erase("preset"); k["plan"]["chunks"] = {128, 100, 92}; },
       "cases[0].plan.chunks", "chunks[1] = 100 is not a multiple of 32"},
      {0, [](json& k) { k["plan"]["surprise"] = 1; }, "cases[0].plan.surprise", "unknown field"},
      {0, [](json& k) { k["epilogue"]["beta"] = "0x3f800000"; }, "cases[0].operands.C", "missing: beta = 0x3f800000 reads C"},
      {0, [](json& k) { k["epilogue"]["beta"] = "1.0"; }, "cases[0].epilogue.beta", "must be f32 bits"},
      {3, [](json& k) { k["epilogue"]["beta"] = "0x80000000"; }, "cases[0].operands.C", "beta is zero"},
      {0, [](json& k) { k["epilogue"]["out_type"] = "e2m1"; }, "cases[0].epilogue.out_type", "not an output of a GEMM"},
      {0, [](json& k) { k["epilogue"]["order"] = "backwards"; }, "cases[0].epilogue.order", "unknown epilogue order"},
      {0, [](json& k) { k["epilogue"]["order"] = "cutlass-2x"; }, "cases[0].epilogue.order", "cutlass-2x"},
      {0, [](json& k) { k["operands"]["bias"]["shape"] = {8}; k["operands"]["bias"]["hex"] = std::string(64, '0'); },
       "cases[0].operands.bias", "bias: 8 values; N = 16"},
      {0, [](json& k) { k["operands"]["bias"] = {{"type", "f16"}, {"shape", {16}}, {"hex", std::string(64, '0')}}; },
       "cases[0].operands.bias.type", "holds f32 codes"},
      {0, [](json& k) { k["expected"]["D"]["type"] = "bf16"; k["expected"]["D"]["hex"] = std::string(64 * 16 * 4, '0'); },
       "cases[0].expected.D.type", "needs f32"},
  };
  for (const Bad& b : bad) {
    json k = committed_json(b.case_index);
    b.edit(k);
    const std::string e = read_error(k);
    EXPECT_NE(e.find(b.field + ": "), std::string::npos) << b.field << ": " << e;
    EXPECT_NE(e.find(b.words), std::string::npos) << b.words << ": " << e;
  }
}

TEST(GoldenGemmCase, GenerateRefusesBadPlans) {
  GemmGenRequest r;
  r.mma.arch = "sm_90a";
  r.mma.ptx = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3";
  r.mma.K = 320;
  r.plan.plan = "cutlass-parallel";
  r.plan.split_k = 2;
  EXPECT_THROW(
      {
        try {
          generate_gemm(r);
        } catch (const GoldenError& e) {
          EXPECT_NE(std::string(e.what()).find("give grain"), std::string::npos) << e.what();
          throw;
        }
      },
      GoldenError);
  r.plan = {};
  r.plan.chunks = std::vector<int>{128, 128};
  EXPECT_THROW(generate_gemm(r), GoldenError);  // 256, not K = 320
  r.plan.chunks = std::vector<int>{128, 128, 64};
  const Case c = generate_gemm(r);
  EXPECT_EQ(c.gemm.plan.chunks, (std::vector<int>{128, 128, 64}));
  EXPECT_EQ(c.operands.count("C"), 0u);  // beta = 0: C is not read, not written
  EXPECT_TRUE(not_reproduced(c).empty());
}

}  // namespace
}  // namespace tcemu::golden
