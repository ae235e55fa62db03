// Bit-by-bit comparison of a kernel's output with a golden case, and the report that says
// where and why it differs: mismatch count and share, the first mismatches with decoded
// values and ulp distances, an ulp histogram, the rows / columns / instruction tiles the
// mismatches fall on (layout bugs show a pattern), and which other arithmetic model explains
// the output better (plain f32 FMA accumulation, RNE instead of RZ, another architecture's
// datapath, C added after, ...), evaluated on the case's operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tcemu/parallel.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

struct CompareOptions {
  bool nans_equal = false;    // any NaN equals any NaN (payload and sign ignored)
  size_t max_listed = 10;     // mismatches listed in the report
  bool analyse_models = true; // evaluate alternative models on a sample of elements
  size_t model_sample = 2048; // most elements evaluated per model (fewer for long K)
  Exec exec;                  // threads for the models (the report is the same for every count)
};

// The actual output read from a file: raw little-endian codes in the layout of the case's
// expected array, a .npy file, or a golden file holding a case of the same name. The error
// names the problem (bad input: exit status 2); read_actual throws it as GoldenError.
Result<Array> try_read_actual(const std::string& path, const Case& expected);
Array read_actual(const std::string& path, const Case& expected);
// The same for many cases of one ACTUAL file: a golden ACTUAL is read once (and its cases
// found by name), so comparing two golden files takes time linear in their size; .npy and raw
// files are read per case, as by read_actual.
// try_open reads a golden ACTUAL (the error: what the constructor throws as GoldenError);
// try_read gives read's error (what read_actual's is) in the Result.
class ActualSource {
 public:
  ActualSource() = default;  // no file: for Result<ActualSource>
  static Result<ActualSource> try_open(std::string path);
  explicit ActualSource(std::string path);  // throws GoldenError
  Result<Array> try_read(const Case& expected) const;
  Array read(const Case& expected) const;   // throws GoldenError
  // The case names of a golden ACTUAL (empty for the other kinds).
  std::vector<std::string> case_names() const;

 private:
  std::string path_, kind_;
  GoldenFile golden_;
  std::map<std::string, size_t> index_;  // case name -> its first position in golden_.cases
};
// Which form `path` is: "golden" (.json), "npy" (.npy) or "raw".
std::string actual_kind(const std::string& path);

struct Mismatch {
  size_t row = 0, col = 0;
  uint64_t expected = 0, actual = 0;
  std::optional<uint64_t> ulps;  // nullopt: not comparable (NaN or Inf involved, raw bits)
};

struct HistBin {
  std::string label;  // "1", "2", "3-4", ..., "NaN/Inf"
  size_t count = 0;
};

// How often an alternative model reproduces the actual output on the sampled elements.
struct ModelFit {
  std::string name;         // short: "f32 FMA accumulation in k order"
  std::string description;  // one sentence
  size_t matched = 0, sampled = 0;
  bool is_case_model = false;  // the model the expected result came from
};

struct CompareReport {
  std::string case_name, operation;  // operation: PTX spelling or conversion
  std::string expected_name = "D";
  ElemType type;
  size_t rows = 0, cols = 0, total = 0, mismatches = 0;
  size_t nan_payload = 0;  // mismatches where both are NaN (only payload or sign differ)
  bool nans_equal = false;
  std::vector<Mismatch> first;
  std::vector<HistBin> histogram;
  int tile_m = 1, tile_n = 1;
  size_t tiles_m = 0, tiles_n = 0;
  std::vector<size_t> row_counts, col_counts, tile_counts;  // mismatches per row / column / tile
  std::vector<size_t> in_tile_row, in_tile_col;             // by position inside the tile
  // The heat map: the matrix in at most 256 x 256 cells of cell_r x cell_c elements.
  size_t cell_r = 1, cell_c = 1, heat_rows = 0, heat_cols = 0;
  std::vector<size_t> heat;  // mismatches per cell
  std::vector<std::string> findings;  // pattern sentences
  std::vector<ModelFit> models;       // case model first, then by matches
  std::string verdict;                // one paragraph in words
  bool identical() const { return mismatches == 0; }
};

// The error (compare throws it as GoldenError): an actual array of another type or shape.
Result<CompareReport> try_compare(const Case& expected, const Array& actual, const CompareOptions& opt = {});
CompareReport compare(const Case& expected, const Array& actual, const CompareOptions& opt = {});

// The expected arrays of a case besides its main one (a quantize case's "scales" and "global";
// none for the other ops), each as a case whose expected array is that part (no operands),
// for compare(); read_actual() on a golden ACTUAL file then returns the part of that name.
std::vector<Case> expected_parts(const Case& c);

// A short decimal rendering of a code ("1.00000012", "-inf", "nan"; hex for raw registers).
std::string short_value(const ElemType& t, uint64_t code);
// ulp distance between two codes of a float format or s32 (nullopt: NaN/Inf or raw bits).
std::optional<uint64_t> ulp_distance(const ElemType& t, uint64_t a, uint64_t b);

std::string text_report(const CompareReport& r);
nlohmann::json json_report(const CompareReport& r);
// A self-contained page with the summary, the models, the first mismatches, the histogram and
// a heat map of mismatches over the output matrix (a <canvas> drawn by an inline script that
// marks it data-rendered="true" when done).
std::string html_report(const CompareReport& r);

}  // namespace tcemu::golden
