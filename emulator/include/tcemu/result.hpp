// The one result type of the library's calls whose errors a user can cause with data or
// names (docs/architecture.md, "Errors"): a value, or a message saying what is wrong.
#pragma once

#include <string>
#include <utility>

namespace tcemu {

// `error` is empty on success; otherwise it names the problem and `value` is T{}.
template <class T>
struct Result {
  T value{};
  std::string error;

  bool ok() const { return error.empty(); }
  static Result failure(std::string message) {
    Result r;
    r.error = std::move(message);
    return r;
  }
};

}  // namespace tcemu
