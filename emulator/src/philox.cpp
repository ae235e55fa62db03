// Philox4x32-10 and curand's stream convention; see philox.hpp for the sources.
#include "tcemu/philox.hpp"

namespace tcemu {

namespace {
// One round: two 32x32->64 multiplications, the high halves xored with the other two words
// and the round key, the words permuted (Salmon et al. 2011, section 4.2).
PhiloxCounter philox_round(const PhiloxCounter& c, const PhiloxKey& k) {
  const uint64_t p0 = uint64_t{kPhiloxM0} * c[0];
  const uint64_t p1 = uint64_t{kPhiloxM1} * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}
}  // namespace

PhiloxCounter philox4x32(PhiloxCounter ctr, PhiloxKey key, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {  // the key schedule: a Weyl sequence, bumped between rounds
      key[0] += kPhiloxW0;
      key[1] += kPhiloxW1;
    }
    ctr = philox_round(ctr, key);
  }
  return ctr;
}

PhiloxStream::PhiloxStream(uint64_t seed, uint64_t subsequence, uint64_t offset) {
  key_ = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  // Subsequences occupy the counter's high 64 bits.
  ctr_[2] = static_cast<uint32_t>(subsequence);
  ctr_[3] = static_cast<uint32_t>(subsequence >> 32);
  // The offset counts words: blocks of four plus a position inside the block.
  state_ = static_cast<unsigned>(offset & 3);
  add_blocks(offset / 4);
  out_ = philox4x32(ctr_, key_);
}

void PhiloxStream::add_blocks(uint64_t n) {
  uint64_t lo = (uint64_t{ctr_[1]} << 32) | ctr_[0];
  const uint64_t sum = lo + n;
  const bool carry = sum < lo;
  ctr_[0] = static_cast<uint32_t>(sum);
  ctr_[1] = static_cast<uint32_t>(sum >> 32);
  if (carry) {
    uint64_t hi = (uint64_t{ctr_[3]} << 32) | ctr_[2];
    ++hi;
    ctr_[2] = static_cast<uint32_t>(hi);
    ctr_[3] = static_cast<uint32_t>(hi >> 32);
  }
}

uint32_t PhiloxStream::next() {
  const uint32_t r = out_[state_++];
  if (state_ == 4) {
    add_blocks(1);
    out_ = philox4x32(ctr_, key_);
    state_ = 0;
  }
  return r;
}

std::array<uint32_t, 4> PhiloxStream::next4() {
  const PhiloxCounter prev = out_;
  add_blocks(1);
  out_ = philox4x32(ctr_, key_);
  std::array<uint32_t, 4> r{};
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned j = state_ + i;
    r[i] = j < 4 ? prev[j] : out_[j - 4];
  }
  return r;
}

std::vector<uint32_t> philox_words(uint64_t seed, uint64_t offset, std::size_t n, uint64_t subsequence) {
  PhiloxStream s(seed, subsequence, offset);
  std::vector<uint32_t> v(n);
  for (auto& w : v) w = s.next();
  return v;
}

}  // namespace tcemu
