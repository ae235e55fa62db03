// The recipes follow today's upstream arithmetic: the minimal cases of issue 14 (expected bytes
// as the issue gives them, checked against pytorch/ao 36027d82d1ad9949597ea16002ff4940374b1b94
// and NVIDIA/TransformerEngine d0067d0da6cb01811b8072a7d304f0e00344ce2b), upstream's own
// expected values (TE tests/pytorch/mxfp8/test_mxfp8_dequantize_extreme_scales.py, torchao
// test_e8m0_scale_to_reciprocal_fp32*, TE tests/cpp/test_common.h's reference rules,
// torchao custom_fp_utils.py's cast), and each older variant with its release range.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "quant_ref.hpp"
#include "tcemu/quant.hpp"
#include "tcemu/quant_nvfp4.hpp"
#include "tcemu/quant_recipe.hpp"

namespace {

using tcemu::Fmt;
using namespace tcemu::quant;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
float f(uint32_t b) { return std::bit_cast<float>(b); }
float bf(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

std::vector<float> block(float v, float w, size_t n = 32) {
  std::vector<float> x(n, 0.0f);
  x[0] = v;
  x[1] = w;
  return x;
}

Quantized run(const char* preset, const std::vector<float>& x, Fmt input = Fmt::f32) {
  Recipe r = *find_recipe(preset);
  r.input = input;
  return quantize(r, x, 1, x.size()).value;
}

// ---- 1. torchao to_mx FLOOR / CEIL / EVEN (5d73a0c10): x * 2^(127-e), Inf amax -> 0xff ----

TEST(Issue14, ToMxSmallestNormalBlock) {
  const std::vector<float> x(32, f(0x00800000));  // 2^-126
  Quantized q = run("mx", x);
  EXPECT_EQ(int(q.scale_codes[0]), 0x00);
  for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x40);  // 2^-126 * 2^127 = 2
  q = run("mxfp4", x);
  EXPECT_EQ(int(q.scale_codes[0]), 0x00);
  for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x4);
  // bf16 input of the smallest subnormal 2^-133: 2^-133 * 2^127 = 2^-6 = e4m3 0x08.
  q = run("mx", std::vector<float>(32, bf(0x0001)), Fmt::bf16);
  EXPECT_EQ(int(q.scale_codes[0]), 0x00);
  for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x08);
}

TEST(Issue14, ToMxInfAndNanBlocks) {
  for (const char* preset : {"mx", "mxfp8-torchao"}) {
    std::vector<float> x(32, 1.0f);
    x[0] = kInf;
    Quantized q = run(preset, x);
    EXPECT_EQ(int(q.scale_codes[0]), 0xFF) << preset;
    for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x7F) << preset;
    x[0] = kNaN;
    q = run(preset, x);
    EXPECT_EQ(int(q.scale_codes[0]), 0xFF) << preset;
    for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x7F) << preset;
  }
}

TEST(Issue14, ToMxEvenRoundsAmaxToInf) {
  Recipe r = *find_recipe("mx");
  r.mx.scale = MxScaleMode::even;
  const std::vector<float> x = block(0x1.fp+127f, 0.0f);
  const Quantized q = quantize(r, x, 1, 32).value;
  EXPECT_EQ(int(q.scale_codes[0]), 0xFF);
  for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x7F);
}

TEST(Issue14, ToMxOlderReleaseVariant) {
  // torchao <= v0.18.0 (variant torchao-0.18): x / max(2^(e-127), 2^-126), Inf amax finite.
  Recipe r = *find_recipe("mx");
  r.mx.variant = MxVariant::torchao_0_18;
  Quantized q = quantize(r, std::vector<float>(32, f(0x00800000)), 1, 32).value;
  EXPECT_EQ(int(q.scale_codes[0]), 0x00);
  EXPECT_EQ(int(q.codes[0]), 0x38);  // 2^-126 / 2^-126 = 1
  std::vector<float> x(32, 1.0f);
  x[0] = kInf;
  q = quantize(r, x, 1, 32).value;
  EXPECT_EQ(int(q.scale_codes[0]), 0xF7);
  EXPECT_EQ(int(q.codes[0]), 0x7E);
  EXPECT_EQ(int(q.codes[1]), 0x00);
  r = *find_recipe("mxfp4");
  r.mx.variant = MxVariant::torchao_0_18;
  q = quantize(r, std::vector<float>(32, f(0x00800000)), 1, 32).value;
  EXPECT_EQ(int(q.codes[0]), 0x2);
  // A variant of another scale mode is refused.
  r = *find_recipe("mxfp8");
  r.mx.variant = MxVariant::torchao_0_18;
  EXPECT_EQ(quantize(r, x, 1, 32).error, mx_options_error(r.mx));
  EXPECT_FALSE(mx_options_error(r.mx).empty());
}

// torchao's CUDA MXFP8 kernel (torchao/csrc/cuda/mx_kernels/mxfp8_quantize.cuh at 36027d8):
// FLOOR is cvt.rz.ue8m0 (no saturation) of amax * 2^-8 in f32. It agrees with to_mx except where
// that product rounds in the f32 subnormal range up to the next power of two.
TEST(Issue14, TorchaoCudaFloorPath) {
  MxOptions py, cu;
  py.scale = cu.scale = MxScaleMode::floor;
  cu.floor_path = TorchaoFloorPath::cuda;
  // amax = 2^-119 (2 - 2^-23): amax * 2^-8 = 2^-126 - 2^-150, a tie between the largest
  // subnormal (odd) and 2^-126 (even): RN gives 2^-126, so the kernel's scale is 1, to_mx's 0.
  EXPECT_EQ(int(mx_scale_code(f(0x047FFFFF), py)), 0);
  EXPECT_EQ(int(mx_scale_code(f(0x047FFFFF), cu)), 1);
  // Everywhere else the two agree: the contract's values and the specials.
  for (uint32_t b : {0x00000000u, 0x00000001u, 0x00800000u, 0x03FFFFFFu, 0x04000000u, 0x3F800000u, 0x43E00000u,
                     0x43F00000u, 0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u})
    EXPECT_EQ(int(mx_scale_code(f(b), cu)), int(mx_scale_code(f(b), py))) << std::hex << b;
  // Only for FLOOR with e4m3.
  cu.elem = Fmt::e5m2;
  EXPECT_THROW(mx_quantize(std::vector<float>(32, 1.0f), 1, 32, cu), std::invalid_argument);
}

// ---- 2. TE MXFP8 quantize: exp2f_rcp (71971e33d) maps 0 to 2^127 and 0xFE to 2^-127 ----

TEST(Issue14, TeMxfp8Quantize) {
  for (const char* preset : {"mxfp8", "mxfp8-e5m2"}) {
    Quantized q = run(preset, std::vector<float>(32, f(0x00800000)));
    EXPECT_EQ(int(q.scale_codes[0]), 0x00) << preset;
    for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x40) << preset;  // 2.0 is 0x40 in e4m3 and in e5m2
  }
  std::vector<float> x(32, 0.0f);
  x[0] = kInf;
  x[1] = std::numeric_limits<float>::max();
  x[2] = 1.0f;
  const Quantized q = run("mxfp8", x);
  EXPECT_EQ(int(q.scale_codes[0]), 0xFE);
  EXPECT_EQ(int(q.codes[0]), 0x7E);
  EXPECT_EQ(int(q.codes[1]), 0x40);
  EXPECT_EQ(int(q.codes[2]), 0x00);
  // Columnwise and 2D blocks take the same arithmetic.
  for (BlockAxis axis : {BlockAxis::columnwise, BlockAxis::tile2d}) {
    Recipe r = *find_recipe("mxfp8");
    r.mx.axis = axis;
    const Quantized c = quantize(r, std::vector<float>(32 * 32, f(0x00800000)), 32, 32).value;
    for (uint8_t s : c.scale_codes) EXPECT_EQ(int(s), 0x00);
    for (uint8_t e : c.codes) EXPECT_EQ(int(e), 0x40);
  }
}

// TE tests/cpp/test_common.h float_to_e8m0 / exp2f_rcp, transcribed in quant_ref.hpp, against
// the emulator on every code and on the boundaries of the rounding.
TEST(Issue14, TeReferenceRules) {
  for (int e = 0; e < 256; ++e)
    EXPECT_EQ(qref::bits(te_exp2f_rcp(static_cast<uint8_t>(e))), qref::bits(qref::te_exp2f_rcp(static_cast<uint8_t>(e)))) << e;
  const uint32_t probes[] = {0x00000000, 0x00000001, 0x003FFFFF, 0x00400000, 0x00400001, 0x007FFFFF, 0x00800000,
                             0x00800001, 0x3F800000, 0x3F800001, 0x7EFFFFFF, 0x7F000000, 0x7F000001, 0x7F7FFFFF,
                             0x7F800000, 0x7FC00000};
  for (uint32_t b : probes) EXPECT_EQ(int(e8m0_round_up(f(b), true)), int(qref::te_float_to_e8m0(f(b)))) << std::hex << b;
}

// ---- 3. TE MXFP8 dequantize: ptx::exp2f (4ff5fdfed) ----

TEST(Issue14, TeMxfp8Dequantize) {
  // tests/pytorch/mxfp8/test_mxfp8_dequantize_extreme_scales.py: code 56 (1.0) under scale 0 is
  // 2^-127, under scale 255 NaN.
  EXPECT_EQ(qref::bits(mx_dequantize_element(Fmt::e4m3, 56, 0, MxDequant::te)), 0x00400000u);
  EXPECT_TRUE(std::isnan(mx_dequantize_element(Fmt::e4m3, 56, 255, MxDequant::te)));
  // The issue's cases: 0x40 under 0x00 gives 2^-126; 0x38 under 0xff gives NaN.
  EXPECT_EQ(qref::bits(mx_dequantize_element(Fmt::e4m3, 0x40, 0x00, MxDequant::te)), 0x00800000u);
  EXPECT_EQ(qref::bits(mx_dequantize_element(Fmt::e4m3, 0x38, 0xFF, MxDequant::te)), 0x7FFFFFFFu);
  // TE <= v2.18 (te-2.18): bits e << 23, so 0 -> +0 and 0xFF -> +Inf.
  EXPECT_EQ(qref::bits(mx_dequantize_element(Fmt::e4m3, 0x40, 0x00, MxDequant::te_2_18)), 0u);
  EXPECT_EQ(mx_dequantize_element(Fmt::e4m3, 0x38, 0xFF, MxDequant::te_2_18), kInf);
  // Every scale code against the transcribed ptx::exp2f, times 1.0.
  for (int e = 0; e < 256; ++e) {
    const float got = mx_dequantize_element(Fmt::e4m3, 0x38, static_cast<uint8_t>(e), MxDequant::te);
    EXPECT_EQ(qref::bits(got), qref::bits(qref::te_exp2f(static_cast<uint8_t>(e)))) << e;
  }
}

// ---- torchao's reciprocal and e8m0 rules (test_e8m0_scale_to_reciprocal_fp32*) ----

TEST(Issue14, TorchaoReciprocalAndRceilRules) {
  EXPECT_EQ(qref::bits(torchao_e8m0_reciprocal(254)), 0x00400000u);  // asserted by torchao's CUDA test
  EXPECT_EQ(qref::bits(torchao_e8m0_reciprocal(255)), 0x7F800001u);
  for (int e = 0; e < 256; ++e)
    EXPECT_EQ(qref::bits(torchao_e8m0_reciprocal(static_cast<uint8_t>(e))), qref::torchao_reciprocal_bits(static_cast<uint8_t>(e))) << e;
  // _f32_to_e8m0_rceil against the emulator's cvt.rp.ue8m0 (no satfinite) on random f32 bits.
  uint32_t s = 12345;
  for (int i = 0; i < 20000; ++i) {
    s = s * 1664525u + 1013904223u;
    const uint32_t b = s & 0x7FFFFFFFu;
    EXPECT_EQ(int(e8m0_round_up(f(b), false)), int(qref::torchao_f32_to_e8m0_rceil(f(b)))) << std::hex << b;
  }
}

// torchao's FP6/FP4 bit trick (custom_fp_utils.py), transcribed in quant_ref.hpp, against the
// emulator's torchao cast: every finite f32 pattern class and the GPU's NaN.
TEST(Issue14, TorchaoFloatxCast) {
  struct F { Fmt fmt; int e, m; };
  for (const F& t : {F{Fmt::e2m1, 2, 1}, F{Fmt::e2m3, 2, 3}, F{Fmt::e3m2, 3, 2}}) {
    EXPECT_EQ(int(torchao_floatx_nan_code(t.fmt, 0x7FFFFFFF)), int(qref::torchao_f32_to_floatx(0x7FFFFFFF, t.e, t.m)));
    // Through the recipe: a block with NaN gets scale 0xFF and every element the NaN code.
    Recipe r = *find_recipe("mx");
    r.mx.elem = t.fmt;
    std::vector<float> x(32, 1.0f);
    x[3] = kNaN;
    const Quantized q = quantize(r, x, 1, 32).value;
    EXPECT_EQ(int(q.scale_codes[0]), 0xFF);
    for (uint8_t c : q.codes) EXPECT_EQ(int(c), int(qref::torchao_f32_to_floatx(0x7FFFFFFF, t.e, t.m)));
    // Finite values: scale code 127 (multiplier 1) leaves x unchanged, so the element code is
    // the cast of the (clamped) x itself.
    uint32_t s = 777;
    for (int i = 0; i < 4000; ++i) {
      s = s * 1664525u + 1013904223u;
      const float v = std::ldexp(static_cast<float>(s >> 8) / 16777216.0f, static_cast<int>(s % 12) - 8) * ((s & 1) ? -1.0f : 1.0f);
      MxOptions o;
      o.elem = t.fmt;
      o.scale = MxScaleMode::floor;
      const float mx = mx_max_norm(t.fmt);
      const float clamped = v > mx ? mx : v < -mx ? -mx : v;
      EXPECT_EQ(int(mx_element_code(v, 127, o)), int(qref::torchao_f32_to_floatx(qref::bits(clamped), t.e, t.m)))
          << tcemu::info(t.fmt).name << " " << v;
    }
  }
}

// ---- 4. nvfp4-torchao: x * ((1 / per_tensor) / sfb) (5c0c81487) ----

TEST(Issue14, Nvfp4TorchaoReciprocalOrder) {
  const std::vector<float> x = block(0.8f, 0.1f, 16);
  Quantized q = run("nvfp4-torchao", x);
  EXPECT_EQ(int(q.codes[1]), 0x1);  // 0.1 scales to 0x1.7ffffep-1, below 0.75
  // The scaled value itself, re-derived: pts = 0.8 / 2688, sfb = e4m3(0.8 / 6 / pts) = 448.
  const float pts = 0.8f / 2688.0f;
  EXPECT_EQ(q.global_scale, pts);
  EXPECT_EQ(int(q.scale_codes[0]), 0x7E);
  EXPECT_EQ(0.1f * ((1.0f / pts) / 448.0f), 0x1.7ffffep-1f);
  // torchao <= v0.16.0 (order torchao-0.16): x / (per_tensor * sfb) is exactly 0.75 -> 0x2.
  Recipe r = *find_recipe("nvfp4-torchao");
  r.nvfp4.order = Nvfp4Order::torchao_0_16;
  q = quantize(r, x, 1, 16).value;
  EXPECT_EQ(int(q.codes[1]), 0x2);
}

// ---- 5. nvfp4 --order torchao-single: x * (1 / sfb) (a302c10bb) ----

TEST(Issue14, Nvfp4TorchaoSingleReciprocal) {
  Recipe r = *find_recipe("nvfp4");
  r.nvfp4.order = Nvfp4Order::torchao_single;
  const std::vector<float> x = block(22.0f, 18.75f, 16);
  Quantized q = quantize(r, x, 1, 16).value;
  EXPECT_EQ(int(q.scale_codes[0]), 0x47);  // e4m3(22 / 6) = 3.75
  EXPECT_EQ(int(q.codes[1]), 0x7);         // 18.75 * f32(1/3.75) = 5.0000005 -> 6
  // Dequantizing needs no per-tensor scale: sfb * element.
  Recipe d = r;
  Quantized only = q;
  only.global_scale = 12345.0f;  // ignored: the one-level order has no per-tensor scale
  const std::vector<float> back = dequantize(d, only).value;
  EXPECT_EQ(back[1], 6.0f * 3.75f);
  EXPECT_FALSE(nvfp4_has_global(Nvfp4Order::torchao_single));
  // torchao <= v0.17.0 (torchao-single-0.17): 18.75 / 3.75 = 5 exactly, a tie to even 4 (0x6).
  r.nvfp4.order = Nvfp4Order::torchao_single_0_17;
  q = quantize(r, x, 1, 16).value;
  EXPECT_EQ(int(q.codes[1]), 0x6);
}

// ---- 6. nvfp4 --fast-math with bf16 input: fma.rn.f32.bf16(x, coef, +0) ----

TEST(Issue14, Nvfp4FastMathFmaPlusZero) {
  Recipe r = *find_recipe("nvfp4");
  r.nvfp4.fast_math = true;
  std::vector<float> x = block(1.0f, -0.0f, 16);
  r.input = Fmt::bf16;
  Quantized q = quantize(r, x, 1, 16).value;
  EXPECT_EQ(int(q.codes[1]), 0x0);  // -0 * coef + (+0) = +0
  // f32 input: TE's non-tuned kernel ignores use_fast_math and multiplies: -0 stays -0.
  r.input = Fmt::f32;
  q = quantize(r, x, 1, 16).value;
  EXPECT_EQ(int(q.codes[1]), 0x8);
  // A negative value that rounds to zero keeps its sign through the fma (nonzero exact result).
  r.input = Fmt::bf16;
  x = block(6.0f, -bf(0x3C80), 16);  // S_enc 448, sfb 448, coef 1: -2^-6 rounds to -0 in e2m1
  q = quantize(r, x, 1, 16).value;
  EXPECT_EQ(int(q.codes[1]), 0x8);
}

// TE's NVFP4 kernels and its C++ test reference (tests/cpp/operator/test_cast_nvfp4_transpose.cu)
// disagree in two corners; the kernels are the default, the reference an option.
TEST(Issue14, TeNvfp4KernelVersusTestReference) {
  Nvfp4Options kernel, reference;
  reference.te_test_reference = true;
  // A block whose scale rounds to 0 (block amax 2^-20 under S_enc = 2688 / 6 = 448: sfb =
  // e4m3(2^-20 * 74.67) = 0): the kernel multiplies by FLT_MAX (its 2^-20 saturates to 6, 0x7),
  // the reference by 0 (0x0).
  std::vector<float> x(32, 0.0f);
  x[0] = 6.0f;
  x[16] = 0x1p-20f;
  Nvfp4Tensor k = nvfp4_quantize(x, 1, 32, kernel), r = nvfp4_quantize(x, 1, 32, reference);
  EXPECT_EQ(int(k.scales[1]), 0);
  EXPECT_EQ(int(r.scales[1]), 0);
  EXPECT_EQ(int(k.codes[16]), 0x7);
  EXPECT_EQ(int(r.codes[16]), 0x0);
  // Fast math: the reference caps S_enc at bf16 max, the kernel at FLT_MAX.
  kernel.fast_math = reference.fast_math = true;
  kernel.input = reference.input = Fmt::bf16;
  const std::vector<float> tiny(16, 0x1p-120f);
  EXPECT_EQ(nvfp4_quantize(tiny, 1, 16, kernel).global_scale, std::numeric_limits<float>::max());
  EXPECT_EQ(nvfp4_quantize(tiny, 1, 16, reference).global_scale, 0x1.FEp127f);
  reference.tile2d = true;
  EXPECT_THROW(nvfp4_quantize(tiny, 16, 1, reference), std::invalid_argument);
}

// NVFP4 blocks with NaN, Inf and zeros, worked out by hand from each upstream file.
TEST(Issue14, Nvfp4NanInfBlocks) {
  std::vector<float> x(32, 0.0f);
  x[0] = kNaN;
  x[1] = 1.0f;
  x[16] = kInf;
  x[17] = 2.0f;
  // TE: fmaxf drops NaN, amax Inf gives S_enc 1; block 0: sfb = e4m3(1/6) = 0.171875 (0x23),
  // 1 * (1/0.171875) = 5.82 -> 6; NaN -> cvt.satfinite +6; block 1: sfb saturates to 448 (0x7e),
  // Inf * (1/448) -> +6, 2/448 -> 0.
  Nvfp4Options te;
  Nvfp4Tensor q = nvfp4_quantize(x, 1, 32, te);
  EXPECT_EQ(q.global_scale, 1.0f);
  EXPECT_EQ(int(q.scales[0]), 0x23);
  EXPECT_EQ(int(q.scales[1]), 0x7E);
  EXPECT_EQ(int(q.codes[0]), 0x7);
  EXPECT_EQ(int(q.codes[1]), 0x7);
  EXPECT_EQ(int(q.codes[2]), 0x0);
  EXPECT_EQ(int(q.codes[16]), 0x7);
  EXPECT_EQ(int(q.codes[17]), 0x0);
  // torchao two-level: torch.amax is NaN, so per_tensor, every block scale (0x7f) and every
  // element (x * NaN: the bit-trick code 0x4) are NaN.
  Nvfp4Options ao;
  ao.order = Nvfp4Order::torchao;
  q = nvfp4_quantize(x, 1, 32, ao);
  EXPECT_EQ(qref::bits(q.global_scale), 0x7FFFFFFFu);
  for (uint8_t s : q.scales) EXPECT_EQ(int(s), 0x7F);
  for (uint8_t c : q.codes) EXPECT_EQ(int(c), 0x4);
  // Without the NaN: per_tensor = Inf; block 0: Inf / Inf = NaN (0x7f, codes 0x4); block 1:
  // (2/6) / Inf = 0, clamped to 2^-6 (0x08); (1/Inf) / 2^-6 = 0, so every element is 0.
  x[0] = 0.0f;
  x[1] = kInf;
  x[16] = 0.0f;
  q = nvfp4_quantize(x, 1, 32, ao);
  EXPECT_EQ(int(q.scales[0]), 0x7F);
  EXPECT_EQ(int(q.scales[1]), 0x08);
  EXPECT_EQ(int(q.codes[0]), 0x4);
  EXPECT_EQ(int(q.codes[17]), 0x0);
  // torchao one-level: block 1's Inf / 6 clamps to 448 (0x7e), Inf * (1/448) clamps to 6 (0x7).
  ao.order = Nvfp4Order::torchao_single;
  x[16] = kInf;
  q = nvfp4_quantize(x, 1, 32, ao);
  EXPECT_EQ(int(q.scales[0]), 0x7E);
  EXPECT_EQ(int(q.codes[1]), 0x7);
  EXPECT_EQ(int(q.scales[1]), 0x7E);
  EXPECT_EQ(int(q.codes[16]), 0x7);
  EXPECT_EQ(int(q.codes[17]), 0x0);
}

}  // namespace
