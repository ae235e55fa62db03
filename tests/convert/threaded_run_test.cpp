// Converter::run on several threads: arrays of several 64 Ki-element chunks and a remainder,
// converted with 1, 2, 3 and 7 threads, every element equal to the scalar tcemu::convert (which
// the exhaustive and stratified tests check against the exact reference). Covers the f32
// kernels, the 8/16-bit tables, the scalar fallback and stochastic rounding's rbits.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tcemu/convert.hpp"

namespace tcemu {
namespace {

struct Pair {
  Fmt from, to;
  Round round;
};

TEST(ConverterThreads, EveryThreadCountEqualsTheScalarCore) {
  const Pair pairs[] = {{Fmt::f32, Fmt::e4m3, Round::rn}, {Fmt::f32, Fmt::bf16, Round::rz},
                        {Fmt::f32, Fmt::e2m1, Round::rn}, {Fmt::f16, Fmt::e5m2, Round::rn},
                        {Fmt::f32, Fmt::ue8m0, Round::ru}, {Fmt::f32, Fmt::e4m3, Round::rs}};
  const size_t n = 3 * (size_t{1} << 16) + 1234;
  std::mt19937_64 r(11);
  for (const Pair& p : pairs) {
    ConvertOptions o;
    o.round = p.round;
    const Converter conv(p.from, p.to, o);
    const size_t sb = container_bytes(p.from), db = container_bytes(p.to);
    std::vector<unsigned char> src(n * sb);
    for (unsigned char& b : src) b = static_cast<unsigned char>(r());
    std::vector<uint32_t> rbits(n);
    for (uint32_t& x : rbits) x = static_cast<uint32_t>(r());
    std::vector<uint64_t> want(n);
    for (size_t i = 0; i < n; ++i) {
      uint64_t code = 0;
      std::memcpy(&code, &src[i * sb], sb);
      want[i] = convert(p.from, p.to, code, o, rbits[i]).code;
    }
    for (int t : {1, 2, 3, 7}) {
      std::vector<unsigned char> dst(n * db, 0xAB);
      conv.run(src.data(), dst.data(), n, rbits.data(), Exec{t});
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t code = 0;
        std::memcpy(&code, &dst[i * db], db);
        bad += code != want[i];
      }
      EXPECT_EQ(bad, 0u) << info(p.from).name << " -> " << info(p.to).name << " with " << t << " threads";
    }
  }
}

}  // namespace
}  // namespace tcemu
