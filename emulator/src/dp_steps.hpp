// Internal: the steps of docs/datapath.md and their chaining over K, built from the primitives
// of dp_primitives.hpp, in one place for every executor of the generic datapath: the CPU
// (datapath.cpp's step functions and mma.cpp's whole-matrix loop) and the CUDA kernels
// (emulator/cuda/, through dp_matrix.hpp). The CPU fast path (mma_fast*.cpp) reorganises the
// same arithmetic for vectors and is checked against these.
//
// Like dp_primitives.hpp it compiles as CUDA __host__ __device__ code: only <cstdint>, plain
// structs (the parameters as StepParams / ChainParams, built on the host by dp_host.hpp), no
// standard-library calls, no exceptions, no allocation. Nothing here checks its arguments:
// mma_params' problem checks and validate() guarantee the preconditions.
#pragma once

#include <cstdint>

#include "dp_primitives.hpp"

// The step functions are large: inline (one definition in every translation unit), not forced.
#if defined(__CUDACC__)
#define TCEMU_DP_STEP __host__ __device__ inline
#else
#define TCEMU_DP_STEP inline
#endif

namespace tcemu::dp {

// ---- operand decoding ------------------------------------------------------------------------

// How a format encodes its specials (the values of tcemu::Specials, format.hpp).
enum : uint8_t { kSpecialsIeee = 0, kSpecialsNanAllOnes = 1, kSpecialsNanMaxCode = 2, kSpecialsNone = 3 };

// A row of format.hpp's table as plain data (format_row() in dp_host.hpp builds it).
struct FormatRow {
  uint8_t width = 0, exp_bits = 0, man_bits = 0, man_shift = 0, specials = 0;
  bool is_int = false, is_signed = false, has_subnormals = false;
  int16_t bias = 0, emin = 0;  // emin: FormatInfo::emin()
};

// An operand or scale code decoded as decode_operand (datapath.hpp) gives it: bits outside the
// format ignored; integers as magnitude and sign (low = E = 0); Inf special 1, NaN special 2
// (sig, low, E 0, the sign kept); a zero sig 0 with its sign; a finite nonzero float
// (-1)^neg * sig * 2^low with E = low + man_bits (a subnormal read at emin).
// Precondition: the format's significand fits 32 bits (every operand and scale format).
TCEMU_DP_STEP Operand decode_code(const FormatRow& f, uint64_t code) {
  Operand o;
  const uint64_t mask = f.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << f.width) - 1;
  code &= mask;
  const bool sign = f.is_signed && ((code >> (f.width - 1)) & 1) != 0;
  o.neg = sign ? 1 : 0;
  if (f.is_int) {
    o.sig = static_cast<uint32_t>(sign ? (mask + 1) - code : code);  // two's complement magnitude
    return o;
  }
  const uint64_t man_all = (uint64_t{1} << f.man_bits) - 1;
  const uint64_t man = (code >> f.man_shift) & man_all;
  const int eb = static_cast<int>((code >> (f.man_shift + f.man_bits)) & ((1u << f.exp_bits) - 1));
  const int top = (1 << f.exp_bits) - 1;
  if (f.specials == kSpecialsIeee && eb == top) {
    o.special = man ? 2 : 1;
    return o;
  }
  if ((f.specials == kSpecialsNanAllOnes || f.specials == kSpecialsNanMaxCode) && eb == top && man == man_all) {
    o.special = 2;
    return o;
  }
  if (eb == 0 && f.has_subnormals) {
    if (man == 0) return o;
    o.sig = static_cast<uint32_t>(man);
    o.low = static_cast<int16_t>(f.emin - f.man_bits);
  } else {
    o.sig = static_cast<uint32_t>(man | (uint64_t{1} << f.man_bits));
    o.low = static_cast<int16_t>(eb - f.bias - f.man_bits);
  }
  o.E = static_cast<int16_t>(o.low + f.man_bits);
  return o;
}

// The same value as an f16 operand: its alignment exponent E read with f16's emin (-14).
TCEMU_DP_STEP Operand widened_to_f16(Operand o) {
  if (o.special || o.sig == 0) return o;
  o.E = static_cast<int16_t>(imax(o.low + bit_width(o.sig) - 1, -14));
  return o;
}

// ---- the parameters as plain data --------------------------------------------------------------

// DatapathParams (datapath.hpp), field for field (step_params() in dp_host.hpp).
struct StepParams {
  DatapathKind kind = DatapathKind::t_fdpa;
  int L = 16, F = 25, e_zero = -133;
  OutputRounding rounding = OutputRounding::rz_f32;
  CEntry c_entry = CEntry::fused;
  int group = 16;
  bool satfinite = false, widen_to_f16 = false, kpair_halves = false, positive_zero = false;
};

constexpr int kNoExponent = -2147483647 - 1;  // INT_MIN: below every term exponent
constexpr int kNoUnit = 2147483647;           // INT_MAX: no nonzero product seen

// ---- special results (docs/datapath.md §1) ------------------------------------------------------

// The result of a step that saw a NaN or Inf: SpecialScan over its n terms (term i takes the
// scales sa[i / scale_div], sb[i / scale_div], when sa is not null) and C.
TCEMU_DP_STEP uint64_t special_result(OutputRounding r, const Operand* a, const Operand* b, int n, const Operand& c,
                                      const Operand* sa, const Operand* sb, int scale_div) {
  SpecialScan s;
  for (int i = 0; i < n; ++i) {
    const Operand* f[4] = {&a[i], &b[i], sa ? &sa[i / scale_div] : nullptr, sb ? &sb[i / scale_div] : nullptr};
    scan_term(s, f, 4);
  }
  scan_acc(s, c);
  return special_code(s, output_layout(r));
}

// ---- T-FDPA and ST-FDPA --------------------------------------------------------------------

// One step of n <= L terms (docs/datapath.md): (1) specials, and the largest term exponent
// emax; (2) every term truncated at 2^q, q = emax - F, summed exactly; (3) rho and the -0 rule;
// (4) C added after when it is not fused. With Scaled, sa[i] and sb[i] scale term i; srun >= 1
// says that they are the same over each run of srun terms from the step's first (the scale
// block's terms), so that each run reads and combines its scale pair once (the CUDA kernels;
// 1 reads every term's).
template <bool Scaled>
TCEMU_DP_STEP uint64_t fdpa_step(const StepParams& p, const Operand* a, const Operand* b, int n, uint64_t c,
                                 const Operand* sa, const Operand* sb, int srun = 1) {
  const Operand oc = decode_acc(output_layout(p.rounding), c);
  const int run = Scaled ? srun : n;  // without scales, one run
  // (1) Product exponents are E(a)+E(b) (+E(sa)+E(sb)), not renormalised; a zero product
  // gets e_zero; missing terms (n < L) are zero products.
  unsigned sp = oc.special;
  int emax = n < p.L ? p.e_zero : kNoExponent;
  for (int i0 = 0; i0 < n; i0 += run) {
    int se = 0;
    bool szero = false;
    if constexpr (Scaled) {
      sp |= sa[i0].special | sb[i0].special;
      se = sa[i0].E + sb[i0].E;
      szero = (sa[i0].sig == 0) | (sb[i0].sig == 0);
    }
    const int i1 = imin(n, i0 + run);
    for (int i = i0; i < i1; ++i) {
      sp |= a[i].special | b[i].special;
      const bool zero = (a[i].sig == 0) | (b[i].sig == 0) | szero;
      emax = imax(emax, zero ? p.e_zero : a[i].E + b[i].E + se);
    }
  }
  if (sp) return special_result(p.rounding, a, b, n, oc, Scaled ? sa : nullptr, Scaled ? sb : nullptr, 1);
  const bool c_fused = p.c_entry != CEntry::rne_f32_after;
  if (c_fused) emax = imax(emax, oc.sig ? static_cast<int>(oc.E) : p.e_zero);
  const int q = emax - p.F;
  // (2) Each term truncated toward zero at 2^q, summed exactly.
  int64_t S = 0;
  for (int i0 = 0; i0 < n; i0 += run) {
    uint64_t smag = 1;
    int slow = 0;
    unsigned sneg = 0;
    if constexpr (Scaled) {
      smag = uint64_t{sa[i0].sig} * sb[i0].sig;
      slow = sa[i0].low + sb[i0].low;
      sneg = sa[i0].neg ^ sb[i0].neg;
    }
    const int i1 = imin(n, i0 + run);
    for (int i = i0; i < i1; ++i) {
      uint64_t mag = uint64_t{a[i].sig} * b[i].sig;
      if constexpr (Scaled) mag *= smag;
      S += aligned_term(mag, a[i].low + b[i].low + slow, a[i].neg ^ b[i].neg ^ sneg, q);
    }
  }
  if (c_fused) S += aligned_term(oc.sig, oc.low, oc.neg, q);
  // (3) rho and the -0 rule; (4) C added after.
  const uint64_t d = round_sum(p.rounding, p.positive_zero, S, q);
  if (c_fused) return d;
  return add_rne_f32(static_cast<uint32_t>(d), static_cast<uint32_t>(c));
}

// ---- GST-FDPA ----------------------------------------------------------------------------

// One step of n <= L terms in groups of p.group; sa[g], sb[g] scale group g. Exact group sums
// in the unit of the step's smallest product weight, then each group scaled, aligned to
// 2^q and truncated as a T-FDPA term. Preconditions: validate()'s GST range checks.
// Two passes over the terms and no per-group arrays (a GPU thread would keep them in local
// memory): the first finds the specials, the unit and each group's exponent (a group's
// exponent needs only whether it has a nonzero product, not its sum), the second sums each
// group and adds it at once.
TCEMU_DP_STEP uint64_t gst_step(const StepParams& p, const Operand* a, const Operand* b, int n, uint64_t c,
                                const Operand* sa, const Operand* sb) {
  const Operand oc = decode_acc(output_layout(p.rounding), c);
  const int G = p.group;
  const int ngroups = (n + G - 1) / G;
  // Pass 1: specials, the smallest product weight of the step, and the largest group exponent.
  unsigned sp = oc.special;
  int unit = kNoUnit;
  const int full_groups = p.L / G;
  int emax = ngroups < full_groups ? p.e_zero : kNoExponent;  // padded groups are all zero
  for (int g = 0; g < ngroups; ++g) {
    const int lo = g * G, hi = imin(n, lo + G);
    sp |= sa[g].special | sb[g].special;
    bool any = false;  // a nonzero product in the group
    for (int i = lo; i < hi; ++i) {
      sp |= a[i].special | b[i].special;
      const bool nonzero = (a[i].sig != 0) & (b[i].sig != 0);
      any |= nonzero;
      unit = imin(unit, nonzero ? a[i].low + b[i].low : kNoUnit);
    }
    // A group that cancels to 0 keeps its exponent; only all-zero products or a zero scale
    // product take e_zero [MS].
    const bool scale_zero = sa[g].sig == 0 || sb[g].sig == 0;
    emax = imax(emax, (!any || scale_zero) ? p.e_zero : sa[g].E + sb[g].E);
  }
  if (sp) return special_result(p.rounding, a, b, n, oc, sa, sb, G);
  if (unit == kNoUnit) unit = 0;
  emax = imax(emax, oc.sig ? static_cast<int>(oc.E) : p.e_zero);
  const int q = emax - p.F;
  // Pass 2: each group's exact sum, scaled, aligned to 2^q and truncated.
  int64_t S = 0;
  for (int g = 0; g < ngroups; ++g) {
    const int lo = g * G, hi = imin(n, lo + G);
    int64_t s = 0;
    for (int i = lo; i < hi; ++i) {
      const uint64_t mag = uint64_t{a[i].sig} * b[i].sig;  // 0 for a zero product
      const int sh = iclamp(a[i].low + b[i].low - unit, 0, 63);
      s += apply_sign(mag << sh, a[i].neg ^ b[i].neg);
    }
    if (s == 0) continue;
    const unsigned neg = (s < 0) ^ (sa[g].neg != sb[g].neg);
    const uint64_t mag = magnitude(s) * (uint64_t{sa[g].sig} * sb[g].sig);
    S += apply_sign(shift_trunc(mag, unit + sa[g].low + sb[g].low - q), neg);
  }
  S += apply_sign(shift_trunc(oc.sig, oc.low - q), oc.neg);
  return round_sum(p.rounding, p.positive_zero, S, q);
}

// ---- integer -------------------------------------------------------------------------------

// The exact sum of a[i]*b[i] plus c (an int32 code), wrapped or clamped to int32.
TCEMU_DP_STEP uint64_t int_step(const StepParams& p, const Operand* a, const Operand* b, int n, uint64_t c) {
  int64_t S = static_cast<int32_t>(static_cast<uint32_t>(c));
  for (int i = 0; i < n; ++i) {
    const int64_t t = static_cast<int64_t>(a[i].sig) * static_cast<int64_t>(b[i].sig);
    S += (a[i].neg ^ b[i].neg) ? -t : t;
  }
  return int32_result(S, p.satfinite);
}

// ---- one D element: the steps chained over K ---------------------------------------------------

// How the steps of one D element chain (mma.cpp builds it from the problem and MmaOptions):
// the step length L (a whole instruction whose K is below p.L: its missing terms are zero
// products), the instruction's K, FP32 promotion every `promote` k (0 = off), the
// accumulator format, C added after the instruction, and the options on C.
struct ChainParams {
  int64_t K = 0, promote = 0;
  int L = 0, per_instr = 0;
  bool acc_f16 = false, is_int = false, after_instr = false;
  bool scale_d = true;
  int scale_input_d = -1;
  int srun = 1;  // ST-FDPA: fdpa_step's srun (a divisor of L and of the scale block; 1 always holds)
};

// tcgen05 scale-input-d: C * 2^-s formed exactly, then toward zero into the accumulator format.
TCEMU_DP_STEP uint64_t scale_c(uint64_t c, bool acc_f16, int s) {
  const FloatLayout f = acc_f16 ? f16_layout() : f32_layout();
  const Operand o = decode_acc(f, c);
  if (o.special || o.sig == 0 || s <= 0) return c;
  return round_out(f, o.neg != 0, o.sig, o.low - s, false, false);
}

// The accumulator a D element starts from: C (or +0 without scale-d), scaled by scale-input-d.
TCEMU_DP_STEP uint64_t start_c(const ChainParams& ch, uint64_t c) {
  if (!ch.scale_d) c = 0;
  if (ch.scale_input_d >= 0 && !ch.is_int) c = scale_c(c, ch.acc_f16, ch.scale_input_d);
  return c;
}

// The running state of one D element's chain.
struct ChainState {
  uint64_t accum = 0;  // f32 promotion accumulator (promote > 0)
  uint64_t d = 0;      // the tensor-core accumulator
  uint64_t chain = 0;  // C added after the instruction: the chain of its steps
};

TCEMU_DP_STEP ChainState chain_begin(const ChainParams& ch, uint64_t c) {
  ChainState s;
  s.accum = c;
  s.d = ch.promote ? 0 : c;
  return s;
}

// Whether FP32 promotion happens after the step that ends at k_end (k of the next step).
TCEMU_DP_HD bool promotes_at(const ChainParams& ch, int64_t k_end) { return ch.promote && k_end % ch.promote == 0; }

// FP32 promotion: the tensor-core accumulator added to the f32 accumulator, then cleared.
TCEMU_DP_STEP void promote(ChainState& s) {
  s.accum = add_rne_f32(static_cast<uint32_t>(s.accum), static_cast<uint32_t>(s.d));
  s.d = 0;
}

// After the step that ends at k_end, with the step's result in s.d: FP32 promotion where it is
// due. Every executor of the chain ends its steps with this (chain_step; the fast kernels of
// mma_fast_kernels.hpp and mma_fast_avx512.hpp compute the step their own way, then call it).
TCEMU_DP_STEP void chain_promote(const ChainParams& ch, ChainState& s, int64_t k_end) {
  if (promotes_at(ch, k_end)) promote(s);
}

// The step of `len` terms at k: a, b its operands (in step order); sa, sb its scales: per term
// for ST-FDPA (sa[i] scales term i), per group for GST-FDPA (sa[g]), unused otherwise.
// KindT: -1 reads the kind from p; a DatapathKind value (equal to p.kind) lets a compiler
// drop the other kinds' steps (the CUDA kernels are instantiated per kind).
template <int KindT = -1>
TCEMU_DP_STEP void chain_step(const StepParams& p, const ChainParams& ch, ChainState& s, int64_t k, int len,
                              const Operand* a, const Operand* b, const Operand* sa, const Operand* sb) {
  const DatapathKind kind = KindT < 0 ? p.kind : static_cast<DatapathKind>(KindT);
  if ((KindT < 0 || kind == DatapathKind::t_fdpa) && ch.after_instr) {
    // The instruction's steps chain from +0; its result is added to D after its last step.
    s.chain = fdpa_step<false>(p, a, b, len, k % ch.per_instr == 0 ? 0 : s.chain, nullptr, nullptr);
    if ((k + len) % ch.per_instr == 0)
      s.d = ch.acc_f16 ? add_rne_f16(s.d, s.chain) : add_rne_f32(static_cast<uint32_t>(s.d), static_cast<uint32_t>(s.chain));
  } else {
    switch (kind) {
      case DatapathKind::t_fdpa: s.d = fdpa_step<false>(p, a, b, len, s.d, nullptr, nullptr); break;
      case DatapathKind::st_fdpa: s.d = fdpa_step<true>(p, a, b, len, s.d, sa, sb, ch.srun); break;
      case DatapathKind::gst_fdpa: s.d = gst_step(p, a, b, len, s.d, sa, sb); break;
      case DatapathKind::integer: s.d = int_step(p, a, b, len, s.d); break;
    }
  }
  chain_promote(ch, s, k + len);
}

TCEMU_DP_STEP uint64_t chain_end(const ChainParams& ch, const ChainState& s) {
  if (!ch.promote) return s.d;
  if (ch.K % ch.promote == 0) return s.accum;
  return add_rne_f32(static_cast<uint32_t>(s.accum), static_cast<uint32_t>(s.d));
}

// Scales per term (ST-FDPA, 1) or per group (GST-FDPA, p.group): the unit of the expanded
// scale arrays; 0 for the unscaled kinds.
TCEMU_DP_HD int scale_unit(const StepParams& p) {
  return p.kind == DatapathKind::st_fdpa ? 1 : (p.kind == DatapathKind::gst_fdpa ? p.group : 0);
}

// D element from its row of A and column of B (K decoded operands each, in step order) and
// their expanded scales (K / scale_unit each; null when unscaled), starting from c = start_c().
TCEMU_DP_STEP uint64_t chain_element(const StepParams& p, const ChainParams& ch, const Operand* a, const Operand* b,
                                     const Operand* sa, const Operand* sb, uint64_t c) {
  ChainState s = chain_begin(ch, c);
  const int unit = scale_unit(p);
  for (int64_t k = 0; k < ch.K; k += ch.L) {
    const int len = static_cast<int>(ch.K - k < ch.L ? ch.K - k : ch.L);
    const Operand* ssa = unit ? sa + k / unit : nullptr;
    const Operand* ssb = unit ? sb + k / unit : nullptr;
    chain_step(p, ch, s, k, len, a + k, b + k, ssa, ssb);
  }
  return chain_end(ch, s);
}

}  // namespace tcemu::dp
