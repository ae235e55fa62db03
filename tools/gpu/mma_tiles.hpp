// Tile contents for mma_record: element codes from values (exact encoding only), the directed
// probes of docs/sources.md, "Directed probes" and random tiles. Host only; uses tcemu's format table and decode()
// (both header-only), so the recorded inputs do not depend on the conversions under test.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpu_common.hpp"
#include "tcemu/format.hpp"

namespace tcemu_gpu {

using tcemu::Fmt;

// Element formats, the int32 accumulator of integer MMA (Fmt::s32) included.
inline const char* fmt_name(Fmt f) { return tcemu::info(f).name.data(); }
inline int fmt_bits(Fmt f) { return tcemu::info(f).width; }

// One MMA problem in element codes: D = A*B + C, A row-major M x K, B row-major K x N.
struct Tile {
  std::string label;
  std::vector<uint64_t> a, b, c, d;
};

struct TileFormats {
  Fmt a, b, c, d;
  int m, n, k;
};

// The code of a value the format holds exactly; nullopt when it does not. NaN gives the
// format's canonical NaN (all exponent and fraction bits set), Inf the Inf code.
inline std::optional<uint64_t> encode_exact(Fmt f, double v) {
  const tcemu::FormatInfo& fi = tcemu::info(f);
  if (fi.is_int) {
    if (std::isnan(v) || v != std::floor(v)) return std::nullopt;
    const double lo = fi.is_signed ? -std::ldexp(1.0, fi.width - 1) : 0.0;
    const double hi = fi.is_signed ? std::ldexp(1.0, fi.width - 1) - 1 : std::ldexp(1.0, fi.width) - 1;
    if (v < lo || v > hi) return std::nullopt;
    return static_cast<uint64_t>(static_cast<int64_t>(v)) & fi.code_mask();
  }
  const uint64_t sign = std::signbit(v) ? fi.sign_mask() : 0;
  const int top = (1 << fi.exp_bits) - 1;
  const uint64_t man_all = (uint64_t{1} << fi.man_bits) - 1;
  auto pack = [&](uint64_t be, uint64_t man) { return sign | (((be << fi.man_bits) | man) << fi.man_shift); };
  if (std::isnan(v)) {
    if (!fi.has_nan()) return std::nullopt;
    return (((uint64_t(top) << fi.man_bits) | man_all) << fi.man_shift);
  }
  if (std::isinf(v)) {
    if (!fi.has_inf()) return std::nullopt;
    return pack(top, 0);
  }
  if (v == 0) return sign;
  if (sign && !fi.is_signed) return std::nullopt;
  const double a = std::fabs(v);
  int e = std::ilogb(a);
  if (e > fi.emax()) return std::nullopt;
  if (e < fi.emin()) e = fi.emin();
  const double s = std::ldexp(a, fi.man_bits - e);
  if (s != std::floor(s)) return std::nullopt;
  const uint64_t sig = static_cast<uint64_t>(s);
  uint64_t code;
  if (sig < (uint64_t{1} << fi.man_bits)) {
    if (!fi.has_subnormals) return std::nullopt;
    code = pack(0, sig);
  } else {
    const uint64_t be = static_cast<uint64_t>(e + fi.bias);
    code = pack(be, sig - (uint64_t{1} << fi.man_bits));
    if (fi.specials == tcemu::Specials::nan_all_ones && be == uint64_t(top) && (sig & man_all) == man_all)
      return std::nullopt;
  }
  return code;
}

// Value of a finite code (integers: the integer); NaN for NaN, +-Inf for Inf.
inline double value_of(Fmt f, uint64_t code) {
  const tcemu::Decoded d = tcemu::decode(f, code);
  switch (d.cls) {
    case tcemu::Class::nan: return std::nan("");
    case tcemu::Class::inf: return d.sign ? -INFINITY : INFINITY;
    default: {
      const double m = std::ldexp(static_cast<double>(d.sig), d.exp);
      return d.sign ? -m : m;
    }
  }
}

inline double max_finite(Fmt f) {
  const tcemu::FormatInfo& fi = tcemu::info(f);
  if (fi.is_int) return fi.is_signed ? std::ldexp(1.0, fi.width - 1) - 1 : std::ldexp(1.0, fi.width) - 1;
  return std::ldexp(static_cast<double>(fi.max_sig()), fi.emax() - fi.man_bits);
}

// A tile written in values. Scalable tiles keep their meaning when A is multiplied by 2^s1,
// B by 2^s2 and C by 2^(s1+s2); realize() searches such scales until every value is
// representable. Soft C elements that still do not fit become +0.
struct ValTile {
  std::string label;
  std::vector<double> a, b, c;
  bool scalable = true;
  bool soft_c = false;
};

inline std::optional<Tile> realize(const ValTile& v, const TileFormats& tf) {
  auto try_scale = [&](int s1, int s2) -> std::optional<Tile> {
    Tile t;
    t.label = v.label;
    if (s1 || s2) t.label += " (scaled: A*2^" + std::to_string(s1) + ", B*2^" + std::to_string(s2) + ")";
    for (double x : v.a) {
      auto c = encode_exact(tf.a, std::ldexp(x, s1));
      if (!c) return std::nullopt;
      t.a.push_back(*c);
    }
    for (double x : v.b) {
      auto c = encode_exact(tf.b, std::ldexp(x, s2));
      if (!c) return std::nullopt;
      t.b.push_back(*c);
    }
    for (double x : v.c) {
      auto c = encode_exact(tf.c, std::ldexp(x, s1 + s2));
      if (!c) {
        if (!v.soft_c) return std::nullopt;
        c = encode_exact(tf.c, 0.0);
      }
      t.c.push_back(*c);
    }
    return t;
  };
  if (!v.scalable) return try_scale(0, 0);
  // Smallest |s1| + |s2| first.
  for (int r = 0; r <= 60; ++r)
    for (int s1 = -r; s1 <= r; ++s1)
      for (int sg : {1, -1}) {
        const int s2 = sg * (r - std::abs(s1));
        if (sg == -1 && s2 == 0) continue;
        if (auto t = try_scale(s1, s2)) return t;
      }
  return std::nullopt;
}

// Directed probes (docs/sources.md, "Directed probes"), as value tiles. Every row of A holds the probe's a vector
// and every column of B its b vector unless said otherwise, so each D element repeats the
// experiment with its own C. ProbeSet holds the tile shape and the helpers; each add_* step
// appends one family of probes, in the order directed_probes calls them.
struct ProbeSet {
  explicit ProbeSet(const TileFormats& f) : tf(f), M(f.m), N(f.n), K(f.k), MN(f.m * f.n) {}
  const TileFormats& tf;
  const int M, N, K, MN;
  std::vector<ValTile> out;

  ValTile blank(const std::string& label) const {
    ValTile v;
    v.label = label;
    v.a.assign(M * K, 0.0);
    v.b.assign(K * N, 0.0);
    v.c.assign(MN, 0.0);
    return v;
  }
  void rows(ValTile& v, const std::vector<double>& a) const {
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < K && k < static_cast<int>(a.size()); ++k) v.a[m * K + k] = a[k];
  }
  void cols(ValTile& v, const std::vector<double>& b) const {
    for (int k = 0; k < K && k < static_cast<int>(b.size()); ++k)
      for (int n = 0; n < N; ++n) v.b[k * N + n] = b[k];
  }
  void allc(ValTile& v, double c) const { v.c.assign(MN, c); }
};

// The one-shot discriminator and F via C with halving.
inline void add_discriminator_probes(ProbeSet& p) {
  const int MN = p.MN;
  std::vector<ValTile>& out = p.out;
  // One-shot discriminator [MS] and its mirror.
  for (int s : {1, -1}) {
    ValTile v = p.blank(s > 0 ? "probe:one-shot-discriminator" : "probe:one-shot-discriminator-mirror");
    p.rows(v, {-s * 0x1p13, -s * 0.5, -s * 0.25, -s * 0.125});
    p.cols(v, {0x1p10, 1, 1, 1});
    p.allc(v, s * 0x1p23);
    out.push_back(v);
  }
  // F via C with halving [MS]: products +-2^14 cancel, C[i] = +-2^(13-i).
  for (int s : {1, -1}) {
    ValTile v = p.blank(s > 0 ? "probe:F-via-C-halving" : "probe:F-via-C-halving-negative");
    p.rows(v, {0x1p7, -0x1p7});
    p.cols(v, {0x1p7, 0x1p7});
    for (int i = 0; i < MN; ++i) v.c[i] = s * std::ldexp(1.0, 13 - i);
    v.soft_c = true;
    out.push_back(v);
  }
}

inline void add_alignment_probes(ProbeSet& p) {
  const int MN = p.MN;
  std::vector<ValTile>& out = p.out;
  // Alignment rounding: C = +-q * 2^(14-f), q in {0.25 .. 1.75}, f in 18..33, with the
  // cancelling pair; the truncation of C below 2^(14-F) shows.
  {
    std::vector<double> cs;
    for (int s : {1, -1})
      for (int f = 18; f <= 33; ++f)
        for (double q : {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75}) cs.push_back(s * q * std::ldexp(1.0, 14 - f));
    for (size_t base = 0, t = 0; base < cs.size(); base += MN, ++t) {
      ValTile v = p.blank("probe:alignment-rounding-" + std::to_string(t));
      p.rows(v, {0x1p7, -0x1p7});
      p.cols(v, {0x1p7, 0x1p7});
      for (int i = 0; i < MN; ++i) v.c[i] = base + i < cs.size() ? cs[base + i] : 0.0;
      v.soft_c = true;
      out.push_back(v);
    }
  }
}

// Carry / block size and final rounding.
inline void add_carry_probes(ProbeSet& p) {
  const int M = p.M, N = p.N, K = p.K;
  std::vector<ValTile>& out = p.out;
  // Carry / block size [KM]: c = 1 + 2^-d, a0 b0 = 1, a_k b_k = 2^-d at k = 1..K-1 (one k
  // per row), and the mirror; d = 23 (f32 output), 13 (FP8's 13 bits), 10 (f16 output).
  for (int d : {23, 13, 10})
    for (int s : {1, -1})
      for (int t0 = 0; t0 < K - 1; t0 += M) {
        ValTile v = p.blank("probe:carry-block-size d=" + std::to_string(d) + (s > 0 ? "" : " mirror") + " rows k=" +
                            std::to_string(t0 + 1) + "..");
        const int a1 = d / 2, b1 = d - d / 2;
        for (int m = 0; m < M; ++m) {
          const int km = 1 + (t0 + m) % (K - 1);
          v.a[m * K + 0] = s * 1.0;
          v.a[m * K + km] = s * std::ldexp(1.0, -a1);
        }
        for (int n = 0; n < N; ++n) {
          v.b[0 * N + n] = 1.0;
          for (int k = 1; k < K; ++k) v.b[k * N + n] = std::ldexp(1.0, -b1);
        }
        p.allc(v, s * (1.0 + std::ldexp(1.0, -d)));
        out.push_back(v);
      }
  // Final rounding [KM]: c = 1 + 2^-d + 2^-(d-1) plus three products of 1, and the mirror.
  for (int d : {23, 13, 10})
    for (int s : {1, -1}) {
      ValTile v = p.blank("probe:final-rounding d=" + std::to_string(d) + (s > 0 ? "" : " mirror"));
      p.rows(v, {s * 1.0, s * 1.0, s * 1.0});
      p.cols(v, {1, 1, 1});
      p.allc(v, s * (1.0 + std::ldexp(1.0, -d) + std::ldexp(1.0, -(d - 1))));
      out.push_back(v);
    }
}

// Exact products and the e_zero tie.
inline void add_exact_probes(ProbeSet& p) {
  const TileFormats& tf = p.tf;
  std::vector<ValTile>& out = p.out;
  // Exact products [F21]: (1 - 2^-(m+1))^2, with C = 0 and C = -1.
  {
    const int ma = tcemu::info(tf.a).man_bits, mb = tcemu::info(tf.b).man_bits;
    for (double c : {0.0, -1.0}) {
      ValTile v = p.blank(c == 0 ? "probe:exact-product" : "probe:exact-product c=-1");
      p.rows(v, {1.0 - std::ldexp(1.0, -(ma + 1))});
      p.cols(v, {1.0 - std::ldexp(1.0, -(mb + 1))});
      p.allc(v, c);
      out.push_back(v);
    }
  }
  // e_zero tie vector (absolute values, not scaled).
  {
    ValTile v = p.blank("probe:e_zero-tie");
    p.rows(v, {0x1p-14, 0x1p-24, 0.0});
    p.cols(v, {0x1p-11, 0x1p-24, 1.0});
    v.scalable = false;
    out.push_back(v);
  }
}

// Specials: signed zeros, Inf, NaN, overflow.
inline void add_special_probes(ProbeSet& p) {
  const TileFormats& tf = p.tf;
  const int K = p.K;
  std::vector<ValTile>& out = p.out;
  const double inf = INFINITY, nan = std::nan("");
  const double amax = max_finite(tf.a), bmax = max_finite(tf.b), cmax = max_finite(tf.c);
  auto special = [&](const std::string& label, std::vector<double> a, std::vector<double> b, double c) {
    ValTile v = p.blank("special:" + label);
    p.rows(v, a);
    p.cols(v, b);
    p.allc(v, c);
    v.scalable = false;
    out.push_back(v);
  };
  special("A=-0 B=+0 C=-0", std::vector<double>(K, -0.0), std::vector<double>(K, 0.0), -0.0);
  special("A=+0 B=+0 C=-0", std::vector<double>(K, 0.0), std::vector<double>(K, 0.0), -0.0);
  special("A=-0 B=+0 C=+0", std::vector<double>(K, -0.0), std::vector<double>(K, 0.0), 0.0);
  special("A=-0 B=-0 C=-0", std::vector<double>(K, -0.0), std::vector<double>(K, -0.0), -0.0);
  special("A=1 B=-1 C=+1 (exact zero sum)", {1.0}, {-1.0}, 1.0);
  special("C=+Inf", {1, 1}, {1, 1}, inf);
  special("C=-Inf", {1, 1}, {1, 1}, -inf);
  special("a0=+Inf b0=1", {inf, 1}, {1, 1}, 0.0);
  special("a0=-Inf b0=1 C=+Inf", {-inf, 1}, {1, 1}, inf);
  special("a0=NaN", {nan, 1}, {1, 1}, 0.0);
  special("b0=NaN", {1, 1}, {nan, 1}, 0.0);
  special("C=NaN", {1, 1}, {1, 1}, nan);
  special("Inf*0", {inf, 1}, {0.0, 1}, 0.0);
  special("Inf+-Inf", {inf, -inf}, {1, 1}, 0.0);
  special("max*max-max*max", {amax, -amax}, {bmax, bmax}, 0.0);
  special("max*max+Cmax", {amax}, {bmax}, cmax);
  special("-max*max-Cmax", {-amax}, {bmax}, -cmax);
  special("max*max*K", std::vector<double>(K, amax), std::vector<double>(K, bmax), 0.0);
}

inline std::vector<ValTile> directed_probes(const TileFormats& tf) {
  ProbeSet p(tf);
  add_discriminator_probes(p);
  add_alignment_probes(p);
  add_carry_probes(p);
  add_exact_probes(p);
  add_special_probes(p);
  return std::move(p.out);
}

// Integer (s8) probes: wrap-around or saturation of the int32 accumulator, and exact sums.
inline std::vector<ValTile> integer_probes(const TileFormats& tf) {
  const int M = tf.m, N = tf.n, K = tf.k;
  std::vector<ValTile> out;
  auto make = [&](const std::string& label, double a, double b, double c) {
    ValTile v;
    v.label = label;
    v.a.assign(M * K, a);
    v.b.assign(K * N, b);
    v.c.assign(M * N, c);
    v.scalable = false;
    out.push_back(v);
  };
  make("int:127*127*K + (2^31-1000)", 127, 127, 2147483647.0 - 1000);
  make("int:-128*127*K + (-2^31+1000)", -128, 127, -2147483648.0 + 1000);
  make("int:-128*-128*K + (2^31-5)", -128, -128, 2147483647.0 - 5);
  make("int:127*127*K + 0", 127, 127, 0);
  make("int:-128*-128*K + (-2^31)", -128, -128, -2147483648.0);
  return out;
}

// Small integers whose products and sums are exact in every datapath (layout self-check).
inline Tile layout_check_tile(const TileFormats& tf, uint64_t seed, int index) {
  SplitMix rng(seed * 7919 + static_cast<uint64_t>(index));
  ValTile v;
  v.label = "layout-check " + std::to_string(index);
  for (int i = 0; i < tf.m * tf.k; ++i) v.a.push_back(static_cast<double>(static_cast<int>(rng.below(7)) - 3));
  for (int i = 0; i < tf.k * tf.n; ++i) v.b.push_back(static_cast<double>(static_cast<int>(rng.below(7)) - 3));
  for (int i = 0; i < tf.m * tf.n; ++i) v.c.push_back(static_cast<double>(static_cast<int>(rng.below(17)) - 8));
  v.scalable = false;
  return *realize(v, tf);  // always representable: |x| <= 8 in every format used
}

// Random codes, by distribution.
enum class Dist { bits, unit, wide, subnormal };
inline const char* dist_name(Dist d) {
  switch (d) {
    case Dist::bits: return "random-bits";
    case Dist::unit: return "random-unit-scale";
    case Dist::wide: return "random-wide-exponent-cancel";
    case Dist::subnormal: return "random-subnormal-heavy";
  }
  return "?";
}

inline uint64_t random_code(Fmt f, Dist dist, SplitMix& rng) {
  if (f == Fmt::s32) {  // int32 accumulators: distributions of their own
    switch (dist) {
      case Dist::bits: return rng.next() & 0xffffffffu;
      case Dist::unit: return static_cast<uint64_t>(static_cast<int64_t>(rng.below(2001)) - 1000) & 0xffffffffu;
      case Dist::wide: return static_cast<uint64_t>((rng.next() & 1 ? 0x7fff0000u : 0x80000000u) + rng.below(0x10000));
      default: return 0;
    }
  }
  const tcemu::FormatInfo& fi = tcemu::info(f);
  if (fi.is_int) {
    int64_t v;
    switch (dist) {
      case Dist::bits: return rng.next() & fi.code_mask();
      case Dist::unit: v = static_cast<int64_t>(rng.below(17)) - 8; break;
      case Dist::wide: return rng.next() & fi.code_mask();
      default: v = static_cast<int64_t>(rng.below(3)) - 1; break;
    }
    return static_cast<uint64_t>(v) & fi.code_mask();
  }
  const int top = (1 << fi.exp_bits) - 1;
  const int max_be = fi.specials == tcemu::Specials::ieee ? top - 1 : top;
  for (;;) {
    const uint64_t sign = (rng.next() & 1) ? fi.sign_mask() : 0;
    uint64_t be;
    switch (dist) {
      case Dist::bits: be = rng.below(static_cast<uint32_t>(top + 1)); break;
      case Dist::unit: be = static_cast<uint64_t>(fi.bias - 2 + static_cast<int>(rng.below(4))); break;
      case Dist::wide: be = rng.below(static_cast<uint32_t>(max_be + 1)); break;
      default: {
        const uint32_t r = rng.below(8);
        be = r < 5 ? 0 : r - 4;  // 5/8 subnormal, then the lowest normal binades
        break;
      }
    }
    const uint64_t man = rng.next() & ((uint64_t{1} << fi.man_bits) - 1);
    const uint64_t code = sign | (((be << fi.man_bits) | man) << fi.man_shift);
    const tcemu::Class cls = tcemu::classify(f, code);
    if (cls == tcemu::Class::nan || cls == tcemu::Class::inf) continue;
    return code;
  }
}

// A random tile: A and B from `dist`; C from the matching distribution in C's format (zero in
// a quarter of the tiles). The wide distribution also plants cancelling pairs: A[m][2j+1] =
// -A[m][2j] with B[2j+1][n] = B[2j][n] for random j.
inline Tile random_tile(const TileFormats& tf, Dist dist, SplitMix& rng, int index) {
  Tile t;
  t.label = std::string(dist_name(dist)) + " " + std::to_string(index);
  for (int i = 0; i < tf.m * tf.k; ++i) t.a.push_back(random_code(tf.a, dist, rng));
  for (int i = 0; i < tf.k * tf.n; ++i) t.b.push_back(random_code(tf.b, dist, rng));
  const bool zero_c = rng.below(4) == 0;
  for (int i = 0; i < tf.m * tf.n; ++i)
    t.c.push_back(zero_c ? 0 : random_code(tf.c, dist == Dist::bits ? Dist::bits : dist, rng));
  if (dist == Dist::wide && !tcemu::info(tf.a).is_int) {
    const uint64_t sa = tcemu::info(tf.a).sign_mask();
    for (int j = 0; 2 * j + 1 < tf.k; ++j) {
      if (rng.below(2)) continue;
      for (int m = 0; m < tf.m; ++m) t.a[m * tf.k + 2 * j + 1] = t.a[m * tf.k + 2 * j] ^ sa;
      // B rows must be equal for the pair to cancel exactly; their formats may differ from
      // A's, so copy B's own code.
      for (int n = 0; n < tf.n; ++n) t.b[(2 * j + 1) * tf.n + n] = t.b[(2 * j) * tf.n + n];
    }
  }
  return t;
}

}  // namespace tcemu_gpu
