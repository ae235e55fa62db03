// The C++ side of python/bench/bench_python.py: the same work through the C++ library
// directly, timed the same way (best of --repeat runs, wall clock).
//   tcemu_python_baseline mma M N K      wgmma m64n8k32 f32 e4m3 on sm_90a, random codes
//   tcemu_python_baseline convert N      f32 -> e4m3 (rn, satfinite) with Converter::run
// Prints the best time in seconds.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/mma.hpp"

namespace {

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class F>
double best_of(int repeat, F&& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    best = std::min(best, d.count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s mma M N K [repeat] | convert N [repeat]\n", argv[0]);
    return 2;
  }
  const std::string what = argv[1];
  uint64_t seed = 1;
  if (what == "mma" && argc >= 5) {
    const int M = std::atoi(argv[2]), N = std::atoi(argv[3]), K = std::atoi(argv[4]);
    const int repeat = argc > 5 ? std::atoi(argv[5]) : 3;
    auto l = tcemu::find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3");
    if (!l.entry) return std::fprintf(stderr, "%s\n", l.error.c_str()), 2;
    std::vector<uint64_t> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N, 0);
    for (auto& a : A) { a = splitmix(seed) & 0xFF; if ((a & 0x7F) == 0x7F) a = 0x38; }
    for (auto& b : B) { b = splitmix(seed) & 0xFF; if ((b & 0x7F) == 0x7F) b = 0x38; }
    tcemu::MmaProblem p;
    p.M = M, p.N = N, p.K = K, p.atype = tcemu::Fmt::e4m3, p.btype = tcemu::Fmt::e4m3;
    p.A = A, p.B = B, p.C = C;
    size_t sink = 0;
    const double t = best_of(repeat, [&] { sink += tcemu::mma(p.with(*l.entry), tcemu::Exec{1}).D.size(); });
    std::printf("%.6f\n", t);
    return sink ? 0 : 1;
  }
  if (what == "convert") {
    const size_t n = std::strtoull(argv[2], nullptr, 10);
    const int repeat = argc > 3 ? std::atoi(argv[3]) : 3;
    std::vector<uint32_t> src(n);
    std::vector<uint8_t> dst(n);
    for (auto& s : src) s = static_cast<uint32_t>(splitmix(seed));
    tcemu::ConvertOptions o;
    o.satfinite = true;
    const tcemu::Converter c(tcemu::Fmt::f32, tcemu::Fmt::e4m3, o);
    const double t = best_of(repeat, [&] { c.run(src.data(), dst.data(), n); });
    std::printf("%.6f\n", t);
    return 0;
  }
  std::fprintf(stderr, "unknown benchmark '%s'\n", what.c_str());
  return 2;
}
