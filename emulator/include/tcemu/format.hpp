// Number formats as data (constexpr descriptors), decoding and encoding of codes.
//
// A format is described by a FormatInfo record, in the manner of LLVM's fltSemantics:
// width, exponent and mantissa bits, bias, how special values are encoded, signedness.
// Codes travel as uint64_t holding the format's bit pattern in its low bits.
//
// Sources: docs/formats.md (PTX ISA 5.2.3, OCP MX v1.0, CUDA headers).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tcemu {

// s32 is the int32 accumulator of integer MMA (C and D); it is not a conversion format: the
// conversion formats are the first kNumFormats, and s32 comes after them. ue5m3 (PTX ISA 9.4's
// scale format) came last, after u4, so that the ids of the earlier formats did not change.
enum class Fmt : uint8_t {
  f64, f32, tf32, f16, bf16, e4m3, e5m2, e3m2, e2m3, e2m1, ue8m0, ue4m3, s8, u8, s4, u4, ue5m3, s32,
};
inline constexpr int kNumFormats = 17;     // the conversion formats: every Fmt before s32
inline constexpr int kNumAllFormats = 18;  // every Fmt, s32 included

// How a float format encodes values that are not finite numbers.
enum class Specials : uint8_t {
  ieee,          // all-ones exponent: Inf (mantissa 0) or NaN (mantissa != 0)
  nan_all_ones,  // no Inf; only exponent and mantissa all ones is NaN (OCP e4m3 "fn", ue4m3, ue5m3)
  nan_max_code,  // no Inf; the all-ones code is NaN, every other code is finite (ue8m0)
  none,          // every code is a finite number (e3m2, e2m3, e2m1)
};

enum class Class : uint8_t { zero, subnormal, normal, inf, nan };

struct FormatInfo {
  Fmt id;
  std::string_view name;
  uint8_t width;       // bits in a code (tf32: 32, its f32 container)
  uint8_t hex_digits;  // digits of a code written in hex
  bool is_int;         // s8/u8/s4/u4, s32
  bool is_signed;      // has a sign bit (ints: two's complement)
  uint8_t exp_bits;
  uint8_t man_bits;    // stored fraction bits
  int16_t bias;
  uint8_t man_shift;   // position of the fraction's lowest bit (tf32: 13, its low bits are 0)
  Specials specials;
  bool has_zero;       // ue8m0 has none
  bool has_subnormals; // biased exponent 0 is subnormal (false: it is a normal binade, ue8m0)

  // Unbiased exponent of the smallest normal binade.
  constexpr int emin() const { return has_subnormals ? 1 - bias : -bias; }
  // Unbiased exponent of the largest finite binade.
  constexpr int emax() const {
    int top = (1 << exp_bits) - 1;  // all-ones biased exponent
    // IEEE: the all-ones exponent holds Inf/NaN. ue8m0: the all-ones code is NaN and, with no
    // fraction bits, that is the whole binade.
    bool top_is_special = specials == Specials::ieee || specials == Specials::nan_max_code;
    return (top_is_special ? top - 1 : top) - bias;
  }
  // Integer significand (implicit bit included) of the largest finite value.
  constexpr uint64_t max_sig() const {
    uint64_t full = (uint64_t{2} << man_bits) - 1;
    if (specials == Specials::nan_all_ones) return full - 1;
    return full;
  }
  constexpr bool has_inf() const { return specials == Specials::ieee; }
  constexpr bool has_nan() const { return specials != Specials::none; }
  constexpr uint64_t code_mask() const { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
  constexpr uint64_t sign_mask() const { return is_signed ? uint64_t{1} << (width - 1) : 0; }
};

// The table of every format, indexed by Fmt.
inline constexpr std::array<FormatInfo, kNumAllFormats> kAllFormats = {{
    //  id          name     w  hex int   sgn  e   m  bias shift specials                has0  sub
    {Fmt::f64,   "f64",   64, 16, false, true, 11, 52, 1023, 0, Specials::ieee,         true,  true},
    {Fmt::f32,   "f32",   32, 8,  false, true, 8,  23, 127,  0, Specials::ieee,         true,  true},
    {Fmt::tf32,  "tf32",  32, 8,  false, true, 8,  10, 127, 13, Specials::ieee,         true,  true},
    {Fmt::f16,   "f16",   16, 4,  false, true, 5,  10, 15,   0, Specials::ieee,         true,  true},
    {Fmt::bf16,  "bf16",  16, 4,  false, true, 8,  7,  127,  0, Specials::ieee,         true,  true},
    {Fmt::e4m3,  "e4m3",  8,  2,  false, true, 4,  3,  7,    0, Specials::nan_all_ones, true,  true},
    {Fmt::e5m2,  "e5m2",  8,  2,  false, true, 5,  2,  15,   0, Specials::ieee,         true,  true},
    {Fmt::e3m2,  "e3m2",  6,  2,  false, true, 3,  2,  3,    0, Specials::none,         true,  true},
    {Fmt::e2m3,  "e2m3",  6,  2,  false, true, 2,  3,  1,    0, Specials::none,         true,  true},
    {Fmt::e2m1,  "e2m1",  4,  1,  false, true, 2,  1,  1,    0, Specials::none,         true,  true},
    {Fmt::ue8m0, "ue8m0", 8,  2,  false, false, 8, 0,  127,  0, Specials::nan_max_code, false, false},
    {Fmt::ue4m3, "ue4m3", 7,  2,  false, false, 4, 3,  7,    0, Specials::nan_all_ones, true,  true},
    {Fmt::s8,    "s8",    8,  2,  true,  true, 0,  0,  0,    0, Specials::none,         true,  false},
    {Fmt::u8,    "u8",    8,  2,  true,  false, 0, 0,  0,    0, Specials::none,         true,  false},
    {Fmt::s4,    "s4",    4,  1,  true,  true, 0,  0,  0,    0, Specials::none,         true,  false},
    {Fmt::u4,    "u4",    4,  1,  true,  false, 0, 0,  0,    0, Specials::none,         true,  false},
    // ue5m3: unsigned 5/3, bias 15, subnormals, 0xFF the only NaN, max 0xFE = 114688 (PTX 9.4).
    {Fmt::ue5m3, "ue5m3", 8,  2,  false, false, 5, 3,  15,   0, Specials::nan_all_ones, true,  true},
    {Fmt::s32,   "s32",   32, 8,  true,  true, 0,  0,  0,    0, Specials::none,         true,  false},
}};
// The conversion formats (convert, cvt, parse_format, `tcemu info`, golden conversion cases):
// every row but s32's.
inline constexpr std::span<const FormatInfo, kNumFormats> kFormats{kAllFormats.data(), kNumFormats};

constexpr const FormatInfo& info(Fmt f) { return kAllFormats[static_cast<size_t>(f)]; }
constexpr bool is_float(Fmt f) { return !info(f).is_int; }

// Parses a conversion format's name ("e4m3", "f32", ...; a few aliases such as "fp8e4m3",
// "half", "float" are accepted). Returns nullopt for an unknown name, and for "s32" (not a
// conversion format; the accumulator types are parsed by parse_acc_type, catalog.hpp).
std::optional<Fmt> parse_format(std::string_view name);

// A code taken apart. For finite values: value = (-1)^sign * sig * 2^exp, where sig is the
// integer significand with the implicit bit included and exp the weight of its lowest bit.
// For integer formats sig = |value| and exp = 0. For Inf and NaN, sig holds the stored
// fraction (the NaN payload) and exp is 0.
struct Decoded {
  bool sign = false;
  Class cls = Class::zero;
  int32_t exp = 0;
  uint64_t sig = 0;
};

// True when `code` is a valid code of the format: fits its width, and for tf32 has the low
// 13 bits zero, for ue4m3 bit 7 zero (the width handles it).
constexpr bool is_valid_code(Fmt f, uint64_t code) {
  const FormatInfo& fi = info(f);
  if ((code & ~fi.code_mask()) != 0) return false;
  if (fi.man_shift != 0 && (code & ((uint64_t{1} << fi.man_shift) - 1)) != 0) return false;
  return true;
}

// Decoding ignores bits outside the format (above the width, and tf32's low 13 bits), which
// is how the tensor cores read a tf32 operand ("truncate lower 13 bits", PTX wgmma).
constexpr Decoded decode(Fmt f, uint64_t code) {
  const FormatInfo& fi = info(f);
  Decoded d;
  code &= fi.code_mask();
  if (fi.is_int) {
    if (fi.is_signed && (code & fi.sign_mask())) {
      d.sign = true;
      d.sig = (fi.code_mask() + 1) - code;  // two's complement magnitude
    } else {
      d.sig = code;
    }
    d.cls = d.sig == 0 ? Class::zero : Class::normal;
    return d;
  }
  d.sign = fi.is_signed && (code & fi.sign_mask()) != 0;
  const uint64_t man = (code >> fi.man_shift) & ((uint64_t{1} << fi.man_bits) - 1);
  const int eb = static_cast<int>((code >> (fi.man_shift + fi.man_bits)) & ((1u << fi.exp_bits) - 1));
  const int top = (1 << fi.exp_bits) - 1;
  switch (fi.specials) {
    case Specials::ieee:
      if (eb == top) { d.cls = man ? Class::nan : Class::inf; d.sig = man; return d; }
      break;
    case Specials::nan_all_ones:
      if (eb == top && man == (uint64_t{1} << fi.man_bits) - 1) { d.cls = Class::nan; d.sig = man; return d; }
      break;
    case Specials::nan_max_code:
      if (eb == top && man == (uint64_t{1} << fi.man_bits) - 1) { d.cls = Class::nan; d.sig = man; return d; }
      break;
    case Specials::none: break;
  }
  if (eb == 0 && fi.has_subnormals) {
    d.sig = man;
    d.exp = fi.emin() - fi.man_bits;
    d.cls = man ? Class::subnormal : Class::zero;
    return d;
  }
  d.sig = man | (uint64_t{1} << fi.man_bits);
  d.exp = eb - fi.bias - fi.man_bits;
  d.cls = Class::normal;
  return d;
}

constexpr Class classify(Fmt f, uint64_t code) { return decode(f, code).cls; }

// The compact form of a decoded code of a format of 8 bits or fewer (4 bytes; every field
// fits: significands up to 2^8, exponents -136..127).
struct Decoded8 {
  bool sign;
  Class cls;
  int8_t exp;
  uint8_t sig;
};
// Decodes n codes of a format of 8 bits or fewer through a table. Precondition:
// info(f).width <= 8 (std::invalid_argument for a wider format). The fast path for operand
// decoding.
void decode_codes(Fmt f, const uint8_t* codes, Decoded8* out, size_t n);

// Canonical NaN code of a format (f32 0x7FFFFFFF, f16/bf16 0x7FFF, e4m3/e5m2 0x7F, ue8m0
// 0xFF, ue4m3 0x7F, ue5m3 0xFF; PTX "canonical NaN"), or nullopt when it has none.
std::optional<uint64_t> canonical_nan(Fmt f);
// +Inf code, or nullopt.
std::optional<uint64_t> inf_code(Fmt f, bool negative = false);
// Largest finite value's code with the given sign (a format without sign ignores it).
uint64_t max_finite_code(Fmt f, bool negative = false);
// Smallest positive normal and subnormal codes (ints: 1; ue8m0 has no subnormal: nullopt).
uint64_t min_normal_code(Fmt f);
std::optional<uint64_t> min_subnormal_code(Fmt f);
// Zero with the given sign, or nullopt (ue8m0). An unsigned format ignores the sign.
std::optional<uint64_t> zero_code(Fmt f, bool negative = false);

// Encodes a finite value sig * 2^exp that the format represents exactly (no rounding):
// returns nullopt when it is not representable. Used by tests and by the command line's
// --operands-as f32 style checks; conversions go through convert().
std::optional<uint64_t> encode_exact(Fmt f, bool sign, uint64_t sig, int exp);

// Exact decimal expansion of a finite code ("-0.001953125", "448", "1.5e-45" is never used:
// every digit is printed). Inf and NaN give "inf", "-inf", "nan".
std::string exact_decimal(Fmt f, uint64_t code);

// Writes a code as lower-case hex, zero-padded to the format's width.
std::string to_hex(Fmt f, uint64_t code);

}  // namespace tcemu
