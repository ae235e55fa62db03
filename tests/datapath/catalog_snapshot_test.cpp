// The instruction catalog, entry by entry and field by field, against the snapshot in
// tests/data/catalog/entries.tsv: a change to any entry (spelling, types, datapath parameters,
// evidence, confidence, note, order) shows up as a diff of that file. The snapshot was written
// from the catalog as it stood before the catalog became a table of rows (issue 12), so the
// table's expansion is proven to be the earlier hand-written catalog, entry for entry.
//
// An intended change to the catalog: review it, then rewrite the snapshot with
//   TCEMU_CATALOG_SNAPSHOT_OUT=tests/data/catalog/entries.tsv build/release/tests/datapath/datapath_catalog_snapshot_test
// and commit the diff with the change.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tcemu/catalog.hpp"

namespace tcemu::test {
namespace {

std::string fmt_name(Fmt f) { return std::string(info(f).name); }

// Every field of DatapathParams: the structured binding stops compiling when one is added.
std::string params_fields(const DatapathParams& p) {
  const auto& [kind, L, F, e_zero, rounding, c_entry, group, satfinite, widen_to_f16, kpair_halves, positive_zero] = p;
  std::ostringstream s;
  s << to_string(kind) << " L=" << L << " F=" << F << " e_zero=" << e_zero << " " << to_string(rounding) << " "
    << to_string(c_entry) << " group=" << group << " sat=" << satfinite << " widen=" << widen_to_f16
    << " kpair=" << kpair_halves << " pz=" << positive_zero;
  return s.str();
}

// Every field of InstrEntry, tab-separated, one line.
std::string entry_line(const InstrEntry& e) {
  const auto& [arch, ptx, family, M, N, K, atype, btype, dtype, params, scale_type, scale_block, scale_vec,
               types_in_descriptor, evidence, confidence, note, family_target, params_from] = e;
  std::ostringstream s;
  s << arch << "\t" << ptx << "\t" << family << "\tm" << M << "n" << N << "k" << K << "\t" << fmt_name(atype) << "\t"
    << fmt_name(btype) << "\t" << to_string(dtype) << "\t" << params_fields(params) << "\t"
    << (scale_type ? fmt_name(*scale_type) : "-") << "/" << scale_block << "/" << scale_vec << "\t"
    << (types_in_descriptor ? "descriptor" : "spelling") << "\t" << to_string(confidence) << "\t" << evidence << "\t"
    << note << "\t" << (family_target ? "family" : "-") << "\t" << (params_from.empty() ? "-" : params_from) << "\n";
  return s.str();
}

std::string dump() {
  std::string out = "arch\tptx\tfamily\tshape\tatype\tbtype\tdtype\tparams\tscale/block/vec\ttypes\tconfidence\tevidence\tnote\tfamily target\tparams from\n";
  for (const InstrEntry& e : catalog()) out += entry_line(e);
  return out;
}

TEST(CatalogSnapshot, EveryEntryAndFieldAsRecorded) {
  const std::string now = dump();
  if (const char* out = std::getenv("TCEMU_CATALOG_SNAPSHOT_OUT")) {
    std::ofstream(out, std::ios::binary) << now;
    GTEST_SKIP() << "snapshot written to " << out;
  }
  const std::string path = std::string(TCEMU_SOURCE_DIR) + "/tests/data/catalog/entries.tsv";
  std::ifstream f(path, std::ios::binary);
  ASSERT_TRUE(f) << path << " missing";
  std::stringstream want;
  want << f.rdbuf();
  if (want.str() == now) return;
  // The first differing line, for the message.
  std::istringstream a(want.str()), b(now);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) break;
    if (la != lb || ga != gb) {
      ADD_FAILURE() << "catalog differs from " << path << " at line " << line << ":\n  snapshot: " << (ga ? la : "<end>")
                    << "\n  catalog:  " << (gb ? lb : "<end>");
      return;
    }
  }
  ADD_FAILURE() << "catalog differs from " << path;
}

}  // namespace
}  // namespace tcemu::test
