// Stratified f32 and f64 inputs against the exact reference: for each destination, every
// rounding boundary (each representable value, each midpoint between neighbours, and the
// grid point above MAX where overflow is decided) written as an f32/f64 code, with its
// neighbours +-1 and +-2 ulp in the source format, both signs; every special of the source;
// and random codes (1,000,000 f32 and 200,000 f64 in all, spread over the destinations;
// the `long` build, TCEMU_STRATIFIED_LONG, uses 16 times as many), all rounding modes with
// satfinite off and on.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "convert_test_support.hpp"

#ifndef TCEMU_STRATIFIED_LONG
#define TCEMU_STRATIFIED_LONG 0
#endif

namespace tctest {
namespace {

constexpr long kRandomF32 = TCEMU_STRATIFIED_LONG ? 16'000'000 : 1'000'000;
constexpr long kRandomF64 = TCEMU_STRATIFIED_LONG ? 3'200'000 : 200'000;

struct Pair {
  Fmt src, dst;
};

void PrintTo(const Pair& p, std::ostream* os) {
  *os << tcemu::info(p.src).name << " -> " << tcemu::info(p.dst).name;
}

std::vector<Pair> pairs() {
  std::vector<Pair> v;
  for (Fmt s : {Fmt::f32, Fmt::f64})
    for (Fmt d : all_formats()) v.push_back({s, d});
  return v;
}

std::string pair_name(const ::testing::TestParamInfo<Pair>& p) {
  return std::string(tcemu::info(p.param.src).name) + "_to_" + std::string(tcemu::info(p.param.dst).name);
}

// Rounding modes for the stratified inputs: the five directed/nearest modes and rs with a
// zero, an all-ones and a per-input random operand, satfinite off and on.
std::vector<Case> stratified_cases() {
  std::vector<Case> cases;
  for (bool sat : {false, true}) {
    for (Round r : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru}) {
      Case c;
      c.opt.round = r;
      c.opt.satfinite = sat;
      cases.push_back(c);
    }
    for (uint32_t rb : {0u, 0xFFFFFFFFu, 1u /* replaced by a random operand per input */}) {
      Case c;
      c.opt.round = Round::rs;
      c.opt.satfinite = sat;
      c.rbits = rb;
      cases.push_back(c);
    }
  }
  return cases;
}

// A value (exact in double) as a code of the source format, if the source holds it exactly.
std::optional<uint64_t> source_code(Fmt src, double v) {
  if (src == Fmt::f64) return std::bit_cast<uint64_t>(v);
  float f = static_cast<float>(v);
  if (static_cast<double>(f) != v) return std::nullopt;
  return std::bit_cast<uint32_t>(f);
}

// Positive boundary values of a destination: its representable values, the grid point above
// MAX, and the midpoints between consecutive ones (all exact in double). The decoder of the
// code under test only picks the inputs here; the expected results come from the reference.
std::vector<double> boundaries(Fmt to, std::mt19937_64& rng) {
  const tcemu::FormatInfo& ti = tcemu::info(to);
  std::vector<double> vals;
  if (ti.is_int) {
    double top = static_cast<double>(ti.is_signed ? (ti.code_mask() >> 1) + 1 : ti.code_mask());
    for (double k = 0; k <= top + 1; ++k) vals.push_back(k);
  } else if (ti.width <= 16) {
    vals.push_back(0.0);  // ue8m0 has no zero, but 0 is still a boundary of its rounding
    for (uint64_t c = 0; c <= ti.code_mask(); ++c) {
      if (ti.is_signed && (c & ti.sign_mask())) continue;
      tcemu::Decoded d = tcemu::decode(to, c);
      if (d.cls == tcemu::Class::inf || d.cls == tcemu::Class::nan) continue;
      vals.push_back(std::ldexp(static_cast<double>(d.sig), d.exp));
    }
  } else {
    // f32 / tf32 (and f64 never: no source is wider). Per binade, a fixed set of fractions
    // (the ends and the middle) and a few random ones; every subnormal binade likewise.
    const int m = ti.man_bits;
    const uint64_t top = (uint64_t{1} << m) - 1;
    std::vector<uint64_t> fr = {0, 1, 2, 3, top / 2, top / 2 + 1, top - 2, top - 1, top};
    for (int e = ti.emin(); e <= ti.emax(); ++e)
      for (int k = 0; k < 4 + static_cast<int>(fr.size()); ++k) {
        uint64_t f = k < static_cast<int>(fr.size()) ? fr[k] : rng() & top;
        vals.push_back(std::ldexp(static_cast<double>((uint64_t{1} << m) | f), e - m));
      }
    for (uint64_t f : fr) vals.push_back(std::ldexp(static_cast<double>(f), ti.emin() - m));
    for (int i = 0; i < 64; ++i) vals.push_back(std::ldexp(static_cast<double>(rng() & top), ti.emin() - m));
  }
  std::sort(vals.begin(), vals.end());
  vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
  if (!ti.is_int) {
    // The grid continues above MAX: MAX + ulp decides overflow with MAX's midpoint.
    double mx = vals.back();
    vals.push_back(mx + std::ldexp(1.0, ti.emax() - ti.man_bits));
  }
  std::vector<double> out = vals;
  if (ti.width <= 16 || ti.is_int) {
    for (size_t i = 0; i + 1 < vals.size(); ++i) out.push_back((vals[i] + vals[i + 1]) / 2);
  } else {
    for (double v : vals) {  // midpoints above each chosen value
      int e;
      std::frexp(v, &e);  // v in [2^(e-1), 2^e)
      int ulp_exp = std::max(e - 1, ti.emin()) - ti.man_bits;
      out.push_back(v + std::ldexp(1.0, ulp_exp - 1));
    }
  }
  return out;
}

std::vector<uint64_t> source_specials(Fmt src) {
  if (src == Fmt::f32)
    return {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
            0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000, 0x7F7FFFFF, 0xFF7FFFFF, 0x00000001, 0x80000001, 0x00800000,
            0x80800000, 0x007FFFFF, 0x807FFFFF, 0x3F800000, 0xBF800000};
  return {0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
          0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
          0x7FF4000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x0000000000000001, 0x8000000000000001,
          0x0010000000000000, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000};
}

// Compares tcemu::convert with the reference for each input under every stratified case.
void compare_all(Fmt src, Fmt dst, const std::vector<uint64_t>& inputs, std::mt19937_64& rng, MismatchLog& log) {
  const auto cases = stratified_cases();
  for (uint64_t code : inputs) {
    const uint32_t random_rbits = static_cast<uint32_t>(rng());
    for (Case c : cases) {
      if (c.opt.round == Round::rs && c.rbits == 1u) c.rbits = random_rbits;
      ConvertResult want = expected(src, dst, code, c);
      ConvertResult got = tcemu::convert(src, dst, code, c.opt, c.rbits);
      if (!same(want, got)) log.add(src, dst, c, code, want, got);
    }
  }
}

class Stratified : public ::testing::TestWithParam<Pair> {};

TEST_P(Stratified, BoundariesAndSpecials) {
  const Pair p = GetParam();
  const tcemu::FormatInfo& si = tcemu::info(p.src);
  const tcemu::FormatInfo& di = tcemu::info(p.dst);
  std::mt19937_64 rng(777 + 31 * static_cast<int>(p.dst) + static_cast<int>(p.src));
  std::set<uint64_t> inputs;
  for (uint64_t s : source_specials(p.src)) inputs.insert(s);
  // Boundaries matter only when the destination is coarser than the source.
  const bool narrower = di.is_int || di.man_bits < si.man_bits || di.exp_bits < si.exp_bits;
  if (narrower) {
    for (double v : boundaries(p.dst, rng)) {
      auto c = source_code(p.src, v);
      if (!c) continue;
      for (int k = -2; k <= 2; ++k) {
        if (k < 0 && *c < static_cast<uint64_t>(-k)) continue;
        uint64_t n = *c + k;
        inputs.insert(n);
        inputs.insert(n | si.sign_mask());
      }
    }
  }
  MismatchLog log;
  compare_all(p.src, p.dst, std::vector<uint64_t>(inputs.begin(), inputs.end()), rng, log);
  log.finish("stratified boundaries " + std::to_string(inputs.size()) + " inputs");
}

// Random codes: half uniform bit patterns, half with an exponent near the destination's range
// (uniform bits mostly overflow or vanish in the narrow formats).
TEST_P(Stratified, Random) {
  const Pair p = GetParam();
  const tcemu::FormatInfo& si = tcemu::info(p.src);
  const tcemu::FormatInfo& di = tcemu::info(p.dst);
  const long total = p.src == Fmt::f32 ? kRandomF32 : kRandomF64;
  const long n = (total + tcemu::kNumFormats - 1) / tcemu::kNumFormats;
  std::mt19937_64 rng(4242 + 31 * static_cast<int>(p.dst) + static_cast<int>(p.src));
  int lo, hi;  // unbiased exponent range to focus on
  if (di.is_int) {
    lo = -4;
    hi = di.width + 2;
  } else {
    lo = std::max(di.emin() - di.man_bits - 3, 1 - si.bias - si.man_bits);
    hi = std::min(di.emax() + 3, static_cast<int>(si.bias));
  }
  std::vector<uint64_t> inputs;
  inputs.reserve(n);
  const uint64_t man_mask = (uint64_t{1} << si.man_bits) - 1;
  for (long i = 0; i < n; ++i) {
    uint64_t r = rng() & si.code_mask();
    if (i % 2) {
      int e = lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
      int be = std::max(e + si.bias, 0);
      r = (r & (si.sign_mask() | man_mask)) | (static_cast<uint64_t>(be) << si.man_bits);
    }
    inputs.push_back(r);
  }
  MismatchLog log;
  compare_all(p.src, p.dst, inputs, rng, log);
  log.finish("stratified random " + std::to_string(n) + " inputs");
}

// The long build gets its own test names so that ctest keeps the two sets apart.
#if TCEMU_STRATIFIED_LONG
INSTANTIATE_TEST_SUITE_P(F32AndF64Long, Stratified, ::testing::ValuesIn(pairs()), pair_name);
#else
INSTANTIATE_TEST_SUITE_P(F32AndF64, Stratified, ::testing::ValuesIn(pairs()), pair_name);
#endif

}  // namespace
}  // namespace tctest
