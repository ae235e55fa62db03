// Codes that know their format, for readable test output: "e4m3 0x7e (448)" instead of "126".
// The vocabulary shared by the generators, the properties and the matchers of tcemu::testing.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tcemu/format.hpp"

namespace tcemu::testing {

// One code of a format (the format's bit pattern in the low bits of `bits`).
struct Code {
  Fmt fmt = Fmt::f32;
  uint64_t bits = 0;
  bool operator==(const Code&) const = default;
};

// Codes of one format: a vector, or a row-major rows x cols matrix (rows = 1 for a vector).
struct Codes {
  Fmt fmt = Fmt::f32;
  std::vector<uint64_t> bits;
  int rows = 1, cols = 0;
  bool operator==(const Codes&) const = default;
  Code at(size_t i) const { return {fmt, bits.at(i)}; }
};

// The value of a code in a short exact form: "448", "-0", "0.001953125", "nan", "inf"; a
// value whose decimal expansion is long is written as odd * 2^exp with an approximation,
// "3*2^-1074 (~1.48e-323)".
std::string value_string(Fmt f, uint64_t code);
// "e4m3 0x7e (448)".
std::string describe(Fmt f, uint64_t code);
inline std::string describe(const Code& c) { return describe(c.fmt, c.bits); }

// The position of a code on the number line counted in codes: +0 and -0 are both 0, the
// smallest positive value 1, and so on, negative values mirrored (two's complement integers:
// their value). Consecutive representable values differ by one. nullopt for NaN codes.
std::optional<int64_t> ordinal(Fmt f, uint64_t code);
// The code at an ordinal (the positive zero for 0); nullopt outside the format's codes or
// where the position holds a NaN (e4m3 0x7f).
std::optional<uint64_t> code_at_ordinal(Fmt f, int64_t ord);
// The distance in units in the last place: how many steps between two codes on the number
// line (IEEE Inf is one step past the largest finite value). nullopt when either is a NaN.
std::optional<uint64_t> ulp_distance(Fmt f, uint64_t a, uint64_t b);

// RapidCheck prints values through these (counterexamples show formats and values).
void showValue(const Code& c, std::ostream& os);
void showValue(const Codes& c, std::ostream& os);
std::ostream& operator<<(std::ostream& os, const Code& c);

}  // namespace tcemu::testing
