// NVIDIA's own host conversions (CUDA 13.0 headers; docs/sources.md) as an oracle for the
// reference: the headers are included from the toolkit, never copied. Only built where
// CMake found cuda_fp8.h. Each comparison maps a CUDA function to the options that
// docs/conversions.md gives for it (the `cuda-host` convention): FP8 rn sat/NOSAT with the
// canonical NaN, FP6/FP4 rn/rz saturating with NaN -> +MAX, ue8m0 rz/rp with the sign
// ignored, f16/bf16 in the four IEEE modes.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <bit>
#include <random>
#include <vector>

#include "tcemu_ref/convert_ref.hpp"

namespace {

namespace ref = tcemu::ref;
using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;

ConvertOptions with(Round r, bool sat) {
  ConvertOptions o;
  o.round = r;
  o.satfinite = sat;
  return o;
}

// f32 inputs: every f16 value (exact in f32, every binade of the narrow formats), the f32
// neighbours of each (ties and near-ties), and random bit patterns.
const std::vector<uint32_t>& inputs() {
  static std::vector<uint32_t> v;
  if (!v.empty()) return v;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t bits = static_cast<uint32_t>(ref::convert(Fmt::f16, Fmt::f32, h, ConvertOptions{}).code);
    v.push_back(bits);
    v.push_back(bits + 1);
    v.push_back(bits - 1);
  }
  std::mt19937 g(2026);
  for (int i = 0; i < 300000; ++i) v.push_back(static_cast<uint32_t>(g()));
  // Around the FP8/ue8m0 extremes.
  for (float x : {464.0f, 448.0f, 480.0f, 61440.0f, 57344.0f, 0x1p-127f, 0x1p127f, 0x1.8p127f, 0x1p-10f, 0x1p-17f})
    for (int d = -3; d <= 3; ++d) v.push_back(std::bit_cast<uint32_t>(x) + static_cast<uint32_t>(d));
  return v;
}

template <class Cuda>
void compare_all(const char* what, Fmt to, const ConvertOptions& o, Cuda cuda) {
  int mismatches = 0;
  for (uint32_t bits : inputs()) {
    const uint64_t want = cuda(std::bit_cast<float>(bits));
    const uint64_t got = ref::convert(Fmt::f32, to, bits, o).code;
    if (got != want && ++mismatches <= 10)
      ADD_FAILURE() << what << ": f32 0x" << std::hex << bits << " (" << std::bit_cast<float>(bits) << "): CUDA 0x"
                    << want << ", reference 0x" << got;
  }
  EXPECT_EQ(mismatches, 0) << what;
}

TEST(CudaHostOracle, Fp8) {
  for (auto [sat, cs] : {std::pair{true, __NV_SATFINITE}, std::pair{false, __NV_NOSAT}}) {
    compare_all("e4m3", Fmt::e4m3, with(Round::rn, sat),
                [cs](float x) { return __nv_cvt_float_to_fp8(x, cs, __NV_E4M3); });
    compare_all("e5m2", Fmt::e5m2, with(Round::rn, sat),
                [cs](float x) { return __nv_cvt_float_to_fp8(x, cs, __NV_E5M2); });
  }
}

TEST(CudaHostOracle, Fp6Fp4) {
  for (auto [r, cr] : {std::pair{Round::rn, cudaRoundNearest}, std::pair{Round::rz, cudaRoundZero}}) {
    compare_all("e2m1", Fmt::e2m1, with(r, true), [cr](float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cr); });
    compare_all("e2m3", Fmt::e2m3, with(r, true), [cr](float x) { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cr); });
    compare_all("e3m2", Fmt::e3m2, with(r, true), [cr](float x) { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cr); });
  }
}

TEST(CudaHostOracle, Ue8m0) {
  for (auto [r, cr] : {std::pair{Round::rz, cudaRoundZero}, std::pair{Round::ru, cudaRoundPosInf}}) {
    for (auto [sat, cs] : {std::pair{true, __NV_SATFINITE}, std::pair{false, __NV_NOSAT}}) {
      compare_all("ue8m0", Fmt::ue8m0, with(r, sat), [cr, cs](float x) { return __nv_cvt_float_to_e8m0(x, cs, cr); });
    }
  }
}

TEST(CudaHostOracle, F16Bf16) {
  compare_all("f16 rn", Fmt::f16, with(Round::rn, false), [](float x) { return __half_as_ushort(__float2half_rn(x)); });
  compare_all("f16 rz", Fmt::f16, with(Round::rz, false), [](float x) { return __half_as_ushort(__float2half_rz(x)); });
  compare_all("f16 rd", Fmt::f16, with(Round::rd, false), [](float x) { return __half_as_ushort(__float2half_rd(x)); });
  compare_all("f16 ru", Fmt::f16, with(Round::ru, false), [](float x) { return __half_as_ushort(__float2half_ru(x)); });
  compare_all("bf16 rn", Fmt::bf16, with(Round::rn, false),
              [](float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x)); });
  compare_all("bf16 rz", Fmt::bf16, with(Round::rz, false),
              [](float x) { return __bfloat16_as_ushort(__float2bfloat16_rz(x)); });
  compare_all("bf16 rd", Fmt::bf16, with(Round::rd, false),
              [](float x) { return __bfloat16_as_ushort(__float2bfloat16_rd(x)); });
  compare_all("bf16 ru", Fmt::bf16, with(Round::ru, false),
              [](float x) { return __bfloat16_as_ushort(__float2bfloat16_ru(x)); });
}

TEST(CudaHostOracle, UpConversionsAreExact) {
  const ConvertOptions rn;
  for (uint32_t c = 0; c < 256; ++c) {
    const auto s = static_cast<__nv_fp8_storage_t>(c);
    EXPECT_EQ(ref::convert(Fmt::e4m3, Fmt::f16, c, rn).code, __half_raw(__nv_cvt_fp8_to_halfraw(s, __NV_E4M3)).x) << c;
    EXPECT_EQ(ref::convert(Fmt::e5m2, Fmt::f16, c, rn).code, __half_raw(__nv_cvt_fp8_to_halfraw(s, __NV_E5M2)).x) << c;
    EXPECT_EQ(ref::convert(Fmt::ue8m0, Fmt::bf16, c, rn).code, __nv_bfloat16_raw(__nv_cvt_e8m0_to_bf16raw(s)).x) << c;
    if (c < 64) {
      const auto s6 = static_cast<__nv_fp6_storage_t>(c);
      EXPECT_EQ(ref::convert(Fmt::e2m3, Fmt::f16, c, rn).code, __half_raw(__nv_cvt_fp6_to_halfraw(s6, __NV_E2M3)).x) << c;
      EXPECT_EQ(ref::convert(Fmt::e3m2, Fmt::f16, c, rn).code, __half_raw(__nv_cvt_fp6_to_halfraw(s6, __NV_E3M2)).x) << c;
    }
    if (c < 16) {
      const auto s4 = static_cast<__nv_fp4_storage_t>(c);
      EXPECT_EQ(ref::convert(Fmt::e2m1, Fmt::f16, c, rn).code, __half_raw(__nv_cvt_fp4_to_halfraw(s4, __NV_E2M1)).x) << c;
    }
  }
}

}  // namespace
