// Reference datapath models, exact rationals, written from docs/formats.md and
// docs/datapath.md §1 and §3. Codes are
// read by exact.cpp's decoder from its format table, and rounded by convert_ref.cpp's
// conversion (one of each in reference/).
#include "tcemu_ref/datapath_ref.hpp"

#include "tcemu_ref/convert_ref.hpp"
#include "tcemu_ref/exact.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <stdexcept>
#include <vector>

namespace tcemu::ref {

namespace {

Rational pow2_uncached(int e) {
  Integer one = 1;
  if (e >= 0) return Rational(Integer(one << e));
  return Rational(Integer(1), Integer(one << -e));
}

// 2^e, cached over the range the models use (speed only: the values are the same).
const Rational& pow2(int e) {
  static const std::vector<Rational> table = [] {
    std::vector<Rational> t;
    for (int i = -1200; i <= 1200; ++i) t.push_back(pow2_uncached(i));
    return t;
  }();
  if (e < -1200 || e > 1200) {
    thread_local Rational spare;
    spare = pow2_uncached(e);
    return spare;
  }
  return table[static_cast<size_t>(e + 1200)];
}

// emin of §3.1: the exponent at which subnormals are read (the smallest normal binade).
int emin_of(Fmt f) { return params(f).emin(); }


Integer trunc0(const Rational& x) {  // toward zero (cpp_int division truncates)
  return Integer(numerator(x) / denominator(x));
}


// Exact dyadic values m * 2^e (every code of a binary format is one).
struct Dy {
  Integer m = 0;
  int e = 0;
};
Dy to_dy(const Rational& r) {  // r's denominator is a power of two
  return Dy{numerator(r), -static_cast<int>(msb(denominator(r)))};
}
Dy mul(const Dy& a, const Dy& b) { return Dy{a.m * b.m, a.e + b.e}; }
Dy add(const Dy& a, const Dy& b) {
  if (a.m == 0) return b;
  if (b.m == 0) return a;
  const int e = std::min(a.e, b.e);
  return Dy{Integer((a.m << (a.e - e)) + (b.m << (b.e - e))), e};
}
// E(x) = max(floor(log2|x|), emin) of a nonzero dyadic value.
int E_dy(const Dy& x, Fmt f) { return std::max(static_cast<int>(msb(abs(x.m))) + x.e, emin_of(f)); }
// trunc0(x / 2^q): toward zero (cpp_int division truncates).
Integer trunc_dy(const Dy& x, int q) {
  const int s = x.e - q;
  if (s >= 0) return Integer(x.m << s);
  return Integer(x.m / (Integer(1) << -s));
}

uint64_t ref_nan_code(Fmt out) { return out == Fmt::f16 ? 0x7FFF : 0x7FFFFFFF; }
uint64_t ref_inf_code(Fmt out, bool neg) {
  if (out == Fmt::f16) return neg ? 0xFC00 : 0x7C00;
  return neg ? 0xFF800000u : 0x7F800000u;
}

// rho of datapath.md §1.
uint64_t rho(OutputRounding r, const Rational& x) {
  switch (r) {
    case OutputRounding::rz_f32: return round_to(x, Fmt::f32, Round::rz);
    case OutputRounding::rne_f16: return round_to(x, Fmt::f16, Round::rn);
    case OutputRounding::rne_f32: return round_to(x, Fmt::f32, Round::rn);
    case OutputRounding::rz_f16: return round_to(x, Fmt::f16, Round::rz);
    case OutputRounding::rz_e8m13: {
      // e8m13: 13 fraction bits, f32's exponent range, truncation: the f32 grid coarsened by
      // 2^10 (also below 2^-126, where the grid is 2^-139).
      if (x == 0) return 0;
      const Rational ax = abs(x);
      int e = floor_log2(ax);
      if (e > 127) return ref_inf_code(Fmt::f32, x < 0);
      const int lsb = std::max(e, -126) - 13;
      const Integer t = trunc0(ax / pow2(lsb));
      const Rational v = Rational(t) * pow2(lsb);
      const uint64_t code = round_to(v, Fmt::f32, Round::rz);  // exact on the f32 grid
      return x < 0 ? (code | 0x80000000u) : code;
    }
  }
  return 0;
}

struct Special {
  bool any = false;
  uint64_t code = 0;
};

// datapath.md §1 specials: NaN anywhere, Inf*0, +Inf with -Inf give NaN; else the Inf's sign. A term is
// the product of its factors (element a, element b, and the scales).
Special specials(Fmt out, const std::vector<std::vector<ExactValue>>& terms, const ExactValue& c) {
  Special s;
  bool pinf = false, ninf = false, nan = false;
  for (const auto& factors : terms) {
    bool inf = false, zero = false, neg = false;
    for (const ExactValue& v : factors) {
      if (v.kind == ExactValue::nan) nan = true;
      if (v.kind == ExactValue::inf) inf = true;
      if (v.kind == ExactValue::finite && v.v == 0) zero = true;
      neg = neg != v.neg;
    }
    if (inf && zero) nan = true;
    if (inf) (neg ? ninf : pinf) = true;
  }
  if (c.kind == ExactValue::nan) nan = true;
  if (c.kind == ExactValue::inf) (c.neg ? ninf : pinf) = true;
  if (nan || (pinf && ninf)) return {true, ref_nan_code(out)};
  if (pinf || ninf) return {true, ref_inf_code(out, ninf)};
  return s;
}

}  // namespace

int floor_log2(const Rational& x) {
  if (x <= 0) throw std::invalid_argument("floor_log2 of a non-positive value");
  const Integer n = numerator(x), d = denominator(x);
  int k = static_cast<int>(msb(n)) - static_cast<int>(msb(d));
  if ((d & (d - 1)) == 0) return k;  // a dyadic value: exact from the bit lengths
  // 2^k <= n/d < 2^(k+2) here; settle it exactly.
  if (pow2(k) > x) --k;
  else if (pow2(k + 1) <= x) ++k;
  return k;
}

// The one decoder of the reference (exact.cpp's exact_value, from the format table there) as
// a signed rational. Bits above the format's width are ignored (ue4m3: bit 7), as are tf32's
// low 13 container bits.
ExactValue value_of(Fmt f, uint64_t code) {
  const Exact x = exact_value(f, code & params(f).code_mask());
  ExactValue r;
  r.neg = x.sign;
  if (x.kind == Exact::nan) {
    r.kind = ExactValue::nan;
    return r;
  }
  if (x.kind == Exact::inf) {
    r.kind = ExactValue::inf;
    return r;
  }
  const Rational mag = Rational(Integer(x.mant)) * pow2(x.exp);
  r.v = x.sign ? Rational(-mag) : mag;
  return r;
}

// The datapath's rounding of an exact value is the conversion's (convert_ref.cpp, the one
// exact rounding of reference/), with one difference: the tensor cores give Inf for a finite
// value beyond the range under RZ too (docs/datapath.md §1), where a conversion toward zero gives
// MAX. An exact zero is +0 unless neg_zero.
uint64_t round_to(const Rational& x, Fmt to, Round mode, bool neg_zero) {
  if (to != Fmt::f32 && to != Fmt::f16) throw std::invalid_argument("reference round_to supports f32 and f16");
  if (mode != Round::rn && mode != Round::rz) throw std::invalid_argument("reference round_to supports rn and rz");
  const FormatParams& l = params(to);
  if (x == 0) return neg_zero ? l.sign_bit() : 0;
  if (mode == Round::rz && floor_log2(abs(x)) > l.emax()) return (x < 0 ? l.sign_bit() : 0) | ref_inf_code(to, false);
  ConvertOptions opt;
  opt.round = mode;
  return convert_rational(x, to, opt).code;
}

namespace {

// The stages of one step, as docs/datapath.md §1 lists them (the same stages as
// emulator/src/dp_primitives.hpp, written here from the definitions with exact values).

// Integer kind: the exact sum of the products and C, clamped (.satfinite) or wrapped to int32.
uint64_t integer_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                      uint64_t c) {
  Integer S = Integer(static_cast<int32_t>(static_cast<uint32_t>(c)));
  for (size_t i = 0; i < a.size(); ++i) S += numerator(value_of(fa, a[i]).v * value_of(fb, b[i]).v);
  const Integer lo = Integer(INT32_MIN), hi = Integer(INT32_MAX);
  if (p.satfinite) {
    if (S < lo) S = lo;
    if (S > hi) S = hi;
  }
  // Wrap: the residue modulo 2^32 as an unsigned code.
  Integer m = S % (Integer(1) << 32);
  if (m < 0) m += (Integer(1) << 32);
  return static_cast<uint64_t>(m);
}

// Stage 0, decode: every term's factors (a, b, and the scales of its block) and C.
struct StepValues {
  std::vector<std::vector<ExactValue>> terms;  // factors of each term: a, b[, sA, sB]
  std::vector<ExactValue> sA, sB;              // the scales of each element (scaled kinds)
  ExactValue c;
};

StepValues decode_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                       uint64_t c, const BlockScales* scales) {
  const size_t n = a.size();
  const bool scaled = p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa;
  StepValues v;
  v.c = value_of(output_format(p.rounding), c);
  v.sA.resize(n);
  v.sB.resize(n);
  v.terms.resize(n);
  for (size_t i = 0; i < n; ++i) {
    v.terms[i] = {value_of(fa, a[i]), value_of(fb, b[i])};
    if (scaled) {
      size_t idx = i / static_cast<size_t>(scales->block);
      if (p.kind == DatapathKind::gst_fdpa)  // the group's first element picks the block
        idx = (i / static_cast<size_t>(p.group)) * static_cast<size_t>(p.group) / static_cast<size_t>(scales->block);
      v.sA[i] = value_of(scales->fmt, scales->a[idx]);
      v.sB[i] = value_of(scales->fmt, scales->b[idx]);
      v.terms[i].push_back(v.sA[i]);
      v.terms[i].push_back(v.sB[i]);
    }
  }
  return v;
}

// A term to align: its exact value (dyadic m * 2^e: every operand is a binary float, so no
// rational normalisation is needed) and its exponent e_i.
using Term = std::pair<Dy, int>;

// Stage 2a, T-FDPA / ST-FDPA terms: p_i = a_i b_i (sA sB), e_i = E(a_i)+E(b_i) (+E(sA)+E(sB)),
// e_zero for a zero product; missing terms (a step shorter than L) are one zero product.
std::vector<Term> product_terms(const DatapathParams& p, Fmt fa, Fmt fb, const StepValues& v, const BlockScales* scales) {
  const size_t n = v.terms.size();
  const bool scaled = p.kind == DatapathKind::st_fdpa;
  std::vector<Term> t;
  for (size_t i = 0; i < n; ++i) {
    const Dy x = to_dy(v.terms[i][0].v), y = to_dy(v.terms[i][1].v);
    Dy prod = mul(x, y);
    // widen_to_f16: the operands are read as the f16 values they equal (f16's emin).
    const Fmt ea = p.widen_to_f16 ? Fmt::f16 : fa, eb = p.widen_to_f16 ? Fmt::f16 : fb;
    int e = prod.m == 0 ? p.e_zero : E_dy(x, ea) + E_dy(y, eb);
    if (scaled) {
      const Dy sa = to_dy(v.sA[i].v), sb = to_dy(v.sB[i].v);
      prod = mul(prod, mul(sa, sb));
      e = prod.m == 0 ? p.e_zero : e + E_dy(sa, scales->fmt) + E_dy(sb, scales->fmt);
    }
    t.push_back({prod, e});
  }
  if (n < static_cast<size_t>(p.L)) t.push_back({Dy{}, p.e_zero});
  return t;
}

// Stage 2a, GST-FDPA terms: each group of `group` products summed exactly, times its scales;
// exponent E(sA_g)+E(sB_g), or e_zero when all its products or its scale product are zero
// (a group that cancels to 0 keeps its exponent); groups past the step's end are zero.
std::vector<Term> group_terms(const DatapathParams& p, const StepValues& v, const BlockScales* scales) {
  const size_t n = v.terms.size();
  const size_t G = static_cast<size_t>(p.group);
  const size_t ngroups = static_cast<size_t>(p.L) / G;
  std::vector<Term> t;
  for (size_t g = 0; g < ngroups; ++g) {
    if (g * G >= n) {
      t.push_back({Dy{}, p.e_zero});
      continue;
    }
    Dy sum;  // the group's products summed exactly
    bool any = false;
    for (size_t i = g * G; i < std::min(n, (g + 1) * G); ++i) {
      const Dy prod = mul(to_dy(v.terms[i][0].v), to_dy(v.terms[i][1].v));
      if (prod.m != 0) any = true;
      sum = add(sum, prod);
    }
    const Dy sa = to_dy(v.sA[g * G].v), sb = to_dy(v.sB[g * G].v);
    const Dy scale = mul(sa, sb);
    const int e = (!any || scale.m == 0) ? p.e_zero : E_dy(sa, scales->fmt) + E_dy(sb, scales->fmt);
    t.push_back({mul(sum, scale), e});
  }
  return t;
}

// Stage 2b, align and sum: q = max(e_i) - F, S = sum trunc0(t_i / 2^q) (exact integer).
Integer align_and_sum(const DatapathParams& p, const std::vector<Term>& terms, int& q) {
  int emax = INT_MIN;
  for (const Term& t : terms) emax = std::max(emax, t.second);
  q = emax - p.F;
  Integer S = 0;
  for (const Term& t : terms) S += trunc_dy(t.first, q);
  return S;
}

// Stage 3, round: d = rho(S * 2^q); with positive_zero a sum that rounds to zero is +0
// whatever its sign.
uint64_t round_step(const DatapathParams& p, const Integer& S, int q) {
  const Fmt out = output_format(p.rounding);
  uint64_t d = rho(p.rounding, Rational(S) * pow2(q));
  if (p.positive_zero && (d == 0x8000u && out == Fmt::f16)) d = 0;
  if (p.positive_zero && (d == 0x80000000u && out == Fmt::f32)) d = 0;
  return d;
}

// Stage 4, C added after: an IEEE f32 addition rounding to nearest even (C finite here:
// specials were handled before).
uint64_t add_c_after(uint64_t d, const ExactValue& c) {
  const ExactValue pv = value_of(Fmt::f32, d);
  if (pv.kind == ExactValue::inf) return d;
  const Rational sum = pv.v + c.v;
  const bool both_neg_zero = sum == 0 && pv.neg && c.neg && pv.v == 0 && c.v == 0;
  return round_to(sum, Fmt::f32, Round::rn, both_neg_zero);
}

}  // namespace

uint64_t fdpa_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                   uint64_t c, const BlockScales* scales) {
  const size_t n = a.size();
  if (b.size() != n || n > static_cast<size_t>(p.L)) throw std::invalid_argument("bad step length");
  const bool scaled = p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa;
  if (scaled && !scales) throw std::invalid_argument("scales required");
  if (p.kind == DatapathKind::integer) return integer_step(p, fa, fb, a, b, c);

  const StepValues v = decode_step(p, fa, fb, a, b, c, scales);                   // 0. decode
  if (Special s = specials(output_format(p.rounding), v.terms, v.c); s.any) return s.code;  // 1. specials
  std::vector<Term> terms = p.kind == DatapathKind::gst_fdpa ? group_terms(p, v, scales)  // 2. terms
                                                             : product_terms(p, fa, fb, v, scales);
  const bool c_fused = p.c_entry != CEntry::rne_f32_after || p.kind == DatapathKind::gst_fdpa;
  if (c_fused) {
    const Dy cd = to_dy(v.c.v);
    terms.push_back({cd, cd.m == 0 ? p.e_zero : E_dy(cd, output_format(p.rounding))});
  }
  int q = 0;
  const Integer S = align_and_sum(p, terms, q);                                   //    align, sum
  const uint64_t d = round_step(p, S, q);                                         // 3. round
  return c_fused ? d : add_c_after(d, v.c);                                       // 4. C after
}

namespace {

// IEEE addition, round to nearest even, of two f32 or f16 codes (finite or not).
uint64_t ieee_add_rn(Fmt out, uint64_t x, uint64_t y) {
  const ExactValue u = value_of(out, x), v = value_of(out, y);
  if (u.kind == ExactValue::nan || v.kind == ExactValue::nan) return ref_nan_code(out);
  if (u.kind == ExactValue::inf && v.kind == ExactValue::inf)
    return u.neg == v.neg ? ref_inf_code(out, u.neg) : ref_nan_code(out);
  if (u.kind == ExactValue::inf) return ref_inf_code(out, u.neg);
  if (v.kind == ExactValue::inf) return ref_inf_code(out, v.neg);
  const Rational sum = u.v + v.v;
  return round_to(sum, out, Round::rn, sum == 0 && u.neg && v.neg);
}

// The forms defined per instruction (written like the published definitions, for the H200 finding,
// docs/hw-h200.md): an instruction is 2L terms with k-pair halves (first the k with
// floor(k/2) even, then odd), else L; its steps chain from +0 and its result is added to the
// running D by an IEEE add (C added after the instruction), or chain from D.
uint64_t instruction_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a,
                         std::span<const uint64_t> b, uint64_t c) {
  const size_t IK = static_cast<size_t>(p.kpair_halves ? 2 * p.L : p.L), L = static_cast<size_t>(p.L);
  const bool after = p.c_entry == CEntry::rne_after_instruction;
  const Fmt out = output_format(p.rounding);
  uint64_t d = c;
  for (size_t k0 = 0; k0 == 0 || k0 < a.size(); k0 += IK) {
    std::vector<uint64_t> xa, xb;
    for (int half = 0; half < (p.kpair_halves ? 2 : 1); ++half)
      for (size_t k = k0; k < k0 + IK; ++k) {
        if (p.kpair_halves && static_cast<int>(((k - k0) / 2) % 2) != half) continue;
        xa.push_back(k < a.size() ? a[k] : 0);
        xb.push_back(k < a.size() ? b[k] : 0);
      }
    uint64_t t = after ? 0 : d;
    for (size_t j = 0; j < IK; j += L)
      t = ref::fdpa_step(p, fa, fb, std::span<const uint64_t>(xa).subspan(j, L), std::span<const uint64_t>(xb).subspan(j, L), t);
    d = after ? ieee_add_rn(out, d, t) : t;
  }
  return d;
}

}  // namespace

uint64_t fdpa_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                  uint64_t c, const BlockScales* scales) {
  if (p.kpair_halves || p.c_entry == CEntry::rne_after_instruction) return instruction_dot(p, fa, fb, a, b, c);
  const size_t L = static_cast<size_t>(p.L);
  uint64_t d = c;
  if (a.empty()) return ref::fdpa_step(p, fa, fb, a, b, c, scales);
  for (size_t k = 0; k < a.size(); k += L) {
    const size_t m = std::min(L, a.size() - k);
    if (scales) {
      const size_t off = k / static_cast<size_t>(scales->block);
      BlockScales s{scales->fmt, scales->block, scales->a.subspan(off), scales->b.subspan(off)};
      d = ref::fdpa_step(p, fa, fb, a.subspan(k, m), b.subspan(k, m), d, &s);
    } else {
      d = ref::fdpa_step(p, fa, fb, a.subspan(k, m), b.subspan(k, m), d, nullptr);
    }
  }
  return d;
}

ExactValue exact_dot(Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b, Fmt fc, uint64_t c,
                     const BlockScales* scales) {
  std::vector<std::vector<ExactValue>> terms(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    terms[i] = {value_of(fa, a[i]), value_of(fb, b[i])};
    if (scales) {
      terms[i].push_back(value_of(scales->fmt, scales->a[i / static_cast<size_t>(scales->block)]));
      terms[i].push_back(value_of(scales->fmt, scales->b[i / static_cast<size_t>(scales->block)]));
    }
  }
  const ExactValue cv = value_of(fc, c);
  ExactValue r;
  if (Special s = specials(Fmt::f32, terms, cv); s.any) {
    if (s.code == 0x7FFFFFFF) r.kind = ExactValue::nan;
    else {
      r.kind = ExactValue::inf;
      r.neg = s.code == 0xFF800000u;
    }
    return r;
  }
  Rational sum = cv.v;
  bool all_neg_zero = cv.neg && cv.v == 0;
  for (const auto& t : terms) {
    Rational prod = 1;
    bool neg = false;
    for (const ExactValue& v : t) {
      prod *= v.v;
      neg = neg != v.neg;
    }
    all_neg_zero = all_neg_zero && prod == 0 && neg;
    sum += prod;
  }
  r.v = sum;
  r.neg = sum < 0 || (sum == 0 && all_neg_zero);
  return r;
}

uint64_t correctly_rounded(const ExactValue& x, Fmt to, Round mode) {
  if (x.kind == ExactValue::nan) return ref_nan_code(to);
  if (x.kind == ExactValue::inf) return ref_inf_code(to, x.neg);
  if (mode == Round::rz && x.v != 0) {
    // IEEE RZ overflow gives the largest finite value, unlike the tensor cores' rho.
    const uint64_t r = round_to(x.v, to, Round::rz);
    const uint64_t inf = ref_inf_code(to, false), sign = to == Fmt::f16 ? 0x8000u : 0x80000000u;
    if ((r & ~sign) == inf) return (r & sign) | (inf - 1);
    return r;
  }
  return round_to(x.v, to, mode, x.neg);
}

double ulp_error(Fmt out, uint64_t d, const Rational& exact) {
  const ExactValue dv = value_of(out, d);
  if (dv.kind != ExactValue::finite) return std::numeric_limits<double>::infinity();
  const FormatParams& l = params(out);
  const int emin = l.emin();
  const int e = exact == 0 ? emin : std::max(floor_log2(abs(exact)), emin);
  const Rational err = abs(dv.v - exact) / pow2(e - l.man_bits);
  return static_cast<double>(err);
}

double relative_error(Fmt out, uint64_t d, const Rational& exact) {
  const ExactValue dv = value_of(out, d);
  if (dv.kind != ExactValue::finite) return std::numeric_limits<double>::infinity();
  if (exact == 0) return dv.v == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return static_cast<double>(Rational(abs(dv.v - exact) / abs(exact)));
}

}  // namespace tcemu::ref
