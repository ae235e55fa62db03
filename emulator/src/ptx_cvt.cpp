// PTX cvt instructions: parsing, the catalog, and evaluation with packing.
// Source: PTX ISA §9.7.9.21, summarised in docs/sources.md and docs/conversions.md.
#include "tcemu/ptx_cvt.hpp"

#include <algorithm>

namespace tcemu {
namespace {

struct TypeTok {
  std::string_view tok;
  Fmt fmt;
  int count;  // elements
};
constexpr TypeTok kTypes[] = {
    {"f64", Fmt::f64, 1},      {"f32", Fmt::f32, 1},      {"tf32", Fmt::tf32, 1},    {"f16", Fmt::f16, 1},
    {"bf16", Fmt::bf16, 1},    {"f16x2", Fmt::f16, 2},    {"bf16x2", Fmt::bf16, 2},  {"e4m3x2", Fmt::e4m3, 2},
    {"e5m2x2", Fmt::e5m2, 2},  {"e2m1x2", Fmt::e2m1, 2},  {"e2m3x2", Fmt::e2m3, 2},  {"e3m2x2", Fmt::e3m2, 2},
    {"ue8m0x2", Fmt::ue8m0, 2}, {"e4m3x4", Fmt::e4m3, 4}, {"e5m2x4", Fmt::e5m2, 4},  {"e2m3x4", Fmt::e2m3, 4},
    {"e3m2x4", Fmt::e3m2, 4},  {"e2m1x4", Fmt::e2m1, 4},  {"s8", Fmt::s8, 1},        {"u8", Fmt::u8, 1},
};

const TypeTok* find_type(std::string_view t) {
  for (const TypeTok& tt : kTypes)
    if (tt.tok == t) return &tt;
  return nullptr;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) { out.push_back(s.substr(start, i - start)); start = i + 1; }
  return out;
}

// Field width in bits of one element inside a packed register.
int field_bits(Fmt f) {
  switch (f) {
    case Fmt::e2m1: return 4;
    case Fmt::f16: case Fmt::bf16: return 16;
    case Fmt::f32: case Fmt::tf32: return 32;
    case Fmt::f64: return 64;
    default: return 8;  // FP8, FP6 (low 6 bits of a byte), ue8m0, s8/u8
  }
}

// Architecture of a variant (PTX ISA "Target ISA notes" of cvt).
void set_arch(PtxCvt& c) {
  auto set = [&](int sm, std::string_view a) { c.min_sm = sm; c.arch = a; };
  const bool narrow_dst = c.dst == Fmt::e4m3 || c.dst == Fmt::e5m2 || c.dst == Fmt::e2m1 || c.dst == Fmt::e2m3 ||
                          c.dst == Fmt::e3m2;
  const bool narrow_src = c.src == Fmt::e4m3 || c.src == Fmt::e5m2 || c.src == Fmt::e2m1 || c.src == Fmt::e2m3 ||
                          c.src == Fmt::e3m2;
  if (c.has_rbits) return set(100, "sm_100a/sm_103a");
  if (c.dst == Fmt::ue8m0 || c.src == Fmt::ue8m0) return set(100, "sm_100a/sm_110a/sm_120a");
  if (narrow_dst && (c.dst == Fmt::e4m3 || c.dst == Fmt::e5m2)) {
    if (c.src == Fmt::bf16) return set(100, "sm_100f");
    return set(89, "sm_89");
  }
  if (narrow_dst) return set(100, "sm_100a/sm_110a/sm_120a");
  if (narrow_src) {
    if (c.src == Fmt::e4m3 || c.src == Fmt::e5m2) return set(89, "sm_89");
    return set(100, "sm_100a/sm_110a/sm_120a");
  }
  // Below: ptxas 13.0 accepts these for sm_90a (checked one by one, docs/gpu.md); the lower
  // bound is the PTX ISA's where it was checked, else sm_90.
  if (c.dst == Fmt::tf32) {
    if (c.options.satfinite && c.options.round != Round::rna) return set(100, "sm_100");
    if (c.options.round == Round::rna && !c.options.satfinite) return set(80, "sm_80");
    if (c.options.round == Round::rna) return set(90, "sm_90 (lowered; native sm_100)");
    return set(90, "sm_90");
  }
  if (c.options.satfinite && (c.dst == Fmt::f16 || c.dst == Fmt::bf16)) return set(90, "sm_90");
  if ((c.dst == Fmt::bf16 && c.src == Fmt::f16) || (c.dst == Fmt::f16 && c.src == Fmt::bf16)) return set(90, "sm_90");
  if (c.dst == Fmt::bf16 || c.src == Fmt::bf16) {
    if (c.options.round == Round::rd || c.options.round == Round::ru || c.dst == Fmt::f32 || c.dst == Fmt::f64 ||
        c.src == Fmt::f64)
      return set(90, "sm_90");
    return set(80, "sm_80");
  }
  if (c.dst == Fmt::f16 && (c.dst_count == 2 || c.options.relu)) return set(80, "sm_80");
  return set(20, "sm_20");
}

}  // namespace

Result<PtxCvt> parse_ptx_cvt(std::string_view spelling) {
  auto err = [&](const std::string& e) {
    std::string m(1, '\'');  // built piecewise: g++ 12 warns falsely (-Wrestrict) on "'" + std::string
    m.append(spelling).append("': ").append(e);
    return Result<PtxCvt>::failure(std::move(m));
  };
  std::vector<std::string_view> t = split(spelling, '.');
  if (t.size() < 3 || t[0] != "cvt") return err("not a cvt instruction (expected cvt.<modifiers>.<dtype>.<atype>)");
  const TypeTok* dt = find_type(t[t.size() - 2]);
  const TypeTok* st = find_type(t[t.size() - 1]);
  if (!dt) return err("unknown destination type '" + std::string(t[t.size() - 2]) + "'");
  if (!st) return err("unknown source type '" + std::string(t[t.size() - 1]) + "'");
  PtxCvt c;
  c.spelling = std::string(spelling);
  c.dst = dt->fmt;
  c.dst_count = dt->count;
  c.src = st->fmt;
  std::optional<Round> round;
  bool sat_int = false;
  for (size_t i = 1; i + 2 < t.size(); ++i) {
    std::string_view m = t[i];
    if (m == "relu") c.options.relu = true;
    else if (m == "satfinite") c.options.satfinite = true;
    else if (m == "sat") sat_int = true;
    else if (m == "ftz") c.options.ftz = true;
    else if (m == "rni" || m == "rzi" || m == "rmi" || m == "rpi") round = parse_round(m.substr(0, 2));
    else if (auto r = parse_round(m)) round = r;
    else return err("unknown modifier '." + std::string(m) + "'");
  }
  (void)sat_int;  // float-to-integer conversions clamp in any case
  // Source count and packing.
  if (st->count > 1) {
    c.src_count = st->count;
    c.src_packed = true;
  } else {
    c.src_count = dt->count;  // one .f32 operand per destination element
  }
  if (dt->count != c.src_count) return err("destination and source element counts differ");
  c.has_rbits = round == Round::rs;
  // Element conversion under the ptx convention.
  OptionRequest req;
  req.round = round;
  req.satfinite = c.options.satfinite ? std::optional<bool>(true) : std::nullopt;
  req.relu = c.options.relu;
  req.ftz = c.options.ftz;
  const bool exact_up = c.src != Fmt::f32 && c.src != Fmt::f64 && c.src != Fmt::f16 && c.src != Fmt::bf16 &&
                        !info(c.src).is_int && c.src != Fmt::tf32;
  if (!round && !exact_up && !(info(c.dst).width > info(c.src).width && !info(c.src).is_int))
    return err("a rounding modifier is required for this conversion");
  if (!round) req.round = Round::rn;
  if (c.dst != Fmt::ue8m0 && c.dst != Fmt::tf32 && !(c.dst == Fmt::e4m3 || c.dst == Fmt::e5m2 || c.dst == Fmt::e2m1 ||
                                                     c.dst == Fmt::e2m3 || c.dst == Fmt::e3m2) &&
      !c.options.satfinite)
    req.satfinite = false;
  Resolved r = resolve("ptx", c.src, c.dst, req);
  if (!r.options) return err(r.error);
  if ((c.dst == Fmt::e4m3 || c.dst == Fmt::e5m2 || c.dst == Fmt::e2m1 || c.dst == Fmt::e2m3 || c.dst == Fmt::e3m2) &&
      !c.options.satfinite)
    return err(".satfinite is mandatory for this destination");
  c.options = *r.options;
  c.sm90_tf32_satfinite_nan = c.dst == Fmt::tf32 && c.options.round == Round::rna && c.options.satfinite;
  set_arch(c);
  return {c, {}};
}

int ptx_cvt_dst_bits(const PtxCvt& c) {
  if (c.dst == Fmt::e2m3 || c.dst == Fmt::e3m2) return c.dst_count == 2 ? 16 : 32;
  return std::max(8, field_bits(c.dst) * c.dst_count);
}

int ptx_cvt_src_bits(const PtxCvt& c) {
  if (!c.src_packed) return field_bits(c.src);
  return std::max(8, field_bits(c.src) * c.src_count);
}

uint64_t ptx_cvt_eval(const PtxCvt& c, std::span<const uint64_t> src, uint32_t rbits, RsBitMap rs_map) {
  // Gather the source elements in operand order (a, b, e, f): a is the highest field.
  uint64_t elem[4] = {0, 0, 0, 0};
  if (c.src_packed) {
    const int fb = field_bits(c.src);
    const uint64_t reg = src.empty() ? 0 : src[0];
    for (int i = 0; i < c.src_count; ++i) {
      uint64_t f = reg >> (fb * (c.src_count - 1 - i));
      elem[i] = f & ((uint64_t{1} << info(c.src).width) - 1);
    }
  } else {
    for (int i = 0; i < c.src_count && i < static_cast<int>(src.size()); ++i) elem[i] = src[i];
  }
  // Random bits per element.
  uint32_t rb[4] = {0, 0, 0, 0};
  if (c.has_rbits) {
    auto bitrev8 = [](uint32_t x) {
      uint32_t r = 0;
      for (int i = 0; i < 8; ++i) r |= ((x >> i) & 1u) << (7 - i);
      return r;
    };
    if (c.dst_count == 2) {
      rb[0] = rbits >> 16;   // upper half for a
      rb[1] = rbits & 0xffff;
    } else if (c.dst == Fmt::e2m1 && rs_map == RsBitMap::ptx_doc) {
      rb[0] = rbits >> 24; rb[1] = (rbits >> 8) & 0xff; rb[2] = (rbits >> 16) & 0xff; rb[3] = rbits & 0xff;
    } else if (rs_map == RsBitMap::ptx_doc) {
      rb[0] = rbits >> 24; rb[1] = (rbits >> 16) & 0xff; rb[2] = (rbits >> 8) & 0xff; rb[3] = rbits & 0xff;
    } else {
      rb[1] = rbits >> 24; rb[0] = bitrev8((rbits >> 16) & 0xff);
      rb[3] = (rbits >> 8) & 0xff; rb[2] = bitrev8(rbits & 0xff);
    }
  }
  uint64_t d = 0;
  const int fb = (c.dst == Fmt::e2m3 || c.dst == Fmt::e3m2) ? 8 : field_bits(c.dst);
  for (int i = 0; i < c.dst_count; ++i) {
    uint64_t r = convert(c.src, c.dst, elem[i], c.options, rb[i]).code;
    if (c.sm90_tf32_satfinite_nan && classify(c.src, elem[i]) == Class::nan) r -= uint64_t{1} << 13;
    d |= r << (fb * (c.dst_count - 1 - i));
  }
  return d;
}

const std::vector<std::string>& ptx_cvt_catalog() {
  static const std::vector<std::string> kCatalog = [] {
    std::vector<std::string> v;
    for (std::string r : {"rn", "rz"})
      for (std::string relu : {"", ".relu"})
        for (std::string sat : {"", ".satfinite"})
          for (std::string d : {"f16", "f16x2", "bf16", "bf16x2"}) v.push_back("cvt." + r + relu + sat + "." + d + ".f32");
    for (std::string r : {"rm", "rp"}) {
      v.push_back("cvt." + r + ".f16.f32");
      v.push_back("cvt." + r + ".bf16.f32");
    }
    v.push_back("cvt.rna.tf32.f32");
    v.push_back("cvt.rna.satfinite.tf32.f32");
    for (std::string r : {"rn", "rz"})
      for (std::string sat : {"", ".satfinite"})
        for (std::string relu : {"", ".relu"}) v.push_back("cvt." + r + sat + relu + ".tf32.f32");
    for (std::string d : {"e4m3x2", "e5m2x2"})
      for (std::string relu : {"", ".relu"})
        for (std::string s : {"f32", "f16x2", "bf16x2"}) v.push_back("cvt.rn.satfinite" + relu + "." + d + "." + s);
    for (std::string s : {"e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2"})
      for (std::string relu : {"", ".relu"}) v.push_back("cvt.rn" + relu + ".f16x2." + s);
    for (std::string d : {"e2m1x2", "e2m3x2", "e3m2x2"})
      for (std::string relu : {"", ".relu"}) v.push_back("cvt.rn.satfinite" + relu + "." + d + ".f32");
    for (std::string r : {"rz", "rp"})
      for (std::string sat : {"", ".satfinite"})
        for (std::string s : {"f32", "bf16x2"}) v.push_back("cvt." + r + sat + ".ue8m0x2." + s);
    v.push_back("cvt.rn.bf16x2.ue8m0x2");
    for (std::string relu : {"", ".relu"})
      for (std::string sat : {"", ".satfinite"})
        for (std::string d : {"f16x2", "bf16x2"}) v.push_back("cvt.rs" + relu + sat + "." + d + ".f32");
    for (std::string relu : {"", ".relu"})
      for (std::string d : {"e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"})
        v.push_back("cvt.rs" + relu + ".satfinite." + d + ".f32");
    for (std::string r : {"rn", "rz", "rm", "rp"})
      for (std::string d : {"f16", "bf16"}) v.push_back("cvt." + r + ".ftz." + d + ".f32");
    for (std::string r : {"rn", "rz", "rm", "rp"}) {
      v.push_back("cvt." + r + ".bf16.f16");
      v.push_back("cvt." + r + ".f16.bf16");
      v.push_back("cvt." + r + ".f16.f64");
      v.push_back("cvt." + r + ".bf16.f64");
    }
    for (std::string ftz : {"", ".ftz"}) {
      v.push_back("cvt" + ftz + ".f32.f16");
      v.push_back("cvt" + ftz + ".f32.bf16");
      v.push_back("cvt" + ftz + ".f64.f32");
      for (std::string r : {"rn", "rz", "rm", "rp"}) v.push_back("cvt." + r + ftz + ".f32.f64");
    }
    v.push_back("cvt.f64.f16");
    v.push_back("cvt.f64.bf16");
    for (std::string r : {"rni", "rzi", "rmi", "rpi"})
      for (std::string d : {"s8", "u8"}) v.push_back("cvt." + r + "." + d + ".f32");
    for (std::string s : {"s8", "u8"}) v.push_back("cvt.rn.f32." + s);
    return v;
  }();
  return kCatalog;
}

}  // namespace tcemu
