// The comparison and the messages of the code matchers (matchers.hpp).
#include "tcemu/testing/matchers.hpp"

#include <sstream>

namespace tcemu::testing {

namespace {

// A code as it appears in a message; bits outside the format are shown raw.
std::string show_code(Fmt f, uint64_t c) {
  if (is_valid_code(f, c)) return "0x" + to_hex(f, c) + " (" + value_string(f, c) + ")";
  std::ostringstream os;
  os << "0x" << std::hex << c << std::dec << " (not a code of " << info(f).name << ")";
  return os.str();
}

bool is_nan(Fmt f, uint64_t c) { return is_valid_code(f, c) && classify(f, c) == Class::nan; }

bool element_matches(Fmt f, uint64_t want, uint64_t got, MatchMode mode, uint64_t ulps) {
  if (want == got) return true;
  if (mode == MatchMode::bit_exact || !is_valid_code(f, got)) return false;
  if (is_nan(f, want) || is_nan(f, got)) return is_nan(f, want) && is_nan(f, got);
  if (mode == MatchMode::nan_aware) return false;
  const auto d = ulp_distance(f, want, got);
  return d && *d <= ulps;
}

std::string distance_words(Fmt f, uint64_t want, uint64_t got) {
  if (!is_valid_code(f, got)) return "";
  const auto d = ulp_distance(f, want, got);
  if (!d) return ", not comparable in ulps (NaN)";
  std::string s = ", ";
  s += std::to_string(*d);
  s += *d == 1 ? " ulp apart" : " ulps apart";
  return s;
}

}  // namespace

std::string describe_expectation(Fmt f, std::span<const uint64_t> expected, MatchMode mode, uint64_t ulps, bool scalar) {
  std::ostringstream os;
  switch (mode) {
    case MatchMode::bit_exact: os << "is bit-exact to "; break;
    case MatchMode::nan_aware: os << "is bit-exact (any NaN matching any NaN) to "; break;
    case MatchMode::within_ulps: os << "is within " << ulps << (ulps == 1 ? " ulp" : " ulps") << " of "; break;
  }
  if (scalar && expected.size() == 1) {
    os << describe(f, expected[0]);
  } else {
    os << expected.size() << " " << info(f).name << " codes";
    const size_t n = std::min<size_t>(expected.size(), 4);
    if (n) os << " [";
    for (size_t i = 0; i < n; ++i) os << (i ? ", " : "") << show_code(f, expected[i]);
    if (n) os << (expected.size() > n ? ", ...]" : "]");
  }
  return os.str();
}

MatchReport compare_codes(Fmt f, std::span<const uint64_t> expected, std::span<const uint64_t> actual, MatchMode mode,
                          uint64_t ulps, bool scalar, size_t show) {
  MatchReport r;
  std::ostringstream os;
  if (expected.size() != actual.size()) {
    r.ok = false;
    os << "has " << actual.size() << " elements, expected " << expected.size();
    r.explanation = os.str();
    return r;
  }
  if (scalar && expected.size() == 1) {
    if (element_matches(f, expected[0], actual[0], mode, ulps)) return r;
    r.ok = false;
    os << "expected " << info(f).name << " " << show_code(f, expected[0]) << ", actual " << show_code(f, actual[0])
       << distance_words(f, expected[0], actual[0]);
    r.explanation = os.str();
    return r;
  }
  size_t bad = 0;
  uint64_t worst = 0;
  bool worst_known = false;
  std::ostringstream lines;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (element_matches(f, expected[i], actual[i], mode, ulps)) continue;
    if (bad < show) {
      lines << "\n  [" << i << "] expected " << show_code(f, expected[i]) << ", actual " << show_code(f, actual[i])
            << distance_words(f, expected[i], actual[i]);
    }
    if (is_valid_code(f, actual[i])) {
      if (const auto d = ulp_distance(f, expected[i], actual[i]); d && *d > worst) {
        worst = *d;
        worst_known = true;
      }
    }
    ++bad;
  }
  if (bad == 0) return r;
  r.ok = false;
  os << bad << " of " << expected.size() << " " << info(f).name << " elements differ";
  if (worst_known) os << " (largest distance " << worst << (worst == 1 ? " ulp)" : " ulps)");
  os << "; " << (bad > show ? "first mismatches:" : "mismatches:") << lines.str();
  r.explanation = os.str();
  return r;
}

}  // namespace tcemu::testing
