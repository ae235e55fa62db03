// Random whole-matrix problems of every catalog datapath family, with the options that change
// the computation, for the tests of the emulator on a GPU (host run and device).
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../datapath/random_operands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/mma.hpp"

namespace tcemu::test {

// One entry per distinct (datapath, types, scales, K): every family of the catalog, integer,
// k-pair halves, f16 widening and C after the instruction included.
inline std::vector<const InstrEntry*> family_entries() {
  std::vector<const InstrEntry*> out;
  std::set<std::tuple<std::string, int, int, int, int, int, int>> seen;
  for (const InstrEntry& e : catalog()) {
    auto key = std::make_tuple(describe(e.params), static_cast<int>(e.atype), static_cast<int>(e.btype),
                               static_cast<int>(e.dtype), e.scale_type ? static_cast<int>(*e.scale_type) : -1,
                               e.scale_block, e.K);
    if (seen.insert(key).second) out.push_back(&e);
  }
  return out;
}

inline uint64_t random_acc_code(Fmt f, Rng& r) {
  const FormatInfo& fi = info(f);
  if (fi.is_int) return r() & 0xFFFFFFFFu;
  switch (r() % 10) {
    case 0: return 0;
    case 1: return fi.sign_mask();
    case 2: return *inf_code(f, r() & 1);
    case 3: return *canonical_nan(f);
    case 4: return (r() & ((uint64_t{1} << fi.man_bits) - 1)) | ((r() & 1) ? fi.sign_mask() : 0);
    default: return pack_fields(f, r() & 1, static_cast<uint64_t>(fi.bias - 6 + static_cast<int>(r() % 13)),
                                r() & ((uint64_t{1} << fi.man_bits) - 1));
  }
}

// An M x N problem of `instrs` instructions along K with operands of distribution d.
inline OwnedProblem random_problem(const InstrEntry& e, int M, int N, int instrs, Dist d, Rng& r) {
  OwnedProblem c{&e, M, N, e.K * instrs, {}, {}, {}, {}, {}};
  const size_t m = static_cast<size_t>(M), n = static_cast<size_t>(N), k = static_cast<size_t>(c.K);
  for (size_t i = 0; i < m * k; ++i) c.A.push_back(random_code(e.atype, d, r));
  for (size_t i = 0; i < k * n; ++i) c.B.push_back(random_code(e.btype, d, r));
  const Fmt acc = acc_format(e.dtype);
  for (size_t i = 0; i < m * n; ++i) c.C.push_back(random_acc_code(acc, r));
  if (d == Dist::cancel && !info(e.atype).is_int)  // column 0 of B the negation of row 0 of A
    for (size_t i = 0; i < k; ++i) c.B[i * n] = c.A[i] ^ info(e.atype).sign_mask();
  if (e.scale_type) {
    const size_t nb = k / static_cast<size_t>(e.scale_block);
    for (size_t i = 0; i < m * nb; ++i) c.sa.push_back(random_scale(*e.scale_type, d, r));
    for (size_t i = 0; i < n * nb; ++i) c.sb.push_back(random_scale(*e.scale_type, d, r));
  }
  return c;
}

// The option sets each family is run with: plain, both operands negated, no C, C scaled
// (scale-input-d), FP32 promotion (f32 accumulators).
inline std::vector<std::pair<std::string, MmaOptions>> option_sets(const InstrEntry& e) {
  std::vector<std::pair<std::string, MmaOptions>> v;
  v.push_back({"plain", MmaOptions{}});
  MmaOptions o;
  o.negate_a = o.negate_b = true;
  v.push_back({"negated", o});
  o = MmaOptions{};
  o.negate_b = true;
  v.push_back({"negate_b", o});
  o = MmaOptions{};
  o.scale_d = false;
  v.push_back({"no-C", o});
  if (e.params.kind != DatapathKind::integer) {
    o = MmaOptions{};
    o.scale_input_d = 3;
    v.push_back({"scale-input-d", o});
  }
  if (e.dtype == AccType::f32) {
    o = MmaOptions{};
    o.promote_every = 2;
    v.push_back({"promote", o});
  }
  return v;
}

}  // namespace tcemu::test
