// The generators of tcemu::testing. Each draws from rc::Random directly (codes must be
// uniform whatever RapidCheck's size parameter is) and attaches the shrinks of
// `simpler_codes`, so that a failing case ends at the simplest failing code.
#include "tcemu/testing/generators.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>

#include "boundaries.hpp"
#include "tcemu/convert.hpp"

namespace tcemu::testing {

namespace {

// A strict order of simplicity among codes of one format (smaller is simpler).
struct Measure {
  int tier;       // 0 zero, 1 finite nonzero, 2 Inf, 3 NaN
  uint64_t dist;  // distance of the exponent field from 1.0's (integers: the magnitude)
  int pop;        // set fraction bits
  int sign;
  auto operator<=>(const Measure&) const = default;
};

uint64_t exp_field(const FormatInfo& fi, uint64_t code) {
  return (code >> (fi.man_shift + fi.man_bits)) & ((uint64_t{1} << fi.exp_bits) - 1);
}
uint64_t man_field(const FormatInfo& fi, uint64_t code) {
  return (code >> fi.man_shift) & ((uint64_t{1} << fi.man_bits) - 1);
}
uint64_t pack(const FormatInfo& fi, bool sign, uint64_t eb, uint64_t man) {
  return (sign ? fi.sign_mask() : 0) | (eb << (fi.man_shift + fi.man_bits)) | (man << fi.man_shift);
}

Measure measure(Fmt f, uint64_t code) {
  const FormatInfo& fi = info(f);
  const Decoded d = decode(f, code);
  if (fi.is_int) return {d.sig == 0 ? 0 : 1, d.sig, 0, d.sign ? 1 : 0};
  const int tier = d.cls == Class::zero ? 0 : d.cls == Class::nan ? 3 : d.cls == Class::inf ? 2 : 1;
  const auto eb = static_cast<int64_t>(exp_field(fi, code));
  const uint64_t dist = static_cast<uint64_t>(eb > fi.bias ? eb - fi.bias : fi.bias - eb);
  return {tier, dist, std::popcount(man_field(fi, code)), d.sign ? 1 : 0};
}

// The code that shrinking aims at: +0, or 1.0 for ue8m0, which has no zero.
uint64_t simplest(Fmt f) {
  if (const auto z = zero_code(f)) return *z;
  return *encode_exact(f, false, 1, 0);
}

using Draw = std::function<Code(rc::Random&)>;

rc::Gen<Code> make_gen(Draw draw) {
  return rc::Gen<Code>([draw](const rc::Random& random, int) {
    rc::Random r = random;
    return rc::shrinkable::shrinkRecur(draw(r), [](const Code& c) { return rc::seq::fromContainer(simpler_codes(c)); });
  });
}

uint64_t below(rc::Random& r, uint64_t n) { return n == 0 ? 0 : r.next() % n; }

uint64_t arbitrary_bits(Fmt f, rc::Random& r) {
  const FormatInfo& fi = info(f);
  uint64_t c = r.next() & fi.code_mask();
  if (fi.man_shift) c &= ~((uint64_t{1} << fi.man_shift) - 1);
  return c;
}

// The codes of each special category of a format (empty categories left out).
std::vector<std::vector<uint64_t>> special_categories(Fmt f) {
  const FormatInfo& fi = info(f);
  std::vector<std::vector<uint64_t>> cats;
  auto both = [&](uint64_t pos) {
    std::vector<uint64_t> v{pos};
    if (fi.is_signed && !fi.is_int) v.push_back(pos | fi.sign_mask());
    return v;
  };
  if (fi.is_int) {
    cats.push_back({0});
    cats.push_back({1});
    if (fi.is_signed) cats.push_back({fi.code_mask()});  // -1
    cats.push_back({max_finite_code(f, false)});
    if (fi.is_signed) cats.push_back({max_finite_code(f, true)});
    return cats;
  }
  if (const auto z = zero_code(f, false)) cats.push_back({*z});
  if (fi.is_signed) {
    if (const auto z = zero_code(f, true)) cats.push_back({*z});
  }
  if (const auto s = min_subnormal_code(f)) {
    cats.push_back(both(*s));
    cats.push_back(both(min_normal_code(f) - (uint64_t{1} << fi.man_shift)));  // largest subnormal
  }
  cats.push_back(both(min_normal_code(f)));
  cats.push_back(both(max_finite_code(f, false)));
  if (const auto inf = inf_code(f)) cats.push_back(both(*inf));
  return cats;
}

}  // namespace

std::vector<Code> simpler_codes(const Code& c) {
  const Fmt f = c.fmt;
  const FormatInfo& fi = info(f);
  const uint64_t code = c.bits & fi.code_mask();
  const Measure m = measure(f, code);
  std::vector<uint64_t> cand;
  const Class cls = classify(f, code);
  if (fi.is_int) {
    const auto o = *ordinal(f, code);
    for (int64_t v : {int64_t{0}, o / 2, o > 0 ? o - 1 : o + 1, -o})
      if (const auto k = code_at_ordinal(f, v)) cand.push_back(*k);
  } else if (cls == Class::nan) {
    // Every NaN is as simple as any other but the canonical one, the end of a NaN's shrinking.
    std::vector<Code> out{Code{f, simplest(f)}};
    const auto cn = canonical_nan(f);
    if (cn && (*cn & fi.code_mask() & ~((uint64_t{1} << fi.man_shift) - 1)) != code) {
      out.push_back(Code{f, *cn & ~((uint64_t{1} << fi.man_shift) - 1)});
    }
    return out;
  } else if (cls == Class::inf) {
    cand = {simplest(f), max_finite_code(f, (code & fi.sign_mask()) != 0), code & ~fi.sign_mask()};
  } else {
    const bool sign = (code & fi.sign_mask()) != 0;
    const uint64_t eb = exp_field(fi, code), man = man_field(fi, code);
    const auto bias = static_cast<uint64_t>(fi.bias);
    cand.push_back(simplest(f));
    cand.push_back(pack(fi, sign, bias, man));  // the binade of 1.0
    cand.push_back(pack(fi, sign, eb, 0));      // no fraction bits
    cand.push_back(pack(fi, sign, (eb + bias) / 2, man));
    cand.push_back(pack(fi, sign, eb < bias ? eb + 1 : eb - 1, man));
    for (int j = fi.man_bits; j > 0; --j) cand.push_back(pack(fi, sign, eb, man & ~((uint64_t{1} << j) - 1)));
    cand.push_back(pack(fi, sign, eb, man & (man - 1)));  // the lowest set bit cleared
    if (sign) cand.push_back(code & ~fi.sign_mask());
  }
  std::vector<Code> out;
  for (uint64_t k : cand) {
    if (!is_valid_code(f, k) || classify(f, k) == Class::nan) continue;
    if (!(measure(f, k) < m)) continue;
    if (std::find(out.begin(), out.end(), Code{f, k}) == out.end()) out.push_back(Code{f, k});
  }
  return out;
}

namespace gen {

rc::Gen<Code> arbitrary(Fmt f) {
  return make_gen([f](rc::Random& r) { return Code{f, arbitrary_bits(f, r)}; });
}

rc::Gen<Code> special(Fmt f) {
  const auto cats = special_categories(f);
  const FormatInfo& fi = info(f);
  const bool ieee = fi.specials == Specials::ieee;
  const auto cn = canonical_nan(f);
  return make_gen([f, cats, ieee, cn, &fi](rc::Random& r) {
    const size_t n = cats.size() + (cn ? 1 : 0);
    const size_t k = below(r, n);
    if (k < cats.size()) return Code{f, cats[k][below(r, cats[k].size())]};
    // NaN encodings: the canonical one with either sign, and IEEE quiet / signalling NaNs
    // with random payloads.
    uint64_t nan = *cn & ~((uint64_t{1} << fi.man_shift) - 1);  // tf32: its container's low bits clear
    const int kind = ieee ? static_cast<int>(below(r, 3)) : 0;
    if (kind > 0) {
      const uint64_t quiet = uint64_t{1} << (fi.man_shift + fi.man_bits - 1);
      const uint64_t frac_mask = ((uint64_t{1} << fi.man_bits) - 1) << fi.man_shift;
      const uint64_t exp_mask = ((uint64_t{1} << fi.exp_bits) - 1) << (fi.man_shift + fi.man_bits);
      uint64_t payload = r.next() & frac_mask & ~quiet;
      if (kind == 2 && payload == 0) payload = uint64_t{1} << fi.man_shift;  // signalling needs a bit
      nan = exp_mask | payload | (kind == 1 ? quiet : 0);
    }
    if (fi.is_signed && (r.next() & 1)) nan |= fi.sign_mask();
    return Code{f, nan};
  });
}

rc::Gen<Code> tie(Fmt src, Fmt dst) {
  const auto& pts = detail::tie_points(src, dst);
  const auto& edges = detail::edge_tie_points(src, dst);
  const bool wide = info(dst).width > 16;
  return make_gen([src, dst, &pts, &edges, wide](rc::Random& r) {
    if (pts.empty()) {
      std::string msg = "tcemu::testing::gen::tie: ";
      msg += info(src).name;
      msg += " holds no rounding tie of ";
      msg += info(dst).name;
      throw rc::GenerationFailure(msg);
    }
    // Half the draws at the edges (zero corner, subnormal boundary, binade edges, top), half
    // anywhere.
    if (!edges.empty() && (r.next() & 1)) return Code{src, edges[below(r, edges.size())]};
    if (wide) {
      // A random pair of neighbours, when src holds their midpoint.
      const int64_t lo = detail::min_ordinal(dst), hi = detail::max_ordinal(dst);
      for (int tries = 0; tries < 16; ++tries) {
        const int64_t k = lo + static_cast<int64_t>(below(r, static_cast<uint64_t>(hi - lo)));
        if (const auto t = detail::midpoint_in(src, dst, k)) {
          std::vector<uint64_t> around;
          detail::add_with_neighbours(src, *t, around);
          return Code{src, around[below(r, around.size())]};
        }
      }
    }
    return Code{src, pts[below(r, pts.size())]};
  });
}

rc::Gen<Code> overflow(Fmt src, Fmt dst) {
  const auto& pts = detail::overflow_points(src, dst);
  return make_gen([src, dst, &pts](rc::Random& r) {
    if (pts.empty()) {
      std::string msg = "tcemu::testing::gen::overflow: every overflow threshold of ";
      msg += info(dst).name;
      msg += " lies beyond ";
      msg += info(src).name;
      throw rc::GenerationFailure(msg);
    }
    return Code{src, pts[below(r, pts.size())]};
  });
}

rc::Gen<Code> negative(Fmt src) {
  const FormatInfo& fi = info(src);
  return make_gen([src, &fi](rc::Random& r) {
    if (!fi.is_signed) throw rc::GenerationFailure("tcemu::testing::gen::negative: the format has no negative values");
    for (;;) {
      uint64_t c;
      switch (below(r, 4)) {
        case 0: c = *zero_code(src, true); break;
        case 1: c = max_finite_code(src, true); break;
        case 2: c = fi.is_int ? fi.code_mask() : (min_subnormal_code(src).value_or(min_normal_code(src)) | fi.sign_mask()); break;
        default: c = arbitrary_bits(src, r) | fi.sign_mask(); break;
      }
      const Class cls = classify(src, c);
      if (cls != Class::nan && cls != Class::inf) return Code{src, c};
    }
  });
}

namespace {
rc::Gen<Code> mix(std::vector<std::pair<int, rc::Gen<Code>>> parts) {
  std::erase_if(parts, [](const auto& p) { return p.first <= 0; });
  int total = 0;
  for (const auto& p : parts) total += p.first;
  return rc::Gen<Code>([parts, total](const rc::Random& random, int size) {
    rc::Random r = random;
    int pick = static_cast<int>(below(r, static_cast<uint64_t>(total)));
    for (const auto& [w, g] : parts) {
      if (pick < w) return g(rc::Random(r.next()), size);
      pick -= w;
    }
    return parts.back().second(rc::Random(r.next()), size);
  });
}
}  // namespace

rc::Gen<Code> interesting(Fmt f, Weights w) {
  return mix({{w.special, special(f)}, {w.arbitrary, arbitrary(f)}});
}

rc::Gen<Code> interesting(Fmt src, Fmt dst, Weights w) {
  std::vector<std::pair<int, rc::Gen<Code>>> parts{{w.special, special(src)}, {w.arbitrary, arbitrary(src)}};
  if (!detail::tie_points(src, dst).empty()) parts.emplace_back(w.tie, tie(src, dst));
  if (!detail::overflow_points(src, dst).empty()) parts.emplace_back(w.overflow, overflow(src, dst));
  if (!info(dst).is_signed && info(src).is_signed) parts.emplace_back(w.negative, negative(src));
  return mix(std::move(parts));
}

rc::Gen<Code> spread(Fmt f, Spread s) {
  const auto sp = special(f);
  return make_gen([f, s, sp](rc::Random& r) {
    const FormatInfo& fi = info(f);
    const int roll = static_cast<int>(below(r, 100));
    if (roll < s.zero_percent && zero_code(f)) return Code{f, *zero_code(f, fi.is_signed && (r.next() & 1))};
    if (roll < s.zero_percent + s.special_percent) return sp(rc::Random(r.next()), 0).value();
    const bool sign = fi.is_signed && (r.next() & 1);
    if (fi.is_int) {
      const int bits = std::clamp(s.hi + 1, 0, fi.width - (fi.is_signed ? 1 : 0));
      const int64_t mag = static_cast<int64_t>(below(r, uint64_t{1} << bits));
      return Code{f, *code_at_ordinal(f, sign ? -mag : mag)};
    }
    const int lowest = fi.has_subnormals ? fi.emin() - fi.man_bits : fi.emin();
    const int lo = std::clamp(s.lo, lowest, fi.emax()), hi = std::clamp(s.hi, lo, fi.emax());
    for (;;) {
      const int e = lo + static_cast<int>(below(r, static_cast<uint64_t>(hi - lo + 1)));
      uint64_t code;
      const uint64_t frac = r.next() & ((uint64_t{1} << fi.man_bits) - 1);
      if (e >= fi.emin()) {
        code = pack(fi, sign, static_cast<uint64_t>(e + fi.bias), frac);
      } else {  // a subnormal whose leading bit has weight 2^e
        const int p = e - (fi.emin() - fi.man_bits);
        code = pack(fi, sign, 0, (uint64_t{1} << p) | (frac & ((uint64_t{1} << p) - 1)));
      }
      if (classify(f, code) != Class::nan) return Code{f, code};
    }
  });
}

namespace {
rc::Gen<Codes> codes_of(Fmt f, int rows, int cols, Spread s) {
  const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  return rc::gen::map(rc::gen::container<std::vector<Code>>(n, spread(f, s)), [f, rows, cols](const std::vector<Code>& v) {
    Codes c{f, {}, rows, cols};
    c.bits.reserve(v.size());
    for (const Code& x : v) c.bits.push_back(x.bits);
    return c;
  });
}
}  // namespace

rc::Gen<Codes> vector(Fmt f, size_t n, Spread s) { return codes_of(f, 1, static_cast<int>(n), s); }
rc::Gen<Codes> matrix(Fmt f, int rows, int cols, Spread s) { return codes_of(f, rows, cols, s); }

std::string_view to_string(BlockPattern p) {
  switch (p) {
    case BlockPattern::ordinary: return "ordinary";
    case BlockPattern::zero: return "zero";
    case BlockPattern::saturating: return "saturating";
    case BlockPattern::nan_scale: return "nan_scale";
    case BlockPattern::extreme_scale: return "extreme_scale";
  }
  return "?";
}

void showValue(const ScaledBlock& b, std::ostream& os) {
  os << to_string(b.pattern) << " block, scale " << describe(b.scale) << ", elements ";
  testing::showValue(b.elems, os);
}

rc::Gen<ScaledBlock> scaled_block(Fmt elem, Fmt scale_fmt, size_t size, BlockPattern p) {
  return rc::Gen<ScaledBlock>([=](const rc::Random& random, int) {
    rc::Random r = random;
    const FormatInfo& fs = info(scale_fmt);
    const FormatInfo& fe = info(elem);
    // A positive scale near 1.0: biased exponent within 3 binades of the bias.
    auto near_one = [&] {
      const uint64_t eb = static_cast<uint64_t>(fs.bias) - 3 + below(r, 7);
      return pack(fs, false, eb, below(r, uint64_t{1} << fs.man_bits));
    };
    ScaledBlock b;
    b.pattern = p;
    b.elems = Codes{elem, {}, 1, static_cast<int>(size)};
    const auto spread_gen = spread(elem, Spread{-2, 2, 5, 0});
    auto fill_spread = [&] {
      for (size_t i = 0; i < size; ++i) b.elems.bits.push_back(spread_gen(rc::Random(r.next()), 0).value().bits);
    };
    switch (p) {
      case BlockPattern::ordinary:
        b.scale = {scale_fmt, near_one()};
        fill_spread();
        break;
      case BlockPattern::zero:
        b.scale = {scale_fmt, near_one()};
        for (size_t i = 0; i < size; ++i) b.elems.bits.push_back(*zero_code(elem, fe.is_signed && (r.next() & 1)));
        break;
      case BlockPattern::saturating:
        b.scale = {scale_fmt, max_finite_code(scale_fmt, false)};
        for (size_t i = 0; i < size; ++i) b.elems.bits.push_back(max_finite_code(elem, fe.is_signed && (r.next() & 1)));
        break;
      case BlockPattern::nan_scale:
        b.scale = {scale_fmt, canonical_nan(scale_fmt).value_or(max_finite_code(scale_fmt, false))};
        fill_spread();
        break;
      case BlockPattern::extreme_scale: {
        const uint64_t smallest = fs.has_zero ? min_subnormal_code(scale_fmt).value_or(min_normal_code(scale_fmt)) : 0;
        b.scale = {scale_fmt, (r.next() & 1) ? smallest : max_finite_code(scale_fmt, false)};
        fill_spread();
        break;
      }
    }
    return rc::shrinkable::just(b);
  });
}

rc::Gen<ScaledBlock> scaled_block(Fmt elem, Fmt scale_fmt, size_t size) {
  return rc::gen::mapcat(rc::gen::element(BlockPattern::ordinary, BlockPattern::zero, BlockPattern::saturating,
                                          BlockPattern::nan_scale, BlockPattern::extreme_scale),
                         [=](BlockPattern p) { return scaled_block(elem, scale_fmt, size, p); });
}

void showValue(const F32Tensor& t, std::ostream& os) {
  os << t.rows << "x" << t.cols << " f32 [";
  for (size_t i = 0; i < t.values.size(); ++i) {
    if (i) os << ", ";
    os << value_string(Fmt::f32, std::bit_cast<uint32_t>(t.values[i]));
  }
  os << "]";
}

rc::Gen<F32Tensor> quantizer_input(size_t rows, size_t cols, size_t block, Fmt elem) {
  return rc::Gen<F32Tensor>([=](const rc::Random& random, int) {
    rc::Random r = random;
    const Decoded m = decode(elem, max_finite_code(elem, false));
    const float max_elem = std::ldexp(static_cast<float>(m.sig), m.exp);
    auto uniform = [&] { return static_cast<float>(r.next() >> 40) * 0x1p-24f; };  // [0, 1)
    auto sign = [&] { return (r.next() & 1) ? -1.0f : 1.0f; };
    F32Tensor t{rows, cols, std::vector<float>(rows * cols, 0.0f)};
    for (size_t row = 0; row < rows; ++row) {
      for (size_t c0 = 0; c0 < cols; c0 += block) {
        const size_t n = std::min(block, cols - c0);
        float* x = &t.values[row * cols + c0];
        const uint64_t kind = below(r, 7);
        float amax = std::ldexp(1.0f + uniform(), static_cast<int>(below(r, 21)) - 10);
        if (kind == 1) {  // a scale boundary: max_elem * 2^k, or one f32 ulp either side
          amax = std::ldexp(max_elem, static_cast<int>(below(r, 41)) - 20);
          const uint64_t side = below(r, 3);
          if (side == 0) amax = std::nextafter(amax, 0.0f);
          if (side == 2) amax = std::nextafter(amax, std::numeric_limits<float>::infinity());
        }
        if (kind == 4) amax = std::ldexp(1.0f + uniform(), 127 - static_cast<int>(below(r, 3)));  // near FLT_MAX
        if (kind == 5) amax = std::ldexp(1.0f + uniform(), -130 - static_cast<int>(below(r, 18)));  // subnormal
        if (kind == 0) continue;  // all zeros
        for (size_t i = 0; i < n; ++i) x[i] = sign() * amax * uniform();
        x[below(r, n)] = sign() * amax;
        if (kind == 2) x[below(r, n)] = std::numeric_limits<float>::quiet_NaN();
        if (kind == 3) x[below(r, n)] = sign() * std::numeric_limits<float>::infinity();
      }
    }
    return rc::shrinkable::just(t);
  });
}

}  // namespace gen
}  // namespace tcemu::testing
