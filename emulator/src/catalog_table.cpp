// The instruction catalog as one table: a row per instruction family and architecture, with
// its spelling pattern, type sets, datapath parameters (docs/datapath.md §3), evidence,
// confidence and note. Shapes and operand types: PTX ISA §9.7.14-9.7.16 [PTX]. An audit of
// the evidence reads this file; expand_rows() (catalog_expand.cpp) turns it into catalog().
//
// Row: {arch, family, spelling, types, outs, shapes, [fp6 rule], [scale], [types in
// descriptor], [n_outer]}; an out: {accumulator, parameters, evidence, confidence, note}.
// The rows are in catalog order; the expansion of a row is types x outs x shapes.
#include <initializer_list>

#include "catalog_rows.hpp"

namespace tcemu::catalog_detail {
namespace {

using OR = OutputRounding;
using C = Confidence;
using F = Fmt;
using A = AccType;

// ---- Datapath parameters ------------------------------------------------------------------

DatapathParams fdpa(int L, int Fbits, int ez, OR r, CEntry ce = CEntry::fused) {
  DatapathParams p;
  p.kind = DatapathKind::t_fdpa;
  p.L = L;
  p.F = Fbits;
  p.e_zero = ez;
  p.rounding = r;
  p.c_entry = ce;
  return p;
}

// Hopper results that round to zero are +0 (H200: no -0 in any record, docs/hw-h200.md).
DatapathParams pz(DatapathParams p) {
  p.positive_zero = true;
  return p;
}

// Hopper mma.sync FP8 as measured on H200 (docs/hw-h200.md): operands widened to f16, the
// instruction's products in two k-pair halves of L = K/2 (16 for k32, 8 for k16), each one
// step of the f16 datapath (F = 25; f32: RZ, e_zero -133; f16: RNE, e_zero -22) chained from
// +0, then C added by one RNE add in the output format.
DatapathParams fp8_via_f16(OR r, bool positive_zero, int L) {
  DatapathParams p = fdpa(L, 25, r == OR::rne_f16 ? -22 : -133, r, CEntry::rne_after_instruction);
  p.widen_to_f16 = true;
  p.kpair_halves = true;
  p.positive_zero = positive_zero;
  return p;
}

// Exact int32 sums; L is the instruction's K (set by the expansion).
DatapathParams integer(bool sat) {
  DatapathParams p;
  p.kind = DatapathKind::integer;
  p.satfinite = sat;
  return p;
}

DatapathParams st_fdpa() {
  DatapathParams p = fdpa(32, 25, -133, OR::rz_f32);
  p.kind = DatapathKind::st_fdpa;
  return p;
}

DatapathParams gst_fdpa() {
  DatapathParams p = fdpa(64, 35, -139, OR::rz_f32);
  p.kind = DatapathKind::gst_fdpa;
  p.group = 16;
  return p;
}

// ---- Type sets and shapes -----------------------------------------------------------------

std::vector<TypePair> pairs(std::initializer_list<Fmt> as, std::initializer_list<Fmt> bs) {
  std::vector<TypePair> v;
  for (Fmt a : as)
    for (Fmt b : bs) v.push_back({a, b});
  return v;
}
std::vector<TypePair> same(std::initializer_list<Fmt> xs) {  // A and B of one type
  std::vector<TypePair> v;
  for (Fmt x : xs) v.push_back({x, x});
  return v;
}
const std::initializer_list<Fmt> kF8F6F4 = {F::e4m3, F::e5m2, F::e3m2, F::e2m3, F::e2m1};
const std::initializer_list<Fmt> kFp8 = {F::e4m3, F::e5m2};
const std::initializer_list<Fmt> kI8 = {F::s8, F::u8};
const std::initializer_list<Fmt> kI4 = {F::s4, F::u4};

const std::vector<Shape> kWmma16 = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};  // wmma m16n16k16, m32n8k16, m8n32k16

// wgmma m64nNkK: N = 8, 16, ..., 256; the integer kinds only N = 8, 16, 24, 32, 48, ..., 256.
std::vector<Shape> wgmma_n(int K, bool integer_n) {
  std::vector<Shape> v;
  for (int n = 8; n <= 256; n += 8)
    if (!integer_n || n <= 24 || n % 16 == 0) v.push_back({64, n, K});
  return v;
}

// ---- Evidence -----------------------------------------------------------------------------

const std::string kKBelowL = "K below L: the missing terms are zero products (e_zero)";
const std::string kTf32Note = "operands read as bits & 0xFFFFE000 (PTX: tf32 truncates the low 13 bits)";
const std::string kEv70 = "[MS] [KM] [F21] [FT]; hw-vectors V100 fp16 -> fp32 and -> fp16 reproduced 2500/2500",
                  kNote70 = "f16-output e_zero: -20 (fits hw-vectors) vs [KM] -19";
const std::string kEv80 = "[MS] [KM] [FT]; hw-vectors A100 fp16/bf16/tf32 reproduced 2500/2500",
                  kEv89 = "[MS] [KM]; hw-vectors Ada fp16/bf16/tf32 reproduced 2500/2500",
                  kNote80 = "f16-output e_zero: -21 [MS] (fits hw-vectors) vs -20 [KM]";
const std::string kEv90 =
    "[MS] [KM]; hw-vectors H100 fp16/bf16/tf32 reproduced 2500/2500; H200 records of mma.sync m16n8k16/k8 "
    "f16/bf16, k8/k4 tf32 reproduced bit for bit (golden/hw/h200)",
                  kNote90 = "f16-output e_zero: -22 [MS] vs -21 [KM]; the data cannot tell. Results that round to zero are +0 (H200)";
const std::string kEv100 = "[MS]; hw-vectors B200 fp16/bf16/tf32 (wmma) reproduced 2500/2500",
                  kNote100 = "f16-output e_zero -22 fits hw-vectors; [MS] gives -133 for tcgen05";
const std::string kEv120 = "[MS] (RTX Blackwell)";
const std::string kEvInt = "[PTX]: exact int32 sums, wrap or .satfinite clamp (integer arithmetic is exact by definition)",
                  kEvIntH200 = kEvInt + "; H200 records reproduced bit for bit (golden/hw/h200)";
const std::string kEvFp8Sm89 = "[MS] [KM]; hw-vectors Ada E4M3/E5M2 -> fp32 and -> fp16 reproduced 2500/2500",
                  kNoteFp8Sm89 = "K = 32 is two chained 16-term steps";
const std::string kEvFp8Sm90 =
    "measured on H200 (golden/hw/h200, docs/hw-h200.md): two f16 steps over k-pair halves from +0, then C by an RNE "
    "add; also reproduces hw-vectors H100 E4M3/E5M2 -> fp16 2500/2500",
                  kNoteFp8Sm90F32 =
                      "hw-vectors H100 FP8 -> fp32 (C = 0) rows fit the wgmma model instead (another lowering upstream; open)",
                  kNoteFp8Sm90F16 = "f16-output e_zero -22 assumed from sm_90 f16 (the records cannot tell)",
                  kNoteNotRecorded = "not recorded on the H200: extrapolated from the recorded FP8 mma.sync instructions";
const std::string kEvFp8Sm100 =
    "the Hopper lowering measured on H200 (docs/hw-h200.md) reproduces hw-vectors B200 E4M3/E5M2 -> fp32 and -> fp16 "
    "2500/2500 each",
                  kNoteFp8Sm100F32 = "the L = 32 'C added after' fit matches the fp32 rows too; the fp16 rows need the k-pair halves",
                  kNoteFp8Sm100F16 = "f16-output e_zero -22 assumed (the rows cannot tell); -0 results: not measured";
const std::string kNoteK16 = "k16 unmeasured: extrapolated from the measured k32 instruction";
const std::string kEvFp8Sm120 = "extrapolated from sm_120a kind::f8f6f4 [MS]",
                  kNoteFp8Sm120 = "sm_120 mma.sync FP8 unmeasured: assumed to be kind::f8f6f4's datapath";
const std::string kH200 = " H200 records of wgmma m64n8 (scale-d 1 and 0) reproduced bit for bit (golden/hw/h200)";
const std::string kEvWgmma16 =
    "[MS]; H200 records of wgmma m64n8k16 (scale-d 1 and 0) reproduced bit for bit (golden/hw/h200; N does not enter "
    "the per-element datapath)";
const std::string kEvWgmmaFp8F32 = "[MS] [KM] [DS]; hw-vectors H100 E4M3/E5M2 -> fp32 (C = 0) 2500/2500;" + kH200 +
                                   " (C enters the fused sum)",
                  kNoteWgmmaFp8F16 =
                      "e_zero: records fit every value <= -19, -133 [MS] kept. hw-vectors H100 FP8 -> fp16 rows come "
                      "from mma.sync (reproduced by that entry), not wgmma";
const std::string kEvStFdpa = "[MS] (ST-FDPA)", kEvGstFdpa = "[MS] (GST-FDPA)",
                  kNoteGst = "F = 35 from [MS]; other probes say at least 25 and 34-37 (open question)";
const Fp6Rule kFp6Elements{C::extrapolated, "FP6 elements unmeasured: extrapolated"};

// ---- Per-architecture float parameters ----------------------------------------------------

const DatapathParams kF32Sm70 = fdpa(4, 23, -131, OR::rz_f32), kF16Sm70 = fdpa(4, 23, -20, OR::rne_f16);
const DatapathParams kF32Sm80 = fdpa(8, 24, -132, OR::rz_f32), kF16Sm80 = fdpa(8, 24, -21, OR::rne_f16),
                     kTf32Sm80 = fdpa(4, 24, -132, OR::rz_f32);
const DatapathParams kF32Sm90 = pz(fdpa(16, 25, -133, OR::rz_f32)), kF16Sm90 = pz(fdpa(16, 25, -22, OR::rne_f16)),
                     kTf32Sm90 = pz(fdpa(8, 25, -133, OR::rz_f32));
const DatapathParams kF32Sm100 = fdpa(16, 25, -133, OR::rz_f32), kF16Sm100 = fdpa(16, 25, -22, OR::rne_f16),
                     kTf32Sm100 = fdpa(8, 25, -133, OR::rz_f32);

const std::string kMma = "mma.sync.aligned.m{M}n{N}k{K}.row.col.{d}.{a}.{b}.{d}",
                  kMmaInt = "mma.sync.aligned.m{M}n{N}k{K}.row.col{sat}.{d}.{a}.{b}.{d}",
                  kWmmaF16 = "wmma.mma.sync.aligned.row.col.m{M}n{N}k{K}.{d}.{d}",
                  kWmma = "wmma.mma.sync.aligned.row.col.m{M}n{N}k{K}.{d}.{a}.{b}.{d}",
                  kWmmaInt = "wmma.mma.sync.aligned.row.col.m{M}n{N}k{K}.{d}.{a}.{b}.{d}{sat}",
                  kWgmma = "wgmma.mma_async.sync.aligned.m{M}n{N}k{K}{sat}.{d}.{a}.{b}",
                  kTc1 = "tcgen05.mma.cta_group::1.kind::", kTc2 = "tcgen05.mma.cta_group::2.kind::",
                  kMmaKind = "mma.sync.aligned.m{M}n{N}k{K}.row.col.kind::";
const std::vector<Shape> kK8K16 = {{16, 8, 8}, {16, 8, 16}}, kK8 = {{16, 8, 8}}, kK16 = {{16, 8, 16}},
                         kK32 = {{16, 8, 32}};

const C M = C::measured, P = C::published, X = C::extrapolated;
const std::string kTcF16Ev = "[MS]; sm_100 wmma hw-vectors B200 fit",
                  kTcF16Note = "scale-input-d: D = A*B + D*2^-s (mma.hpp option)";
const Fp6Rule kTcFp6{X, "FP6 inside f8f6f4 unmeasured: extrapolated from e4m3/e2m1"};
const std::string kH200F16 = "[MS];" + kH200 + " with +0 results";

// The table, in sections (each a function of rows; catalog order is the order below).
// clang-format off
// mma.sync / wmma floats (the mma.sync k8 of sm_90 onwards has K below L)
std::vector<CatalogRow> float_rows() {
  return {
  {"sm_70", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm70, kEv70, M, kNote70}}, {{8, 8, 4}}},
  {"sm_70", "wmma f16", kWmmaF16, same({F::f16}), {{A::f32, kF32Sm70, kEv70, M, kNote70}}, kWmma16},
  {"sm_70", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm70, kEv70, M, kNote70}}, {{8, 8, 4}}},
  {"sm_70", "wmma f16", kWmmaF16, same({F::f16}), {{A::f16, kF16Sm70, kEv70, M, kNote70}}, kWmma16},

  {"sm_80", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm80, kEv80, M, kNote80}}, kK8K16},
  {"sm_80", "wmma f16", kWmmaF16, same({F::f16}), {{A::f32, kF32Sm80, kEv80, M, kNote80}}, kWmma16},
  {"sm_80", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm80, kEv80, M, kNote80}}, kK8K16},
  {"sm_80", "wmma f16", kWmmaF16, same({F::f16}), {{A::f16, kF16Sm80, kEv80, M, kNote80}}, kWmma16},
  {"sm_80", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm80, kEv80, M, kNote80}}, kK8K16},
  {"sm_80", "mma.sync tf32", kMma, same({F::tf32}), {{A::f32, kTf32Sm80, kEv80, M, kTf32Note}}, {{16, 8, 4}, {16, 8, 8}}},
  {"sm_80", "wmma bf16", kWmma, same({F::bf16}), {{A::f32, kF32Sm80, kEv80, M, kNote80}}, kWmma16},
  {"sm_80", "wmma tf32", kWmma, same({F::tf32}), {{A::f32, kTf32Sm80, kEv80, M, ""}}, {{16, 16, 8}}},

  {"sm_89", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm80, kEv89, M, kNote80}}, kK8K16},
  {"sm_89", "wmma f16", kWmmaF16, same({F::f16}), {{A::f32, kF32Sm80, kEv89, M, kNote80}}, kWmma16},
  {"sm_89", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm80, kEv89, M, kNote80}}, kK8K16},
  {"sm_89", "wmma f16", kWmmaF16, same({F::f16}), {{A::f16, kF16Sm80, kEv89, M, kNote80}}, kWmma16},
  {"sm_89", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm80, kEv89, M, kNote80}}, kK8K16},
  {"sm_89", "mma.sync tf32", kMma, same({F::tf32}), {{A::f32, kTf32Sm80, kEv89, M, kTf32Note}}, {{16, 8, 4}, {16, 8, 8}}},
  {"sm_89", "wmma bf16", kWmma, same({F::bf16}), {{A::f32, kF32Sm80, kEv89, M, kNote80}}, kWmma16},
  {"sm_89", "wmma tf32", kWmma, same({F::tf32}), {{A::f32, kTf32Sm80, kEv89, M, ""}}, {{16, 16, 8}}},

  {"sm_90", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm90, kEv90, M, kKBelowL}}, kK8},
  {"sm_90", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm90, kEv90, M, kNote90}}, kK16},
  {"sm_90", "wmma f16", kWmmaF16, same({F::f16}), {{A::f32, kF32Sm90, kEv90, M, kNote90}}, kWmma16},
  {"sm_90", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm90, kEv90, M, kKBelowL}}, kK8},
  {"sm_90", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm90, kEv90, M, kNote90}}, kK16},
  {"sm_90", "wmma f16", kWmmaF16, same({F::f16}), {{A::f16, kF16Sm90, kEv90, M, kNote90}}, kWmma16},
  {"sm_90", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm90, kEv90, M, kKBelowL}}, kK8},
  {"sm_90", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm90, kEv90, M, kNote90}}, kK16},
  {"sm_90", "mma.sync tf32", kMma, same({F::tf32}), {{A::f32, kTf32Sm90, kEv90, M, kTf32Note}}, {{16, 8, 4}, {16, 8, 8}}},
  {"sm_90", "wmma bf16", kWmma, same({F::bf16}), {{A::f32, kF32Sm90, kEv90, M, kNote90}}, kWmma16},
  {"sm_90", "wmma tf32", kWmma, same({F::tf32}), {{A::f32, kTf32Sm90, kEv90, M, ""}}, {{16, 16, 8}}},

  {"sm_100", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm100, kEv100, X, kKBelowL}}, kK8},
  {"sm_100", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm100, kEv100, M, kNote100}}, kK16},
  {"sm_100", "wmma f16", kWmmaF16, same({F::f16}), {{A::f32, kF32Sm100, kEv100, M, kNote100}}, kWmma16},
  {"sm_100", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm100, kEv100, X, kKBelowL}}, kK8},
  {"sm_100", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm100, kEv100, M, kNote100}}, kK16},
  {"sm_100", "wmma f16", kWmmaF16, same({F::f16}), {{A::f16, kF16Sm100, kEv100, M, kNote100}}, kWmma16},
  {"sm_100", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm100, kEv100, X, kKBelowL}}, kK8},
  {"sm_100", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm100, kEv100, M, kNote100}}, kK16},
  {"sm_100", "mma.sync tf32", kMma, same({F::tf32}), {{A::f32, kTf32Sm100, kEv100, M, kTf32Note}}, {{16, 8, 4}, {16, 8, 8}}},
  {"sm_100", "wmma bf16", kWmma, same({F::bf16}), {{A::f32, kF32Sm100, kEv100, M, kNote100}}, kWmma16},
  {"sm_100", "wmma tf32", kWmma, same({F::tf32}), {{A::f32, kTf32Sm100, kEv100, M, ""}}, {{16, 16, 8}}},

  {"sm_120", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm100, kEv120, P, kKBelowL}}, kK8},
  {"sm_120", "mma.sync f16", kMma, same({F::f16}), {{A::f32, kF32Sm100, kEv120, P, ""}}, kK16},
  {"sm_120", "wmma f16", kWmmaF16, same({F::f16}), {{A::f32, kF32Sm100, kEv120, P, ""}}, kWmma16},
  {"sm_120", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm100, kEv120, P, kKBelowL}}, kK8},
  {"sm_120", "mma.sync f16", kMma, same({F::f16}), {{A::f16, kF16Sm100, kEv120, P, ""}}, kK16},
  {"sm_120", "wmma f16", kWmmaF16, same({F::f16}), {{A::f16, kF16Sm100, kEv120, P, ""}}, kWmma16},
  {"sm_120", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm100, kEv120, X, kKBelowL}}, kK8},
  {"sm_120", "mma.sync bf16", kMma, same({F::bf16}), {{A::f32, kF32Sm100, kEv120, P, ""}}, kK16},
  {"sm_120", "mma.sync tf32", kMma, same({F::tf32}), {{A::f32, kTf32Sm100, kEv120, P, kTf32Note}}, {{16, 8, 4}, {16, 8, 8}}},
  {"sm_120", "wmma bf16", kWmma, same({F::bf16}), {{A::f32, kF32Sm100, kEv120, P, ""}}, kWmma16},
  {"sm_120", "wmma tf32", kWmma, same({F::tf32}), {{A::f32, kTf32Sm100, kEv120, P, ""}}, {{16, 16, 8}}},
  };
}

// mma.sync / wmma integers (wrap, then .satfinite)
std::vector<CatalogRow> integer_rows() {
  return {
  {"sm_80", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_80", "mma.sync s4/u4", kMmaInt, pairs(kI4, kI4), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 32}, {16, 8, 64}}},
  {"sm_80", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_80", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_80", "mma.sync s4/u4", kMmaInt, pairs(kI4, kI4), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 32}, {16, 8, 64}}},
  {"sm_80", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_89", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_89", "mma.sync s4/u4", kMmaInt, pairs(kI4, kI4), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 32}, {16, 8, 64}}},
  {"sm_89", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_89", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_89", "mma.sync s4/u4", kMmaInt, pairs(kI4, kI4), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 32}, {16, 8, 64}}},
  {"sm_89", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_90", "mma.sync s8/u8", kMmaInt, same({F::s8}), {{A::s32, integer(false), kEvIntH200, M, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_90", "mma.sync s8/u8", kMmaInt, {{F::s8, F::u8}, {F::u8, F::s8}, {F::u8, F::u8}}, {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_90", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_90", "mma.sync s8/u8", kMmaInt, same({F::s8}), {{A::s32, integer(true), kEvIntH200, M, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_90", "mma.sync s8/u8", kMmaInt, {{F::s8, F::u8}, {F::u8, F::s8}, {F::u8, F::u8}}, {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_90", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_100", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_100", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_100", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_100", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_120", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_120", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(false), kEvInt, P, ""}}, {{16, 16, 16}}},
  {"sm_120", "mma.sync s8/u8", kMmaInt, pairs(kI8, kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 8, 16}, {16, 8, 32}}},
  {"sm_120", "wmma s8/u8", kWmmaInt, same(kI8), {{A::s32, integer(true), kEvInt, P, ""}}, {{16, 16, 16}}},
  };
}

// mma.sync e4m3/e5m2, k32 then k16 (sm_90: measured where the H200 recorded it)
std::vector<CatalogRow> fp8_rows() {
  return {
  {"sm_89", "mma.sync e4m3/e5m2", kMma, pairs(kFp8, kFp8),
   {{A::f32, fdpa(16, 13, -132, OR::rz_e8m13), kEvFp8Sm89, M, kNoteFp8Sm89}, {A::f16, fdpa(16, 13, -21, OR::rne_f16), kEvFp8Sm89, M, kNoteFp8Sm89}}, kK32},
  {"sm_89", "mma.sync e4m3/e5m2", kMma, pairs(kFp8, kFp8),
   {{A::f32, fdpa(16, 13, -132, OR::rz_e8m13), kEvFp8Sm89, X, kNoteK16}, {A::f16, fdpa(16, 13, -21, OR::rne_f16), kEvFp8Sm89, X, kNoteK16}}, kK16},
  {"sm_90", "mma.sync e4m3/e5m2", kMma, same({F::e4m3}),
   {{A::f32, fp8_via_f16(OR::rz_f32, true, 16), kEvFp8Sm90, M, kNoteFp8Sm90F32}, {A::f16, fp8_via_f16(OR::rne_f16, true, 16), kEvFp8Sm90, M, kNoteFp8Sm90F16}}, kK32},
  {"sm_90", "mma.sync e4m3/e5m2", kMma, {{F::e4m3, F::e5m2}, {F::e5m2, F::e4m3}},
   {{A::f32, fp8_via_f16(OR::rz_f32, true, 16), kEvFp8Sm90, M, kNoteFp8Sm90F32}, {A::f16, fp8_via_f16(OR::rne_f16, true, 16), kEvFp8Sm90, X, kNoteNotRecorded}}, kK32},
  {"sm_90", "mma.sync e4m3/e5m2", kMma, same({F::e5m2}),
   {{A::f32, fp8_via_f16(OR::rz_f32, true, 16), kEvFp8Sm90, M, kNoteFp8Sm90F32}, {A::f16, fp8_via_f16(OR::rne_f16, true, 16), kEvFp8Sm90, M, kNoteFp8Sm90F16}}, kK32},
  {"sm_90", "mma.sync e4m3/e5m2", kMma, same({F::e4m3}),
   {{A::f32, fp8_via_f16(OR::rz_f32, true, 8), kEvFp8Sm90, M, kNoteFp8Sm90F32}, {A::f16, fp8_via_f16(OR::rne_f16, true, 8), kEvFp8Sm90, X, kNoteNotRecorded}}, kK16},
  {"sm_90", "mma.sync e4m3/e5m2", kMma, {{F::e4m3, F::e5m2}, {F::e5m2, F::e4m3}, {F::e5m2, F::e5m2}},
   {{A::f32, fp8_via_f16(OR::rz_f32, true, 8), kEvFp8Sm90, X, kNoteNotRecorded}, {A::f16, fp8_via_f16(OR::rne_f16, true, 8), kEvFp8Sm90, X, kNoteNotRecorded}}, kK16},
  {"sm_100", "mma.sync e4m3/e5m2", kMma, pairs(kFp8, kFp8),
   {{A::f32, fp8_via_f16(OR::rz_f32, false, 16), kEvFp8Sm100, M, kNoteFp8Sm100F32}, {A::f16, fp8_via_f16(OR::rne_f16, false, 16), kEvFp8Sm100, M, kNoteFp8Sm100F16}}, kK32},
  {"sm_100", "mma.sync e4m3/e5m2", kMma, pairs(kFp8, kFp8),
   {{A::f32, fp8_via_f16(OR::rz_f32, false, 8), kEvFp8Sm100, X, kNoteK16}, {A::f16, fp8_via_f16(OR::rne_f16, false, 8), kEvFp8Sm100, X, kNoteK16}}, kK16},
  {"sm_120", "mma.sync e4m3/e5m2", kMma, pairs(kFp8, kFp8),
   {{A::f32, fdpa(32, 25, -133, OR::rz_f32), kEvFp8Sm120, X, kNoteFp8Sm120}, {A::f16, fdpa(32, 25, -22, OR::rne_f16), kEvFp8Sm120, X, kNoteFp8Sm120}}, kK32},
  {"sm_120", "mma.sync e4m3/e5m2", kMma, pairs(kFp8, kFp8),
   {{A::f32, fdpa(32, 25, -133, OR::rz_f32), kEvFp8Sm120, X, kNoteFp8Sm120}, {A::f16, fdpa(32, 25, -22, OR::rne_f16), kEvFp8Sm120, X, kNoteFp8Sm120}}, kK16},
  };
}

// wgmma (sm_90a), N by N
std::vector<CatalogRow> wgmma_rows() {
  return {
  {"sm_90a", "wgmma f16", kWgmma, same({F::f16}), {{A::f32, pz(fdpa(16, 25, -133, OR::rz_f32)), kEvWgmma16, M, ""}}, wgmma_n(16, false), {}, {}, false, true},
  {"sm_90a", "wgmma f16", kWgmma, same({F::f16}),
   {{A::f16, pz(fdpa(16, 25, -22, OR::rne_f16)), "[MS];" + kH200 + " with e_zero -22 and +0 results", M,
     "e_zero: the H200 tie probe gives e_zero >= -22 and every record fits -22 .. -15 ([MS] says -133, [KM] -21 for "
     "mma.sync); -22 as sm_90 mma.sync"}}, wgmma_n(16, false), {}, {}, false, true},
  {"sm_90a", "wgmma bf16", kWgmma, same({F::bf16}), {{A::f32, pz(fdpa(16, 25, -133, OR::rz_f32)), kEvWgmma16, M, ""}}, wgmma_n(16, false), {}, {}, false, true},
  {"sm_90a", "wgmma tf32", kWgmma, same({F::tf32}),
   {{A::f32, pz(fdpa(8, 25, -133, OR::rz_f32)), "[MS] [KM];" + kH200, M, "operands read as bits & 0xFFFFE000 (PTX)"}}, wgmma_n(8, false), {}, {}, false, true},
  {"sm_90a", "wgmma e4m3/e5m2", kWgmma, same({F::e4m3}),
   {{A::f32, pz(fdpa(32, 13, -133, OR::rz_e8m13)), kEvWgmmaFp8F32, M, ""}, {A::f16, pz(fdpa(32, 13, -133, OR::rne_f16)), kH200F16, M, kNoteWgmmaFp8F16}},
   wgmma_n(32, false), {}, {}, false, true},
  {"sm_90a", "wgmma e4m3/e5m2", kWgmma, {{F::e4m3, F::e5m2}, {F::e5m2, F::e4m3}},
   {{A::f32, pz(fdpa(32, 13, -133, OR::rz_e8m13)), kEvWgmmaFp8F32, M, ""},
    {A::f16, pz(fdpa(32, 13, -133, OR::rne_f16)), "[MS]; the H200 records of the same-type mixes", X, kNoteWgmmaFp8F16}},
   wgmma_n(32, false), {}, {}, false, true},
  {"sm_90a", "wgmma e4m3/e5m2", kWgmma, same({F::e5m2}),
   {{A::f32, pz(fdpa(32, 13, -133, OR::rz_e8m13)), kEvWgmmaFp8F32, M, ""}, {A::f16, pz(fdpa(32, 13, -133, OR::rne_f16)), kH200F16, M, kNoteWgmmaFp8F16}},
   wgmma_n(32, false), {}, {}, false, true},
  {"sm_90a", "wgmma s8/u8", kWgmma, same({F::s8}), {{A::s32, integer(false), "[PTX]: exact int32 sums;" + kH200, M, ""}}, wgmma_n(32, true), {}, {}, false, true},
  {"sm_90a", "wgmma s8/u8", kWgmma, {{F::s8, F::u8}, {F::u8, F::s8}, {F::u8, F::u8}},
   {{A::s32, integer(false), "[PTX]: exact int32 sums;" + kH200, P, ""}}, wgmma_n(32, true), {}, {}, false, true},
  {"sm_90a", "wgmma s8/u8", kWgmma, same({F::s8}), {{A::s32, integer(true), "[PTX]: exact int32 sums;" + kH200, M, ""}}, wgmma_n(32, true), {}, {}, false, true},
  {"sm_90a", "wgmma s8/u8", kWgmma, {{F::s8, F::u8}, {F::u8, F::s8}, {F::u8, F::u8}},
   {{A::s32, integer(true), "[PTX]: exact int32 sums;" + kH200, P, ""}}, wgmma_n(32, true), {}, {}, false, true},
  };
}

// tcgen05 (sm_100a), cta_group::1 then ::2; types are descriptor flags
std::vector<CatalogRow> tcgen05_rows() {
  return {
  {"sm_100a", "tcgen05 kind::f16", kTc1 + "f16", same({F::f16}),
   {{A::f32, fdpa(16, 25, -133, OR::rz_f32), kTcF16Ev, P, kTcF16Note}, {A::f16, fdpa(16, 25, -133, OR::rne_f16), "[MS]", P, "f16-output e_zero -133 [MS]; sm_100 wmma fits -22"}},
   {{128, 256, 16}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::f16", kTc1 + "f16", same({F::bf16}), {{A::f32, fdpa(16, 25, -133, OR::rz_f32), kTcF16Ev, P, kTcF16Note}}, {{128, 256, 16}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::tf32", kTc1 + "tf32", same({F::tf32}), {{A::f32, fdpa(8, 25, -133, OR::rz_f32), "[MS] [KM]", P, ""}}, {{128, 256, 8}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::f8f6f4", kTc1 + "f8f6f4", pairs(kF8F6F4, kF8F6F4),
   {{A::f32, fdpa(32, 25, -133, OR::rz_f32), "[MS] (e4m3, e5m2, e2m1)", P, ""}, {A::f16, fdpa(32, 25, -133, OR::rne_f16), "[MS] (e4m3, e5m2, e2m1)", P, ""}},
   {{128, 256, 32}}, kTcFp6, {}, true},
  {"sm_100a", "tcgen05 kind::i8", kTc1 + "i8", pairs(kI8, kI8), {{A::s32, integer(false), "[PTX]: exact int32 sums", P, ""}}, {{128, 256, 32}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::mxf8f6f4", kTc1 + "mxf8f6f4.block_scale.scale_vec::1X", pairs(kF8F6F4, kF8F6F4),
   {{A::f32, st_fdpa(), kEvStFdpa, P, ""}}, {{128, 256, 32}}, kFp6Elements, RowScale{F::ue8m0, 32, 1}, true},
  {"sm_100a", "tcgen05 kind::mxf4", kTc1 + "mxf4.block_scale.scale_vec::2X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst + "; E2M1 exponent floor (emin 0) unverified"}}, {{128, 256, 64}}, {}, RowScale{F::ue8m0, 32, 2}, true},
  {"sm_100a", "tcgen05 kind::mxf4nvf4", kTc1 + "mxf4nvf4.block_scale.scale_vec::2X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst}}, {{128, 256, 64}}, {}, RowScale{F::ue8m0, 32, 2}, true},
  {"sm_100a", "tcgen05 kind::mxf4nvf4", kTc1 + "mxf4nvf4.block_scale.scale_vec::4X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst}}, {{128, 256, 64}}, {}, RowScale{F::ue8m0, 16, 4}, true},
  {"sm_100a", "tcgen05 kind::mxf4nvf4", kTc1 + "mxf4nvf4.block_scale.scale_vec::4X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst + "; ue4m3 sign bit ignored"}}, {{128, 256, 64}}, {}, RowScale{F::ue4m3, 16, 4}, true},

  {"sm_100a", "tcgen05 kind::f16", kTc2 + "f16", same({F::f16}),
   {{A::f32, fdpa(16, 25, -133, OR::rz_f32), kTcF16Ev, P, kTcF16Note}, {A::f16, fdpa(16, 25, -133, OR::rne_f16), "[MS]", P, "f16-output e_zero -133 [MS]; sm_100 wmma fits -22"}},
   {{256, 256, 16}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::f16", kTc2 + "f16", same({F::bf16}), {{A::f32, fdpa(16, 25, -133, OR::rz_f32), kTcF16Ev, P, kTcF16Note}}, {{256, 256, 16}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::tf32", kTc2 + "tf32", same({F::tf32}), {{A::f32, fdpa(8, 25, -133, OR::rz_f32), "[MS] [KM]", P, ""}}, {{256, 256, 8}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::f8f6f4", kTc2 + "f8f6f4", pairs(kF8F6F4, kF8F6F4),
   {{A::f32, fdpa(32, 25, -133, OR::rz_f32), "[MS] (e4m3, e5m2, e2m1)", P, ""}, {A::f16, fdpa(32, 25, -133, OR::rne_f16), "[MS] (e4m3, e5m2, e2m1)", P, ""}},
   {{256, 256, 32}}, kTcFp6, {}, true},
  {"sm_100a", "tcgen05 kind::i8", kTc2 + "i8", pairs(kI8, kI8), {{A::s32, integer(false), "[PTX]: exact int32 sums", P, ""}}, {{256, 256, 32}}, {}, {}, true},
  {"sm_100a", "tcgen05 kind::mxf8f6f4", kTc2 + "mxf8f6f4.block_scale.scale_vec::1X", pairs(kF8F6F4, kF8F6F4),
   {{A::f32, st_fdpa(), kEvStFdpa, P, ""}}, {{256, 256, 32}}, kFp6Elements, RowScale{F::ue8m0, 32, 1}, true},
  {"sm_100a", "tcgen05 kind::mxf4", kTc2 + "mxf4.block_scale.scale_vec::2X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst + "; E2M1 exponent floor (emin 0) unverified"}}, {{256, 256, 64}}, {}, RowScale{F::ue8m0, 32, 2}, true},
  {"sm_100a", "tcgen05 kind::mxf4nvf4", kTc2 + "mxf4nvf4.block_scale.scale_vec::2X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst}}, {{256, 256, 64}}, {}, RowScale{F::ue8m0, 32, 2}, true},
  {"sm_100a", "tcgen05 kind::mxf4nvf4", kTc2 + "mxf4nvf4.block_scale.scale_vec::4X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst}}, {{256, 256, 64}}, {}, RowScale{F::ue8m0, 16, 4}, true},
  {"sm_100a", "tcgen05 kind::mxf4nvf4", kTc2 + "mxf4nvf4.block_scale.scale_vec::4X", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst + "; ue4m3 sign bit ignored"}}, {{256, 256, 64}}, {}, RowScale{F::ue4m3, 16, 4}, true},
  };
}

// mma.sync kind:: (sm_120a). scale_vec::4X takes ue4m3 only: ptxas (CUDA 13.0) rejects
// ".scale_vec::4X" with ".ue8m0" for sm_120a (found by tools/gpu compiling every spelling)
std::vector<CatalogRow> sm120_rows() {
  return {
  {"sm_120a", "mma.sync kind::f8f6f4", kMmaKind + "f8f6f4.{d}.{a}.{b}.{d}", pairs(kF8F6F4, kF8F6F4),
   {{A::f32, fdpa(32, 25, -133, OR::rz_f32), "[MS]", P, ""}, {A::f16, fdpa(32, 25, -22, OR::rne_f16), "[MS]", P, "f16-output e_zero -22 [MS]"}},
   kK32, kFp6Elements},
  {"sm_120a", "mma.sync kind::mxf8f6f4", kMmaKind + "mxf8f6f4.block_scale.scale_vec::1X.{d}.{a}.{b}.{d}.{s}", pairs(kF8F6F4, kF8F6F4),
   {{A::f32, st_fdpa(), kEvStFdpa, P, ""}}, kK32, kFp6Elements, RowScale{F::ue8m0, 32, 1}},
  {"sm_120a", "mma.sync kind::mxf4", kMmaKind + "mxf4.block_scale.scale_vec::2X.{d}.{a}.{b}.{d}.{s}", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst + "; E2M1 exponent floor (emin 0) unverified"}}, {{16, 8, 64}}, {}, RowScale{F::ue8m0, 32, 2}},
  {"sm_120a", "mma.sync kind::mxf4nvf4", kMmaKind + "mxf4nvf4.block_scale.scale_vec::2X.{d}.{a}.{b}.{d}.{s}", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst}}, {{16, 8, 64}}, {}, RowScale{F::ue8m0, 32, 2}},
  {"sm_120a", "mma.sync kind::mxf4nvf4", kMmaKind + "mxf4nvf4.block_scale.scale_vec::4X.{d}.{a}.{b}.{d}.{s}", same({F::e2m1}),
   {{A::f32, gst_fdpa(), kEvGstFdpa, P, kNoteGst + "; ue4m3 sign bit ignored"}}, {{16, 8, 64}}, {}, RowScale{F::ue4m3, 16, 4}},
  };
}

// clang-format on

// ---- Family targets and the newer targets (issue 28) --------------------------------------
//
// Family targets ([PTX] "family-specific features", PTX ISA 8.8+): every tcgen05.mma kind but
// kind::i8 is on sm_100f and sm_110f (and the targets after them in their families), kind::i8
// only on sm_100a and sm_110a (LLVM NVPTX NVPTXSubtarget.h: hasTcgen05InstSupport SM100f/SM110f,
// hasTcgen05MMAI8Kind SM100a/SM110a); mma.sync .kind/.block_scale is on sm_120f or higher
// in its family ([PTX] 9.7.15.5.14; LLVM hasMMABlockScale SM120f).
bool gives_family_target(const CatalogRow& r) {
  if (r.family.rfind("tcgen05", 0) == 0) return r.family != "tcgen05 kind::i8";
  return r.arch == "sm_120a";
}

// A row of `from` given to the newer target `to`: the same spellings, types and datapath
// parameters. Its evidence names the source of the instruction on `to` and the sibling's own
// evidence; it is `extrapolated`, and its note says that nothing was measured on `gpu`.
CatalogRow sibling_row(const CatalogRow& r, const std::string& to, const std::string& gpu, const std::string& why) {
  CatalogRow c = r;
  c.arch = to;
  c.params_from = r.arch;
  const std::string assumed = "not measured on " + gpu + ": datapath assumed equal to " + r.arch + "'s";
  for (RowOut& o : c.outs) {
    o.evidence = why + "; parameters of the " + r.arch + " entry (" + std::string(to_string(o.confidence)) + ": " +
                 o.evidence + ")";
    o.note = o.note.empty() ? assumed : assumed + "; " + o.note;
    o.confidence = X;
  }
  if (c.fp6) c.fp6->note = assumed + "; " + c.fp6->note;  // its confidence is extrapolated already
  return c;
}

// The newer targets take their sibling's rows: sm_103 (B300/GB300, Blackwell Ultra) and sm_110
// (Jetson Thor; sm_101 before PTX 9.0) those of sm_100, sm_121 (GB10, DGX Spark) those of
// sm_120. The PTX ISA gives each the same MMA instructions as its sibling ([PTX] target notes:
// mma.sync/wmma from sm_80/sm_89 on; tcgen05.mma on sm_100a, sm_103a, sm_110a; mma.sync .kind
// on sm_120a, sm_121a), except tcgen05 kind::i8, which sm_103a does not have.
std::vector<CatalogRow> newer_target_rows(const std::vector<CatalogRow>& rows) {
  struct Sibling {
    std::string from, to, gpu, why;
  };
  const std::string kPtxMma = "[PTX]: mma.sync and wmma exist on every target from sm_80 (FP8 from sm_89)";
  const std::vector<Sibling> sibs = {
      {"sm_100", "sm_103", "B300/GB300 (sm_103)", kPtxMma},
      {"sm_100a", "sm_103a", "B300/GB300 (sm_103a)",
       "[PTX] [LLVM]: tcgen05.mma on sm_103a and the sm_100f family; no kind::i8 on sm_103a"},
      {"sm_100", "sm_110", "Jetson Thor (sm_110)", kPtxMma},
      {"sm_100a", "sm_110a", "Jetson Thor (sm_110a)", "[PTX] [LLVM]: tcgen05.mma on sm_110a (sm_101a before PTX 9.0)"},
      {"sm_120", "sm_121", "GB10 (sm_121)", kPtxMma},
      {"sm_120a", "sm_121a", "GB10 (sm_121a)", "[PTX] [LLVM]: mma.sync .kind/.block_scale on sm_121a and the sm_120f family"},
  };
  std::vector<CatalogRow> out;
  for (const Sibling& s : sibs)
    for (const CatalogRow& r : rows)
      if (r.arch == s.from && !(s.to == "sm_103a" && r.family == "tcgen05 kind::i8"))
        out.push_back(sibling_row(r, s.to, s.gpu, s.why));
  return out;
}

std::vector<CatalogRow> make_rows() {
  std::vector<CatalogRow> rows;
  for (auto section : {float_rows, integer_rows, fp8_rows, wgmma_rows, tcgen05_rows, sm120_rows})
    for (CatalogRow& r : section()) rows.push_back(std::move(r));
  for (CatalogRow& r : rows) r.family_target = gives_family_target(r);
  for (CatalogRow& r : newer_target_rows(rows)) rows.push_back(std::move(r));
  return rows;
}

}  // namespace

const std::vector<CatalogRow>& catalog_rows() {
  static const std::vector<CatalogRow> rows = make_rows();
  return rows;
}

}  // namespace tcemu::catalog_detail
