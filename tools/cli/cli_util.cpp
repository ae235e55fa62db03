#include "cli_util.hpp"

#include <boost/multiprecision/cpp_int.hpp>
#include <cctype>

namespace tcemu::cli {

Fmt format_arg(std::string_view name) {
  if (auto f = parse_format(name)) return *f;
  std::string known;
  for (const FormatInfo& fi : kFormats) known += (known.empty() ? "" : ", ") + std::string(fi.name);
  throw InputError("unknown format '" + std::string(name) + "' (known: " + known + ")");
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
  if (!v) throw InputError(where + ": '" + std::string(tok) + "' is not a hex code");
  if ((*v & ~fi.code_mask()) != 0)
    throw InputError(where + ": code 0x" + std::string(tok) + " is wider than " + std::string(fi.name) + " (" +
                     std::to_string(fi.width) + " bits)");
  if (!is_valid_code(f, *v))
    throw InputError(where + ": 0x" + std::string(tok) + " is not a " + std::string(fi.name) +
                     " code (its low 13 bits must be zero)");
  return *v;
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

std::optional<DecimalValue> parse_decimal(std::string_view s) {
  using boost::multiprecision::cpp_int;
  DecimalValue v;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) { v.sign = s[0] == '-'; s.remove_prefix(1); }
  std::string low;
  for (char c : s) low.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (low == "nan") { v.kind = DecimalValue::nan; return v; }
  if (low == "inf" || low == "infinity") { v.kind = DecimalValue::inf; return v; }
  // digits[.digits][e[+-]digits]
  cpp_int n = 0;
  long scale = 0;  // value = n * 10^scale
  size_t i = 0;
  bool any = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) { n = n * 10 + (s[i] - '0'); ++i; any = true; }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      n = n * 10 + (s[i] - '0'); --scale; ++i; any = true;
    }
  }
  if (!any) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) { eneg = s[i] == '-'; ++i; }
    long e = 0;
    bool edig = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      e = e * 10 + (s[i] - '0'); ++i; edig = true;
      if (e > 100000) return std::nullopt;
    }
    if (!edig) return std::nullopt;
    scale += eneg ? -e : e;
  }
  if (i != s.size()) return std::nullopt;
  if (n == 0) return v;
  if (scale < -100000 || scale > 100000) return std::nullopt;
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
  bool sticky = r != 0;
  while (msb(q) >= 64) { if (bit_test(q, 0)) sticky = true; q >>= 1; ++exp; }
  v.sig = static_cast<uint64_t>(q);
  v.exp = exp;
  v.sticky = sticky;
  return v;
}

}  // namespace tcemu::cli
