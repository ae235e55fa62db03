// MX quantization against published cases:
// - torchao's MXFP8 semantic contract, torchao/testing/_mxfp8_test_utils.py at pytorch/ao commit
//   3972ed015091f659418dedf12edb980a8ca56b53 (make_mxfp8_semantic_cases, make_f32_to_e8m0_rceil_cases);
// - torchao's older test_to_mx_rceil cases (test/prototype/mx_formats/test_mx_tensor.py, the
//   version with _to_mx_rceil in mx_tensor.py), for the legacy RCEIL arithmetic;
// - torchao's test_exponent_nan_in / test_exponent_nan_out (same file);
// - docs/quantization.md: "a block containing 480 gets scale 1 under FLOOR (480 saturates to 448) and
//   2 under RCEIL".
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tcemu/quant.hpp"

namespace {

using tcemu::Fmt;
using namespace tcemu::quant;

float f(uint32_t b) { return std::bit_cast<float>(b); }
float bf(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

MxOptions opts(MxScaleMode m, Fmt e = Fmt::e4m3) {
  MxOptions o;
  o.elem = e;
  o.scale = m;
  return o;
}

// torchao treats the E4M3 NaN codes 0x7f and 0xff as equal (assert_mxfp8_semantics).
uint8_t norm_nan(uint8_t c) { return c == 0xFF ? 0x7F : c; }

struct Case {
  std::string name;
  std::vector<float> x;        // 32 values
  uint8_t scale;
  std::vector<uint8_t> data;   // 32 codes
};

std::vector<float> fill(float v) { return std::vector<float>(32, v); }
std::vector<uint8_t> fillc(uint8_t v) { return std::vector<uint8_t>(32, v); }

// The contract, for an input dtype (fp32 or bf16 values, given as f32).
std::vector<Case> semantic_cases(bool bf16) {
  const float tiny = f(0x00800000);                              // 2^-126 (finfo.tiny, both dtypes)
  const float dmax = bf16 ? bf(0x7F7F) : f(0x7F7FFFFF);          // finfo.max
  const float sub = bf16 ? bf(0x0001) : f(0x00000001);           // smallest subnormal
  const uint8_t sub_data = bf16 ? 0x08 : 0x00;
  std::vector<Case> v;
  v.push_back({"zero", fill(0.0f), 0, fillc(0x00)});
  v.push_back({"smallest_normal", fill(tiny), 0, fillc(0x40)});
  { auto x = fill(1.0f); x[0] = kInf; v.push_back({"mixed_inf", x, 255, fillc(0x7F)}); }
  { auto x = fill(1.0f); x[0] = kNaN; v.push_back({"mixed_nan", x, 255, fillc(0x7F)}); }
  v.push_back({"positive_fp8_max", fill(448.0f), 127, fillc(0x7E)});
  v.push_back({"negative_fp8_max", fill(-448.0f), 127, fillc(0xFE)});
  v.push_back({"positive_dtype_max", fill(dmax), 247, fillc(0x78)});
  v.push_back({"negative_dtype_max", fill(-dmax), 247, fillc(0xF8)});
  v.push_back({"positive_smallest_subnormal", fill(sub), 0, fillc(sub_data)});
  v.push_back({"negative_smallest_subnormal", fill(-sub), 0, fillc(static_cast<uint8_t>(sub_data | 0x80))});
  { auto x = fill(1.0f); x[0] = sub; auto d = fillc(0x78); d[0] = 0x00; v.push_back({"mixed_positive_underflow", x, 119, d}); }
  { auto x = fill(1.0f); x[0] = -sub; auto d = fillc(0x78); d[0] = 0x80; v.push_back({"mixed_negative_underflow", x, 119, d}); }
  { auto x = fill(1.0f); x[0] = dmax; auto d = fillc(0x00); d[0] = 0x78; v.push_back({"mixed_saturation_and_underflow", x, 247, d}); }
  if (bf16) v.push_back({"rceil_premature_bf16_lowers_scale", fill(bf(0x4060)), 120, fillc(0x7E)});
  else v.push_back({"rceil_premature_bf16_lowers_scale", fill(f(0x40600001)), 121, fillc(0x76)});
  v.push_back({"fp32_just_below_512", fill(bf16 ? 512.0f : f(0x43FFFFFF)), 128, fillc(0x78)});
  v.push_back({"all_nan", fill(kNaN), 255, fillc(0x7F)});
  v.push_back({"positive_satfinite", fill(480.0f), 128, fillc(0x77)});
  v.push_back({"negative_satfinite", fill(-480.0f), 128, fillc(0xF7)});
  {
    auto x = fill(0.0f);
    auto d = fillc(0x00);
    if (!bf16) {
      const uint32_t in[4] = {6142315, 5096174, 3345704, 33075};
      const uint8_t out[4] = {60, 58, 53, 4};
      for (int i = 0; i < 4; ++i) { x[i] = f(in[i]); d[i] = out[i]; }
      v.push_back({"fp32_subnormals", x, 0, d});
    } else {
      const uint16_t in[4] = {101, 3, 47, 120};
      const uint8_t out[4] = {61, 20, 52, 63};
      for (int i = 0; i < 4; ++i) { x[i] = bf(in[i]); d[i] = out[i]; }
      v.push_back({"bf16_subnormals", x, 0, d});
    }
  }
  {
    auto x = fill(0.0f);
    auto d = fillc(0x00);
    if (!bf16) {
      const uint32_t in[4] = {1037408064, 1058534842, 994704128, 1064831570};
      const uint8_t out[4] = {93, 113, 53, 120};
      for (int i = 0; i < 4; ++i) { x[i] = f(in[i]); d[i] = out[i]; }
      v.push_back({"fp32_realistic_vals", x, 119, d});
    } else {
      const uint16_t in[4] = {16223, 16248, 15696, 15956};
      const uint8_t out[4] = {118, 120, 85, 101};
      for (int i = 0; i < 4; ++i) { x[i] = bf(in[i]); d[i] = out[i]; }
      v.push_back({"bf16_realistic_vals", x, 119, d});
    }
  }
  return v;
}

void check_case(const Case& c, const MxOptions& o) {
  const MxTensor q = mx_quantize(c.x, 1, 32, o);
  ASSERT_EQ(q.scales.size(), 1u);
  EXPECT_EQ(int(q.scales[0]), int(c.scale)) << c.name;
  for (int i = 0; i < 32; ++i) EXPECT_EQ(int(norm_nan(q.codes[i])), int(c.data[i])) << c.name << " element " << i;
}

TEST(MxPublished, TorchaoMxfp8SemanticContractRceil) {
  for (bool bf16 : {false, true})
    for (const Case& c : semantic_cases(bf16)) check_case(c, opts(MxScaleMode::rceil));
}

// TransformerEngine's arithmetic (cvt.rp.satfinite scale, exp2f_rcp, fmaxf amax) agrees with the
// contract wherever the contract does not test NaN/Inf handling or the 2^-127 scale (TE's
// exp2f_rcp multiplies by 1 there, torchao by 2^127).
TEST(MxPublished, TransformerEngineAgreesOnFiniteNonMinimalCases) {
  for (bool bf16 : {false, true})
    for (const Case& c : semantic_cases(bf16)) {
      if (c.scale == 0 || c.scale == 255) continue;
      check_case(c, opts(MxScaleMode::rceil_sat));
    }
}

TEST(MxPublished, TransformerEngineSpecialBlocks) {
  // PTX ISA §9.7.9.21 and docs/quantization.md: cvt.rp.satfinite gives 0xFE for Inf; exp2f_rcp(0xFE) is +0, so the
  // finite elements become 0 and Inf * 0 is NaN (0x7f).
  std::vector<float> x = fill(1.0f);
  x[0] = kInf;
  MxTensor q = mx_quantize(x, 1, 32, opts(MxScaleMode::rceil_sat));
  EXPECT_EQ(int(q.scales[0]), 0xFE);
  EXPECT_EQ(int(q.codes[0]), 0x7F);
  EXPECT_EQ(int(q.codes[1]), 0x00);
  // fmaxf ignores NaN: the scale comes from the finite elements (1.0 -> 2^-8), NaN -> 0x7f.
  x[0] = kNaN;
  q = mx_quantize(x, 1, 32, opts(MxScaleMode::rceil_sat));
  EXPECT_EQ(int(q.scales[0]), 119);
  EXPECT_EQ(int(q.codes[0]), 0x7F);
  EXPECT_EQ(int(q.codes[1]), 0x78);
  // Kernels that skip non-finite elements (isfinite(elt) before fmaxf): Inf does not count
  // either, the scale comes from 1.0 (2^-8), and Inf * 2^8 saturates to 448 (0x7e).
  x[0] = kInf;
  MxOptions o = opts(MxScaleMode::rceil_sat);
  o.amax_nan = AmaxNan::ignore_nonfinite;
  q = mx_quantize(x, 1, 32, o);
  EXPECT_EQ(int(q.scales[0]), 119);
  EXPECT_EQ(int(q.codes[0]), 0x7E);
  EXPECT_EQ(int(q.codes[1]), 0x78);
}

TEST(MxPublished, TorchaoF32ToE8m0RceilBoundaries) {
  const std::pair<uint32_t, int> cases[] = {
      {0x00000000, 0},   {0x00000001, 0},   {0x00400000, 0},   {0x00400001, 1},   {0x007FFFFF, 1},
      {0x00800000, 1},   {0x1F800000, 63},  {0x1F800001, 64},  {0x3F7FFFFF, 127}, {0x3F800000, 127},
      {0x3F800001, 128}, {0x5F800000, 191}, {0x5F800001, 192}, {0x7F000000, 254}, {0x7F000001, 255},
      {0x7F7FFFFF, 255}, {0x7F800000, 255}, {0x7FC00000, 255},
  };
  for (auto [bits, expected] : cases) EXPECT_EQ(int(e8m0_round_up(f(bits), false)), expected) << std::hex << bits;
}

// torchao test_to_mx_rceil (legacy _to_mx_rceil arithmetic), e4m3, block 32.
TEST(MxPublished, TorchaoLegacyToMxRceil) {
  MxOptions o = opts(MxScaleMode::rceil_legacy);
  auto run = [&](const std::vector<float>& x, int scale, const std::vector<int>& data, const char* name) {
    const MxTensor q = mx_quantize(x, 1, 32, o);
    EXPECT_EQ(int(q.scales[0]), scale) << name;
    for (int i = 0; i < 32; ++i) EXPECT_EQ(int(q.codes[i]), data[i]) << name << " element " << i;
  };
  auto f32v = [](std::initializer_list<uint32_t> l) { std::vector<float> v; for (uint32_t b : l) v.push_back(f(b)); return v; };
  auto bf16v = [](std::initializer_list<uint16_t> l) { std::vector<float> v; for (uint16_t b : l) v.push_back(bf(b)); return v; };
  // nan: scale 255, element 0 NaN, the rest 0.
  {
    const auto x = f32v({2143289344, 1054459450, 1060527345, 1045656552, 1058239340, 1045057552, 1061158006, 1049626606,
                         1052757568, 1032293288, 1056992320, 1064929425, 1061036255, 1047450552, 1057077424, 1055125012,
                         1036491424, 1063542041, 1057099838, 1058731224, 1050189482, 1049114228, 1058347802, 1060065968,
                         1058846156, 1048878912, 1065109089, 1054494928, 1044803976, 1049117692, 1065222528, 1056965012});
    const MxTensor q = mx_quantize(x, 1, 32, o);
    EXPECT_EQ(int(q.scales[0]), 255);
    EXPECT_EQ(int(norm_nan(q.codes[0])), 0x7F);
    for (int i = 1; i < 32; ++i) EXPECT_EQ(int(q.codes[i]), 0) << i;
  }
  run(f32v({6142315, 5096174, 3345704, 6178415, 5728750, 419002, 1716691, 4335089, 5785800, 6234845, 1697524, 33075, 3975816,
            3714822, 5411407, 3040844, 7400945, 4474166, 7257182, 1273750, 5872176, 4694081, 2096530, 6273621, 67028, 7585260,
            4532315, 4599275, 6133942, 4542483, 5992199, 6862780}),
      0, std::vector<int>(32, 0), "fp32 denorm");
  run(bf16v({101, 3, 47, 54, 36, 19, 70, 79, 35, 95, 28, 120, 84, 94, 20, 92, 18, 42, 98, 58, 3, 26, 64, 86, 60, 86, 52, 23, 61, 70,
             59, 74}),
      0, std::vector<int>(32, 0), "bf16 denorm");
  run(f32v({8388608, 1063716449, 1064039365, 1063568877, 1051091338, 1062185569, 1034449408, 1060813641, 1054893736, 1034907680,
            1036660744, 1023639888, 1058536559, 1050896496, 1049237634, 1064950601, 1051852994, 1059794063, 1054011102, 1062023602,
            1059467900, 1062276774, 1059155029, 1053287574, 1064378711, 1055768540, 1045266076, 1059575077, 1054928758, 1040468200,
            1058061961, 1053066436}),
      119, {0, 118, 119, 118, 106, 117, 91, 116, 110, 91, 93, 80, 113, 106, 105, 120,
            107, 115, 109, 117, 114, 117, 114, 108, 119, 111, 101, 114, 110, 96, 113, 108}, "fp32 some denorm");
  run(bf16v({128, 16118, 16143, 16074, 16187, 16002, 16193, 16217, 15680, 16183, 16092, 16158, 16251, 15876, 15896, 16194, 16135,
             16214, 16205, 16110, 16122, 15960, 15824, 16106, 16220, 16230, 15952, 15896, 16000, 16144, 16232, 16157}),
      119, {0, 111, 113, 109, 116, 104, 116, 118, 84, 115, 110, 114, 120, 96, 98, 116,
            112, 117, 117, 111, 112, 102, 93, 111, 118, 118, 101, 98, 104, 113, 118, 114}, "bf16 some denorm");
  run(std::vector<float>(32, 0.0f), 0, std::vector<int>(32, 0), "zero");
  run(f32v({1037408064, 1058534842, 1053630662, 1063310394, 994704128, 1057245441, 1060663708, 1058053571, 1052395648, 1064831570,
            1038427336, 1064777688, 1059248393, 1060959028, 1062878286, 1057799482, 1057854101, 1053562724, 1027482352, 1060498324,
            1063238522, 1060472055, 1054346794, 1029092912, 1056687298, 1059146141, 1037992128, 1064097772, 1056522806, 1059255744,
            1064364912, 1060606252}),
      119, {93, 113, 109, 118, 53, 112, 116, 113, 108, 120, 94, 119, 114, 116, 118, 113,
            113, 109, 84, 115, 118, 115, 110, 85, 112, 114, 94, 119, 112, 114, 119, 115}, "fp32 normal");
  run(bf16v({15752, 16143, 16182, 15896, 16195, 16186, 16048, 16223, 15988, 16231, 16140, 16088, 16032, 16240, 16228, 16133, 16210,
             16024, 16248, 16187, 16050, 15696, 16060, 15956, 16131, 16251, 15896, 16014, 15808, 16024, 16159, 16186}),
      119, {88, 113, 115, 98, 116, 116, 107, 118, 103, 118, 113, 110, 106, 119, 118, 112,
            117, 106, 120, 116, 107, 85, 108, 101, 112, 120, 98, 105, 92, 106, 114, 116}, "bf16 normal");
}

TEST(MxPublished, BlockContaining480) {
  std::vector<float> x(32, 1.0f);
  x[5] = 480.0f;
  // FLOOR: floor(log2 480) - 8 = 0 -> scale 2^0 (0x7f); 480 saturates to 448 (0x7e).
  MxTensor q = mx_quantize(x, 1, 32, opts(MxScaleMode::floor));
  EXPECT_EQ(int(q.scales[0]), 127);
  EXPECT_EQ(int(q.codes[5]), 0x7E);
  // RCEIL (every variant): 480 / 448 rounds up to 2 (0x80); 480 / 2 = 240 (0x77).
  for (MxScaleMode m : {MxScaleMode::rceil, MxScaleMode::rceil_sat, MxScaleMode::rceil_legacy}) {
    q = mx_quantize(x, 1, 32, opts(m));
    EXPECT_EQ(int(q.scales[0]), 128) << to_string(m);
    EXPECT_EQ(int(q.codes[5]), 0x77) << to_string(m);
  }
}

TEST(MxPublished, TorchaoExponentNanInAndOut) {
  // test_exponent_nan_in: [nan, 1, 2, ..., 7], block 4, default (FLOOR) mode, every element dtype.
  const std::vector<float> x = {kNaN, 1, 2, 3, 4, 5, 6, 7};
  for (Fmt e : {Fmt::e4m3, Fmt::e5m2, Fmt::e2m3, Fmt::e3m2, Fmt::e2m1}) {
    MxOptions o = opts(MxScaleMode::floor, e);
    o.block = 4;
    const MxTensor q = mx_quantize(x, 1, 8, o);
    EXPECT_EQ(int(q.scales[0]), 255) << tcemu::info(e).name;
    EXPECT_NE(int(q.scales[1]), 255) << tcemu::info(e).name;
    // test_exponent_nan_out: a NaN scale makes its block NaN, the other block stays finite.
    const std::vector<float> d = mx_dequantize(q);
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(d[i])) << i;
    for (int i = 4; i < 8; ++i) EXPECT_FALSE(std::isnan(d[i])) << i;
  }
}

TEST(MxPublished, ZeroBlockPerConvention) {
  const std::vector<float> x(32, 0.0f);
  // torchao FLOOR: exponent field 0 - 127 - 8, clamped to -127 -> code 0; OCP leaves it open.
  EXPECT_EQ(int(mx_quantize(x, 1, 32, opts(MxScaleMode::floor)).scales[0]), 0);
  // TE: cvt.rp.satfinite.ue8m0(0) = 0x00 (CUDA 13.0 host headers: 0 gives 0x00).
  EXPECT_EQ(int(mx_quantize(x, 1, 32, opts(MxScaleMode::rceil_sat)).scales[0]), 0);
}

}  // namespace

namespace {

// docs/quantization.md: with log2 rounded to f32, descale 32 * (1 + 2^-23) has log2 5 + 1.7e-7,
// which rounds to 5.0 (the f32 spacing at 5 is 2^-21): ceil gives 5 where the exact value
// gives 6, and the block's amax then clips. amax = 14336 + 2^-10 (the f32 above 1.75 * 2^13);
// amax / 448 rounds to 32 * (1 + 2^-23).
TEST(MxPublished, LegacyRceilF32Log2RoundsAwayTheExcess) {
  std::vector<float> x(32, 1.0f);
  x[0] = 14336.0f + 0x1p-10f;
  MxOptions o;
  o.scale = MxScaleMode::rceil_legacy;
  EXPECT_EQ(int(mx_quantize(x, 1, 32, o).scales[0]), 127 + 6);
  o.rceil_log2 = RceilLog2::f32_log2;
  const MxTensor q = mx_quantize(x, 1, 32, o);
  EXPECT_EQ(int(q.scales[0]), 127 + 5);
  EXPECT_EQ(int(q.codes[0]), 0x7E);  // 448.00003 clamped to 448
}

}  // namespace
