// Exact-arithmetic helpers of the quantization tests: every f32 operation of a recipe is
// re-derived as the exact rational result rounded once by tcemu::ref (never by the emulator).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "tcemu/convert.hpp"
#include "tcemu_ref/convert_ref.hpp"

namespace qref {

namespace R = tcemu::ref;
using tcemu::Fmt;

inline uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float from_bits(uint32_t b) { return std::bit_cast<float>(b); }

inline R::Real real(float f) { return R::to_real(R::exact_value(Fmt::f32, bits(f))); }
inline R::Real real_of(Fmt f, uint64_t code) { return R::to_real(R::exact_value(f, code)); }
inline R::Real real_pow2(int k) {
  R::Real r;
  r.mag = k >= 0 ? R::cpp_rational(R::cpp_int(1) << k) : R::cpp_rational(R::cpp_int(1), R::cpp_int(1) << -k);
  return r;
}

// Rounds an exact value once into f32 (RN), as an IEEE f32 operation does.
inline float rn32(const R::Real& x) {
  tcemu::ConvertOptions rn;
  return from_bits(static_cast<uint32_t>(R::convert_rational(x, Fmt::f32, rn).code));
}

// Exact product / quotient of finite values (the sign of a zero follows IEEE: xor of signs).
inline R::Real mul(const R::Real& a, const R::Real& b) {
  R::Real r;
  r.sign = a.sign != b.sign;
  r.mag = a.mag * b.mag;
  return r;
}
inline R::Real div(const R::Real& a, const R::Real& b) {
  R::Real r;
  r.sign = a.sign != b.sign;
  r.mag = a.mag / b.mag;
  return r;
}

// f32 a*b and a/b, correctly rounded, for finite operands with finite results.
inline float fmul(float a, float b) { return rn32(mul(real(a), real(b))); }
inline float fdiv(float a, float b) { return rn32(div(real(a), real(b))); }

// Exact floor / ceil of log2 of a positive rational.
inline int floor_log2(const R::cpp_rational& q) {
  int k = 0;
  R::cpp_rational v = q;
  while (v >= 2) { v /= 2; ++k; }
  while (v < 1) { v *= 2; --k; }
  return k;
}
inline int ceil_log2(const R::cpp_rational& q) {
  const int k = floor_log2(q);
  return (q == R::cpp_rational(R::cpp_int(1) << (k > 0 ? k : 0), R::cpp_int(1) << (k < 0 ? -k : 0))) ? k : k + 1;
}

}  // namespace qref
