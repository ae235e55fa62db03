// Emulated multiply-adds per second of the datapath models on a 512x512x512 GEMM (issue 3:
// target >= 200 million per second per core for the sm_90a f16, sm_90a e4m3 and sm_100a
// mxf4nvf4 entries), with the reference model's rate and a plain f32 `acc += a*b` loop in the
// same run so that the ratios are visible. Single-threaded. The MAC/s counters are rates
// (benchmark::Counter::kIsRate) and Google Benchmark divides them by CPU time unless a
// benchmark asks for real time (none here): on a shared machine they are per CPU-second.
// The GEMMs go through mma(), whose whole-matrix fast path is emulator/src/mma_fast.cpp.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "plain_gemm.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/mma.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace {

constexpr int kDim = 512;

std::vector<uint64_t> random_codes(tcemu::Fmt f, size_t n, uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<uint64_t> v(n);
  const uint64_t mask = tcemu::info(f).code_mask();
  for (auto& x : v) {
    do x = r() & mask;
    while (tcemu::decode(f, x).cls == tcemu::Class::nan || tcemu::decode(f, x).cls == tcemu::Class::inf);
  }
  return v;
}

struct Gemm {
  const tcemu::InstrEntry* e = nullptr;
  std::vector<uint64_t> A, B, C, sa, sb;
  tcemu::MmaProblem p;
};

Gemm make(const char* arch, const char* ptx, std::optional<tcemu::Fmt> stype = std::nullopt) {
  Gemm g;
  g.e = tcemu::find_instruction(arch, ptx, std::nullopt, std::nullopt, std::nullopt, stype).entry;
  if (!g.e) throw std::runtime_error(std::string("catalog lookup failed: ") + ptx);
  const size_t n = static_cast<size_t>(kDim) * kDim;
  g.A = random_codes(g.e->atype, n, 1);
  g.B = random_codes(g.e->btype, n, 2);
  g.C.assign(n, 0);
  g.p.M = g.p.N = g.p.K = kDim;
  g.p.atype = g.e->atype;
  g.p.btype = g.e->btype;
  if (g.e->scale_type) {
    const size_t nb = static_cast<size_t>(kDim) * (kDim / g.e->scale_block);
    std::mt19937_64 r(3);
    g.sa.resize(nb);
    g.sb.resize(nb);
    for (auto& s : g.sa) s = g.e->scale_type == tcemu::Fmt::ue8m0 ? 120 + r() % 15 : 0x30 + r() % 0x20;
    for (auto& s : g.sb) s = g.e->scale_type == tcemu::Fmt::ue8m0 ? 120 + r() % 15 : 0x30 + r() % 0x20;
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

void run_gemm(benchmark::State& state, const Gemm& g) {
  for (auto _ : state) {
    tcemu::MmaResult r = tcemu::mma(g.p.with(*g.e), tcemu::Exec{1});
    if (!r.error.empty()) state.SkipWithError(r.error.c_str());
    benchmark::DoNotOptimize(r.D.data());
  }
  const double macs = static_cast<double>(kDim) * kDim * kDim;
  state.counters["MAC/s"] = benchmark::Counter(macs * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Gemm512_sm90a_wgmma_f16(benchmark::State& s) {
  static const Gemm g = make("sm_90a", "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16");
  run_gemm(s, g);
}
void BM_Gemm512_sm90a_wgmma_e4m3(benchmark::State& s) {
  static const Gemm g = make("sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3");
  run_gemm(s, g);
}
void BM_Gemm512_sm100a_mxf4nvf4(benchmark::State& s) {
  static const Gemm g = make("sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", tcemu::Fmt::ue4m3);
  run_gemm(s, g);
}

// The reference model on 64 dot products of K = 512 from the same e4m3 GEMM (the whole GEMM
// would take hours with exact rationals).
void BM_Reference_sm90a_wgmma_e4m3(benchmark::State& state) {
  static const Gemm g = make("sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3");
  std::vector<uint64_t> col(kDim);
  for (int k = 0; k < kDim; ++k) col[k] = g.B[static_cast<size_t>(k) * kDim];
  constexpr int kDots = 64;
  for (auto _ : state)
    for (int m = 0; m < kDots; ++m) {
      std::span<const uint64_t> row(g.A.data() + static_cast<size_t>(m) * kDim, kDim);
      benchmark::DoNotOptimize(tcemu::ref::fdpa_dot(g.e->params, g.e->atype, g.e->btype, row, col, 0));
    }
  state.counters["MAC/s"] =
      benchmark::Counter(static_cast<double>(kDots) * kDim * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_Gemm512_sm90a_wgmma_f16)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Gemm512_sm90a_wgmma_e4m3)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Gemm512_sm100a_mxf4nvf4)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Reference_sm90a_wgmma_e4m3)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(plain_f32_gemm_512)->Name("BM_Gemm512_plain_f32")->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_MAIN();
