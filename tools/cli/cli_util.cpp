#include "cli_util.hpp"

#include <boost/multiprecision/cpp_int.hpp>
#include <cctype>

namespace tcemu::cli {

Fmt format_arg(std::string_view name, const char* flag) {
  if (auto f = parse_format(name)) return *f;
  std::string known;
  for (const FormatInfo& fi : kFormats) known += (known.empty() ? "" : ", ") + std::string(fi.name);
  throw InputError(std::string(flag ? std::string(flag) + ": " : "") + "unknown format '" + shown(name) +
                   "' (known: " + known + ")");
}

std::optional<uint64_t> parse_hex(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

uint64_t parse_code(Fmt f, std::string_view tok, const std::string& where) {
  auto v = parse_hex(tok);
  const FormatInfo& fi = info(f);
  if (!v) throw InputError(where + ": '" + shown(tok) + "' is not a hex code");
  if ((*v & ~fi.code_mask()) != 0)
    throw InputError(where + ": code 0x" + shown(tok) + " is wider than " + std::string(fi.name) + " (" +
                     std::to_string(fi.width) + " bits)");
  if (!is_valid_code(f, *v))
    throw InputError(where + ": 0x" + shown(tok) + " is not a " + std::string(fi.name) +
                     " code (its low 13 bits must be zero)");
  return *v;
}

std::string shown(std::string_view tok) {
  if (tok.size() <= 40) return std::string(tok);
  return std::string(tok.substr(0, 32)) + "... (" + std::to_string(tok.size()) + " characters)";
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

namespace {

using boost::multiprecision::cpp_int;

// The digits of a decimal number: value = n * 10^scale, plus a nonzero digit beyond the ones
// kept when `tail`; sig_digits counts the digits of n.
struct DecimalDigits {
  cpp_int n = 0;
  long sig_digits = 0;
  bool tail = false;
  long scale = 0;
};

// digits[.digits][e[+-]digits], the whole of s; nullopt for anything else.
std::optional<DecimalDigits> read_digits(std::string_view s) {
  // At most kMaxDigits significant digits enter the integer n; later ones count only as zero
  // or nonzero (sticky). Every boundary that rounding to a format of tcemu (f64 and narrower) can meet is m * 2^k with m < 2^65 and k >= -1100, whose
  // decimal expansion has fewer than 800 significant digits; a value cut after 1200 digits
  // lies between the same two such boundaries as the whole value, so the result is exact and
  // the time linear in the length of the line. Digits are gathered 18 at a time.
  constexpr long kMaxDigits = 1200;
  DecimalDigits out;
  cpp_int& n = out.n;
  uint64_t chunk = 0;
  int chunk_len = 0;
  long& sig_digits = out.sig_digits;
  bool& tail = out.tail;
  long& scale = out.scale;
  auto flush = [&] {
    static constexpr uint64_t kPow10[19] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                            100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                            1000000000000ull, 10000000000000ull, 100000000000000ull,
                                            1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                            1000000000000000000ull};
    if (chunk_len) n = n * kPow10[chunk_len] + chunk;
    chunk = 0;
    chunk_len = 0;
  };
  // One digit; `fraction` when it lies after the point.
  auto digit = [&](char c, bool fraction) {  // the scale (a long) moves by one per digit at most
    const int d = c - '0';
    if (sig_digits == 0 && d == 0) {  // a leading zero
      if (fraction) --scale;
    } else if (sig_digits < kMaxDigits) {
      ++sig_digits;
      chunk = chunk * 10 + static_cast<uint64_t>(d);
      if (++chunk_len == 18) flush();
      if (fraction) --scale;
    } else {
      tail = tail || d != 0;
      if (!fraction) ++scale;
    }
    return true;
  };
  size_t i = 0;
  bool any = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (!digit(s[i], false)) return std::nullopt;
    ++i;
    any = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (!digit(s[i], true)) return std::nullopt;
      ++i;
      any = true;
    }
  }
  flush();
  if (!any) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) { eneg = s[i] == '-'; ++i; }
    long e = 0;
    bool edig = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      e = std::min(e * 10 + (s[i] - '0'), 100000000L);  // far beyond any format: saturate
      ++i;
      edig = true;
    }
    if (!edig) return std::nullopt;
    scale += eneg ? -e : e;
  }
  if (i != s.size()) return std::nullopt;
  return out;
}

// The binary value of d (n != 0) into v: 64 significant bits, the exponent and sticky.
void to_binary(const DecimalDigits& d, DecimalValue& v) {
  const cpp_int& n = d.n;
  const long sig_digits = d.sig_digits, scale = d.scale;
  // n has sig_digits digits: the value lies in [10^(sig_digits-1+scale), 10^(sig_digits+scale)).
  // Beyond 10^400 every format overflows, below 10^-400 every one underflows (f64 spans
  // 4.9e-324 to 1.8e308): stand-ins of the same side (2^+-1400, with sticky) round the same.
  if (sig_digits - 1 + scale >= 400 || sig_digits + scale <= -400) {
    v.sig = uint64_t{1} << 63;
    v.exp = sig_digits + scale > 0 ? 1400 : -1400;
    v.sticky = true;
    return;
  }
  // Exact binary scaling to at least 64 significant bits, remainder into sticky.
  cpp_int num = n, den = 1;
  if (scale >= 0) num *= boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(scale));
  else den = boost::multiprecision::pow(cpp_int(10), static_cast<unsigned>(-scale));
  long nb = static_cast<long>(msb(num)), db = static_cast<long>(msb(den));
  long shift = 64 + db - nb;  // so that num * 2^shift / den has about 64 or 65 bits
  cpp_int q, r;
  if (shift >= 0) divide_qr(cpp_int(num << shift), den, q, r);
  else divide_qr(num, cpp_int(den << -shift), q, r);
  int exp = static_cast<int>(-shift);
  bool sticky = r != 0 || d.tail;
  while (msb(q) >= 64) { if (bit_test(q, 0)) sticky = true; q >>= 1; ++exp; }
  v.sig = static_cast<uint64_t>(q);
  v.exp = exp;
  v.sticky = sticky;
}

}  // namespace

std::optional<DecimalValue> parse_decimal(std::string_view s) {
  DecimalValue v;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { v.sign = s[0] == '-'; s.remove_prefix(1); }
  if (s.size() <= 8) {
    std::string low;
    for (char c : s) low.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (low == "nan") { v.kind = DecimalValue::nan; return v; }
    if (low == "inf" || low == "infinity") { v.kind = DecimalValue::inf; return v; }
  }
  const std::optional<DecimalDigits> d = read_digits(s);
  if (!d) return std::nullopt;
  if (d->n == 0) return v;
  to_binary(*d, v);
  return v;
}

}  // namespace tcemu::cli
