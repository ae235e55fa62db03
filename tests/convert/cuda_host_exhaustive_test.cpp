// NVIDIA's host conversion functions (CUDA's cuda_fp8.h, cuda_fp6.h, cuda_fp4.h, cuda_fp16.h,
// cuda_bf16.h; included from the toolkit, never copied) against tcemu under the cuda-host
// convention, over all 2^32 f32 inputs, on 2 threads. Source: the CUDA 13.0 host headers (docs/sources.md).
//
// Labelled `long` (not in CI; several minutes). Built only when CMake found the headers
// (TCEMU_CUDA_HOST_HEADERS). Run it with:
//   cmake --build BUILD -j2 && ctest --test-dir BUILD -L long -R CudaHost --output-on-failure
#include <gtest/gtest.h>

#ifndef TCEMU_HAVE_CUDA_HOST_HEADERS
#error "built only with TCEMU_HAVE_CUDA_HOST_HEADERS"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <atomic>
#include <cctype>
#include <optional>
#include <bit>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "tcemu/convert.hpp"

namespace {

using tcemu::Fmt;
using tcemu::Round;

struct HostFn {
  const char* name;
  Fmt to;
  Round round;
  std::optional<bool> satfinite;
  uint32_t (*nv)(float);
};

uint32_t half_bits(__half h) {
  uint16_t s;
  std::memcpy(&s, &h, 2);
  return s;
}
uint32_t bf16_bits(__nv_bfloat16 h) {
  uint16_t s;
  std::memcpy(&s, &h, 2);
  return s;
}

const HostFn kFns[] = {
    {"__nv_cvt_float_to_fp8(E4M3, SATFINITE)", Fmt::e4m3, Round::rn, true,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }},
    {"__nv_cvt_float_to_fp8(E4M3, NOSAT)", Fmt::e4m3, Round::rn, false,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3); }},
    {"__nv_cvt_float_to_fp8(E5M2, SATFINITE)", Fmt::e5m2, Round::rn, true,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }},
    {"__nv_cvt_float_to_fp8(E5M2, NOSAT)", Fmt::e5m2, Round::rn, false,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2); }},
    {"__nv_cvt_float_to_fp6(E2M3, RoundNearest)", Fmt::e2m3, Round::rn, std::nullopt,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest); }},
    {"__nv_cvt_float_to_fp6(E2M3, RoundZero)", Fmt::e2m3, Round::rz, std::nullopt,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundZero); }},
    {"__nv_cvt_float_to_fp6(E3M2, RoundNearest)", Fmt::e3m2, Round::rn, std::nullopt,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest); }},
    {"__nv_cvt_float_to_fp6(E3M2, RoundZero)", Fmt::e3m2, Round::rz, std::nullopt,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundZero); }},
    {"__nv_cvt_float_to_fp4(E2M1, RoundNearest)", Fmt::e2m1, Round::rn, std::nullopt,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); }},
    {"__nv_cvt_float_to_fp4(E2M1, RoundZero)", Fmt::e2m1, Round::rz, std::nullopt,
     [](float x) -> uint32_t { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero); }},
    {"__nv_cvt_float_to_e8m0(SATFINITE, RoundZero)", Fmt::ue8m0, Round::rz, true,
     [](float x) -> uint32_t { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero); }},
    {"__nv_cvt_float_to_e8m0(NOSAT, RoundZero)", Fmt::ue8m0, Round::rz, false,
     [](float x) -> uint32_t { return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero); }},
    {"__nv_cvt_float_to_e8m0(SATFINITE, RoundPosInf)", Fmt::ue8m0, Round::ru, true,
     [](float x) -> uint32_t { return __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf); }},
    {"__nv_cvt_float_to_e8m0(NOSAT, RoundPosInf)", Fmt::ue8m0, Round::ru, false,
     [](float x) -> uint32_t { return __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf); }},
    {"__float2half_rn", Fmt::f16, Round::rn, std::nullopt, [](float x) { return half_bits(__float2half_rn(x)); }},
    {"__float2half_rz", Fmt::f16, Round::rz, std::nullopt, [](float x) { return half_bits(__float2half_rz(x)); }},
    {"__float2half_rd", Fmt::f16, Round::rd, std::nullopt, [](float x) { return half_bits(__float2half_rd(x)); }},
    {"__float2half_ru", Fmt::f16, Round::ru, std::nullopt, [](float x) { return half_bits(__float2half_ru(x)); }},
    {"__float2bfloat16_rn", Fmt::bf16, Round::rn, std::nullopt,
     [](float x) { return bf16_bits(__float2bfloat16_rn(x)); }},
    {"__float2bfloat16_rz", Fmt::bf16, Round::rz, std::nullopt,
     [](float x) { return bf16_bits(__float2bfloat16_rz(x)); }},
    {"__float2bfloat16_rd", Fmt::bf16, Round::rd, std::nullopt,
     [](float x) { return bf16_bits(__float2bfloat16_rd(x)); }},
    {"__float2bfloat16_ru", Fmt::bf16, Round::ru, std::nullopt,
     [](float x) { return bf16_bits(__float2bfloat16_ru(x)); }},
};

void PrintTo(const HostFn& f, std::ostream* os) { *os << f.name; }

class CudaHost : public ::testing::TestWithParam<HostFn> {};

TEST_P(CudaHost, AllF32Inputs) {
  const HostFn& fn = GetParam();
  tcemu::OptionRequest req;
  req.round = fn.round;
  req.satfinite = fn.satfinite;
  tcemu::Resolved r = tcemu::resolve("cuda-host", Fmt::f32, fn.to, req);
  ASSERT_TRUE(r.options.has_value()) << r.error;
  const tcemu::Converter conv(Fmt::f32, fn.to, *r.options);
  const size_t out_bytes = tcemu::container_bytes(fn.to);

  std::atomic<uint64_t> mismatches{0};
  std::mutex mu;
  std::vector<std::string> examples;
  auto worker = [&](uint64_t begin, uint64_t end) {
    constexpr uint64_t kChunk = 1 << 16;
    std::vector<uint32_t> src(kChunk);
    std::vector<unsigned char> dst(kChunk * out_bytes);
    for (uint64_t base = begin; base < end; base += kChunk) {
      for (uint64_t i = 0; i < kChunk; ++i) src[i] = static_cast<uint32_t>(base + i);
      conv.run(src.data(), dst.data(), kChunk);
      for (uint64_t i = 0; i < kChunk; ++i) {
        uint32_t got = 0;
        std::memcpy(&got, dst.data() + i * out_bytes, out_bytes);
        uint32_t want = fn.nv(std::bit_cast<float>(src[i]));
        if (got != want && mismatches++ < 20) {
          std::ostringstream s;
          s << std::hex << "f32 0x" << src[i] << ": NVIDIA 0x" << want << ", tcemu 0x" << got;
          std::lock_guard<std::mutex> lock(mu);
          examples.push_back(s.str());
        }
      }
    }
  };
  const uint64_t half = uint64_t{1} << 31;
  std::thread t1(worker, 0, half), t2(worker, half, 2 * half);
  t1.join();
  t2.join();
  for (const auto& e : examples) ADD_FAILURE() << fn.name << ": " << e;
  EXPECT_EQ(mismatches.load(), 0u) << fn.name;
}

std::string fn_name(const ::testing::TestParamInfo<HostFn>& p) {
  std::string s;
  for (const char* c = p.param.name; *c; ++c) s += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(NvidiaHostFunctions, CudaHost, ::testing::ValuesIn(kFns), fn_name);

}  // namespace
