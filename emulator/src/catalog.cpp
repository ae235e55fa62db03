// The instruction catalog: the expansion of its table (catalog_table.cpp, one row per family
// and architecture) into entries, and the lookup by PTX spelling.
#include "tcemu/catalog.hpp"

#include <set>
#include <string>
#include <unordered_map>

#include "catalog_rows.hpp"

namespace tcemu {

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::measured: return "measured";
    case Confidence::published: return "published";
    case Confidence::extrapolated: return "extrapolated";
    case Confidence::unknown: return "unknown";
  }
  return "?";
}

std::string_view to_string(AccType t) {
  switch (t) {
    case AccType::f16: return "f16";
    case AccType::f32: return "f32";
    case AccType::s32: return "s32";
  }
  return "?";
}

std::optional<AccType> parse_acc_type(std::string_view s) {
  if (s == "f16") return AccType::f16;
  if (s == "f32") return AccType::f32;
  if (s == "s32") return AccType::s32;
  return std::nullopt;
}

Fmt acc_format(AccType t) {
  switch (t) {
    case AccType::f16: return Fmt::f16;
    case AccType::f32: return Fmt::f32;
    case AccType::s32: return Fmt::s32;
  }
  return Fmt::f32;
}


namespace {

std::string fname(Fmt f) { return std::string(info(f).name); }
std::string aname(AccType t) { return std::string(to_string(t)); }

std::vector<std::string> split_tokens(std::string_view s, bool& satfinite) {
  std::vector<std::string> t;
  satfinite = false;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find('.', i);
    if (j == std::string_view::npos) j = s.size();
    std::string tok(s.substr(i, j - i));
    if (tok == "satfinite") satfinite = true;
    else if (tok != "row" && tok != "col" && !tok.empty()) t.push_back(tok);
    i = j + 1;
  }
  return t;
}

std::string base_arch(std::string_view arch) {
  std::string a(arch);
  if (!a.empty() && (a.back() == 'a' || a.back() == 'f')) a.pop_back();
  return a;
}

}  // namespace

std::span<const InstrEntry> catalog() {
  static const std::vector<InstrEntry> entries = catalog_detail::expand_rows(catalog_detail::catalog_rows());
  return entries;
}

namespace {

// The tokens of every catalog entry's spelling, split once: find_instruction runs for every
// golden case and command, and splitting the whole catalog each time cost more than the rest.
struct SpellingTokens {
  std::vector<std::string> tokens;
  bool satfinite = false;
};

const std::vector<SpellingTokens>& catalog_tokens() {
  static const std::vector<SpellingTokens> all = [] {
    std::vector<SpellingTokens> v;
    for (const InstrEntry& e : catalog()) {
      SpellingTokens t;
      t.tokens = split_tokens(e.ptx, t.satfinite);
      v.push_back(std::move(t));
    }
    return v;
  }();
  return all;
}

std::string spelling_key(const std::vector<std::string>& tokens, bool satfinite) {
  std::string k(satfinite ? "1" : "0");
  for (const std::string& t : tokens) k.append(std::to_string(t.size())).append(1, ':').append(t);  // length-prefixed: no two lists share a key
  return k;
}

// The catalog entries of each spelling (its tokens and satfinite), in catalog order: a lookup
// reads the few entries of its spelling instead of comparing against every entry.
const std::unordered_map<std::string, std::vector<size_t>>& catalog_index() {
  static const std::unordered_map<std::string, std::vector<size_t>> index = [] {
    std::unordered_map<std::string, std::vector<size_t>> m;
    const std::vector<SpellingTokens>& toks = catalog_tokens();
    for (size_t i = 0; i < toks.size(); ++i) m[spelling_key(toks[i].tokens, toks[i].satfinite)].push_back(i);
    return m;
  }();
  return index;
}

}  // namespace

InstrLookup find_instruction(std::string_view arch, std::string_view ptx, std::optional<Fmt> atype,
                             std::optional<Fmt> btype, std::optional<AccType> dtype, std::optional<Fmt> stype) {
  bool sat = false;
  const std::vector<std::string> want = split_tokens(ptx, sat);
  const std::string exact(arch), base = base_arch(arch);
  std::vector<const InstrEntry*> hits;
  std::set<std::string> other_archs;
  const std::span<const InstrEntry> cat = catalog();
  const auto spelled = catalog_index().find(spelling_key(want, sat));
  static const std::vector<size_t> kNone;
  for (const size_t i : spelled == catalog_index().end() ? kNone : spelled->second) {
    const InstrEntry& e = cat[i];
    // An `f` target: its base arch, and the family entries of its `a` target.
    const bool family_hit = !exact.empty() && exact.back() == 'f' && e.family_target && e.arch == base + "a";
    if (e.arch != exact && e.arch != base && !family_hit) {
      other_archs.insert(e.arch);
      continue;
    }
    if (atype && e.atype != *atype) continue;
    if (btype && e.btype != *btype) continue;
    if (dtype && e.dtype != *dtype) continue;
    if (stype && e.scale_type != stype) continue;
    hits.push_back(&e);
  }
  InstrLookup r;
  if (hits.size() == 1) {
    r.entry = hits[0];
    return r;
  }
  if (hits.empty()) {
    r.error = "no instruction '" + std::string(ptx) + "' on " + exact;
    if (!other_archs.empty()) {
      r.error += " (it exists on:";
      for (const std::string& a : other_archs) r.error += " " + a;
      r.error += ")";
    } else {
      r.error += " with these types (see `tcemu instr list`)";
    }
    return r;
  }
  // Several: the spelling leaves types to flags (tcgen05) or the scale type is open.
  std::set<std::string> a, b, d, s;
  for (const InstrEntry* e : hits) {
    a.insert(fname(e->atype));
    b.insert(fname(e->btype));
    d.insert(aname(e->dtype));
    if (e->scale_type) s.insert(fname(*e->scale_type));
  }
  // Built by appending: GCC 12 reports a false -Wrestrict for "'" + std::string(...) here.
  std::string msg(1, '\'');
  msg.append(ptx).append("' on ").append(exact).append(" needs its types:");
  r.error = std::move(msg);
  auto list = [&](const char* flag, const std::set<std::string>& v) {
    if (v.size() < 2) return;
    r.error += std::string(" ") + flag + " {";
    bool first = true;
    for (const std::string& x : v) {
      r.error += (first ? "" : ",") + x;
      first = false;
    }
    r.error += "}";
  };
  list("--atype", a);
  list("--btype", b);
  list("--dtype", d);
  list("--stype", s);
  return r;
}

}  // namespace tcemu
