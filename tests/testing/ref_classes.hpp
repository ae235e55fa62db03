// What a drawn code is, decided by the exact reference (tcemu_reference, Boost), never by the
// toolkit's own code: the categories each generator promises are measured with these.
#pragma once

#include <cstdint>
#include <optional>

#include "tcemu/format.hpp"
#include "tcemu_ref/exact.hpp"

namespace tk_test {

using tcemu::Fmt;

// The code one step up or down in magnitude order (sign-magnitude floats; integers by value),
// from the reference's own format parameters; nullopt past the end.
std::optional<uint64_t> step(Fmt f, uint64_t code, int dir);
// Is the value of src code x exactly the midpoint of two neighbouring values of dst?
bool is_tie(Fmt src, Fmt dst, uint64_t x);
// The value of a finite code as an exact rational.
tcemu::ref::cpp_rational value(Fmt f, uint64_t code);
bool is_nan(Fmt f, uint64_t code);
bool is_inf(Fmt f, uint64_t code);
bool is_finite(Fmt f, uint64_t code);
bool negative(Fmt f, uint64_t code);

}  // namespace tk_test
