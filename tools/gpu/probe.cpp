// Directed probes and their inference (probe.hpp). Each probe is a handful of dot products
// whose exact values are powers of two or short sums of them, so every input is exactly
// representable and the outputs can only differ by the datapath's truncation and rounding.
// Notation: P is the exponent of the leading products; "pair(x)" is an A code and a B code
// whose product is exactly 2^x; the running reasoning is docs/datapath.md §1 (T-FDPA):
// q = max exponent - F, terms below 2^q vanish, one final rounding rho.
#include "probe.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "tcemu/format.hpp"
#include "tcemu/mma.hpp"

namespace tcemu_gpu {

using tcemu::Fmt;
using tcemu::InstrEntry;

namespace {

std::optional<uint64_t> pow2(Fmt f, int x, bool neg = false) { return tcemu::encode_exact(f, neg, 1, x); }

struct Ctx {
  const InstrEntry& e;
  const DotRunner& run;
  Fmt fa, fb, fc;
  int K;
  ProbeResult& r;
  uint64_t one_scale = 0;
  int nblocks = 0;

  DotQuery blank() const {
    DotQuery q;
    q.a.assign(K, *tcemu::zero_code(fa));
    q.b.assign(K, *tcemu::zero_code(fb));
    q.c = *tcemu::zero_code(fc);
    if (nblocks) {
      q.sa.assign(nblocks, one_scale);
      q.sb.assign(nblocks, one_scale);
    }
    return q;
  }
  // A and B codes whose product is exactly (-)2^x: a = 2^xa, b = 2^(x - xa).
  std::optional<std::pair<uint64_t, uint64_t>> pair(int x, bool neg = false) const {
    for (int d = 0; d <= 160; ++d)
      for (int s : {1, -1}) {
        const int xa = x / 2 + s * d;
        auto a = pow2(fa, xa, neg), b = pow2(fb, x - xa);
        if (a && b) return std::pair{*a, *b};
      }
    return std::nullopt;
  }
  std::vector<uint64_t> go(const std::vector<DotQuery>& qs) {
    r.queries += static_cast<int>(qs.size());
    std::vector<uint64_t> d = run(qs);
    if (d.size() != qs.size()) throw std::runtime_error("runner returned the wrong number of results");
    return d;
  }
  bool eq(uint64_t code, bool neg, uint64_t sig, int exp) const {
    auto want = tcemu::encode_exact(fc, neg, sig, exp);
    return want && *want == code;
  }
};

// F via C [MS]: products +2^P and -2^P cancel; c = 2^(P-1-j); c survives the alignment to
// q = P - F exactly while j <= F - 1, so the count of surviving j is F. A count that never
// stops means C does not take part in the alignment (it is added after the products).
void probe_F(Ctx& cx) {
  // P = 0 for f32 outputs; f16 outputs need c = 2^(P-1-j) above 2^-24 for j up to F, so the
  // largest P <= 13 that the operand formats reach.
  int P = cx.fc == Fmt::f16 ? 13 : 0;
  while (P >= -2 && !(cx.pair(P) && cx.pair(P, true))) --P;
  const auto p = cx.pair(P), n = cx.pair(P, true);
  if (!p || !n || cx.K < 2) {
    cx.r.notes.push_back("F: no exact +-2^P products in these formats");
    return;
  }
  std::vector<DotQuery> qs;
  std::vector<int> js;
  for (int j = 0; j <= 40; ++j) {
    auto c = pow2(cx.fc, P - 1 - j);
    if (!c) break;
    DotQuery q = cx.blank();
    q.a[0] = p->first, q.b[0] = p->second;
    q.a[1] = n->first, q.b[1] = n->second;
    q.c = *c;
    qs.push_back(q);
    js.push_back(j);
  }
  const std::vector<uint64_t> d = cx.go(qs);
  int count = 0;
  while (count < static_cast<int>(d.size()) && d[count] == qs[count].c) ++count;
  if (count == static_cast<int>(d.size())) {
    if (js.size() > 36) {
      cx.r.c_entry = "after";
      cx.r.notes.push_back(std::string("F via C: C survived every halving (") + std::to_string(js.size()) +
                           "): C is not aligned with the products, it is added after them");
    } else {
      cx.r.notes.push_back(std::string("F: at least ") + std::to_string(count) + " (C format cannot go lower)");
    }
    return;
  }
  cx.r.F = count;
  cx.r.c_entry = "fused";
}

// F from the products alone (when C enters after): +2^P, -2^P and 2^(P-1-j) at k = 0, 1, 2.
void probe_F_products(Ctx& cx) {
  if (cx.K < 3) return;
  for (int P = 16; P >= -4; --P) {
    auto p = cx.pair(P), n = cx.pair(P, true);
    if (!p || !n) continue;
    std::vector<DotQuery> qs;
    for (int j = 0; j <= 40; ++j) {
      auto t = cx.pair(P - 1 - j);
      if (!t || !pow2(cx.fc, P - 1 - j)) break;
      DotQuery q = cx.blank();
      q.a[0] = p->first, q.b[0] = p->second;
      q.a[1] = n->first, q.b[1] = n->second;
      q.a[2] = t->first, q.b[2] = t->second;
      qs.push_back(q);
    }
    if (qs.size() < 8) continue;
    const std::vector<uint64_t> d = cx.go(qs);
    int count = 0;
    while (count < static_cast<int>(d.size()) && cx.eq(d[count], false, 1, P - 1 - count)) ++count;
    if (count < static_cast<int>(d.size())) cx.r.F = count;
    else cx.r.notes.push_back("F via products: not told (the small product never vanished: k = 2 is in another step, or F > " +
                              std::to_string(count) + ")");
    return;
  }
  cx.r.notes.push_back("F via products: no exact products spanning enough binades");
}

// L (terms per fused step): c = 2^P, a product -2^P at k = 0 and a product 2^(P-F-1) at k = j.
// In the same step the small product is below 2^q and vanishes (d = 0); in a later step it
// meets a zero accumulator and survives. The first j that survives is L; none: L >= K.
void probe_L(Ctx& cx) {
  if (cx.r.c_entry == "after") {
    cx.r.notes.push_back("L: not told when C enters after the products (the probe cancels a product through C)");
    return;
  }
  if (!cx.r.F) {
    cx.r.notes.push_back("L: needs F");
    return;
  }
  const int F = *cx.r.F;
  for (int P = 40; P >= -20; --P) {
    auto n = cx.pair(P, true), t = cx.pair(P - F - 1);
    auto c = pow2(cx.fc, P), tout = pow2(cx.fc, P - F - 1);
    if (!n || !t || !c || !tout) continue;
    std::vector<DotQuery> qs;
    for (int j = 1; j < cx.K; ++j) {
      DotQuery q = cx.blank();
      q.a[0] = n->first, q.b[0] = n->second;
      q.a[j] = t->first, q.b[j] = t->second;
      q.c = *c;
      qs.push_back(q);
    }
    const std::vector<uint64_t> d = cx.go(qs);
    for (int j = 1; j < cx.K; ++j)
      if (tcemu::classify(cx.fc, d[j - 1]) != tcemu::Class::zero) {
        cx.r.L = j;
        return;
      }
    cx.r.L = cx.K;
    cx.r.notes.push_back(std::string("L: one step covers the instruction's K = ") + std::to_string(cx.K) + " (L >= K)");
    return;
  }
  cx.r.notes.push_back("L: no exact products 2^(F+1) apart in these formats");
}

// Output rounding. FP8 probe: c = 1 + 2^-12 + 2^-13, one product 1: the exact 2 + 2^-12 +
// 2^-13 is an f32 but needs 14 fraction bits, so e8m13 truncation gives 2 + 2^-12. f32 probe:
// c = 1 + 2^-22 + 2^-23: the sum 2 + 2^-22 + 2^-23 lies halfway between 2 + 2^-22 (odd) and
// 2 + 2^-21: RNE gives 2 + 2^-21, RZ 2 + 2^-22. f16: the same at f16 precision
// (c = 1 + 2^-9 + 2^-10).
void probe_rounding(Ctx& cx) {
  if (cx.r.c_entry == "after") {
    cx.r.notes.push_back("rounding: C is added after the products; the probes see that addition, not rho");
    return;
  }
  auto one = cx.pair(0);
  if (!one) {
    cx.r.notes.push_back("rounding: no exact product 1");
    return;
  }
  auto q_with_c = [&](uint64_t sig, int exp) {
    DotQuery q = cx.blank();
    q.a[0] = one->first, q.b[0] = one->second;
    q.c = *tcemu::encode_exact(cx.fc, false, sig, exp);
    return q;
  };
  const int F = cx.r.F.value_or(99);
  if (cx.fc == Fmt::f16) {
    if (F < 10) return cx.r.notes.push_back("rounding: F < 10 hides the f16 rounding bits");
    const auto d = cx.go({q_with_c((1u << 10) + 2 + 1, -10)});
    if (cx.eq(d[0], false, (1u << 10) + 2, -9)) cx.r.rounding = "rne_f16";       // 2 + 2^-8
    else if (cx.eq(d[0], false, (1u << 10) + 1, -9)) cx.r.rounding = "rz_f16";   // 2 + 2^-9
    else cx.r.notes.push_back(std::string("rounding: f16 probe gave an unexpected ") + tcemu::to_hex(cx.fc, d[0]));
    return;
  }
  if (F >= 13) {
    const auto d = cx.go({q_with_c((1u << 13) + 2 + 1, -13)});
    if (cx.eq(d[0], false, (1u << 13) + 1, -12)) {  // 2 + 2^-12
      cx.r.rounding = "rz_e8m13";
      return;
    }
    if (!cx.eq(d[0], false, (1u << 14) + 2 + 1, -13))
      cx.r.notes.push_back(std::string("rounding: e8m13 probe gave an unexpected ") + tcemu::to_hex(cx.fc, d[0]));
  }
  if (F < 23) return cx.r.notes.push_back("rounding: F < 23 hides the f32 rounding bits");
  const auto d = cx.go({q_with_c((1u << 23) + 2 + 1, -23)});
  if (cx.eq(d[0], false, (1u << 22) + 1, -21)) cx.r.rounding = "rne_f32";       // 2 + 2^-21
  else if (cx.eq(d[0], false, (1u << 23) + 1, -22)) cx.r.rounding = "rz_f32";   // 2 + 2^-22
  else cx.r.notes.push_back(std::string("rounding: f32 probe gave an unexpected ") + tcemu::to_hex(cx.fc, d[0]));
}

// e_zero, generalised tie vector [MS]: p0 = half the output's smallest subnormal (a tie that
// RNE rounds to 0), p1 = 2^y, c = 0. p1 breaks the tie upward exactly when it survives the
// alignment to q = max(-25, e_zero) - F (f16 output); the smallest surviving y gives e_zero.
void probe_e_zero(Ctx& cx) {
  if (cx.fc != Fmt::f16 || cx.r.rounding != "rne_f16" || !cx.r.F) {
    cx.r.notes.push_back(cx.fc == Fmt::f16 ? "e_zero: needs F and RNE output"
                                          : "e_zero: not observable with f32 output (e_zero - F lies below the f32 "
                                            "subnormals, and RZ has no ties)");
    return;
  }
  const int F = *cx.r.F;
  auto p0 = cx.pair(-25);
  if (!p0 || cx.K < 2) return cx.r.notes.push_back("e_zero: no exact product 2^-25");
  std::vector<DotQuery> qs;
  std::vector<int> ys;
  for (int y = -26; y >= -25 - F - 12; --y) {
    auto p1 = cx.pair(y);
    if (!p1) break;
    DotQuery q = cx.blank();
    q.a[0] = p0->first, q.b[0] = p0->second;
    q.a[1] = p1->first, q.b[1] = p1->second;
    qs.push_back(q);
    ys.push_back(y);
  }
  if (qs.empty()) return cx.r.notes.push_back("e_zero: no exact products below 2^-25");
  const auto d = cx.go(qs);
  const uint64_t min_sub = *tcemu::min_subnormal_code(cx.fc);
  int smallest = 1;  // smallest y that broke the tie
  for (size_t i = 0; i < d.size(); ++i)
    if (d[i] == min_sub) smallest = ys[i];
  if (smallest == 1) return cx.r.notes.push_back("e_zero: no probe broke the tie");
  if (smallest == ys.back()) {
    cx.r.e_zero_max = smallest + F;
    cx.r.notes.push_back(std::string("e_zero: <= ") + std::to_string(smallest + F) + " (the smallest product tried survived)");
    return;
  }
  const int ez = smallest + F;
  if (ez > -25) {
    cx.r.e_zero = ez;
  } else {
    cx.r.e_zero_max = -25;
    cx.r.notes.push_back("e_zero: <= -25 (a zero product does not raise the alignment above the tie)");
  }
}

std::string code_str(Fmt f, uint64_t c) {
  const tcemu::Class k = tcemu::classify(f, c);
  std::string s = tcemu::to_hex(f, c);
  s += k == tcemu::Class::nan ? " (NaN)" : k == tcemu::Class::inf ? " (Inf)" : k == tcemu::Class::zero ? " (zero)" : "";
  return s;
}

void probe_subnormals_specials(Ctx& cx) {
  auto one = cx.pair(0);
  if (!one) return;
  std::vector<DotQuery> qs;
  std::vector<std::string> names;
  auto add = [&](const std::string& name, DotQuery q) {
    names.push_back(name);
    qs.push_back(std::move(q));
  };
  // Subnormal A input times 1 (B = 1 code of pair(x) with a = min subnormal).
  const tcemu::FormatInfo& ia = tcemu::info(cx.fa);
  int sub_exp = 0;
  if (ia.has_subnormals) {
    sub_exp = ia.emin() - ia.man_bits;
    auto a = pow2(cx.fa, sub_exp), b = pow2(cx.fb, 0);
    if (a && b && pow2(cx.fc, sub_exp)) {
      DotQuery q = cx.blank();
      q.a[0] = *a, q.b[0] = *b;
      add("subnormal-input", q);
    }
  }
  // A result in the output's subnormal range.
  const tcemu::FormatInfo& ic = tcemu::info(cx.fc);
  const int out_sub = ic.emin() - 2;
  if (auto p = cx.pair(out_sub)) {
    DotQuery q = cx.blank();
    q.a[0] = p->first, q.b[0] = p->second;
    add("subnormal-output", q);
  }
  // Signed zeros: all operands -0.
  if (auto nz = tcemu::zero_code(cx.fa, true); nz && tcemu::info(cx.fa).is_signed) {
    DotQuery q = cx.blank();
    for (auto& v : q.a) v = *nz;
    q.c = *tcemu::zero_code(cx.fc, true);
    add("zero-sign", q);
  }
  const uint64_t amax = tcemu::max_finite_code(cx.fa), bmax = tcemu::max_finite_code(cx.fb);
  {
    DotQuery q = cx.blank();
    q.a[0] = amax, q.b[0] = bmax, q.a[1] = tcemu::max_finite_code(cx.fa, true), q.b[1] = bmax;
    add("max*max-max*max", q);
  }
  if (auto inf = tcemu::inf_code(cx.fc)) {
    DotQuery q = cx.blank();
    q.a[0] = one->first, q.b[0] = one->second;
    q.c = *inf;
    add("C=+Inf", q);
  }
  if (auto nan = tcemu::canonical_nan(cx.fa)) {
    DotQuery q = cx.blank();
    q.a[0] = *nan, q.b[0] = one->second;
    add("a=NaN", q);
  }
  if (auto inf = tcemu::inf_code(cx.fa)) {
    DotQuery q = cx.blank();
    q.a[0] = *inf, q.b[0] = *tcemu::zero_code(cx.fb);
    add("Inf*0", q);
    DotQuery q2 = cx.blank();
    q2.a[0] = *inf, q2.b[0] = one->second, q2.a[1] = *tcemu::inf_code(cx.fa, true), q2.b[1] = one->second;
    add("Inf+-Inf", q2);
  }
  if (qs.empty()) return;
  const auto d = cx.go(qs);
  for (size_t i = 0; i < d.size(); ++i) {
    if (names[i] == "subnormal-input")
      cx.r.subnormal_inputs = cx.eq(d[i], false, 1, sub_exp) ? "kept" : std::string("flushed (") + code_str(cx.fc, d[i]) + ")";
    else if (names[i] == "subnormal-output")
      cx.r.subnormal_outputs = cx.eq(d[i], false, 1, out_sub) ? "kept" : std::string("flushed (") + code_str(cx.fc, d[i]) + ")";
    else if (names[i] == "zero-sign")
      cx.r.zero_sign = d[i] == *tcemu::zero_code(cx.fc, true) ? "-0" : d[i] == *tcemu::zero_code(cx.fc) ? "+0"
                                                                                                     : code_str(cx.fc, d[i]);
    else
      cx.r.specials.push_back({names[i], code_str(cx.fc, d[i])});
  }
}

void probe_integer(Ctx& cx) {
  const tcemu::FormatInfo& ia = tcemu::info(cx.fa);
  const tcemu::FormatInfo& ib = tcemu::info(cx.fb);
  const int64_t amax = ia.is_signed ? (int64_t{1} << (ia.width - 1)) - 1 : (int64_t{1} << ia.width) - 1;
  const int64_t bmax = ib.is_signed ? (int64_t{1} << (ib.width - 1)) - 1 : (int64_t{1} << ib.width) - 1;
  DotQuery q;
  q.a.assign(cx.K, static_cast<uint64_t>(amax));
  q.b.assign(cx.K, static_cast<uint64_t>(bmax));
  const int64_t sum = amax * bmax * cx.K;
  const int64_t c = 2147483647LL - sum / 2;  // the exact total exceeds 2^31 - 1 by sum/2
  q.c = static_cast<uint64_t>(c) & 0xffffffffu;
  const auto d = cx.go({q});
  const int64_t total = c + sum;
  const uint32_t wrapped = static_cast<uint32_t>(static_cast<uint64_t>(total) & 0xffffffffu);
  if (d[0] == 0x7fffffffu) cx.r.satfinite = true;
  else if (d[0] == wrapped) cx.r.satfinite = false;
  else cx.r.notes.push_back(std::string("integer overflow probe gave an unexpected ") + std::to_string(d[0]));
}

}  // namespace

std::string catalog_rounding(const InstrEntry& e) {
  switch (e.params.rounding) {
    case tcemu::OutputRounding::rz_f32: return "rz_f32";
    case tcemu::OutputRounding::rne_f16: return "rne_f16";
    case tcemu::OutputRounding::rz_e8m13: return "rz_e8m13";
    case tcemu::OutputRounding::rne_f32: return "rne_f32";  // compare's alternatives only
    case tcemu::OutputRounding::rz_f16: return "rz_f16";
  }
  return "?";
}
std::string catalog_c_entry(const InstrEntry& e) {
  return e.params.c_entry == tcemu::CEntry::fused ? "fused" : "after";
}

DotRunner emulator_runner(const InstrEntry& e) {
  return [&e](const std::vector<DotQuery>& qs) {
    std::vector<uint64_t> out;
    out.reserve(qs.size());
    for (const DotQuery& q : qs) {
      const uint64_t C[1] = {q.c};
      tcemu::MmaResult r =
          tcemu::mma(tcemu::make_problem(e, 1, 1, static_cast<int>(q.a.size()), q.a, q.b, C, q.sa, q.sb), tcemu::Exec{1});
      if (!r.error.empty()) throw std::runtime_error(r.error);
      out.push_back(r.D.at(0));
    }
    return out;
  };
}

ProbeResult probe_instruction(const InstrEntry& e, const DotRunner& run) {
  ProbeResult r;
  r.arch = e.arch;
  r.ptx = e.ptx;
  const bool integer = e.params.kind == tcemu::DatapathKind::integer;
  r.kind = integer ? "integer" : "float";
  Ctx cx{e, run, e.atype, e.btype, integer ? Fmt::f32 : tcemu::acc_format(e.dtype), e.K, r};
  if (e.scale_type) {
    cx.one_scale = *tcemu::encode_exact(*e.scale_type, false, 1, 0);
    cx.nblocks = e.K / e.scale_block;
  }
  if (integer) {
    probe_integer(cx);
    if (r.satfinite && *r.satfinite != e.params.satfinite)
      r.differences.push_back(std::string("satfinite: measured ") + (*r.satfinite ? "clamps" : "wraps") + ", catalog " +
                              (e.params.satfinite ? "clamps" : "wraps"));
    return r;
  }
  probe_F(cx);
  if (r.c_entry == "after") probe_F_products(cx);
  probe_L(cx);
  probe_rounding(cx);
  probe_e_zero(cx);
  probe_subnormals_specials(cx);
  const tcemu::DatapathParams& p = e.params;
  auto differ = [&](const std::string& what, const std::string& m, const std::string& c) {
    if (m != c) r.differences.push_back(what + ": measured " + m + ", catalog " + c);
  };
  if (r.F) differ("F", std::to_string(*r.F), std::to_string(p.F));
  if (r.L) differ("L", std::to_string(*r.L), std::to_string(std::min(p.kpair_halves ? e.K / 2 : p.L, e.K)));
  if (!r.rounding.empty()) differ("rounding", r.rounding, catalog_rounding(e));
  if (!r.c_entry.empty()) differ("C entry", r.c_entry, catalog_c_entry(e));
  if (r.e_zero) differ("e_zero", std::to_string(*r.e_zero), std::to_string(p.e_zero));
  if (r.e_zero_max && p.e_zero > *r.e_zero_max)
    r.differences.push_back("e_zero: measured <= " + std::to_string(*r.e_zero_max) + ", catalog " + std::to_string(p.e_zero));
  return r;
}

std::string probe_text(const ProbeResult& r, const InstrEntry& e) {
  std::ostringstream o;
  auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("?"); };
  const tcemu::DatapathParams& p = e.params;
  o << r.arch << " " << r.ptx << "  (" << r.queries << " probe dot products)\n";
  if (r.kind == "integer") {
    o << "  overflow: " << (r.satfinite ? (*r.satfinite ? "clamps" : "wraps") : "?") << "   catalog: "
      << (p.satfinite ? "clamps" : "wraps") << "\n";
  } else {
    o << "  measured: L=" << opt(r.L) << " F=" << opt(r.F) << " rounding=" << (r.rounding.empty() ? "?" : r.rounding)
      << " e_zero=" << opt(r.e_zero) << " C=" << (r.c_entry.empty() ? "?" : r.c_entry) << "\n";
    o << "  catalog:  L=" << p.L << " F=" << p.F << " rounding=" << catalog_rounding(e) << " e_zero=" << p.e_zero
      << " C=" << catalog_c_entry(e) << "  (" << tcemu::to_string(e.confidence) << ")\n";
    o << "  subnormal inputs " << (r.subnormal_inputs.empty() ? "n/a" : r.subnormal_inputs) << ", outputs "
      << (r.subnormal_outputs.empty() ? "n/a" : r.subnormal_outputs) << "; all -0 gives "
      << (r.zero_sign.empty() ? "n/a" : r.zero_sign) << "\n";
    if (!r.specials.empty()) {
      o << "  specials:";
      for (const auto& [k, v] : r.specials) o << " " << k << " -> " << v << ";";
      o << "\n";
    }
  }
  for (const std::string& n : r.notes) o << "  note: " << n << "\n";
  for (const std::string& d : r.differences) o << "  DIFFERS: " << d << "\n";
  return o.str();
}

nlohmann::json probe_json(const ProbeResult& r, const InstrEntry& e) {
  auto opt = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json j = {{"arch", r.arch}, {"ptx", r.ptx}, {"kind", r.kind}, {"queries", r.queries},
                      {"notes", r.notes}, {"differences", r.differences}};
  if (r.kind == "integer") {
    j["measured"] = {{"satfinite", r.satfinite ? nlohmann::json(*r.satfinite) : nlohmann::json(nullptr)}};
    j["catalog"] = {{"satfinite", e.params.satfinite}};
    return j;
  }
  nlohmann::json sp = nlohmann::json::object();
  for (const auto& [k, v] : r.specials) sp[k] = v;
  j["measured"] = {{"L", opt(r.L)}, {"F", opt(r.F)}, {"rounding", r.rounding}, {"e_zero", opt(r.e_zero)},
                   {"e_zero_at_most", opt(r.e_zero_max)},
                   {"c_entry", r.c_entry}, {"subnormal_inputs", r.subnormal_inputs},
                   {"subnormal_outputs", r.subnormal_outputs}, {"zero_sign", r.zero_sign}, {"specials", sp}};
  j["catalog"] = {{"L", e.params.L}, {"F", e.params.F}, {"rounding", catalog_rounding(e)}, {"e_zero", e.params.e_zero},
                  {"c_entry", catalog_c_entry(e)}, {"confidence", std::string(tcemu::to_string(e.confidence))}};
  return j;
}

}  // namespace tcemu_gpu
