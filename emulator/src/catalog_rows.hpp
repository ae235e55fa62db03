// The instruction catalog as a table (internal): one row per instruction family and
// architecture, with its spelling pattern, type sets, datapath parameters, evidence,
// confidence and note; expand_rows() turns the rows into the InstrEntry list of catalog().
// The rows are in catalog_table.cpp, the one place where the evidence for every entry is read.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"

namespace tcemu::catalog_detail {

struct Shape {
  int M, N, K;
};

struct TypePair {
  Fmt a, b;
};

// One accumulator type of a row, with what depends on it.
struct RowOut {
  AccType d;
  DatapathParams params;  // integer kinds: L is the instruction's K (set by the expansion)
  std::string evidence;   // sources ([MS] [KM] ... of docs/sources.md, hw-vectors sets, H200 records)
  Confidence confidence;
  std::string note;
};

// Entries with an FP6 operand (e3m2 or e2m3) take this confidence and note instead.
struct Fp6Rule {
  Confidence confidence;
  std::string note;
};

struct RowScale {
  Fmt fmt;    // ue8m0 or ue4m3
  int block;  // elements of K per scale
  int vec;    // PTX scale_vec::NX
};

struct CatalogRow {
  std::string arch;    // exactly this target
  std::string family;  // "mma.sync f16", "wgmma e4m3/e5m2", ...
  // The PTX spelling; {M} {N} {K} {a} {b} {d} {s} stand for the shape, the A/B/accumulator
  // types and the scale type, {sat} for ".satfinite" when the parameters saturate.
  std::string spelling;
  std::vector<TypePair> types;  // expanded outermost
  std::vector<RowOut> outs;     // then the accumulator types
  std::vector<Shape> shapes;    // then the shapes, innermost
  std::optional<Fp6Rule> fp6 = std::nullopt;
  std::optional<RowScale> scale = std::nullopt;
  bool types_in_descriptor = false;  // tcgen05: types are flags, not spelling
  // wgmma: a run of consecutive n_outer rows is expanded N by N (every row's entries of one N,
  // then the next N), the order of the PTX tables.
  bool n_outer = false;
  // PTX also gives the instruction to the arch's family target (sm_100a -> sm_100f).
  bool family_target = false;
  // The architecture whose row this one copies the datapath of (a newer target), or empty.
  std::string params_from = {};
};

// The table, in catalog order (catalog_table.cpp).
const std::vector<CatalogRow>& catalog_rows();

// The entries of the rows, in order: per row, types x accumulator types x shapes.
std::vector<InstrEntry> expand_rows(std::span<const CatalogRow> rows);

}  // namespace tcemu::catalog_detail
