// Reference datapath models: docs/datapath.md written straight from its definitions with exact
// rational arithmetic (Boost.Multiprecision). Shares no arithmetic with emulator/: codes are
// taken apart here from the bit layouts of docs/formats.md, E(x) is floor(log2|x|) of the exact
// value, trunc0 is an exact integer division, rho is a rounding of the exact rational.
// Also: the exact dot product, its correct rounding, and error measures.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <span>

#include "tcemu/convert.hpp"   // Round (enum only)
#include "tcemu/datapath.hpp"  // DatapathParams, BlockScales (option structs only)
#include "tcemu/format.hpp"    // Fmt ids only

namespace tcemu::ref {

using Rational = boost::multiprecision::cpp_rational;
using Integer = boost::multiprecision::cpp_int;

// An exact value: a rational, or Inf/NaN. `neg` is the sign (also of a zero).
struct ExactValue {
  enum Kind { finite, inf, nan } kind = finite;
  bool neg = false;
  Rational v = 0;  // signed value for finite
};

// The value of a code, from the bit layout (its own table of field widths; independent of
// emulator decode()). tf32 ignores the container's low 13 bits; ue4m3 ignores bit 7.
ExactValue value_of(Fmt f, uint64_t code);

// floor(log2 x) for x > 0.
int floor_log2(const Rational& x);

// Rounds an exact value to f32 or f16 (IEEE layouts): toward zero (Round::rz) or to nearest
// even (Round::rn). Overflow (|rounded| >= 2^(emax+1)) gives Inf in both modes; zero gives
// +0 unless `neg_zero`.
uint64_t round_to(const Rational& x, Fmt to, Round mode, bool neg_zero = false);

// One fused step / a chained dot product of the datapath models (docs/datapath.md §1). Same contract
// as tcemu::fdpa_step / fdpa_dot.
uint64_t fdpa_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                   uint64_t c, const BlockScales* scales = nullptr);
uint64_t fdpa_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                  uint64_t c, const BlockScales* scales = nullptr);

// The exact dot product sum a_i*b_i*sA*sB + c (c a code of fc). IEEE rules for specials
// (NaN, Inf*0, Inf-Inf give NaN).
ExactValue exact_dot(Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b, Fmt fc, uint64_t c,
                     const BlockScales* scales = nullptr);
// Its correct rounding to f32/f16 (NaN: canonical; Inf kept).
uint64_t correctly_rounded(const ExactValue& x, Fmt to, Round mode);

// Error of a result code d (f32/f16) against an exact finite value: in units in the last
// place of the exact value in d's format (ulp at the exact value's binade, subnormal ulp
// below emin), and relative error (|d - x| / |x|; 0 when both are 0, +inf when x = 0 != d).
// Non-finite d gives +inf.
double ulp_error(Fmt out, uint64_t d, const Rational& exact);
double relative_error(Fmt out, uint64_t d, const Rational& exact);

}  // namespace tcemu::ref
