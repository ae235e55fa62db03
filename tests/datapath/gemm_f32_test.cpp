// The epilogue's binary32 operations (tcemu/gemm.hpp f32_mul, f32_fma, f32_add) against the
// host's IEEE 754 arithmetic (x86-64 SSE multiply and add, round to nearest even, no flush;
// C's fma, correctly rounded): every result bit for bit, NaN results as the canonical
// 0x7FFFFFFF. Operands: random bit patterns, and values drawn from the edges (zeros of both
// signs, subnormals, the normal range's ends, Inf, NaN) so cancellations, underflow, overflow
// and the far-apart addends of fma all occur.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "tcemu/gemm.hpp"

namespace {

uint32_t pick(std::mt19937_64& g) {
  static const uint32_t edges[] = {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
                                   0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F800000, 0xBF800000,
                                   0x33800000, 0x4B800000, 0x34000001};
  switch (g() % 4) {
    case 0: return edges[g() % (sizeof edges / sizeof edges[0])];
    case 1: return static_cast<uint32_t>(g());  // any pattern
    case 2: {  // near 1: cancellation against the edge values and each other
      return 0x3F000000u + static_cast<uint32_t>(g() % 0x01000000u) + (g() & 1 ? 0x80000000u : 0);
    }
    default: {  // a random exponent with a short significand (exact zero sums happen)
      const uint32_t e = static_cast<uint32_t>(g() % 254) + 1;
      return (e << 23) | (static_cast<uint32_t>(g() % 16) << 19) | (g() & 1 ? 0x80000000u : 0);
    }
  }
}

uint32_t host(float v) { return std::isnan(v) ? 0x7FFFFFFFu : std::bit_cast<uint32_t>(v); }

TEST(GemmF32, MulFmaAddMatchHostIeee) {
  std::mt19937_64 g(2912);
  for (int i = 0; i < 2'000'000; ++i) {
    const uint32_t x = pick(g), y = pick(g), z = pick(g);
    const float fx = std::bit_cast<float>(x), fy = std::bit_cast<float>(y), fz = std::bit_cast<float>(z);
    volatile float p = fx * fy, s = fx + fz;
    ASSERT_EQ(tcemu::f32_mul(x, y), host(p)) << std::hex << x << " * " << y;
    ASSERT_EQ(tcemu::f32_add(x, z), host(s)) << std::hex << x << " + " << z;
    ASSERT_EQ(tcemu::f32_fma(x, y, z), host(std::fma(fx, fy, fz))) << std::hex << "fma " << x << " " << y << " " << z;
  }
}

}  // namespace
