// Philox4x32 against Random123's known-answer vectors, and the curand stream convention.
//
// Known answers: Random123 (D. E. Shaw Research), file tests/kat_vectors, lines
// "philox4x32 7 ..." and "philox4x32 10 ...": counter (4 words), key (2 words), result (4 words).
#include <gtest/gtest.h>

#include "tcemu/philox.hpp"

namespace {

using tcemu::philox4x32;
using tcemu::PhiloxCounter;
using tcemu::PhiloxKey;

struct Kat {
  int rounds;
  PhiloxCounter ctr;
  PhiloxKey key;
  PhiloxCounter expected;
};

const Kat kKats[] = {
    {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {10, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    {7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
    {7, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
    {7, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
};

TEST(Philox, Random123KnownAnswers) {
  for (const Kat& k : kKats) EXPECT_EQ(philox4x32(k.ctr, k.key, k.rounds), k.expected) << "rounds " << k.rounds;
}

// curand_init(seed, subsequence, offset): key = (seed lo, seed hi), counter = (offset/4 as a
// 64-bit number in words 0-1, subsequence in words 2-3), and the first word returned is word
// offset % 4 of that block's output (curand_kernel.h, Philox4_32_10).
TEST(Philox, StreamFollowsCurandCounterLayout) {
  const uint64_t seed = 0x0123456789abcdefULL;
  const PhiloxKey key = {0x89abcdefu, 0x01234567u};
  for (uint64_t sub : {0ULL, 1ULL, 0x100000002ULL})
    for (uint64_t offset : {0ULL, 1ULL, 3ULL, 4ULL, 7ULL, 0x400000001ULL}) {
      tcemu::PhiloxStream s(seed, sub, offset);
      for (uint64_t w = offset; w < offset + 9; ++w) {
        const uint64_t block = w / 4;
        const PhiloxCounter ctr = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                   static_cast<uint32_t>(sub), static_cast<uint32_t>(sub >> 32)};
        EXPECT_EQ(s.next(), philox4x32(ctr, key)[w % 4]) << "sub " << sub << " word " << w;
      }
    }
}

TEST(Philox, CounterCarriesAcrossItsLowWords) {
  // Block 0x3fffffffffffffff: advancing past it carries from word 0 into word 1.
  tcemu::PhiloxStream s(0, 0, 0xfffffffffffffffcULL);
  for (int i = 0; i < 4; ++i) s.next();
  EXPECT_EQ(s.counter(), (PhiloxCounter{0, 0x40000000u, 0, 0}));
}

TEST(Philox, Next4ReturnsFourWordsFromTheCurrentPosition) {
  const uint64_t seed = 42;
  for (uint64_t offset : {0ULL, 1ULL, 2ULL, 3ULL}) {
    tcemu::PhiloxStream s(seed, 0, offset);
    const auto w = s.next4();
    const PhiloxCounter b0 = philox4x32({0, 0, 0, 0}, {42, 0});
    const PhiloxCounter b1 = philox4x32({1, 0, 0, 0}, {42, 0});
    for (uint64_t i = 0; i < 4; ++i) {
      const uint64_t j = offset + i;
      EXPECT_EQ(w[i], j < 4 ? b0[j] : b1[j - 4]) << "offset " << offset;
    }
  }
}

TEST(Philox, WordsHelperMatchesStream) {
  const auto v = tcemu::philox_words(7, 5, 10);
  tcemu::PhiloxStream s(7, 0, 5);
  for (uint32_t w : v) EXPECT_EQ(w, s.next());
}

}  // namespace
