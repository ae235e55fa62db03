// Exact-arithmetic helpers of the quantization tests: every f32 operation of a recipe is
// re-derived as the exact rational result rounded once by tcemu::ref (never by the emulator).
#pragma once

#include <bit>
#include <cmath>
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

// ---- Upstream reference rules, transcribed (not copied) into test-side C++. ----

// TransformerEngine tests/cpp/test_common.h (commit d0067d0da6cb01811b8072a7d304f0e00344ce2b):
// float_to_e8m0 (the CPU reference of cvt.rp.satfinite.ue8m0x2.f32) and exp2f_rcp.
inline uint8_t te_float_to_e8m0(float val) {
  if (val != val) return 0xFF;
  if (val == std::numeric_limits<float>::infinity() || val == -std::numeric_limits<float>::infinity()) return 0xFE;
  if (val == 0.0f) return 0x00;
  const uint32_t u = bits(val);
  uint8_t exponent = static_cast<uint8_t>(u >> 23);
  const uint32_t mantissa = u & 0x7FFFFF;
  if ((mantissa > 0 && exponent != 0xFE) && !(exponent == 0 && mantissa <= 0x400000)) ++exponent;
  return exponent;
}
inline float te_exp2f_rcp(uint8_t e) {
  if (e == 255) return from_bits(0x7FFFFFFF);
  if (e == 254) return from_bits(0x00400000);
  return from_bits(static_cast<uint32_t>(254 - e) << 23);
}
// TransformerEngine common/util/ptx.cuh exp2f (same commit): the dequantize multiplier.
inline float te_exp2f(uint8_t e) {
  if (e == 255) return from_bits(0x7FFFFFFF);
  if (e == 0) return from_bits(0x00400000);
  return from_bits(static_cast<uint32_t>(e) << 23);
}

// pytorch/ao torchao/prototype/mx_formats/mx_tensor.py (commit
// 36027d82d1ad9949597ea16002ff4940374b1b94): _f32_to_e8m0_rceil and the fallback of
// _e8m0_scale_to_reciprocal_fp32 (test_e8m0_scale_to_reciprocal_fp32_cuda_fallback pins
// code 254 to 0x00400000 and code 255 to 0x7F800001).
inline uint8_t torchao_f32_to_e8m0_rceil(float v) {
  const uint32_t u = bits(v);
  const uint32_t e = (u >> 23) & 0xFF, m = u & 0x7FFFFF;
  if (e == 0xFF) return 0xFF;  // not finite
  const uint32_t up = e == 0 ? (m > 0x400000 ? 1u : 0u) : (m != 0 ? 1u : 0u);
  return static_cast<uint8_t>(e + up);  // 254 + 1 wraps to the NaN code 255
}
inline uint32_t torchao_reciprocal_bits(uint8_t scale) {
  const uint8_t r = static_cast<uint8_t>(254 - static_cast<int>(scale));
  if (r == 0) return 0x00400000;
  if (r == 0xFF) return 0x7F800001;
  return static_cast<uint32_t>(r) << 23;
}

// pytorch/ao torchao/prototype/custom_fp_utils.py _f32_to_floatx_unpacked (same commit), one
// element: f32 bits in, the sub-byte code out (saturate / denormal / normal branches on int32).
inline uint8_t torchao_f32_to_floatx(uint32_t xbits, int ebits, int mbits) {
  const int32_t exp_bias = (1 << (ebits - 1)) - 1;
  const int32_t max_int = (1 << (ebits + mbits)) - 1;
  const int32_t sign_mask = 1 << (ebits + mbits);
  const int32_t magic_adder = (1 << (23 - mbits - 1)) - 1;
  const double max_normal = std::ldexp(1.0, ((1 << ebits) - 1) - exp_bias) * (double((1 << (mbits + 1)) - 1) / double(1 << mbits));
  const double min_normal = std::ldexp(1.0, 1 - exp_bias);
  const int32_t denorm_exp = (127 - exp_bias) + (23 - mbits) + 1;
  const int32_t denorm_mask_int = denorm_exp << 23;
  const float denorm_mask_float = from_bits(static_cast<uint32_t>(denorm_mask_int));
  const uint32_t sign = xbits & 0x80000000u;
  const uint32_t a = xbits ^ sign;
  const float x = from_bits(a);
  // Comparisons of the f32 against Python floats (promoted to double: exact here).
  const bool saturate = static_cast<double>(x) >= max_normal;
  const bool denormal = !saturate && static_cast<double>(x) < min_normal;
  uint8_t code;
  if (saturate) {
    code = static_cast<uint8_t>(max_int);
  } else if (denormal) {
    const float d = x + denorm_mask_float;  // one f32 addition (RNE) does the rounding
    code = static_cast<uint8_t>(static_cast<int32_t>(bits(d)) - denorm_mask_int);
  } else {
    int32_t n = static_cast<int32_t>(a);
    const int32_t mant_odd = (n >> (23 - mbits)) & 1;
    n += ((exp_bias - 127) * (1 << 23)) + magic_adder;
    n += mant_odd;
    code = static_cast<uint8_t>(n >> (23 - mbits));
  }
  const uint8_t sign_lp = static_cast<uint8_t>((sign >> (23 + 8 - mbits - ebits)) & static_cast<uint32_t>(sign_mask));
  return static_cast<uint8_t>(code | sign_lp);
}

}  // namespace qref
