// Exact values of codes, format properties and the parsing of real numbers, straight from the
// definitions (docs/formats.md). Nothing here calls into emulator/.
#include "tcemu_ref/exact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace tcemu::ref {

using boost::multiprecision::lsb;
using boost::multiprecision::msb;

namespace {

constexpr uint64_t kNoNan = 0;

// Typed in from docs/formats.md and docs/conversions.md step 1 (canonical NaNs); not
// read from emulator's kFormats. Order: the Fmt enum (checked below).
//  id  name  width int sgn ebits mbits bias pad nan-codes subnormals canonical-NaN int range
constexpr std::array<FormatParams, kNumFormats> kParams = {{
    {Fmt::f64, "f64", 64, false, true, 11, 52, 1023, 0, NanCodes::ieee, true, 0x7fffffffffffffffull, 0, 0},
    {Fmt::f32, "f32", 32, false, true, 8, 23, 127, 0, NanCodes::ieee, true, 0x7fffffff, 0, 0},
    // tf32: 8/10 in the f32 container, the fraction's lowest bit at bit 13.
    {Fmt::tf32, "tf32", 32, false, true, 8, 10, 127, 13, NanCodes::ieee, true, 0x7fffe000, 0, 0},
    {Fmt::f16, "f16", 16, false, true, 5, 10, 15, 0, NanCodes::ieee, true, 0x7fff, 0, 0},
    {Fmt::bf16, "bf16", 16, false, true, 8, 7, 127, 0, NanCodes::ieee, true, 0x7fff, 0, 0},
    {Fmt::e4m3, "e4m3", 8, false, true, 4, 3, 7, 0, NanCodes::fn, true, 0x7f, 0, 0},
    {Fmt::e5m2, "e5m2", 8, false, true, 5, 2, 15, 0, NanCodes::ieee, true, 0x7f, 0, 0},
    {Fmt::e3m2, "e3m2", 6, false, true, 3, 2, 3, 0, NanCodes::none, true, kNoNan, 0, 0},
    {Fmt::e2m3, "e2m3", 6, false, true, 2, 3, 1, 0, NanCodes::none, true, kNoNan, 0, 0},
    {Fmt::e2m1, "e2m1", 4, false, true, 2, 1, 1, 0, NanCodes::none, true, kNoNan, 0, 0},
    // ue8m0: unsigned, no fraction, no subnormals (0x00 is 2^-127), 0xFF the only NaN.
    {Fmt::ue8m0, "ue8m0", 8, false, false, 8, 0, 127, 0, NanCodes::max_code, false, 0xff, 0, 0},
    // ue4m3: e4m3 without its sign bit, 7 bits.
    {Fmt::ue4m3, "ue4m3", 7, false, false, 4, 3, 7, 0, NanCodes::fn, true, 0x7f, 0, 0},
    {Fmt::s8, "s8", 8, true, true, 0, 0, 0, 0, NanCodes::none, false, kNoNan, -128, 127},
    {Fmt::u8, "u8", 8, true, false, 0, 0, 0, 0, NanCodes::none, false, kNoNan, 0, 255},
    {Fmt::s4, "s4", 4, true, true, 0, 0, 0, 0, NanCodes::none, false, kNoNan, -8, 7},
    {Fmt::u4, "u4", 4, true, false, 0, 0, 0, 0, NanCodes::none, false, kNoNan, 0, 15},
    // ue5m3 (PTX ISA 9.4): unsigned, 5 exponent and 3 fraction bits, bias 15, subnormals,
    // no Inf, 0xff (all ones) the only NaN.
    {Fmt::ue5m3, "ue5m3", 8, false, false, 5, 3, 15, 0, NanCodes::fn, true, 0xff, 0, 0},
}};

constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kParams.size(); ++i)
    if (static_cast<size_t>(kParams[i].id) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "kParams must follow the order of tcemu::Fmt");

cpp_int pow2(int k) { return cpp_int(1) << k; }

uint64_t exp_field_all_ones(const FormatParams& p) { return (uint64_t{1} << p.exp_bits) - 1; }
uint64_t frac_all_ones(const FormatParams& p) { return (uint64_t{1} << p.man_bits) - 1; }

uint64_t pack(const FormatParams& p, bool negative, uint64_t e_field, uint64_t f_field) {
  return (negative ? p.sign_bit() : 0) | (e_field << (p.man_bits + p.pad_bits)) | (f_field << p.pad_bits);
}

}  // namespace

int FormatParams::emax() const {
  const int top = (1 << exp_bits) - 1;
  // ieee: the all-ones exponent is Inf/NaN; ue8m0: the all-ones exponent is the NaN code.
  const bool top_binade_special = nan == NanCodes::ieee || nan == NanCodes::max_code;
  return (top_binade_special ? top - 1 : top) - bias;
}

uint64_t FormatParams::max_sig() const {
  const uint64_t all = (uint64_t{2} << man_bits) - 1;  // 1.11...1
  return nan == NanCodes::fn ? all - 1 : all;          // fn: 1.11...1 at the top is NaN
}

const FormatParams& params(Fmt f) {
  const auto i = static_cast<size_t>(f);
  if (i >= kParams.size()) throw std::invalid_argument("tcemu::ref::params: unknown format id " + std::to_string(i));
  return kParams[i];
}

Exact make_finite(bool sign, cpp_int mant, int exp) {
  Exact x;
  x.sign = sign;
  x.mant = std::move(mant);
  x.exp = exp;
  return x;
}
Exact make_inf(bool sign) {
  Exact x;
  x.kind = Exact::inf;
  x.sign = sign;
  return x;
}
Exact make_nan(bool sign) {
  Exact x;
  x.kind = Exact::nan;
  x.sign = sign;
  return x;
}

Exact exact_value(Fmt f, uint64_t code) {
  const FormatParams& p = params(f);
  if ((code & ~p.code_mask()) != 0)
    throw std::invalid_argument(std::string("tcemu::ref::exact_value: code has bits above the ") +
                                std::to_string(p.width) + "-bit width of " + p.name);
  const bool negative = (code & p.sign_bit()) != 0;
  if (p.is_int) {
    // Two's complement: a set sign bit weighs -2^(width-1).
    const int64_t v = negative ? static_cast<int64_t>(code) - (int64_t{1} << p.width) : static_cast<int64_t>(code);
    return make_finite(v < 0, cpp_int(v < 0 ? -v : v), 0);
  }
  const uint64_t e_field = (code >> (p.man_bits + p.pad_bits)) & exp_field_all_ones(p);
  const uint64_t f_field = (code >> p.pad_bits) & frac_all_ones(p);
  const bool top = e_field == exp_field_all_ones(p);
  const bool is_nan = (p.nan == NanCodes::ieee && top && f_field != 0) ||
                      (p.nan == NanCodes::fn && top && f_field == frac_all_ones(p)) ||
                      (p.nan == NanCodes::max_code && top);
  if (is_nan) {
    Exact x = make_nan(negative);
    x.payload = f_field;
    x.payload_bits = p.man_bits;
    return x;
  }
  if (p.nan == NanCodes::ieee && top) return make_inf(negative);
  const int bias = p.bias, m = p.man_bits;
  if (p.has_subnormals && e_field == 0) {
    // 0.fraction * 2^(1-bias) = fraction * 2^(1-bias-m)
    Exact x = make_finite(negative, cpp_int(f_field), 1 - bias - m);
    x.subnormal = f_field != 0;
    return x;
  }
  // 1.fraction * 2^(e-bias) = (2^m + fraction) * 2^(e-bias-m)
  return make_finite(negative, cpp_int((uint64_t{1} << m) + f_field), static_cast<int>(e_field) - bias - m);
}

std::string exact_decimal(const Exact& x) {
  if (x.kind == Exact::nan) return "nan";
  if (x.kind == Exact::inf) return x.sign ? "-inf" : "inf";
  std::string s;
  if (x.exp >= 0) {
    s = cpp_int(x.mant << x.exp).str();
  } else {
    // mant / 2^k = mant * 5^k / 10^k: the digits of mant * 5^k with the point k from the right.
    const int k = -x.exp;
    const cpp_int five_k = boost::multiprecision::pow(cpp_int(5), static_cast<unsigned>(k));
    s = cpp_int(x.mant * five_k).str();
    if (s.size() < static_cast<size_t>(k) + 1) s.insert(0, static_cast<size_t>(k) + 1 - s.size(), '0');
    s.insert(s.size() - static_cast<size_t>(k), ".");
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return (x.sign ? "-" : "") + s;
}

std::string exact_decimal(Fmt f, uint64_t code) { return exact_decimal(exact_value(f, code)); }

cpp_rational to_rational(const Exact& x) {
  if (x.kind != Exact::finite) throw std::invalid_argument("tcemu::ref::to_rational: not a finite value");
  cpp_rational r = x.exp >= 0 ? cpp_rational(cpp_int(x.mant << x.exp)) : cpp_rational(x.mant, pow2(-x.exp));
  return x.sign ? cpp_rational(-r) : r;
}

int compare(const Exact& a, const Exact& b) {
  if (a.kind != Exact::finite || b.kind != Exact::finite)
    throw std::invalid_argument("tcemu::ref::compare: both values must be finite");
  const int sa = a.mant == 0 ? 0 : (a.sign ? -1 : 1);
  const int sb = b.mant == 0 ? 0 : (b.sign ? -1 : 1);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  // Same sign: compare magnitudes at the smaller exponent.
  const int e = std::min(a.exp, b.exp);
  const cpp_int ma = a.mant << (a.exp - e), mb = b.mant << (b.exp - e);
  const int mag = ma < mb ? -1 : (ma == mb ? 0 : 1);
  return sa > 0 ? mag : -mag;
}

Exact max_finite(Fmt f) {
  const FormatParams& p = params(f);
  if (p.is_int) return make_finite(false, cpp_int(p.int_max), 0);
  return make_finite(false, cpp_int(p.max_sig()), p.emax() - p.man_bits);
}

Exact min_normal(Fmt f) {
  const FormatParams& p = params(f);
  if (p.is_int) return make_finite(false, cpp_int(1), 0);
  return make_finite(false, cpp_int(1), p.emin());
}

std::optional<Exact> min_subnormal(Fmt f) {
  const FormatParams& p = params(f);
  if (p.is_int || !p.has_subnormals) return std::nullopt;
  return make_finite(false, cpp_int(1), p.emin() - p.man_bits);
}

std::optional<uint64_t> canonical_nan_code(Fmt f) {
  const FormatParams& p = params(f);
  if (!p.has_nan()) return std::nullopt;
  return p.canonical_nan;
}

std::optional<uint64_t> inf_code(Fmt f, bool negative) {
  const FormatParams& p = params(f);
  if (!p.has_inf()) return std::nullopt;
  return pack(p, negative, exp_field_all_ones(p), 0);
}

uint64_t max_finite_code(Fmt f, bool negative) {
  const FormatParams& p = params(f);
  if (p.is_int) {
    const int64_t v = negative ? p.int_min : p.int_max;
    return static_cast<uint64_t>(v) & p.code_mask();
  }
  switch (p.nan) {
    case NanCodes::ieee:  // exponent one below all ones, fraction all ones
      return pack(p, negative, exp_field_all_ones(p) - 1, frac_all_ones(p));
    case NanCodes::fn:  // exponent all ones, fraction all ones but the last bit
      return pack(p, negative, exp_field_all_ones(p), frac_all_ones(p) - 1);
    case NanCodes::max_code:  // the code below the NaN code
      return pack(p, negative, exp_field_all_ones(p) - 1, 0);
    case NanCodes::none:
      return pack(p, negative, exp_field_all_ones(p), frac_all_ones(p));
  }
  return 0;
}

std::optional<uint64_t> zero_code(Fmt f, bool negative) {
  const FormatParams& p = params(f);
  if (p.nan == NanCodes::max_code) return std::nullopt;  // ue8m0 has no zero
  if (p.is_int) return 0;
  return negative ? p.sign_bit() : 0;
}

// ---------------------------------------------------------------------------------------
// Reading real numbers.

namespace {

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw std::invalid_argument("cannot read \"" + std::string(text) + "\" as a number: " + why);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr long kMaxExponent = 100000;  // keeps 10^k and 2^k of a sane size

// Reads [sign] digits after `pos`; returns the value, advancing pos.
long read_exponent(std::string_view text, size_t& pos) {
  bool neg = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) neg = text[pos++] == '-';
  if (pos >= text.size() || !std::isdigit(static_cast<unsigned char>(text[pos]))) bad(text, "exponent has no digits");
  long e = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    e = e * 10 + (text[pos++] - '0');
    if (e > kMaxExponent) bad(text, "exponent out of range (|exponent| <= 100000)");
  }
  return neg ? -e : e;
}

}  // namespace

Real parse_real(std::string_view text) {
  Real r;
  size_t pos = 0;
  if (text.empty()) bad(text, "empty text");
  if (text[0] == '+' || text[0] == '-') r.sign = text[pos++] == '-';
  const std::string_view body = text.substr(pos);
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    r.kind = Exact::inf;
    return r;
  }
  if (iequals(body, "nan")) {
    r.kind = Exact::nan;
    return r;
  }
  cpp_int digits = 0;
  int ndigits = 0, frac_digits = 0;
  bool seen_point = false;
  if (body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    // Hex float: 0x h[.h] [p exp], value = digits * 2^(exp - 4 * fraction digits).
    pos += 2;
    for (; pos < text.size(); ++pos) {
      if (text[pos] == '.' && !seen_point) {
        seen_point = true;
        continue;
      }
      const int d = hex_digit(text[pos]);
      if (d < 0) break;
      digits = digits * 16 + d;
      ++ndigits;
      if (seen_point) ++frac_digits;
    }
    if (ndigits == 0) bad(text, "no hex digits after 0x");
    long p = 0;
    if (pos < text.size() && (text[pos] == 'p' || text[pos] == 'P')) p = read_exponent(text, ++pos);
    if (pos != text.size()) bad(text, std::string("unexpected character '") + text[pos] + "'");
    const long k = p - 4L * frac_digits;
    if (k >= 0) r.mag = cpp_rational(cpp_int(digits << static_cast<int>(k)));
    else r.mag = cpp_rational(digits, pow2(static_cast<int>(-k)));
    return r;
  }
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    digits = digits * 10 + (c - '0');
    ++ndigits;
    if (seen_point) ++frac_digits;
    if (ndigits > kMaxExponent) bad(text, "too many digits");
  }
  if (ndigits == 0) bad(text, "no digits (expected a decimal such as -1.5e-3, a hex float 0x1p-3, inf or nan)");
  long e10 = 0;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) e10 = read_exponent(text, ++pos);
  if (pos != text.size()) bad(text, std::string("unexpected character '") + text[pos] + "'");
  const long k = e10 - frac_digits;
  const cpp_int ten_k = boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(k < 0 ? -k : k));
  r.mag = k >= 0 ? cpp_rational(cpp_int(digits * ten_k)) : cpp_rational(digits, ten_k);
  return r;
}

std::optional<Exact> exact_from_decimal(std::string_view text) {
  const Real r = parse_real(text);
  if (r.kind == Exact::inf) return make_inf(r.sign);
  if (r.kind == Exact::nan) return make_nan(r.sign);
  const cpp_int num = boost::multiprecision::numerator(r.mag);
  const cpp_int den = boost::multiprecision::denominator(r.mag);
  // Dyadic iff the reduced denominator is a power of two.
  if ((den & (den - 1)) != 0) return std::nullopt;
  return make_finite(r.sign, num, -static_cast<int>(msb(den)));
}

Real to_real(const Exact& x) {
  Real r;
  r.kind = x.kind;
  r.sign = x.sign;
  if (x.kind == Exact::finite) {
    r.mag = to_rational(x);
    if (r.mag < 0) r.mag = -r.mag;
  }
  return r;
}

}  // namespace tcemu::ref
