// The instruction catalog: every tensor-core MMA instruction of sm_70 .. sm_121a that PTX
// defines for the modelled types, named by its PTX spelling and the target architecture,
// with its shape, operand and accumulator types, the datapath parameters (datapath.hpp), the
// evidence for them and how confident that evidence is. Parameters: docs/datapath.md §3;
// shapes and operands: PTX ISA §9.7.14-9.7.16 [PTX]. docs/datapath.md lists every family.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/datapath.hpp"
#include "tcemu/format.hpp"

namespace tcemu {

enum class Confidence : uint8_t {
  measured,      // reproduces real-hardware rows bit for bit (hw-vectors) and published models
  published,     // bit-accurate published models ([MS], [KM]) checked by their authors on GPUs
  extrapolated,  // assumed equal to a sibling entry with evidence (same arch, same kind)
  unknown,       // no evidence: a documented best guess
};
std::string_view to_string(Confidence c);

enum class AccType : uint8_t { f16, f32, s32 };
std::string_view to_string(AccType t);
std::optional<AccType> parse_acc_type(std::string_view s);

struct InstrEntry {
  std::string arch;     // "sm_90a": the entry applies to exactly this target (see find_instruction)
  std::string ptx;      // canonical PTX spelling; types PTX keeps in a descriptor are not in it
  std::string family;   // "mma.sync f16", "wgmma e4m3/e5m2", "tcgen05 kind::mxf4nvf4", ...
  int M = 0, N = 0, K = 0;  // tcgen05: the largest M and N of cta_group::1 / ::2
  Fmt atype = Fmt::f16, btype = Fmt::f16;
  AccType dtype = AccType::f32;  // C and D
  DatapathParams params;
  std::optional<Fmt> scale_type;  // block-scaled kinds: ue8m0 or ue4m3
  int scale_block = 0;            // elements of K per scale
  int scale_vec = 0;              // PTX scale_vec::NX
  bool types_in_descriptor = false;  // tcgen05: types are flags (--atype ...), not spelling
  std::string evidence;           // sources ([MS] [KM] ... of docs/sources.md, hw-vectors sets)
  Confidence confidence = Confidence::published;
  std::string note;               // open question or extrapolation, when any
  // PTX also gives the instruction to the family target of `arch` (sm_100a's tcgen05 kinds on
  // sm_100f, ...): find_instruction("sm_103f", ...) finds the sm_103a entries that have it.
  bool family_target = false;
  // Empty, or the architecture whose entry of the same instruction this entry's datapath
  // parameters are copied from (a newer target PTX gives the instruction, not measured on it).
  std::string params_from = {};
};

// The whole catalog, built once (thread-safe static).
std::span<const InstrEntry> catalog();

struct InstrLookup {
  const InstrEntry* entry = nullptr;
  std::string error;  // why no (single) entry matched
};

// Finds the entry for a PTX spelling on an architecture. Layout tokens (.row/.col) may be in
// any combination PTX allows; `.satfinite` may appear anywhere. An arch with an `a`/`f`
// suffix also finds the entries of its base arch (sm_90a runs sm_90's mma.sync); an `f` (family)
// target also finds the entries of its `a` target that have family_target. The optional
// types select among entries whose spelling leaves them out (tcgen05), and must agree with
// the spelling otherwise.
InstrLookup find_instruction(std::string_view arch, std::string_view ptx, std::optional<Fmt> atype = std::nullopt,
                             std::optional<Fmt> btype = std::nullopt, std::optional<AccType> dtype = std::nullopt,
                             std::optional<Fmt> stype = std::nullopt);

// Format of C and D codes for an entry: f32, f16 or s32.
Fmt acc_format(AccType t);

}  // namespace tcemu
