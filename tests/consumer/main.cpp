// Uses the installed tcemu: 465.0 (f32 0x43e88000) -> e4m3 under cvt.rn.satfinite is 0x7e
// (448, MAX_NORM; PTX ISA .satfinite), and without saturation 0x7f (NaN; CUDA NOSAT).
#include <cstdio>
#include <tcemu/convert.hpp>

int main() {
  tcemu::ConvertOptions sat;
  sat.satfinite = true;
  const auto a = tcemu::convert(tcemu::Fmt::f32, tcemu::Fmt::e4m3, 0x43e88000u, sat);
  const auto b = tcemu::convert(tcemu::Fmt::f32, tcemu::Fmt::e4m3, 0x43e88000u, tcemu::ConvertOptions{});
  if (a.code != 0x7e || b.code != 0x7f) {
    std::printf("FAIL: got %llx and %llx\n", (unsigned long long)a.code, (unsigned long long)b.code);
    return 1;
  }
  std::printf("consumer: find_package(tcemu) works (465 -> e4m3: sat 0x7e, nosat 0x7f)\n");
  return 0;
}
