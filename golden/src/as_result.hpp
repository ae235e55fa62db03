// The Result forms of the golden library's calls (docs/architecture.md, "Errors"): the
// throwing form run, and a GoldenError or io::NpyError it throws for the user's data returned
// as the Result's error with the exception's message unchanged. Other exceptions (a violated
// precondition stated in a header) pass through.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "tcemu/result.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::golden::detail {

template <class F>
auto as_result(F&& f) -> Result<std::invoke_result_t<F&>> {
  using R = Result<std::invoke_result_t<F&>>;
  try {
    return R{f(), {}};
  } catch (const GoldenError& e) {
    return R::failure(e.what());
  } catch (const io::NpyError& e) {
    return R::failure(e.what());
  }
}

// For the calls that return nothing: the message, empty on success.
template <class F>
std::string as_error(F&& f) {
  try {
    f();
    return {};
  } catch (const GoldenError& e) {
    return e.what();
  } catch (const io::NpyError& e) {
    return e.what();
  }
}

}  // namespace tcemu::golden::detail
