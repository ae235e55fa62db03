// The rounding core and the scalar conversion (docs/conversions.md, steps 1-8).
#include "tcemu/convert.hpp"

#include <bit>

namespace tcemu {

std::optional<Round> parse_round(std::string_view s) {
  if (s == "rn") return Round::rn;
  if (s == "rna") return Round::rna;
  if (s == "rz") return Round::rz;
  if (s == "rd" || s == "rm") return Round::rd;
  if (s == "ru" || s == "rp") return Round::ru;
  if (s == "rs") return Round::rs;
  return std::nullopt;
}

std::string_view to_string(Round r) {
  switch (r) {
    case Round::rn: return "rn";
    case Round::rna: return "rna";
    case Round::rz: return "rz";
    case Round::rd: return "rd";
    case Round::ru: return "ru";
    case Round::rs: return "rs";
  }
  return "?";
}

int default_rs_bits(Fmt to) {
  switch (to) {
    case Fmt::f16: return 13;  // cvt.rs.f16x2.f32: 13 low bits of each half of rbits
    case Fmt::bf16: return 16; // cvt.rs.bf16x2.f32: each 16-bit half
    default: return info(to).width <= 8 ? 8 : 32;  // x4 FP8/FP6/FP4 forms: 8 bits per element
  }
}

size_t container_bytes(Fmt f) {
  int w = info(f).width;
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

namespace {

uint64_t pack(const FormatInfo& fi, bool sign, uint64_t biased_exp, uint64_t man) {
  uint64_t code = ((biased_exp << fi.man_bits) | man) << fi.man_shift;
  if (sign && fi.is_signed) code |= fi.sign_mask();
  return code;
}

// Every bit of the code set (tf32: its low 13 bits stay zero).
uint64_t all_ones_code(const FormatInfo& fi) {
  return fi.code_mask() & ~((uint64_t{1} << fi.man_shift) - 1);
}

ConvertResult zero_result(Fmt to, bool sign) {
  const FormatInfo& fi = info(to);
  if (!fi.has_zero) return {0, kInexact};  // ue8m0: 0x00 = 2^-127, the smallest value
  return {pack(fi, sign, 0, 0), 0};
}

// The code a NaN input produces (step 1), with its source payload for NanOut::payload.
ConvertResult nan_result(bool sign, uint64_t payload, int payload_bits, Fmt to, const ConvertOptions& opt) {
  const FormatInfo& fi = info(to);
  if (fi.is_int) return {0, kInvalid};
  if (!fi.has_nan()) {
    switch (opt.nan_to_finite) {
      case NanToFinite::plus_max: return {max_finite_code(to, false), kInvalid};
      case NanToFinite::signed_max: return {max_finite_code(to, sign), kInvalid};
      case NanToFinite::neg_zero: return {pack(fi, true, 0, 0), kInvalid};
      case NanToFinite::zero: return {0, kInvalid};
      case NanToFinite::undefined: return {0, kUndefined | kInvalid};
      case NanToFinite::flipped_zero: return {pack(fi, !sign, 0, 0), kInvalid};
    }
  }
  const uint64_t canon = *canonical_nan(to);
  const bool one_nan_per_sign = fi.specials != Specials::ieee;
  switch (opt.nan_out) {
    case NanOut::canonical: return {canon, 0};
    case NanOut::keep_sign: return {canon | (sign ? fi.sign_mask() : 0), 0};
    case NanOut::all_ones: return {fi.is_signed ? all_ones_code(fi) : canon, 0};
    case NanOut::quiet:
      if (one_nan_per_sign) return {canon | (sign ? fi.sign_mask() : 0), 0};
      return {pack(fi, sign, (uint64_t{1} << fi.exp_bits) - 1, uint64_t{1} << (fi.man_bits - 1)), 0};
    case NanOut::payload:
    case NanOut::payload_raw:
    case NanOut::canonical_f32_payload: {
      if (opt.nan_out == NanOut::canonical_f32_payload) {  // as if the input were f32 0x7fffffff
        sign = false;
        payload = (uint64_t{1} << 23) - 1;
        payload_bits = 23;
      }
      if (one_nan_per_sign) return {canon | (sign ? fi.sign_mask() : 0), 0};
      const int m = fi.man_bits;
      uint64_t p = payload_bits >= m ? payload >> (payload_bits - m) : payload << (m - payload_bits);
      if (opt.nan_out != NanOut::payload_raw) p |= uint64_t{1} << (m - 1);  // quiet bit
      return {pack(fi, sign, (uint64_t{1} << fi.exp_bits) - 1, p & ((uint64_t{1} << m) - 1)), 0};
    }
  }
  return {canon, 0};
}

// What an infinite magnitude becomes without satfinite (step 6): Inf, else the NaN that OCP's
// non-saturating mode and CUDA's NOSAT produce (sign kept), else MAX.
uint64_t infinite_code(Fmt to, bool sign, const ConvertOptions& opt) {
  const FormatInfo& fi = info(to);
  if (fi.has_inf()) return *inf_code(to, sign);
  if (fi.has_nan()) {
    if (opt.nan_out == NanOut::all_ones && fi.is_signed) return all_ones_code(fi);
    return *canonical_nan(to) | (sign ? fi.sign_mask() : 0);
  }
  return max_finite_code(to, sign);
}

// Flags of infinite_code: an Inf is exact, a NaN made from a number is invalid, MAX inexact.
uint8_t infinite_flags(Fmt to) {
  const FormatInfo& fi = info(to);
  if (fi.has_inf()) return 0;
  return fi.has_nan() ? uint8_t{kInvalid} : static_cast<uint8_t>(kOverflow | kInexact);
}

// Overflow or Inf into a format with neither Inf nor NaN, without satfinite, under
// overflow_undefined (gfloat raises ValueError there).
bool overflow_refused(Fmt to, const ConvertOptions& opt) {
  return opt.overflow_undefined && !opt.satfinite && !info(to).has_nan();
}

ConvertResult overflow_result(Fmt to, bool sign, bool toward_zero, const ConvertOptions& opt) {
  if (opt.satfinite || toward_zero || opt.finite_overflow_to_max) return {max_finite_code(to, sign), kOverflow | kInexact};
  if (overflow_refused(to, opt)) return {0, kUndefined | kOverflow | kInexact};
  return {infinite_code(to, sign, opt), static_cast<uint8_t>(kOverflow | kInexact | infinite_flags(to))};
}

// Rounding decision for a magnitude split into kept bits, a 64-bit discarded fraction (its
// top bit weighs half an ulp) and a sticky bit for anything below.
bool round_up(Round r, bool sign, uint64_t kept, uint64_t frac, bool sticky, uint32_t rbits, int w,
              RsFraction rsf = RsFraction::truncate) {
  const bool any = frac != 0 || sticky;
  switch (r) {
    case Round::rn: return (frac >> 63) && ((frac << 1) != 0 || sticky || (kept & 1));
    case Round::rna: return (frac >> 63) != 0;
    case Round::rz: return false;
    case Round::rd: return sign && any;
    case Round::ru: return !sign && any;
    case Round::rs: {
      uint64_t top = frac >> (64 - w);
      if (rsf != RsFraction::truncate) {  // the fraction first rounded to w bits
        const uint64_t rest = frac << w;  // the discarded bits below the top w
        const bool half = (rest >> 63) != 0, more = (rest << 1) != 0 || sticky;
        if (half && (more || ((top & 1) != 0) == (rsf == RsFraction::round_even))) ++top;
      }
      uint64_t mask = (uint64_t{1} << w) - 1;
      return ((top + (rbits & mask)) >> w) != 0;
    }
  }
  return false;
}

// Splits sig * 2^exp at bit position q (the weight of the result's lowest bit).
struct Split {
  uint64_t kept;
  uint64_t frac;
  bool sticky;
};
Split split_at(uint64_t sig, int exp, int q, bool sticky) {
  int shift = q - exp;
  if (shift <= 0) return {sig << -shift, 0, sticky};  // callers guarantee no overflow
  if (shift < 64) return {sig >> shift, sig << (64 - shift), sticky};
  if (shift == 64) return {0, sig, sticky};
  if (shift < 128) return {0, sig >> (shift - 64), sticky || (sig << (128 - shift)) != 0};
  return {0, 0, sticky || sig != 0};
}

ConvertResult round_to_int(bool sign, uint64_t sig, int exp, bool sticky, Fmt to, const ConvertOptions& opt,
                           uint32_t rbits) {
  const FormatInfo& fi = info(to);
  const uint64_t pos_max = fi.is_signed ? (uint64_t{1} << (fi.width - 1)) - 1 : fi.code_mask();
  const uint64_t neg_max = fi.is_signed ? uint64_t{1} << (fi.width - 1) : 0;
  const int msb = 63 - std::countl_zero(sig);
  uint64_t mag;
  uint8_t flags = 0;
  if (exp + msb >= 63) {
    mag = ~uint64_t{0};  // far beyond every integer format (and an integer: exact)
  } else {
    Split s = split_at(sig, exp, 0, sticky);
    int w = opt.rs_bits ? opt.rs_bits : default_rs_bits(to);
    mag = s.kept + (round_up(opt.round, sign, s.kept, s.frac, s.sticky, rbits, w) ? 1 : 0);
    if (s.frac || s.sticky) flags |= kInexact;
  }
  uint64_t limit = sign ? neg_max : pos_max;
  if (mag > limit) { mag = limit; flags |= kInvalid; }  // IEEE 754 §7.2: out of the integer range
  uint64_t code = sign ? ((~mag + 1) & fi.code_mask()) : mag;
  return {code, flags};
}

}  // namespace

ConvertResult round_nan(bool sign, Fmt to, const ConvertOptions& opt) { return nan_result(sign, 0, 0, to, opt); }

// An infinite input (docs/conversions.md steps 2, 8, 3 and 6, in that order here).
ConvertResult round_inf(bool sign, Fmt to, const ConvertOptions& opt) {
  const FormatInfo& fi = info(to);
  if (opt.relu && sign) return zero_result(to, false);  // step 2: relu
  if (fi.is_int) {  // step 8: the range's ends: -Inf into an unsigned integer is 0
    if (sign && !fi.is_signed) return {0, kInvalid};
    return {max_finite_code(to, sign), kInvalid};
  }
  if (sign && !fi.is_signed) {  // step 3: negative into an unsigned float
    switch (opt.neg_to_unsigned) {
      case NegToUnsigned::magnitude:
      case NegToUnsigned::nan_except_inf: sign = false; break;
      case NegToUnsigned::nan: return {nan_result(true, 0, 0, to, opt).code, kInvalid};
      case NegToUnsigned::zero: return zero_result(to, false);
      case NegToUnsigned::undefined: return {0, kUndefined | kInvalid};
      case NegToUnsigned::nan_unless_satfinite:
        if (opt.satfinite) return zero_result(to, false);
        return {nan_result(true, 0, 0, to, opt).code, kInvalid};
    }
  }
  // Step 6: Inf input.
  if (opt.satfinite && opt.inf_satfinite) return {max_finite_code(to, sign), kOverflow | kInexact};
  if (overflow_refused(to, opt)) return {0, kUndefined | kInvalid};
  return {infinite_code(to, sign, opt), infinite_flags(to)};
}

ConvertResult round_value(bool sign, uint64_t sig, int exp, bool sticky, Fmt to, const ConvertOptions& opt,
                          uint32_t rbits) {
  const FormatInfo& fi = info(to);
  if (opt.relu && sign) return zero_result(to, false);  // step 2: relu
  if (fi.is_int) {  // step 8: integer destinations
    if (sig == 0 && !sticky) return {0, 0};
    if (sig == 0) { sig = 1; exp = -1100; }  // a value below every grid: only its sign matters
    return round_to_int(sign, sig, exp, sticky, to, opt, rbits);
  }
  if (sign && !fi.is_signed) {  // step 3: negative into an unsigned float
    const uint8_t refused = (sig == 0 && !sticky) ? 0 : kInvalid;  // -0 is not a negative number
    switch (opt.neg_to_unsigned) {
      case NegToUnsigned::magnitude: sign = false; break;
      case NegToUnsigned::nan:
      case NegToUnsigned::nan_except_inf: return {nan_result(true, 0, 0, to, opt).code, refused};
      case NegToUnsigned::zero: return zero_result(to, false);
      case NegToUnsigned::undefined: return {0, static_cast<uint8_t>(kUndefined | refused)};
      case NegToUnsigned::nan_unless_satfinite:
        if (opt.satfinite) return zero_result(to, false);
        return {nan_result(true, 0, 0, to, opt).code, refused};
    }
  }
  if (sig == 0 && !sticky && !fi.has_zero) {  // step 5: zero into a format without zero
    const bool nan = opt.zero_to_no_zero == ZeroToNoZero::nan ||
                     (opt.zero_to_no_zero == ZeroToNoZero::nan_unless_satfinite && !opt.satfinite);
    if (nan) return {nan_result(false, 0, 0, to, opt).code, kInvalid};
  }
  if (sig == 0) {
    if (!sticky) return zero_result(to, sign);  // step 5: zero
    sig = 1;  // nonzero but below every bit: rounds like the smallest possible value
    exp = -2000;
  }
  // Step 7: finite nonzero into a float format: the grid, the rounding decision, the carry,
  // overflow, subnormal results.
  const int m = fi.man_bits;
  const int msb = 63 - std::countl_zero(sig);
  const int e = exp + msb;  // exponent of the leading bit
  const bool tiny_nan = opt.tiny_no_subnormal == TinyNoSubnormal::nan;
  if (!fi.has_subnormals && e < fi.emin() && !tiny_nan) return {0, kInexact | kUnderflow};  // ue8m0: smallest
  if (!fi.has_subnormals && e == fi.emin() && opt.tiny_no_subnormal == TinyNoSubnormal::zero_code &&
      (opt.round == Round::rn || opt.round == Round::rna)) {
    // 0x00 read as zero: (2^emin, 2^(emin+1)) rounds to 0x01, its half-way point 2^emin to 0x00.
    const bool above = (sig & (sig - 1)) != 0 || sticky;
    return {above ? pack(fi, false, 1, 0) : 0, static_cast<uint8_t>(above ? kInexact : 0)};
  }
  int q = (e >= fi.emin() || !fi.has_subnormals) ? e - m : fi.emin() - m;
  Split s = split_at(sig, exp, q, sticky);
  const int w = opt.rs_bits ? opt.rs_bits : default_rs_bits(to);
  // Ties to even look at the code's last bit: the significand's, or with no fraction bits
  // (ue8m0) the exponent's, as bit-level implementations (ml_dtypes) round.
  const uint64_t last = m > 0 ? s.kept : static_cast<uint64_t>(q + fi.bias);
  const bool up = round_up(opt.round, sign, last, s.frac, s.sticky, rbits, w, opt.rs_fraction);
  uint64_t kept = s.kept + (up ? 1 : 0);
  uint8_t flags = (s.frac || s.sticky) ? kInexact : 0;
  if (flags && e < fi.emin()) flags |= kUnderflow;  // tininess before rounding (IEEE 754 §7.5)
  const uint64_t one = uint64_t{1} << m;
  if (kept >> (m + 1)) { kept >>= 1; ++q; }  // carried into the next binade
  if (kept == 0) return {zero_result(to, sign).code, static_cast<uint8_t>(flags | kUnderflow)};
  if (tiny_nan && !fi.has_subnormals && q + m < fi.emin())  // rounded below the smallest value
    return {nan_result(false, 0, 0, to, opt).code, static_cast<uint8_t>(flags | kInvalid | kUnderflow)};
  if (kept >= one) {
    const int re = q + m;
    if (re > fi.emax() || (re == fi.emax() && kept > fi.max_sig())) {
      bool toward_zero;
      switch (opt.round) {
        case Round::rn: case Round::rna: toward_zero = false; break;
        case Round::rz: toward_zero = true; break;
        case Round::rd: toward_zero = !sign; break;
        case Round::ru: toward_zero = sign; break;
        case Round::rs: toward_zero = !up && opt.rs_overflow_to_max; break;
        default: toward_zero = false;
      }
      return overflow_result(to, sign, toward_zero, opt);
    }
    return {pack(fi, sign, static_cast<uint64_t>(re + fi.bias), kept & (one - 1)), flags};
  }
  // Subnormal result.
  if (flags) flags |= kUnderflow;
  if (opt.ftz) return {zero_result(to, sign).code, static_cast<uint8_t>(flags | kInexact | kUnderflow)};
  return {pack(fi, sign, 0, kept), flags};
}

ConvertResult convert(Fmt from, Fmt to, uint64_t code, const ConvertOptions& opt, uint32_t rbits) {
  if (from == Fmt::f64 && opt.f64_via_f32 && to != Fmt::f64 && to != Fmt::f32) {
    ConvertOptions first;  // the C cast double -> float: rn, IEEE overflow, NaN payload quieted
    first.nan_out = NanOut::payload;
    const ConvertResult narrowed = convert(Fmt::f64, Fmt::f32, code, first);
    ConvertResult r = convert(Fmt::f32, to, narrowed.code, opt, rbits);
    r.flags |= narrowed.flags & (kInexact | kUnderflow | kOverflow);
    return r;
  }
  const FormatInfo& src = info(from);
  const Decoded d = decode(from, code);
  switch (d.cls) {
    case Class::nan: return nan_result(d.sign, d.sig, src.man_bits, to, opt);  // step 1
    case Class::inf: return round_inf(d.sign, to, opt);
    case Class::zero: break;
    case Class::subnormal:  // step 4: ftz on input
      if (opt.ftz) return round_value(d.sign, 0, 0, false, to, opt, rbits);
      break;
    case Class::normal: break;
  }
  return round_value(d.sign, d.sig, d.exp, false, to, opt, rbits);
}

}  // namespace tcemu
