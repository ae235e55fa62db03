// tcemu::exact_decimal against the reference's exact decimal expansion: every code of the
// formats of 16 bits or fewer, and sampled f32 / tf32 / f64 codes (specials, every power of
// two, the ends of each binade, random codes), plus a few values printed in docs/formats.md.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tcemu/format.hpp"
#include "tcemu_ref/exact.hpp"

namespace {

using tcemu::Fmt;

void expect_same_decimal(Fmt f, const std::vector<uint64_t>& codes) {
  int bad = 0;
  for (uint64_t c : codes) {
    std::string want = tcemu::ref::exact_decimal(f, c);
    std::string got = tcemu::exact_decimal(f, c);
    if (want != got && bad++ < 10)
      ADD_FAILURE() << tcemu::info(f).name << " code 0x" << std::hex << c << ": expected \"" << want
                    << "\", got \"" << got << "\"";
  }
  EXPECT_EQ(bad, 0) << tcemu::info(f).name;
}

TEST(ExactDecimal, EveryCodeOfSmallFormats) {
  for (Fmt f : {Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3,
                Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4}) {
    std::vector<uint64_t> codes(size_t{1} << tcemu::info(f).width);
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = i;
    expect_same_decimal(f, codes);
  }
}

std::vector<uint64_t> wide_sample(Fmt f, int randoms) {
  const tcemu::FormatInfo& fi = tcemu::info(f);
  const int m = fi.man_bits, sh = fi.man_shift;
  const uint64_t sign = fi.sign_mask();
  std::vector<uint64_t> v;
  for (uint64_t e = 0; e < (uint64_t{1} << fi.exp_bits); ++e)
    for (uint64_t man : {uint64_t{0}, uint64_t{1}, (uint64_t{1} << m) - 1, uint64_t{1} << (m - 1)}) {
      uint64_t c = ((e << m) | man) << sh;
      v.push_back(c);
      v.push_back(c | sign);
    }
  std::mt19937_64 rng(99);
  for (int i = 0; i < randoms; ++i) v.push_back(rng() & fi.code_mask() & ~((uint64_t{1} << sh) - 1));
  return v;
}

TEST(ExactDecimal, SampledWideFormats) {
  expect_same_decimal(Fmt::f32, wide_sample(Fmt::f32, 20000));
  expect_same_decimal(Fmt::tf32, wide_sample(Fmt::tf32, 5000));
  expect_same_decimal(Fmt::f64, wide_sample(Fmt::f64, 2000));
}

TEST(ExactDecimal, ValuesFromFormatTable) {
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e4m3, 0x7E), "448");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e4m3, 0x01), "0.001953125");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e5m2, 0x7B), "57344");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::f16, 0x7BFF), "65504");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e2m3, 0x1F), "7.5");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e3m2, 0x1F), "28");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e2m1, 0x1), "0.5");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e2m1, 0x8), "-0");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e2m1, 0xF), "-6");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::f16, 0x7C00), "inf");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::f16, 0xFC00), "-inf");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::e4m3, 0xFF), "nan");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::ue8m0, 0x7F), "1");
  EXPECT_EQ(tcemu::exact_decimal(Fmt::ue8m0, 0xFE), "170141183460469231731687303715884105728");  // 2^127
}

}  // namespace
