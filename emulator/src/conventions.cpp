// Named conventions: option presets, and the combinations each allows
// (docs/conversions.md, "Conventions"; evidence in docs/sources.md).
#include <array>
#include <string>

#include "tcemu/convert.hpp"

namespace tcemu {
namespace {

constexpr std::array<Convention, 12> kConventions = {{
    {"generic", "the options as given; PTX-compatible defaults (canonical NaN, NaN -> +MAX without NaN)",
     "docs/conversions.md"},
    {"ptx", "only combinations that exist as a PTX cvt instruction, with their semantics",
     "PTX ISA 9.7.9.21"},
    {"cuda-host", "NVIDIA host functions: FP8 rn SAT/NOSAT (NaN -> 0x7f), FP6/FP4 rn/rz always saturating, "
                  "ue8m0 rz/ru",
     "CUDA 13.0 cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp, cuda_fp16.hpp, cuda_bf16.hpp"},
    {"cutlass-host", "CUTLASS 4.2 host types, scalar path: saturating FP8/FP6/FP4/ue4m3, f64 through float, "
                     "ue8m0 rounds up and saturates finite values",
     "CUTLASS 4.2.0 (nvidia-cutlass) include/cutlass/float8.h, float_subbyte.h, exmy_base.h"},
    {"ml-dtypes", "ml_dtypes 0.7.0 casts: rn, quiet NaN with its sign, NaN -> FP6/FP4 -0 for +NaN, "
                  "ue8m0 ties up, 0 and negatives -> NaN",
     "ml_dtypes 0.7.0 (run in CI); include/float8.h ConvertImpl"},
    {"ml-dtypes-0.6", "ml_dtypes 0.5.4 to 0.6.0 NumPy casts: as ml-dtypes, but f64 through f32 and "
                      "(2^-127, 1.5*2^-127) -> ue8m0 0x01",
     "ml_dtypes v0.6.0 ml_dtypes/include/float8.h, ml_dtypes/_src/custom_float.h NPyCast"},
    {"ocp-ovf", "OCP MX v1.0 non-saturating conversion: overflow to Inf (e5m2) or NaN (e4m3), rn",
     "OCP Microscaling Formats v1.0, 5.3"},
    {"ocp-sat", "OCP MX v1.0 saturating conversion: overflow to +-MAX, rn", "OCP Microscaling Formats v1.0, 5.3"},
    {"llvm-apfloat", "LLVM APFloat: IEEE modes, non-saturating; NaN -> e2m1 and negative -> ue8m0 undefined",
     "llvm/lib/Support/APFloat.cpp"},
    {"gfloat", "gfloat 0.5.2 round_float/encode_float: NaN is the all-ones code, overflow/NaN into FP6/FP4 "
               "undefined, rs is its Stochastic (fraction rounded to rs_bits, ties to even)",
     "gfloat 0.5.2 src/gfloat/round.py, encode.py"},
    {"gfloat-sr-odd", "gfloat with rs as its StochasticOdd (fraction rounded to rs_bits, ties to odd)",
     "gfloat 0.5.2 src/gfloat/round.py"},
    {"gfloat-sr-fastest", "gfloat with rs as its StochasticFastest (fraction truncated to rs_bits, as PTX)",
     "gfloat 0.5.2 src/gfloat/round.py"},
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

bool ml_float(Fmt f) { return f == Fmt::bf16 || narrow(f) || f == Fmt::ue8m0; }  // ml_dtypes' own types

// ml_dtypes NumPy casts (`np.asarray(x, src).astype(dst)`), evidence in docs/conversions.md.
Resolved resolve_ml_dtypes(std::string_view name, Fmt from, Fmt to, const OptionRequest& req) {
  const bool v06 = name == "ml-dtypes-0.6";
  const std::string pair = std::string(info(from).name) + " -> " + std::string(info(to).name);
  const bool ieee = from == Fmt::f64 || from == Fmt::f32 || from == Fmt::f16;
  if (!(ml_float(from) || ieee) || !(ml_float(to) || to == Fmt::f64 || to == Fmt::f32 || to == Fmt::f16))
    return fail(name, "ml_dtypes has no cast " + pair);
  if (!ml_float(from) && !ml_float(to)) return fail(name, pair + " is NumPy's cast, not ml_dtypes'");
  if (v06 && ((from == Fmt::ue8m0 && narrow(to)) || (to == Fmt::ue8m0 && narrow(from))))
    return fail(name, "ml_dtypes 0.6 registers no cast " + pair);
  if (req.relu.value_or(false) || req.ftz.value_or(false)) return fail(name, "ml_dtypes casts have no relu or ftz");
  ConvertOptions o;
  o.round = req.round.value_or(Round::rn);
  if (o.round != Round::rn) return fail(name, "ml_dtypes casts round to nearest even only");
  // RoundBitsToNearestEven with no fraction bits looks at the implicit bit: ue8m0 ties go up.
  if (to == Fmt::ue8m0) o.round = Round::rna;
  o.satfinite = req.satfinite.value_or(false);  // ConvertFrom<kSaturate=true> (C++ only)
  o.inf_satfinite = false;                      // Inf is returned before kSaturate is looked at
  o.nan_out = NanOut::quiet;                    // quiet_NaN() with the sign
  if (from == Fmt::bf16 && to == Fmt::f32) o.nan_out = NanOut::payload_raw;  // Eigen bfloat16 -> float: bits moved
  if (from == Fmt::bf16 && to == Fmt::f64) o.nan_out = NanOut::payload;      // ... then the C cast to double
  o.nan_to_finite = NanToFinite::flipped_zero;
  o.neg_to_unsigned = NegToUnsigned::nan_unless_satfinite;
  o.zero_to_no_zero = ZeroToNoZero::nan_unless_satfinite;
  if (v06) {
    o.f64_via_f32 = true;  // NPyCast: static_cast<To>(static_cast<float>(from))
    o.tiny_no_subnormal = TinyNoSubnormal::zero_code;
  }
  return {o, {}};
}

Resolved resolve_gfloat(std::string_view name, Fmt from, Fmt to, const OptionRequest& req) {
  const bool known = [](Fmt f) {
    return f == Fmt::f64 || f == Fmt::f32 || f == Fmt::f16 || f == Fmt::bf16 || narrow(f) || f == Fmt::ue8m0;
  }(to);
  if (!known || to == Fmt::f64) return fail(name, "tcemu models gfloat's rounding into f32, f16, bf16, FP8, FP6, FP4 and ue8m0, not " +
                                                      std::string(info(to).name));
  if (info(from).is_int || from == Fmt::tf32 || from == Fmt::ue4m3)
    return fail(name, "gfloat takes float values (f64, f32, f16, bf16, FP8, FP6, FP4, ue8m0), not " + std::string(info(from).name));
  if (req.relu.value_or(false) || req.ftz.value_or(false)) return fail(name, "gfloat's round_float has no relu or ftz");
  ConvertOptions o;
  o.round = req.round.value_or(Round::rn);
  o.satfinite = req.satfinite.value_or(false);
  o.nan_out = NanOut::all_ones;                 // FormatInfo.code_of_nan
  o.nan_to_finite = NanToFinite::undefined;     // round_float: "No NaN in format"
  o.overflow_undefined = true;                  // "No Infs or NaNs in format ..., and sat=False"
  o.rs_overflow_to_max = false;                 // only rz/rd/ru put amax at an overflow
  o.rs_fraction = name == "gfloat-sr-odd" ? RsFraction::round_odd
                  : name == "gfloat-sr-fastest" ? RsFraction::truncate : RsFraction::round_even;
  o.neg_to_unsigned = NegToUnsigned::nan_except_inf;  // sign = signbit(v) and fi.is_signed
  o.zero_to_no_zero = ZeroToNoZero::nan;
  o.tiny_no_subnormal = TinyNoSubnormal::nan;
  return {o, {}};
}

Resolved resolve_cutlass(std::string_view name, Fmt from, Fmt to, const OptionRequest& req) {
  if (!(fp8(to) || fp6_fp4(to) || to == Fmt::ue8m0 || to == Fmt::ue4m3 || to == Fmt::f32))
    return fail(name, "tcemu models CUTLASS's host conversions into FP8, FP6, FP4, ue8m0, ue4m3 and float only");
  if (to == Fmt::f32 && !(fp8(from) || fp6_fp4(from) || from == Fmt::ue8m0 || from == Fmt::ue4m3))
    return fail(name, "no CUTLASS narrow-format conversion " + std::string(info(from).name) + " -> f32");
  if (to != Fmt::f32 && !(from == Fmt::f64 || from == Fmt::f32 || from == Fmt::f16 || from == Fmt::bf16))
    return fail(name, "CUTLASS's host types convert from double, float, half_t and bfloat16_t");
  if (req.relu.value_or(false) || req.ftz.value_or(false)) return fail(name, "CUTLASS's host types have no relu or ftz");
  ConvertOptions o;
  o.round = req.round.value_or(to == Fmt::ue8m0 ? Round::ru : Round::rn);
  if (to == Fmt::ue8m0 && o.round != Round::ru)
    return fail(name, "float_ue8m0_t's host conversion rounds up (ru) only; rz exists only as the device cvt");
  if (to != Fmt::ue8m0 && o.round != Round::rn) return fail(name, "CUTLASS host types round to nearest even");
  if (req.satfinite.has_value() && !*req.satfinite && to != Fmt::ue8m0 && to != Fmt::f32)
    return fail(name, "CUTLASS's host FP8/FP6/FP4/ue4m3 conversions always saturate");
  o.satfinite = to != Fmt::ue8m0 && to != Fmt::f32;
  if (to == Fmt::ue8m0) o.finite_overflow_to_max = true;
  o.f64_via_f32 = true;  // T(float(x))
  // A NaN keeps its sign from float (exmy_base.h) but not through half_t, whose NaN reaches
  // the narrow type positive: scalar and packed host converters alike (measured, 4.2.0).
  o.nan_to_finite = from != Fmt::f16 ? NanToFinite::signed_max : NanToFinite::plus_max;
  return {o, {}};
}

Resolved resolve_library(std::string_view name, Fmt to, const OptionRequest& req) {
  ConvertOptions o;
  o.round = req.round.value_or(Round::rn);
  o.relu = req.relu.value_or(false);
  o.ftz = req.ftz.value_or(false);
  o.satfinite = req.satfinite.value_or(false);
  (void)to;
  if (name == "ocp-ovf" || name == "ocp-sat") {
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
  if (convention.starts_with("ml-dtypes")) return resolve_ml_dtypes(convention, from, to, req);
  if (convention.starts_with("gfloat")) return resolve_gfloat(convention, from, to, req);
  if (convention == "cutlass-host") return resolve_cutlass(convention, from, to, req);
  return resolve_library(convention, to, req);
}

}  // namespace tcemu
