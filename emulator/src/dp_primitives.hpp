// Internal: the arithmetic primitives every tensor-core datapath model is built from, in one
// place (the role of SoftFloat's primitives.h). The step functions of datapath.cpp, the
// whole-matrix kernels of mma_fast_kernels.hpp and, through mma(), compare's alternative
// models all call these; docs/datapath.md names the stages they implement.
//
// Written so that it also compiles as CUDA __host__ __device__ code (TCEMU_DP_HD): only <cstdint>
// and plain structs in the interfaces, no standard-library calls, no exceptions, no
// allocation. tests/datapath/dp_primitives_nvcc.cu compiles it with nvcc where one exists.
//
// Conventions shared by every function here:
//  - an exact value is (-1)^neg * mag * 2^exp with mag an unsigned integer; mag == 0 is zero;
//  - "code" is the bit pattern of the result format, the sign in its top bit;
//  - nothing here throws or checks its arguments: each function states its preconditions, and
//    the callers (validate() and the problem checks of mma_params) guarantee them.
#pragma once

#include <cstdint>

#include "tcemu/datapath_types.hpp"

#if defined(__CUDACC__)
#define TCEMU_DP_HD __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define TCEMU_DP_HD inline __attribute__((always_inline))
#else
#define TCEMU_DP_HD inline
#endif

namespace tcemu::dp {

// ---- small integer helpers -----------------------------------------------------------------

TCEMU_DP_HD int imax(int a, int b) { return a > b ? a : b; }
TCEMU_DP_HD int imin(int a, int b) { return a < b ? a : b; }
TCEMU_DP_HD int iclamp(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Number of bits needed to hold x (0 for x == 0): floor(log2 x) + 1.
TCEMU_DP_HD int bit_width(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(x));
#else
  return x ? 64 - __builtin_clzll(x) : 0;
#endif
}

// t with the sign `neg` (bit 0) applied, as a two's-complement int64, without a branch.
// Precondition: t <= 2^63 (t == 2^63 only with neg).
TCEMU_DP_HD int64_t apply_sign(uint64_t t, unsigned neg) {
  const int64_t m = -static_cast<int64_t>(neg & 1);  // 0 or all ones
  return (static_cast<int64_t>(t) ^ m) - m;
}

// |S| and its sign, for an exact sum held as int64 (S == INT64_MIN gives 2^63).
TCEMU_DP_HD uint64_t magnitude(int64_t S) { return S < 0 ? 0 - static_cast<uint64_t>(S) : static_cast<uint64_t>(S); }

// ---- shifts ----------------------------------------------------------------------------------

// Alignment with truncation: trunc0(mag * 2^sh), for any sh (the bits shifted out below 2^0
// are dropped, toward zero, as the truncated fused sum of docs/datapath.md §1 does). sh >= 64 gives 0
// (callers never ask to shift a nonzero magnitude that far up; a zero may ask anything).
TCEMU_DP_HD uint64_t shift_trunc(uint64_t mag, int sh) {
  if (sh >= 0) return sh >= 64 ? 0 : mag << sh;
  return sh <= -64 ? 0 : mag >> -sh;
}

// The same without branches, for the hot loops: both shifts are formed and one is kept.
// Preconditions: sh <= 63, and mag < 2^63 (then every sh <= -63 gives 0, as shift_trunc).
TCEMU_DP_HD uint64_t align_trunc(uint64_t mag, int sh) {
  const uint64_t left = mag << (sh & 63);
  const uint64_t right = mag >> iclamp(-sh, 0, 63);
  return sh >= 0 ? left : right;
}

// One term aligned to 2^q and signed: apply_sign(trunc0(mag * 2^(low - q)), neg).
// Preconditions as align_trunc's for sh = low - q.
TCEMU_DP_HD int64_t aligned_term(uint64_t mag, int low, unsigned neg, int q) {
  return apply_sign(align_trunc(mag, low - q), neg);
}

// Shift right with the shifted-out bits kept as a sticky flag (SoftFloat's shiftRightJam,
// with the sticky bit returned separately instead of jammed into bit 0): returns x >> sh and
// sets *sticky to whether any bit shifted out was 1. sh >= 0; sh >= 64 returns 0 with
// *sticky = (x != 0).
TCEMU_DP_HD uint64_t shift_right_sticky(uint64_t x, int sh, bool* sticky) {
  if (sh <= 0) {
    *sticky = false;
    return x;
  }
  if (sh >= 64) {
    *sticky = x != 0;
    return 0;
  }
  *sticky = (x & ((uint64_t{1} << sh) - 1)) != 0;
  return x >> sh;
}

// ---- binary float layouts (the accumulator formats and any IEEE-like target) ---------------

// An IEEE-like binary format with Inf: man fraction bits, ebits exponent bits, width bits in
// all; emin / emax the exponents of the smallest / largest normal binade.
struct FloatLayout {
  int man, ebits, width, emin, emax;
};
// Functions rather than constants: a constexpr object is not usable in device code by reference.
TCEMU_DP_HD FloatLayout f32_layout() { return FloatLayout{23, 8, 32, -126, 127}; }
TCEMU_DP_HD FloatLayout f16_layout() { return FloatLayout{10, 5, 16, -14, 15}; }

TCEMU_DP_HD uint64_t sign_bit(const FloatLayout& f) { return uint64_t{1} << (f.width - 1); }
TCEMU_DP_HD uint64_t inf_code(const FloatLayout& f, bool neg) {
  return (neg ? sign_bit(f) : 0) | (((uint64_t{1} << f.ebits) - 1) << f.man);
}
// The canonical NaN the tensor cores return: every bit but the sign (0x7FFF, 0x7FFFFFFF).
TCEMU_DP_HD uint64_t nan_code(const FloatLayout& f) { return sign_bit(f) - 1; }

// The format of C and D for an output rounding: f16 for rne_f16 and rz_f16, else f32.
TCEMU_DP_HD bool output_is_f16(OutputRounding r) { return r == OutputRounding::rne_f16 || r == OutputRounding::rz_f16; }
TCEMU_DP_HD FloatLayout output_layout(OutputRounding r) { return output_is_f16(r) ? f16_layout() : f32_layout(); }

// ---- accumulator decode ------------------------------------------------------------------------

// An accumulator code (f32 or f16) decoded with plain bit operations: sig, low and E as
// decode_operand gives them for a finite nonzero value (a subnormal read at emin), sig 0 for
// a zero, special 1 for Inf and 2 for NaN (sig, low, E then 0).
TCEMU_DP_HD Operand decode_acc(const FloatLayout& f, uint64_t c) {
  const int bias = (1 << (f.ebits - 1)) - 1;
  Operand o;
  o.neg = static_cast<uint8_t>((c >> (f.width - 1)) & 1);
  const uint64_t eb = (c >> f.man) & ((uint64_t{1} << f.ebits) - 1);
  const uint64_t fr = c & ((uint64_t{1} << f.man) - 1);
  if (eb == (uint64_t{1} << f.ebits) - 1) {
    o.special = fr ? 2 : 1;
    return o;
  }
  if (eb == 0) {
    o.sig = static_cast<uint32_t>(fr);
    o.low = static_cast<int16_t>(1 - bias - f.man);
  } else {
    o.sig = static_cast<uint32_t>(fr | (uint64_t{1} << f.man));
    o.low = static_cast<int16_t>(static_cast<int>(eb) - bias - f.man);
  }
  o.E = static_cast<int16_t>(o.low + f.man);
  return o;
}

// ---- rounding out -------------------------------------------------------------------------------

// Rounds (-1)^neg * (mag + sticky') * 2^exp to the format f, toward zero or to nearest even,
// where sticky' is "some nonzero amount below mag's lowest bit" when sticky. Subnormal results
// are kept (no flush). A finite result beyond the range gives Inf under RZ and RNE alike (the
// tensor cores do, docs/datapath.md §1). mag == 0 gives +0 without sticky and a signed zero with it.
// Preconditions: f's fields are consistent (man + ebits + 1 == width for a signed format).
TCEMU_DP_HD uint64_t round_out(const FloatLayout& f, bool neg, uint64_t mag, int exp, bool sticky, bool nearest_even) {
  const int lsb_min = f.emin - f.man;
  const uint64_t sign = neg ? sign_bit(f) : 0;
  const uint64_t inf = ((uint64_t{1} << f.ebits) - 1) << f.man;
  if (mag == 0) return sticky ? sign : 0;
  const int top = exp + bit_width(mag) - 1;  // floor(log2 |value|)
  if (top > f.emax) return sign | inf;        // >= 2^(emax+1): Inf under RZ and RNE alike
  const int lsb = imax(top - f.man, lsb_min);  // weight of the result's lowest bit
  uint64_t q;
  if (lsb <= exp) {
    q = mag << (exp - lsb);
  } else {
    const int sh = lsb - exp;
    q = sh >= 64 ? 0 : mag >> sh;
    if (nearest_even) {
      bool up;
      if (sh > 64) {
        up = false;
      } else if (sh == 64) {
        up = mag > (uint64_t{1} << 63) || (mag == (uint64_t{1} << 63) && sticky);
      } else {
        const uint64_t rem = mag & ((uint64_t{1} << sh) - 1);
        const uint64_t half = uint64_t{1} << (sh - 1);
        up = rem > half || (rem == half && (sticky || (q & 1)));
      }
      q += up ? 1 : 0;
    }
  }
  // Adding the biased exponent lets a carry out of the significand step into the next binade.
  uint64_t code = q + (static_cast<uint64_t>(lsb - lsb_min) << f.man);
  if (code >= inf) code = inf;
  return sign | code;
}

// rho of docs/datapath.md §1 applied to the exact value (-1)^neg * mag * 2^exp. An exact zero sum
// gives +0 whatever its sign ([MS]); rz_e8m13 is RZ to f32 with the low 10 fraction bits
// cleared (a result below f32's normal range keeps the f32 subnormal grid coarsened by 2^10).
TCEMU_DP_HD uint64_t round_output(OutputRounding r, bool neg, uint64_t mag, int exp) {
  if (mag == 0) return 0;
  switch (r) {
    case OutputRounding::rz_f32: return round_out(f32_layout(), neg, mag, exp, false, false);
    case OutputRounding::rne_f16: return round_out(f16_layout(), neg, mag, exp, false, true);
    case OutputRounding::rz_e8m13: return round_out(f32_layout(), neg, mag, exp, false, false) & ~uint64_t{0x3FF};
    case OutputRounding::rne_f32: return round_out(f32_layout(), neg, mag, exp, false, true);
    case OutputRounding::rz_f16: return round_out(f16_layout(), neg, mag, exp, false, false);
  }
  return 0;
}

// ---- sign and -0 rules --------------------------------------------------------------------------

// DatapathParams::positive_zero: a result that rounded to -0 (a nonzero sum below the smallest
// subnormal, truncated) is +0 when `on` (H200, docs/hw-h200.md); otherwise the sign is kept.
// An exact zero sum is +0 in either case (round_output).
TCEMU_DP_HD uint64_t positive_zero_rule(bool on, const FloatLayout& out, uint64_t d) {
  return (on && d == sign_bit(out)) ? 0 : d;
}

// The end of every floating-point step: the exact sum S * 2^q rounded by rho, then the -0
// rule. Precondition: S is the exact (untruncated) int64 sum of the aligned terms.
TCEMU_DP_HD uint64_t round_sum(OutputRounding r, bool positive_zero, int64_t S, int q) {
  const uint64_t d = round_output(r, S < 0, magnitude(S), q);
  return positive_zero_rule(positive_zero, output_layout(r), d);
}

// ---- special results (docs/datapath.md §1) ------------------------------------------------------------

// What a step's NaN and Inf inputs make of its result. Any NaN (operand, scale or C), a term
// with an Inf factor and a zero factor (Inf * 0, also Inf times a zero scale), or +Inf with
// -Inf give NaN; otherwise the Inf's sign.
struct SpecialScan {
  bool nan = false, pos_inf = false, neg_inf = false;
};

// Adds one term: the product of n factors (element a, element b, and the scales; null
// pointers are skipped).
TCEMU_DP_HD void scan_term(SpecialScan& s, const Operand* const* factors, int n) {
  bool any_inf = false, any_zero = false, neg = false;
  for (int i = 0; i < n; ++i) {
    const Operand* o = factors[i];
    if (!o) continue;
    if (o->special == 2) s.nan = true;
    any_inf |= o->special == 1;
    any_zero |= o->special == 0 && o->sig == 0;
    neg ^= o->neg != 0;
  }
  if (any_inf && any_zero) s.nan = true;
  if (any_inf) (neg ? s.neg_inf : s.pos_inf) = true;
}

// Adds the accumulator C.
TCEMU_DP_HD void scan_acc(SpecialScan& s, const Operand& c) {
  if (c.special == 2) s.nan = true;
  if (c.special == 1) (c.neg ? s.neg_inf : s.pos_inf) = true;
}

// The result code; +0 when nothing special was seen (callers only ask after seeing one).
TCEMU_DP_HD uint64_t special_code(const SpecialScan& s, const FloatLayout& out) {
  if (s.nan || (s.pos_inf && s.neg_inf)) return nan_code(out);
  if (s.pos_inf || s.neg_inf) return inf_code(out, s.neg_inf);
  return 0;
}

// ---- IEEE additions rounding to nearest even (C added after the products) ------------------

// x + y in f32, rounded to nearest even (a CUDA-core FADD): NaN in gives the canonical NaN,
// Inf - Inf NaN, an exact zero sum +0 unless both are -0.
TCEMU_DP_HD uint32_t add_rne_f32(uint32_t x, uint32_t y) {
  Operand A = decode_acc(f32_layout(), x), B = decode_acc(f32_layout(), y);
  if (A.special == 2 || B.special == 2) return 0x7FFFFFFF;
  if (A.special && B.special) return A.neg != B.neg ? 0x7FFFFFFF : x;
  if (A.special) return x;
  if (B.special) return y;
  if (A.sig == 0 && B.sig == 0) return (A.neg && B.neg) ? 0x80000000u : 0;
  if (A.sig == 0) return y;
  if (B.sig == 0) return x;
  if (A.low < B.low) {
    const Operand t = A;
    A = B;
    B = t;
  }
  const int D = A.low - B.low;
  uint64_t xa, yb;
  int exp;
  bool sticky = false;
  if (D <= 38) {
    xa = uint64_t{A.sig} << D;
    yb = B.sig;
    exp = B.low;
  } else {  // B lies wholly below A's 38 guard bits: keep its top bits and a sticky bit
    xa = uint64_t{A.sig} << 38;
    exp = A.low - 38;
    yb = shift_right_sticky(B.sig, D - 38, &sticky);
  }
  bool neg;
  uint64_t mag;
  if (A.neg == B.neg) {
    mag = xa + yb;
    neg = A.neg;
  } else if (sticky) {  // true B slightly above yb, and xa > yb here
    mag = xa - yb - 1;
    neg = A.neg;
  } else if (xa >= yb) {
    mag = xa - yb;
    neg = A.neg;
  } else {
    mag = yb - xa;
    neg = B.neg;
  }
  if (mag == 0 && !sticky) return 0;  // x + (-x) = +0 under RNE
  return static_cast<uint32_t>(round_out(f32_layout(), neg, mag, exp, sticky, true));
}

// x + y in f16, rounded to nearest even; the same special and zero rules as add_rne_f32.
TCEMU_DP_HD uint64_t add_rne_f16(uint64_t x, uint64_t y) {
  const Operand a = decode_acc(f16_layout(), x), b = decode_acc(f16_layout(), y);
  if (a.special == 2 || b.special == 2) return 0x7FFF;
  if (a.special && b.special) return a.neg != b.neg ? 0x7FFF : x;
  if (a.special) return x;
  if (b.special) return y;
  if (a.sig == 0 && b.sig == 0) return (a.neg && b.neg) ? 0x8000 : 0;
  // f16 values are multiples of 2^-24 below 2^16: their sum is exact in an int64.
  const int64_t s = apply_sign(uint64_t{a.sig} << (a.low + 24), a.neg) + apply_sign(uint64_t{b.sig} << (b.low + 24), b.neg);
  if (s == 0) return 0;  // x + (-x) = +0 under RNE
  return round_out(f16_layout(), s < 0, magnitude(s), -24, false, true);
}

// ---- integer datapath ---------------------------------------------------------------------------

// The end of an integer step: the exact sum wrapped into int32 (two's complement) or clamped
// to its range (satfinite). Returns the int32 code.
TCEMU_DP_HD uint64_t int32_result(int64_t S, bool satfinite) {
  if (satfinite) S = S < INT32_MIN ? INT32_MIN : (S > INT32_MAX ? INT32_MAX : S);
  return static_cast<uint32_t>(static_cast<uint64_t>(S));
}

}  // namespace tcemu::dp
