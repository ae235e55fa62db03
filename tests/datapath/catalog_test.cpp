// The instruction catalog: coverage of the PTX instruction families of issue 3, lookups by
// spelling, and the datapath parameters of docs/datapath.md §3 for the entries it tabulates.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tcemu/catalog.hpp"

namespace tcemu::test {
namespace {

const InstrEntry* find(const char* arch, const char* ptx, std::optional<Fmt> a = {}, std::optional<Fmt> b = {},
                       std::optional<AccType> d = {}, std::optional<Fmt> s = {}) {
  const InstrLookup l = find_instruction(arch, ptx, a, b, d, s);
  EXPECT_NE(l.entry, nullptr) << arch << " " << ptx << ": " << l.error;
  return l.entry;
}

void expect_params(const InstrEntry* e, int L, int F, int ez, OutputRounding r, CEntry ce = CEntry::fused) {
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->params.L, L) << e->ptx;
  EXPECT_EQ(e->params.F, F) << e->ptx;
  EXPECT_EQ(e->params.e_zero, ez) << e->ptx;
  EXPECT_EQ(e->params.rounding, r) << e->ptx;
  EXPECT_EQ(e->params.c_entry, ce) << e->ptx;
}

TEST(Catalog, IssueExamplesResolve) {
  find("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  find("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3");
  const InstrEntry* t = find("sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", Fmt::e2m1, Fmt::e4m3, AccType::f32);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->K, 32);
  EXPECT_TRUE(t->types_in_descriptor);
}

// docs/datapath.md §3, row by row.
TEST(Catalog, ParametersOfTheSection33Table) {
  using OR = OutputRounding;
  expect_params(find("sm_70", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"), 4, 23, -131, OR::rz_f32);
  expect_params(find("sm_70", "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16"), 4, 23, -20, OR::rne_f16);
  expect_params(find("sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 8, 24, -132, OR::rz_f32);
  expect_params(find("sm_80", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), 4, 24, -132, OR::rz_f32);
  expect_params(find("sm_89", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), 8, 24, -21, OR::rne_f16);
  expect_params(find("sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"), 16, 13, -132, OR::rz_e8m13);
  expect_params(find("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 16, 25, -133, OR::rz_f32);
  expect_params(find("sm_90", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), 16, 25, -22, OR::rne_f16);
  expect_params(find("sm_90a", "wgmma.mma_async.sync.aligned.m64n136k8.f32.tf32.tf32"), 8, 25, -133, OR::rz_f32);
  // e_zero -22, not [MS]'s -133: the H200 e_zero tie probe (docs/hw-h200.md, finding 3).
  expect_params(find("sm_90a", "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16"), 16, 25, -22, OR::rne_f16);
  expect_params(find("sm_90a", "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e4m3"), 32, 13, -133, OR::rz_e8m13);
  expect_params(find("sm_90a", "wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e4m3"), 32, 13, -133, OR::rne_f16);
  expect_params(find("sm_100a", "tcgen05.mma.cta_group::2.kind::f16", Fmt::bf16, Fmt::bf16, AccType::f32), 16, 25, -133,
                OR::rz_f32);
  expect_params(find("sm_100a", "tcgen05.mma.cta_group::1.kind::tf32"), 8, 25, -133, OR::rz_f32);
  expect_params(find("sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", Fmt::e4m3, Fmt::e4m3, AccType::f16), 32, 25, -133,
                OR::rne_f16);
  // The Hopper lowering measured on H200 also reproduces hw-vectors B200 FP8 (docs/hw-h200.md).
  expect_params(find("sm_100", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"), 16, 25, -133, OR::rz_f32,
                CEntry::rne_after_instruction);
  const InstrEntry* mx = find("sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", Fmt::e4m3,
                              Fmt::e4m3);
  expect_params(mx, 32, 25, -133, OR::rz_f32);
  EXPECT_EQ(mx->params.kind, DatapathKind::st_fdpa);
  EXPECT_EQ(mx->scale_type, Fmt::ue8m0);
  EXPECT_EQ(mx->scale_block, 32);
  const InstrEntry* nv = find("sm_120a",
                              "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
  expect_params(nv, 64, 35, -139, OR::rz_f32);
  EXPECT_EQ(nv->params.kind, DatapathKind::gst_fdpa);
  EXPECT_EQ(nv->params.group, 16);
  EXPECT_EQ(nv->scale_block, 16);
  expect_params(find("sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16"), 32, 25, -22,
                OR::rne_f16);
}

// The formerly unknown sm_90 mma.sync FP8 (docs/datapath.md §3) takes the model measured on H200
// (docs/hw-h200.md, finding 1): f16 widening, k-pair halves of K/2, C added after.
TEST(Catalog, Sm90MmaSyncFp8IsTheMeasuredLowering) {
  for (const char* ptx : {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16",
                          "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32"}) {
    const InstrEntry* e = find("sm_90", ptx);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->confidence, Confidence::measured) << ptx;
    EXPECT_TRUE(e->params.widen_to_f16 && e->params.kpair_halves && e->params.positive_zero) << ptx;
    EXPECT_EQ(e->params.c_entry, CEntry::rne_after_instruction) << ptx;
    EXPECT_EQ(e->params.L * 2, e->K) << ptx;
    EXPECT_EQ(e->params.e_zero, e->dtype == AccType::f16 ? -22 : -133) << ptx;
  }
  // Not recorded on the H200: the same model, marked as extrapolated with a note.
  const InstrEntry* x = find("sm_90", "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e5m2.f16");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->confidence, Confidence::extrapolated);
  EXPECT_FALSE(x->note.empty());
}

// Every entry says where its parameters come from; every entry that is not measured or
// published says what was assumed.
TEST(Catalog, EveryEntryHasEvidenceAndGuessesSaySo) {
  for (const InstrEntry& e : catalog()) {
    EXPECT_FALSE(e.evidence.empty()) << e.arch << " " << e.ptx;
    if (e.confidence == Confidence::extrapolated || e.confidence == Confidence::unknown) {
      EXPECT_FALSE(e.note.empty()) << e.arch << " " << e.ptx << " is " << to_string(e.confidence) << " without a note";
    }
  }
}

TEST(Catalog, Coverage) {
  // wgmma: every N from 8 to 256 in steps of 8, for each float type combination.
  for (int n = 8; n <= 256; n += 8) {
    const std::string pre = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n);
    find("sm_90a", (pre + "k16.f32.f16.f16").c_str());
    find("sm_90a", (pre + "k16.f32.bf16.bf16").c_str());
    find("sm_90a", (pre + "k8.f32.tf32.tf32").c_str());
    find("sm_90a", (pre + "k32.f16.e4m3.e5m2").c_str());
  }
  find("sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.s32.u8.s8.satfinite");
  // mxf4nvf4: every scale_vec and scale type, on tcgen05 and sm_120a mma.sync.
  for (const char* cg : {"1", "2"}) {
    const std::string pre = std::string("tcgen05.mma.cta_group::") + cg + ".kind::";
    find("sm_100a", (pre + "mxf4.block_scale.scale_vec::2X").c_str());
    find("sm_100a", (pre + "mxf4nvf4.block_scale.scale_vec::2X").c_str());
    find("sm_100a", (pre + "mxf4nvf4.block_scale.scale_vec::4X").c_str(), {}, {}, {}, Fmt::ue8m0);
    find("sm_100a", (pre + "mxf4nvf4.block_scale.scale_vec::4X").c_str(), {}, {}, {}, Fmt::ue4m3);
    find("sm_100a", (pre + "i8").c_str(), Fmt::u8, Fmt::s8);
  }
  find("sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0");
  find("sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0");
  find("sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
  // ptxas rejects 4X with ue8m0 for mma.sync (tcgen05 has it).
  EXPECT_EQ(find_instruction("sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0")
                .entry,
            nullptr);
  // Layout tokens in any order; an a-suffixed arch runs its base arch's mma.sync.
  find("sm_90a", "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32");
  find("sm_80", "wmma.mma.sync.aligned.col.col.m32n8k16.f32.f32");
  find("sm_89", "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32");
}

TEST(Catalog, EveryEntryIsConsistentAndFindable) {
  std::set<std::string> seen;
  for (const InstrEntry& e : catalog()) {
    std::optional<Fmt> st = e.scale_type;
    EXPECT_EQ(validate(e.params, e.atype, e.btype, st), "") << e.arch << " " << e.ptx;
    EXPECT_FALSE(e.evidence.empty()) << e.ptx;
    EXPECT_TRUE(e.K % e.params.L == 0 || e.params.L % e.K == 0) << e.ptx;
    EXPECT_EQ(e.scale_type.has_value(), e.params.kind == DatapathKind::st_fdpa || e.params.kind == DatapathKind::gst_fdpa)
        << e.ptx;
    if (e.confidence == Confidence::unknown || e.confidence == Confidence::extrapolated) {
      EXPECT_FALSE(e.note.empty() && e.evidence.find("extrapolated") == std::string::npos) << e.ptx;
    }
    const InstrLookup l = find_instruction(e.arch, e.ptx, e.atype, e.btype, e.dtype, e.scale_type);
    EXPECT_EQ(l.entry, &e) << e.arch << " " << e.ptx << ": " << l.error;
    seen.insert(e.arch);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"sm_70", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_103a",
                                         "sm_110", "sm_110a", "sm_120", "sm_120a", "sm_121", "sm_121a"}));
}

// The newer targets (issue 28): the PTX instructions of their sibling, with its parameters,
// marked extrapolated; none claims a measurement.
TEST(Catalog, NewerTargetsTakeTheirSiblingsInstructions) {
  const std::map<std::string, std::string> sibling = {{"sm_103", "sm_100"}, {"sm_103a", "sm_100a"}, {"sm_110", "sm_100"},
                                                      {"sm_110a", "sm_100a"}, {"sm_121", "sm_120"}, {"sm_121a", "sm_120a"}};
  std::map<std::string, size_t> count;
  for (const InstrEntry& e : catalog()) ++count[e.arch];
  for (const auto& [to, from] : sibling) {
    size_t n = 0;
    for (const InstrEntry& e : catalog()) {
      if (e.arch != to) continue;
      ++n;
      EXPECT_EQ(e.params_from, from) << to << " " << e.ptx;
      EXPECT_EQ(e.confidence, Confidence::extrapolated) << to << " " << e.ptx;
      EXPECT_NE(e.note.find("not measured on"), std::string::npos) << e.note;
      // The evidence names the instruction's source and quotes the sibling's own evidence.
      EXPECT_EQ(e.evidence.rfind("[PTX]", 0), 0u) << e.evidence;
      EXPECT_NE(e.evidence.find("parameters of the " + from + " entry ("), std::string::npos) << e.evidence;
      const InstrLookup s = find_instruction(from, e.ptx, e.atype, e.btype, e.dtype, e.scale_type);
      ASSERT_NE(s.entry, nullptr) << from << " " << e.ptx << ": " << s.error;
      EXPECT_EQ(s.entry->params, e.params) << e.ptx;
      EXPECT_EQ(s.entry->family_target, e.family_target) << e.ptx;
    }
    // sm_103a has every sm_100a instruction but tcgen05 kind::i8 (16 entries: 4 type pairs x 2 cta groups).
    EXPECT_EQ(n, count[from] - (to == "sm_103a" ? 8 : 0)) << to;
  }
  EXPECT_EQ(catalog().size(), 1654u);
  // kind::i8: sm_100a and sm_110a only, not their family targets, not sm_103a.
  const char* i8 = "tcgen05.mma.cta_group::1.kind::i8";
  EXPECT_NE(find_instruction("sm_110a", i8, Fmt::s8, Fmt::s8).entry, nullptr);
  for (const char* a : {"sm_103a", "sm_103f", "sm_100f", "sm_110f"}) {
    const InstrLookup l = find_instruction(a, i8, Fmt::s8, Fmt::s8);
    EXPECT_EQ(l.entry, nullptr) << a;
    EXPECT_NE(l.error.find("sm_100a"), std::string::npos) << l.error;
  }
}

// An `f` target finds its `a` target's family entries and its base arch's; an `a`-only
// instruction it does not.
TEST(Catalog, FamilyTargetsFindTheirFamilyEntries) {
  const InstrEntry* f = find("sm_103f", "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X", Fmt::e2m1,
                             Fmt::e2m1, AccType::f32, Fmt::ue4m3);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->arch, "sm_103a");
  EXPECT_EQ(find("sm_100f", "tcgen05.mma.cta_group::1.kind::tf32")->arch, "sm_100a");
  EXPECT_EQ(find("sm_110f", "tcgen05.mma.cta_group::1.kind::tf32")->arch, "sm_110a");
  EXPECT_EQ(find("sm_121f", "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32")->arch, "sm_121a");
  EXPECT_EQ(find("sm_120f", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")->arch, "sm_120");
  EXPECT_EQ(find("sm_121a", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")->arch, "sm_121");
  // wgmma is sm_90a only: no family target has it.
  EXPECT_EQ(find_instruction("sm_90f", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16").entry, nullptr);
  for (const InstrEntry& e : catalog())
    EXPECT_EQ(e.family_target, (e.family.rfind("tcgen05", 0) == 0 && e.family != "tcgen05 kind::i8") ||
                                   e.family.rfind("mma.sync kind::", 0) == 0)
        << e.arch << " " << e.ptx;
}

TEST(Catalog, LookupErrorsSayWhy) {
  InstrLookup l = find_instruction("sm_90", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16");
  EXPECT_EQ(l.entry, nullptr);
  EXPECT_NE(l.error.find("sm_90a"), std::string::npos) << l.error;
  l = find_instruction("sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4");
  EXPECT_EQ(l.entry, nullptr);
  EXPECT_NE(l.error.find("--atype"), std::string::npos) << l.error;
  l = find_instruction("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", Fmt::bf16);
  EXPECT_EQ(l.entry, nullptr);
  l = find_instruction("sm_90", "mma.sync.bogus");
  EXPECT_EQ(l.entry, nullptr);
  EXPECT_FALSE(l.error.empty());
}

}  // namespace
}  // namespace tcemu::test
