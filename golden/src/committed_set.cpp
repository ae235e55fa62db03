#include "tcemu_golden/committed_set.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/instr_tile.hpp"

namespace tcemu::golden {
namespace {

// Dot products (D elements) each catalog entry's datapath gets in the committed set.
constexpr size_t kMinDots = 256;

// What two entries must share to compute every D element alike: the architecture, the
// operand, accumulator and scale types, the instruction's K and the datapath parameters.
// wgmma's N, wmma's tile shape and tcgen05's cta pair only change how many elements one
// instruction computes, so they are not part of it. An entry whose parameters are copied from
// a sibling architecture's (params_from: sm_103a from sm_100a, ...) computes every element as
// that sibling does, so it shares the sibling's cases.
std::string datapath_key(const InstrEntry& e) {
  std::string k = e.params_from.empty() ? e.arch : e.params_from;
  for (std::string_view part : {info(e.atype).name, info(e.btype).name, to_string(e.dtype)}) k.append("|").append(part);
  k.append("|K").append(std::to_string(e.K)).append("|").append(describe(e.params));
  if (e.scale_type) k.append("|").append(info(*e.scale_type).name).append("/").append(std::to_string(e.scale_block));
  return k;
}

size_t tile_elements(const InstrEntry& e) {
  const InstrTile t = default_tile(e);
  return static_cast<size_t>(t.m) * static_cast<size_t>(t.n);
}

// The generated family: its file, and for every datapath key the names of its cases.
struct FamilyBuild {
  GoldenFile file;
  std::map<std::string, std::vector<std::string>> cases_of_key;
};

MmaGenRequest request_for(const InstrEntry& e, Dist d, ScaleDist sd, uint64_t seed) {
  MmaGenRequest q;
  q.arch = e.arch;
  q.ptx = e.ptx;
  q.atype = e.atype;
  q.btype = e.btype;
  q.dtype = e.dtype;
  q.stype = e.scale_type;
  q.dist_a = q.dist_b = q.dist_c = d;
  q.scales = sd;
  q.seed = seed;
  return q;
}

FamilyBuild build_family(const std::string& family, uint64_t seed) {
  std::map<std::string, const InstrEntry*> reps;  // the smallest tile of each datapath key
  for (const InstrEntry& e : catalog()) {
    if (e.family != family) continue;
    const std::string k = datapath_key(e);
    auto it = reps.find(k);
    if (it == reps.end() || tile_elements(e) < tile_elements(*it->second)) reps[k] = &e;
  }
  if (reps.empty()) throw GoldenError("no catalog family '" + family + "'");
  FamilyBuild b;
  uint64_t s = seed;
  // The requests first (with the datapath key each case is listed under), then every case
  // generated, in parallel, in that order.
  std::vector<MmaGenRequest> requests;
  std::vector<std::string> keys;
  // Every datapath: at least kMinDots dot products (D elements) of mixed distributions
  // (each row of A, column of B, element of C drawn from one of the six, scales mixed too).
  for (const auto& [key, e] : reps) {
    const size_t n = (kMinDots + tile_elements(*e) - 1) / tile_elements(*e);
    for (size_t i = 0; i < n; ++i) {
      requests.push_back(request_for(*e, Dist::mixed, ScaleDist::mixed, s++));
      keys.push_back(key);
    }
  }
  // And each pure distribution (and scale pattern) once, on the family's first datapath.
  const InstrEntry& first = *reps.begin()->second;
  const auto dists = all_distributions();
  const auto scales = all_scale_distributions();
  const size_t pure = first.scale_type ? std::max(dists.size(), scales.size()) : dists.size();
  for (size_t i = 0; i < pure; ++i) {
    requests.push_back(request_for(first, dists[i % dists.size()], scales[i % scales.size()], s++));
    keys.push_back(reps.begin()->first);
  }
  std::vector<Case> cases = generate_mma_cases(requests);
  for (size_t i = 0; i < cases.size(); ++i) {
    b.cases_of_key[keys[i]].push_back(cases[i].name);
    b.file.cases.push_back(std::move(cases[i]));
  }
  b.file.description = "tcemu committed golden set: " + family + " (" + std::to_string(reps.size()) +
                       " distinct datapaths; one instruction tile per case; golden/sets/index.json lists the cases of "
                       "every catalog entry)";
  return b;
}

}  // namespace

std::vector<std::string> catalog_families() {
  std::set<std::string> s;
  for (const InstrEntry& e : catalog()) s.insert(e.family);
  return {s.begin(), s.end()};
}

std::string family_file_name(const std::string& family) {
  std::string s;
  for (char c : family) s.push_back(c == ' ' ? '_' : (c == '/' ? '-' : (c == ':' ? '-' : c)));
  // "kind--f16" -> "kind-f16"
  std::string o;
  for (char c : s)
    if (!(c == '-' && !o.empty() && o.back() == '-')) o.push_back(c);
  return o + ".json";
}

GoldenFile family_set(const std::string& family, uint64_t seed) { return build_family(family, seed).file; }

CommittedFamilies committed_families(uint64_t seed) {
  std::map<std::string, FamilyBuild> built;
  for (const std::string& fam : catalog_families()) built.emplace(fam, build_family(fam, seed));
  CommittedFamilies r;
  for (const InstrEntry& e : catalog()) {
    const FamilyBuild& b = built.at(e.family);
    r.index.push_back({&e, family_file_name(e.family), b.cases_of_key.at(datapath_key(e))});
  }
  for (auto& [fam, b] : built) r.files.emplace_back(family_file_name(fam), std::move(b.file));
  return r;
}

std::vector<CoveredEntry> committed_index(uint64_t seed) { return committed_families(seed).index; }

std::string committed_index_json(const std::vector<CoveredEntry>& index) {
  nlohmann::json entries = nlohmann::json::array();
  for (const CoveredEntry& c : index) {
    const InstrEntry& e = *c.entry;
    nlohmann::json j = {{"arch", e.arch},
                        {"ptx", e.ptx},
                        {"atype", std::string(info(e.atype).name)},
                        {"btype", std::string(info(e.btype).name)},
                        {"dtype", std::string(to_string(e.dtype))},
                        {"file", c.file},
                        {"cases", c.cases}};
    if (e.scale_type) j["stype"] = std::string(info(*e.scale_type).name);
    entries.push_back(std::move(j));
  }
  // One entry per line: small, and a catalog change shows as a readable diff.
  std::string out = "{\"format\": \"tcemu-golden-index\", \"version\": 1, \"entries\": [\n";
  for (size_t i = 0; i < entries.size(); ++i) out += entries[i].dump() + (i + 1 < entries.size() ? ",\n" : "\n");
  return out + "]}\n";
}

std::vector<CoveredEntry> read_committed_index(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw GoldenError(path + ": cannot open");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& x) {
    throw GoldenError(path + ": not JSON: " + x.what());
  }
  if (doc.value("format", "") != "tcemu-golden-index" || doc.value("version", 0) != 1)
    throw GoldenError(path + ": not a tcemu-golden-index version 1");
  std::vector<CoveredEntry> v;
  size_t i = 0;
  for (const nlohmann::json& j : doc.at("entries")) {
    const std::string where = path + ": entries[" + std::to_string(i++) + "]";
    auto fmt = [&](const char* field) -> std::optional<Fmt> {
      if (!j.contains(field)) return std::nullopt;
      auto f = parse_format(j.at(field).get<std::string>());
      if (!f) throw GoldenError(where + "." + field + ": unknown format");
      return f;
    };
    const auto d = parse_acc_type(j.at("dtype").get<std::string>());
    if (!d) throw GoldenError(where + ".dtype: unknown accumulator type");
    const InstrLookup lk = find_instruction(j.at("arch").get<std::string>(), j.at("ptx").get<std::string>(), fmt("atype"),
                                            fmt("btype"), d, fmt("stype"));
    if (!lk.entry) throw GoldenError(where + ": " + lk.error);
    v.push_back({lk.entry, j.at("file").get<std::string>(), j.at("cases").get<std::vector<std::string>>()});
  }
  return v;
}

GoldenFile conversion_set(uint64_t seed) {
  GoldenFile f;
  f.description = "tcemu committed golden set: conversions from f32 under every convention";
  const Fmt targets[] = {Fmt::f16, Fmt::bf16, Fmt::tf32, Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0};
  const Dist dists[] = {Dist::edges, Dist::specials, Dist::normal, Dist::wide};
  size_t i = 0;
  for (const Convention& cv : conventions())
    for (Fmt to : targets) {
      ConvertGenRequest q;
      q.from = Fmt::f32;
      q.to = to;
      q.convention = std::string(cv.name);
      if (!resolve(cv.name, q.from, to, q.request).options) continue;
      q.count = 64;
      q.dist = dists[i % 4];
      q.scale = to == Fmt::ue8m0 ? 1e6 : 4.0;
      q.seed = seed + i++;
      try {
        f.cases.push_back(generate_convert(q));
      } catch (const GoldenError&) {
        // a convention that leaves this pair undefined: nothing to commit
      }
    }
  return f;
}

GoldenFile cvt_set(uint64_t seed) {
  GoldenFile f;
  f.description = "tcemu committed golden set: every PTX cvt variant tcemu knows";
  const Dist dists[] = {Dist::edges, Dist::specials, Dist::normal};
  size_t i = 0;
  for (const std::string& s : ptx_cvt_catalog()) {
    CvtGenRequest q;
    q.ptx = s;
    q.count = 32;
    q.dist = dists[i % 3];
    q.scale = 8.0;
    q.seed = seed + i++;
    f.cases.push_back(generate_cvt(q));
  }
  return f;
}

namespace {

// n f32 codes of magnitude 2^e0 .. 2^(e0 + span - 1) with a hashed fraction (every epilogue step
// rounds), negative ones too when `signs`: the epilogue scales and biases of gemm_plans.json.
std::vector<uint32_t> epilogue_values(size_t n, int e0, int span, uint64_t salt, bool signs) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (salt + 1) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    const uint32_t exp = static_cast<uint32_t>(127 + e0 + static_cast<int>(h % static_cast<uint64_t>(span)));
    v[i] = (signs && ((h >> 40) & 1) ? 0x80000000u : 0u) | exp << 23 | (static_cast<uint32_t>(h >> 41) & 0x7FFFFFu);
  }
  return v;
}

struct PlanCase {
  const char* arch;
  const char* ptx;
  std::optional<Fmt> atype, btype;
  int M, N, K;
  Dist dist;
  double scale;
  const char* preset;    // "" = none
  int split_k, grain;    // 0 = not given
  std::vector<int> chunks;
  const char* epilogue;  // "" = the preset's (fold without one)
  uint32_t alpha, beta;
  char a_scale, b_scale;  // 0 none, 't' per tensor, 'v' one per row / column
  bool bias;
  Fmt out;
  Round round;
  bool satfinite;
};

}  // namespace

GoldenFile gemm_plan_set(uint64_t seed) {
  GoldenFile f;
  f.description = "tcemu committed golden set: library GEMM plans (split-K schedules and epilogues, docs/gemm.md)";
  const char* wg = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3";
  const char* bf = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
  const char* h16 = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16";
  const char* mx = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X";
  constexpr uint32_t one = 0x3F800000u;
  const std::vector<PlanCase> specs = {
      // cuBLASLt's bitequiv plan: K = 320 in 128 + 128 + 64; scales per tensor (A) and per column (B), bias.
      {"sm_90a", wg, {}, {}, 64, 16, 320, Dist::wide, 1.0, "cublaslt-bitequiv", 3, 0, {}, "", 0x3E99999Au, 0, 't', 'v', true,
       Fmt::f32, Round::rn, false},
      // s = 5 of K = 448 leaves an empty slice; alpha 64 overflows e4m3: saturated, and not (NaN).
      {"sm_90a", wg, {}, {}, 64, 16, 448, Dist::mixed, 4.0, "cublaslt-bitequiv", 5, 0, {}, "", 0x42800000u, 0, 0, 0, false,
       Fmt::e4m3, Round::rn, true},
      {"sm_90a", wg, {}, {}, 64, 16, 448, Dist::normal, 8.0, "cublaslt-bitequiv", 5, 0, {}, "", 0x42800000u, 0, 0, 0, false,
       Fmt::e4m3, Round::rn, false},
      // CUTLASS serial split-K: partition 0 adds beta * C, the others D (beta = 1), each write rounded to bf16.
      {"sm_90a", wg, {}, {}, 64, 16, 256, Dist::normal, 4.0, "cutlass-serial", 3, 64, {}, "", 0x3E99999Au, one, 0, 0, false,
       Fmt::bf16, Round::rn, false},
      // CUTLASS parallel split-K: ReduceSplitK from +0, beta = 0 (a cleared source), f16 output.
      {"sm_90a", wg, {}, {}, 64, 16, 192, Dist::specials, 1.0, "cutlass-parallel", 3, 64, {}, "", 0x3FC00000u, 0, 0, 0, false,
       Fmt::f16, Round::rn, false},
      // Explicit (stream-K style) chunks added pairwise ((p0 + p1) + (p2 + p3)); the sequential
      // epilogue with beta = -0.5.
      {"sm_80", bf, {}, {}, 16, 8, 256, Dist::normal, 1.0, "f32-tree", 0, 0, {64, 48, 80, 64}, "sequential", one,
       0xBF000000u, 'v', 'v', true, Fmt::f32, Round::rn, false},
      // One chain, CUTLASS 3.x's Sm90 epilogue (fma(g, acc, bias), then fma(beta, C, t)).
      {"sm_90a", wg, {}, {}, 64, 16, 256, Dist::wide, 1.0, "", 0, 0, {}, "cutlass-sm90", one, one, 'v', 't', true, Fmt::f32,
       Round::rn, false},
      // bf16 operands: the bitequiv grain 64, K = 320 in 128 + 128 + 64 (s = 3), bf16 toward zero.
      {"sm_80", bf, {}, {}, 16, 8, 320, Dist::normal, 1.0, "cublaslt-bitequiv", 3, 0, {}, "", one, 0, 't', 't', false,
       Fmt::bf16, Round::rz, false},
      // ... and s = 4 of K = 256 with an f32 output: the forward order of the adds shows.
      {"sm_80", bf, {}, {}, 16, 8, 256, Dist::normal, 1.0, "cublaslt-bitequiv", 4, 0, {}, "", one, 0, 0, 0, false,
       Fmt::f32, Round::rn, false},
      // f16 accumulators widen exactly to f32 before the f32 combine.
      {"sm_80", h16, {}, {}, 16, 8, 128, Dist::normal, 1.0, "f32-forward", 2, 0, {}, "", one, one, 0, 0, false, Fmt::f16,
       Round::rn, false},
      // e5m2 output, rounding down, saturating; scales per row and per column.
      {"sm_90a", wg, {}, {}, 64, 16, 128, Dist::subnormal, 1.0, "", 0, 0, {}, "sequential", 0x3F400000u, 0, 'v', 'v', false,
       Fmt::e5m2, Round::rd, true},
      // Block-scaled operands: chunks in multiples of the 32-element scale block.
      {"sm_100a", mx, Fmt::e4m3, Fmt::e2m1, 64, 8, 192, Dist::normal, 2.0, "", 0, 0, {64, 32, 96}, "", one, 0, 0, 'v', true,
       Fmt::bf16, Round::rn, false},
      // e5m2 output without saturation: alpha 2^10 overflows to Inf; f32 forward at the instruction's K.
      {"sm_90a", wg, {}, {}, 64, 16, 320, Dist::normal, 1.0, "f32-forward", 4, 0, {}, "", 0x44800000u, 0, 0, 0, false,
       Fmt::e5m2, Round::rna, false},
  };
  uint64_t i = 0;
  for (const PlanCase& s : specs) {
    GemmGenRequest r;
    MmaGenRequest& q = r.mma;
    q.arch = s.arch;
    q.ptx = s.ptx;
    q.atype = s.atype;
    q.btype = s.btype;
    if (std::string(s.ptx).find("kind::mx") != std::string::npos) q.stype = Fmt::ue8m0;
    q.M = s.M;
    q.N = s.N;
    q.K = s.K;
    q.dist_a = q.dist_b = q.dist_c = s.dist;
    q.scale = s.scale;
    q.scales = ScaleDist::random;
    q.seed = seed + i;
    if (*s.preset) r.plan.plan = s.preset;
    if (s.split_k) r.plan.split_k = s.split_k;
    if (s.grain) r.plan.grain = s.grain;
    if (!s.chunks.empty()) r.plan.chunks = s.chunks;
    if (*s.epilogue) r.plan.epilogue = s.epilogue;
    Epilogue& ep = r.epilogue;
    ep.alpha = s.alpha;
    ep.beta = s.beta;
    const uint64_t salt = seed * 64 + i * 4;
    if (s.a_scale) ep.a_scale = epilogue_values(s.a_scale == 't' ? 1 : static_cast<size_t>(s.M), -3, 5, salt, false);
    if (s.b_scale) ep.b_scale = epilogue_values(s.b_scale == 't' ? 1 : static_cast<size_t>(s.N), -3, 5, salt + 1, false);
    if (s.bias) ep.bias = epilogue_values(static_cast<size_t>(s.N), -2, 6, salt + 2, true);
    ep.out_type = s.out;
    ep.out_round = s.round;
    ep.satfinite = s.satfinite;
    f.cases.push_back(generate_gemm(r));
    ++i;
  }
  return f;
}

}  // namespace tcemu::golden
