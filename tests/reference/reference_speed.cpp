// How fast the exact reference converts: conversions per second for a few source and
// destination pairs (the exhaustive tests depend on it). Prints one line per pair.
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "tcemu_ref/convert_ref.hpp"

namespace {

using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;
namespace ref = tcemu::ref;

void measure(const char* label, Fmt from, Fmt to, Round r, bool sat, const std::vector<uint64_t>& codes) {
  ConvertOptions o;
  o.round = r;
  o.satfinite = sat;
  uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  uint32_t rb = 12345;
  for (uint64_t c : codes) {
    rb = rb * 1664525u + 1013904223u;
    sink += ref::convert(from, to, c, o, rb).code;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-34s %10zu conversions  %8.3f s  %10.0f per second  (checksum %llu)\n", label, codes.size(), s,
              static_cast<double>(codes.size()) / s, static_cast<unsigned long long>(sink));
}

std::vector<uint64_t> all_codes(int bits, int repeat) {
  std::vector<uint64_t> v;
  for (int k = 0; k < repeat; ++k)
    for (uint64_t c = 0; c < (uint64_t{1} << bits); ++c) v.push_back(c);
  return v;
}

std::vector<uint64_t> random_f32(size_t n) {
  std::mt19937 g(7);
  std::vector<uint64_t> v(n);
  for (auto& c : v) c = g();
  return v;
}

std::vector<uint64_t> random_f64(size_t n) {
  std::mt19937_64 g(7);
  std::vector<uint64_t> v(n);
  for (auto& c : v) c = g();
  return v;
}

// The rational path (decimal inputs): f32 codes as rationals, timed without the set-up.
void measure_rational(const char* label, Fmt to, const std::vector<uint64_t>& codes) {
  std::vector<ref::Real> xs;
  for (uint64_t c : codes) xs.push_back(ref::to_real(ref::exact_value(Fmt::f32, c)));
  const ConvertOptions o;
  uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const ref::Real& x : xs) sink += ref::convert_rational(x, to, o).code;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-34s %10zu conversions  %8.3f s  %10.0f per second  (checksum %llu)\n", label, xs.size(), s,
              static_cast<double>(xs.size()) / s, static_cast<unsigned long long>(sink));
}

}  // namespace

int main() {
  const auto f32 = random_f32(1000000);
  const auto f16 = all_codes(16, 4);
  const auto b8 = all_codes(8, 1000);
  measure("f32 -> e4m3 rn satfinite (random)", Fmt::f32, Fmt::e4m3, Round::rn, true, f32);
  measure("f32 -> e2m1 rs satfinite (random)", Fmt::f32, Fmt::e2m1, Round::rs, true, f32);
  measure("f32 -> f16 rn (random)", Fmt::f32, Fmt::f16, Round::rn, false, f32);
  measure("f32 -> bf16 rz (random)", Fmt::f32, Fmt::bf16, Round::rz, false, f32);
  measure("f16 -> e5m2 rn (all codes x4)", Fmt::f16, Fmt::e5m2, Round::rn, false, f16);
  measure("bf16 -> ue8m0 ru (all codes x4)", Fmt::bf16, Fmt::ue8m0, Round::ru, false, f16);
  measure("e4m3 -> f16 rn (all codes x1000)", Fmt::e4m3, Fmt::f16, Round::rn, false, b8);
  measure("e4m3 -> f32 rn (all codes x1000)", Fmt::e4m3, Fmt::f32, Round::rn, false, b8);
  const auto f64 = random_f64(300000);
  measure("f64 -> e4m3 rn (random)", Fmt::f64, Fmt::e4m3, Round::rn, false, f64);
  measure("f64 -> f32 rn (random)", Fmt::f64, Fmt::f32, Round::rn, false, f64);
  measure_rational("rational(f32) -> e4m3 rn (random)", Fmt::e4m3,
                   std::vector<uint64_t>(f32.begin(), f32.begin() + 100000));
  return 0;
}
