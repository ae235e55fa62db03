// tcemu::gemm (tcemu/gemm.hpp) in C++, also run under the sanitizers: the same D for every
// thread count; a two-chunk forward split is the two chunks' mma (each from +0) added in f32;
// the split sizes of the documented formula; every malformed plan refused with a message.
// (python/tests/test_gemm.py checks every plan and epilogue against exact evaluations.)
#include <gtest/gtest.h>

#include <random>

#include "tcemu/gemm.hpp"
#include "tcemu/mma.hpp"

namespace {

using namespace tcemu;

const InstrEntry& fp8_entry() {
  const InstrLookup l = find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3");
  EXPECT_NE(l.entry, nullptr) << l.error;
  return *l.entry;
}

std::vector<uint64_t> random_e4m3(std::mt19937_64& g, size_t n) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = (0x20 + g() % 0x38) | (g() & 0x80);
  return v;
}

struct Fixture {
  int M = 5, N = 8, K = 320;
  std::vector<uint64_t> A, B, C;
  explicit Fixture(uint64_t seed) {
    std::mt19937_64 g(seed);
    A = random_e4m3(g, static_cast<size_t>(M * K));
    B = random_e4m3(g, static_cast<size_t>(K * N));
    C.assign(static_cast<size_t>(M * N), 0x3F800000u);
  }
  MmaProblem problem(const InstrEntry& e) const { return make_problem(e, M, N, K, A, B, C); }
};

TEST(Gemm, SplitSizes) {
  EXPECT_EQ(split_k_chunks(320, 3, 128), (std::vector<int>{128, 128, 64}));
  EXPECT_EQ(split_k_chunks(320, 5, 128), (std::vector<int>{128, 128, 64, 0, 0}));
  std::string err;
  EXPECT_TRUE(split_k_chunks(320, 0, 128, &err).empty());
  EXPECT_FALSE(err.empty());
  EXPECT_TRUE(split_k_chunks(320, kMaxSplits + 1, 128, &err).empty());
  EXPECT_EQ(cublaslt_split_grain(Fmt::e4m3), 128);
  EXPECT_EQ(cublaslt_split_grain(Fmt::bf16), 64);
  EXPECT_EQ(cublaslt_split_grain(Fmt::tf32), 0);
}

TEST(Gemm, ForwardSplitIsChunksAddedInF32) {
  const InstrEntry& e = fp8_entry();
  const Fixture f(1);
  GemmPlan plan;
  plan.chunks = {128, 192};
  const GemmResult r = gemm(e, f.problem(e), plan, Exec{1});
  ASSERT_TRUE(r.error.empty()) << r.error;
  // The chunks by hand: A's columns and B's rows of each K range, C = +0.
  std::vector<uint64_t> A0, A1, zeros(static_cast<size_t>(f.M * f.N), 0);
  for (int m = 0; m < f.M; ++m)
    for (int k = 0; k < f.K; ++k) (k < 128 ? A0 : A1).push_back(f.A[static_cast<size_t>(m * f.K + k)]);
  const std::span<const uint64_t> B(f.B);
  const MmaResult p0 = mma(make_problem(e, f.M, f.N, 128, A0, B.subspan(0, 128 * 8), zeros), Exec{1});
  const MmaResult p1 = mma(make_problem(e, f.M, f.N, 192, A1, B.subspan(128 * 8), zeros), Exec{1});
  ASSERT_TRUE(p0.error.empty() && p1.error.empty());
  for (size_t i = 0; i < r.D.size(); ++i)
    EXPECT_EQ(r.D[i], f32_add(static_cast<uint32_t>(p0.D[i]), static_cast<uint32_t>(p1.D[i]))) << i;
}

TEST(Gemm, SameForEveryThreadCount) {
  const InstrEntry& e = fp8_entry();
  const Fixture f(2);
  for (Combine c : {Combine::f32_forward, Combine::f32_tree, Combine::cutlass_parallel, Combine::cutlass_serial}) {
    GemmPlan plan;
    plan.chunks = split_k_chunks(f.K, 5, 64);
    plan.combine = c;
    plan.epilogue.order = c == Combine::f32_forward || c == Combine::f32_tree ? EpilogueOrder::fold : EpilogueOrder::cutlass_2x;
    plan.epilogue.alpha = 0x3FC00000u;  // 1.5
    plan.epilogue.beta = 0xBF000000u;   // -0.5
    plan.epilogue.out_type = Fmt::e4m3;
    plan.epilogue.satfinite = true;
    if (plan.epilogue.order == EpilogueOrder::fold) {
      plan.epilogue.a_scale.assign(static_cast<size_t>(f.M), 0x3E800000u);
      plan.epilogue.bias.assign(static_cast<size_t>(f.N), 0x40000000u);
    }
    const GemmResult one = gemm(e, f.problem(e), plan, Exec{1});
    ASSERT_TRUE(one.error.empty()) << one.error;
    for (int t : {2, 3, 7}) EXPECT_EQ(gemm(e, f.problem(e), plan, Exec{t}).D, one.D) << to_string(c) << " " << t;
  }
}

TEST(Gemm, RefusesMalformedPlans) {
  const InstrEntry& e = fp8_entry();
  const Fixture f(3);
  const MmaProblem p = f.problem(e);
  auto refused = [&](const GemmPlan& plan, const char* what) {
    const GemmResult r = gemm(e, p, plan);
    EXPECT_TRUE(r.D.empty()) << what;
    EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
  };
  GemmPlan g;
  g.chunks = {128, 128};
  refused(g, "sum to");
  g.chunks = {100, 220};
  refused(g, "not a multiple");
  g.chunks = {-32, 352};
  refused(g, "negative");
  g = {};
  g.epilogue.a_scale = {1, 2};
  refused(g, "a_scale");
  g = {};
  g.epilogue.bias = {1};
  refused(g, "bias");
  g = {};
  g.epilogue.out_type = Fmt::tf32;
  refused(g, "out_type");
  g = {};
  g.epilogue.out_round = Round::rs;
  refused(g, "random bits");
  g = {};
  g.epilogue.order = EpilogueOrder::cutlass_2x;
  g.epilogue.bias.assign(8, 0);
  refused(g, "no scales and no bias");
  g = {};
  g.combine = Combine::cutlass_serial;
  g.chunks = {160, 160};
  refused(g, "cutlass-2x");
  g = {};
  g.mma.scale_d = false;
  refused(g, "scale_d");
  MmaProblem bad = p;
  bad.A = bad.A.subspan(1);
  EXPECT_NE(gemm(e, bad, GemmPlan{}).error.find("A holds"), std::string::npos);
  PlanRequest req;
  GemmPlan out;
  req.plan = "nope";
  EXPECT_NE(resolve_plan(e, 320, req, out).find("unknown plan"), std::string::npos);
  req = {};
  req.plan = "cutlass-serial";
  req.split_k = 2;
  EXPECT_NE(resolve_plan(e, 320, req, out).find("give grain"), std::string::npos);
  req.grain = 64;
  EXPECT_EQ(resolve_plan(e, 320, req, out), "");
  EXPECT_EQ(out.chunks, (std::vector<int>{192, 128}));
  EXPECT_EQ(out.combine, Combine::cutlass_serial);
}

}  // namespace
