// The golden-file reader and validator (parse_golden) on arbitrary JSON text, then every array
// of an accepted file unpacked (Array::logical) and, for small cases, the case's expected
// result recomputed (evaluate, up to 256 elements), as `tcemu golden check` does. Only
// GoldenError may escape.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/golden.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tcemu::golden;
  const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return 0;
  try {
    // .npy references resolve in a folder that does not exist: "cannot open".
    const GoldenFile f = parse_golden(doc, "/nonexistent-tcemu-fuzz", "fuzz.json");
    for (const Case& c : f.cases) {
      size_t work = c.expected.storage_count();
      for (const auto& [name, a] : c.operands) {
        (void)name;
        work += a.storage_count();
        if (a.logical().size() != a.rows * a.cols) std::abort();
      }
      if (c.expected.logical().size() != c.expected.rows * c.expected.cols) std::abort();
      // Small cases only: evaluating is the arithmetic, not the reader under test, and a large
      // accepted case made each run cost milliseconds.
      if (c.op == OpKind::mma && static_cast<size_t>(c.mma.M) * c.mma.N * c.mma.K > 256) continue;
      if (work <= 256) (void)not_reproduced(c);
    }
  } catch (const GoldenError&) {
  } catch (const std::invalid_argument& e) {
    // A model's own check (a recipe's "tensor size does not match its shape"), worded for
    // the user; the standard library's ("stoi", ...) has no blank and is a finding.
    if (std::string(e.what()).find(' ') == std::string::npos) std::abort();
  }
  return 0;
}
