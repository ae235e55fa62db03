// The fast whole-matrix path (emulator/src/mma_fast.cpp) against the per-dot-product model:
// every D element recomputed as a chain of fdpa_step calls (the code-level API of
// datapath.hpp, which differential_test checks against the exact reference), with the
// whole-matrix options applied as mma.hpp defines them; and against mma_params' generic loop
// (the fast path switched off). Random matrices of every catalog
// family the fast path takes (codes with NaN, Inf, zeros, subnormals; scales with zero and
// NaN codes; C with specials and -0), odd M and N, K of several instructions, all options.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "../../emulator/src/converter_isa.hpp"
#include "../../emulator/src/mma_fast.hpp"
#include "kernel_builds.hpp"
#include "random_operands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/mma.hpp"

namespace tcemu {
namespace {

using test::Dist;
using test::Rng;

// The fast path's families: the float datapaths with C fused or added after in f32, with or
// without +0 results, and none of the Hopper mma.sync FP8 operand switches (those entries
// run the generic loop).
bool fast_family(const DatapathParams& p) {
  if (p.kind == DatapathKind::integer) return false;
  if (p.c_entry != CEntry::fused && p.c_entry != CEntry::rne_f32_after) return false;
  return !p.widen_to_f16 && !p.kpair_halves;
}

// One entry per distinct (datapath, types, scales, K): the catalog repeats each for many
// shapes and spellings.
std::vector<const InstrEntry*> fast_entries() {
  std::vector<const InstrEntry*> out;
  std::set<std::tuple<std::string, int, int, int, int, int, int>> seen;
  for (const InstrEntry& e : catalog()) {
    if (!fast_family(e.params)) continue;
    auto key = std::make_tuple(describe(e.params), static_cast<int>(e.atype), static_cast<int>(e.btype),
                               static_cast<int>(e.dtype), e.scale_type ? static_cast<int>(*e.scale_type) : -1,
                               e.scale_block, e.K);
    if (seen.insert(key).second) out.push_back(&e);
  }
  return out;
}

uint64_t random_acc(Fmt f, Rng& r) {
  const FormatInfo& fi = info(f);
  switch (r() % 12) {
    case 0: return 0;
    case 1: return fi.sign_mask();  // -0
    case 2: return *inf_code(f, r() & 1);
    case 3: return *canonical_nan(f);
    case 4: return (r() & ((uint64_t{1} << fi.man_bits) - 1)) | ((r() & 1) ? fi.sign_mask() : 0);  // subnormal
    case 5: return r() & fi.code_mask() & ~(uint64_t{1} << (fi.width - 2));  // any code below the upper binades
    default: {  // moderate magnitudes, so that C and the products meet
      const uint64_t eb = static_cast<uint64_t>(fi.bias - 6 + static_cast<int>(r() % 13));
      return test::pack_fields(f, r() & 1, eb, r() & ((uint64_t{1} << fi.man_bits) - 1));
    }
  }
}

using Case = test::OwnedProblem;

Case make_case(const InstrEntry& e, int M, int N, int instrs, Dist d, Rng& r) {
  Case c{&e, M, N, e.K * instrs, {}, {}, {}, {}, {}};
  const size_t m = static_cast<size_t>(M), n = static_cast<size_t>(N), k = static_cast<size_t>(c.K);
  for (size_t i = 0; i < m * k; ++i) c.A.push_back(test::random_code(e.atype, d, r));
  for (size_t i = 0; i < k * n; ++i) c.B.push_back(test::random_code(e.btype, d, r));
  const Fmt acc = acc_format(e.dtype);
  for (size_t i = 0; i < m * n; ++i) c.C.push_back(random_acc(acc, r));
  // Runs of 16 zeros (both signs) in some rows of A and columns of B: all-zero GST groups,
  // zero products beside small ones.
  auto zero_of = [&](Fmt f) { return (r() & 1) ? info(f).sign_mask() : 0; };
  for (size_t i = 0; i < m; ++i)
    for (size_t k0 = 0; k0 + 16 <= k; k0 += 16)
      if (r() % 4 == 0)
        for (size_t j = k0; j < k0 + 16; ++j) c.A[i * k + j] = zero_of(e.atype);
  for (size_t i = 0; i < n; ++i)
    for (size_t k0 = 0; k0 + 16 <= k; k0 += 16)
      if (r() % 4 == 0)
        for (size_t j = k0; j < k0 + 16; ++j) c.B[j * n + i] = zero_of(e.btype);
  if (d == Dist::cancel)  // B's column 0 the negation of A's row 0: exact cancellation
    for (size_t i = 0; i < k && n > 0; ++i) c.B[i * n] = c.A[i] ^ info(e.atype).sign_mask();
  if (e.scale_type) {
    const size_t nb = k / static_cast<size_t>(e.scale_block);
    for (size_t i = 0; i < m * nb; ++i) c.sa.push_back(test::random_scale(*e.scale_type, d, r));
    for (size_t i = 0; i < n * nb; ++i) c.sb.push_back(test::random_scale(*e.scale_type, d, r));
    // Zero and NaN scales whatever the distribution (ue8m0 has no zero).
    const uint64_t nan = *e.scale_type == Fmt::ue8m0 ? 0xFF : 0x7F;
    if (r() % 3 == 0) c.sa[r() % c.sa.size()] = nan;
    if (r() % 3 == 0 && *e.scale_type == Fmt::ue4m3) c.sb[r() % c.sb.size()] = 0x80;  // -0 sign ignored: zero
    if (r() % 3 == 0 && *e.scale_type == Fmt::ue4m3) c.sa[r() % c.sa.size()] = 0;
  }
  return c;
}

// D element (m, n) as a chain of single-step fdpa_step calls, with the options of mma.hpp.
uint64_t expected_element(const Case& cs, const DatapathParams& p, size_t m, size_t n, const MmaOptions& opt) {
  const InstrEntry& e = *cs.e;
  const size_t K = static_cast<size_t>(cs.K), N = static_cast<size_t>(cs.N);
  const size_t L = std::min<size_t>(static_cast<size_t>(p.L), static_cast<size_t>(e.K));
  const Fmt acc = output_format(p.rounding);
  std::vector<uint64_t> a(K), b(K);
  for (size_t k = 0; k < K; ++k) {
    a[k] = cs.A[m * K + k] ^ (opt.negate_a ? info(e.atype).sign_mask() : 0);
    b[k] = cs.B[k * N + n] ^ (opt.negate_b ? info(e.btype).sign_mask() : 0);
  }
  uint64_t c = opt.scale_d ? cs.C[m * N + n] : 0;
  if (opt.scale_input_d > 0) {  // C * 2^-s exactly, toward zero into the accumulator format
    const Decoded dc = decode(acc, c);
    if (dc.cls != Class::nan && dc.cls != Class::inf && dc.cls != Class::zero)
      c = round_to_float(dc.sign, dc.sig, dc.exp - opt.scale_input_d, false, acc, false);
  }
  const size_t promote = opt.promote_every > 0 ? static_cast<size_t>(opt.promote_every * e.K) : 0;
  uint64_t accum = c, d = promote ? 0 : c;
  const size_t nb = e.scale_type ? K / static_cast<size_t>(e.scale_block) : 0;
  for (size_t k = 0; k < K; k += L) {
    std::span<const uint64_t> sa, sb;
    if (e.scale_type) {
      const size_t off = k / static_cast<size_t>(e.scale_block);
      sa = std::span<const uint64_t>(cs.sa).subspan(m * nb + off, nb - off);
      sb = std::span<const uint64_t>(cs.sb).subspan(n * nb + off, nb - off);
    }
    const BlockScales scales{e.scale_type.value_or(Fmt::ue8m0), e.scale_block, sa, sb};
    d = fdpa_step(p, e.atype, e.btype, std::span<const uint64_t>(a).subspan(k, L), std::span<const uint64_t>(b).subspan(k, L),
                  d, e.scale_type ? &scales : nullptr);
    if (promote && (k + L) % promote == 0) {
      accum = f32_add_rne(static_cast<uint32_t>(accum), static_cast<uint32_t>(d));
      d = 0;
    }
  }
  if (promote && K % promote != 0) accum = f32_add_rne(static_cast<uint32_t>(accum), static_cast<uint32_t>(d));
  return promote ? accum : d;
}

MmaOptions random_options(const InstrEntry& e, Rng& r) {
  MmaOptions o;
  o.negate_a = r() % 3 == 0;
  o.negate_b = r() % 3 == 0;
  o.scale_d = r() % 5 != 0;
  const int s[] = {-1, -1, 0, 1, 7, 15};
  o.scale_input_d = s[r() % 6];
  if (e.dtype == AccType::f32 && r() % 3 == 0) o.promote_every = 1 + static_cast<int>(r() % 2);
  return o;
}

// Runs one case through the fast path (it must take it) and mma_params; every D element must
// equal the per-dot-product chain bit for bit. Returns the number of mismatches.
int check_case(const Case& cs, const MmaOptions& opt, int& reported, const DatapathParams* params = nullptr) {
  const MmaProblem pr = cs.view();
  const DatapathParams& p = params ? *params : cs.e->params;
  std::optional<MmaResult> fast = detail::mma_fast(p, pr, cs.e->K, opt);
  if (!fast) {
    ADD_FAILURE() << "fast path declined " << cs.e->arch << " " << cs.e->ptx << " (" << describe(p) << ")";
    return 1;
  }
  const MmaResult via = params ? mma(pr.with({p, cs.e->K}, opt), Exec{1}) : mma(pr.with(*cs.e, opt), Exec{1});
  // mma_params' own generic loop (the fast path switched off): guards against the two
  // drifting apart as the generic loop changes.
  detail::disable_fast_path(true);
  const MmaResult generic = params ? mma(pr.with({p, cs.e->K}, opt), Exec{1}) : mma(pr.with(*cs.e, opt), Exec{1});
  detail::disable_fast_path(false);
  if (!via.error.empty() || !generic.error.empty()) {
    ADD_FAILURE() << via.error << generic.error;
    return 1;
  }
  int bad = 0;
  for (size_t m = 0; m < static_cast<size_t>(cs.M); ++m)
    for (size_t n = 0; n < static_cast<size_t>(cs.N); ++n) {
      const size_t i = m * static_cast<size_t>(cs.N) + n;
      const uint64_t want = expected_element(cs, p, m, n, opt);
      if (fast->D[i] != want || via.D[i] != want || generic.D[i] != want) {
        ++bad;
        if (++reported <= 10)
          ADD_FAILURE() << cs.e->arch << " " << cs.e->ptx << " " << info(cs.e->atype).name << "x" << info(cs.e->btype).name
                        << " (" << describe(p) << ") M=" << cs.M << " N=" << cs.N << " K=" << cs.K << " at (" << m << "," << n << "): fast 0x"
                        << std::hex << fast->D[i] << " mma 0x" << via.D[i] << " generic loop 0x" << generic.D[i] << " expected 0x"
                        << want << std::dec
                        << " (negate " << opt.negate_a << opt.negate_b << " scale_d " << opt.scale_d << " scale_input_d "
                        << opt.scale_input_d << " promote " << opt.promote_every << ")";
      }
    }
  return bad;
}

void check_every_family(uint64_t seed) {
  const std::vector<const InstrEntry*> entries = fast_entries();
  ASSERT_GT(entries.size(), 10u);
  Rng r(seed);
  int reported = 0, bad = 0, cases = 0;
  const int dims[][2] = {{1, 1}, {3, 33}, {5, 7}, {2, 65}, {7, 31}};
  for (const InstrEntry* e : entries) {
    for (Dist d : test::kDists) {
      for (int rep = 0; rep < 2; ++rep) {
        const auto& mn = dims[r() % 5];
        const int instrs = 1 + static_cast<int>(r() % 3);
        Case cs = make_case(*e, mn[0], mn[1], instrs, d, r);
        // The second problem with C = +0 or -0: then the products alone set the alignment,
        // and e_zero (zero products, missing terms) can be the largest exponent.
        if (rep == 1)
          for (uint64_t& c : cs.C) c = (r() & 1) ? info(acc_format(e->dtype)).sign_mask() : 0;
        bad += check_case(cs, random_options(*e, r), reported);
        ++cases;
      }
      // Parameters beside the catalog's (mma_params takes any): a high e_zero, C added after
      // (then zero products and missing terms can set the alignment), F below and above the
      // significand widths, +0 results.
      DatapathParams q = e->params;
      q.e_zero = -30 + static_cast<int>(r() % 40);
      q.F = 2 + static_cast<int>(r() % 40);
      q.positive_zero = r() & 1;
      if (q.kind != DatapathKind::gst_fdpa && q.rounding != OutputRounding::rne_f16 && r() % 2)
        q.c_entry = q.c_entry == CEntry::fused ? CEntry::rne_f32_after : CEntry::fused;
      if (!validate(q, e->atype, e->btype, e->scale_type).empty()) continue;
      const auto& mn = dims[r() % 5];
      const Case cs = make_case(*e, mn[0], mn[1], 1 + static_cast<int>(r() % 3), d, r);
      MmaOptions o = random_options(*e, r);
      if (q.rounding == OutputRounding::rne_f16) o.promote_every = 0;
      bad += check_case(cs, o, reported, &q);
      ++cases;
    }
  }
  EXPECT_EQ(bad, 0) << "over " << cases << " random problems of " << entries.size() << " families";
}

TEST(MmaFast, EveryFastFamilyMatchesTheDotProductChain) { check_every_family(20261130); }

// The same with each build of the kernels in turn (baseline, AVX2, AVX-512: the AVX-512 one
// has its own intrinsics kernel), as far as this CPU has them: a CPU runs only its best build
// otherwise.
TEST(MmaFast, EveryKernelBuildMatchesTheDotProductChain) {
  test::for_each_kernel_build([](uint64_t isa) { check_every_family(77 + isa); });
}

// Operands of the largest significand everywhere (A and B the largest finite codes, scales
// of the largest significand), same signs in most rows and columns: every term of a step at
// the top of the kernels' integer range, where a sum that overflowed its lanes would show.
// Every family, every kernel build this CPU has, odd N.
TEST(MmaFast, LargestTermsEveryKernelBuild) {
  Rng r(11);
  int reported = 0, bad = 0;
  test::for_each_kernel_build([&](uint64_t) {
    for (const InstrEntry* e : fast_entries()) {
      Case cs = make_case(*e, 3, 37, 2, Dist::normal, r);
      const size_t K = static_cast<size_t>(cs.K), N = 37;
      for (size_t i = 0; i < cs.A.size(); ++i) cs.A[i] = max_finite_code(e->atype, i / K == 1);  // row 1 negative
      for (size_t i = 0; i < cs.B.size(); ++i) cs.B[i] = max_finite_code(e->btype, i % N == 5);  // column 5 negative
      for (uint64_t& c : cs.C) c = 0;
      const uint64_t scale = e->scale_type == Fmt::ue4m3 ? 0x3F : 127;  // 1.875 and 1
      for (auto* v : {&cs.sa, &cs.sb})
        for (uint64_t& x : *v) x = scale;
      bad += check_case(cs, {}, reported);
    }
  });
  EXPECT_EQ(bad, 0);
}

// The benchmarked entries (issue 3) take the fast path, with larger problems and all options.
TEST(MmaFast, BenchmarkedEntriesAtSize) {
  struct Pick {
    const char* arch;
    const char* ptx;
    std::optional<Fmt> stype;
  };
  const Pick picks[] = {
      {"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", std::nullopt},
      {"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", std::nullopt},
      {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", Fmt::ue4m3},
      {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X", Fmt::ue8m0},
  };
  Rng r(7);
  int reported = 0;
  for (const Pick& pk : picks) {
    const InstrLookup lu = find_instruction(pk.arch, pk.ptx, std::nullopt, std::nullopt, std::nullopt, pk.stype);
    ASSERT_NE(lu.entry, nullptr) << lu.error;
    for (Dist d : {Dist::normal, Dist::specials, Dist::zeros, Dist::cancel}) {
      const Case cs = make_case(*lu.entry, 9, 71, 256 / lu.entry->K, d, r);
      for (int i = 0; i < 2; ++i) EXPECT_EQ(check_case(cs, random_options(*lu.entry, r), reported), 0) << pk.ptx;
    }
  }
}

// Parameters the fast path does not implement must go to the generic loop.
TEST(MmaFast, DeclinesWhatItDoesNotImplement) {
  const InstrEntry& e =
      *find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3").entry;
  Rng r(3);
  const Case cs = make_case(e, 2, 3, 1, Dist::normal, r);
  const MmaProblem pr = cs.view();
  ASSERT_TRUE(detail::mma_fast(e.params, pr, e.K, {}).has_value());
  std::vector<DatapathParams> off;
  for (int i = 0; i < 4; ++i) off.push_back(e.params);
  off[0].c_entry = CEntry::rne_after_instruction;
  off[1].widen_to_f16 = true;
  off[2].kpair_halves = true;
  off[3].kind = DatapathKind::integer;
  for (const DatapathParams& p : off) EXPECT_FALSE(detail::mma_fast(p, pr, e.K, {}).has_value()) << describe(p);
  MmaOptions o;
  o.promote_every = -1;
  EXPECT_FALSE(detail::mma_fast(e.params, pr, e.K, o).has_value());
}

}  // namespace
}  // namespace tcemu
