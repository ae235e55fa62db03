// Exhaustive conversion test: every code of every format of 16 bits or fewer, into every
// format, under every rounding mode (rs with several random operands), satfinite off and on,
// relu / ftz / NaN policies on a subset, must equal the exact reference bit for bit, through
// the scalar tcemu::convert and through the array API tcemu::Converter::run.
//
// Sharded per source format (16-bit sources also per destination group) so that ctest -j
// runs shards in parallel.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "convert_test_support.hpp"

namespace tctest {
namespace {

struct Shard {
  Fmt src;
  int part;   // this shard converts into destinations d with index % parts == part
  int parts;
};

// Readable names in gtest / ctest output (instead of the parameter's raw bytes).
void PrintTo(const Shard& s, std::ostream* os) {
  *os << tcemu::info(s.src).name << " part " << s.part << "/" << s.parts;
}

std::vector<Shard> shards() {
  std::vector<Shard> v;
  for (Fmt f : small_formats()) {
    int parts = tcemu::info(f).width >= 16 ? 4 : 1;
    for (int p = 0; p < parts; ++p) v.push_back({f, p, parts});
  }
  return v;
}

// Stores codes in their natural array containers (container_bytes) and reads them back.
std::vector<unsigned char> pack(Fmt f, const std::vector<uint64_t>& codes) {
  size_t b = tcemu::container_bytes(f);
  std::vector<unsigned char> out(codes.size() * b);
  for (size_t i = 0; i < codes.size(); ++i) {
    uint64_t c = codes[i];
    std::memcpy(out.data() + i * b, &c, b);  // little-endian: the low bytes of the code
  }
  return out;
}
uint64_t unpack_at(Fmt f, const std::vector<unsigned char>& buf, size_t i) {
  size_t b = tcemu::container_bytes(f);
  uint64_t c = 0;
  std::memcpy(&c, buf.data() + i * b, b);
  return c;
}

class Exhaustive : public ::testing::TestWithParam<Shard> {};

TEST_P(Exhaustive, EqualsReference) {
  const Shard sh = GetParam();
  const tcemu::FormatInfo& si = tcemu::info(sh.src);
  const uint64_t n = uint64_t{1} << si.width;
  std::vector<uint64_t> codes(n);
  for (uint64_t c = 0; c < n; ++c) codes[c] = c;
  const auto src_buf = pack(sh.src, codes);
  // The reference's exact value of every source code, decoded once.
  std::vector<tcemu::ref::Exact> exact;
  exact.reserve(n);
  for (uint64_t c = 0; c < n; ++c) exact.push_back(tcemu::ref::exact_value(sh.src, c));

  MismatchLog scalar_log, array_log;
  std::mt19937 rng(12345 + static_cast<unsigned>(sh.src));
  const auto& dsts = all_formats();
  for (size_t di = 0; di < dsts.size(); ++di) {
    if (static_cast<int>(di % sh.parts) != sh.part) continue;
    const Fmt to = dsts[di];
    for (const Case& c : sweep_cases(to)) {
      // Scalar vs reference, remembering the scalar results for the array check.
      std::vector<uint64_t> scalar(n);
      for (uint64_t code = 0; code < n; ++code) {
        ConvertResult want = expected(exact[code], to, c);
        ConvertResult got = tcemu::convert(sh.src, to, code, c.opt, c.rbits);
        scalar[code] = got.code;
        if (!same(want, got)) scalar_log.add(sh.src, to, c, code, want, got);
      }
      // The array API with the same random operand for every element must equal the scalar.
      tcemu::Converter conv(sh.src, to, c.opt);
      std::vector<uint32_t> rb(n, c.rbits);
      std::vector<unsigned char> dst(n * tcemu::container_bytes(to), 0xA5);
      conv.run(src_buf.data(), dst.data(), n, c.opt.round == Round::rs ? rb.data() : nullptr);
      for (uint64_t code = 0; code < n; ++code) {
        uint64_t a = unpack_at(to, dst, code);
        if (a != scalar[code]) array_log.add(sh.src, to, c, code, {scalar[code], 0}, {a, 0}, "Converter::run");
      }
      // rs with a different random operand per element (array vs scalar, and vs reference
      // on a sample so the cost stays small).
      if (c.opt.round == Round::rs && c.rbits == 0x9E3779B9u) {
        for (auto& r : rb) r = static_cast<uint32_t>(rng());
        conv.run(src_buf.data(), dst.data(), n, rb.data());
        for (uint64_t code = 0; code < n; ++code) {
          Case ci = c;
          ci.rbits = rb[code];
          ConvertResult got = tcemu::convert(sh.src, to, code, ci.opt, ci.rbits);
          uint64_t a = unpack_at(to, dst, code);
          if (a != got.code) array_log.add(sh.src, to, ci, code, got, {a, 0}, "Converter::run (per-element rbits)");
          if (code % 7 == 0) {
            ConvertResult want = expected(exact[code], to, ci);
            if (!same(want, got)) scalar_log.add(sh.src, to, ci, code, want, got);
          }
        }
      }
    }
  }
  scalar_log.finish("scalar convert vs reference");
  array_log.finish("Converter::run vs scalar convert");
}

std::string shard_name(const ::testing::TestParamInfo<Shard>& p) {
  std::string s(tcemu::info(p.param.src).name);
  if (p.param.parts > 1) s += "_part" + std::to_string(p.param.part);
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllSmallFormats, Exhaustive, ::testing::ValuesIn(shards()), shard_name);

}  // namespace
}  // namespace tctest
