// Philox4x32-10, the counter-based random number generator of Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3" (SC 2011), and the stream that CUDA's curand
// builds on it (curand_init(seed, subsequence, offset)), so that stochastic rounding in the
// quantization recipes is reproducible from a (seed, offset) pair.
//
// Written from the published definition; checked against Random123's known-answer vectors
// (tests/quant/philox_test.cpp). The stream convention follows the documented behaviour of
// curand's Philox4_32_10 state (CUDA toolkit, curand_kernel.h): key = seed, the counter's high
// 64 bits count subsequences, its low 64 bits count blocks of four words.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcemu {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// The multipliers and Weyl increments of Philox4x32 (Salmon et al. 2011, table 2 / Random123).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
inline constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

// One Philox4x32 bijection with `rounds` rounds (10 for Philox4x32-10).
PhiloxCounter philox4x32(PhiloxCounter ctr, PhiloxKey key, int rounds = 10);

// A stream of 32-bit words as curand(state) returns them after
// curand_init(seed, subsequence, offset, &state): word `offset` of subsequence `subsequence`,
// then the following ones.
class PhiloxStream {
 public:
  PhiloxStream(uint64_t seed, uint64_t subsequence = 0, uint64_t offset = 0);
  uint32_t next();                      // curand()
  std::array<uint32_t, 4> next4();      // curand4(): four words, the counter advances by one block
  const PhiloxCounter& counter() const { return ctr_; }

 private:
  void add_blocks(uint64_t n);          // 128-bit counter += n
  PhiloxCounter ctr_{};
  PhiloxKey key_{};
  PhiloxCounter out_{};
  unsigned state_ = 0;                  // index of the next word of out_
};

// n words of a stream: the random operands of stochastic rounding, one per element.
std::vector<uint32_t> philox_words(uint64_t seed, uint64_t offset, std::size_t n, uint64_t subsequence = 0);

}  // namespace tcemu
