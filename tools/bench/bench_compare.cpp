// tcemu compare on an 8192 x 8192 f32 output (the budget: under two seconds here).
//   identical     the in-memory comparison of two identical outputs
//   one_percent   1% of the elements off by one ulp, scattered, with the full report: layout
//                 analysis and the alternative models evaluated on a sample (K = 32 operands)
//   from_files    what `tcemu compare expected.json actual.npy` does for identical outputs:
//                 read the golden file and its .npy result, read the actual .npy, compare
//   golden files  two golden files of 166 cases (golden/sets/mma.sync_s8-u8.json with itself)
// Time per iteration is the time of one comparison.
//
//   build/tools/bench/bench_compare --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

using namespace tcemu;
using namespace tcemu::golden;

constexpr size_t kN = 8192, kK = 32;

// A wgmma FP8 case of 8192 x 8192 x 32 whose expected D is random f32 codes (computing the
// model's D for 2^31 products would only slow the setup; compare does not care where it came
// from). Operands are present so that the model analysis has inputs.
const Case& big_case() {
  static const Case c = [] {
    Case k;
    k.name = "bench";
    k.op = OpKind::mma;
    InstrLookup lk = find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3");
    if (!lk.entry) throw std::runtime_error(lk.error);
    k.mma.entry = lk.entry;
    k.mma.arch = "sm_90a";
    k.mma.ptx = lk.entry->ptx;
    k.mma.M = k.mma.N = static_cast<int>(kN);
    k.mma.K = static_cast<int>(kK);
    k.mma.tile_m = 64;
    k.mma.tile_n = 256;
    k.mma.options.scale_d = false;
    std::mt19937_64 rng(1);
    std::vector<uint64_t> a(kN * kK), b(kK * kN);
    for (auto& x : a) x = rng() & 0x7e;
    for (auto& x : b) x = rng() & 0x7e;
    k.operands["A"] = make_array(elem_type(Fmt::e4m3), kN, kK, a);
    k.operands["B"] = make_array(elem_type(Fmt::e4m3), kK, kN, b, true);
    k.expected.type = elem_type(Fmt::f32);
    k.expected.rows = kN;
    k.expected.cols = kN;
    k.expected.raw.resize(kN * kN * 4);
    for (size_t i = 0; i < kN * kN; ++i) {
      const uint32_t v = static_cast<uint32_t>(rng()) & 0x7f7fffff;  // finite
      std::memcpy(k.expected.raw.data() + 4 * i, &v, 4);
    }
    k.provenance.fields = {{"source", "tcemu"}, {"tcemu_version", "bench"}, {"model", "none"}, {"seed", 1}, {"generator", "bench"}};
    return k;
  }();
  return c;
}

void BM_Compare8192_Identical(benchmark::State& st) {
  const Case& c = big_case();
  const Array act = c.expected;
  for (auto _ : st) {
    CompareReport r = compare(c, act);
    benchmark::DoNotOptimize(r.mismatches);
    if (!r.identical()) st.SkipWithError("not identical");
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN * kN));
}
BENCHMARK(BM_Compare8192_Identical)->Unit(benchmark::kMillisecond);

void BM_Compare8192_OnePercentFullReport(benchmark::State& st) {
  const Case& c = big_case();
  Array act = c.expected;
  std::mt19937_64 rng(2);
  for (size_t i = 0; i < kN * kN / 100; ++i) {
    const size_t e = rng() % (kN * kN);
    uint32_t v;
    std::memcpy(&v, act.raw.data() + 4 * e, 4);
    v ^= 1;
    std::memcpy(act.raw.data() + 4 * e, &v, 4);
  }
  size_t models = 0;
  for (auto _ : st) {
    CompareReport r = compare(c, act);
    benchmark::DoNotOptimize(r.mismatches);
    models = r.models.size();
    if (r.identical()) st.SkipWithError("no mismatches");
  }
  st.counters["models"] = static_cast<double>(models);
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN * kN));
}
BENCHMARK(BM_Compare8192_OnePercentFullReport)->Unit(benchmark::kMillisecond);

void BM_Compare8192_FromFiles(benchmark::State& st) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tcemu_bench_compare";
  std::filesystem::create_directories(dir);
  {
    GoldenFile f;
    f.cases.push_back(big_case());
    write_golden((dir / "expected.json").string(), f, 4096);
    io::NpyArray n;
    n.descr = "<f4";
    n.shape = {kN, kN};
    n.data = big_case().expected.raw;
    io::write_npy((dir / "actual.npy").string(), n);
  }
  for (auto _ : st) {
    GoldenFile g = read_golden((dir / "expected.json").string());
    const Array act = read_actual((dir / "actual.npy").string(), g.cases[0]);
    CompareReport r = compare(g.cases[0], act);
    benchmark::DoNotOptimize(r.mismatches);
    if (!r.identical()) st.SkipWithError("not identical");
  }
  std::filesystem::remove_all(dir);
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN * kN));
}
BENCHMARK(BM_Compare8192_FromFiles)->Unit(benchmark::kMillisecond);

// What `tcemu compare A.json B.json --no-models` does for two golden files: the committed
// golden/sets/mma.sync_s8-u8.json (166 cases) against itself, the ACTUAL file read once
// (ActualSource) and every case looked up by name. Items are cases.
void BM_CompareGoldenFiles_s8u8(benchmark::State& st) {
  const std::string path = std::string(TCEMU_SOURCE_DIR) + "/golden/sets/mma.sync_s8-u8.json";
  CompareOptions opt;
  opt.analyse_models = false;
  size_t cases = 0;
  for (auto _ : st) {
    const GoldenFile exp = read_golden(path);
    const ActualSource actual(path);
    for (const Case& c : exp.cases) {
      const CompareReport r = compare(c, actual.read(c), opt);
      if (!r.identical()) st.SkipWithError("not identical");
    }
    cases = exp.cases.size();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * cases));
}
BENCHMARK(BM_CompareGoldenFiles_s8u8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
