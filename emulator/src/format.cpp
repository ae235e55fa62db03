// Format properties, exact encoding and exact decimal text.
#include "tcemu/format.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <stdexcept>
#include <vector>

namespace tcemu {

std::optional<Fmt> parse_format(std::string_view name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const FormatInfo& fi : kFormats)
    if (n == fi.name) return fi.id;
  struct Alias { std::string_view name; Fmt f; };
  static constexpr Alias kAliases[] = {
      {"fp64", Fmt::f64},     {"double", Fmt::f64},  {"fp32", Fmt::f32},     {"float", Fmt::f32},
      {"fp16", Fmt::f16},     {"half", Fmt::f16},    {"e8m7", Fmt::bf16},    {"e4m3fn", Fmt::e4m3},
      {"fp8e4m3", Fmt::e4m3}, {"fp8e5m2", Fmt::e5m2}, {"fp6e3m2", Fmt::e3m2}, {"fp6e2m3", Fmt::e2m3},
      {"fp4", Fmt::e2m1},     {"fp4e2m1", Fmt::e2m1}, {"e8m0", Fmt::ue8m0},
  };
  for (const Alias& a : kAliases)
    if (n == a.name) return a.f;
  return std::nullopt;
}

namespace {
uint64_t pack(const FormatInfo& fi, bool sign, uint64_t biased_exp, uint64_t man) {
  uint64_t code = ((biased_exp << fi.man_bits) | man) << fi.man_shift;
  if (sign && fi.is_signed) code |= fi.sign_mask();
  return code;
}
}  // namespace

std::optional<uint64_t> canonical_nan(Fmt f) {
  const FormatInfo& fi = info(f);
  if (fi.is_int || !fi.has_nan()) return std::nullopt;
  // All exponent and fraction bits set, sign clear: PTX's canonical NaN (f32 0x7FFFFFFF,
  // f16 0x7FFF) and the only positive NaN of e4m3/ue4m3/ue8m0. For e5m2 this gives 0x7F.
  uint64_t all = (uint64_t{1} << (fi.exp_bits + fi.man_bits)) - 1;
  return all << fi.man_shift;
}

std::optional<uint64_t> inf_code(Fmt f, bool negative) {
  const FormatInfo& fi = info(f);
  if (!fi.has_inf()) return std::nullopt;
  return pack(fi, negative, (uint64_t{1} << fi.exp_bits) - 1, 0);
}

uint64_t max_finite_code(Fmt f, bool negative) {
  const FormatInfo& fi = info(f);
  if (fi.is_int) {
    if (!fi.is_signed) return fi.code_mask();
    uint64_t half = uint64_t{1} << (fi.width - 1);
    return negative ? half : half - 1;  // most negative / most positive
  }
  uint64_t sig = fi.max_sig();
  uint64_t man = sig & ((uint64_t{1} << fi.man_bits) - 1);
  return pack(fi, negative, static_cast<uint64_t>(fi.emax() + fi.bias), man);
}

uint64_t min_normal_code(Fmt f) {
  const FormatInfo& fi = info(f);
  if (fi.is_int) return 1;
  return pack(fi, false, static_cast<uint64_t>(fi.emin() + fi.bias), 0);
}

std::optional<uint64_t> min_subnormal_code(Fmt f) {
  const FormatInfo& fi = info(f);
  if (fi.is_int || !fi.has_subnormals || fi.man_bits == 0) return std::nullopt;
  return pack(fi, false, 0, 1);
}

std::optional<uint64_t> zero_code(Fmt f, bool negative) {
  const FormatInfo& fi = info(f);
  if (!fi.has_zero) return std::nullopt;
  if (fi.is_int) return 0;
  return pack(fi, negative, 0, 0);
}

std::optional<uint64_t> encode_exact(Fmt f, bool sign, uint64_t sig, int exp) {
  const FormatInfo& fi = info(f);
  if (sig == 0) return zero_code(f, sign);
  // Normalise: strip trailing zeros so that sig is odd.
  int tz = std::countr_zero(sig);
  sig >>= tz;
  exp += tz;
  if (fi.is_int) {
    if (exp < 0 || exp > 63 - (63 - std::countl_zero(sig))) return std::nullopt;
    uint64_t mag = sig << exp;
    if (!fi.is_signed) {
      if (sign || mag > fi.code_mask()) return std::nullopt;
      return mag;
    }
    uint64_t half = uint64_t{1} << (fi.width - 1);
    if (sign ? mag > half : mag >= half) return std::nullopt;
    return sign ? ((~mag + 1) & fi.code_mask()) : mag;
  }
  if (sign && !fi.is_signed) return std::nullopt;
  int msb = 63 - std::countl_zero(sig);
  int e = exp + msb;  // exponent of the leading bit
  if (e > fi.emax()) return std::nullopt;
  int q;  // weight of the lowest significand bit at this binade
  bool normal = e >= fi.emin();
  if (normal) q = e - fi.man_bits;
  else if (fi.has_subnormals) q = fi.emin() - fi.man_bits;
  else return std::nullopt;
  if (exp < q) return std::nullopt;  // needs more fraction bits than the format has
  uint64_t s = sig << (exp - q);     // fits: s < 2^(man_bits+1)
  if (normal) {
    if (e == fi.emax() && s > fi.max_sig()) return std::nullopt;
    return pack(fi, sign, static_cast<uint64_t>(e + fi.bias), s & ((uint64_t{1} << fi.man_bits) - 1));
  }
  return pack(fi, sign, 0, s);
}

void decode_codes(Fmt f, const uint8_t* codes, Decoded8* out, size_t n) {
  if (info(f).width > 8) throw std::invalid_argument("decode_codes: " + std::string(info(f).name) + " is wider than 8 bits");
  Decoded8 table[256];
  for (int c = 0; c < 256; ++c) {
    Decoded d = decode(f, static_cast<uint64_t>(c));
    table[c] = {d.sign, d.cls, static_cast<int8_t>(d.exp), static_cast<uint8_t>(d.sig)};
  }
  for (size_t i = 0; i < n; ++i) out[i] = table[codes[i]];
}

std::string to_hex(Fmt f, uint64_t code) {
  static constexpr char kDigits[] = "0123456789abcdef";
  int n = info(f).hex_digits;
  std::string s(static_cast<size_t>(n), '0');
  for (int i = n - 1; i >= 0; --i, code >>= 4) s[static_cast<size_t>(i)] = kDigits[code & 15];
  return s;
}

namespace {
// A non-negative big integer in base 1e9 limbs (least significant first): enough to print
// sig * 2^exp exactly (at most ~1100 decimal digits for f64).
struct BigDec {
  std::vector<uint32_t> limbs;
  explicit BigDec(uint64_t v) {
    do { limbs.push_back(static_cast<uint32_t>(v % 1000000000u)); v /= 1000000000u; } while (v);
  }
  void mul(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& l : limbs) {
      uint64_t t = uint64_t{l} * m + carry;
      l = static_cast<uint32_t>(t % 1000000000u);
      carry = t / 1000000000u;
    }
    while (carry) { limbs.push_back(static_cast<uint32_t>(carry % 1000000000u)); carry /= 1000000000u; }
  }
  std::string str() const {
    std::string s = std::to_string(limbs.back());
    for (size_t i = limbs.size() - 1; i-- > 0;) {
      std::string part = std::to_string(limbs[i]);
      s += std::string(9 - part.size(), '0') + part;
    }
    return s;
  }
};
}  // namespace

std::string exact_decimal(Fmt f, uint64_t code) {
  Decoded d = decode(f, code);
  std::string sign = d.sign ? "-" : "";
  if (d.cls == Class::nan) return "nan";
  if (d.cls == Class::inf) return sign + "inf";
  if (d.sig == 0) return sign + "0";
  uint64_t sig = d.sig;
  int exp = d.exp;
  while ((sig & 1) == 0) { sig >>= 1; ++exp; }
  BigDec n(sig);
  if (exp >= 0) {
    for (int i = 0; i < exp; ++i) n.mul(2);
    return sign + n.str();
  }
  // sig * 2^exp = sig * 5^-exp / 10^-exp.
  for (int i = 0; i < -exp; ++i) n.mul(5);
  std::string digits = n.str();
  size_t frac = static_cast<size_t>(-exp);
  if (digits.size() <= frac) digits = std::string(frac - digits.size() + 1, '0') + digits;
  std::string out = digits.substr(0, digits.size() - frac) + "." + digits.substr(digits.size() - frac);
  return sign + out;
}

}  // namespace tcemu
