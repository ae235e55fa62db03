// The committed golden set (golden/sets/): which cases it holds and how they are made, so
// `tcemu golden gen-set` regenerates it and a test can check it. One file per catalog family
// plus one for conversions (conventions) and one for PTX cvt instructions. See
// golden/sets/README.md for the sizes chosen and why.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

// Every family name of the catalog ("wgmma e4m3/e5m2", ...), sorted.
std::vector<std::string> catalog_families();
// A file name for a family: "wgmma_e4m3-e5m2.json".
std::string family_file_name(const std::string& family);

// The cases of one family, one instruction tile each: for every distinct datapath of the
// family (architecture, operand/accumulator/scale types, K and datapath parameters; wgmma's N
// and tcgen05's cta pair are not distinct) enough tiles of mixed distributions for at least
// 256 dot products, plus one case per pure distribution (and scale pattern) on its first.
GoldenFile family_set(const std::string& family, uint64_t seed = 1);

// Every catalog entry, the family file that covers it and the names of the cases generated
// for its datapath (an entry whose datapath another entry of the family shares is covered by
// that entry's cases: the same codes give the same D elements). golden/sets/index.json.
struct CoveredEntry {
  const InstrEntry* entry = nullptr;
  std::string file;
  std::vector<std::string> cases;
};
std::vector<CoveredEntry> committed_index(uint64_t seed = 1);
// Every family file (by file name) and the index, each family generated once.
struct CommittedFamilies {
  std::vector<std::pair<std::string, GoldenFile>> files;
  std::vector<CoveredEntry> index;
};
CommittedFamilies committed_families(uint64_t seed = 1);
std::string committed_index_json(const std::vector<CoveredEntry>& index);
// Reads index.json back, looking every entry up in the catalog; the error names the field
// (read_committed_index throws it as GoldenError).
Result<std::vector<CoveredEntry>> try_read_committed_index(const std::string& path);
std::vector<CoveredEntry> read_committed_index(const std::string& path);

// Conversions under every convention for the narrow formats, and every PTX cvt variant.
GoldenFile conversion_set(uint64_t seed = 1);
GoldenFile cvt_set(uint64_t seed = 1);
// gemm_plans.json: op gemm cases (docs/gemm.md) on small problems: every combine (cuBLASLt's
// bitequiv split with an empty slice, f32 forward and tree, CUTLASS serial and parallel), one
// chain, explicit chunks, every epilogue order, per-tensor and rowwise scales, bias, beta * C,
// every output type with and without saturation (FP8 outputs that overflow), f16 accumulators
// and block scales.
GoldenFile gemm_plan_set(uint64_t seed = 1);

}  // namespace tcemu::golden
