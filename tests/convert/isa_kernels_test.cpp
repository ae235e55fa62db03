// The f32 conversion kernels of converter.cpp are compiled for AVX-512 (x86-64-v4), AVX2 and
// baseline x86-64 and chosen at run time: each build the CPU can run, forced in turn, against
// the scalar core (which the exhaustive and stratified tests check against the exact
// reference) for every destination, rounding mode and satfinite, on random bit patterns, every
// exponent with random fractions, and the bit patterns next to each destination's rounding
// boundaries (halfway points carry into the next binade, overflow, subnormals, NaN, Inf).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../emulator/src/converter_isa.hpp"
#include "tcemu/convert.hpp"

namespace tcemu {
namespace {

std::vector<uint32_t> inputs() {
  std::vector<uint32_t> v;
  std::mt19937_64 r(2026);
  for (int i = 0; i < 40000; ++i) v.push_back(static_cast<uint32_t>(r()));
  for (uint32_t e = 0; e < 256; ++e)
    for (int i = 0; i < 64; ++i) v.push_back((static_cast<uint32_t>(r() & 1) << 31) | (e << 23) | (r() & 0x7FFFFF));
  // Around every position of a rounding boundary: fraction bits all 0 / all 1 below bit b.
  for (uint32_t e = 0; e < 256; ++e)
    for (int b = 0; b < 23; ++b)
      for (uint32_t low : {0u, 1u, (1u << b) - 1, 1u << b, (1u << b) + 1, (2u << b) - 1})
        for (uint32_t s : {0u, 1u}) v.push_back((s << 31) | (e << 23) | ((low | (r() & ~((4u << b) - 1))) & 0x7FFFFF));
  return v;
}

TEST(ConvertIsa, EveryKernelBuildEqualsTheScalarCore) {
  const std::vector<uint32_t> in = inputs();
  const detail::ConvertIsa best = detail::convert_isa();
  std::vector<detail::ConvertIsa> levels = {detail::ConvertIsa::baseline};
  if (best >= detail::ConvertIsa::avx2) levels.push_back(detail::ConvertIsa::avx2);
  if (best >= detail::ConvertIsa::avx512) levels.push_back(detail::ConvertIsa::avx512);
  if (best != detail::ConvertIsa::avx512) std::cout << "note: this CPU runs only " << levels.size() << " of the 3 kernel builds\n";
  size_t bad = 0, combos = 0;
  for (Fmt to : {Fmt::f16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1})
    for (Round rd : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru})
      for (bool sat : {false, true}) {
        ConvertOptions o;
        o.round = rd;
        o.satfinite = sat;
        const Converter conv(Fmt::f32, to, o);
        ASSERT_TRUE(conv.has_fast_kernel()) << info(to).name;
        std::vector<uint64_t> want(in.size());
        for (size_t i = 0; i < in.size(); ++i) want[i] = convert(Fmt::f32, to, in[i], o).code;
        const size_t db = container_bytes(to);
        for (detail::ConvertIsa isa : levels) {
          detail::limit_convert_isa(isa);
          ASSERT_EQ(detail::convert_isa(), isa);
          std::vector<uint8_t> out(in.size() * db);
          conv.run(in.data(), out.data(), in.size(), nullptr, Exec{1});
          for (size_t i = 0; i < in.size(); ++i) {
            const uint64_t got = db == 1 ? out[i] : static_cast<uint64_t>(out[2 * i] | (out[2 * i + 1] << 8));
            if (got != want[i] && ++bad <= 10)
              ADD_FAILURE() << "f32 0x" << std::hex << in[i] << " -> " << info(to).name << " " << to_string(rd)
                            << (sat ? " satfinite" : "") << " kernel " << static_cast<int>(isa) << ": 0x" << got
                            << ", scalar 0x" << want[i] << std::dec;
          }
          ++combos;
        }
      }
  detail::limit_convert_isa(detail::ConvertIsa::avx512);
  EXPECT_EQ(bad, 0u) << "over " << combos << " (destination, mode, kernel build) combinations of " << in.size() << " inputs";
}

}  // namespace
}  // namespace tcemu
