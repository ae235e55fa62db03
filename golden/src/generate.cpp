// Generation of golden cases (see generate.hpp). The draws below build codes from their bit
// fields or round exact values with tcemu's own conversion, so no floating-point library
// function (log, cos, ...) is involved and the output is the same everywhere.
#include "tcemu_golden/generate.hpp"

#include <array>
#include <cmath>
#include <cstring>

#include "tcemu/datapath.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/instr_tile.hpp"

namespace tcemu::golden {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): fully specified, so streams are portable.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }
};

// One stream per operand: the seed mixed with the operand's name.
Rng stream(uint64_t seed, std::string_view name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Rng r(seed ^ h);
  r.next();
  return r;
}

constexpr std::array<Dist, 6> kDists = {Dist::bits, Dist::normal, Dist::wide, Dist::subnormal, Dist::specials, Dist::edges};
constexpr std::array<ScaleDist, 7> kScaleDists = {ScaleDist::unit, ScaleDist::random, ScaleDist::min, ScaleDist::max,
                                                  ScaleDist::zero_blocks, ScaleDist::nan, ScaleDist::mixed};

// The element kind of a draw: a format of format.hpp (the s32 accumulator included).
struct Kind {
  Fmt fmt;
  int width() const { return info(fmt).width; }
  bool is_int() const { return info(fmt).is_int; }
  bool is_signed() const { return info(fmt).is_signed; }
  uint64_t mask() const { return width() >= 64 ? ~uint64_t{0} : (uint64_t{1} << width()) - 1; }
};

uint64_t from_double(Fmt f, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  ConvertOptions o;
  o.round = Round::rn;
  o.satfinite = true;
  return convert(Fmt::f64, f, bits, o).code;
}

double to_double(Fmt f, uint64_t code) {
  const uint64_t b = convert(f, Fmt::f64, code, ConvertOptions{}).code;
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}

// Irwin-Hall: the sum of 12 uniforms minus 6 is close to a standard normal; exact in integers.
double normal01(Rng& r) {
  int64_t s = 0;
  for (int i = 0; i < 12; ++i) s += static_cast<int64_t>(r.next() >> 40);  // 24-bit uniforms
  s -= int64_t{6} << 24;
  return std::ldexp(static_cast<double>(s), -24);
}

uint64_t int_code(const Kind& k, int64_t v) {
  const int w = k.width();
  if (k.is_signed()) {
    const int64_t lo = -(int64_t{1} << (w - 1)), hi = (int64_t{1} << (w - 1)) - 1;
    v = std::clamp(v, lo, hi);
  } else {
    v = std::clamp<int64_t>(v, 0, (int64_t{1} << w) - 1);
  }
  return static_cast<uint64_t>(v) & k.mask();
}

uint64_t draw_int(const Kind& k, Dist d, double scale, Rng& r) {
  const int w = k.width();
  const int64_t hi = k.is_signed() ? (int64_t{1} << (w - 1)) - 1 : (int64_t{1} << w) - 1;
  const int64_t lo = k.is_signed() ? -(int64_t{1} << (w - 1)) : 0;
  switch (d) {
    case Dist::normal: {
      const double v = normal01(r) * scale * static_cast<double>(hi) / 4;
      return int_code(k, static_cast<int64_t>(std::llround(k.is_signed() ? v : std::fabs(v))));
    }
    case Dist::edges: case Dist::specials: {
      const int64_t picks[] = {lo, hi, 0, 1, lo + 1, hi - 1, k.is_signed() ? -1 : 2};
      return int_code(k, picks[r.below(7)]);
    }
    case Dist::subnormal:  // integers have none: small magnitudes instead
      return int_code(k, static_cast<int64_t>(r.below(7)) - (k.is_signed() ? 3 : 0));
    default: return r.next() & k.mask();
  }
}

// A code from its fields; nullopt when that is not a finite number of the format.
std::optional<uint64_t> finite_code(Fmt f, bool neg, uint64_t eb, uint64_t man) {
  const FormatInfo& fi = info(f);
  uint64_t c = (eb << (fi.man_shift + fi.man_bits)) | (man << fi.man_shift);
  if (neg && fi.is_signed) c |= fi.sign_mask();
  const Class cl = classify(f, c);
  if (cl == Class::nan || cl == Class::inf) return std::nullopt;
  return c;
}

uint64_t draw_float(Fmt f, Dist d, double scale, Rng& r) {
  const FormatInfo& fi = info(f);
  const uint64_t top = (uint64_t{1} << fi.exp_bits) - 1, man_all = (uint64_t{1} << fi.man_bits) - 1;
  const bool neg = fi.is_signed && (r.next() & 1);
  auto random_binade = [&]() {
    for (;;)
      if (auto c = finite_code(f, r.next() & 1, r.below(top + 1), r.next() & man_all)) return *c;
  };
  switch (d) {
    case Dist::mixed:  // resolved by draw(); a pure distribution reaches here
    case Dist::bits:
      // Finite patterns only: a NaN or Inf operand makes the whole dot product NaN or Inf, and
      // those are the `specials` distribution's job.
      for (;;) {
        uint64_t c = r.next() & fi.code_mask();
        if (fi.man_shift) c &= ~((uint64_t{1} << fi.man_shift) - 1);
        const Class cl = classify(f, c);
        if (cl != Class::nan && cl != Class::inf) return c;
      }
    case Dist::normal: return from_double(f, normal01(r) * scale);
    case Dist::wide: return random_binade();
    case Dist::subnormal: {
      const uint64_t p = r.below(10);
      if (p < 7 && fi.has_subnormals) return *finite_code(f, neg, 0, r.next() & man_all);
      if (p < 9) return *finite_code(f, neg, fi.has_subnormals ? 1 : 0, r.next() & man_all);
      return random_binade();
    }
    case Dist::specials: {
      if (r.chance(75)) return from_double(f, normal01(r) * scale);
      std::vector<uint64_t> picks;
      if (auto z = zero_code(f, false)) picks.push_back(*z);
      if (auto z = zero_code(f, true)) picks.push_back(*z);
      if (auto i = inf_code(f, false)) picks.push_back(*i);
      if (auto i = inf_code(f, true)) picks.push_back(*i);
      if (auto n = canonical_nan(f)) {
        picks.push_back(*n);
        if (fi.specials == Specials::ieee) picks.push_back((top << fi.man_bits | (1 + r.below(man_all))) << fi.man_shift |
                                                           (neg ? fi.sign_mask() : 0));
      }
      picks.push_back(max_finite_code(f, neg));
      if (auto s = min_subnormal_code(f)) picks.push_back(*s | (neg ? fi.sign_mask() : 0));
      return picks[r.below(picks.size())];
    }
    case Dist::edges: {
      const uint64_t emax_field = static_cast<uint64_t>(fi.emax() + fi.bias);
      const uint64_t eb = (fi.has_subnormals ? 1 : 0) + r.below(emax_field + 1 - (fi.has_subnormals ? 1 : 0));
      for (;;) {
        switch (r.below(8)) {
          case 0: return max_finite_code(f, neg);
          case 1: return max_finite_code(f, neg) - 1;  // one code below max (same sign)
          case 2: return min_normal_code(f) | (neg ? fi.sign_mask() : 0);
          case 3: if (auto s = min_subnormal_code(f)) return *s | (neg ? fi.sign_mask() : 0); break;
          case 4: if (auto c = finite_code(f, neg, eb, 0)) return *c; break;              // 2^e
          case 5: if (auto c = finite_code(f, neg, eb, man_all ? 1 : 0)) return *c; break; // 2^e (1 + ulp)
          case 6: if (auto c = finite_code(f, neg, eb, man_all)) return *c; break;         // 2^(e+1) - ulp
          default: if (auto z = zero_code(f, neg)) return *z; break;
        }
      }
    }
  }
  return 0;
}

Dist pick(Dist d, Rng& r) { return d == Dist::mixed ? kDists[r.below(kDists.size())] : d; }

uint64_t draw(const Kind& k, Dist d, double scale, Rng& r) {
  d = pick(d, r);
  if (k.is_int()) return draw_int(k, d, scale, r);
  return draw_float(k.fmt, d, scale, r);
}

// ue5m3 (PTX ISA 9.4) scales: 1 is 0x78; random 2^-7 .. 2^6 (exponent fields 8 .. 21); it has
// a zero (0x00) and the NaN 0xff.
uint64_t ue5m3_scale_code(ScaleDist d, Rng& r) {
  switch (d) {
    case ScaleDist::unit: case ScaleDist::zero_blocks: return 0x78;
    case ScaleDist::random: return 0x40 + r.below(0xB0 - 0x40);
    case ScaleDist::min: return 0x01;
    case ScaleDist::max: return 0xFE;
    case ScaleDist::nan: return r.chance(25) ? 0xFF : ue5m3_scale_code(ScaleDist::random, r);
    default: return 0x78;
  }
}

uint64_t scale_code(Fmt s, ScaleDist d, Rng& r) {
  if (s == Fmt::ue5m3 && d != ScaleDist::mixed) return ue5m3_scale_code(d, r);
  const bool e8 = s == Fmt::ue8m0;
  switch (d) {
    case ScaleDist::unit: case ScaleDist::zero_blocks: return e8 ? 0x7F : 0x38;
    case ScaleDist::random: return e8 ? 121 + r.below(13) : 0x08 + r.below(0x76 - 0x08);  // ue4m3: finite, nonzero
    case ScaleDist::min: return e8 ? 0x00 : 0x01;
    case ScaleDist::max: return e8 ? 0xFE : 0x7E;
    case ScaleDist::nan: return r.chance(25) ? (e8 ? 0xFF : 0x7F) : scale_code(s, ScaleDist::random, r);
    case ScaleDist::mixed: {
      const ScaleDist pick[] = {ScaleDist::unit, ScaleDist::random, ScaleDist::random, ScaleDist::min,
                                ScaleDist::max,  ScaleDist::zero_blocks, ScaleDist::nan};
      return scale_code(s, pick[r.below(7)], r);
    }
  }
  return 0;
}

std::string safe_name(std::string s) {
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return s;
}

nlohmann::json model_json(const InstrEntry& e) {
  return {{"datapath", describe(e.params)}, {"confidence", std::string(to_string(e.confidence))}, {"evidence", e.evidence},
          {"family", e.family}};
}

}  // namespace

std::span<const Dist> all_distributions() { return kDists; }
std::span<const ScaleDist> all_scale_distributions() { return kScaleDists; }

std::string_view to_string(Dist d) {
  switch (d) {
    case Dist::bits: return "bits";
    case Dist::normal: return "normal";
    case Dist::wide: return "wide";
    case Dist::subnormal: return "subnormal";
    case Dist::specials: return "specials";
    case Dist::edges: return "edges";
    case Dist::mixed: return "mixed";
  }
  return "?";
}

std::optional<Dist> parse_dist(std::string_view s) {
  for (Dist d : kDists)
    if (to_string(d) == s) return d;
  if (s == "mixed") return Dist::mixed;
  return std::nullopt;
}

std::string_view to_string(ScaleDist d) {
  switch (d) {
    case ScaleDist::unit: return "unit";
    case ScaleDist::random: return "random";
    case ScaleDist::min: return "min";
    case ScaleDist::max: return "max";
    case ScaleDist::zero_blocks: return "zero_blocks";
    case ScaleDist::nan: return "nan";
    case ScaleDist::mixed: return "mixed";
  }
  return "?";
}

std::optional<ScaleDist> parse_scale_dist(std::string_view s) {
  for (ScaleDist d : kScaleDists)
    if (to_string(d) == s) return d;
  return std::nullopt;
}

namespace {

// The instruction, its tile and the problem's shape (checked to tile into the instruction).
MmaSpec mma_spec(const MmaGenRequest& q, const InstrEntry& e) {
  InstrTile tile = default_tile(e);
  if (q.tile_m) tile.m = q.tile_m;
  if (q.tile_n) tile.n = q.tile_n;
  if (std::string err = check_tile(e, tile); !err.empty()) throw GoldenError("tile: " + err);
  MmaSpec m;
  m.arch = q.arch;
  m.ptx = e.ptx;
  m.entry = &e;
  m.tile_m = tile.m;
  m.tile_n = tile.n;
  m.M = q.M ? q.M : tile.m;
  m.N = q.N ? q.N : tile.n;
  m.K = q.K ? q.K : e.K;
  m.options = q.options;
  if (m.M % tile.m || m.N % tile.n || m.K % e.K)
    throw GoldenError("shape " + std::to_string(m.M) + " x " + std::to_string(m.N) + " x " + std::to_string(m.K) +
                      " does not tile into the instruction's " + std::to_string(tile.m) + " x " + std::to_string(tile.n) +
                      " x " + std::to_string(e.K));
  return m;
}

// A, B and C drawn from their distributions, then the planted cancellations.
void draw_operands(const MmaGenRequest& q, const InstrEntry& e, Fmt c_fmt, size_t M, size_t N, size_t K,
                   std::vector<uint64_t>& A, std::vector<uint64_t>& B, std::vector<uint64_t>& C) {
  const Kind acc{c_fmt};
  // Dist::mixed picks one distribution per row of A and per column of B (from streams of
  // their own, so the pure distributions draw exactly as before).
  {
    Rng r = stream(q.seed, "A"), rd = stream(q.seed, "A-dists");
    for (size_t i = 0; i < M; ++i) {
      const Dist d = pick(q.dist_a, rd);
      for (size_t k = 0; k < K; ++k) A[i * K + k] = draw(Kind{e.atype}, d, q.scale, r);
    }
  }
  {
    Rng r = stream(q.seed, "B"), rd = stream(q.seed, "B-dists");
    std::vector<Dist> col(N);
    for (Dist& d : col) d = pick(q.dist_b, rd);
    for (size_t k = 0; k < K; ++k)
      for (size_t j = 0; j < N; ++j) B[k * N + j] = draw(Kind{e.btype}, col[j], q.scale, r);
  }
  {
    Rng r = stream(q.seed, "C");
    // C at the products' scale: a normal C of scale s against products of size s^2 K.
    for (uint64_t& x : C) x = draw(acc, q.dist_c, q.scale, r);
  }
  if ((q.dist_a == Dist::wide || q.dist_a == Dist::mixed) && !info(e.atype).is_int && K >= 2) {
    // Cancellation: column k2 of A is column k1 negated and row k2 of B is row k1, so the two
    // products cancel exactly in every dot product (wide exponents make the rest small).
    Rng r = stream(q.seed, "cancel");
    for (size_t p = 0; p < K / 4 + 1; ++p) {
      const size_t k1 = r.below(K), k2 = r.below(K);
      if (k1 == k2) continue;
      for (size_t i = 0; i < M; ++i) A[i * K + k2] = A[i * K + k1] ^ info(e.atype).sign_mask();
      for (size_t j = 0; j < N; ++j) B[k2 * N + j] = B[k1 * N + j];
    }
  }
}

// The block scales (scale_A, scale_B) of a block-scaled instruction; zero_blocks also zeroes
// the elements of some blocks of A and B.
void draw_scales(const MmaGenRequest& q, const InstrEntry& e, size_t M, size_t N, size_t K, std::vector<uint64_t>& A,
                 std::vector<uint64_t>& B, Case& c) {
  const size_t blk = static_cast<size_t>(e.scale_block), nb = K / blk;
  std::vector<uint64_t> sa(M * nb), sb(N * nb);
  Rng r = stream(q.seed, "scales");
  auto fill = [&](std::vector<uint64_t>& s, size_t rows, bool is_a) {
    for (size_t i = 0; i < rows; ++i)
      for (size_t b = 0; b < nb; ++b) {
        ScaleDist d = q.scales;
        if (d == ScaleDist::mixed) {
          const ScaleDist pick[] = {ScaleDist::unit, ScaleDist::random, ScaleDist::random, ScaleDist::min,
                                    ScaleDist::max,  ScaleDist::zero_blocks, ScaleDist::nan};
          d = pick[r.below(7)];
        }
        s[i * nb + b] = scale_code(*e.scale_type, d, r);
        if (d == ScaleDist::zero_blocks && r.chance(50)) {
          if (*e.scale_type != Fmt::ue8m0 && r.chance(50)) s[i * nb + b] = 0x00;  // a zero scale (ue4m3, ue5m3)
          for (size_t k = b * blk; k < (b + 1) * blk; ++k) {
            if (is_a) A[i * K + k] = *zero_code(e.atype, false);
            else B[k * N + i] = *zero_code(e.btype, false);
          }
        }
      }
  };
  fill(sa, M, true);
  fill(sb, N, false);
  c.operands["scale_A"] = make_array(elem_type(*e.scale_type), M, nb, sa);
  c.operands["scale_B"] = make_array(elem_type(*e.scale_type), N, nb, sb);
}

// The case's default name: architecture, family, shape, types, variant, distributions, seed.
std::string mma_case_name(const MmaGenRequest& q, const InstrEntry& e, const MmaSpec& m, const std::string& scale_part) {
  const std::string dists = q.dist_a == q.dist_b && q.dist_b == q.dist_c
                                ? std::string(to_string(q.dist_a))
                                : std::string(to_string(q.dist_a)) + "." + std::string(to_string(q.dist_b)) + "." +
                                      std::string(to_string(q.dist_c));
  std::string variant;
  if (e.ptx.find("satfinite") != std::string::npos) variant += "-sat";
  if (e.ptx.find("cta_group::2") != std::string::npos) variant += "-cg2";
  if (e.scale_type) variant += "-x" + std::to_string(e.scale_vec) + "-" + std::string(info(*e.scale_type).name);
  return safe_name(e.arch + "-" + e.family + "-m" + std::to_string(m.M) + "n" + std::to_string(m.N) + "k" +
                   std::to_string(m.K) + "-" + std::string(info(e.atype).name) + "." + std::string(info(e.btype).name) +
                   "." + std::string(to_string(e.dtype)) + variant + "-" + dists + scale_part + "-s" +
                   std::to_string(q.seed));
}

// The drawn operands of an MMA or GEMM case for request q (C of format c_fmt, kept when
// with_c), its spec, name and generator fields; the expected D is left to the caller.
Case draw_case(const MmaGenRequest& q, const InstrEntry& e, Fmt c_fmt, bool with_c, nlohmann::json& gen) {
  Case c;
  c.mma = mma_spec(q, e);
  const MmaSpec& m = c.mma;
  const size_t M = static_cast<size_t>(m.M), N = static_cast<size_t>(m.N), K = static_cast<size_t>(m.K);
  std::vector<uint64_t> A(M * K), B(K * N), C(M * N);
  draw_operands(q, e, c_fmt, M, N, K, A, B, C);
  gen = {{"dist_a", std::string(to_string(q.dist_a))},
         {"dist_b", std::string(to_string(q.dist_b))},
         {"dist_c", std::string(to_string(q.dist_c))},
         {"scale", q.scale}};
  std::string scale_part;
  if (e.scale_type) {
    draw_scales(q, e, M, N, K, A, B, c);
    gen["scales"] = std::string(to_string(q.scales));
    scale_part = std::string("-") + std::string(to_string(q.scales));
  }
  c.operands["A"] = make_array(elem_type(e.atype), M, K, A, q.a_col);
  c.operands["B"] = make_array(elem_type(e.btype), K, N, B, q.b_col);
  if (with_c) c.operands["C"] = make_array(elem_type(c_fmt), M, N, C, q.c_col);
  c.expected_name = "D";
  c.op = OpKind::mma;
  c.name = q.name.empty() ? mma_case_name(q, e, m, scale_part) : q.name;
  return c;
}

Provenance tcemu_provenance(const InstrEntry& e, uint64_t seed, const nlohmann::json& gen) {
  Provenance p;
  p.source = "tcemu";
  p.fields = {{"source", "tcemu"}, {"tcemu_version", std::string(kTcemuVersion)}, {"model", model_json(e)},
              {"seed", seed},      {"generator", gen}};
  return p;
}

const InstrEntry& request_entry(const MmaGenRequest& q) {
  InstrLookup lk = find_instruction(q.arch, q.ptx, q.atype, q.btype, q.dtype, q.stype);
  if (!lk.entry) throw GoldenError(lk.error);
  return *lk.entry;
}

}  // namespace

Case generate_mma(const MmaGenRequest& q) {
  const InstrEntry& e = request_entry(q);
  nlohmann::json gen;
  Case c = draw_case(q, e, acc_format(e.dtype), q.options.scale_d, gen);
  const MmaSpec& m = c.mma;
  const size_t M = static_cast<size_t>(m.M), N = static_cast<size_t>(m.N);
  const ElemType acc_t = elem_type(acc_format(e.dtype));
  c.expected = make_array(acc_t, M, N, std::vector<uint64_t>(M * N, 0), q.d_col);
  std::vector<uint64_t> D;
  if (q.compute) {
    const MmaInputs in = mma_inputs(c);
    MmaResult r = q.compute(e, in.problem(c), m.options);
    if (!r.error.empty()) throw GoldenError("case " + c.name + ": " + r.error);
    D = r.D.values();
  } else {
    D = evaluate(c);
  }
  c.expected = make_array(acc_t, M, N, D, q.d_col);
  c.provenance = tcemu_provenance(e, q.seed, gen);
  return c;
}

Case generate_gemm(const GemmGenRequest& r) {
  const MmaGenRequest& q = r.mma;
  const InstrEntry& e = request_entry(q);
  const Epilogue& ep = r.epilogue;
  nlohmann::json gen;
  Case c = draw_case(q, e, Fmt::f32, (ep.beta & 0x7FFFFFFFu) != 0, gen);
  c.op = OpKind::gemm;
  GemmSpec& g = c.gemm;
  g.preset = r.plan.plan;
  g.split_k = r.plan.split_k;
  g.grain = r.plan.grain;
  GemmPlan& plan = g.plan;
  plan.epilogue = ep;
  if (const std::string err = resolve_plan(e, c.mma.K, r.plan, plan); !err.empty()) throw GoldenError(err);
  plan.mma = q.options;
  c.mma.options = q.options;
  // The epilogue's vectors travel as operands; gemm_plan() puts them back.
  auto vec = [&](const char* name, std::vector<uint32_t>& v) {
    if (!v.empty())
      c.operands[name] = make_array(elem_type(Fmt::f32), v.size(), 1, std::vector<uint64_t>(v.begin(), v.end()), false, true);
    v.clear();
  };
  vec("a_scale", plan.epilogue.a_scale);
  vec("b_scale", plan.epilogue.b_scale);
  vec("bias", plan.epilogue.bias);
  if (q.name.empty()) c.name = "gemm-" + c.name + "-" + plan_summary(g) + "-" + std::string(info(ep.out_type).name);
  const MmaInputs in = mma_inputs(c);
  if (const std::string err = check_plan(e, in.problem(c), gemm_plan(c)); !err.empty()) throw GoldenError(err);
  const std::vector<uint64_t> D = evaluate(c);
  c.expected = make_array(elem_type(ep.out_type), static_cast<size_t>(c.mma.M), static_cast<size_t>(c.mma.N), D, q.d_col);
  c.provenance = tcemu_provenance(e, q.seed, gen);
  c.provenance.fields["model"]["gemm"] = "tcemu::gemm (docs/gemm.md): " + epilogue_steps(plan.epilogue.order);
  return c;
}

std::vector<Case> generate_mma_cases(std::span<const MmaGenRequest> requests, const Exec& exec) {
  std::vector<Case> cases(requests.size());
  parallel_for(requests.size(), exec, [&](size_t i) { cases[i] = generate_mma(requests[i]); });
  return cases;
}

Case generate_convert(const ConvertGenRequest& q) {
  Case c;
  c.op = OpKind::convert;
  ConvertSpec& s = c.conv;
  s.from = q.from;
  s.to = q.to;
  s.convention = q.convention;
  s.request = q.request;
  if (!find_convention(q.convention)) throw GoldenError("unknown convention '" + q.convention + "'");
  Resolved res = resolve(q.convention, q.from, q.to, q.request);
  if (!res.options) throw GoldenError(res.error);
  s.options = *res.options;
  Rng r = stream(q.seed, "x");
  std::vector<uint64_t> x(q.count);
  const FormatInfo& to = info(q.to);
  for (uint64_t& v : x) {
    if (q.dist != Dist::edges || to.is_int || info(q.from).is_int) {
      v = draw(Kind{q.from}, q.dist, q.scale, r);
      continue;
    }
    // A midpoint between a finite destination code and the next one up in magnitude (for the
    // largest code: the overflow threshold), then nudged by -1, 0 or +1 source ulp.
    uint64_t d = draw_float(q.to, Dist::wide, 1.0, r);
    if (r.chance(20)) d = max_finite_code(q.to, to.is_signed && (r.next() & 1));
    const Decoded dd = decode(q.to, d);
    const double val = to_double(q.to, d);
    const double half_ulp = std::ldexp(1.0, dd.exp - 1);
    const double mid = val + (dd.sign ? -half_ulp : half_ulp);
    uint64_t code = from_double(q.from, mid);
    const uint64_t nudge = r.below(3);
    const Class cl = classify(q.from, code);
    if (cl != Class::nan && cl != Class::inf && cl != Class::zero) {
      if (nudge == 1) code += 1 << info(q.from).man_shift;
      if (nudge == 2) code -= 1 << info(q.from).man_shift;
      if (!is_valid_code(q.from, code) || classify(q.from, code) == Class::nan || classify(q.from, code) == Class::inf)
        code = from_double(q.from, mid);
    }
    v = code;
  }
  c.operands["x"] = make_array(elem_type(q.from), q.count, 1, x, false, true);
  if (s.options.round == Round::rs) {
    Rng rb = stream(q.seed, "rbits");
    std::vector<uint64_t> bits(q.count);
    for (uint64_t& b : bits) b = rb.next() & 0xFFFFFFFFu;
    c.operands["rbits"] = make_array(bits_type(32), q.count, 1, bits, false, true);
  }
  c.expected = make_array(elem_type(q.to), q.count, 1, std::vector<uint64_t>(q.count, 0), false, true);
  c.expected_name = "y";
  c.name = q.name.empty() ? safe_name("convert-" + q.convention + "-" + std::string(info(q.from).name) + "-" +
                                      std::string(info(q.to).name) + "-" + std::string(to_string(s.options.round)) +
                                      (s.options.satfinite ? "-sat" : "") + (s.options.relu ? "-relu" : "") + "-" +
                                      std::string(to_string(q.dist)) + "-s" + std::to_string(q.seed))
                          : q.name;
  c.expected = make_array(elem_type(q.to), q.count, 1, evaluate(c), false, true);
  c.provenance.source = "tcemu";
  c.provenance.fields = {{"source", "tcemu"},
                         {"tcemu_version", std::string(kTcemuVersion)},
                         {"model", {{"convention", q.convention}}},
                         {"seed", q.seed},
                         {"generator", {{"dist", std::string(to_string(q.dist))}, {"scale", q.scale}}}};
  return c;
}

Case generate_cvt(const CvtGenRequest& q) {
  Case c;
  c.op = OpKind::cvt;
  const Result<PtxCvt> parsed = parse_ptx_cvt(q.ptx);
  if (!parsed.ok()) throw GoldenError(parsed.error);
  const PtxCvt* p = &parsed.value;
  c.cvt.ptx = q.ptx;
  c.cvt.parsed = *p;
  c.cvt.rs_map = q.rs_map;
  const int regs = p->src_packed ? 1 : p->src_count;
  const int src_bits = ptx_cvt_src_bits(*p);
  const int slot = p->src_packed ? src_bits / p->src_count : src_bits;
  Rng r = stream(q.seed, "src");
  std::vector<uint64_t> src(q.count * static_cast<size_t>(regs));
  for (size_t i = 0; i < q.count; ++i) {
    if (p->src_packed) {
      uint64_t reg = 0;
      for (int e = 0; e < p->src_count; ++e)  // element a (e = 0) in the highest field
        reg |= draw(Kind{p->src}, q.dist, q.scale, r) << (slot * (p->src_count - 1 - e));
      src[i] = reg;
    } else {
      for (int e = 0; e < regs; ++e) src[i * static_cast<size_t>(regs) + static_cast<size_t>(e)] = draw(Kind{p->src}, q.dist, q.scale, r);
    }
  }
  c.operands["src"] = make_array(bits_type(src_bits), q.count, static_cast<size_t>(regs), src);
  if (p->has_rbits) {
    Rng rb = stream(q.seed, "rbits");
    std::vector<uint64_t> bits(q.count);
    for (uint64_t& b : bits) b = rb.next() & 0xFFFFFFFFu;
    c.operands["rbits"] = make_array(bits_type(32), q.count, 1, bits, false, true);
  }
  const ElemType dt = bits_type(ptx_cvt_dst_bits(*p));
  c.expected = make_array(dt, q.count, 1, std::vector<uint64_t>(q.count, 0), false, true);
  c.expected_name = "d";
  c.name = q.name.empty() ? safe_name(q.ptx + "-" + std::string(to_string(q.dist)) + "-s" + std::to_string(q.seed)) : q.name;
  c.expected = make_array(dt, q.count, 1, evaluate(c), false, true);
  c.provenance.source = "tcemu";
  c.provenance.fields = {{"source", "tcemu"},
                         {"tcemu_version", std::string(kTcemuVersion)},
                         {"model", {{"ptx", q.ptx}, {"rs_map", q.rs_map == RsBitMap::ptx_doc ? "ptx_doc" : "flashinfer_hw"}}},
                         {"seed", q.seed},
                         {"generator", {{"dist", std::string(to_string(q.dist))}, {"scale", q.scale}}}};
  return c;
}

}  // namespace tcemu::golden
