// GoogleTest matchers for codes: bit-exact comparison with a failure message that decodes the
// first mismatches and gives their distance in ulps, and the NaN-aware and ulp-tolerant
// variants for suites migrating from tolerance-based checks.
//
//   EXPECT_THAT(kernel_out, BitExact(Fmt::e4m3, expected_codes));   // arrays of any integer type
//   EXPECT_THAT(y, BitExact(1.0f));                                  // float / double by bits
//   EXPECT_THAT(d, NanAware(Fmt::f32, ref));     // any NaN code matches any NaN code
//   EXPECT_THAT(d, WithinUlps(2, Fmt::bf16, ref));  // |ulp distance| <= 2, +0 == -0, NaN == NaN
//   EXPECT_THAT(tcemu::testing::converts_like(spec, fn), Holds());  // a property of properties.hpp
//
// Expectations: (Fmt, code), (Fmt, range of codes), Code, Codes, float/double, or a range of
// floats/doubles. Actual values: an integer, float or double, Code, Codes, or a range of
// those (std::vector, std::array, std::span ...). Integers are codes in their low bits
// (signed types as their two's complement bits); any other bit set is a mismatch.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gmock/gmock.h>

#include "tcemu/format.hpp"
#include "tcemu/testing/code.hpp"
#include "tcemu/testing/properties.hpp"

namespace tcemu::testing {

enum class MatchMode : uint8_t {
  bit_exact,    // every bit
  nan_aware,    // bit for bit, except that any NaN code matches any NaN code
  within_ulps,  // NaN matches NaN; numbers at most `ulps` codes apart (+0 and -0 are 0 apart)
};

struct MatchReport {
  bool ok = true;
  std::string explanation;  // empty when ok
};

// The comparison behind the matchers. `scalar` words the message for one value; at most
// `show` mismatches are listed.
MatchReport compare_codes(Fmt f, std::span<const uint64_t> expected, std::span<const uint64_t> actual, MatchMode mode,
                          uint64_t ulps, bool scalar, size_t show = 8);
std::string describe_expectation(Fmt f, std::span<const uint64_t> expected, MatchMode mode, uint64_t ulps, bool scalar);

namespace detail {

// The format a C++ element type implies (float: f32, double: f64), if any.
template <class E>
constexpr std::optional<Fmt> natural_format() {
  if constexpr (std::is_same_v<E, float>) return Fmt::f32;
  else if constexpr (std::is_same_v<E, double>) return Fmt::f64;
  else return std::nullopt;
}

template <class E>
uint64_t to_bits(const E& e) {
  if constexpr (std::is_same_v<E, Code>) return e.bits;
  else if constexpr (std::is_same_v<E, bool>) return e ? 1 : 0;
  else if constexpr (std::is_integral_v<E>) return static_cast<uint64_t>(static_cast<std::make_unsigned_t<E>>(e));
  else if constexpr (std::is_same_v<E, float>) return std::bit_cast<uint32_t>(e);
  else if constexpr (std::is_same_v<E, double>) return std::bit_cast<uint64_t>(e);
  else {  // a 2-byte half type or similar: its bits
    uint64_t b = 0;
    std::memcpy(&b, &e, sizeof(E));
    return b;
  }
}

// Collects the codes of an actual value; `note` is set when its type cannot hold fmt's codes.
template <class T>
bool collect(const T& actual, Fmt fmt, std::vector<uint64_t>& out, bool& scalar, std::string& note) {
  using U = std::remove_cvref_t<T>;
  auto check_type = [&](auto tag) {
    using E = decltype(tag);
    constexpr auto nat = natural_format<E>();
    if (nat && *nat != fmt && !(*nat == Fmt::f32 && fmt == Fmt::tf32)) {
      note = "the values are ";
      note += info(*nat).name;
      note += " (by their C++ type) but the expectation is ";
      note += info(fmt).name;
      note += " codes";
      return false;
    }
    return true;
  };
  if constexpr (std::is_same_v<U, Codes>) {
    scalar = false;
    out = actual.bits;
    if (actual.fmt != fmt) {
      note = "the actual codes are ";
      note += info(actual.fmt).name;
      note += ", the expectation ";
      note += info(fmt).name;
      return false;
    }
    return true;
  } else if constexpr (std::ranges::range<U>) {
    using E = std::remove_cvref_t<std::ranges::range_value_t<U>>;
    scalar = false;
    if (!check_type(E{})) return false;
    for (const auto& e : actual) out.push_back(to_bits<E>(e));
    return true;
  } else {
    scalar = true;
    if constexpr (std::is_same_v<U, Code>) {
      if (actual.fmt != fmt) {
        note = "the actual code is ";
        note += info(actual.fmt).name;
        note += ", the expectation ";
        note += info(fmt).name;
        return false;
      }
    }
    if (!check_type(U{})) return false;
    out.push_back(to_bits<U>(actual));
    return true;
  }
}

}  // namespace detail

// What a code matcher expects.
struct Expectation {
  Fmt fmt = Fmt::f32;
  std::vector<uint64_t> codes;
  bool scalar = true;
  MatchMode mode = MatchMode::bit_exact;
  uint64_t ulps = 0;
};

namespace detail {
template <class T>
class CodesMatcherImpl : public ::testing::MatcherInterface<T> {
 public:
  explicit CodesMatcherImpl(Expectation e) : e_(std::move(e)) {}
  bool MatchAndExplain(T actual, ::testing::MatchResultListener* listener) const override {
    std::vector<uint64_t> got;
    bool scalar = e_.scalar;
    std::string note;
    if (!collect(actual, e_.fmt, got, scalar, note)) {
      *listener << note;
      return false;
    }
    const MatchReport r = compare_codes(e_.fmt, e_.codes, got, e_.mode, e_.ulps, scalar && e_.scalar);
    if (!r.ok) *listener << r.explanation;
    return r.ok;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << describe_expectation(e_.fmt, e_.codes, e_.mode, e_.ulps, e_.scalar);
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is not (" << describe_expectation(e_.fmt, e_.codes, e_.mode, e_.ulps, e_.scalar) << ")";
  }

 private:
  Expectation e_;
};
}  // namespace detail

// A matcher over codes of one format; converts to ::testing::Matcher<T> for any actual type
// that `detail::collect` understands.
class CodesMatcher {
 public:
  CodesMatcher(Fmt f, std::vector<uint64_t> expected, bool scalar, MatchMode mode, uint64_t ulps)
      : e_{f, std::move(expected), scalar, mode, ulps} {}

  template <class T>
  operator ::testing::Matcher<T>() const {  // NOLINT: implicit, as gmock's polymorphic matchers
    return ::testing::Matcher<T>(new detail::CodesMatcherImpl<T>(e_));
  }
  const Expectation& expectation() const { return e_; }

 private:
  Expectation e_;
};

namespace detail {

inline CodesMatcher make(MatchMode m, uint64_t u, Fmt f, uint64_t code) { return {f, {code}, true, m, u}; }
inline CodesMatcher make(MatchMode m, uint64_t u, const Code& c) { return {c.fmt, {c.bits}, true, m, u}; }
inline CodesMatcher make(MatchMode m, uint64_t u, const Codes& c) { return {c.fmt, c.bits, false, m, u}; }
inline CodesMatcher make(MatchMode m, uint64_t u, float v) { return {Fmt::f32, {to_bits(v)}, true, m, u}; }
inline CodesMatcher make(MatchMode m, uint64_t u, double v) { return {Fmt::f64, {to_bits(v)}, true, m, u}; }
template <std::ranges::range R>
CodesMatcher make(MatchMode m, uint64_t u, Fmt f, const R& codes) {
  using E = std::remove_cvref_t<std::ranges::range_value_t<R>>;
  std::vector<uint64_t> v;
  for (const auto& e : codes) v.push_back(to_bits<E>(e));
  return {f, std::move(v), false, m, u};
}
template <std::ranges::range R>
  requires std::is_floating_point_v<std::remove_cvref_t<std::ranges::range_value_t<R>>>
CodesMatcher make(MatchMode m, uint64_t u, const R& values) {
  using E = std::remove_cvref_t<std::ranges::range_value_t<R>>;
  return make(m, u, *natural_format<E>(), values);
}

}  // namespace detail

// Every bit equal.
template <class... A>
CodesMatcher BitExact(const A&... expected) {
  return detail::make(MatchMode::bit_exact, 0, expected...);
}
// Bit for bit, but any NaN matches any NaN (payloads and signs of NaNs ignored).
template <class... A>
CodesMatcher NanAware(const A&... expected) {
  return detail::make(MatchMode::nan_aware, 0, expected...);
}
// At most `ulps` representable values apart; NaN matches NaN; +0 matches -0.
template <class... A>
CodesMatcher WithinUlps(uint64_t ulps, const A&... expected) {
  return detail::make(MatchMode::within_ulps, ulps, expected...);
}

// A PropertyResult that passed; on failure the message is the shrunk counterexample.
class HoldsMatcher {
 public:
  using is_gtest_matcher = void;
  bool MatchAndExplain(const PropertyResult& r, std::ostream* os) const {
    if (!r.passed && os) *os << "\n" << r.to_string();
    return r.passed;
  }
  void DescribeTo(std::ostream* os) const { *os << "is a property that holds"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is a property that fails"; }
};
inline HoldsMatcher Holds() { return {}; }

// gtest prints Code values through this.
inline void PrintTo(const Code& c, std::ostream* os) { *os << describe(c); }
inline void PrintTo(const PropertyResult& r, std::ostream* os) { *os << (r.passed ? "passed" : "failed"); }

}  // namespace tcemu::testing
