// Real-size GEMMs (issue 16): emulated multiply-adds per second of mma() on a 512^3 GEMM per
// core (Exec{1}) for the entries users run most, the plain f32 triple loop beside them, and
// the threaded mma (mma() with Exec{t}) on 1024^3 with 1, 2, 4 and 16 threads. Per-core rates
// are per CPU-second (Google Benchmark's default for kIsRate counters); the thread-scaling
// benchmarks use real time (UseRealTime), so their MAC/s is wall-clock throughput.
//
//   build/release/tools/bench/bench_scale --benchmark_filter=PerCore
//   build/release/tools/bench/bench_scale --benchmark_filter=KernelBuild   (per core, each kernel build)
//   build/release/tools/bench/bench_scale --benchmark_filter=Threads
//   build/release/tools/bench/bench_scale --benchmark_filter=ThreadsCpu
#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "../../emulator/src/converter_isa.hpp"
#include "plain_gemm.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/mma.hpp"

namespace {

// Codes of moderate magnitude, as a GEMM's operands and accumulators have: formats with 5 or
// more exponent bits get exponents within 2^-8 .. 2^8 (full-range random bits would overflow
// the f32 sums of bf16/tf32 products, and every such step would take the special-value path);
// narrower formats any finite code.
std::vector<uint64_t> random_codes(tcemu::Fmt f, size_t n, uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<uint64_t> v(n);
  const tcemu::FormatInfo& fi = tcemu::info(f);
  const uint64_t mask = fi.code_mask();
  for (auto& x : v) {
    if (fi.exp_bits >= 5) {
      const uint64_t eb = static_cast<uint64_t>(fi.bias - 8 + static_cast<int>(r() % 17));
      const uint64_t man = r() & ((uint64_t{1} << fi.man_bits) - 1);
      x = (eb << (fi.man_shift + fi.man_bits)) | (man << fi.man_shift) | ((r() & 1) ? fi.sign_mask() : 0);
      continue;
    }
    do x = r() & mask;
    while (tcemu::decode(f, x).cls == tcemu::Class::nan || tcemu::decode(f, x).cls == tcemu::Class::inf);
  }
  return v;
}

struct Pick {
  const char* arch;
  const char* ptx;
  std::optional<tcemu::Fmt> atype, btype, stype;
};

struct Gemm {
  const tcemu::InstrEntry* e = nullptr;
  int dim = 0;
  std::vector<uint64_t> A, B, C, sa, sb;
  tcemu::MmaProblem p;
};

Gemm make(const Pick& pk, int dim) {
  Gemm g;
  g.dim = dim;
  g.e = tcemu::find_instruction(pk.arch, pk.ptx, pk.atype, pk.btype, tcemu::AccType::f32, pk.stype).entry;
  if (!g.e) throw std::runtime_error(std::string("catalog lookup failed: ") + pk.ptx);
  const size_t n = static_cast<size_t>(dim) * static_cast<size_t>(dim);
  g.A = random_codes(g.e->atype, n, 1);
  g.B = random_codes(g.e->btype, n, 2);
  g.C = random_codes(tcemu::Fmt::f32, n, 3);
  g.p.M = g.p.N = g.p.K = dim;
  g.p.atype = g.e->atype;
  g.p.btype = g.e->btype;
  if (g.e->scale_type) {
    const size_t nb = static_cast<size_t>(dim) * static_cast<size_t>(dim / g.e->scale_block);
    std::mt19937_64 r(4);
    g.sa.resize(nb);
    g.sb.resize(nb);
    for (auto* s : {&g.sa, &g.sb})
      for (auto& x : *s) x = g.e->scale_type == tcemu::Fmt::ue8m0 ? 120 + r() % 15 : 0x30 + r() % 0x20;
    g.p.scale_type = g.e->scale_type;
    g.p.scale_block = g.e->scale_block;
  }
  g.p.A = g.A;
  g.p.B = g.B;
  g.p.C = g.C;
  g.p.sa = g.sa;
  g.p.sb = g.sb;
  return g;
}

void run_gemm(benchmark::State& state, const Gemm& g, int threads) {
  for (auto _ : state) {
    tcemu::MmaResult r = tcemu::mma(g.p.with(*g.e), tcemu::Exec{threads});
    if (!r.error.empty()) state.SkipWithError(r.error.c_str());
    benchmark::DoNotOptimize(r.D.data());
  }
  const double macs = static_cast<double>(g.dim) * g.dim * g.dim;
  state.counters["MAC/s"] = benchmark::Counter(macs * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

const Pick kF16{"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", {}, {}, {}};
const Pick kBf16{"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", {}, {}, {}};
const Pick kTf32{"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", {}, {}, {}};
const Pick kE4m3{"sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", {}, {}, {}};
const Pick kF8f6f4{"sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", tcemu::Fmt::e4m3, tcemu::Fmt::e2m1, {}};
const Pick kMxf8f6f4{"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", tcemu::Fmt::e4m3,
                     tcemu::Fmt::e4m3, tcemu::Fmt::ue8m0};
const Pick kMxf4nvf4{"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", {}, {},
                     tcemu::Fmt::ue4m3};

template <const Pick& P>
void PerCore512(benchmark::State& s) {
  static const Gemm g = make(P, 512);
  run_gemm(s, g, 1);
}

// The same with the fast path's kernels limited to one build (state.range(0): 0 baseline,
// 1 AVX2, 2 AVX-512; the test hook of emulator/src/converter_isa.hpp); skipped where the CPU
// lacks it.
template <const Pick& P>
void PerCoreBuild512(benchmark::State& s) {
  static const Gemm g = make(P, 512);
  const auto isa = static_cast<tcemu::detail::ConvertIsa>(s.range(0));
  tcemu::detail::limit_convert_isa(isa);
  if (tcemu::detail::convert_isa() != isa) s.SkipWithError("this CPU lacks this kernel build");
  else run_gemm(s, g, 1);
  tcemu::detail::limit_convert_isa(tcemu::detail::ConvertIsa::avx512);
}

// 1024^3 e4m3 and mxf4nvf4 on state.range(0) threads, wall-clock rate.
void Threads1024_wgmma_e4m3(benchmark::State& s) {
  static const Gemm g = make(kE4m3, 1024);
  run_gemm(s, g, static_cast<int>(s.range(0)));
}
void Threads1024_mxf4nvf4(benchmark::State& s) {
  static const Gemm g = make(kMxf4nvf4, 1024);
  run_gemm(s, g, static_cast<int>(s.range(0)));
}

}  // namespace

BENCHMARK(PerCore512<kF16>)->Name("PerCore512/sm90a_wgmma_f16")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(PerCore512<kBf16>)->Name("PerCore512/sm90a_wgmma_bf16")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(PerCore512<kTf32>)->Name("PerCore512/sm90a_wgmma_tf32")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(PerCore512<kE4m3>)->Name("PerCore512/sm90a_wgmma_e4m3")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(PerCore512<kF8f6f4>)->Name("PerCore512/sm100a_f8f6f4_e4m3xe2m1")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(PerCore512<kMxf8f6f4>)->Name("PerCore512/sm100a_mxf8f6f4_e4m3")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(PerCore512<kMxf4nvf4>)->Name("PerCore512/sm100a_mxf4nvf4_4X")->Unit(benchmark::kMillisecond)->Iterations(3);
#define TCEMU_PER_BUILD(P, NAME) \
  BENCHMARK(PerCoreBuild512<P>)->Name("KernelBuild512/" NAME)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->Iterations(3)
TCEMU_PER_BUILD(kF16, "sm90a_wgmma_f16");
TCEMU_PER_BUILD(kBf16, "sm90a_wgmma_bf16");
TCEMU_PER_BUILD(kTf32, "sm90a_wgmma_tf32");
TCEMU_PER_BUILD(kE4m3, "sm90a_wgmma_e4m3");
TCEMU_PER_BUILD(kF8f6f4, "sm100a_f8f6f4_e4m3xe2m1");
TCEMU_PER_BUILD(kMxf8f6f4, "sm100a_mxf8f6f4_e4m3");
TCEMU_PER_BUILD(kMxf4nvf4, "sm100a_mxf4nvf4_4X");
BENCHMARK(plain_f32_gemm_512)->Name("PerCore512/plain_f32_loop")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(Threads1024_wgmma_e4m3)->Name("Threads1024/sm90a_wgmma_e4m3")->Arg(1)->Arg(2)->Arg(4)->Arg(16)
    ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(Threads1024_mxf4nvf4)->Name("Threads1024/sm100a_mxf4nvf4_4X")->Arg(1)->Arg(2)->Arg(4)->Arg(16)
    ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(2);
// The same with the process's CPU time (every thread's): MAC per CPU-second of all threads
// together. Equal rates for 1 and 2 threads mean the split adds no work, which is what a
// machine shared with other jobs can still show when its wall-clock speed-up cannot be seen.
BENCHMARK(Threads1024_wgmma_e4m3)->Name("ThreadsCpu1024/sm90a_wgmma_e4m3")->Arg(1)->Arg(2)
    ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(Threads1024_mxf4nvf4)->Name("ThreadsCpu1024/sm100a_mxf4nvf4_4X")->Arg(1)->Arg(2)
    ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_MAIN();
