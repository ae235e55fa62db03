// The comparison (compare.hpp). The full-matrix pass is a block-wise memcmp, element checks
// only inside blocks that differ, and per-mismatch bookkeeping: an 8192 x 8192 f32 output
// compares in a fraction of a second (tools/bench/bench_compare.cpp measures it). Everything
// costlier (tile hashing, alternative models) runs only when there are mismatches, and the
// models only on a sample of elements.
#include "tcemu_golden/compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "tcemu_golden/models.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::golden {
namespace {

bool is_nan(const ElemType& t, uint64_t code) { return t.fmt && is_float(*t.fmt) && classify(*t.fmt, code) == Class::nan; }

bool equal(const ElemType& t, uint64_t a, uint64_t b, bool nans_equal) {
  if (a == b) return true;
  return nans_equal && is_nan(t, a) && is_nan(t, b);
}

std::string describe_case(const Case& c) {
  switch (c.op) {
    case OpKind::mma: return c.mma.arch + " " + c.mma.ptx;
    case OpKind::convert:
      return "convert " + std::string(info(c.conv.from).name) + " -> " + std::string(info(c.conv.to).name) + " (" +
             c.conv.convention + ")";
    case OpKind::cvt: return c.cvt.ptx;
    case OpKind::quantize: return "quantize " + c.quant.recipe.name;
    case OpKind::gemm:
      return "gemm " + c.mma.arch + " " + c.mma.ptx + " (" + plan_summary(c.gemm) + ", " +
             std::string(to_string(c.gemm.plan.epilogue.order)) + " epilogue)";
  }
  return "";
}

std::string bin_label(size_t b) {
  if (b == 0) return "1";
  if (b == 1) return "2";
  const uint64_t lo = (uint64_t{1} << (b - 1)) + 1, hi = uint64_t{1} << b;
  return std::to_string(lo) + "-" + std::to_string(hi);
}

std::string join(const std::vector<size_t>& v, size_t limit = 12) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < limit; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > limit) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

std::string pct(size_t a, size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0);
  return buf;
}

uint64_t hash_tile(const Array& a, size_t r0, size_t c0, size_t tm, size_t tn) {
  uint64_t h = 1469598103934665603ull;
  for (size_t r = r0; r < r0 + tm; ++r)
    for (size_t c = c0; c < c0 + tn; ++c) h = (h ^ a.at(r, c)) * 1099511628211ull;
  return h;
}

bool tiles_equal(const Array& x, size_t xr, size_t xc, const Array& y, size_t yr, size_t yc, size_t tm, size_t tn) {
  for (size_t r = 0; r < tm; ++r)
    for (size_t c = 0; c < tn; ++c)
      if (x.at(xr + r, xc + c) != y.at(yr + r, yc + c)) return false;
  return true;
}

// Layout findings: swapped tiles, the other storage order, concentration on rows/columns or
// on positions inside the tile.
void layout_findings(const Case& c, const Array& act, CompareReport& r) {
  const Array& exp = c.expected;
  std::vector<size_t> rows, cols, pos_r, pos_c;
  for (size_t i = 0; i < r.row_counts.size(); ++i)
    if (r.row_counts[i]) rows.push_back(i);
  for (size_t i = 0; i < r.col_counts.size(); ++i)
    if (r.col_counts[i]) cols.push_back(i);
  for (size_t i = 0; i < r.in_tile_row.size(); ++i)
    if (r.in_tile_row[i]) pos_r.push_back(i);
  for (size_t i = 0; i < r.in_tile_col.size(); ++i)
    if (r.in_tile_col[i]) pos_c.push_back(i);
  r.findings.push_back("mismatches fall on " + std::to_string(rows.size()) + " of " + std::to_string(r.rows) + " rows and " +
                       std::to_string(cols.size()) + " of " + std::to_string(r.cols) + " columns");
  if (rows.size() <= 8) r.findings.push_back("rows with mismatches: " + join(rows));
  if (cols.size() <= 8 && r.cols > 1) r.findings.push_back("columns with mismatches: " + join(cols));
  if (r.tiles_m * r.tiles_n <= 1 && r.tile_m == 1 && r.tile_n == 1) return;
  size_t bad_tiles = 0, full_tiles = 0;
  const size_t tile_size = static_cast<size_t>(r.tile_m) * static_cast<size_t>(r.tile_n);
  for (size_t t : r.tile_counts) {
    bad_tiles += t != 0;
    full_tiles += t == tile_size;
  }
  r.findings.push_back(std::to_string(bad_tiles) + " of " + std::to_string(r.tile_counts.size()) + " instruction tiles (" +
                       std::to_string(r.tile_m) + " x " + std::to_string(r.tile_n) + ") have mismatches; " +
                       std::to_string(full_tiles) + " differ in every element");
  if (pos_r.size() < static_cast<size_t>(r.tile_m))
    r.findings.push_back("only rows " + join(pos_r) + " inside each " + std::to_string(r.tile_m) + "-row tile differ");
  if (pos_c.size() < static_cast<size_t>(r.tile_n))
    r.findings.push_back("only columns " + join(pos_c) + " inside each " + std::to_string(r.tile_n) + "-column tile differ");
  // Swapped or misplaced tiles: an actual tile that equals another expected tile.
  size_t mostly_wrong = 0;  // a moved tile differs in most of its elements
  for (size_t t : r.tile_counts) mostly_wrong += 2 * t >= tile_size;
  if (mostly_wrong > 0 && bad_tiles <= 65536) {
    const size_t tm = static_cast<size_t>(r.tile_m), tn = static_cast<size_t>(r.tile_n);
    std::unordered_multimap<uint64_t, size_t> where;
    for (size_t ti = 0; ti < r.tiles_m; ++ti)
      for (size_t tj = 0; tj < r.tiles_n; ++tj) where.emplace(hash_tile(exp, ti * tm, tj * tn, tm, tn), ti * r.tiles_n + tj);
    size_t moved = 0;
    std::string examples;
    for (size_t t = 0; t < r.tile_counts.size(); ++t) {
      if (!r.tile_counts[t]) continue;
      const size_t ti = t / r.tiles_n, tj = t % r.tiles_n;
      auto [lo, hi] = where.equal_range(hash_tile(act, ti * tm, tj * tn, tm, tn));
      for (auto it = lo; it != hi; ++it) {
        const size_t pi = it->second / r.tiles_n, pj = it->second % r.tiles_n;
        if (it->second != t && tiles_equal(act, ti * tm, tj * tn, exp, pi * tm, pj * tn, tm, tn)) {
          if (++moved <= 4)
            examples += (moved > 1 ? "; " : "") + std::string("tile (") + std::to_string(ti) + ", " + std::to_string(tj) +
                        ") holds the expected tile (" + std::to_string(pi) + ", " + std::to_string(pj) + ")";
          break;
        }
      }
    }
    if (moved)
      r.findings.push_back("LAYOUT: " + std::to_string(moved) + " of the " + std::to_string(bad_tiles) +
                           " differing tiles hold another tile's expected values (swapped or misplaced tiles): " + examples);
  }
  // The other storage order: actual written column-major where row-major was expected (or back).
  if (!exp.is_vector && r.mismatches > 0 && act.raw.size() == exp.raw.size() && !exp.ld) {
    Array other = act;
    other.col_major = !act.col_major;
    other.ld = 0;
    size_t checked = 0, hits = 0;
    const size_t step = std::max<size_t>(1, r.total / 4096);
    for (size_t i = 0; i < r.total; i += step) {
      const size_t row = i / r.cols, col = i % r.cols;
      ++checked;
      hits += other.at(row, col) == exp.at(row, col);
    }
    if (checked && hits == checked)
      r.findings.push_back(std::string("LAYOUT: read in ") + (other.col_major ? "column" : "row") +
                           "-major order the output equals the expected matrix: it was written in the other storage order "
                           "(transposed)");
  }
}

}  // namespace

std::string short_value(const ElemType& t, uint64_t code) {
  char buf[64];
  if (!t.fmt) {
    std::snprintf(buf, sizeof buf, "0x%0*llx", t.hex_digits, static_cast<unsigned long long>(code));
    return buf;
  }
  const Fmt f = *t.fmt;
  if (info(f).is_int) return std::to_string(decode(f, code).sign ? -static_cast<int64_t>(decode(f, code).sig)
                                                                  : static_cast<int64_t>(decode(f, code).sig));
  const Decoded d = decode(f, code);
  if (d.cls == Class::nan) return "nan";
  if (d.cls == Class::inf) return d.sign ? "-inf" : "inf";
  const double v = std::ldexp(static_cast<double>(d.sig), d.exp) * (d.sign ? -1 : 1);
  const int digits = static_cast<int>(std::ceil((info(f).man_bits + 1) * 0.30103)) + 1;
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::optional<uint64_t> ulp_distance(const ElemType& t, uint64_t a, uint64_t b) {
  if (!t.fmt) return std::nullopt;
  const Fmt f = *t.fmt;
  const FormatInfo& fi = info(f);
  if (fi.is_int) {
    const Decoded x = decode(f, a), y = decode(f, b);
    const int64_t vx = x.sign ? -static_cast<int64_t>(x.sig) : static_cast<int64_t>(x.sig);
    const int64_t vy = y.sign ? -static_cast<int64_t>(y.sig) : static_cast<int64_t>(y.sig);
    return static_cast<uint64_t>(vx > vy ? vx - vy : vy - vx);
  }
  const Class ca = classify(f, a), cb = classify(f, b);
  if (ca == Class::nan || cb == Class::nan || ca == Class::inf || cb == Class::inf) return std::nullopt;
  // Sign-magnitude codes ordered as integers: the distance counts the codes in between.
  auto ord = [&](uint64_t c) {
    const int64_t mag = static_cast<int64_t>((c & ~fi.sign_mask() & fi.code_mask()) >> fi.man_shift);
    return (c & fi.sign_mask()) ? -mag : mag;
  };
  const int64_t x = ord(a), y = ord(b);
  return static_cast<uint64_t>(x > y ? x - y : y - x);
}

std::string actual_kind(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return "golden";
  if (ext == ".npy") return "npy";
  return "raw";
}

Array read_actual(const std::string& path, const Case& expected_case) { return ActualSource(path).read(expected_case); }

ActualSource::ActualSource(std::string path) : path_(std::move(path)), kind_(actual_kind(path_)) {
  if (kind_ != "golden") return;
  golden_ = read_golden(path_);
  for (size_t i = 0; i < golden_.cases.size(); ++i) index_.emplace(golden_.cases[i].name, i);  // the first of a name
}

std::vector<std::string> ActualSource::case_names() const {
  std::vector<std::string> v;
  for (const Case& c : golden_.cases) v.push_back(c.name);
  return v;
}

Array ActualSource::read(const Case& expected_case) const {
  const std::string& path = path_;
  const std::string& kind = kind_;
  const Array& expected = expected_case.expected;
  Array a;  // the expected layout, without copying its codes
  a.type = expected.type;
  a.rows = expected.rows;
  a.cols = expected.cols;
  a.is_vector = expected.is_vector;
  a.col_major = expected.col_major;
  a.ld = expected.ld;
  const size_t n = expected.storage_count(), bytes = static_cast<size_t>(expected.type.bytes);
  const std::string what = std::to_string(expected.rows) + (expected.is_vector ? "" : " x " + std::to_string(expected.cols)) +
                           " " + expected.type.name + " codes (" + std::to_string(n * bytes) + " bytes)";
  if (kind == "golden") {
    const auto found = index_.find(expected_case.name);
    if (found == index_.end()) throw GoldenError(path + ": no case named '" + expected_case.name + "'");
    const Case& c = golden_.cases[found->second];
    // A part of a quantize case (expected_parts: "scales", "global") is found by its name.
    const Array* got = &c.expected;
    if (c.expected_name != expected_case.expected_name) {
      auto it = c.extra_expected.find(expected_case.expected_name);
      if (it == c.extra_expected.end())
        throw GoldenError(path + ": case '" + c.name + "' has no expected array '" + expected_case.expected_name + "'");
      got = &it->second;
    }
    if (!(got->type == expected.type) || got->rows != expected.rows || got->cols != expected.cols)
      throw GoldenError(path + ": case '" + c.name + "' has a result of another type or shape than the expected one");
    return *got;
  }
  if (kind == "npy") {
    io::NpyArray arr;
    try {
      arr = io::read_npy(path);
    } catch (const io::NpyError& e) {
      throw GoldenError(e.what());
    }
    if (arr.item_size() != bytes)
      throw GoldenError(path + ": dtype '" + arr.descr + "' has " + std::to_string(arr.item_size()) + "-byte items; the expected " +
                        expected.type.name + " output has " + std::to_string(bytes));
    if (arr.count() != n)
      throw GoldenError(path + ": holds " + std::to_string(arr.count()) + " elements; expected " + what);
    a.raw = std::move(arr.data);
    return a;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GoldenError(path + ": cannot open");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  if (size != n * bytes)
    throw GoldenError(path + ": holds " + std::to_string(size) + " bytes; expected " + what + " in " +
                      (expected.col_major ? "column" : "row") + "-major order, little-endian");
  in.seekg(0);
  a.raw.resize(size);
  in.read(reinterpret_cast<char*>(a.raw.data()), static_cast<std::streamsize>(size));
  if (!in) throw GoldenError(path + ": read failed");
  return a;
}

std::vector<Case> expected_parts(const Case& c) {
  std::vector<Case> parts;
  for (const auto& [name, a] : c.extra_expected) {
    Case p;
    p.name = c.name;
    p.op = c.op;
    p.quant = c.quant;
    p.expected = a;
    p.expected_name = name;
    p.provenance = c.provenance;
    parts.push_back(std::move(p));
  }
  return parts;
}

namespace {

// The report's header fields and its counters, all zero.
CompareReport empty_report(const Case& c, const CompareOptions& opt) {
  const Array& exp = c.expected;
  CompareReport r;
  r.case_name = c.name;
  r.operation = describe_case(c);
  r.expected_name = c.expected_name;
  r.type = exp.type;
  r.rows = exp.rows;
  r.cols = exp.cols;
  r.total = r.rows * r.cols;
  r.nans_equal = opt.nans_equal;
  if (c.op == OpKind::mma || c.op == OpKind::gemm) {
    r.tile_m = c.mma.tile_m;
    r.tile_n = c.mma.tile_n;
  }
  const size_t tm = static_cast<size_t>(r.tile_m), tn = static_cast<size_t>(r.tile_n);
  r.tiles_m = (r.rows + tm - 1) / tm;
  r.tiles_n = (r.cols + tn - 1) / tn;
  r.row_counts.assign(r.rows, 0);
  r.col_counts.assign(r.cols, 0);
  r.tile_counts.assign(r.tiles_m * r.tiles_n, 0);
  r.in_tile_row.assign(tm, 0);
  r.in_tile_col.assign(tn, 0);
  r.cell_r = std::max<size_t>(1, (r.rows + 255) / 256);
  r.cell_c = std::max<size_t>(1, (r.cols + 255) / 256);
  r.heat_rows = (r.rows + r.cell_r - 1) / r.cell_r;
  r.heat_cols = (r.cols + r.cell_c - 1) / r.cell_c;
  r.heat.assign(r.heat_rows * r.heat_cols, 0);
  return r;
}

// Counts each mismatch into the report (rows, columns, tiles, heat map, ulp histogram, the
// first ones listed) and keeps the positions for the model sample, evenly spread: when the
// list grows past twice the budget every other entry is dropped and the stride doubles
// (deterministic).
struct Tally {
  Tally(CompareReport& rep, const CompareOptions& o, size_t b) : r(rep), opt(o), budget(b) {}
  CompareReport& r;
  const CompareOptions& opt;
  size_t budget;
  std::vector<size_t> bins = std::vector<size_t>(65, 0);
  size_t not_comparable = 0;
  std::vector<std::pair<size_t, size_t>> bad_sample;
  size_t stride = 1;

  void record(size_t row, size_t col, uint64_t e, uint64_t a) {
    if (equal(r.type, e, a, opt.nans_equal)) return;
    if (equal(r.type, e, a, true)) ++r.nan_payload;  // both NaN: only payload or sign differ
    const size_t tm = static_cast<size_t>(r.tile_m), tn = static_cast<size_t>(r.tile_n);
    if (r.mismatches % stride == 0) {
      bad_sample.push_back({row, col});
      if (bad_sample.size() >= 2 * budget) {
        size_t w = 0;
        for (size_t i = 0; i < bad_sample.size(); i += 2) bad_sample[w++] = bad_sample[i];
        bad_sample.resize(w);
        stride *= 2;
      }
    }
    ++r.mismatches;
    ++r.row_counts[row];
    ++r.col_counts[col];
    ++r.tile_counts[(row / tm) * r.tiles_n + col / tn];
    ++r.in_tile_row[row % tm];
    ++r.in_tile_col[col % tn];
    ++r.heat[(row / r.cell_r) * r.heat_cols + col / r.cell_c];
    const std::optional<uint64_t> u = ulp_distance(r.type, e, a);
    if (!u) ++not_comparable;
    else ++bins[static_cast<size_t>(std::bit_width(*u - 1))];
    if (r.first.size() < opt.max_listed) r.first.push_back({row, col, e, a, u});
  }

  // The listed mismatches in row order and the ulp histogram.
  void finish() {
    std::sort(r.first.begin(), r.first.end(), [](const Mismatch& x, const Mismatch& y) {
      return x.row != y.row ? x.row < y.row : x.col < y.col;
    });
    for (size_t b = 0; b < bins.size(); ++b)
      if (bins[b]) r.histogram.push_back({bin_label(b), bins[b]});
    if (not_comparable) r.histogram.push_back({r.type.fmt ? "NaN/Inf" : "raw bits", not_comparable});
  }
};

// Every element of exp against act, into the tally.
void scan(const Array& exp, const Array& act, const CompareReport& r, Tally& t) {
  const size_t bytes = static_cast<size_t>(exp.type.bytes);
  if (act.col_major == exp.col_major && act.lead() == exp.lead() && act.raw.size() == exp.raw.size()) {
    // Same storage: compare blocks of bytes, then elements inside the blocks that differ.
    const size_t n = exp.storage_count(), block = 1024;
    const size_t lead = exp.lead();
    for (size_t i0 = 0; i0 < n; i0 += block) {
      const size_t len = std::min(block, n - i0);
      if (std::memcmp(exp.raw.data() + i0 * bytes, act.raw.data() + i0 * bytes, len * bytes) == 0) continue;
      for (size_t i = i0; i < i0 + len; ++i) {
        const uint64_t e = exp.at_storage(i), a = act.at_storage(i);
        if (e == a) continue;
        size_t row, col;
        if (exp.is_vector) row = i, col = 0;
        else if (exp.col_major) col = i / lead, row = i % lead;
        else row = i / lead, col = i % lead;
        if (row >= r.rows || col >= r.cols) continue;  // padding beyond the matrix
        t.record(row, col, e, a);
      }
    }
  } else {
    for (size_t row = 0; row < r.rows; ++row)
      for (size_t col = 0; col < r.cols; ++col) t.record(row, col, exp.at(row, col), act.at(row, col));
  }
}

// Alternative models on a sample: the mismatches spread evenly, plus some matching elements.
void fit_models(const Case& c, const Array& act, const CompareOptions& opt, const Tally& t, CompareReport& r) {
  const Array& exp = c.expected;
  const size_t budget = t.budget;
  const std::vector<std::pair<size_t, size_t>>& bad_sample = t.bad_sample;
  std::vector<std::pair<size_t, size_t>> sample;
  const size_t take = std::min(bad_sample.size(), budget);
  for (size_t i = 0; i < take; ++i) sample.push_back(bad_sample[i * bad_sample.size() / take]);
  // Matching elements at evenly spread positions (a quarter of the budget at most).
  const size_t want_good = std::min(r.total - r.mismatches, budget / 4);
  for (size_t j = 0, tries = 0; j < want_good && tries < 4 * want_good; ++tries) {
    const size_t i = static_cast<size_t>((static_cast<unsigned __int128>(tries) * r.total) / (4 * want_good));
    const size_t row = i / r.cols, col = i % r.cols;
    if (equal(r.type, exp.at(row, col), act.at(row, col), opt.nans_equal)) {
      sample.push_back({row, col});
      ++j;
    }
  }
  // Every (model, piece of the sample) is one item of a parallel loop on opt.exec's threads;
  // each counts its matches into its own slot, added up after (the same counts for every
  // thread count).
  const std::vector<AltModel> models = alternative_models(c);
  constexpr size_t kPiece = 32;
  const size_t pieces = (sample.size() + kPiece - 1) / kPiece;
  std::vector<size_t> matched(models.size() * pieces, 0);
  parallel_for(matched.size(), opt.exec, [&](size_t i) {
    const AltModel& m = models[i / pieces];
    const size_t end = std::min(sample.size(), (i % pieces + 1) * kPiece);
    for (size_t s = (i % pieces) * kPiece; s < end; ++s) {
      const auto [row, col] = sample[s];
      matched[i] += equal(r.type, m.eval(row, col), act.at(row, col), opt.nans_equal);
    }
  });
  for (size_t j = 0; j < models.size(); ++j) {
    ModelFit f{models[j].name, models[j].description, 0, sample.size(), models[j].is_case_model};
    for (size_t i = 0; i < pieces; ++i) f.matched += matched[j * pieces + i];
    r.models.push_back(f);
  }
  std::stable_sort(r.models.begin(), r.models.end(), [](const ModelFit& x, const ModelFit& y) {
    if (x.is_case_model != y.is_case_model) return x.is_case_model;
    return x.matched > y.matched;
  });
}

// The verdict of a report with mismatches, in words.
std::string verdict(const CompareReport& r) {
  std::string v = "DIFFERENT: " + std::to_string(r.mismatches) + " of " + std::to_string(r.total) + " elements (" +
                  pct(r.mismatches, r.total) + ") differ. ";
  for (const std::string& f : r.findings)
    if (f.rfind("LAYOUT", 0) == 0) v += "A layout problem: " + f.substr(8) + ". ";
  const ModelFit* best = nullptr;
  const ModelFit* own = nullptr;
  for (const ModelFit& m : r.models) {
    if (m.is_case_model) own = &m;
    else if (!best || m.matched > best->matched) best = &m;
  }
  if (best && best->sampled) {
    const std::string share = std::to_string(best->matched) + " of " + std::to_string(best->sampled) + " sampled elements";
    const std::string own_share = own ? std::to_string(own->matched) + " of " + std::to_string(own->sampled) : "?";
    if (best->matched == best->sampled && (!own || own->matched < own->sampled))
      v += "The output matches " + best->name + " on every sampled element (" + share + "; the case's model: " + own_share +
           "): the kernel computes " + best->name + " (" + best->description + "), not the expected model.";
    else if (own && own->matched == own->sampled)
      v += "The case's model reproduces the actual output on every sampled element: the expected result does not come "
           "from this model (check the provenance).";
    else if (best->matched > (own ? own->matched : 0))
      v += "No model explains every element; the closest is " + best->name + " (" + share + "; the case's model: " + own_share +
           ").";
    else
      v += "No alternative model explains the output better than the case's own model (" + own_share +
           " sampled elements); the differences look like wrong inputs, a layout problem or a broken kernel.";
  }
  if (r.nan_payload)
    v += " " + std::string(r.nan_payload == r.mismatches ? "All" : std::to_string(r.nan_payload) + " of the") + " " +
         std::to_string(r.mismatches) + " differences are NaN in both, differing only in payload or sign (e.g. NumPy's "
         "0x7fc00000 against the file's canonical NaN): --nans-equal treats any NaN as equal.";
  return v;
}

}  // namespace

CompareReport compare(const Case& c, const Array& act, const CompareOptions& opt) {
  const Array& exp = c.expected;
  if (!(act.type == exp.type) || act.rows != exp.rows || act.cols != exp.cols)
    throw GoldenError("the actual output is " + act.type.name + " " + std::to_string(act.rows) + " x " + std::to_string(act.cols) +
                      ", the expected " + exp.type.name + " " + std::to_string(exp.rows) + " x " + std::to_string(exp.cols));
  CompareReport r = empty_report(c, opt);
  const size_t K_ = c.op == OpKind::mma || c.op == OpKind::gemm ? static_cast<size_t>(c.mma.K) : 1;
  const size_t budget = std::max<size_t>(64, std::min(opt.model_sample, (size_t{1} << 22) / K_));
  Tally t(r, opt, budget);
  scan(exp, act, r, t);
  t.finish();
  if (r.mismatches == 0) {
    r.verdict = "IDENTICAL: all " + std::to_string(r.total) + " elements of " + r.expected_name + " match bit for bit" +
                (opt.nans_equal ? " (NaNs treated as equal)." : ".");
    return r;
  }
  layout_findings(c, act, r);
  if (opt.analyse_models) fit_models(c, act, opt, t, r);
  r.verdict = verdict(r);
  return r;
}

}  // namespace tcemu::golden
