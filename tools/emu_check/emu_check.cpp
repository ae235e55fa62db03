// tcemu-emu-check: the checks of the emulator on a CUDA GPU that need a GPU (issue 17), in one
// program that needs only tcemu and tcemu_cuda (no JSON, Boost or GoogleTest: it builds on the
// device machine). tools/gpu/emu_check.sh builds and runs it; `--host` runs every check with
// the CUDA backend's computation on the host (cuda_plan.hpp's run_plan_on_host) instead of the
// GPU, so that the driver itself is exercised where no GPU exists (test gpu_emu_check_host).
//
//   tcemu-emu-check status                      whether CUDA device 0 can run the kernels (0, or 77
//                                                 and why not)
//   tcemu-emu-check [--host] golden PACK         every case of a golden pack vs its expected D
//   tcemu-emu-check [--host] random SIZE [REPS]  random SIZE x SIZE GEMMs of every catalog family
//                                                 and option set vs mma() on all CPU cores
//   tcemu-emu-check [--host] time SIZE [CPU_SIZE] the four GEMMs of issue 17 at SIZE^3 on the
//                                                 GPU; at CPU_SIZE^3 on the GPU and the CPU,
//                                                 compared bit for bit and both timed
// Prints one line per finding and a summary line; exit 0 when everything agrees, 1 on a
// difference or a GPU error, 2 on a usage error.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "../../emulator/cuda/cuda_plan.hpp"
#include "golden_pack.hpp"
#include "tcemu/mma_cuda.hpp"

namespace tcemu::emu_check {
namespace {

bool g_host = false;  // --host: the plan run on the host instead of the GPU

MmaResult run_emulated(const InstrEntry& e, const MmaProblem& pr, const MmaOptions& opt) {
  if (!g_host) return mma(pr.with(e, opt), Exec{.device = DeviceSpec::cuda()});
  MmaResult r;
  const detail::ProblemShape s = detail::shape_of(pr);
  r.error = detail::check_mma(e, s, opt);
  if (!r.error.empty()) return r;
  const cuda_detail::ProblemCodes in{{pr.A.data(), 8}, {pr.B.data(), 8}, {pr.C.data(), 8}, {pr.sa.data(), 8}, {pr.sb.data(), 8}};
  r.D = CodeVector(cuda_detail::run_plan_on_host(cuda_detail::make_plan(e.params, s, e.K, opt), in, true),
                   d_code_width(e.params));
  return r;
}

// Codes that differ between a and b (vectors of uint64_t or CodeVectors).
template <typename X, typename Y>
size_t differences(const X& a, const Y& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int check_golden(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::printf("cannot read %s\n", path.c_str());
    return 2;
  }
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string error;
  const std::vector<PackedCase> cases = read_pack(bytes, error);
  if (!error.empty()) {
    std::printf("%s\n", error.c_str());
    return 2;
  }
  size_t bad_cases = 0, elements = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const PackedCase& c : cases) {
    const MmaResult r = run_emulated(*c.entry, c.problem(), c.options);
    const size_t d = r.error.empty() ? differences(r.D, c.D) : c.D.size();
    elements += c.D.size();
    if (d || !r.error.empty()) {
      ++bad_cases;
      std::printf("golden DIFF %s (%s): %zu of %zu elements %s\n", c.name.c_str(), c.entry->ptx.c_str(), d, c.D.size(),
                  r.error.c_str());
    }
  }
  std::printf("golden: %zu cases, %zu D elements, %zu cases differ (%.1f s)%s\n", cases.size(), elements, bad_cases,
              seconds_since(t0), g_host ? " [host run]" : "");
  return bad_cases ? 1 : 0;
}

// Random codes of every kind the datapath meets (normal values, subnormals, zeros, specials).
// A random code of f: one in eight any bits (NaN, Inf, subnormals, zeros) unless `finite`, the
// rest normal numbers of exponents near 1.
uint64_t random_code(Fmt f, std::mt19937_64& r, bool finite) {
  const FormatInfo& fi = info(f);
  const uint64_t any = r() & fi.code_mask();
  if (fi.is_int || (r() % 8 == 0 && !finite)) return any;
  const uint64_t man = fi.man_bits ? (r() & ((uint64_t{1} << fi.man_bits) - 1)) << fi.man_shift : 0;
  const int span = fi.bias < 3 ? fi.bias : 3;
  const uint64_t eb = static_cast<uint64_t>(fi.bias - span + static_cast<int>(r() % static_cast<uint64_t>(2 * span + 1)));
  const uint64_t code = (eb << (fi.man_shift + fi.man_bits)) | man | ((r() & 1) ? fi.sign_mask() : 0);
  return code & fi.code_mask();
}

struct Gemm {
  std::vector<uint64_t> A, B, C, sa, sb;
  MmaProblem view(const InstrEntry& e, int M, int N, int K) const { return make_problem(e, M, N, K, A, B, C, sa, sb); }
};

// `finite`: operands and C without NaN or Inf (the timed GEMMs: with one special code in 256,
// nearly every dot product over thousands of terms would meet one).
Gemm random_gemm(const InstrEntry& e, int M, int N, int K, uint64_t seed, bool finite = false) {
  std::mt19937_64 r(seed);
  Gemm g;
  const size_t m = static_cast<size_t>(M), n = static_cast<size_t>(N), k = static_cast<size_t>(K);
  g.A.resize(m * k);
  g.B.resize(k * n);
  g.C.resize(m * n);
  for (uint64_t& c : g.A) c = random_code(e.atype, r, finite);
  for (uint64_t& c : g.B) c = random_code(e.btype, r, finite);
  const std::optional<Fmt> acc = acc_format(e.dtype);
  for (uint64_t& c : g.C) c = acc ? random_code(*acc, r, finite) : (r() & 0xFFFFFFFFu);
  if (e.scale_type) {
    const size_t nb = k / static_cast<size_t>(e.scale_block);
    g.sa.resize(m * nb);
    g.sb.resize(n * nb);
    const bool e8 = *e.scale_type == Fmt::ue8m0;
    for (auto* v : {&g.sa, &g.sb})
      for (uint64_t& c : *v) c = e8 ? 120 + r() % 15 : 0x30 + r() % 0x20;
  }
  return g;
}

// One entry per distinct datapath, types, scales and K.
std::vector<const InstrEntry*> families() {
  std::vector<const InstrEntry*> out;
  std::vector<std::string> seen;
  for (const InstrEntry& e : catalog()) {
    const std::string key = describe(e.params) + "|" + std::string(info(e.atype).name) + "|" + std::string(info(e.btype).name) +
                            "|" + std::string(to_string(e.dtype)) + "|" + std::to_string(e.scale_block) + "|" +
                            (e.scale_type ? std::string(info(*e.scale_type).name) : "") + "|" + std::to_string(e.K);
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
      out.push_back(&e);
    }
  }
  return out;
}

std::vector<MmaOptions> option_sets(const InstrEntry& e) {
  std::vector<MmaOptions> v(1);
  MmaOptions o;
  o.negate_a = o.negate_b = true;
  v.push_back(o);
  o = MmaOptions{};
  o.scale_d = false;
  v.push_back(o);
  if (e.params.kind != DatapathKind::integer) {
    o = MmaOptions{};
    o.scale_input_d = 2;
    v.push_back(o);
  }
  if (e.dtype == AccType::f32) {
    o = MmaOptions{};
    o.promote_every = 2;
    v.push_back(o);
  }
  return v;
}

int check_random(int size, int reps) {
  size_t dots = 0, runs = 0, bad = 0;
  double t_emu = 0, t_cpu = 0;
  uint64_t seed = 0x17;
  for (int rep = 0; rep < reps; ++rep)
    for (const InstrEntry* e : families())
      for (const MmaOptions& opt : option_sets(*e)) {
        const int K = e->K * std::max(1, 256 / e->K);
        const Gemm g = random_gemm(*e, size, size + 3, K, ++seed);
        const MmaProblem pr = g.view(*e, size, size + 3, K);
        auto t0 = std::chrono::steady_clock::now();
        const MmaResult got = run_emulated(*e, pr, opt);
        t_emu += seconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        const MmaResult want = mma(pr.with(*e, opt), Exec{});
        t_cpu += seconds_since(t0);
        const size_t d = got.error.empty() ? differences(got.D, want.D) : want.D.size();
        ++runs;
        dots += want.D.size();
        if (runs % 100 == 0)  // what a run stopped at its time limit had checked
          std::printf("random: %zu GEMMs so far, %zu dot products, %zu differ\n", runs, dots, bad);
        if (d || !want.error.empty() || !got.error.empty()) {
          ++bad;
          std::printf("random DIFF %s %s promote=%d neg=%d scale_d=%d sid=%d: %zu of %zu differ %s%s\n", e->arch.c_str(),
                      e->ptx.c_str(), opt.promote_every, opt.negate_a, opt.scale_d, opt.scale_input_d, d, want.D.size(),
                      got.error.c_str(), want.error.c_str());
        }
      }
  std::printf("random: %zu GEMMs, %zu dot products, %zu differ; emulated %.1f s, CPU %.1f s%s\n", runs, dots, bad, t_emu,
              t_cpu, g_host ? " [host run]" : "");
  return bad ? 1 : 0;
}

struct Timed {
  const char* arch;
  const char* ptx;
  Fmt a, b;
  std::optional<Fmt> s;
};
constexpr Timed kTimed[] = {
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", Fmt::e2m1, Fmt::e2m1, Fmt::ue4m3},
    {"sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", Fmt::e4m3, Fmt::e2m1, Fmt::ue8m0},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", Fmt::e4m3, Fmt::e4m3, std::nullopt},
    {"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", Fmt::f16, Fmt::f16, std::nullopt},
};

int time_gemms(int size, int cpu_size) {
  int status = 0;
  for (const Timed& t : kTimed) {
    const InstrLookup lk = find_instruction(t.arch, t.ptx, t.a, t.b, AccType::f32, t.s);
    if (!lk.entry) {
      std::printf("time: %s: %s\n", t.ptx, lk.error.c_str());
      return 2;
    }
    const InstrEntry& e = *lk.entry;
    // Warm-up, untimed: the first call creates the CUDA context and loads the kernels.
    {
      const Gemm w = random_gemm(e, 256, 256, 256 / e.K * e.K, 1);
      run_emulated(e, w.view(e, 256, 256, 256 / e.K * e.K), {});
    }
    // The same GEMM at CPU_SIZE on both, compared bit for bit.
    if (cpu_size > 0) {
      const Gemm g = random_gemm(e, cpu_size, cpu_size, cpu_size, 0x5EED, true);
      const MmaProblem pr = g.view(e, cpu_size, cpu_size, cpu_size);
      auto t0 = std::chrono::steady_clock::now();
      const MmaResult got = run_emulated(e, pr, {});
      const double te = seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      const MmaResult want = mma(pr.with(e), Exec{});
      const double tc = seconds_since(t0);
      if (!got.error.empty() || !want.error.empty()) {
        std::printf("time %s %s %d^3: ERROR %s\n", e.arch.c_str(), e.ptx.c_str(), cpu_size,
                    (got.error.empty() ? want.error : got.error).c_str());
        status = 1;
        continue;
      }
      const size_t d = differences(got.D, want.D);
      const double macs = double(cpu_size) * cpu_size * cpu_size;
      std::printf("time %s %s %d^3: emulated %.3f s (%.3g MAC/s), CPU %d threads %.3f s (%.3g MAC/s), %zu differ\n",
                  e.arch.c_str(), e.ptx.c_str(), cpu_size, te, macs / te, thread_count(), tc, macs / tc, d);
      if (d) status = 1;
    }
    if (size > 0) {
      const Gemm g = random_gemm(e, size, size, size, 0x5EED, true);
      const MmaProblem pr = g.view(e, size, size, size);
      auto t0 = std::chrono::steady_clock::now();
      const MmaResult got = run_emulated(e, pr, {});
      const double te = seconds_since(t0);
      const double macs = double(size) * size * size;
      if (got.error.empty())
        std::printf("time %s %s %d^3: emulated %.3f s (%.3g MAC/s)\n", e.arch.c_str(), e.ptx.c_str(), size, te, macs / te);
      else
        std::printf("time %s %s %d^3: ERROR %s\n", e.arch.c_str(), e.ptx.c_str(), size, got.error.c_str());
      if (!got.error.empty()) status = 1;
    }
  }
  return status;
}

int usage() {
  std::printf("usage: tcemu-emu-check status | [--host] golden PACK | random SIZE [REPS] | time SIZE [CPU_SIZE]\n");
  return 2;
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--host") {
    g_host = true;
    args.erase(args.begin());
  }
  if (args.empty()) return usage();
  if (args[0] == "status" && args.size() == 1) {  // exit 0: device 0 can run the kernels; 77: it cannot
    const CudaStatus s = cuda_status(0);
    std::printf("cuda:0 %s\n", s.usable ? ("usable: " + s.name).c_str() : ("not usable: " + s.why_not).c_str());
    return s.usable ? 0 : 77;
  }
  if (!g_host) {
    const CudaStatus s = cuda_status(0);
    if (!s.usable) {
      std::printf("no usable GPU: %s\n", s.why_not.c_str());
      return 1;
    }
    std::printf("device 0: %s\n", s.name.c_str());
  }
  auto num = [&](size_t i, int dflt) { return i < args.size() ? std::atoi(args[i].c_str()) : dflt; };
  if (args[0] == "golden" && args.size() == 2) return check_golden(args[1]);
  if (args[0] == "random" && args.size() >= 2 && num(1, 0) > 0) return check_random(num(1, 0), std::max(1, num(2, 1)));
  if (args[0] == "time" && args.size() >= 2) return time_gemms(num(1, 0), num(2, 0));
  return usage();
}

}  // namespace
}  // namespace tcemu::emu_check

int main(int argc, char** argv) {
  // One line at a time, also into a file: a check stopped at its time limit keeps what it found.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return tcemu::emu_check::run(argc, argv);
}
