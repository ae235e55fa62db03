// The binary32 operations of a GEMM epilogue (gemm.hpp): multiply and fused multiply-add
// formed exactly and rounded once by the one rounding core (convert.cpp round_value), to
// nearest even, subnormals kept; the add is the datapath's (dp_primitives.hpp add_rne_f32).
// Special values as the CUDA cores give them: any NaN, Inf * 0 and Inf - Inf give the
// canonical NaN 0x7FFFFFFF; an exact zero sum is +0 unless both addends are -0.
#include <cstdint>

#include "dp_primitives.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/gemm.hpp"

namespace tcemu {
namespace {

constexpr uint32_t kNaN = 0x7FFFFFFFu;
constexpr uint32_t kSign = 0x80000000u;
constexpr uint32_t kInf = 0x7F800000u;

uint32_t round_f32(bool neg, uint64_t sig, int exp, bool sticky) {
  ConvertOptions o;  // rn, no satfinite, no ftz
  return static_cast<uint32_t>(round_value(neg, sig, exp, sticky, Fmt::f32, o).code);
}

int width128(unsigned __int128 x) {
  const uint64_t hi = static_cast<uint64_t>(x >> 64);
  return hi ? 64 + dp::bit_width(hi) : dp::bit_width(static_cast<uint64_t>(x));
}

}  // namespace

uint32_t f32_add(uint32_t x, uint32_t y) { return dp::add_rne_f32(x, y); }

uint32_t f32_mul(uint32_t x, uint32_t y) {
  const Operand a = dp::decode_acc(dp::f32_layout(), x), b = dp::decode_acc(dp::f32_layout(), y);
  const bool neg = a.neg != b.neg;
  if (a.special == 2 || b.special == 2) return kNaN;
  if (a.special || b.special) {
    if ((!a.special && a.sig == 0) || (!b.special && b.sig == 0)) return kNaN;  // Inf * 0
    return kInf | (neg ? kSign : 0);
  }
  if (a.sig == 0 || b.sig == 0) return neg ? kSign : 0;
  return round_f32(neg, uint64_t{a.sig} * b.sig, a.low + b.low, false);
}

uint32_t f32_fma(uint32_t x, uint32_t y, uint32_t z) {
  const Operand a = dp::decode_acc(dp::f32_layout(), x), b = dp::decode_acc(dp::f32_layout(), y);
  const Operand c = dp::decode_acc(dp::f32_layout(), z);
  if (a.special == 2 || b.special == 2 || c.special == 2) return kNaN;
  const bool pneg = a.neg != b.neg;
  if (a.special || b.special) {
    if ((!a.special && a.sig == 0) || (!b.special && b.sig == 0)) return kNaN;  // Inf * 0
    if (c.special && c.neg != pneg) return kNaN;                                 // Inf - Inf
    return kInf | (pneg ? kSign : 0);
  }
  if (c.special) return z;
  const uint64_t p = uint64_t{a.sig} * b.sig;
  const int pe = a.low + b.low;
  if (p == 0 && c.sig == 0) return (pneg && c.neg) ? kSign : 0;
  if (p == 0) return z;
  if (c.sig == 0) return round_f32(pneg, p, pe, false);
  // The exact sum: the operand with the higher lowest bit is shifted onto the other; one lying
  // more than 64 bits below keeps its top bits and a sticky bit (it is then far smaller).
  struct Term {
    uint64_t sig;
    int low;
    bool neg;
  };
  Term hi{p, pe, pneg}, lo{c.sig, c.low, c.neg != 0};
  if (hi.low < lo.low) {
    const Term t = hi;
    hi = lo;
    lo = t;
  }
  const int d = hi.low - lo.low;
  unsigned __int128 xa, yb;
  int exp;
  bool sticky = false;
  if (d <= 64) {
    xa = static_cast<unsigned __int128>(hi.sig) << d;
    yb = lo.sig;
    exp = lo.low;
  } else {
    xa = static_cast<unsigned __int128>(hi.sig) << 64;
    exp = hi.low - 64;
    yb = dp::shift_right_sticky(lo.sig, d - 64, &sticky);
  }
  bool neg;
  unsigned __int128 mag;
  if (hi.neg == lo.neg) {
    mag = xa + yb;
    neg = hi.neg;
  } else if (sticky) {  // the true lo is slightly above yb, and xa > yb here
    mag = xa - yb - 1;
    neg = hi.neg;
  } else if (xa >= yb) {
    mag = xa - yb;
    neg = hi.neg;
  } else {
    mag = yb - xa;
    neg = lo.neg;
  }
  if (mag == 0 && !sticky) return 0;  // x + (-x) = +0 under RNE
  const int w = width128(mag);
  if (w > 64) {
    const int sh = w - 64;
    if (mag & ((static_cast<unsigned __int128>(1) << sh) - 1)) sticky = true;
    mag >>= sh;
    exp += sh;
  }
  return round_f32(neg, static_cast<uint64_t>(mag), exp, sticky);
}

}  // namespace tcemu
