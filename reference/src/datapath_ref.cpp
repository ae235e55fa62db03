// Reference datapath models, exact rationals, written from docs/formats.md and docs/datapath.md §1.
#include "tcemu_ref/datapath_ref.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tcemu::ref {

namespace {

// Field layout of each format, from the docs/formats.md table (kept here so that the reference
// does not depend on the emulator's descriptors).
struct Layout {
  int width, exp_bits, man_bits, bias, low_ignored;
  enum Spec { ieee, fn, ue8m0, none, integer } spec;
  bool is_signed;
};

Layout layout(Fmt f) {
  switch (f) {
    case Fmt::f64: return {64, 11, 52, 1023, 0, Layout::ieee, true};
    case Fmt::f32: return {32, 8, 23, 127, 0, Layout::ieee, true};
    case Fmt::tf32: return {32, 8, 10, 127, 13, Layout::ieee, true};
    case Fmt::f16: return {16, 5, 10, 15, 0, Layout::ieee, true};
    case Fmt::bf16: return {16, 8, 7, 127, 0, Layout::ieee, true};
    case Fmt::e4m3: return {8, 4, 3, 7, 0, Layout::fn, true};
    case Fmt::e5m2: return {8, 5, 2, 15, 0, Layout::ieee, true};
    case Fmt::e3m2: return {6, 3, 2, 3, 0, Layout::none, true};
    case Fmt::e2m3: return {6, 2, 3, 1, 0, Layout::none, true};
    case Fmt::e2m1: return {4, 2, 1, 1, 0, Layout::none, true};
    case Fmt::ue8m0: return {8, 8, 0, 127, 0, Layout::ue8m0, false};
    case Fmt::ue4m3: return {7, 4, 3, 7, 0, Layout::fn, false};
    case Fmt::s8: return {8, 0, 0, 0, 0, Layout::integer, true};
    case Fmt::u8: return {8, 0, 0, 0, 0, Layout::integer, false};
    case Fmt::s4: return {4, 0, 0, 0, 0, Layout::integer, true};
    case Fmt::u4: return {4, 0, 0, 0, 0, Layout::integer, false};
  }
  throw std::invalid_argument("unknown format");
}

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

// emin of datapath.md §1: the exponent at which subnormals are read (the smallest normal binade).
int emin_of(Fmt f) {
  const Layout l = layout(f);
  if (l.spec == Layout::ue8m0) return -127;
  return 1 - l.bias;
}


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

ExactValue value_of(Fmt f, uint64_t code) {
  const Layout l = layout(f);
  const uint64_t mask = l.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << l.width) - 1;
  code &= mask;
  code &= ~((uint64_t{1} << l.low_ignored) - 1);
  ExactValue r;
  if (l.spec == Layout::integer) {
    long long v = static_cast<long long>(code);
    if (l.is_signed && (code >> (l.width - 1))) v -= (1LL << l.width);
    r.v = Rational(v);
    r.neg = v < 0;
    return r;
  }
  const int sign_shift = l.width - 1;
  const bool neg = l.is_signed && ((code >> sign_shift) & 1);
  const uint64_t man = (code >> l.low_ignored) & ((uint64_t{1} << l.man_bits) - 1);
  const uint64_t eb = (code >> (l.low_ignored + l.man_bits)) & ((uint64_t{1} << l.exp_bits) - 1);
  const uint64_t eall = (uint64_t{1} << l.exp_bits) - 1, mall = (uint64_t{1} << l.man_bits) - 1;
  r.neg = neg;
  if (l.spec == Layout::ieee && eb == eall) {
    r.kind = man ? ExactValue::nan : ExactValue::inf;
    return r;
  }
  if (l.spec == Layout::fn && eb == eall && man == mall) {
    r.kind = ExactValue::nan;
    return r;
  }
  if (l.spec == Layout::ue8m0) {
    if (eb == eall) {
      r.kind = ExactValue::nan;
      return r;
    }
    r.v = pow2(static_cast<int>(eb) - 127);
    return r;
  }
  Rational mag;
  if (eb == 0) mag = Rational(Integer(man)) * pow2(1 - l.bias - l.man_bits);
  else mag = Rational(Integer(man + (uint64_t{1} << l.man_bits))) * pow2(static_cast<int>(eb) - l.bias - l.man_bits);
  r.v = neg ? Rational(-mag) : mag;
  return r;
}

uint64_t round_to(const Rational& x, Fmt to, Round mode, bool neg_zero) {
  const Layout l = layout(to);
  if (l.spec != Layout::ieee || (to != Fmt::f32 && to != Fmt::f16))
    throw std::invalid_argument("reference round_to supports f32 and f16");
  const uint64_t sign = uint64_t{1} << (l.width - 1);
  if (x == 0) return neg_zero ? sign : 0;
  const bool neg = x < 0;
  const Rational ax = abs(x);
  const int emin = 1 - l.bias, emax = (1 << l.exp_bits) - 2 - l.bias;
  const int e = floor_log2(ax);
  const int lsb = std::max(e, emin) - l.man_bits;
  const Rational m = ax / pow2(lsb);
  Integer t = trunc0(m);
  if (mode == Round::rn) {
    const Rational frac = m - Rational(t);
    const Rational half(1, 2);
    if (frac > half || (frac == half && (t & 1) != 0)) t += 1;
  } else if (mode != Round::rz) {
    throw std::invalid_argument("reference round_to supports rn and rz");
  }
  const Rational v = Rational(t) * pow2(lsb);
  const uint64_t s = neg ? sign : 0;
  if (v == 0) return s;
  const int ev = floor_log2(v);
  if (ev > emax) return s | ref_inf_code(to, false);
  uint64_t code;
  if (ev < emin) {
    code = static_cast<uint64_t>(t);  // subnormal: multiples of 2^(emin - man)
  } else {
    const Integer sig = Integer(numerator(Rational(v / pow2(ev - l.man_bits))));
    code = (static_cast<uint64_t>(ev + l.bias) << l.man_bits) | (static_cast<uint64_t>(sig) - (uint64_t{1} << l.man_bits));
  }
  return s | code;
}

uint64_t fdpa_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                   uint64_t c, const BlockScales* scales) {
  const size_t n = a.size();
  if (b.size() != n || n > static_cast<size_t>(p.L)) throw std::invalid_argument("bad step length");
  const bool scaled = p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa;
  if (scaled && !scales) throw std::invalid_argument("scales required");

  if (p.kind == DatapathKind::integer) {
    Integer S = Integer(static_cast<int32_t>(static_cast<uint32_t>(c)));
    for (size_t i = 0; i < n; ++i) S += numerator(value_of(fa, a[i]).v * value_of(fb, b[i]).v);
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

  const Fmt out = output_format(p.rounding);
  const ExactValue cv = value_of(out, c);
  // Factors of each term, and the scale of each element.
  std::vector<ExactValue> sA(n), sB(n);
  std::vector<std::vector<ExactValue>> terms(n);
  for (size_t i = 0; i < n; ++i) {
    terms[i] = {value_of(fa, a[i]), value_of(fb, b[i])};
    if (scaled) {
      size_t idx = i / static_cast<size_t>(scales->block);
      if (p.kind == DatapathKind::gst_fdpa)  // the group's first element picks the block
        idx = (i / static_cast<size_t>(p.group)) * static_cast<size_t>(p.group) / static_cast<size_t>(scales->block);
      sA[i] = value_of(scales->fmt, scales->a[idx]);
      sB[i] = value_of(scales->fmt, scales->b[idx]);
      terms[i].push_back(sA[i]);
      terms[i].push_back(sB[i]);
    }
  }
  if (Special s = specials(out, terms, cv); s.any) return s.code;

  // The list of (value, exponent) terms that are aligned and truncated. Values are dyadic
  // (m * 2^e, exact): every operand is a binary float, so no rational normalisation is needed.
  std::vector<std::pair<Dy, int>> aligned;
  const bool padded = n < static_cast<size_t>(p.L);  // missing terms are zero products
  if (p.kind == DatapathKind::gst_fdpa) {
    const size_t G = static_cast<size_t>(p.group);
    const size_t ngroups = static_cast<size_t>(p.L) / G;
    for (size_t g = 0; g < ngroups; ++g) {
      if (g * G >= n) {
        aligned.push_back({Dy{}, p.e_zero});
        continue;
      }
      Dy sum;  // the group's products summed exactly
      bool any = false;
      for (size_t i = g * G; i < std::min(n, (g + 1) * G); ++i) {
        const Dy prod = mul(to_dy(terms[i][0].v), to_dy(terms[i][1].v));
        if (prod.m != 0) any = true;
        sum = add(sum, prod);
      }
      const Dy sa = to_dy(sA[g * G].v), sb = to_dy(sB[g * G].v);
      const Dy scale = mul(sa, sb);
      const int e = (!any || scale.m == 0) ? p.e_zero : E_dy(sa, scales->fmt) + E_dy(sb, scales->fmt);
      aligned.push_back({mul(sum, scale), e});
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      const Dy x = to_dy(terms[i][0].v), y = to_dy(terms[i][1].v);
      Dy prod = mul(x, y);
      // widen_to_f16: the operands are read as the f16 values they equal (f16's emin).
      const Fmt ea = p.widen_to_f16 ? Fmt::f16 : fa, eb = p.widen_to_f16 ? Fmt::f16 : fb;
      int e = prod.m == 0 ? p.e_zero : E_dy(x, ea) + E_dy(y, eb);
      if (scaled) {
        const Dy sa = to_dy(sA[i].v), sb = to_dy(sB[i].v);
        prod = mul(prod, mul(sa, sb));
        e = prod.m == 0 ? p.e_zero : e + E_dy(sa, scales->fmt) + E_dy(sb, scales->fmt);
      }
      aligned.push_back({prod, e});
    }
    if (padded) aligned.push_back({Dy{}, p.e_zero});
  }
  const bool c_fused = p.c_entry != CEntry::rne_f32_after || p.kind == DatapathKind::gst_fdpa;
  if (c_fused) {
    const Dy cd = to_dy(cv.v);
    aligned.push_back({cd, cd.m == 0 ? p.e_zero : E_dy(cd, out)});
  }

  int emax = INT_MIN;
  for (const auto& t : aligned) emax = std::max(emax, t.second);
  const int q = emax - p.F;
  Integer S = 0;
  for (const auto& t : aligned) S += trunc_dy(t.first, q);
  uint64_t d = rho(p.rounding, Rational(S) * pow2(q));
  // positive_zero: a sum that rounds to zero is +0 whatever its sign.
  if (p.positive_zero && (d == 0x8000u && out == Fmt::f16)) d = 0;
  if (p.positive_zero && (d == 0x80000000u && out == Fmt::f32)) d = 0;
  if (c_fused) return d;
  // C added afterwards by an IEEE f32 addition, round to nearest even.
  const ExactValue pv = value_of(Fmt::f32, d);
  if (pv.kind == ExactValue::inf) return d;  // c is finite here (specials handled above)
  const Rational sum = pv.v + cv.v;
  const bool both_neg_zero = sum == 0 && pv.neg && cv.neg && pv.v == 0 && cv.v == 0;
  return round_to(sum, Fmt::f32, Round::rn, both_neg_zero);
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
  const Layout l = layout(out);
  const int emin = 1 - l.bias;
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
