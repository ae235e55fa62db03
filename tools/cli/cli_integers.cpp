#include "cli_integers.hpp"

#include <charconv>
#include <cstdint>
#include <string>

#include "cli_util.hpp"

namespace tcemu::cli {
namespace {

// "" when s is a decimal number that T holds (then rewritten without leading zeros, which
// CLI11's base-0 conversion would read as octal), else the reason.
template <typename T>
std::string decimal_error(std::string& s) {
  const bool digits = !s.empty() && s.find_first_not_of("0123456789", s[0] == '-' && s.size() > 1 ? 1 : 0) == std::string::npos;
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (digits && ec == std::errc() && end == s.data() + s.size()) {
    s = std::to_string(v);
    return "";
  }
  const std::string range = std::is_signed_v<T> ? "a decimal integer" : "a non-negative decimal integer";
  if (digits && ec == std::errc::result_out_of_range) return "'" + shown(s) + "' is out of range (" + range + " of 64 bits)";
  return "'" + shown(s) + "' is not " + range;
}

}  // namespace

void strict_integer_options(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    const std::string t = o->get_type_name();
    if (t.rfind("UINT", 0) == 0)
      o->transform(CLI::Validator([](std::string& s) { return decimal_error<uint64_t>(s); }, ""));
    else if (t.rfind("INT", 0) == 0)
      o->transform(CLI::Validator([](std::string& s) { return decimal_error<int64_t>(s); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) strict_integer_options(*sub);
}

}  // namespace tcemu::cli
