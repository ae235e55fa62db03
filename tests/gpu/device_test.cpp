// tcemu-gpu on a real GPU: skipped, saying why, where there is none (CI, this machine).
// With a GPU: every instruction the GPU runs gets small-integer tiles, whose products and sums
// every datapath computes exactly, so D must equal the exact result bit for bit whatever the
// rounding model: a failure is an operand-layout or launch error, not a numerics finding.
#include <gtest/gtest.h>

#include "case_runner.hpp"
#include "small_integer_case.hpp"
#include "tcgen05_runner.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/evaluate.hpp"

using namespace tcemu_gpu;
namespace tg = tcemu::golden;

namespace {

using tcemu_gpu_test::small_integer_case;

TEST(Device, EveryInstructionOnSmallIntegers) {
  const DeviceInfo dev = query_device();
  if (!dev.present) GTEST_SKIP() << "no CUDA device: " << dev.why_not;
  if (!dev.arch_bit()) GTEST_SKIP() << dev.name << " is not sm_90a, sm_100a or sm_120a";
  const std::string arch = dev.arch_bit() == 1 ? "sm_90a" : dev.arch_bit() == 2 ? "sm_100a" : "sm_120a";
  int ran = 0;
  for (const InstrInfo& in : instructions()) {
    if (!(in.arch_mask & dev.arch_bit())) continue;
    const tcemu::InstrLookup lk = tcemu::find_instruction(arch, in.ptx);
    if (!lk.entry) continue;
    const tcemu::InstrEntry& e = *lk.entry;
    const bool integer = e.params.kind == tcemu::DatapathKind::integer;
    const tg::Case c = small_integer_case(e, arch, 2 * in.m, 2 * in.n, 2 * in.k, in.m, in.n);
    std::string err;
    const auto hw = run_case(c, err);
    ASSERT_TRUE(hw.has_value()) << e.ptx << ": " << err;
    EXPECT_EQ(hw->logical(), tg::evaluate(c)) << e.ptx;
    // Floating-point wgmma also with imm-scale-a/b = -1 (the three other kernel variants).
    for (int neg = 1; neg < (in.wgmma && !integer ? 4 : 1); ++neg) {
      tg::Case n = c;
      n.mma.options.negate_a = neg & 1;
      n.mma.options.negate_b = neg & 2;
      const auto hn = run_case(n, err);
      ASSERT_TRUE(hn.has_value()) << e.ptx << " imm-scale variant " << neg << ": " << err;
      EXPECT_EQ(hn->logical(), tg::evaluate(n)) << e.ptx << " imm-scale variant " << neg;
    }
    ++ran;
  }
  EXPECT_GT(ran, 0);
}

// tcgen05.mma (sm_100a, tcgen05_runner.cpp): every catalog entry with a kernel (cta_group::1;
// cta_group::2, a 64-row device tile over the CTA pair), two K steps,
// two 32-row and two 8-column tiles, the same small integers and power-of-two scales.
TEST(Device, Tcgen05OnSmallIntegers) {
  const DeviceInfo dev = query_device();
  if (!dev.present) GTEST_SKIP() << "no CUDA device: " << dev.why_not;
  if (dev.arch_bit() != 2) GTEST_SKIP() << dev.name << " is not sm_100a (tcgen05.mma)";
  int ran = 0;
  for (const tcemu::InstrEntry* ep : tcgen05_entries()) {
    if (!tcgen05_entry_why_not(*ep).empty()) continue;
    const tcemu::InstrEntry& e = *ep;
    tg::Case c = small_integer_case(e, e.arch, 64, 16, 2 * e.K, 64, 8);
    // scale-input-d (kinds f16, tf32) on every other entry: C * 2^-2 stays exact.
    if ((e.ptx.find("kind::f16") != std::string::npos || e.ptx.find("kind::tf32") != std::string::npos) && ran % 2 == 0)
      c.mma.options.scale_input_d = 2;
    std::string err;
    const auto hw = run_case(c, err);
    ASSERT_TRUE(hw.has_value()) << e.ptx << ": " << err;
    EXPECT_EQ(hw->logical(), tg::evaluate(c)) << e.ptx << " " << tcemu::info(e.atype).name << "." << tcemu::info(e.btype).name;
    ++ran;
  }
  EXPECT_GT(ran, 100);
}

}  // namespace
