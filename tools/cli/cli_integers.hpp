// Integer options read as plain decimal numbers in their type's range. CLI11 2.1's own
// conversion (strtoull / strtoll, base 0) saturates on overflow, turns "-1" into 2^64 - 1 for an
// unsigned option and reads "010" as octal 8: a seed of 99999999999999999999999 would run as
// 18446744073709551615 without a word.
#pragma once

#include <CLI/CLI.hpp>

namespace tcemu::cli {

// Adds to every INT / UINT option of `app` and of its subcommands (recursively) a transform, run
// before the option's other checks: its value must be [-]DIGITS (no sign for UINT) within 64
// bits, and is passed on without leading zeros; a narrower option type is then range-checked by
// CLI11's conversion. Call once, after every option is added.
void strict_integer_options(CLI::App& app);

}  // namespace tcemu::cli
