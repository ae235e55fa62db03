// Helpers shared by the subcommands: parsing formats and hex codes with clear errors.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tcemu/format.hpp"
#include "tcemu/result.hpp"

namespace tcemu::cli {

// An input error: the message names the problem; main() prints it and exits with status 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The value of a Result (the golden library's try_<name> calls, ...), or InputError carrying
// its error unchanged (exit 2); `prefix` goes before the message where given.
template <class T>
T value_of(Result<T>&& r, const std::string& prefix = {}) {
  if (!r.ok()) throw InputError(prefix + r.error);
  return std::move(r.value);
}
// The same for the calls that return the message, empty on success.
inline void check_error(const std::string& error) {
  if (!error.empty()) throw InputError(error);
}

// A format name, or InputError listing the known names (after "FLAG: " where a flag is given).
Fmt format_arg(std::string_view name, const char* flag = nullptr);

// Parses one hex number ("7f", "0x7F"); nullopt if it is not hex or has more than 16 digits.
std::optional<uint64_t> parse_hex(std::string_view s);

// Parses a hex code of format f, checking that it fits the format; throws InputError naming
// `where` (e.g. "line 3") and the problem.
uint64_t parse_code(Fmt f, std::string_view tok, const std::string& where);

// A token quoted in an error message: at most 40 characters, longer ones cut with their length.
std::string shown(std::string_view tok);

// Splits on blanks.
std::vector<std::string_view> words(std::string_view line);

// An exact decimal number (or "nan", "inf", "-inf"), as a 64-bit significand, an exponent
// and a sticky bit: value = sig * 2^exp, plus a nonzero tail below sig's last bit when sticky.
struct DecimalValue {
  enum Kind { finite, inf, nan } kind = finite;
  bool sign = false;
  uint64_t sig = 0;
  int exp = 0;
  bool sticky = false;
};
std::optional<DecimalValue> parse_decimal(std::string_view s);

}  // namespace tcemu::cli
