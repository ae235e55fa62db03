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

// The operands of a dot product decoded into step order for dp_steps.hpp: term j holds the
// codes at index pos[j] of a and b (an index past the end is a zero code: a padded term, a zero
// product), and the scales as dp::chain_element reads them: one per term (ST-FDPA) or per group
// of p.group (GST-FDPA), the group's or term's block scale. Scaled kinds take no instruction
// forms (validate), so their pos is 0, 1, 2, ...
struct Terms {
  std::vector<Operand> a, b, sa, sb;
};

Terms decode_terms(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                   const BlockScales* scales, const std::vector<size_t>& pos) {
  Terms t;
  t.a.reserve(pos.size());
  t.b.reserve(pos.size());
  for (const size_t k : pos) {
    Operand x = decode_operand(fa, k < a.size() ? a[k] : 0), y = decode_operand(fb, k < b.size() ? b[k] : 0);
    if (p.widen_to_f16) {
      x = widened_to_f16(x);
      y = widened_to_f16(y);
    }
    t.a.push_back(x);
    t.b.push_back(y);
  }
  const size_t unit = static_cast<size_t>(dp::scale_unit(dp::step_params(p)));
  if (unit && scales) {
    const size_t blk = static_cast<size_t>(scales->block);
    for (size_t g = 0; g * unit < pos.size(); ++g) {
      t.sa.push_back(decode_operand(scales->fmt, scales->a[g * unit / blk]));
      t.sb.push_back(decode_operand(scales->fmt, scales->b[g * unit / blk]));
    }
  }
  return t;
}

std::vector<size_t> identity_order(size_t n) {
  std::vector<size_t> pos(n);
  for (size_t k = 0; k < n; ++k) pos[k] = k;
  return pos;
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
  const Terms t = decode_terms(p, fa, fb, a, b, scales, identity_order(n));
  const dp::StepParams sp = dp::step_params(p);
  const int len = static_cast<int>(n);
  switch (p.kind) {
    case DatapathKind::integer: return dp::int_step(sp, t.a.data(), t.b.data(), len, c);
    case DatapathKind::t_fdpa: return dp::fdpa_step<false>(sp, t.a.data(), t.b.data(), len, c, nullptr, nullptr);
    case DatapathKind::st_fdpa: return dp::fdpa_step<true>(sp, t.a.data(), t.b.data(), len, c, t.sa.data(), t.sb.data());
    case DatapathKind::gst_fdpa: return dp::gst_step(sp, t.a.data(), t.b.data(), len, c, t.sa.data(), t.sb.data());
  }
  return 0;
}

// The chain over K of dp_steps.hpp (chain_element), as mma()'s generic loop and the CUDA
// kernels run it, on one row and column: steps of L; in the forms defined per instruction,
// whole instructions of instruction_terms(p) terms in instruction_k_order, a last partial one
// padded with zero codes (an empty dot product is one instruction of zeros).
uint64_t fdpa_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a, std::span<const uint64_t> b,
                  uint64_t c, const BlockScales* scales) {
  if (b.size() != a.size()) throw std::invalid_argument("a and b differ in length");
  const size_t L = static_cast<size_t>(p.L);
  if (scales && (p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa) &&
      (scales->block < 1 || L % static_cast<size_t>(scales->block) != 0))
    throw std::invalid_argument("L must be a multiple of the scale block");
  check_scales(p, scales, a.size());
  const bool per_instr = p.kpair_halves || p.c_entry == CEntry::rne_after_instruction;
  if (a.empty() && !per_instr) return fdpa_step(p, fa, fb, a, b, c, scales);  // one step of no terms
  if (std::string e = validate(p, fa, fb, scales ? std::optional<Fmt>(scales->fmt) : std::nullopt); !e.empty())
    throw std::invalid_argument(e);
  std::vector<size_t> pos;
  size_t IK = L;
  if (per_instr) {
    IK = instruction_terms(p);
    const std::vector<size_t> order = instruction_k_order(p, IK);
    for (size_t k0 = 0; k0 < std::max<size_t>(a.size(), 1); k0 += IK)
      for (const size_t j : order) pos.push_back(k0 + j);
  } else {
    pos = identity_order(a.size());
  }
  const Terms t = decode_terms(p, fa, fb, a, b, scales, pos);
  MmaOptions opt;  // one D element: C as given, no promotion (the defaults)
  dp::ChainParams ch = dp::chain_params(p, 0, static_cast<int>(IK), opt);
  ch.K = static_cast<int64_t>(pos.size());
  const bool scaled = !t.sa.empty();
  return dp::chain_element(dp::step_params(p), ch, t.a.data(), t.b.data(), scaled ? t.sa.data() : nullptr,
                           scaled ? t.sb.data() : nullptr, dp::start_c(ch, c));
}

}  // namespace tcemu
