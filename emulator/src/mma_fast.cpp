// The fast whole-matrix path (see mma_fast.hpp), its dispatch: which problems it takes, and
// the per-problem context the kernels (mma_fast_fdpa.cpp, mma_fast_gst.cpp) run on. The kernels
// compute the same arithmetic as mma_params' generic loop (dp_steps.hpp's fdpa_step / gst_step
// on each D element, chained by its chain_begin / chain_promote / chain_end), reorganised so
// that a compiler vectorises it:
//  - operands are decoded once into separate arrays (structure of arrays): alignment exponent
//    E and signed integer significand; B is stored in blocks of kNB columns, each [k][kNB] and
//    contiguous (bpos), so that one A value meets a run of consecutive columns n, each vector
//    lane is one D element, and a pass over k reads consecutive memory;
//  - T-FDPA / ST-FDPA: for every finite nonzero operand the weight of the significand's lowest
//    bit is E - man_bits, so a term's shift to 2^q is (F - man_a - man_b) - (emax - e_i): the
//    constant part is folded into A's significands (into the right shift when negative) and
//    the rest is a right shift, truncating the magnitude toward zero as the model does. The
//    lanes are int32 when L terms of the largest possible magnitude fit, else int64. A zero or
//    special operand gets a very low E and significand 0: its term adds 0 and never sets emax. Whether a step holds a zero
//    product (which contributes e_zero to emax) is a per-row / per-column flag, because a
//    product is zero exactly when one of its operands is. ST-FDPA folds each term's scales
//    into its operands (the products, exponents and signs multiply and add the same way);
//  - GST-FDPA: each operand becomes the integer value / 2^(smallest lowest-bit weight of its
//    format), so a group's exact sum is a plain integer dot product; the group terms, C and
//    the rounding are per D element, as in dp::gst_step;
//  - a step whose row or column holds a NaN or Inf (operand or scale), or whose C is NaN or
//    Inf, is recomputed by the generic step function on decoded operands, so every special
//    rule stays the generic path's.
// The kernels are built for AVX-512, AVX2 and the baseline (mma_fast_kernels.hpp); the AVX-512
// build of the common cases is written with intrinsics (mma_fast_avx512.hpp).
// Everything it does not handle is declined (nullopt), and the generic loop runs.
#include "mma_fast.hpp"

#include <algorithm>
#include <atomic>

#include "mma_fast_kernels.hpp"

namespace tcemu::detail {

namespace {

// The test hook of mma_fast.hpp (process-wide; see docs/architecture.md).
std::atomic<bool> g_disabled{false};  // disable_fast_path

// ---- which problems this path takes ------------------------------------------------------

// Every field of DatapathParams, MmaOptions and MmaProblem is named by the structured bindings
// below: adding a field makes this function fail to compile until the field is reviewed here
// (taken, because the kernels compute it as the generic loop does, or declined).
bool accepts(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  [[maybe_unused]] const auto& [kind, L_, F, e_zero, rounding, c_entry, group, satfinite, widen_to_f16, kpair_halves,
                                positive_zero] = p;
  [[maybe_unused]] const auto& [promote_every, negate_a, negate_b, scale_d, scale_input_d] = opt;
  [[maybe_unused]] const auto& [M, N, K, atype, btype, A, B, C, scale_type, scale_block, sa, sb, instr_, options_,
                                device_operands] = pr;
  // DatapathParams.
  if (kind != DatapathKind::t_fdpa && kind != DatapathKind::st_fdpa && kind != DatapathKind::gst_fdpa) return false;
  if (L_ < 1 || L_ > 256 || F < 1 || F > 48) return false;
  if (e_zero < -4000 || e_zero > 4000) return false;
  switch (rounding) {  // every rounding: the kernels end each step with dp::round_sum
    case OutputRounding::rz_f32:
    case OutputRounding::rne_f16:
    case OutputRounding::rz_e8m13:
    case OutputRounding::rne_f32:
    case OutputRounding::rz_f16: break;
    default: return false;
  }
  const bool f32_out = output_format(rounding) == Fmt::f32;
  if (c_entry != CEntry::fused && c_entry != CEntry::rne_f32_after) return false;
  if (c_entry == CEntry::rne_f32_after && (kind == DatapathKind::gst_fdpa || !f32_out)) return false;
  if (group < 1 || group > 256) return false;  // read by gst_fdpa only
  if (satfinite || widen_to_f16 || kpair_halves) return false;
  // positive_zero: handled, dp::round_sum applies the -0 rule before C is added after.
  // MmaOptions. negate_a / negate_b (operand signs), scale_d and scale_input_d (start_c):
  // handled as the generic loop does.
  if (promote_every < 0) return false;
  if (promote_every > 0 && !f32_out) return false;
  if (scale_input_d < -1 || scale_input_d > 15) return false;
  // MmaProblem (already validated by mma(); A, B, C, M, N are read by the kernels; its instr
  // and options are p, instr_k and opt, which mma() passes; device_operands is null on the CPU).
  if (device_operands) return false;
  const size_t L = std::min(static_cast<size_t>(L_), static_cast<size_t>(instr_k));
  if (static_cast<size_t>(K) % L != 0) return false;
  const bool scaled = kind != DatapathKind::t_fdpa;
  if (scaled != scale_type.has_value()) return false;
  if (scaled && *scale_type != Fmt::ue8m0 && *scale_type != Fmt::ue4m3) return false;
  if (scaled && scale_block < 1) return false;
  if (kind == DatapathKind::gst_fdpa && (L % static_cast<size_t>(group) != 0 || L / static_cast<size_t>(group) > 64))
    return false;
  for (Fmt f : {atype, btype})
    if (info(f).is_int || info(f).man_bits > 10 || f == Fmt::f64 || f == Fmt::f32 || f == Fmt::ue8m0 || f == Fmt::ue4m3)
      return false;
  return true;
}

}  // namespace

namespace fast {

ConvertIsa kernel_isa() {
#ifdef TCEMU_FAST_X86
  return convert_isa();
#else
  return ConvertIsa::baseline;
#endif
}

Decoder::Decoder(Fmt f, bool neg) : f_(f), neg_(neg) {
  const FormatInfo& fi = info(f);
  if (fi.width > 8) return;
  mask_ = fi.code_mask();
  table_.resize(static_cast<size_t>(mask_) + 1);
  for (uint64_t c = 0; c <= mask_; ++c) table_[c] = negated(decoded(f, c), neg);
}

uint64_t Fallback::step(size_t m, size_t n, size_t s, uint64_t c) {
  const Ctx& cx = cx_;
  const size_t k = s * cx.L, L = cx.L;
  if (m != am_ || s != as_) {
    for (size_t i = 0; i < L; ++i) a_[i] = negated(decoded(cx.pr.atype, cx.pr.A[m * cx.K + k + i]), cx.opt.negate_a);
    am_ = m;
    as_ = s;
  }
  for (size_t i = 0; i < L; ++i) b_[i] = negated(decoded(cx.pr.btype, cx.pr.B[(k + i) * cx.N + n]), cx.opt.negate_b);
  const DatapathParams& p = cx.p;
  const int len = static_cast<int>(L);
  if (p.kind == DatapathKind::t_fdpa) return dp::fdpa_step<false>(cx.sp, a_.data(), b_.data(), len, c, nullptr, nullptr);
  const size_t blk = static_cast<size_t>(cx.pr.scale_block);
  const Fmt st = *cx.pr.scale_type;
  if (p.kind == DatapathKind::st_fdpa) {
    for (size_t i = 0; i < L; ++i) {
      sa_[i] = decoded(st, cx.pr.sa[m * cx.nb + (k + i) / blk]);
      sb_[i] = decoded(st, cx.pr.sb[n * cx.nb + (k + i) / blk]);
    }
    return dp::fdpa_step<true>(cx.sp, a_.data(), b_.data(), len, c, sa_.data(), sb_.data());
  }
  const size_t G = static_cast<size_t>(p.group), g0 = k / G;
  for (size_t g = 0; g < L / G; ++g) {
    sa_[g] = decoded(st, cx.pr.sa[m * cx.nb + (g0 + g) * G / blk]);
    sb_[g] = decoded(st, cx.pr.sb[n * cx.nb + (g0 + g) * G / blk]);
  }
  return dp::gst_step(cx.sp, a_.data(), b_.data(), len, c, sa_.data(), sb_.data());
}

}  // namespace fast

void disable_fast_path(bool on) { g_disabled.store(on, std::memory_order_relaxed); }

std::unique_ptr<PreparedMma> prepare_fast(const DatapathParams& p, const MmaProblem& pr, int instr_k,
                                          const MmaOptions& opt, const Exec& exec) {
  if (g_disabled.load(std::memory_order_relaxed) || !accepts(p, pr, instr_k, opt)) return nullptr;
  const size_t M = static_cast<size_t>(pr.M), N = static_cast<size_t>(pr.N), K = static_cast<size_t>(pr.K);
  const size_t L = std::min(static_cast<size_t>(p.L), static_cast<size_t>(instr_k));
  const size_t nb = pr.scale_block > 0 ? K / static_cast<size_t>(pr.scale_block) : 0;
  const fast::Ctx cx{p,  pr, opt, M, N, K, L, K / L, (N + fast::kNB - 1) / fast::kNB * fast::kNB, nb,
                     dp::output_layout(p.rounding), p.c_entry == CEntry::fused, L < static_cast<size_t>(p.L),
                     dp::step_params(p), dp::chain_params(p, pr.K, instr_k, opt)};
  if (p.kind == DatapathKind::gst_fdpa) return fast::fast_gst(cx, exec);
  return fast::fast_fdpa(cx, exec);
}

std::optional<MmaResult> mma_fast(const DatapathParams& p, const MmaProblem& pr, int instr_k, const MmaOptions& opt) {
  const std::unique_ptr<PreparedMma> prep = prepare_fast(p, pr, instr_k, opt, Exec{1});
  if (!prep) return std::nullopt;
  MmaResult r;
  r.D = compute_all(*prep, static_cast<size_t>(pr.M), static_cast<size_t>(pr.N), d_code_width(p));
  return r;
}

}  // namespace tcemu::detail
