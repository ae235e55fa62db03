// Conversion throughput: the emulator's array API against the exact reference and, where the
// CUDA toolkit's headers exist, NVIDIA's own host conversion functions, in one run so that
// the ratios are visible. Items per second = conversions (or decodes) per second, one core.
//
//   build/tools/bench/bench_convert --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "tcemu/convert.hpp"
#include "tcemu_ref/convert_ref.hpp"

#ifdef TCEMU_HAVE_CUDA_HOST_HEADERS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wstrict-aliasing"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#pragma GCC diagnostic pop
#endif

namespace {

using tcemu::Fmt;

// Inputs: f32 values as a kernel would quantise them: normal values of moderate scale, a
// few of them beyond the destination's range, zeros and subnormals now and then.
const std::vector<uint32_t>& f32_inputs() {
  static const std::vector<uint32_t> v = [] {
    std::mt19937 rng(42);
    std::normal_distribution<float> nd(0.0f, 64.0f);
    std::vector<uint32_t> out(1 << 16);
    for (auto& u : out) {
      float f = nd(rng);
      std::memcpy(&u, &f, 4);
    }
    return out;
  }();
  return v;
}

const std::vector<uint8_t>& byte_inputs() {
  static const std::vector<uint8_t> v = [] {
    std::mt19937 rng(7);
    std::vector<uint8_t> out(1 << 16);
    for (auto& b : out) b = static_cast<uint8_t>(rng());
    return out;
  }();
  return v;
}

void convert_array(benchmark::State& st, Fmt to) {
  tcemu::ConvertOptions o;
  o.round = tcemu::Round::rn;
  o.satfinite = true;
  tcemu::Converter c(Fmt::f32, to, o);
  const auto& in = f32_inputs();
  std::vector<uint8_t> out(in.size() * tcemu::container_bytes(to));
  for (auto _ : st) {
    c.run(in.data(), out.data(), in.size(), nullptr, tcemu::Exec{1});  // one core
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * in.size()));
  st.SetLabel(c.has_fast_kernel() ? "array API, specialised kernel" : "array API, scalar core");
}

void convert_reference(benchmark::State& st, Fmt to) {
  tcemu::ConvertOptions o;
  o.round = tcemu::Round::rn;
  o.satfinite = true;
  const auto& in = f32_inputs();
  size_t i = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(tcemu::ref::convert(Fmt::f32, to, in[i++ & 0xffff], o).code);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
  st.SetLabel("exact reference (Boost)");
}

// Decoding 8-bit codes: the Decoded struct (sign, class, exponent, significand), and the
// e4m3 -> f32 conversion through the array API.
void decode_e4m3(benchmark::State& st) {
  const auto& in = byte_inputs();
  std::vector<tcemu::Decoded8> out(in.size());
  for (auto _ : st) {
    tcemu::decode_codes(Fmt::e4m3, in.data(), out.data(), in.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * in.size()));
  st.SetLabel("decode_codes: sign, class, exponent, significand");
}

void e4m3_to_f32_array(benchmark::State& st) {
  tcemu::Converter c(Fmt::e4m3, Fmt::f32, tcemu::ConvertOptions{});
  const auto& in = byte_inputs();
  std::vector<uint32_t> out(in.size());
  for (auto _ : st) {
    c.run(in.data(), out.data(), in.size(), nullptr, tcemu::Exec{1});  // one core
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * in.size()));
  st.SetLabel("array API");
}

#ifdef TCEMU_HAVE_CUDA_HOST_HEADERS
template <typename F>
void nvidia_host(benchmark::State& st, F f) {
  const auto& in = f32_inputs();
  std::vector<uint16_t> out(in.size());
  for (auto _ : st) {
    for (size_t i = 0; i < in.size(); ++i) {
      float x;
      std::memcpy(&x, &in[i], 4);
      out[i] = f(x);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * in.size()));
  st.SetLabel("NVIDIA host function (CUDA headers)");
}
#endif

}  // namespace

BENCHMARK_CAPTURE(convert_array, f32_to_e4m3, Fmt::e4m3);
BENCHMARK_CAPTURE(convert_array, f32_to_e5m2, Fmt::e5m2);
BENCHMARK_CAPTURE(convert_array, f32_to_e2m1, Fmt::e2m1);
BENCHMARK_CAPTURE(convert_array, f32_to_bf16, Fmt::bf16);
BENCHMARK_CAPTURE(convert_array, f32_to_f16, Fmt::f16);
BENCHMARK_CAPTURE(convert_reference, f32_to_e4m3, Fmt::e4m3);
BENCHMARK_CAPTURE(convert_reference, f32_to_e5m2, Fmt::e5m2);
BENCHMARK_CAPTURE(convert_reference, f32_to_e2m1, Fmt::e2m1);
BENCHMARK_CAPTURE(convert_reference, f32_to_bf16, Fmt::bf16);
BENCHMARK_CAPTURE(convert_reference, f32_to_f16, Fmt::f16);
BENCHMARK(decode_e4m3);
BENCHMARK(e4m3_to_f32_array);
#ifdef TCEMU_HAVE_CUDA_HOST_HEADERS
BENCHMARK_CAPTURE(nvidia_host, f32_to_e4m3, [](float x) {
  return static_cast<uint16_t>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
});
BENCHMARK_CAPTURE(nvidia_host, f32_to_e5m2, [](float x) {
  return static_cast<uint16_t>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2));
});
BENCHMARK_CAPTURE(nvidia_host, f32_to_e2m1, [](float x) {
  return static_cast<uint16_t>(__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest));
});
BENCHMARK_CAPTURE(nvidia_host, f32_to_bf16, [](float x) {
  __nv_bfloat16 b = __float2bfloat16_rn(x);
  uint16_t u;
  std::memcpy(&u, &b, 2);
  return u;
});
BENCHMARK_CAPTURE(nvidia_host, f32_to_f16, [](float x) {
  __half h = __float2half_rn(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
});
#endif

BENCHMARK_MAIN();
