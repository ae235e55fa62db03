// The datapath models of docs/datapath.md on integers: operands decoded once into
// (sign, integer significand, weight of its lowest bit, alignment exponent E), products as
// small integers, alignment as shifts of int64 with truncation toward zero, one rounding.
// The arithmetic itself (alignment, rounding out, the sign and special rules, the IEEE adds)
// is dp_primitives.hpp's, and the steps of docs/datapath.md are dp_steps.hpp's (shared with
// the CUDA kernels); this file holds the library's entry points to them.
#include "tcemu/datapath.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

#include "dp_host.hpp"

namespace tcemu {

std::string_view to_string(OutputRounding r) {
  switch (r) {
    case OutputRounding::rz_f32: return "rz_f32";
    case OutputRounding::rne_f16: return "rne_f16";
    case OutputRounding::rz_e8m13: return "rz_e8m13";
    case OutputRounding::rne_f32: return "rne_f32";
    case OutputRounding::rz_f16: return "rz_f16";
  }
  return "?";
}

std::optional<OutputRounding> parse_output_rounding(std::string_view s) {
  if (s == "rz_f32") return OutputRounding::rz_f32;
  if (s == "rne_f16") return OutputRounding::rne_f16;
  if (s == "rz_e8m13") return OutputRounding::rz_e8m13;
  if (s == "rne_f32") return OutputRounding::rne_f32;
  if (s == "rz_f16") return OutputRounding::rz_f16;
  return std::nullopt;
}

std::string_view to_string(CEntry c) {
  switch (c) {
    case CEntry::fused: return "C fused";
    case CEntry::rne_f32_after: return "C added after (f32 RNE)";
    case CEntry::rne_after_instruction: return "C added after the instruction (RNE)";
  }
  return "?";
}

std::string_view to_string(DatapathKind k) {
  switch (k) {
    case DatapathKind::t_fdpa: return "T-FDPA";
    case DatapathKind::st_fdpa: return "ST-FDPA";
    case DatapathKind::gst_fdpa: return "GST-FDPA";
    case DatapathKind::integer: return "integer";
  }
  return "?";
}

std::string describe(const DatapathParams& p) {
  std::string s(to_string(p.kind));
  if (p.kind == DatapathKind::integer) return s + (p.satfinite ? " int32 satfinite" : " int32 wrap");
  s += " L=" + std::to_string(p.L) + " F=" + std::to_string(p.F) + " e_zero=" + std::to_string(p.e_zero) + " " +
       std::string(to_string(p.rounding)) + " " + std::string(to_string(p.c_entry));
  if (p.kind == DatapathKind::gst_fdpa) s += " group=" + std::to_string(p.group);
  if (p.widen_to_f16) s += " operands-as-f16";
  if (p.kpair_halves) s += " k-pair-halves";
  if (p.positive_zero) s += " +0";
  return s;
}

namespace {

// Bits of (largest finite magnitude / weight of the smallest lowest bit): how wide an exact
// integer sum of this format's values can grow.
int span_bits(Fmt f) {
  const FormatInfo& fi = info(f);
  const int emin_low = fi.emin() - fi.man_bits;
  const int emax_top = fi.emax() + 1;
  return emax_top - emin_low;
}

int bit_width_of(int n) { return std::bit_width(static_cast<unsigned>(n)); }

}  // namespace

std::string validate(const DatapathParams& p, Fmt a, Fmt b, std::optional<Fmt> scale) {
  if (p.L < 1 || p.L > 256) return "L must be in 1..256";
  if (p.kind == DatapathKind::integer) {
    if (!info(a).is_int || !info(b).is_int) return "the integer datapath takes integer operands (s8, u8, s4, u4)";
    return "";
  }
  for (Fmt f : {a, b}) {
    if (info(f).is_int || f == Fmt::f64 || f == Fmt::ue8m0 || f == Fmt::ue4m3 || f == Fmt::ue5m3)
      return "operand format " + std::string(info(f).name) + " is not a tensor-core float operand";
  }
  if (p.F < 1 || p.F > 48) return "F must be in 1..48";
  if (p.c_entry == CEntry::rne_f32_after && output_format(p.rounding) != Fmt::f32)
    return "C added after by an f32 add needs an f32 output";
  if ((p.kpair_halves || p.widen_to_f16 || p.c_entry == CEntry::rne_after_instruction) && p.kind != DatapathKind::t_fdpa)
    return "k-pair halves, operands widened to f16 and C added after the instruction are T-FDPA forms";
  if (p.kpair_halves && p.L % 2 != 0) return "k-pair halves need an even L";
  if (p.widen_to_f16)
    for (Fmt f : {a, b})
      if (f != Fmt::f16 && f != Fmt::e4m3 && f != Fmt::e5m2 && f != Fmt::e3m2 && f != Fmt::e2m3 && f != Fmt::e2m1)
        return "operand format " + std::string(info(f).name) + " is not exactly representable in f16";
  if (p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa) {
    if (scale && *scale != Fmt::ue8m0 && *scale != Fmt::ue4m3 && *scale != Fmt::ue5m3)
      return "scale format must be ue8m0, ue4m3 or ue5m3";
  }
  if (p.kind == DatapathKind::gst_fdpa) {
    if (p.group < 1 || p.L % p.group != 0) return "group must divide L";
    if (p.L / p.group > 64) return "GST-FDPA: at most 64 groups per step";
    // Exact group sum in units of the smallest product weight, times two scale significands
    // (4 bits each), shifted by up to F + 2 + exponent slack: must stay inside int64.
    const int group_bits = span_bits(a) + span_bits(b) + bit_width_of(p.group);
    if (group_bits > 40) return "GST-FDPA: exact group sums of these formats exceed the fast path's range";
    if (p.F + group_bits - (span_bits(a) + span_bits(b)) + 16 + bit_width_of(p.L / p.group + 1) > 62)
      return "GST-FDPA: F too large";
  }
  return "";
}

Operand decode_operand(Fmt f, uint64_t code) { return dp::decode_code(dp::format_row(f), code); }

Operand widened_to_f16(Operand o) { return dp::widened_to_f16(o); }

// ---- roundings (dp_primitives.hpp) -------------------------------------------------------

uint64_t round_to_float(bool neg, uint64_t mag, int exp, bool sticky, Fmt to, bool nearest_even) {
  const FormatInfo& fi = info(to);
  const dp::FloatLayout f{fi.man_bits, fi.exp_bits, fi.width, fi.emin(), fi.emax()};
  return dp::round_out(f, neg, mag, exp, sticky, nearest_even);
}

uint64_t apply_output_rounding(OutputRounding r, bool neg, uint64_t mag, int exp) {
  return dp::round_output(r, neg, mag, exp);
}

uint64_t add_rne(Fmt out, uint64_t x, uint64_t y) {
  if (out == Fmt::f32) return dp::add_rne_f32(static_cast<uint32_t>(x), static_cast<uint32_t>(y));
  if (out != Fmt::f16) throw std::invalid_argument("add_rne: f32 or f16");
  return dp::add_rne_f16(x, y);
}

uint32_t f32_add_rne(uint32_t x, uint32_t y) { return dp::add_rne_f32(x, y); }

// ---- the steps (dp_steps.hpp) ---------------------------------------------------------------

uint64_t fdpa_step_decoded(const DatapathParams& p, const Operand* a, const Operand* b, size_t n, uint64_t c,
                           const Operand* sa, const Operand* sb) {
  if (sa) return dp::fdpa_step<true>(dp::step_params(p), a, b, static_cast<int>(n), c, sa, sb);
  return dp::fdpa_step<false>(dp::step_params(p), a, b, static_cast<int>(n), c, nullptr, nullptr);
}

uint64_t gst_step_decoded(const DatapathParams& p, const Operand* a, const Operand* b, size_t n, uint64_t c,
                          const Operand* sa, const Operand* sb) {
  return dp::gst_step(dp::step_params(p), a, b, static_cast<int>(n), c, sa, sb);
}

uint64_t int_step_decoded(const DatapathParams& p, const Operand* a, const Operand* b, size_t n, uint64_t c) {
  return dp::int_step(dp::step_params(p), a, b, static_cast<int>(n), c);
}

// ---- code-level API ------------------------------------------------------------------------

namespace {

void check_scales(const DatapathParams& p, const BlockScales* scales, size_t n) {
  if (p.kind != DatapathKind::st_fdpa && p.kind != DatapathKind::gst_fdpa) return;
  if (!scales) throw std::invalid_argument("block-scaled datapath needs scales");
  if (scales->block < 1) throw std::invalid_argument("scale block must be positive");
  const size_t need = (n + static_cast<size_t>(scales->block) - 1) / static_cast<size_t>(scales->block);
  if (scales->a.size() < need || scales->b.size() < need)
    throw std::invalid_argument("expected " + std::to_string(need) + " scales per operand");
}

}  // namespace

std::vector<size_t> instruction_k_order(const DatapathParams& p, size_t instr_k) {
  std::vector<size_t> order;
  order.reserve(instr_k);
  if (!p.kpair_halves) {
    for (size_t k = 0; k < instr_k; ++k) order.push_back(k);
    return order;
  }
  for (size_t half = 0; half < 2; ++half)
    for (size_t k = 0; k < instr_k; ++k)
      if ((k / 2) % 2 == half) order.push_back(k);
  return order;
}

size_t instruction_terms(const DatapathParams& p) { return static_cast<size_t>(p.kpair_halves ? 2 * p.L : p.L); }

namespace {

// fdpa_dot for the forms defined per instruction (k-pair halves, C added after the
// instruction): the instruction is 2L terms with k-pair halves, else L.
uint64_t instruction_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a,
                         std::span<const uint64_t> b, uint64_t c) {
  const size_t IK = instruction_terms(p), L = static_cast<size_t>(p.L);
  const std::vector<size_t> order = instruction_k_order(p, IK);
  const bool after = p.c_entry == CEntry::rne_after_instruction;
  const Fmt out = output_format(p.rounding);
  std::vector<uint64_t> pa(IK), pb(IK);
  uint64_t d = c;
  for (size_t k0 = 0; k0 < std::max<size_t>(a.size(), 1); k0 += IK) {
    // A last partial instruction is padded with zero terms (zero products).
    for (size_t j = 0; j < IK; ++j) {
      const size_t k = k0 + order[j];
      pa[j] = k < a.size() ? a[k] : 0;
      pb[j] = k < a.size() ? b[k] : 0;
    }
    uint64_t t = after ? 0 : d;
    for (size_t j = 0; j < IK; j += L)
      t = fdpa_step(p, fa, fb, std::span<const uint64_t>(pa).subspan(j, L), std::span<const uint64_t>(pb).subspan(j, L), t);
    d = after ? add_rne(out, d, t) : t;
  }
  return d;
}

}  // namespace

uint64_t fdpa_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                   uint64_t c, const BlockScales* scales) {
  const size_t n = a.size();
  if (b.size() != n) throw std::invalid_argument("a and b differ in length");
  if (n > static_cast<size_t>(p.L)) throw std::invalid_argument("a step takes at most L terms");
  if (std::string e = validate(p, fa, fb, scales ? std::optional<Fmt>(scales->fmt) : std::nullopt); !e.empty())
    throw std::invalid_argument(e);
  check_scales(p, scales, n);
  std::vector<Operand> da(n), db(n);
  for (size_t i = 0; i < n; ++i) {
    da[i] = decode_operand(fa, a[i]);
    db[i] = decode_operand(fb, b[i]);
    if (p.widen_to_f16) {
      da[i] = widened_to_f16(da[i]);
      db[i] = widened_to_f16(db[i]);
    }
  }
  switch (p.kind) {
    case DatapathKind::integer: return int_step_decoded(p, da.data(), db.data(), n, c);
    case DatapathKind::t_fdpa: return fdpa_step_decoded(p, da.data(), db.data(), n, c);
    case DatapathKind::st_fdpa: {
      std::vector<Operand> sa(n), sb(n);
      for (size_t i = 0; i < n; ++i) {
        sa[i] = decode_operand(scales->fmt, scales->a[i / static_cast<size_t>(scales->block)]);
        sb[i] = decode_operand(scales->fmt, scales->b[i / static_cast<size_t>(scales->block)]);
      }
      return fdpa_step_decoded(p, da.data(), db.data(), n, c, sa.data(), sb.data());
    }
    case DatapathKind::gst_fdpa: {
      // One scale per group of p.group; a block of 32 is replicated to both of its 16-groups.
      const size_t G = static_cast<size_t>(p.group), ng = (n + G - 1) / G;
      std::vector<Operand> sa(ng), sb(ng);
      for (size_t g = 0; g < ng; ++g) {
        sa[g] = decode_operand(scales->fmt, scales->a[g * G / static_cast<size_t>(scales->block)]);
        sb[g] = decode_operand(scales->fmt, scales->b[g * G / static_cast<size_t>(scales->block)]);
      }
      return gst_step_decoded(p, da.data(), db.data(), n, c, sa.data(), sb.data());
    }
  }
  return 0;
}

uint64_t fdpa_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                  uint64_t c, const BlockScales* scales) {
  if (b.size() != a.size()) throw std::invalid_argument("a and b differ in length");
  const size_t L = static_cast<size_t>(p.L);
  if (scales && (p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa) &&
      (scales->block < 1 || L % static_cast<size_t>(scales->block) != 0))
    throw std::invalid_argument("L must be a multiple of the scale block");
  check_scales(p, scales, a.size());
  if (p.kpair_halves || p.c_entry == CEntry::rne_after_instruction) return instruction_dot(p, fa, fb, a, b, c);
  uint64_t d = c;
  if (a.empty()) return fdpa_step(p, fa, fb, a, b, c, scales);
  for (size_t k = 0; k < a.size(); k += L) {
    const size_t m = std::min(L, a.size() - k);
    if (scales) {
      const size_t off = k / static_cast<size_t>(scales->block);
      BlockScales s{scales->fmt, scales->block, scales->a.subspan(off), scales->b.subspan(off)};
      d = fdpa_step(p, fa, fb, a.subspan(k, m), b.subspan(k, m), d, &s);
    } else {
      d = fdpa_step(p, fa, fb, a.subspan(k, m), b.subspan(k, m), d, nullptr);
    }
  }
  return d;
}

}  // namespace tcemu
