// Named conventions: option presets, and the combinations each allows
// (docs/conversions.md, "Conventions"; evidence in docs/sources.md).
#include <array>
#include <string>

#include "tcemu/convert.hpp"

namespace tcemu {
namespace {

constexpr std::array<Convention, 9> kConventions = {{
    {"generic", "the options as given; PTX-compatible defaults (canonical NaN, NaN -> +MAX without NaN)",
     "docs/conversions.md"},
    {"ptx", "only combinations that exist as a PTX cvt instruction, with their semantics",
     "PTX ISA 9.7.9.21"},
    {"cuda-host", "NVIDIA host functions: FP8 rn SAT/NOSAT (NaN -> 0x7f), FP6/FP4 rn/rz always saturating, "
                  "ue8m0 rz/ru",
     "CUDA 13.0 cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp, cuda_fp16.hpp, cuda_bf16.hpp"},
    {"cutlass-host", "CUTLASS host types: always saturating FP8, e2m1 -NaN -> -6, ue8m0 rounds up, NaN/Inf -> 0xff",
     "CUTLASS float8.h, exmy_base.h, float_subbyte.h"},
    {"ml-dtypes", "ml_dtypes: non-saturating FP8 (rn), NaN keeps its sign, NaN -> e2m1 is -0, negative -> ue8m0 NaN",
     "ml_dtypes float8.h"},
    {"ocp-ovf", "OCP MX v1.0 non-saturating conversion: overflow to Inf (e5m2) or NaN (e4m3), rn",
     "OCP Microscaling Formats v1.0, 5.3"},
    {"ocp-sat", "OCP MX v1.0 saturating conversion: overflow to +-MAX, rn", "OCP Microscaling Formats v1.0, 5.3"},
    {"llvm-apfloat", "LLVM APFloat: IEEE modes, non-saturating; NaN -> e2m1 and negative -> ue8m0 undefined",
     "llvm/lib/Support/APFloat.cpp"},
    {"gfloat", "gfloat: rn, non-saturating, NaN is the all-ones code (465 -> e4m3 0xff); NaN -> e2m1 undefined",
     "graphcore-research/gfloat"},
}};

bool narrow(Fmt f) { return f == Fmt::e4m3 || f == Fmt::e5m2 || f == Fmt::e3m2 || f == Fmt::e2m3 || f == Fmt::e2m1; }
bool fp8(Fmt f) { return f == Fmt::e4m3 || f == Fmt::e5m2; }
bool fp6_fp4(Fmt f) { return f == Fmt::e3m2 || f == Fmt::e2m3 || f == Fmt::e2m1; }

std::string rname(Round r) { return std::string(to_string(r)); }

Resolved fail(std::string_view conv, const std::string& why) { return {std::nullopt, std::string(conv) + ": " + why}; }

// PTX cvt: which (from, to, options) exist (PTX ISA §9.7.9.21).
Resolved resolve_ptx(Fmt from, Fmt to, const OptionRequest& req) {
  ConvertOptions o;
  const std::string pair = std::string(info(from).name) + " -> " + std::string(info(to).name);
  if (narrow(to)) {
    o.round = req.round.value_or(Round::rn);
    o.satfinite = req.satfinite.value_or(true);
    if (!o.satfinite) return fail("ptx", "cvt to " + std::string(info(to).name) + " exists only with .satfinite");
    if (o.round != Round::rn && o.round != Round::rs)
      return fail("ptx", "cvt to " + std::string(info(to).name) + " exists only as .rn or .rs, not ." + rname(o.round));
    const bool src_ok = from == Fmt::f32 || (fp8(to) && (from == Fmt::f16 || from == Fmt::bf16));
    if (!src_ok) return fail("ptx", "no cvt converts " + pair);
    if (o.round == Round::rs && from != Fmt::f32) return fail("ptx", "cvt.rs takes only .f32 sources");
  } else if (to == Fmt::ue8m0) {
    o.round = req.round.value_or(Round::rz);
    o.satfinite = req.satfinite.value_or(false);
    if (o.round != Round::rz && o.round != Round::ru)
      return fail("ptx", "cvt to ue8m0 exists only as .rz or .rp, not ." + rname(o.round));
    if (from != Fmt::f32 && from != Fmt::bf16) return fail("ptx", "no cvt converts " + pair);
  } else if (to == Fmt::tf32) {
    if (from != Fmt::f32) return fail("ptx", "no cvt converts " + pair);
    o.round = req.round.value_or(Round::rna);
    o.satfinite = req.satfinite.value_or(false);
    if (o.round != Round::rna && o.round != Round::rn && o.round != Round::rz)
      return fail("ptx", "cvt to tf32 exists only as .rna, .rn or .rz, not ." + rname(o.round));
  } else if (to == Fmt::f16 || to == Fmt::bf16) {
    o.round = req.round.value_or(Round::rn);
    o.satfinite = req.satfinite.value_or(false);
    if ((from == Fmt::f16 || from == Fmt::bf16) && from != to) {
      // cvt.{rn,rz,rm,rp}.bf16.f16 and .f16.bf16 (assemble for sm_90a; measured on H200)
      if (o.round == Round::rna || o.round == Round::rs) return fail("ptx", "cvt " + pair + " has no ." + rname(o.round));
      if (o.satfinite) return fail("ptx", "cvt " + pair + " has no .satfinite");
    } else if (from == Fmt::f32 || from == Fmt::f64) {
      if (o.round == Round::rna) return fail("ptx", "cvt to " + std::string(info(to).name) + " has no .rna");
      if (o.round == Round::rs && from != Fmt::f32) return fail("ptx", "cvt.rs takes only .f32 sources");
    } else if (narrow(from) || from == Fmt::ue8m0) {
      // cvt.rn.f16x2.{e4m3x2,...} and cvt.rn.bf16x2.ue8m0x2: exact up-conversions.
      if ((to == Fmt::f16) != (from != Fmt::ue8m0)) return fail("ptx", "no cvt converts " + pair);
      if (o.round != Round::rn) return fail("ptx", "cvt " + pair + " exists only as .rn");
    } else if (info(from).is_int) {
      if (o.round == Round::rna || o.round == Round::rs) return fail("ptx", "cvt " + pair + " has no ." + rname(o.round));
    } else {
      return fail("ptx", "no cvt converts " + pair);
    }
  } else if (to == Fmt::f32 || to == Fmt::f64) {
    o.round = req.round.value_or(Round::rn);
    if (o.round == Round::rna || o.round == Round::rs) return fail("ptx", "cvt " + pair + " has no ." + rname(o.round));
    if (from == to) return fail("ptx", "cvt " + pair + " rounds to an integer value (not modelled)");
    if (!(from == Fmt::f32 || from == Fmt::f64 || from == Fmt::f16 || from == Fmt::bf16 || info(from).is_int))
      return fail("ptx", "no cvt converts " + pair);
    if (req.satfinite.value_or(false)) return fail("ptx", "cvt " + pair + " has no .satfinite");
  } else if (info(to).is_int) {
    o.round = req.round.value_or(Round::rn);
    if (o.round == Round::rna || o.round == Round::rs) return fail("ptx", "cvt to integers has no ." + rname(o.round));
    if (to == Fmt::s4 || to == Fmt::u4) return fail("ptx", "no cvt converts a float to " + std::string(info(to).name));
  } else {
    return fail("ptx", "no cvt converts " + pair);
  }
  o.relu = req.relu.value_or(false);
  const bool ftz = req.ftz.value_or(false);
  if (o.relu && !(narrow(to) || to == Fmt::f16 || to == Fmt::bf16 || to == Fmt::tf32))
    return fail("ptx", "cvt " + pair + " has no .relu");
  if (ftz && to != Fmt::f32 && from != Fmt::f32) return fail("ptx", ".ftz applies to .f32 operands only");
  // .ftz flushes f32 subnormals (inputs and results). Measured on H200: cvt.f32.f16 has none
  // to flush (f16 subnormals are f32 normals), and f32 -> f16 ignores it (cvt.rm.ftz.f16.f32
  // of -2^-149 gives -2^-24).
  o.ftz = ftz && from != Fmt::f16 && to != Fmt::f16;
  // NaN results, measured on H200 (golden/hw/h200/cvt_report.txt): conversions from f64 and
  // into f64 propagate the payload (IEEE); bf16 -> f32 is a bit move; the ftz forms
  // canonicalise through f32; everything else gives the canonical NaN.
  if (from == Fmt::f64 || (to == Fmt::f64 && !ftz)) o.nan_out = NanOut::payload;
  else if (to == Fmt::f64) o.nan_out = NanOut::canonical_f32_payload;
  else if (from == Fmt::bf16 && to == Fmt::f32 && !ftz) o.nan_out = NanOut::payload_raw;
  else if (to == Fmt::tf32 && o.round == Round::rna) o.nan_out = NanOut::payload_raw;
  return {o, {}};
}

Resolved resolve_cuda_host(Fmt from, Fmt to, const OptionRequest& req) {
  ConvertOptions o;
  if (req.relu.value_or(false) || req.ftz.value_or(false))
    return fail("cuda-host", "NVIDIA's host conversions have no relu or ftz");
  if (fp8(to)) {
    o.round = req.round.value_or(Round::rn);
    if (o.round != Round::rn) return fail("cuda-host", "__nv_cvt_*_to_fp8 rounds only to nearest even (rn)");
    o.satfinite = req.satfinite.value_or(false);  // __NV_NOSAT unless asked
  } else if (fp6_fp4(to)) {
    o.round = req.round.value_or(Round::rn);
    if (o.round != Round::rn && o.round != Round::rz)
      return fail("cuda-host", "__nv_cvt_*_to_fp6/fp4 take cudaRoundNearest or cudaRoundZero only");
    o.satfinite = true;  // always saturating; NaN -> +MAX
  } else if (to == Fmt::ue8m0) {
    o.round = req.round.value_or(Round::rz);
    if (o.round != Round::rz && o.round != Round::ru)
      return fail("cuda-host", "__nv_cvt_*_to_e8m0 takes cudaRoundZero or cudaRoundPosInf only");
    o.satfinite = req.satfinite.value_or(false);
  } else if (to == Fmt::f16 || to == Fmt::bf16) {
    o.round = req.round.value_or(Round::rn);
    if (o.round == Round::rna || o.round == Round::rs)
      return fail("cuda-host", "host f16/bf16 conversions take rn, rz, rd, ru only");
    o.satfinite = req.satfinite.value_or(false);
  } else if (to == Fmt::f32 || to == Fmt::f64) {
    if (!(fp8(from) || fp6_fp4(from) || from == Fmt::f16 || from == Fmt::bf16 || from == Fmt::ue8m0 ||
          from == Fmt::f32))
      return fail("cuda-host", "no host conversion from " + std::string(info(from).name));
    o.round = req.round.value_or(Round::rn);
  } else {
    return fail("cuda-host", "no host conversion to " + std::string(info(to).name));
  }
  return {o, {}};
}

Resolved resolve_library(std::string_view name, Fmt to, const OptionRequest& req) {
  ConvertOptions o;
  o.round = req.round.value_or(Round::rn);
  o.relu = req.relu.value_or(false);
  o.ftz = req.ftz.value_or(false);
  o.satfinite = req.satfinite.value_or(false);
  if (name == "cutlass-host") {
    if (fp8(to) || fp6_fp4(to)) o.satfinite = true;  // NumericConverter's float_e4m3_t clamps
    if (to == Fmt::ue8m0) o.round = req.round.value_or(Round::ru);
    o.nan_to_finite = NanToFinite::signed_max;
    if (o.round != Round::rn && !(to == Fmt::ue8m0 && (o.round == Round::ru || o.round == Round::rz)))
      return fail(name, "CUTLASS host types round to nearest even (ue8m0: up or toward zero)");
  } else if (name == "ml-dtypes") {
    if (o.round != Round::rn) return fail(name, "ml_dtypes casts round to nearest even only");
    o.nan_out = NanOut::keep_sign;
    o.nan_to_finite = NanToFinite::neg_zero;
    o.neg_to_unsigned = NegToUnsigned::nan;
  } else if (name == "ocp-ovf" || name == "ocp-sat") {
    if (o.round != Round::rn) return fail(name, "OCP MX conversions round to nearest even");
    if (req.satfinite.has_value() && *req.satfinite != (name == "ocp-sat"))
      return fail(name, name == "ocp-sat" ? "is saturating by definition" : "is non-saturating by definition");
    o.satfinite = name == "ocp-sat";
    o.nan_out = NanOut::keep_sign;
  } else if (name == "llvm-apfloat") {
    if (o.round == Round::rs) return fail(name, "APFloat has no stochastic rounding");
    if (o.satfinite) return fail(name, "APFloat's convert does not saturate");
    o.nan_out = NanOut::keep_sign;
    o.nan_to_finite = NanToFinite::undefined;
    o.neg_to_unsigned = NegToUnsigned::undefined;
  } else if (name == "gfloat") {
    if (o.round != Round::rn && o.round != Round::rz && o.round != Round::rs)
      return fail(name, "gfloat rounding: rn, rz or rs here");
    o.nan_out = NanOut::all_ones;
    o.nan_to_finite = NanToFinite::undefined;
    o.neg_to_unsigned = NegToUnsigned::nan;
  }
  return {o, {}};
}

}  // namespace

std::span<const Convention> conventions() { return kConventions; }

const Convention* find_convention(std::string_view name) {
  for (const Convention& c : kConventions)
    if (c.name == name) return &c;
  return nullptr;
}

Resolved resolve(std::string_view convention, Fmt from, Fmt to, const OptionRequest& req) {
  if (convention.empty() || convention == "generic") {
    ConvertOptions o;
    o.round = req.round.value_or(Round::rn);
    o.satfinite = req.satfinite.value_or(false);
    o.relu = req.relu.value_or(false);
    o.ftz = req.ftz.value_or(false);
    return {o, {}};
  }
  if (!find_convention(convention)) return {std::nullopt, "unknown convention '" + std::string(convention) + "'"};
  if (convention == "ptx") return resolve_ptx(from, to, req);
  if (convention == "cuda-host") return resolve_cuda_host(from, to, req);
  return resolve_library(convention, to, req);
}

}  // namespace tcemu
