// The probe inference of tcemu-gpu (tools/gpu/probe.cpp) fed with the emulator's outputs: the
// emulator stands in for a GPU, so the inference must recover each catalog entry's own
// parameters. This is a test of the inference (which reasons from docs/datapath.md §1 and the probes of docs/sources.md,
// not from the datapath code); the datapath itself is tested against the reference elsewhere.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "probe.hpp"
#include "tcemu/catalog.hpp"

using namespace tcemu_gpu;

namespace {

bool block_scaled(const tcemu::InstrEntry& e) { return e.scale_type.has_value(); }

// Every catalog entry: no determined value contradicts the catalog.
TEST(ProbeInference, NoEntryContradictsItsOwnCatalogParameters) {
  int n = 0;
  for (const tcemu::InstrEntry& e : tcemu::catalog()) {
    const ProbeResult r = probe_instruction(e, emulator_runner(e));
    EXPECT_TRUE(r.differences.empty()) << e.arch << " " << e.ptx << "\n" << probe_text(r, e);
    ++n;
  }
  EXPECT_GT(n, 500);
}

// Where the formats allow it, the inference determines the parameters, not just "no
// contradiction": F and the C entry for every floating-point entry whose C is fused, the
// rounding where F leaves rounding bits visible, L where exact products span F + 1 binades,
// e_zero for f16 outputs, the overflow behaviour of every integer entry.
TEST(ProbeInference, DeterminesTheParameters) {
  std::set<std::string> seen_rounding;
  int with_L = 0, with_ezero = 0, integers = 0;
  for (const tcemu::InstrEntry& e : tcemu::catalog()) {
    const ProbeResult r = probe_instruction(e, emulator_runner(e));
    const tcemu::DatapathParams& p = e.params;
    const std::string what = e.arch + " " + e.ptx + "\n" + probe_text(r, e);
    if (p.kind == tcemu::DatapathKind::integer) {
      ASSERT_TRUE(r.satfinite.has_value()) << what;
      EXPECT_EQ(*r.satfinite, p.satfinite) << what;
      ++integers;
      continue;
    }
    if (p.c_entry != tcemu::CEntry::fused) {
      EXPECT_EQ(r.c_entry, "after") << what;
      continue;
    }
    EXPECT_EQ(r.c_entry, "fused") << what;
    ASSERT_TRUE(r.F.has_value()) << what;
    EXPECT_EQ(*r.F, p.F) << what;
    const bool f16_out = p.rounding == tcemu::OutputRounding::rne_f16;
    if (f16_out || p.F >= 23 || p.rounding == tcemu::OutputRounding::rz_e8m13) {
      EXPECT_EQ(r.rounding, catalog_rounding(e)) << what;
      seen_rounding.insert(r.rounding);
    }
    if (r.L) {
      EXPECT_EQ(*r.L, std::min(p.kpair_halves ? e.K / 2 : p.L, e.K)) << what;
      ++with_L;
    } else {
      // Only FP4/FP6 operands lack exact products 2^(F+1) apart.
      EXPECT_TRUE(tcemu::info(e.atype).width <= 6 || tcemu::info(e.btype).width <= 6 || block_scaled(e)) << what;
    }
    if (r.e_zero) {
      EXPECT_EQ(*r.e_zero, p.e_zero) << what;
      ++with_ezero;
    }
    // f16/bf16 products reach the f16 tie: e_zero above -25 is measured, below it bounded.
    if (f16_out && tcemu::info(e.atype).width >= 16 && tcemu::info(e.btype).width >= 16) {
      if (p.e_zero > -25) EXPECT_TRUE(r.e_zero.has_value()) << what;
      else EXPECT_TRUE(r.e_zero_max.has_value()) << what;
    }
  }
  EXPECT_EQ(seen_rounding, (std::set<std::string>{"rz_f32", "rne_f16", "rz_e8m13"}));
  EXPECT_GT(with_L, 100);
  EXPECT_GT(with_ezero, 5);
  EXPECT_GT(integers, 10);
}

// A runner that is not the catalog's datapath must be caught: the same entry run through a
// plain f32 fused-multiply-add loop (RNE after every term) shows as differences.
TEST(ProbeInference, ReportsAForeignDatapath) {
  const tcemu::InstrLookup lk = tcemu::find_instruction("sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  ASSERT_NE(lk.entry, nullptr) << lk.error;
  tcemu::InstrEntry other = *lk.entry;
  other.params.F = 23;
  other.params.L = 4;
  const ProbeResult r = probe_instruction(*lk.entry, emulator_runner(other));
  ASSERT_TRUE(r.F.has_value());
  EXPECT_EQ(*r.F, 23);
  ASSERT_TRUE(r.L.has_value());
  EXPECT_EQ(*r.L, 4);
  EXPECT_GE(r.differences.size(), 2u) << probe_text(r, *lk.entry);
}

}  // namespace
