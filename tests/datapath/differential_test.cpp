// Fast model vs reference model (exact rationals) on random dot products, for one entry of
// every catalog family: at least 100,000 dot products per family in CI over every
// distribution of random_operands.hpp; ten times more under the `long` label.
//
// What this can and cannot show: both models are given the catalog entry's own parameters
// (L, F, rounding, e_zero, where C enters). Agreement proves that the fast integer
// implementation computes the model those parameters define; it says nothing about whether
// the parameters are the hardware's. That evidence is the hardware rows
// (datapath_hw_vectors_test), the H200 records (gpu_h200_mma_records_test) and the published
// probes (datapath_directed_test).
#include <gtest/gtest.h>

#include <set>

#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "random_operands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu::test {

struct Family {
  const char* arch;
  const char* ptx;
  std::optional<Fmt> atype, btype;
  std::optional<AccType> dtype;
  std::optional<Fmt> stype;
};

inline const Family kFamilies[] = {
    {"sm_70", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", {}, {}, {}, {}},
    {"sm_70", "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16", {}, {}, {}, {}},
    {"sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", {}, {}, {}, {}},
    {"sm_80", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", {}, {}, {}, {}},
    {"sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", {}, {}, {}, {}},
    {"sm_89", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", {}, {}, {}, {}},
    {"sm_90", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", {}, {}, {}, {}},
    {"sm_90", "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16", {}, {}, {}, {}},  // k-pair halves, C after
    {"sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e4m3.f32", {}, {}, {}, {}},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", {}, {}, {}, {}},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", {}, {}, {}, {}},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.u8", {}, {}, {}, {}},
    {"sm_100", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", {}, {}, {}, {}},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", Fmt::e2m1, Fmt::e3m2, AccType::f32, {}},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::tf32", {}, {}, {}, {}},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", Fmt::e4m3, Fmt::e2m3, {}, {}},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X", {}, {}, {}, {}},
    {"sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", {}, {}, {}, {}},
    {"sm_120a", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", {}, {}, {}, {}},
    // One entry of every other catalog family, so that each of the 26 families is here.
    {"sm_80", "mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32", {}, {}, {}, {}},
    {"sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m1.f16", {}, {}, {}, {}},
    {"sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e5m2.f32.ue8m0", {}, {}, {}, {}},
    {"sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", {}, {}, {}, {}},
    {"sm_89", "wmma.mma.sync.aligned.row.col.m32n8k16.f16.f16", {}, {}, {}, {}},
    {"sm_80", "wmma.mma.sync.aligned.row.col.m8n32k16.f32.bf16.bf16.f32", {}, {}, {}, {}},
    {"sm_90", "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", {}, {}, {}, {}},
    {"sm_80", "wmma.mma.sync.aligned.row.col.m16n16k16.s32.u8.u8.s32.satfinite", {}, {}, {}, {}},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n24k16.f32.bf16.bf16", {}, {}, {}, {}},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n40k8.f32.tf32.tf32", {}, {}, {}, {}},
    {"sm_100a", "tcgen05.mma.cta_group::2.kind::f16", Fmt::f16, Fmt::f16, AccType::f16, {}},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::i8", Fmt::u8, Fmt::s8, AccType::s32, {}},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", {}, {}, {}, Fmt::ue8m0},
};

inline const InstrEntry& entry_of(const Family& f) {
  const InstrLookup l = find_instruction(f.arch, f.ptx, f.atype, f.btype, f.dtype, f.stype);
  if (!l.entry) {
    std::fprintf(stderr, "catalog lookup failed: %s\n", l.error.c_str());
    std::abort();
  }
  return *l.entry;
}

// One random dot product of the entry, with K between 1 and two instructions.
struct Sample {
  std::vector<uint64_t> a, b, sa, sb;
  uint64_t c = 0;
};

inline Sample random_sample(const InstrEntry& e, Dist d, Rng& r) {
  Sample s;
  const bool scaled = e.scale_type.has_value();
  // Scaled kinds take whole blocks; others any length (padding and chaining both exercised).
  size_t n = scaled ? static_cast<size_t>(e.K) * (1 + r() % 2) : 1 + r() % (2 * static_cast<size_t>(e.K));
  s.a.resize(n);
  s.b.resize(n);
  for (size_t i = 0; i < n; ++i) {
    s.a[i] = random_code(e.atype, d, r);
    s.b[i] = random_code(e.btype, d, r);
  }
  if (d == Dist::cancel && e.atype == e.btype)  // exact cancelling pairs
    for (size_t i = 0; i + 1 < n; i += 2)
      if (r() % 2) {
        s.a[i + 1] = s.a[i] ^ info(e.atype).sign_mask();
        s.b[i + 1] = s.b[i];
      }
  s.c = e.dtype != AccType::s32 ? random_code(acc_format(e.dtype), d, r) : random_code(Fmt::s8, d, r) * 0x01010101u;  // s32: any 32-bit pattern
  if (e.dtype == AccType::s32 && d == Dist::extreme) s.c = (r() % 2) ? 0x7FFFFF00u : 0x80000100u;
  if (scaled) {
    const size_t nb = n / static_cast<size_t>(e.scale_block);
    for (size_t i = 0; i < nb; ++i) {
      s.sa.push_back(random_scale(*e.scale_type, d, r));
      s.sb.push_back(random_scale(*e.scale_type, d, r));
    }
  }
  return s;
}

inline void run_family(const Family& f, size_t count, uint64_t seed) {
  const InstrEntry& e = entry_of(f);
  Rng r(seed);
  size_t done = 0, bad = 0;
  for (size_t i = 0; i < count; ++i) {
    const Dist d = kDists[i % std::size(kDists)];
    Sample s = random_sample(e, d, r);
    BlockScales bs{e.scale_type.value_or(Fmt::ue8m0), e.scale_block, s.sa, s.sb};
    const BlockScales* ps = e.scale_type ? &bs : nullptr;
    const uint64_t fast = fdpa_dot(e.params, e.atype, e.btype, s.a, s.b, s.c, ps);
    const uint64_t ref = ref::fdpa_dot(e.params, e.atype, e.btype, s.a, s.b, s.c, ps);
    ++done;
    if (fast != ref && ++bad <= 5) {
      std::string row;
      char buf[32];
      for (uint64_t x : s.a) { std::snprintf(buf, sizeof buf, "%llx ", (unsigned long long)x); row += buf; }
      row += "| ";
      for (uint64_t x : s.b) { std::snprintf(buf, sizeof buf, "%llx ", (unsigned long long)x); row += buf; }
      std::snprintf(buf, sizeof buf, "| %llx", (unsigned long long)s.c);
      row += buf;
      ADD_FAILURE() << e.arch << " " << e.ptx << " dist " << dist_name(d) << ": fast " << std::hex << fast << " ref "
                    << ref << "\n  " << row;
    }
  }
  std::printf("[differential] %s %s (%s x %s): %zu dot products, %zu differ\n", e.arch.c_str(), e.ptx.c_str(),
              std::string(info(e.atype).name).c_str(), std::string(info(e.btype).name).c_str(), done, bad);
  EXPECT_EQ(bad, 0u);
}

// Readable test parameters in gtest output.
inline void PrintTo(const Family& f, std::ostream* os) { *os << f.arch << " " << f.ptx; }

// Every family of the catalog has an entry above (issue 3: >= 100,000 per family).
TEST(DifferentialCoverage, EveryCatalogFamilyIsHere) {
  std::set<std::string> want, have;
  for (const InstrEntry& e : catalog()) want.insert(e.family);
  for (const Family& f : kFamilies) have.insert(entry_of(f).family);
  EXPECT_EQ(have, want);
}

class Differential : public ::testing::TestWithParam<Family> {};

#ifndef TCEMU_DIFF_COUNT
#define TCEMU_DIFF_COUNT 100000
#endif
TEST_P(Differential, FastEqualsReferenceGivenCatalogParams) { run_family(GetParam(), TCEMU_DIFF_COUNT, 0xD0700 + std::hash<std::string>{}(GetParam().ptx)); }

std::string family_name(const ::testing::TestParamInfo<Family>& i) {
  std::string s = std::to_string(i.index) + "_" + i.param.arch;
  return s;
}

INSTANTIATE_TEST_SUITE_P(Families, Differential, ::testing::ValuesIn(kFamilies), family_name);

}  // namespace tcemu::test
