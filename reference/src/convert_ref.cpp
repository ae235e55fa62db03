// docs/conversions.md steps 1-8, written in that order with exact arithmetic. The value to
// round is either dyadic (a decoded code) or a general rational (a decimal input); both
// answer the same two questions: floor(log2 |x|), and how |x| splits on a grid 2^q.
#include "tcemu_ref/convert_ref.hpp"

#include <algorithm>
#include <stdexcept>

namespace tcemu::ref {

using boost::multiprecision::bit_test;
using boost::multiprecision::lsb;
using boost::multiprecision::msb;

namespace {

// |x| on the grid of spacing 2^q: |x| = (lo + f) * 2^q with f in [0, 1).
struct Split {
  cpp_int lo;            // floor(|x| / 2^q)
  int half = -1;         // sign of f - 1/2
  bool inexact = false;  // f > 0
  uint64_t top = 0;      // floor(f * 2^w): the top w discarded bits (stochastic rounding)
};

// |x| = mant * 2^exp, mant > 0.
struct DyadicMag {
  const cpp_int& mant;
  int exp;
  int floor_log2() const { return static_cast<int>(msb(mant)) + exp; }
  Split split(int q, int w) const {
    Split s;
    const int sh = q - exp;  // |x| / 2^q = mant / 2^sh
    if (sh <= 0) {
      s.lo = mant << -sh;
      return s;
    }
    s.lo = mant >> sh;
    const cpp_int r = mant - (s.lo << sh);  // f = r / 2^sh
    if (r == 0) return s;
    s.inexact = true;
    const int rb = static_cast<int>(msb(r));  // r < 2^sh, so rb <= sh - 1
    if (rb < sh - 1) s.half = -1;
    else s.half = static_cast<int>(lsb(r)) == rb ? 0 : 1;  // r == 2^(sh-1) exactly: a tie
    if (sh >= w) s.top = sh - w > rb ? 0 : static_cast<uint64_t>(r >> (sh - w));
    else s.top = static_cast<uint64_t>(r << (w - sh));
    return s;
  }
};

// |x| = num / den > 0.
struct RationalMag {
  cpp_int num, den;
  int floor_log2() const {
    // num in [2^a, 2^(a+1)), den in [2^b, 2^(b+1)): |x| in (2^(a-b-1), 2^(a-b+1)).
    const int e = static_cast<int>(msb(num)) - static_cast<int>(msb(den));
    const bool at_least_2e = e >= 0 ? num >= (den << e) : (num << -e) >= den;
    return at_least_2e ? e : e - 1;
  }
  Split split(int q, int w) const {
    const cpp_int n = q >= 0 ? num : cpp_int(num << -q);
    const cpp_int d = q >= 0 ? cpp_int(den << q) : den;
    Split s;
    cpp_int r;
    boost::multiprecision::divide_qr(n, d, s.lo, r);  // f = r / d
    if (r == 0) return s;
    s.inexact = true;
    const cpp_int r2 = r << 1;
    s.half = r2 < d ? -1 : (r2 == d ? 0 : 1);
    s.top = static_cast<uint64_t>(cpp_int((r << w) / d));
    return s;
  }
};

// What the steps need to know about the input besides its magnitude.
struct Input {
  Exact::Kind kind = Exact::finite;
  bool sign = false;
  bool zero = false;
  bool subnormal = false;
  uint64_t payload = 0;
  int payload_bits = 0;
};

uint64_t sign_of(const FormatParams& p, bool negative) { return negative ? p.sign_bit() : 0; }

// Code of n * 2^q, a value the format holds (n > 0; checked by the caller).
uint64_t encode(const FormatParams& p, bool negative, const cpp_int& n, int q) {
  const int m = p.man_bits, emin = p.emin();
  const int e = static_cast<int>(msb(n)) + q;
  uint64_t e_field = 0, f_field = 0;
  if (p.has_subnormals && e < emin) {
    // Subnormal: the fraction counts units of 2^(emin - m).
    f_field = static_cast<uint64_t>(cpp_int(n << (q - (emin - m))));
  } else {
    const int sh = q - (e - m);  // significand = n * 2^sh in [2^m, 2^(m+1))
    const cpp_int sig = sh >= 0 ? cpp_int(n << sh) : cpp_int(n >> -sh);
    e_field = static_cast<uint64_t>(e + p.bias);
    f_field = static_cast<uint64_t>(sig) - (uint64_t{1} << m);
  }
  return sign_of(p, negative) | (e_field << (m + p.pad_bits)) | (f_field << p.pad_bits);
}

uint64_t max_code(const FormatParams& p, bool negative) {
  return encode(p, negative && p.is_signed, cpp_int(p.max_sig()), p.emax() - p.man_bits);
}

uint64_t zero_result(const FormatParams& p, bool negative) {
  if (p.nan == NanCodes::max_code) return 0x00;  // ue8m0 has no zero: 0x00 is 2^-127 (step 5)
  return sign_of(p, negative);
}

// Step 6 without satfinite, also the overflow result of step 7 away from zero.
ConvertResult infinite_result(const FormatParams& p, bool negative, NanOut nan_out) {
  if (p.has_inf())
    return {sign_of(p, negative) | (((uint64_t{1} << p.exp_bits) - 1) << (p.man_bits + p.pad_bits)), 0};
  if (p.has_nan()) {
    // NaN with the input's sign (e4m3 0x7f|sign, ue8m0 0xff). Under nan_out = all_ones the
    // NaN is the all-ones code whatever the sign: the gfloat convention of docs/conversions.md
    // (non-saturating, "465 -> e4m3 0xff") is that option, so it must reach this NaN too.
    if (nan_out == NanOut::all_ones) return {p.canonical_nan | p.sign_bit(), kInvalid};
    return {p.canonical_nan | sign_of(p, negative), kInvalid};
  }
  return {max_code(p, negative), kOverflow | kInexact};
}

// The NaN whose sign and fraction are the source NaN's, the fraction's most significant
// bits truncated or zero-extended to the destination's m bits; `quiet` sets the fraction's
// top bit (IEEE), otherwise the bits move as they are (a zero fraction then reads as Inf).
uint64_t nan_with_payload(const FormatParams& p, bool negative, uint64_t payload, int payload_bits, bool quiet) {
  const int m = p.man_bits;
  uint64_t frac = payload_bits >= m ? payload >> (payload_bits - m) : payload << (m - payload_bits);
  if (quiet) frac |= uint64_t{1} << (m - 1);
  return sign_of(p, negative) | (((uint64_t{1} << p.exp_bits) - 1) << (m + p.pad_bits)) | (frac << p.pad_bits);
}

// Step 1 into a format with NaN codes.
uint64_t nan_code(const FormatParams& p, NanOut how, const Input& in) {
  const uint64_t keep_sign = p.canonical_nan | sign_of(p, in.sign);
  // Formats whose only NaN is one code per sign (e4m3, ue4m3, ue8m0) have no payload to keep.
  const bool one_nan_per_sign = p.nan != NanCodes::ieee;
  switch (how) {
    case NanOut::canonical: return p.canonical_nan;
    case NanOut::keep_sign: return keep_sign;
    case NanOut::all_ones: return p.canonical_nan | p.sign_bit();
    case NanOut::payload:
      return one_nan_per_sign ? keep_sign : nan_with_payload(p, in.sign, in.payload, in.payload_bits, true);
    case NanOut::payload_raw:  // a plain bit move, nothing set (convert.hpp: H200 cvt.f32.bf16)
      return one_nan_per_sign ? keep_sign : nan_with_payload(p, in.sign, in.payload, in.payload_bits, false);
    case NanOut::canonical_f32_payload:  // f32's canonical NaN 0x7fffffff, moved with its payload
      return one_nan_per_sign ? p.canonical_nan : nan_with_payload(p, false, 0x7fffff, 23, true);
    case NanOut::quiet:  // only the quiet bit, the sign kept
      return one_nan_per_sign ? keep_sign : nan_with_payload(p, in.sign, 0, 1, true);
  }
  throw std::invalid_argument("tcemu::ref: unknown NanOut value");
}

// Step 7's decision: one ulp away from zero? `lo_odd`: the lower neighbour's last bit, which
// rn's ties avoid.
bool round_up(Round mode, bool negative, const Split& s, bool lo_odd, uint32_t rbits, int w) {
  switch (mode) {
    case Round::rn: return s.half > 0 || (s.half == 0 && lo_odd);
    case Round::rna: return s.half >= 0;
    case Round::rz: return false;
    case Round::rd: return negative && s.inexact;
    case Round::ru: return !negative && s.inexact;
    case Round::rs: {
      const uint64_t r = rbits & ((uint64_t{1} << w) - 1);
      return s.top + r >= (uint64_t{1} << w);  // carry out of the w-bit addition
    }
  }
  throw std::invalid_argument("tcemu::ref: unknown Round value");
}

// Step 7: finite nonzero |x| into a float format.
template <class Mag>
ConvertResult round_float(const FormatParams& p, bool negative, const Mag& mag, const ConvertOptions& opt,
                          uint32_t rbits, int w) {
  const int m = p.man_bits, emin = p.emin(), emax = p.emax();
  const int e = mag.floor_log2();
  if (!p.has_subnormals && e < emin)  // ue8m0: below 2^-127 gives 0x00 in every mode
    return {encode(p, negative, cpp_int(1), emin), kInexact | kUnderflow};
  const int q = std::max(e, emin) - m;  // the grid: binade spacing, or the subnormal spacing
  const Split s = mag.split(q, w);
  // Ties to even: the last significand bit of lo, which is also the code's last bit when the
  // format has fraction bits. ue8m0 has none (every significand is 1): there the last bit of
  // lo's code, the exponent's, decides (ties to the even code, as ml_dtypes rounds ue8m0).
  const bool lo_odd = m > 0 ? bit_test(s.lo, 0) : ((q + p.bias) & 1) != 0;
  const bool up = round_up(opt.round, negative, s, lo_odd, rbits, w);
  const cpp_int n = up ? cpp_int(s.lo + 1) : s.lo;  // the rounded magnitude is n * 2^q
  uint8_t flags = s.inexact ? kInexact : 0;
  if (s.inexact && e < emin) flags |= kUnderflow;
  // Overflow needs e >= emax: below, n * 2^q <= 2^(e+1) <= 2^emax <= MAX. At e == emax the
  // grid is MAX's own (q = emax - m): compare significands; above emax every value overflows.
  if (e > emax || (e == emax && n > p.max_sig())) {
    flags |= kOverflow | kInexact;
    const bool toward_zero = opt.round == Round::rz || (opt.round == Round::rd && !negative) ||
                             (opt.round == Round::ru && negative) || (opt.round == Round::rs && !up);
    if (opt.satfinite || toward_zero) return {max_code(p, negative), flags};
    const ConvertResult inf = infinite_result(p, negative, opt.nan_out);
    return {inf.code, static_cast<uint8_t>(flags | inf.flags)};
  }
  if (n == 0) return {zero_result(p, negative), flags};
  if (opt.ftz && static_cast<int>(msb(n)) + q < emin)  // ftz on output
    return {zero_result(p, negative), static_cast<uint8_t>(flags | kInexact | kUnderflow)};
  return {encode(p, negative, n, q), flags};
}

// Step 8: round to an integer (ulp 1), then clamp to the range.
template <class Mag>
ConvertResult round_int(const FormatParams& p, const Input& in, const Mag& mag, const ConvertOptions& opt,
                        uint32_t rbits, int w) {
  auto code_of = [&](int64_t v) { return static_cast<uint64_t>(v) & p.code_mask(); };
  if (in.kind == Exact::inf) return {code_of(in.sign ? p.int_min : p.int_max), kInvalid};
  if (in.zero) return {0, 0};
  const Split s = mag.split(0, w);
  const cpp_int n = round_up(opt.round, in.sign, s, bit_test(s.lo, 0), rbits, w) ? cpp_int(s.lo + 1) : s.lo;
  const uint8_t flags = s.inexact ? kInexact : 0;
  if (in.sign) {
    if (n > cpp_int(-p.int_min)) return {code_of(p.int_min), static_cast<uint8_t>(flags | kInvalid)};
    return {code_of(-static_cast<int64_t>(n)), flags};
  }
  if (n > cpp_int(p.int_max)) return {code_of(p.int_max), static_cast<uint8_t>(flags | kInvalid)};
  return {code_of(static_cast<int64_t>(n)), flags};
}

template <class Mag>
ConvertResult run_steps(Input in, const Mag& mag, Fmt to, const ConvertOptions& opt, uint32_t rbits) {
  const FormatParams& p = params(to);
  const int w = rs_width(to, opt);

  // 1. NaN input (relu does not change a NaN).
  if (in.kind == Exact::nan) {
    if (p.is_int) return {0, kInvalid};
    if (p.has_nan()) return {nan_code(p, opt.nan_out, in), 0};
    switch (opt.nan_to_finite) {
      case NanToFinite::plus_max: return {max_code(p, false), kInvalid};
      case NanToFinite::signed_max: return {max_code(p, in.sign), kInvalid};
      case NanToFinite::neg_zero: return {p.sign_bit(), kInvalid};
      case NanToFinite::zero: return {0, kInvalid};
      case NanToFinite::undefined: return {0, kUndefined | kInvalid};
      case NanToFinite::flipped_zero: return {in.sign ? 0 : p.sign_bit(), kInvalid};
    }
    throw std::invalid_argument("tcemu::ref: unknown NanToFinite value");
  }
  // 2. relu: a sign bit set (negative, -0, -Inf) gives +0.
  if (opt.relu && in.sign) in = Input{Exact::finite, false, true, false, 0, 0};
  // 3. Negative into an unsigned float format.
  if (!p.is_int && !p.is_signed && in.sign) {
    const uint8_t refused = in.zero ? 0 : kInvalid;  // -0 is not a negative number
    switch (opt.neg_to_unsigned) {
      case NegToUnsigned::magnitude: in.sign = false; break;
      case NegToUnsigned::nan_except_inf:  // a library option (gfloat), not modelled here
        throw std::invalid_argument("tcemu::ref: NegToUnsigned::nan_except_inf is not modelled");
      case NegToUnsigned::nan: return {p.canonical_nan, refused};
      case NegToUnsigned::zero: in = Input{Exact::finite, false, true, false, 0, 0}; break;
      case NegToUnsigned::undefined: return {0, static_cast<uint8_t>(kUndefined | refused)};
      case NegToUnsigned::nan_unless_satfinite:
        if (!opt.satfinite) return {p.canonical_nan, refused};
        in = Input{Exact::finite, false, true, false, 0, 0};
        break;
    }
  }
  // 4. ftz on input.
  if (opt.ftz && in.subnormal) {
    in.zero = true;
    in.subnormal = false;
  }
  // 8. Integer destinations (zero, Inf and finite values alike).
  if (p.is_int) return round_int(p, in, mag, opt, rbits, w);
  // 5. Zero.
  if (in.zero) return {zero_result(p, in.sign), p.nan == NanCodes::max_code ? uint8_t{kInexact} : uint8_t{0}};
  // 6. Inf input.
  if (in.kind == Exact::inf) {
    if (opt.satfinite) return {max_code(p, in.sign), kOverflow | kInexact};
    return infinite_result(p, in.sign, opt.nan_out);
  }
  // 7. Finite nonzero into a float format.
  return round_float(p, in.sign, mag, opt, rbits, w);
}

}  // namespace

int rs_width(Fmt to, const ConvertOptions& opt) {
  if (opt.rs_bits > 32)
    throw std::invalid_argument("tcemu::ref: rs_bits is " + std::to_string(opt.rs_bits) + ", must be 0..32");
  if (opt.rs_bits != 0) return opt.rs_bits;
  if (to == Fmt::f16) return 13;
  if (to == Fmt::bf16) return 16;
  if (params(to).width <= 8) return 8;
  return 32;
}

ConvertResult convert_exact(const Exact& x, Fmt to, const ConvertOptions& opt, uint32_t rbits) {
  Input in;
  in.kind = x.kind;
  in.sign = x.sign;
  in.zero = x.kind == Exact::finite && x.mant == 0;
  in.subnormal = x.subnormal && !in.zero;
  in.payload = x.payload;
  in.payload_bits = x.payload_bits;
  return run_steps(in, DyadicMag{x.mant, x.exp}, to, opt, rbits);
}

ConvertResult convert(Fmt from, Fmt to, uint64_t code, const ConvertOptions& opt, uint32_t rbits) {
  return convert_exact(exact_value(from, code), to, opt, rbits);
}

ConvertResult convert_rational(const Real& x, Fmt to, const ConvertOptions& opt, uint32_t rbits) {
  Input in;
  in.kind = x.kind;
  in.sign = x.sign;
  in.zero = x.kind == Exact::finite && x.mag == 0;
  if (x.kind == Exact::finite && x.mag < 0)
    throw std::invalid_argument("tcemu::ref::convert_rational: Real::mag must be >= 0 (the sign is separate)");
  return run_steps(in, RationalMag{boost::multiprecision::numerator(x.mag), boost::multiprecision::denominator(x.mag)},
                   to, opt, rbits);
}

ConvertResult convert_rational(const cpp_rational& x, Fmt to, const ConvertOptions& opt, uint32_t rbits) {
  Real r;
  r.sign = x < 0;
  r.mag = r.sign ? cpp_rational(-x) : x;
  return convert_rational(r, to, opt, rbits);
}

ConvertResult convert_decimal(std::string_view text, Fmt to, const ConvertOptions& opt, uint32_t rbits) {
  return convert_rational(parse_real(text), to, opt, rbits);
}

}  // namespace tcemu::ref
