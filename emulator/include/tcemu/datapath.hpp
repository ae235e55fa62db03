// Tensor-core datapath models: how one MMA instruction adds its products.
//
// T-FDPA (truncated fused dot-product-add), ST-FDPA (one block scale per term) and GST-FDPA
// (exact groups of 16 products, then scaled, aligned and truncated), and the integer MMA.
// Every parameter is explicit; the instruction catalog (catalog.hpp) says which values each
// real instruction uses. The definitions and their sources are in
// docs/datapath.md ([MS] MMA-Sim, [KM] Khattak & Mikaitis; docs/sources.md), which also
// works an example through. The fast path is integer arithmetic on decoded operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/datapath_types.hpp"
#include "tcemu/format.hpp"

namespace tcemu {

std::string_view to_string(OutputRounding r);
std::optional<OutputRounding> parse_output_rounding(std::string_view s);
// The format of C and D for a rounding: f16 for rne_f16 and rz_f16, f32 for the others.
constexpr Fmt output_format(OutputRounding r) {
  return r == OutputRounding::rne_f16 || r == OutputRounding::rz_f16 ? Fmt::f16 : Fmt::f32;
}
std::string_view to_string(CEntry c);
std::string_view to_string(DatapathKind k);

struct DatapathParams {
  DatapathKind kind = DatapathKind::t_fdpa;
  int L = 16;        // terms per fused step; K > L chains steps in k order
  int F = 25;        // fraction bits kept below the largest term exponent
  int e_zero = -133; // exponent given to a zero product (or zero group, zero C)
  OutputRounding rounding = OutputRounding::rz_f32;
  CEntry c_entry = CEntry::fused;
  int group = 16;          // gst_fdpa: products per exactly-summed group
  bool satfinite = false;  // integer: clamp to the int32 range instead of wrapping
  // Operands widened (exactly) to f16 before the datapath sees them: alignment exponents are
  // those of the f16 values (differs for e4m3 subnormals). Hopper mma.sync FP8 (H200).
  bool widen_to_f16 = false;
  // The instruction's K products split by k-pairs into two halves, {k : floor(k/2) even} then
  // {k : floor(k/2) odd}, one step each (L = K/2). Hopper mma.sync FP8 (H200).
  bool kpair_halves = false;
  // A result that rounds to zero is +0, whatever the sign of the exact sum (H200: no f16 or
  // f32 result of any record is -0). False: the sign of the sum is kept (-0 possible).
  bool positive_zero = false;
  bool operator==(const DatapathParams&) const = default;
};
// One line: "T-FDPA L=16 F=25 e_zero=-133 rz_f32 C fused".
std::string describe(const DatapathParams& p);

// Checks the parameters and operand formats (F, L, group ranges; integer kinds take integer
// operands; the fast path's int64 sums cannot overflow). Returns an error message, or "".
std::string validate(const DatapathParams& p, Fmt a, Fmt b, std::optional<Fmt> scale = std::nullopt);

// Block scales: element k of A is scaled by a[k / block], of B by b[k / block] (the logical
// layout: one scale per `block` consecutive k of one row of A / column of B).
struct BlockScales {
  Fmt fmt = Fmt::ue8m0;  // ue8m0 or ue4m3 (its sign bit ignored)
  int block = 32;
  std::span<const uint64_t> a, b;
};

// ---- Code-level API (one dot product) -------------------------------------------------

// One fused step: n <= L terms a[i]*b[i] (codes of fa, fb) plus c, a code of the output
// format. Returns the code of D (f32 or f16; int32 two's complement for the integer kind).
// `scales` is required by st_fdpa and gst_fdpa and indexed from k = 0 of this step.
// Precondition: check_dot_args(p, fa, fb, a.size(), b.size(), scales, true) is empty (validate's
// checks, a and b of one length n <= L, enough scales); std::invalid_argument otherwise.
uint64_t fdpa_step(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a,
                   std::span<const uint64_t> b, uint64_t c, const BlockScales* scales = nullptr);

// A dot product of any length: d = c; for each L-chunk in k order, d = fdpa_step(chunk, d)
// (docs/datapath.md §1, "K larger than L"). A last partial chunk is padded with zero terms.
// With kpair_halves or C added after the instruction, the chunks are instructions of
// instruction_terms(p) terms: each one's steps (over instruction_k_order) chain from +0 (or
// from d), and C (the running d) is added after by add_rne.
// Precondition: check_dot_args(p, fa, fb, a.size(), b.size(), scales, false) is empty
// (validate's checks, a and b of one length, L a multiple of the scale block, enough scales);
// std::invalid_argument otherwise.
uint64_t fdpa_dot(const DatapathParams& p, Fmt fa, Fmt fb, std::span<const uint64_t> a,
                  std::span<const uint64_t> b, uint64_t c, const BlockScales* scales = nullptr);

// What fdpa_step (step true) or fdpa_dot (step false) would refuse in these arguments, or ""
// (datapath_checks.cpp): the check a caller with user data runs first.
std::string check_dot_args(const DatapathParams& p, Fmt fa, Fmt fb, size_t na, size_t nb, const BlockScales* scales,
                           bool step);

// The terms of one instruction for the forms defined per instruction: 2L with kpair_halves,
// else L; and the order in which its k enter the steps (k-pair halves: {k : floor(k/2)
// even}, then odd; otherwise 0, 1, 2, ...).
size_t instruction_terms(const DatapathParams& p);
std::vector<size_t> instruction_k_order(const DatapathParams& p, size_t instr_k);

// ---- Decoded operands ---------------------------------------------------------------

// Operand (datapath_types.hpp): an operand decoded once.
Operand decode_operand(Fmt f, uint64_t code);
// The same value as an f16 operand (its alignment exponent E read with f16's emin); for
// DatapathParams::widen_to_f16.
Operand widened_to_f16(Operand o);

// ---- Roundings shared by the models -----------------------------------------------------
// Library entry points to the primitives of emulator/src/dp_primitives.hpp (round_out,
// round_output, add_rne_f32, add_rne_f16), which the step functions and the fast kernels call
// directly.

// Rounds the exact value (-1)^neg * mag * 2^exp (plus a sticky "something below") to f32 or
// f16, toward zero or to nearest even. Overflow gives Inf in both modes (the tensor cores
// give Inf for a finite result beyond the range even under RZ, docs/datapath.md §1). mag == 0 with
// no sticky gives +0.
uint64_t round_to_float(bool neg, uint64_t mag, int exp, bool sticky, Fmt to, bool nearest_even);
// rho of docs/datapath.md §1 applied to an exact value.
uint64_t apply_output_rounding(OutputRounding r, bool neg, uint64_t mag, int exp);
// IEEE f32 addition rounding to nearest even (both inputs f32 codes).
uint32_t f32_add_rne(uint32_t x, uint32_t y);
// IEEE addition rounding to nearest even in f32 or f16 (NaN in: canonical NaN; Inf - Inf:
// NaN; an exact zero sum is +0 unless both are -0).
uint64_t add_rne(Fmt out, uint64_t x, uint64_t y);

}  // namespace tcemu
