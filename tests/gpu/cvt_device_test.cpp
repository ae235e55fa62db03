// tcemu-gpu's cvt kernels on a real GPU: skipped, saying why, where there is none (CI, this
// machine). With a GPU: every cvt variant of its target converts values that are exact in every
// source and destination format (1, 2, 4, 1/2; integer destinations 1, 2, 3, 4), each element of
// an operand set a different one, under arbitrary random bits (cvt.rs: nothing is discarded, so
// no carry). The result is the same under every rounding, random-bit mapping and saturation
// rule, so a difference is an operand-order, packing or launch error, not a numerics finding.
#include <gtest/gtest.h>

#include "case_runner.hpp"
#include "tcemu/format.hpp"
#include "tcemu/ptx_cvt.hpp"
#include "tcemu_golden/evaluate.hpp"

using namespace tcemu_gpu;
namespace tg = tcemu::golden;

namespace {

TEST(Device, EveryCvtVariantOnExactValues) {
  const DeviceInfo dev = query_device();
  if (!dev.present) GTEST_SKIP() << "no CUDA device: " << dev.why_not;
  if (!dev.arch_bit()) GTEST_SKIP() << dev.name << " is not sm_90a, sm_100a or sm_120a";
  int ran = 0;
  for (const CvtInfo& cv : cvt_variants()) {
    if (!(cv.arch_mask & dev.arch_bit())) continue;
    const auto parsed = tcemu::parse_ptx_cvt(cv.ptx);
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const tcemu::PtxCvt* pc = &parsed.value;
    const bool ints = tcemu::info(pc->dst).is_int || tcemu::info(pc->src).is_int;
    // (significand, exponent): 1, 2, 4, 1/2 or, for integer sources and destinations, 1, 2, 4, 3.
    const std::pair<uint64_t, int> vals[4] = {{1, 0}, {1, 1}, {1, 2}, ints ? std::pair<uint64_t, int>{3, 0} : std::pair<uint64_t, int>{1, -1}};
    auto code = [&](int v) -> uint64_t {
      if (tcemu::info(pc->src).is_int) return vals[v].first << vals[v].second;
      return *tcemu::encode_exact(pc->src, false, vals[v].first, vals[v].second);
    };
    const size_t n = 8;
    const int regs = cv.srcs;
    const int per_reg = pc->src_packed ? pc->src_count : 1;
    const int field = cv.src_bits / per_reg;
    std::vector<uint64_t> src(n * regs), rbits(n);
    for (size_t i = 0; i < n; ++i) {
      for (int e = 0; e < pc->src_count; ++e) {
        const uint64_t c = code(static_cast<int>((i + e) % 4));
        if (pc->src_packed) src[i] |= c << (field * (pc->src_count - 1 - e));  // a in the high field
        else src[i * regs + e] = c;
      }
      rbits[i] = (0x9e3779b9u * (i + 1)) & 0xffffffffu;
    }
    tg::Case c;
    c.name = "exact";
    c.op = tg::OpKind::cvt;
    c.cvt.ptx = cv.ptx;
    c.cvt.parsed = *pc;
    c.operands["src"] = tg::make_array(tg::bits_type(cv.src_bits), n, regs, src);
    if (cv.rbits) c.operands["rbits"] = tg::make_array(tg::bits_type(32), n, 1, rbits, false, true);
    c.expected = tg::make_array(tg::bits_type(cv.dst_bits), n, 1, std::vector<uint64_t>(n, 0), false, true);
    std::string err;
    const auto hw = run_case(c, err);
    ASSERT_TRUE(hw.has_value()) << cv.ptx << ": " << err;
    EXPECT_EQ(hw->logical(), tg::evaluate(c)) << cv.ptx;
    ++ran;
  }
  EXPECT_GT(ran, 100);
}

}  // namespace
