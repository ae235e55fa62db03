// check_dot_args (datapath.hpp) states the preconditions of fdpa_step and fdpa_dot: for every
// argument set below, it returns "" exactly when the call does not throw, and otherwise the
// message the call throws (docs/architecture.md, "Errors").
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcemu/datapath.hpp"

namespace {

using namespace tcemu;

struct Args {
  std::string name;
  DatapathParams p;
  Fmt fa, fb;
  size_t na, nb;
  bool with_scales;
  int block;
  size_t scales;
};

// What the call throws ("" when it returns).
std::string thrown(const Args& a, bool step) {
  const std::vector<uint64_t> va(a.na, 0x38), vb(a.nb, 0x38), sc(a.scales, 0x7F);
  const BlockScales s{Fmt::ue8m0, a.block, sc, sc};
  try {
    const uint64_t c = 0;
    if (step) (void)fdpa_step(a.p, a.fa, a.fb, va, vb, c, a.with_scales ? &s : nullptr);
    else (void)fdpa_dot(a.p, a.fa, a.fb, va, vb, c, a.with_scales ? &s : nullptr);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

std::string checked(const Args& a, bool step) {
  const std::vector<uint64_t> sc(a.scales, 0x7F);
  const BlockScales s{Fmt::ue8m0, a.block, sc, sc};
  return check_dot_args(a.p, a.fa, a.fb, a.na, a.nb, a.with_scales ? &s : nullptr, step);
}

TEST(CheckDotArgs, AgreesWithTheCalls) {
  DatapathParams t;  // T-FDPA, L = 16
  DatapathParams st = t;
  st.kind = DatapathKind::st_fdpa;
  st.L = 32;
  DatapathParams bad_f = t;
  bad_f.F = -5;
  const std::vector<Args> cases = {
      {"valid step", t, Fmt::e4m3, Fmt::e4m3, 16, 16, false, 32, 0},
      {"valid dot, K > L", t, Fmt::e4m3, Fmt::e4m3, 40, 40, false, 32, 0},
      {"lengths differ", t, Fmt::e4m3, Fmt::e4m3, 16, 15, false, 32, 0},
      {"more than L terms", t, Fmt::e4m3, Fmt::e4m3, 17, 17, false, 32, 0},
      {"bad parameters", bad_f, Fmt::e4m3, Fmt::e4m3, 4, 4, false, 32, 0},
      {"scaled without scales", st, Fmt::e4m3, Fmt::e4m3, 32, 32, false, 32, 0},
      {"scaled, valid", st, Fmt::e4m3, Fmt::e4m3, 32, 32, true, 32, 1},
      {"scaled, valid dot", st, Fmt::e4m3, Fmt::e4m3, 64, 64, true, 32, 2},
      {"too few scales", st, Fmt::e4m3, Fmt::e4m3, 64, 64, true, 32, 1},
      {"L not a multiple of the block", st, Fmt::e4m3, Fmt::e4m3, 32, 32, true, 24, 2},
      {"block 0", st, Fmt::e4m3, Fmt::e4m3, 32, 32, true, 0, 2},
  };
  for (const Args& a : cases) {
    for (bool step : {true, false}) {
      const std::string what = a.name + (step ? " (fdpa_step)" : " (fdpa_dot)");
      const std::string got = thrown(a, step);
      const std::string want = checked(a, step);
      EXPECT_EQ(got.empty(), want.empty()) << what << ": threw '" << got << "', check_dot_args '" << want << "'";
      // fdpa_dot's steps check again: its message is the first one found, which is ours when
      // the call checks in the same order (every case above).
      if (!got.empty()) {
        EXPECT_EQ(got, want) << what;
      }
    }
  }
}

}  // namespace
