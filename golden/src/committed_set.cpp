#include "tcemu_golden/committed_set.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/instr_tile.hpp"

namespace tcemu::golden {
namespace {

// What distinguishes entries of one family numerically: arch, types, variant (satfinite,
// cta pair, scale vector), instruction K. wgmma's N only widens the tile, so the smallest N
// represents it.
std::string entry_key(const InstrEntry& e) {
  std::string k = e.arch;
  for (std::string_view part : {info(e.atype).name, info(e.btype).name, to_string(e.dtype)}) k.append("|").append(part);
  k.append("|").append(std::to_string(e.K));
  if (e.ptx.find("satfinite") != std::string::npos) k.append("|sat");
  if (e.ptx.find("cta_group::2") != std::string::npos) k.append("|cg2");
  if (e.scale_type) k.append("|").append(info(*e.scale_type).name).append("|").append(std::to_string(e.scale_vec));
  return k;
}

size_t tile_bytes(const InstrEntry& e) {
  const InstrTile t = default_tile(e);
  const size_t M = static_cast<size_t>(t.m), N = static_cast<size_t>(t.n), K = static_cast<size_t>(e.K);
  const size_t acc = e.dtype == AccType::f16 ? 4 : 8;
  return M * K * info(e.atype).hex_digits + K * N * info(e.btype).hex_digits + 2 * M * N * acc + 1500;
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

GoldenFile family_set(const std::string& family, size_t budget_bytes, uint64_t seed) {
  std::map<std::string, const InstrEntry*> reps;  // smallest tile per key
  for (const InstrEntry& e : catalog()) {
    if (e.family != family) continue;
    const std::string k = entry_key(e);
    auto it = reps.find(k);
    if (it == reps.end() || tile_bytes(e) < tile_bytes(*it->second)) reps[k] = &e;
  }
  if (reps.empty()) throw GoldenError("no catalog family '" + family + "'");
  std::vector<const InstrEntry*> entries;
  for (auto& [k, e] : reps) entries.push_back(e);
  const bool scaled = entries.front()->scale_type.has_value();
  const auto dists = all_distributions();
  const auto scales = all_scale_distributions();
  const size_t per = tile_bytes(*entries.front());
  const size_t at_least = scaled ? std::max(dists.size(), scales.size()) : dists.size();
  const size_t n = std::max(at_least, std::min(entries.size(), budget_bytes / per));
  GoldenFile f;
  f.description = "tcemu committed golden set: " + family + " (" + std::to_string(entries.size()) +
                  " distinct entries; one instruction tile per case)";
  for (size_t i = 0; i < n; ++i) {
    const InstrEntry& e = *entries[i % entries.size()];
    MmaGenRequest q;
    q.arch = e.arch;
    q.ptx = e.ptx;
    q.atype = e.atype;
    q.btype = e.btype;
    q.dtype = e.dtype;
    q.stype = e.scale_type;
    q.dist_a = q.dist_b = q.dist_c = dists[i % dists.size()];
    q.scales = scales[i % scales.size()];
    q.seed = seed + i;
    f.cases.push_back(generate_mma(q));
  }
  return f;
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

}  // namespace tcemu::golden
