// Directed probes of docs/sources.md, "Directed probes" with the published outcome for each architecture, the
// special values of datapath.md §1, integer wrap/satfinite, and the e8m13 chaining that FP32 promotion
// works around (quantization.md). Expected values are the spec's numbers (or the reference's rounding of
// an exact value the spec states).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/mma.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu::test {
namespace {

// The code of an exactly representable value.
uint64_t code_of(Fmt f, double v) {
  const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(v));
  EXPECT_EQ(static_cast<double>(static_cast<float>(v)), v);
  if (f == Fmt::f32) return bits;
  const Decoded d = decode(Fmt::f32, bits);
  std::optional<uint64_t> c = d.cls == Class::zero ? zero_code(f, d.sign) : encode_exact(f, d.sign, d.sig, d.exp);
  EXPECT_TRUE(c.has_value()) << v << " not exact in " << info(f).name;
  return c.value_or(0);
}
uint32_t f32(double v) { return std::bit_cast<uint32_t>(static_cast<float>(v)); }

const InstrEntry& lookup(const char* arch, const char* ptx, std::optional<Fmt> at = {}, std::optional<Fmt> bt = {},
                         std::optional<AccType> dt = {}, std::optional<Fmt> st = {}) {
  const InstrLookup l = find_instruction(arch, ptx, at, bt, dt, st);
  EXPECT_NE(l.entry, nullptr) << l.error;
  if (!l.entry) throw std::runtime_error(l.error);
  return *l.entry;
}

// One dot product through the whole-matrix path (M = N = 1), K = the instruction's K.
uint64_t one_dot(const InstrEntry& e, std::vector<uint64_t> a, std::vector<uint64_t> b, uint64_t c,
                 std::vector<uint64_t> sa = {}, std::vector<uint64_t> sb = {}, MmaOptions opt = {}) {
  a.resize(std::max<size_t>(a.size(), static_cast<size_t>(e.K)), 0);
  b.resize(a.size(), 0);
  const uint64_t C[1] = {c};
  MmaResult r = mma(make_problem(e, 1, 1, static_cast<int>(a.size()), a, b, C, sa, sb, opt), Exec{1});
  EXPECT_TRUE(r.error.empty()) << r.error;
  if (r.D.empty()) return ~uint64_t{0};
  // The code-level API and the reference model agree with the whole-matrix path.
  BlockScales bs{e.scale_type.value_or(Fmt::ue8m0), e.scale_block, sa, sb};
  if (e.K >= e.params.L && opt.promote_every == 0) {
    EXPECT_EQ(ref::fdpa_dot(e.params, e.atype, e.btype, a, b, c, e.scale_type ? &bs : nullptr), r.D[0]);
  }
  return r.D[0];
}

// ---- §5 one-shot discriminator [MS] --------------------------------------------------------
// c = 2^23, a = [-2^13, -0.5, -0.25, -0.125], b = [2^10, 1, 1, 1]. Exact -0.875; V100 0;
// Ampere/Ada f16, bf16, tf32 -0.5; Hopper f16 -0.75; Hopper FP8 (e5m2) 0; Blackwell f16,
// FP8, MXFP8 -0.75; NVFP4 (scaled variant) -0.875.
struct Disc {
  const char* arch;
  const char* ptx;
  std::optional<Fmt> at, bt;
  std::optional<AccType> dt;
  double expect;
};

uint64_t discriminator(const InstrEntry& e) {
  const Fmt fa = e.atype, fb = e.btype;
  std::vector<uint64_t> a = {code_of(fa, -8192), code_of(fa, -0.5), code_of(fa, -0.25), code_of(fa, -0.125)};
  std::vector<uint64_t> b = {code_of(fb, 1024), code_of(fb, 1), code_of(fb, 1), code_of(fb, 1)};
  std::vector<uint64_t> sa, sb;
  if (e.scale_type) {  // MXFP8: unit scales
    sa.assign(static_cast<size_t>(e.K / e.scale_block), 127);
    sb = sa;
  }
  return one_dot(e, a, b, f32(8388608.0), sa, sb);
}

class Discriminator : public ::testing::TestWithParam<Disc> {};

TEST_P(Discriminator, PublishedOutcome) {
  const Disc& d = GetParam();
  const InstrEntry& e = lookup(d.arch, d.ptx, d.at, d.bt, d.dt);
  EXPECT_EQ(discriminator(e), f32(d.expect)) << d.arch << " " << d.ptx;
}

const Disc kDisc[] = {
    {"sm_70", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", {}, {}, {}, 0.0},
    {"sm_70", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", {}, {}, {}, 0.0},
    {"sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", {}, {}, {}, -0.5},
    {"sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", {}, {}, {}, -0.5},
    {"sm_80", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", {}, {}, {}, -0.5},
    {"sm_89", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", {}, {}, {}, -0.5},
    {"sm_89", "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", {}, {}, {}, -0.5},
    {"sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", {}, {}, {}, -0.75},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", {}, {}, {}, -0.75},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2", {}, {}, {}, 0.0},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::f16", Fmt::f16, Fmt::f16, AccType::f32, -0.75},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", Fmt::e5m2, Fmt::e5m2, AccType::f32, -0.75},
    {"sm_100a", "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X", Fmt::e5m2, Fmt::e5m2, {}, -0.75},
    {"sm_120a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", {}, {}, {}, -0.75},
    {"sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32", {}, {}, {}, -0.75},
    {"sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0", {}, {}, {}, -0.75},
};

INSTANTIATE_TEST_SUITE_P(Sec5, Discriminator, ::testing::ValuesIn(kDisc),
                         [](const ::testing::TestParamInfo<Disc>& i) { return std::to_string(i.index) + "_" + i.param.arch; });

// NVFP4 scaled variant: the same terms spread over the four 16-groups with scales.
// group 0: (-4)(4) * 2^10 * 2^9 = -2^23; group 1: -0.5 * 1; group 2: -0.5 * 0.5; group 3: -0.5 *
// 0.5 * 2^-1. Exact (and NVFP4 per [MS]): -0.875.
// (sm_120a's mma.sync has 4X with ue4m3 scales only, which cannot hold 2^10.)
TEST(DiscriminatorNvfp4, ScaledVariantIsExact) {
  for (const char* arch : {"sm_100a"}) {
    const InstrEntry& e =
        lookup(arch, "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", {}, {}, {}, Fmt::ue8m0);
    std::vector<uint64_t> a(64, 0), b(64, 0);
    a[0] = code_of(Fmt::e2m1, -4); b[0] = code_of(Fmt::e2m1, 4);
    a[16] = code_of(Fmt::e2m1, -0.5); b[16] = code_of(Fmt::e2m1, 1);
    a[32] = code_of(Fmt::e2m1, -0.5); b[32] = code_of(Fmt::e2m1, 0.5);
    a[48] = code_of(Fmt::e2m1, -0.5); b[48] = code_of(Fmt::e2m1, 0.5);
    std::vector<uint64_t> sa = {127 + 10, 127, 127, 126}, sb = {127 + 9, 127, 127, 127};
    EXPECT_EQ(one_dot(e, a, b, f32(8388608.0), sa, sb), f32(-0.875)) << arch;
  }
}

// ---- F via C [MS] ----------------------------------------------------------------------------
// a0 b0 = 2^14, a1 b1 = -2^14, c = 2^13; halve c until d != c: the number of halvings is F.
int halvings_until_c_lost(const InstrEntry& e) {
  const Fmt fa = e.atype, fb = e.btype;
  for (int h = 0; h <= 48; ++h) {
    const uint64_t c = f32(std::ldexp(1.0, 13 - h));
    std::vector<uint64_t> sa, sb;
    if (e.scale_type) {
      sa.assign(static_cast<size_t>(e.K / e.scale_block), 127);
      sb = sa;
    }
    if (one_dot(e, {code_of(fa, 128), code_of(fa, -128)}, {code_of(fb, 128), code_of(fb, 128)}, c, sa, sb) != c) return h;
  }
  return -1;
}

TEST(FViaC, MatchesTheParameterTable) {
  // F per docs/datapath.md §3.
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_70", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32")), 23);
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")), 24);
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32")), 13);
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")), 25);
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_90a", "wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e4m3")), 13);
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", Fmt::e5m2, Fmt::e5m2,
                                         AccType::f32)),
            25);
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_120a",
                                         "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0")),
            25);
  // sm_100 mma.sync FP8 adds C after the products (datapath.md §3): the cancelling pair never hides C.
  EXPECT_EQ(halvings_until_c_lost(lookup("sm_100", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32")), -1);
}

// Alignment rounding [MS]: c = ±{0.25, 0.5, 0.75, 1.5} units of 2^q with the cancelling pair
// gives {0, 0, 0, ±1} units: truncation toward zero, no sticky bit.
TEST(AlignmentTruncation, TowardZero) {
  const InstrEntry& e = lookup("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  const int q = 14 - 25;
  const double units[] = {0.25, 0.5, 0.75, 1.5};
  const double expect[] = {0, 0, 0, 1};
  for (int s : {1, -1})
    for (int i = 0; i < 4; ++i) {
      const uint64_t d = one_dot(e, {code_of(Fmt::f16, 128), code_of(Fmt::f16, -128)},
                                 {code_of(Fmt::f16, 128), code_of(Fmt::f16, 128)}, f32(s * std::ldexp(units[i], q)));
      EXPECT_EQ(d, f32(expect[i] == 0 ? 0.0 : s * std::ldexp(expect[i], q))) << s * units[i];
    }
}

// Exact products [F21]: (1 - 2^-11)^2 = 1 - 2^-10 + 2^-22 with an f16 pair, f32 output.
TEST(ExactProducts, F21) {
  for (const char* arch : {"sm_70", "sm_80", "sm_90"}) {
    const char* ptx = std::string(arch) == "sm_70" ? "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"
                                                   : "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
    const uint64_t x = code_of(Fmt::f16, 1 - std::ldexp(1, -11));
    EXPECT_EQ(one_dot(lookup(arch, ptx), {x}, {x}, 0), f32(1 - std::ldexp(1, -10) + std::ldexp(1, -22))) << arch;
  }
}

// e_zero tie vector: A = [2^-14, 2^-24, 0], B = [2^-11, 2^-24, 1], c = 0, f16 output: 0 if
// e_zero = -21, 2^-24 if e_zero <= -29.
TEST(EZero, TieVector) {
  const std::vector<uint64_t> a = {code_of(Fmt::f16, std::ldexp(1, -14)), code_of(Fmt::f16, std::ldexp(1, -24)), 0};
  const std::vector<uint64_t> b = {code_of(Fmt::f16, std::ldexp(1, -11)), code_of(Fmt::f16, std::ldexp(1, -24)),
                                   code_of(Fmt::f16, 1)};
  DatapathParams p;
  p.L = 8;
  p.F = 24;
  p.rounding = OutputRounding::rne_f16;
  p.e_zero = -21;
  EXPECT_EQ(fdpa_dot(p, Fmt::f16, Fmt::f16, a, b, 0), 0x0000u);
  EXPECT_EQ(ref::fdpa_dot(p, Fmt::f16, Fmt::f16, a, b, 0), 0x0000u);
  p.e_zero = -29;
  EXPECT_EQ(fdpa_dot(p, Fmt::f16, Fmt::f16, a, b, 0), 0x0001u);
  EXPECT_EQ(ref::fdpa_dot(p, Fmt::f16, Fmt::f16, a, b, 0), 0x0001u);
  // The catalog's Ampere f16-output entry uses -21 [MS].
  const InstrEntry& e = lookup("sm_80", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16");
  EXPECT_EQ(one_dot(e, a, b, 0), 0x0000u);
}

// ---- specials (datapath.md §1) ----------------------------------------------------------------------------
TEST(Specials, AsSection31) {
  for (const char* ptx : {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"}) {
    const InstrEntry& e = lookup("sm_90", ptx);
    const bool h = e.dtype == AccType::f16;
    const Fmt acc = h ? Fmt::f16 : Fmt::f32;
    const uint64_t nan = h ? 0x7FFF : 0x7FFFFFFF, pinf = h ? 0x7C00 : 0x7F800000, ninf = h ? 0xFC00 : 0xFF800000;
    const uint64_t nz = 0x8000, one = 0x3C00, inf16 = 0x7C00, ninf16 = 0xFC00, max16 = 0x7BFF, nmax16 = 0xFBFF;
    const uint64_t negzero_c = h ? 0x8000 : 0x80000000;
    EXPECT_EQ(one_dot(e, {nz, nz}, {nz ^ 0x8000, nz}, negzero_c), 0u) << "all -0 gives +0";
    EXPECT_EQ(one_dot(e, {one}, {one}, pinf), pinf) << "c = Inf";
    EXPECT_EQ(one_dot(e, {inf16}, {one}, 0), pinf) << "a = Inf, b = 1";
    EXPECT_EQ(one_dot(e, {ninf16}, {one}, 0), ninf) << "a = -Inf";
    EXPECT_EQ(one_dot(e, {0x7E00}, {one}, 0), nan) << "NaN operand";
    EXPECT_EQ(one_dot(e, {one}, {one}, h ? 0xFE00 : 0xFFC00000), nan) << "NaN c (canonical, sign dropped)";
    EXPECT_EQ(one_dot(e, {inf16}, {0}, 0), nan) << "Inf * 0";
    EXPECT_EQ(one_dot(e, {inf16, ninf16}, {one, one}, 0), nan) << "Inf + -Inf";
    EXPECT_EQ(one_dot(e, {inf16}, {one}, ninf), nan) << "Inf + c = -Inf";
    EXPECT_EQ(one_dot(e, {max16, nmax16}, {max16, max16}, 0), 0u) << "max*max - max*max = 0";
    (void)acc;
  }
  // A NaN scale gives NaN (datapath.md §1).
  const InstrEntry& mx =
      lookup("sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0");
  EXPECT_EQ(one_dot(mx, {0x38}, {0x38}, 0, {0xFF}, {127}), 0x7FFFFFFFu);
  const InstrEntry& nv =
      lookup("sm_120a", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
  EXPECT_EQ(one_dot(nv, {0x2}, {0x2}, 0, {0x7F, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}), 0x7FFFFFFFu);
  // ue4m3's sign bit is ignored: 0xB8 reads as 0x38 = 1.0; 1*1*1*1 = 1.
  EXPECT_EQ(one_dot(nv, {0x2}, {0x2}, 0, {0xB8, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}), f32(1.0));
}

// A finite result beyond the range gives Inf even under RZ (datapath.md §1).
TEST(Specials, OverflowIsInfUnderRz) {
  const InstrEntry& e = lookup("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  const uint64_t fmax = 0x7F7FFFFF, bmax = 0x7F7F, one = 0x3F80;
  EXPECT_EQ(one_dot(e, {bmax}, {one}, fmax), 0x7F800000u);               // about 2^129
  EXPECT_EQ(one_dot(e, {bmax ^ 0x8000}, {one}, fmax ^ 0x80000000), 0xFF800000u);
  EXPECT_EQ(one_dot(e, {one}, {one}, fmax), fmax);                       // RZ below 2^128 stays finite
}

// ---- integers ------------------------------------------------------------------------------------
TEST(Integer, WrapAndSatfinite) {
  std::vector<uint64_t> a(32, 0x80), b(32, 0x80);  // (-128)*(-128) * 32 = 2^19
  const uint64_t c = 0x7FFFFFFF;
  const InstrEntry& w = lookup("sm_90", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
  const InstrEntry& s = lookup("sm_90", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32");
  EXPECT_EQ(one_dot(w, a, b, c), (0x7FFFFFFFull + (1ull << 19)) & 0xFFFFFFFFull);
  EXPECT_EQ(one_dot(s, a, b, c), 0x7FFFFFFFu);
  std::vector<uint64_t> u(32, 0xFF);  // u8 255 * s8 -128 * 32
  const InstrEntry& us = lookup("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.u8.s8");
  EXPECT_EQ(one_dot(us, u, a, 0x80000000), 0x80000000u);
  EXPECT_EQ(one_dot(us, u, a, 0), static_cast<uint64_t>(static_cast<uint32_t>(-255 * 128 * 32)));
}

// ---- chaining and FP32 promotion (datapath.md §1, quantization.md) ----------------------------------------------------
// C = 2^14, K = 128 of products 1 * 2^-5 (each wgmma adds exactly 1). Chained FP8 wgmma
// instructions keep 13 fraction bits below 2^14 (q = 1): every instruction's 1 is lost and D
// stays 2^14. Promotion every instruction adds each partial (started from 0) in f32: 2^14 + 4.
TEST(Chaining, E8m13AfterEveryInstructionAndPromotion) {
  const InstrEntry& e = lookup("sm_90a", "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3");
  std::vector<uint64_t> a(128, code_of(Fmt::e4m3, 1)), b(128, code_of(Fmt::e4m3, std::ldexp(1, -5)));
  EXPECT_EQ(one_dot(e, a, b, f32(16384)), f32(16384));
  MmaOptions promote;
  promote.promote_every = 1;
  EXPECT_EQ(one_dot(e, a, b, f32(16384), {}, {}, promote), f32(16388));
  promote.promote_every = 4;  // one promotion of the 4-instruction partial: 2^14 + 4 as well
  EXPECT_EQ(one_dot(e, a, b, f32(16384), {}, {}, promote), f32(16388));
}

// K below L: sm_90 m16n8k8 runs the 16-term datapath with the missing terms zero.
TEST(Chaining, InstructionKBelowL) {
  const InstrEntry& e8 = lookup("sm_90", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32");
  EXPECT_EQ(e8.params.L, 16);
  const InstrEntry& e16 = lookup("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  // Two k8 instructions are two steps: the discriminator's -0.75 comes from each step alone.
  std::vector<uint64_t> a = {code_of(Fmt::f16, -8192), code_of(Fmt::f16, -0.5), code_of(Fmt::f16, -0.25),
                             code_of(Fmt::f16, -0.125)};
  std::vector<uint64_t> b = {code_of(Fmt::f16, 1024), code_of(Fmt::f16, 1), code_of(Fmt::f16, 1), code_of(Fmt::f16, 1)};
  EXPECT_EQ(one_dot(e8, a, b, f32(8388608.0)), f32(-0.75));
  EXPECT_EQ(one_dot(e16, a, b, f32(8388608.0)), f32(-0.75));
}

// Whole-matrix tiling: every D element equals the chained dot product of its row and column,
// and wgmma's imm-scale-a = -1 negates A.
TEST(Mma, TilingAndNegation) {
  const InstrEntry& e = lookup("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16");
  const int M = 5, N = 3, K = 48;
  std::vector<uint64_t> A(M * K), B(K * N), C(M * N);
  uint64_t x = 12345;
  auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return x >> 33; };
  for (auto& v : A) v = (next() & 0x3FFF) | ((next() & 1) << 15);
  for (auto& v : B) v = (next() & 0x3FFF) | ((next() & 1) << 15);
  for (auto& v : C) v = f32(static_cast<double>(next() % 1000) - 500);
  MmaProblem p{M, N, K, Fmt::f16, Fmt::f16, A, B, C, std::nullopt, 0, {}, {}};
  MmaResult r = mma(p.with(e), Exec{1});
  ASSERT_TRUE(r.error.empty()) << r.error;
  MmaOptions neg;
  neg.negate_a = true;
  MmaResult rn = mma(p.with(e, neg), Exec{1});
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      std::vector<uint64_t> a(A.begin() + m * K, A.begin() + (m + 1) * K), b(K), an(K);
      for (int k = 0; k < K; ++k) {
        b[k] = B[k * N + n];
        an[k] = a[k] ^ 0x8000;
      }
      EXPECT_EQ(r.D[m * N + n], ref::fdpa_dot(e.params, Fmt::f16, Fmt::f16, a, b, C[m * N + n]));
      EXPECT_EQ(rn.D[m * N + n], ref::fdpa_dot(e.params, Fmt::f16, Fmt::f16, an, b, C[m * N + n]));
    }
  p.K = 40;  // not a multiple of 16
  EXPECT_FALSE(mma(p.with(e), Exec{1}).error.empty());
}

}  // namespace
}  // namespace tcemu::test
