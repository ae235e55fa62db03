// The reference conversion: docs/conversions.md steps 1-8 written out with exact arithmetic
// (Boost.Multiprecision). Shares no arithmetic with emulator/: only the option structs and
// flag values of tcemu/convert.hpp are used, never convert() or round_value().
#pragma once

#include <cstdint>
#include <string_view>

#include "tcemu/convert.hpp"  // Round, ConvertOptions, Flag, ConvertResult (types only)
#include "tcemu_ref/exact.hpp"

namespace tcemu::ref {

// Random-bit width used by Round::rs when opt.rs_bits is 0 (docs/conversions.md step 7:
// f16 13, bf16 16, formats of 8 bits or fewer 8, others 32).
int rs_width(Fmt to, const ConvertOptions& opt);

// Converts an exact value into `to`. `rbits` is read by Round::rs only (its low w bits).
// Flags: kUndefined exactly as the document says; kInexact (result differs from x),
// kOverflow (rounded magnitude above MAX, or Inf made finite), kUnderflow (|x| < 2^emin
// before rounding, and inexact), kInvalid (NaN into a format without NaN, a negative
// refused by neg_to_unsigned, an integer out of range, Inf made NaN).
// Throws std::invalid_argument for opt.rs_bits > 32.
ConvertResult convert_exact(const Exact& x, Fmt to, const ConvertOptions& opt, uint32_t rbits = 0);

// convert_exact(exact_value(from, code), ...).
ConvertResult convert(Fmt from, Fmt to, uint64_t code, const ConvertOptions& opt, uint32_t rbits = 0);

// A general rational, correctly rounded in every mode; rs reads the exact discarded
// fraction. Non-dyadic inputs have no source format, so `ftz` on input does not apply.
ConvertResult convert_rational(const Real& x, Fmt to, const ConvertOptions& opt, uint32_t rbits = 0);
ConvertResult convert_rational(const cpp_rational& x, Fmt to, const ConvertOptions& opt, uint32_t rbits = 0);
// parse_real(text) then convert_rational.
ConvertResult convert_decimal(std::string_view text, Fmt to, const ConvertOptions& opt, uint32_t rbits = 0);

}  // namespace tcemu::ref
