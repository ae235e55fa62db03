// Random operand codes for the datapath tests, over several distributions (issue 3): random
// bit patterns, normal values, wide exponent spreads with cancellation, subnormals, zeros,
// specials, extreme scales.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu/mma.hpp"

namespace tcemu::test {

// A whole-matrix problem's operands, owned by a test, and the MmaProblem that views them
// (types, scale format and block from the entry).
struct OwnedProblem {
  const InstrEntry* e;
  int M, N, K;
  std::vector<uint64_t> A, B, C, sa, sb;
  MmaProblem view() const { return make_problem(*e, M, N, K, A, B, C, sa, sb); }
};

enum class Dist { bits, normal, cancel, subnormal, zeros, specials, extreme };
inline constexpr Dist kDists[] = {Dist::bits, Dist::normal, Dist::cancel, Dist::subnormal,
                                  Dist::zeros, Dist::specials, Dist::extreme};
inline std::string_view dist_name(Dist d) {
  constexpr std::string_view n[] = {"bits", "normal", "cancel", "subnormal", "zeros", "specials", "extreme"};
  return n[static_cast<int>(d)];
}

using Rng = std::mt19937_64;

// A code with the given sign, biased exponent and fraction fields (tf32: its f32 container,
// low 13 bits random when `junk` so that pre-truncation is exercised).
inline uint64_t pack_fields(Fmt f, bool sign, uint64_t eb, uint64_t man, uint64_t junk = 0) {
  const FormatInfo& fi = info(f);
  uint64_t c = (eb << (fi.man_shift + fi.man_bits)) | (man << fi.man_shift) | (junk & ((uint64_t{1} << fi.man_shift) - 1));
  if (sign && fi.is_signed) c |= fi.sign_mask();
  return c & fi.code_mask();
}

inline bool is_special_code(Fmt f, uint64_t c) {
  const Class k = decode(f, c).cls;
  return k == Class::nan || k == Class::inf;
}

inline uint64_t random_code(Fmt f, Dist d, Rng& r) {
  const FormatInfo& fi = info(f);
  std::uniform_int_distribution<uint64_t> any(0, fi.code_mask());
  if (fi.is_int) {
    if (d == Dist::zeros && r() % 2) return 0;
    if (d == Dist::extreme) return (r() % 2) ? (fi.is_signed ? fi.sign_mask() : fi.code_mask()) : fi.code_mask() >> 1;
    return any(r);
  }
  const uint64_t emax_field = (uint64_t{1} << fi.exp_bits) - 1;
  const uint64_t man_mask = (uint64_t{1} << fi.man_bits) - 1;
  const bool sign = r() & 1;
  const uint64_t man = fi.man_bits ? r() & man_mask : 0;
  const uint64_t junk = r();
  for (int attempt = 0; attempt < 100; ++attempt) {
    uint64_t c = 0;
    switch (d) {
      case Dist::bits: return any(r);
      case Dist::specials:
        if (r() % 16 == 0) {
          const uint64_t picks[] = {inf_code(f, sign).value_or(0), canonical_nan(f).value_or(0), any(r)};
          return picks[r() % 3];
        }
        [[fallthrough]];
      case Dist::normal: {
        const int64_t span = std::min<int64_t>(3, fi.bias);
        const int64_t eb = fi.bias + static_cast<int64_t>(r() % (2 * span + 1)) - span;
        c = pack_fields(f, sign, static_cast<uint64_t>(std::max<int64_t>(eb, 1)), man, junk);
        break;
      }
      case Dist::cancel:  // wide spread; cancellation is arranged by the caller
        c = pack_fields(f, sign, r() % (emax_field + 1), man, junk);
        break;
      case Dist::subnormal:
        c = pack_fields(f, sign, (r() % 4 == 0) ? 1 : 0, man, junk);
        break;
      case Dist::zeros:
        c = (r() % 2) ? pack_fields(f, sign, 0, 0) : pack_fields(f, sign, 1 + r() % emax_field, man, junk);
        break;
      case Dist::extreme: {
        const uint64_t picks[] = {0, 1, emax_field, emax_field > 0 ? emax_field - 1 : 0};
        c = pack_fields(f, sign, picks[r() % 4], man, junk);
        break;
      }
    }
    if (!is_special_code(f, c)) return c;
  }
  return zero_code(f, sign).value_or(0);
}

// Block-scale codes: ue8m0 over a moderate or the full range; ue4m3 with its ignored sign bit.
inline uint64_t random_scale(Fmt f, Dist d, Rng& r) {
  if (f == Fmt::ue8m0) {
    if (d == Dist::specials && r() % 32 == 0) return 0xFF;
    if (d == Dist::extreme || d == Dist::bits) return r() % 255;
    return 120 + r() % 15;
  }
  // ue4m3: bit 7 is ignored by the hardware; set it at random
  uint64_t c = (d == Dist::extreme || d == Dist::bits) ? r() % 0x7F : 0x30 + r() % 0x20;
  if (d == Dist::specials && r() % 32 == 0) c = 0x7F;
  if (d == Dist::zeros && r() % 8 == 0) c = 0;
  return c | ((r() & 1) << 7);
}

}  // namespace tcemu::test
