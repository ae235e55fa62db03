// Command-line helpers of cvt_check and mma_record (cvt_check_args.cpp, mma_record_args.cpp):
// host code only (CLI11 is not compiled by nvcc), header-only so that the builds without CMake
// (crossval.sh, device_check.sh) compile one more .cpp per program and nothing else.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tcemu_gpu::check_args {

// A transform for an integer option, run before its range check: the value must be [-]DIGITS
// within 64 bits and is passed on without leading zeros. CLI11 2.1's own conversion reads in
// base 0 (010 as octal 8, 0x10 as 16) and saturates on overflow.
inline CLI::Validator decimal_integer() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const size_t first = s.size() > 1 && s[0] == '-' ? 1 : 0;
        const bool digits = !s.empty() && s.find_first_not_of("0123456789", first) == std::string::npos;
        long long v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (!digits || ec != std::errc() || end != s.data() + s.size())
          return "'" + s + "' is not a decimal integer within 64 bits";
        s = std::to_string(v);
        return "";
      },
      "");
}

// A check for a real-number option: the whole value is a number (strtod's syntax) from lo to
// hi. CLI::Range lets NaN through (no comparison with NaN is true) and prints its bounds with
// six decimals.
inline CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !std::isfinite(d) || d < lo || d > hi) {
          char bounds[64];
          std::snprintf(bounds, sizeof bounds, "%g to %g", lo, hi);
          return "'" + s + "' is not a number from " + bounds;
        }
        return "";
      },
      "");
}

// Parses the command line: -1 when the program is to run; 0 after --help (printed on stdout);
// 2 after a bad command line, with one line on stderr that names the option.
inline int parse(CLI::App& app, int argc, char** argv, const char* prog) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "%s: %s (%s --help lists the options)\n", prog, e.what(), prog);
    return 2;
  }
}

}  // namespace tcemu_gpu::check_args
