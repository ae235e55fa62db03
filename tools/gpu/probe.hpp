// The directed feature probes of docs/sources.md, "Directed probes" and the inference from their outputs to the
// datapath parameters (L, F, output rounding, e_zero, where C enters, subnormal and special
// value behaviour). Host code: the probes are dot products (one D element each) handed to a
// runner, which is the GPU in `tcemu-gpu probe` and the emulator in the tests (the emulator
// stands in for a GPU: the inference must recover every catalog entry's own parameters).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcemu/catalog.hpp"

namespace tcemu_gpu {

// One dot product through the instruction: K codes of A (a row) and of B (a column), one C
// code, and the block scales of the row and column (block-scaled kinds only).
struct DotQuery {
  std::vector<uint64_t> a, b;
  uint64_t c = 0;
  std::vector<uint64_t> sa, sb;
};
// Runs queries, returning one D code each. Throws std::runtime_error when it cannot.
using DotRunner = std::function<std::vector<uint64_t>(const std::vector<DotQuery>&)>;

// The emulator as a runner (tcemu::mma of the M = N = 1 problem through the entry).
DotRunner emulator_runner(const tcemu::InstrEntry& e);

struct ProbeResult {
  std::string arch, ptx;
  std::string kind;  // "float" or "integer"
  // Each measured value, or nullopt with a note saying why it could not be told.
  std::optional<int> F, L, e_zero;
  std::optional<int> e_zero_max;  // an upper bound when e_zero itself is out of the probes' reach
  std::string rounding;  // rz_f32, rne_f32, rz_e8m13, rne_f16, rz_f16, or "" (not told)
  std::string c_entry;   // fused, after (C added after the products), or ""
  std::optional<bool> satfinite;  // integer kinds
  std::string subnormal_inputs, subnormal_outputs, zero_sign;
  std::vector<std::pair<std::string, std::string>> specials;  // probe -> result code (hex, class)
  std::vector<std::string> notes;        // why something was not told
  std::vector<std::string> differences;  // measured value != catalog value
  int queries = 0;
};

// Runs every probe that the entry's formats can express and infers the parameters.
ProbeResult probe_instruction(const tcemu::InstrEntry& e, const DotRunner& run);

// The catalog's values in the same terms (for the side-by-side and the differences).
std::string catalog_rounding(const tcemu::InstrEntry& e);
std::string catalog_c_entry(const tcemu::InstrEntry& e);

std::string probe_text(const ProbeResult& r, const tcemu::InstrEntry& e);  // one block of lines
nlohmann::json probe_json(const ProbeResult& r, const tcemu::InstrEntry& e);

}  // namespace tcemu_gpu
