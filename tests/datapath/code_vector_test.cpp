// CodeVector (tcemu/code_vector.hpp): codes held at their container width, read back as the
// values written (cut to the width); and mma()'s D held at the container width of the entry's
// accumulator format (format.hpp's table: 2 bytes for f16, 4 for f32 and s32), not as 64-bit
// codes, with an empty C the same as M x N zeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <stdexcept>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/code_vector.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/mma.hpp"

namespace tcemu {
namespace {

TEST(CodeVector, HoldsEachWidth) {
  const std::vector<uint64_t> v = {0, 1, 0x7f, 0x80, 0xff, 0x1234, 0xffff, 0x89abcdef, 0xffffffff, 0x0123456789abcdefull,
                                   ~uint64_t{0}};
  for (int w : {1, 2, 4, 8}) {
    const uint64_t mask = w == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * w)) - 1;
    CodeVector c(v, w);
    ASSERT_EQ(c.size(), v.size());
    EXPECT_EQ(c.width(), w);
    EXPECT_EQ(c.bytes(), v.size() * static_cast<size_t>(w));
    std::vector<uint64_t> cut(v.size());
    std::transform(v.begin(), v.end(), cut.begin(), [&](uint64_t x) { return x & mask; });
    EXPECT_EQ(c.values(), cut) << w;
    EXPECT_TRUE(c == cut) << w;
    EXPECT_EQ(std::vector<uint64_t>(c.begin(), c.end()), cut) << w;  // the iterator reads values
    EXPECT_EQ(c.end() - c.begin(), static_cast<std::ptrdiff_t>(v.size()));
    c.set(3, 0x5a);
    EXPECT_EQ(c[3], 0x5au);
    EXPECT_EQ(c[2], cut[2]);  // a neighbour untouched
    EXPECT_EQ(c[4], cut[4]);
    EXPECT_THROW((void)c.at(v.size()), std::out_of_range);
  }
  EXPECT_TRUE(CodeVector(v, 8) == CodeVector(v, 8));
  EXPECT_FALSE(CodeVector(v, 8) == CodeVector(v, 2));  // 0x1234 and 0x34 differ
  EXPECT_THROW(CodeVector(4, 3), std::invalid_argument);
  EXPECT_TRUE(CodeVector().empty());
}

// One catalog entry of every distinct datapath and operand typing (as mma_parallel_test
// picks them): D at the container width of the entry's accumulator format (format.hpp's
// table), and an empty C giving, bit for bit, the D of M x N zero codes.
TEST(CodeVector, MmaDIsAtItsWidthAndAnEmptyCIsPositiveZero) {
  std::set<std::string> seen;
  size_t checked = 0;
  std::set<int> widths;
  for (const InstrEntry& e : catalog()) {
    const std::string key = describe(e.params) + " " + std::to_string(static_cast<int>(e.atype)) + " " +
                            std::to_string(static_cast<int>(e.btype)) + " " + std::to_string(static_cast<int>(e.dtype)) +
                            " " + (e.scale_type ? std::to_string(static_cast<int>(*e.scale_type)) : "-") + " " +
                            std::to_string(e.scale_block) + " " + std::to_string(e.K);
    if (!seen.insert(key).second) continue;
    const size_t M = static_cast<size_t>(e.M), N = static_cast<size_t>(e.N), K = static_cast<size_t>(e.K);
    auto codes = [](size_t n, Fmt f, uint64_t salt) {
      const uint64_t mask = std::min<uint64_t>((uint64_t{1} << info(f).width) - 1, 0x3f);  // small finite codes
      std::vector<uint64_t> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = (i * 37 + salt) & mask;
      return v;
    };
    const std::vector<uint64_t> A = codes(M * K, e.atype, 11), B = codes(K * N, e.btype, 5), zeros(M * N, 0);
    std::vector<uint64_t> sa, sb;
    if (e.scale_type) {
      sa.assign(M * (K / static_cast<size_t>(e.scale_block)), 0x7f);
      sb.assign(N * (K / static_cast<size_t>(e.scale_block)), 0x7e);
    }
    const MmaResult z = mma(make_problem(e, e.M, e.N, e.K, A, B, zeros, sa, sb), Exec{1});
    if (!z.error.empty()) continue;
    const int w = static_cast<int>(container_bytes(acc_format(e.dtype)));
    ASSERT_EQ(z.D.width(), w) << e.arch << " " << e.ptx;
    ASSERT_EQ(z.D.bytes(), M * N * static_cast<size_t>(w)) << e.ptx;
    widths.insert(w);
    const MmaResult none = mma(make_problem(e, e.M, e.N, e.K, A, B, {}, sa, sb), Exec{1});
    ASSERT_EQ(none.error, "") << e.ptx;
    ASSERT_TRUE(none.D == z.D) << e.arch << " " << e.ptx;
    ++checked;
  }
  EXPECT_GT(checked, 50u);
  EXPECT_EQ(widths, (std::set<int>{2, 4}));
  // A C of another size is still refused.
  const InstrEntry& e = catalog().front();
  const std::vector<uint64_t> A(static_cast<size_t>(e.M * e.K)), B(static_cast<size_t>(e.K * e.N)), C(3);
  EXPECT_EQ(mma(make_problem(e, e.M, e.N, e.K, A, B, C), Exec{1}).error, "C must hold M*N codes (or none: C = +0)");
}

}  // namespace
}  // namespace tcemu
