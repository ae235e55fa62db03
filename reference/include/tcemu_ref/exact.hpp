// The exact value of every code, written straight from the bit-field definitions with
// Boost.Multiprecision integers. Independent of emulator/: only the Fmt ids are shared; the
// format parameters below are typed in again from docs/formats.md.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tcemu/format.hpp"  // Fmt ids only: decode() and friends are never called here

namespace tcemu::ref {

using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

// Which codes of a float format are not finite numbers.
enum class NanCodes : uint8_t {
  ieee,      // exponent field all ones: Inf (fraction 0) or NaN (fraction != 0)
  fn,        // no Inf; exponent and fraction all ones is NaN (OCP e4m3 "fn", ue4m3)
  max_code,  // no Inf; exponent field all ones is NaN, the whole binade (ue8m0 0xFF)
  none,      // every code is a number (e3m2, e2m3, e2m1, integers)
};

// The reference's own parameters of a format (docs/formats.md).
struct FormatParams {
  Fmt id;
  const char* name;
  int width;          // bits of a code (tf32: its 32-bit f32 container)
  bool is_int;        // two's complement (signed) or plain binary integers
  bool is_signed;     // has a sign bit
  int exp_bits;       // exponent field
  int man_bits;       // fraction field (stored bits, no implicit bit)
  int bias;
  int pad_bits;       // zero bits below the fraction (tf32: 13)
  NanCodes nan;
  bool has_subnormals;       // exponent field 0 means 0.fraction * 2^(1-bias)
  uint64_t canonical_nan;    // docs/conversions.md step 1; 0 when the format has no NaN
  int64_t int_min, int_max;  // integer formats: the range

  bool has_inf() const { return nan == NanCodes::ieee; }
  bool has_nan() const { return nan != NanCodes::none && !is_int; }
  uint64_t sign_bit() const { return is_signed ? uint64_t{1} << (width - 1) : 0; }
  uint64_t code_mask() const { return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
  // Exponent of the smallest normal binade (ue8m0, no subnormals: the field 0 is 2^-bias).
  int emin() const { return has_subnormals ? 1 - bias : -bias; }
  // Exponent of the largest binade holding a finite value.
  int emax() const;
  // Significand (implicit bit included) of the largest finite value: 2^(m+1)-1, or one
  // less where the all-ones code of the top binade is NaN (fn).
  uint64_t max_sig() const;
};

const FormatParams& params(Fmt f);

// An exactly known value: value = (sign ? -1 : 1) * mant * 2^exp for finite ones.
struct Exact {
  enum Kind : uint8_t { finite, inf, nan };
  Kind kind = finite;
  bool sign = false;
  cpp_int mant = 0;  // >= 0
  int exp = 0;
  // The code it came from was a subnormal (what `ftz` on input flushes).
  bool subnormal = false;
  // NaN payload: the source's fraction field and its width (for NanOut::payload).
  uint64_t payload = 0;
  int payload_bits = 0;

  bool is_zero() const { return kind == finite && mant == 0; }
};

Exact make_finite(bool sign, cpp_int mant, int exp);
Exact make_inf(bool sign);
Exact make_nan(bool sign);

// The value of `code`, decoded from its bit fields. Throws std::invalid_argument when the
// code has bits set above the format's width. tf32's low 13 bits are ignored, as the tensor
// cores read a tf32 operand (docs/formats.md).
Exact exact_value(Fmt f, uint64_t code);

// Every digit: "0.001953125", "-448", "-0", "inf", "-inf", "nan".
std::string exact_decimal(const Exact& x);
std::string exact_decimal(Fmt f, uint64_t code);

// Numeric comparison of two finite values (-1, 0, 1); -0 equals +0.
int compare(const Exact& a, const Exact& b);
cpp_rational to_rational(const Exact& x);  // finite only

// Properties of each format, computed from the parameters (tests check them against the
// numbers printed in docs/formats.md). Integers: max/min are the range ends, min normal 1.
Exact max_finite(Fmt f);
Exact min_normal(Fmt f);                   // ue8m0: 2^-127, the smallest value
std::optional<Exact> min_subnormal(Fmt f);  // nullopt without subnormals
std::optional<uint64_t> canonical_nan_code(Fmt f);
std::optional<uint64_t> inf_code(Fmt f, bool negative);
uint64_t max_finite_code(Fmt f, bool negative);
std::optional<uint64_t> zero_code(Fmt f, bool negative);  // ue8m0: nullopt

// A real number read from text: NaN, ±Inf, or a finite rational (decimals are generally
// not dyadic, so this is the type of a decimal input).
struct Real {
  Exact::Kind kind = Exact::finite;
  bool sign = false;
  cpp_rational mag = 0;  // |value|, finite only
};

// Parses "-465", "1e-9", "0.1", "+2.5E3", "0x1p-3", "-0x1.8p4", "inf", "-Infinity", "nan".
// Throws std::invalid_argument naming the problem on anything else.
Real parse_real(std::string_view text);
// The same, as an Exact when the value is dyadic ("0.5", "0x1p-3"); nullopt when not
// ("0.1", "1e-9"). Throws like parse_real on bad text.
std::optional<Exact> exact_from_decimal(std::string_view text);
Real to_real(const Exact& x);

}  // namespace tcemu::ref
