// The CUDA backend's computation run on the host (cuda_plan.hpp's run_plan_on_host: the decode
// kernels' elements, then the tiled kernel's blocks phase by phase, or the direct kernel's
// threads; the same dp_matrix.hpp / dp_steps.hpp functions the kernels call), against
//  - the expected D of every committed golden MMA case (golden/sets), bit for bit;
//  - tcemu::mma(), whose default path is the independent fast path (generic loop where it
//    declines), on random problems of every catalog family with every option set, odd M and N
//    (partial tiles), K over several shared-memory chunks and a partial last chunk;
// and the operand decoder of dp_steps.hpp against format.hpp's decode on every code.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "../../emulator/cuda/cuda_plan.hpp"
#include "emu_cases.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu {
namespace {

std::vector<uint64_t> host_run(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt, bool tiled) {
  const detail::ProblemShape s = detail::shape_of(pr);
  EXPECT_EQ(detail::check_entry(e, s, opt), "");
  EXPECT_EQ(detail::check_problem(e.params, s, e.K, opt), "");
  const cuda_detail::Plan pl = cuda_detail::make_plan(e.params, s, e.K, opt);
  const cuda_detail::ProblemCodes in{{pr.A.data(), 8}, {pr.B.data(), 8}, {pr.C.data(), 8}, {pr.sa.data(), 8},
                                     {pr.sb.data(), 8}};
  return cuda_detail::run_plan_on_host(pl, in, tiled);
}

// decode_operand as format.hpp's decode states it, written out here (not the code under test).
Operand expected_operand(Fmt f, uint64_t code) {
  const Decoded d = decode(f, code);
  Operand o;
  o.neg = d.sign;
  if (d.cls == Class::inf || d.cls == Class::nan) {
    o.special = d.cls == Class::inf ? 1 : 2;
    return o;
  }
  if (d.cls == Class::zero) return o;
  o.sig = static_cast<uint32_t>(d.sig);
  o.low = static_cast<int16_t>(d.exp);
  o.E = static_cast<int16_t>(d.exp + info(f).man_bits);
  return o;
}

TEST(GpuEmuHost, DecodeCodeAgreesWithFormatDecodeOnEveryCode) {
  test::Rng r(17);
  for (const FormatInfo& fi : kFormats) {
    if (fi.id == Fmt::f64) continue;  // not an operand format (its significand exceeds 32 bits)
    const dp::FormatRow row = dp::format_row(fi.id);
    const uint64_t n = fi.width <= 16 ? uint64_t{1} << fi.width : 200000;
    size_t bad = 0;
    for (uint64_t i = 0; i < n; ++i) {
      // Wider formats: random codes, with bits above the width set to check they are ignored.
      const uint64_t code = fi.width <= 16 ? i : r();
      const Operand a = dp::decode_code(row, code), b = expected_operand(fi.id, code);
      bad += a.sig != b.sig || a.low != b.low || a.E != b.E || a.neg != b.neg || a.special != b.special;
    }
    EXPECT_EQ(bad, 0u) << fi.name;
  }
}

TEST(GpuEmuHost, EveryCommittedGoldenMmaCaseBitForBit) {
  const std::filesystem::path dir = std::filesystem::path(TCEMU_SOURCE_DIR) / "golden" / "sets";
  size_t cases = 0, elements = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() != ".json" || f.path().filename() == "index.json") continue;
    for (const golden::Case& c : golden::read_golden(f.path().string()).cases) {
      if (c.op != golden::OpKind::mma) continue;
      const golden::MmaInputs in = golden::mma_inputs(c);
      const std::vector<uint64_t> want = c.expected.logical();
      for (bool tiled : {true, false}) {
        const std::vector<uint64_t> got = host_run(*c.mma.entry, in.problem(c), c.mma.options, tiled);
        ASSERT_EQ(got.size(), want.size()) << c.name;
        size_t bad = 0;
        for (size_t i = 0; i < want.size(); ++i) bad += got[i] != want[i];
        EXPECT_EQ(bad, 0u) << c.name << (tiled ? " (tiled)" : " (direct)");
      }
      ++cases;
      elements += want.size();
    }
  }
  EXPECT_GE(cases, 26u);
  std::printf("%zu golden MMA cases, %zu D elements\n", cases, elements);
}

TEST(GpuEmuHost, EveryFamilyAndOptionAgreesWithMma) {
  test::Rng r(0x6E0);
  size_t runs = 0;
  for (const InstrEntry* e : test::family_entries()) {
    // K over at least three shared-memory chunks and, where a chunk holds several steps, a
    // partial last chunk (48 terms for K = 8 or 16, 32 for K = 32); M, N odd and across a
    // tile edge.
    const int instrs = std::max(2, (3 * cuda_detail::kChunkTarget + e->K - 1) / e->K) + std::max(1, 48 / e->K);
    for (const auto& [what, opt] : test::option_sets(*e)) {
      const test::Dist d = test::kDists[r() % std::size(test::kDists)];
      const test::OwnedProblem pb = test::random_problem(*e, 17, 19, instrs, d, r);
      const MmaResult want = mma(pb.view().with(*e, opt), Exec{1});
      ASSERT_EQ(want.error, "") << e->ptx << " " << what;
      for (bool tiled : {true, false}) {
        const std::vector<uint64_t> got = host_run(*e, pb.view(), opt, tiled);
        size_t bad = 0;
        for (size_t i = 0; i < got.size(); ++i) bad += got[i] != want.D[i];
        EXPECT_EQ(bad, 0u) << e->ptx << " " << what << " " << test::dist_name(d) << (tiled ? " tiled" : " direct");
      }
      ++runs;
    }
  }
  EXPECT_GT(runs, 100u);
}

// ST-FDPA's scale runs (fdpa_step's srun): the plan takes gcd(L, block), which is L for every
// catalog family; every divisor of it must give mma()'s result too (several runs per step).
TEST(GpuEmuHost, StFdpaScaleRunsOfEveryLengthAgreeWithMma) {
  test::Rng r(0x5C);
  size_t runs = 0;
  for (const InstrEntry* e : test::family_entries()) {
    if (e->params.kind != DatapathKind::st_fdpa) continue;
    const test::OwnedProblem pb = test::random_problem(*e, 17, 19, std::max(2, 192 / e->K), test::Dist::normal, r);
    const MmaResult want = mma(pb.view().with(*e), Exec{1});
    ASSERT_EQ(want.error, "") << e->ptx;
    const detail::ProblemShape s = detail::shape_of(pb.view());
    cuda_detail::Plan pl = cuda_detail::make_plan(e->params, s, e->K, MmaOptions{});
    const cuda_detail::ProblemCodes in{{pb.A.data(), 8}, {pb.B.data(), 8}, {pb.C.data(), 8}, {pb.sa.data(), 8},
                                       {pb.sb.data(), 8}};
    const int planned = pl.chain.srun;
    EXPECT_EQ(planned, std::gcd(pl.chain.L, e->scale_block)) << e->ptx;
    for (int srun = 1; srun <= planned; ++srun) {
      if (planned % srun) continue;
      pl.chain.srun = srun;
      for (bool tiled : {true, false}) {
        const std::vector<uint64_t> got = cuda_detail::run_plan_on_host(pl, in, tiled);
        EXPECT_EQ(got, want.D) << e->ptx << " srun " << srun << (tiled ? " tiled" : " direct");
      }
      ++runs;
    }
  }
  EXPECT_GT(runs, 5u);
}

// The same with scale blocks of 8 (mma_params allows any block): several runs per 32-term step.
// Runs of 8, 4, 2, 1 give mma_params' result; runs of 16 or 32, which span two scales, do not
// (the check would see a wrong run length).
TEST(GpuEmuHost, StFdpaScaleRunsWithinAStep) {
  const InstrEntry* e = nullptr;
  for (const InstrEntry* f : test::family_entries())
    if (f->params.kind == DatapathKind::st_fdpa && !e) e = f;
  ASSERT_NE(e, nullptr);
  test::Rng r(0x5D);
  const test::OwnedProblem pb = test::random_problem(*e, 17, 19, 4, test::Dist::normal, r);
  MmaProblem pr = pb.view();
  pr.scale_block = 8;
  const size_t nb = static_cast<size_t>(pr.K / 8);
  std::vector<uint64_t> sa(static_cast<size_t>(pr.M) * nb), sb(static_cast<size_t>(pr.N) * nb);
  for (auto* v : {&sa, &sb})
    for (uint64_t& c : *v) c = pb.sa[r() % pb.sa.size()];  // codes of the entry's scale format
  pr.sa = sa;
  pr.sb = sb;
  const MmaResult want = mma(pr.with({e->params, e->K}), Exec{1});
  ASSERT_EQ(want.error, "");
  cuda_detail::Plan pl = cuda_detail::make_plan(e->params, detail::shape_of(pr), e->K, MmaOptions{});
  ASSERT_EQ(pl.chain.srun, 8);
  const cuda_detail::ProblemCodes in{{pr.A.data(), 8}, {pr.B.data(), 8}, {pr.C.data(), 8}, {sa.data(), 8}, {sb.data(), 8}};
  for (int srun : {1, 2, 4, 8, 16, 32}) {
    pl.chain.srun = srun;
    const std::vector<uint64_t> got = cuda_detail::run_plan_on_host(pl, in, true);
    if (srun <= 8)
      EXPECT_EQ(got, want.D) << "srun " << srun;
    else
      EXPECT_NE(got, want.D) << "srun " << srun;
  }
}

}  // namespace
}  // namespace tcemu
