// Internal, host only: the plain parameter structs of dp_steps.hpp / dp_matrix.hpp built from
// the library's types (FormatInfo, DatapathParams, MmaOptions), and the problem decoded on the
// host. Used by mma.cpp's generic loop, datapath.cpp and the CUDA backend's host side.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "dp_matrix.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/format.hpp"
#include "tcemu/mma.hpp"

namespace tcemu::dp {

static_assert(static_cast<uint8_t>(Specials::ieee) == kSpecialsIeee &&
              static_cast<uint8_t>(Specials::nan_all_ones) == kSpecialsNanAllOnes &&
              static_cast<uint8_t>(Specials::nan_max_code) == kSpecialsNanMaxCode &&
              static_cast<uint8_t>(Specials::none) == kSpecialsNone);

constexpr FormatRow make_format_row(const FormatInfo& fi) {
  FormatRow r;
  r.width = fi.width;
  r.exp_bits = fi.exp_bits;
  r.man_bits = fi.man_bits;
  r.man_shift = fi.man_shift;
  r.specials = static_cast<uint8_t>(fi.specials);
  r.is_int = fi.is_int;
  r.is_signed = fi.is_signed;
  r.has_subnormals = fi.has_subnormals;
  r.bias = fi.bias;
  r.emin = static_cast<int16_t>(fi.emin());
  return r;
}

inline constexpr auto kFormatRows = [] {
  std::array<FormatRow, kNumFormats> t{};
  for (int i = 0; i < kNumFormats; ++i) t[static_cast<size_t>(i)] = make_format_row(kFormats[static_cast<size_t>(i)]);
  return t;
}();

constexpr const FormatRow& format_row(Fmt f) { return kFormatRows[static_cast<size_t>(f)]; }

// Every field of DatapathParams is named: adding one fails to compile here until StepParams
// carries it.
inline StepParams step_params(const DatapathParams& p) {
  const auto& [kind, L, F, e_zero, rounding, c_entry, group, satfinite, widen_to_f16, kpair_halves, positive_zero] = p;
  StepParams s;
  s.kind = kind;
  s.L = L;
  s.F = F;
  s.e_zero = e_zero;
  s.rounding = rounding;
  s.c_entry = c_entry;
  s.group = group;
  s.satfinite = satfinite;
  s.widen_to_f16 = widen_to_f16;
  s.kpair_halves = kpair_halves;
  s.positive_zero = positive_zero;
  return s;
}

// How one D element's steps chain for a validated problem (mma_params' checks passed).
inline ChainParams chain_params(const DatapathParams& p, int K, int instr_k, const MmaOptions& opt) {
  ChainParams ch;
  ch.K = K;
  ch.L = p.L < instr_k ? p.L : instr_k;
  ch.per_instr = instr_k;
  ch.is_int = p.kind == DatapathKind::integer;
  ch.acc_f16 = !ch.is_int && output_format(p.rounding) == Fmt::f16;
  ch.after_instr = p.c_entry == CEntry::rne_after_instruction;
  ch.promote = opt.promote_every > 0 ? int64_t{opt.promote_every} * instr_k : 0;
  ch.scale_d = opt.scale_d;
  ch.scale_input_d = opt.scale_input_d;
  return ch;
}

// The k order within an instruction (instruction_k_order), or empty for plain k order.
inline std::vector<int32_t> korder_table(const DatapathParams& p, int instr_k) {
  std::vector<int32_t> t;
  if (!p.kpair_halves) return t;
  for (size_t k : instruction_k_order(p, static_cast<size_t>(instr_k))) t.push_back(static_cast<int32_t>(k));
  return t;
}

// Decoding parameters of a validated problem; `korder` from korder_table (kept alive by the
// caller; on the GPU a device copy of it).
inline DecodeParams decode_params(const DatapathParams& p, int M, int N, int K, Fmt atype, Fmt btype,
                                  std::optional<Fmt> scale_type, int scale_block, int instr_k, const MmaOptions& opt,
                                  const int32_t* korder) {
  DecodeParams d;
  d.fa = format_row(atype);
  d.fb = format_row(btype);
  if (scale_type) d.fs = format_row(*scale_type);
  d.widen = p.widen_to_f16;
  d.negate_a = opt.negate_a;
  d.negate_b = opt.negate_b;
  d.M = M;
  d.N = N;
  d.K = K;
  d.unit = scale_unit(step_params(p));
  if (d.unit) {
    d.blk = scale_block;
    d.nb = K / scale_block;
    d.sper = K / d.unit;
  }
  d.korder = korder;
  d.per_instr = instr_k;
  return d;
}

// A problem decoded on the host into the step order (dp_matrix.hpp's layout).
struct HostDecoded {
  std::vector<Operand> A, Bt, SA, SB;
};

inline HostDecoded decode_on_host(const DecodeParams& d, const MmaProblem& pr) {
  HostDecoded h;
  h.A.resize(static_cast<size_t>(d.M * d.K));
  h.Bt.resize(static_cast<size_t>(d.N * d.K));
  const Codes A{pr.A.data(), 8}, B{pr.B.data(), 8};
  for (int64_t i = 0; i < d.M * d.K; ++i) h.A[static_cast<size_t>(i)] = decode_a(d, A, i);
  for (int64_t i = 0; i < d.N * d.K; ++i) h.Bt[static_cast<size_t>(i)] = decode_bt(d, B, i);
  if (d.unit) {
    h.SA.resize(static_cast<size_t>(d.M * d.sper));
    h.SB.resize(static_cast<size_t>(d.N * d.sper));
    const Codes sa{pr.sa.data(), 8}, sb{pr.sb.data(), 8};
    for (int64_t i = 0; i < d.M * d.sper; ++i) h.SA[static_cast<size_t>(i)] = decode_scale(d, sa, i);
    for (int64_t i = 0; i < d.N * d.sper; ++i) h.SB[static_cast<size_t>(i)] = decode_scale(d, sb, i);
  }
  return h;
}

}  // namespace tcemu::dp
