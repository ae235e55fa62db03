// The baseline every GEMM benchmark is read against: a plain f32 GEMM of 512 x 512 x 512
// (acc += a*b over K, B transposed) on one core, the host's native multiply-add rate.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <random>
#include <vector>

inline void plain_f32_gemm_512(benchmark::State& state) {
  constexpr int kN = 512;
  const size_t n = static_cast<size_t>(kN) * kN;
  std::vector<float> A(n), Bt(n), D(n);
  std::mt19937 r(4);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : A) x = u(r);
  for (auto& x : Bt) x = u(r);
  for (auto _ : state) {
    for (int m = 0; m < kN; ++m)
      for (int j = 0; j < kN; ++j) {
        float acc = 0;
        const float* a = &A[static_cast<size_t>(m) * kN];
        const float* b = &Bt[static_cast<size_t>(j) * kN];
        for (int k = 0; k < kN; ++k) acc += a[k] * b[k];
        D[static_cast<size_t>(m) * kN + j] = acc;
      }
    benchmark::DoNotOptimize(D.data());
  }
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(kN) * kN * kN * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}
