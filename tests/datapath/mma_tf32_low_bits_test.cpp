// tf32 operands are f32 containers whose low 13 bits the tensor core ignores (bits &
// 0xFFFFE000; the catalog's tf32 notes, PTX "truncate lower 13 bits"): a tf32 GEMM whose A
// and B carry random low bits gives D bit for bit equal to the same GEMM on the cleared
// codes, through mma() and mma_params(), with the fast path on and off, for every distinct
// tf32 catalog entry. The cleared operands' D is checked against the reference elsewhere
// (mma_fast_test's per-dot-product chains, differential_test, hw_vectors_test).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../../emulator/src/mma_fast.hpp"
#include "random_operands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/mma.hpp"

namespace tcemu {
namespace {

using test::Dist;
using test::Rng;

constexpr uint64_t kKeep = 0xFFFFE000u;

// One entry per distinct (datapath, K) among the tf32 instructions.
std::vector<const InstrEntry*> tf32_entries() {
  std::vector<const InstrEntry*> out;
  std::set<std::tuple<std::string, int, int>> seen;
  for (const InstrEntry& e : catalog())
    if (e.atype == Fmt::tf32 && seen.insert({describe(e.params), e.K, static_cast<int>(e.dtype)}).second) out.push_back(&e);
  return out;
}

struct Runs {
  MmaResult fast_mma, generic_mma, fast_params, generic_params;
};

Runs run_all(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt) {
  Runs r;
  r.fast_mma = mma(pr.with(e, opt), Exec{1});
  r.fast_params = mma(pr.with({e.params, e.K}, opt), Exec{1});
  detail::disable_fast_path(true);
  r.generic_mma = mma(pr.with(e, opt), Exec{1});
  r.generic_params = mma(pr.with({e.params, e.K}, opt), Exec{1});
  detail::disable_fast_path(false);
  return r;
}

TEST(MmaTf32LowBits, IgnoredOnFastPathAndGenericLoop) {
  const std::vector<const InstrEntry*> entries = tf32_entries();
  ASSERT_GE(entries.size(), 4u);  // sm_80 L4, sm_90 L8, wgmma, tcgen05 at least
  Rng r(0x7f3213);
  int problems = 0, fast_taken = 0;
  size_t dirty_codes = 0;
  for (const InstrEntry* e : entries) {
    for (Dist d : test::kDists) {
      for (bool negate : {false, true}) {
        const int M = 5, N = 7, K = e->K * 3;
        std::vector<uint64_t> A, B, C;
        for (int i = 0; i < M * K; ++i) A.push_back(test::random_code(Fmt::tf32, d, r) & kKeep);
        for (int i = 0; i < K * N; ++i) B.push_back(test::random_code(Fmt::tf32, d, r) & kKeep);
        // +Inf in A: with low bits set the container reads as an f32 NaN, tf32 as Inf.
        A[static_cast<size_t>(K)] = 0x7F800000u;
        const Fmt acc = acc_format(e->dtype);
        for (int i = 0; i < M * N; ++i) C.push_back(test::random_code(acc, Dist::normal, r));
        std::vector<uint64_t> dA = A, dB = B;
        for (uint64_t& c : dA) c |= 1 + r() % 0x1FFF;
        for (uint64_t& c : dB) c |= 1 + r() % 0x1FFF;
        MmaProblem clean;
        clean.M = M;
        clean.N = N;
        clean.K = K;
        clean.atype = clean.btype = Fmt::tf32;
        clean.A = A;
        clean.B = B;
        clean.C = C;
        MmaProblem dirty = clean;
        dirty.A = dA;
        dirty.B = dB;
        dirty_codes += dA.size() + dB.size();
        ASSERT_EQ(classify(Fmt::f32, dA[static_cast<size_t>(K)]), Class::nan);

        MmaOptions opt;
        opt.negate_a = negate;
        const Runs want = run_all(*e, clean, opt);
        ASSERT_TRUE(want.fast_mma.error.empty()) << e->ptx << ": " << want.fast_mma.error;
        // The cleared operands agree among themselves (the fast path against the generic loop).
        ASSERT_EQ(want.generic_mma.D, want.fast_mma.D) << e->arch << " " << e->ptx;
        const Runs got = run_all(*e, dirty, opt);
        const std::string where = e->arch + " " + e->ptx + " dist " + std::string(test::dist_name(d));
        ASSERT_TRUE(got.fast_mma.error.empty()) << where << ": " << got.fast_mma.error;
        EXPECT_EQ(got.fast_mma.D, want.fast_mma.D) << where;
        EXPECT_EQ(got.generic_mma.D, want.fast_mma.D) << where;
        EXPECT_EQ(got.fast_params.D, want.fast_mma.D) << where;
        EXPECT_EQ(got.generic_params.D, want.fast_mma.D) << where;
        // When the fast path takes the problem, it takes the dirty codes directly.
        if (auto f = detail::mma_fast(e->params, dirty, e->K, opt)) {
          EXPECT_EQ(f->D, want.fast_mma.D) << where;
          ++fast_taken;
        }
        ++problems;
      }
    }
  }
  EXPECT_GT(fast_taken, 0);
  RecordProperty("problems", problems);
  RecordProperty("dirty_codes", static_cast<int>(dirty_codes));
  std::printf("%d tf32 problems over %zu entries (%d through the fast path), %zu codes with low bits set\n", problems,
              entries.size(), fast_taken, dirty_codes);
}

}  // namespace
}  // namespace tcemu
