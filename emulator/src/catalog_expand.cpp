// The expansion of the catalog table (catalog_table.cpp) into the entries of catalog(): per
// row, types x accumulator types x shapes, the spelling pattern filled in.
#include <set>

#include "catalog_rows.hpp"

namespace tcemu {
namespace catalog_detail {
namespace {

std::string fill(std::string pattern, const std::string& key, std::string_view value) {
  for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size()))
    pattern.replace(at, key.size(), value);
  return pattern;
}

bool is_fp6(Fmt f) { return f == Fmt::e3m2 || f == Fmt::e2m3; }

InstrEntry expand_one(const CatalogRow& r, TypePair t, const RowOut& o, Shape s) {
  InstrEntry e;
  e.arch = r.arch;
  e.family = r.family;
  e.M = s.M;
  e.N = s.N;
  e.K = s.K;
  e.atype = t.a;
  e.btype = t.b;
  e.dtype = o.d;
  e.params = o.params;
  if (e.params.kind == DatapathKind::integer) e.params.L = s.K;  // one exact sum per instruction
  std::string ptx = r.spelling;
  ptx = fill(ptx, "{M}", std::to_string(s.M));
  ptx = fill(ptx, "{N}", std::to_string(s.N));
  ptx = fill(ptx, "{K}", std::to_string(s.K));
  ptx = fill(ptx, "{a}", info(t.a).name);
  ptx = fill(ptx, "{b}", info(t.b).name);
  ptx = fill(ptx, "{d}", to_string(o.d));
  ptx = fill(ptx, "{sat}", e.params.satfinite ? ".satfinite" : "");
  if (r.scale) {
    ptx = fill(ptx, "{s}", info(r.scale->fmt).name);
    e.scale_type = r.scale->fmt;
    e.scale_block = r.scale->block;
    e.scale_vec = r.scale->vec;
  }
  e.ptx = std::move(ptx);
  e.types_in_descriptor = r.types_in_descriptor;
  e.family_target = r.family_target;
  e.params_from = r.params_from;
  e.evidence = o.evidence;
  e.confidence = o.confidence;
  e.note = o.note;
  if (r.fp6 && (is_fp6(t.a) || is_fp6(t.b))) {
    e.confidence = r.fp6->confidence;
    e.note = r.fp6->note;
  }
  return e;
}

// One row's entries; n > 0: only its shapes of that N.
void expand_row(const CatalogRow& r, int n, std::vector<InstrEntry>& out) {
  for (TypePair t : r.types)
    for (const RowOut& o : r.outs)
      for (Shape s : r.shapes)
        if (n == 0 || s.N == n) out.push_back(expand_one(r, t, o, s));
}

}  // namespace

std::vector<InstrEntry> expand_rows(std::span<const CatalogRow> rows) {
  std::vector<InstrEntry> out;
  for (size_t i = 0; i < rows.size();) {
    if (!rows[i].n_outer) {
      expand_row(rows[i++], 0, out);
      continue;
    }
    size_t j = i;  // [i, j): a run of n_outer rows, expanded N by N
    std::set<int> ns;
    for (; j < rows.size() && rows[j].n_outer; ++j)
      for (Shape s : rows[j].shapes) ns.insert(s.N);
    for (int n : ns)
      for (size_t k = i; k < j; ++k) expand_row(rows[k], n, out);
    i = j;
  }
  return out;
}

}  // namespace catalog_detail

}  // namespace tcemu
