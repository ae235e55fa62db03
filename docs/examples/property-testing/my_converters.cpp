#include "my_converters.hpp"

#include <bit>
#include <cmath>

namespace my {

namespace {

// E4M3: bias 7, 3 fraction bits, smallest normal 2^-6, subnormal step 2^-9, largest 448.
template <class RoundFn>
uint8_t convert(uint32_t bits, float saturate_from, RoundFn round_int) {
  const uint8_t sign = (bits >> 24) & 0x80;
  const float a = std::fabs(std::bit_cast<float>(bits));
  if (std::isnan(a)) return 0x7f;
  if (a >= saturate_from) return sign | 0x7e;  // Inf too
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  e -= 1;             // a in [2^e, 2^(e+1))
  if (a == 0.0f || e < -6) {
    // Subnormal: a multiple of 2^-9. Scaling by 2^9 is exact; 8 (a carry into the smallest
    // normal) encodes as 0x08, which is 2^-6.
    return sign | static_cast<uint8_t>(round_int(a * 512.0f));
  }
  // Normal: 8..16 units of 2^(e-3); 16 carries into the next binade through the addition.
  const int m = static_cast<int>(round_int(std::ldexp(a, 3 - e)));
  const int code = ((e + 7) << 3) + (m - 8);
  return sign | static_cast<uint8_t>(code);
}

float nearest_even(float x) { return std::nearbyint(x); }  // the default mode: ties to even
float nearest_away(float x) { return std::round(x); }

}  // namespace

uint8_t f32_to_e4m3(uint32_t b) { return convert(b, 464.0f, nearest_even); }
uint8_t f32_to_e4m3_ties_away(uint32_t b) { return convert(b, 464.0f, nearest_away); }
uint8_t f32_to_e4m3_late_saturation(uint32_t b) { return convert(b, 480.0f, nearest_even); }

}  // namespace my
