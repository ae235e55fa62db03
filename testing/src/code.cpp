// Code descriptions and the ordinal (ulp) arithmetic of tcemu::testing.
#include "tcemu/testing/code.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tcemu::testing {

namespace {
// Magnitude of a sign-magnitude float code in steps of its lowest stored bit.
uint64_t float_magnitude(const FormatInfo& fi, uint64_t code) {
  return (code & fi.code_mask() & ~fi.sign_mask()) >> fi.man_shift;
}
}  // namespace

std::string value_string(Fmt f, uint64_t code) {
  std::string s = exact_decimal(f, code);
  if (s.size() <= 40) return s;
  // Long expansions (tiny or huge values of wide formats): odd significand times a power of 2.
  const Decoded d = decode(f, code);
  uint64_t sig = d.sig;
  int exp = d.exp;
  const int tz = std::countr_zero(sig);
  sig >>= tz;
  exp += tz;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%llu*2^%d (~%.6Lg)", d.sign ? "-" : "", static_cast<unsigned long long>(sig), exp,
                std::ldexp(static_cast<long double>(sig), exp) * (d.sign ? -1 : 1));
  return buf;
}

std::string describe(Fmt f, uint64_t code) {
  std::string s(info(f).name);
  s += " 0x";
  s += to_hex(f, code);
  s += " (";
  s += value_string(f, code);
  s += ")";
  return s;
}

std::optional<int64_t> ordinal(Fmt f, uint64_t code) {
  const FormatInfo& fi = info(f);
  code &= fi.code_mask();
  if (fi.is_int) {
    if (fi.is_signed && (code & fi.sign_mask())) return -static_cast<int64_t>((fi.code_mask() + 1) - code);
    return static_cast<int64_t>(code);
  }
  if (classify(f, code) == Class::nan) return std::nullopt;
  const auto mag = static_cast<int64_t>(float_magnitude(fi, code));
  return (code & fi.sign_mask()) ? -mag : mag;
}

std::optional<uint64_t> code_at_ordinal(Fmt f, int64_t ord) {
  const FormatInfo& fi = info(f);
  uint64_t code;
  if (fi.is_int) {
    const int64_t lo = fi.is_signed ? -(int64_t{1} << (fi.width - 1)) : 0;
    const int64_t hi = fi.is_signed ? (int64_t{1} << (fi.width - 1)) - 1 : static_cast<int64_t>(fi.code_mask());
    if (fi.width >= 64 || ord < lo || ord > hi) return std::nullopt;
    return static_cast<uint64_t>(ord) & fi.code_mask();
  }
  if (ord < 0 && !fi.is_signed) return std::nullopt;
  const uint64_t mag = static_cast<uint64_t>(ord < 0 ? -ord : ord);
  const int mag_bits = fi.width - (fi.is_signed ? 1 : 0) - fi.man_shift;
  if (mag_bits < 64 && mag >> mag_bits) return std::nullopt;
  code = (mag << fi.man_shift) | (ord < 0 ? fi.sign_mask() : 0);
  if (classify(f, code) == Class::nan) return std::nullopt;
  return code;
}

std::optional<uint64_t> ulp_distance(Fmt f, uint64_t a, uint64_t b) {
  const auto oa = ordinal(f, a), ob = ordinal(f, b);
  if (!oa || !ob) return std::nullopt;
  return *oa > *ob ? static_cast<uint64_t>(*oa - *ob) : static_cast<uint64_t>(*ob - *oa);
}

void showValue(const Code& c, std::ostream& os) { os << describe(c); }

void showValue(const Codes& c, std::ostream& os) {
  os << info(c.fmt).name;
  if (c.rows > 1) os << " " << c.rows << "x" << c.cols;
  os << " [";
  for (size_t i = 0; i < c.bits.size(); ++i) {
    if (i) os << ", ";
    os << "0x" << to_hex(c.fmt, c.bits[i]) << " (" << value_string(c.fmt, c.bits[i]) << ")";
  }
  os << "]";
}

std::ostream& operator<<(std::ostream& os, const Code& c) { return os << describe(c); }

}  // namespace tcemu::testing
