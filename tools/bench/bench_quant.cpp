// Quantization recipes on every core (issues 16 and 30): quantize and dequantize a 4096 x 4096
// f32 tensor (16.8 M elements) with each recipe's defaults (mxfp8, mxfp8-torchao, mx, nvfp4,
// nvfp4-2d, nvfp4 with the RHT, nvfp4 with stochastic rounding, fp8-current, fp8-block1x128,
// fp8-block128x128) on 1, 2, 4 and 16 threads (Exec{N}), on the fast path (emulator/src/quant_fast.hpp); and mxfp8 and nvfp4
// quantized by the scalar rules alone (QuantizeScalarCpu, one thread) for comparison;
// DequantizeInto: dequantize_into a buffer the benchmark keeps (no allocation of the result). The
// results are the same bits for every thread count and either path (quant_threads_test,
// quant_fast_test).
//
//   build/release/tools/bench/bench_quant --benchmark_filter='4096/.*/(1|2)/'
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "../../emulator/src/quant_fast.hpp"
#include "tcemu/quant_recipe.hpp"

namespace {

constexpr size_t kDim = 4096;

const std::vector<float>& input() {
  static const std::vector<float> x = [] {
    std::mt19937_64 g(7);
    std::normal_distribution<float> n(0.0f, 1.0f);
    std::vector<float> v(kDim * kDim);
    for (float& e : v) e = n(g);
    return v;
  }();
  return x;
}

// A preset by name; "nvfp4-rht" is nvfp4 with the 16-point RHT (TE's gradients), "nvfp4-sr"
// nvfp4 with stochastic rounding (cvt.rs, one random word per 4 elements).
tcemu::quant::Recipe recipe_named(const char* name) {
  const bool rht = std::strcmp(name, "nvfp4-rht") == 0, sr = std::strcmp(name, "nvfp4-sr") == 0;
  tcemu::quant::Recipe r = *tcemu::quant::find_recipe(rht || sr ? "nvfp4" : name);
  r.nvfp4.rht = rht;
  if (sr) r.nvfp4.round = tcemu::Round::rs;
  return r;
}

// The random words a recipe takes for a 4096 x 4096 tensor (none without stochastic rounding).
std::vector<uint32_t> random_words(const tcemu::quant::Recipe& r) {
  std::mt19937 g(3);
  std::vector<uint32_t> w(tcemu::quant::random_words_needed(r, kDim * kDim));
  for (uint32_t& v : w) v = g();
  return w;
}

void Quantize(benchmark::State& state, const char* recipe) {
  const tcemu::quant::Recipe r = recipe_named(recipe);
  const std::vector<float>& x = input();
  const std::vector<uint32_t> rbits = random_words(r);
  const tcemu::Exec exec{static_cast<int>(state.range(0))};
  for (auto _ : state) {
    tcemu::quant::Quantized q = tcemu::quant::quantize(r, x, kDim, kDim, rbits, exec).value;
    benchmark::DoNotOptimize(q.codes.data());
  }
  state.counters["elem/s"] = benchmark::Counter(static_cast<double>(x.size()) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

// The scalar rules alone (the fast path switched off for the run).
void QuantizeScalar(benchmark::State& state, const char* recipe) {
  tcemu::quant::detail::set_fast_quant(false);
  Quantize(state, recipe);
  tcemu::quant::detail::set_fast_quant(true);
}

void Dequantize(benchmark::State& state, const char* recipe) {
  const tcemu::quant::Recipe r = recipe_named(recipe);
  const std::vector<float>& x = input();
  const tcemu::quant::Quantized q = tcemu::quant::quantize(r, x, kDim, kDim, {}, tcemu::Exec{}).value;
  const tcemu::Exec exec{static_cast<int>(state.range(0))};
  for (auto _ : state) {
    std::vector<float> d = tcemu::quant::dequantize(r, q, exec).value;
    benchmark::DoNotOptimize(d.data());
  }
  state.counters["elem/s"] = benchmark::Counter(static_cast<double>(x.size()) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

// The same into a buffer the caller keeps (dequantize_into): no allocation of the result.
void DequantizeInto(benchmark::State& state, const char* recipe) {
  const tcemu::quant::Recipe r = recipe_named(recipe);
  const std::vector<float>& x = input();
  const tcemu::quant::Quantized q = tcemu::quant::quantize(r, x, kDim, kDim, {}, tcemu::Exec{}).value;
  const tcemu::Exec exec{static_cast<int>(state.range(0))};
  std::vector<float> d(x.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(tcemu::quant::dequantize_into(r, q, d, exec).value.data());
    benchmark::ClobberMemory();
  }
  state.counters["elem/s"] = benchmark::Counter(static_cast<double>(x.size()) * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

}  // namespace

// Wall-clock rates (UseRealTime) on 1, 2, 4 and 16 threads; and elements per CPU-second of
// the whole process (MeasureProcessCPUTime: every thread's CPU time counted) on 1 and 2, which
// shows whether splitting adds work on a machine too busy for wall-clock scaling.
#define TCEMU_QUANT_BENCH(fn, id, recipe)                                                           \
  BENCHMARK_CAPTURE(fn, id, recipe)->Name(#fn "4096/" recipe)->Arg(1)->Arg(2)->Arg(4)->Arg(16)   \
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);                             \
  BENCHMARK_CAPTURE(fn, id##_cpu, recipe)->Name(#fn "Cpu4096/" recipe)->Arg(1)->Arg(2)             \
      ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Iterations(2)

TCEMU_QUANT_BENCH(Quantize, mxfp8, "mxfp8");
TCEMU_QUANT_BENCH(Quantize, mxfp8_torchao, "mxfp8-torchao");
TCEMU_QUANT_BENCH(Quantize, mx, "mx");
TCEMU_QUANT_BENCH(Quantize, nvfp4, "nvfp4");
TCEMU_QUANT_BENCH(Quantize, nvfp4_2d, "nvfp4-2d");
TCEMU_QUANT_BENCH(Quantize, nvfp4_rht, "nvfp4-rht");
TCEMU_QUANT_BENCH(Quantize, nvfp4_sr, "nvfp4-sr");
TCEMU_QUANT_BENCH(Quantize, fp8_current, "fp8-current");
TCEMU_QUANT_BENCH(Quantize, fp8_block1x128, "fp8-block1x128");
TCEMU_QUANT_BENCH(Quantize, fp8_block128, "fp8-block128x128");
TCEMU_QUANT_BENCH(Dequantize, mxfp8, "mxfp8");
TCEMU_QUANT_BENCH(Dequantize, mxfp8_torchao, "mxfp8-torchao");
TCEMU_QUANT_BENCH(Dequantize, mx, "mx");
TCEMU_QUANT_BENCH(Dequantize, nvfp4, "nvfp4");
TCEMU_QUANT_BENCH(Dequantize, nvfp4_2d, "nvfp4-2d");
TCEMU_QUANT_BENCH(Dequantize, fp8_current, "fp8-current");
TCEMU_QUANT_BENCH(Dequantize, fp8_block1x128, "fp8-block1x128");
TCEMU_QUANT_BENCH(Dequantize, fp8_block128, "fp8-block128x128");
TCEMU_QUANT_BENCH(DequantizeInto, mxfp8, "mxfp8");
TCEMU_QUANT_BENCH(DequantizeInto, mx, "mx");
TCEMU_QUANT_BENCH(DequantizeInto, nvfp4, "nvfp4");
TCEMU_QUANT_BENCH(DequantizeInto, nvfp4_2d, "nvfp4-2d");
TCEMU_QUANT_BENCH(DequantizeInto, fp8_current, "fp8-current");
TCEMU_QUANT_BENCH(DequantizeInto, fp8_block1x128, "fp8-block1x128");
TCEMU_QUANT_BENCH(DequantizeInto, fp8_block128, "fp8-block128x128");
BENCHMARK_CAPTURE(QuantizeScalar, mxfp8, "mxfp8")->Name("QuantizeScalarCpu4096/mxfp8")->Arg(1)
    ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(QuantizeScalar, nvfp4, "nvfp4")->Name("QuantizeScalarCpu4096/nvfp4")->Arg(1)
    ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
