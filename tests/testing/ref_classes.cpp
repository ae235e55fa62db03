#include "ref_classes.hpp"

#include "tcemu_ref/convert_ref.hpp"

namespace tk_test {

using namespace tcemu::ref;

std::optional<uint64_t> step(Fmt f, uint64_t code, int dir) {
  const FormatParams& p = params(f);
  if (p.is_int) {
    const int64_t lo = p.int_min, hi = p.int_max;
    int64_t v = static_cast<int64_t>(exact_value(f, code).mant) * (exact_value(f, code).sign ? -1 : 1);
    v += dir;
    if (v < lo || v > hi) return std::nullopt;
    return static_cast<uint64_t>(v) & p.code_mask();
  }
  const uint64_t unit = uint64_t{1} << p.pad_bits;
  const bool neg = (code & p.sign_bit()) != 0;
  const uint64_t mag = code & ~p.sign_bit();
  // Moving up: a positive grows, a negative shrinks (toward -0, then +unit).
  if ((dir > 0) != neg) {
    const uint64_t next = mag + unit;
    if (next > (p.code_mask() & ~p.sign_bit())) return std::nullopt;
    return next | (neg ? p.sign_bit() : 0);
  }
  if (mag == 0) {
    if (!p.is_signed) return std::nullopt;
    return unit | (neg ? 0 : p.sign_bit());  // past zero to the other side
  }
  return (mag - unit) | (neg ? p.sign_bit() : 0);
}

cpp_rational value(Fmt f, uint64_t code) { return to_rational(exact_value(f, code)); }
bool is_nan(Fmt f, uint64_t code) { return exact_value(f, code).kind == Exact::nan; }
bool is_inf(Fmt f, uint64_t code) { return exact_value(f, code).kind == Exact::inf; }
bool is_finite(Fmt f, uint64_t code) { return exact_value(f, code).kind == Exact::finite; }
bool negative(Fmt f, uint64_t code) {
  const Exact e = exact_value(f, code);
  return e.sign && e.kind != Exact::nan;
}

bool is_tie(Fmt src, Fmt dst, uint64_t x) {
  if (!is_finite(src, x)) return false;
  tcemu::ConvertOptions down, up;
  down.round = tcemu::Round::rd;
  up.round = tcemu::Round::ru;
  const uint64_t a = tcemu::ref::convert(src, dst, x, down).code, b = tcemu::ref::convert(src, dst, x, up).code;
  if (!is_finite(dst, a) || !is_finite(dst, b)) return false;
  const cpp_rational va = value(dst, a), vb = value(dst, b);
  return va != vb && 2 * value(src, x) == va + vb;
}

}  // namespace tk_test
