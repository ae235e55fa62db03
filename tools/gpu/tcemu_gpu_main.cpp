// tcemu-gpu: runs tensor-core instructions and PTX cvt on the present GPU.
//
//   tcemu-gpu info                          the GPU, the CUDA versions, what it can run
//   tcemu-gpu list [CASES.json...]          the instructions built (and which cases would run)
//   tcemu-gpu run CASES.json... -o ACTUAL.json [--report R.md|R.json]... [--only S]
//   tcemu-gpu random -o OUT.json [--only S] [--wgmma-n SET] [--tiles N] [--seed S] [--seconds T]
//                    [--report R.md|R.json]
//   tcemu-gpu probe [--only S] [--wgmma-n SET] [--json FILE] [--emulator ARCH]
//
// `run` executes every case the GPU supports, writes the hardware's results as a golden file
// (same case names, expected = the hardware's D, provenance source "hardware") that
// `tcemu compare CASES.json ACTUAL.json` reads, compares them with the expected results, and
// lists the cases it skipped and why. `random` does the same for random cases it generates
// with tcemu's generator (N tiles per instruction, spread over the distributions); with
// --seconds T it starts no instruction after T seconds and lists the rest as skipped. `probe`
// runs the directed probes of docs/sources.md, "Directed probes" and prints the measured datapath parameters
// next to the catalog's.
//
// Exit status: 0 everything ran and matched; 1 some result differs from the expected one (or
// a device error); 2 bad input; 77 no usable GPU (nothing ran; the message says why).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "case_runner.hpp"
#include "gpu_backend.hpp"
#include "probe.hpp"
#include "tcemu/catalog.hpp"
#include "tcgen05_runner.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/instr_tile.hpp"

namespace {

using namespace tcemu_gpu;
namespace tg = tcemu::golden;

constexpr int kExitDiffers = 1, kExitBadInput = 2, kExitNoGpu = 77;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string cmd;
  std::vector<std::string> inputs;
  std::string out, only, json, emulator_arch;
  std::vector<std::string> reports;  // --report, repeatable (R.md and R.json from one run)
  long tiles = 1000;
  double seconds = 0;  // random: the time budget (0: none)
  uint64_t seed = 1;
  // --wgmma-n: which wgmma N the instruction loops of random/probe take: all (empty), a list
  // ("8,256") or all but a list ("!8,256"). N does not change a D element's datapath, and the
  // 32 N of each wgmma type would multiply the time.
  std::vector<int> wgmma_n;
  bool wgmma_n_except = false;
  bool takes(const InstrInfo& in) const {
    if (!only.empty() && std::string(in.ptx).find(only) == std::string::npos) return false;
    if (!in.wgmma || wgmma_n.empty()) return true;
    const bool listed = std::find(wgmma_n.begin(), wgmma_n.end(), in.n) != wgmma_n.end();
    return listed != wgmma_n_except;
  }
};

std::vector<int> parse_n_list(const std::string& opt, const std::string& v) {
  std::vector<int> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 8 || n > 256 || n % 8 != 0)
      throw UsageError(opt + ": \"" + item + "\" is not a wgmma N (8, 16, ..., 256)");
    out.push_back(static_cast<int>(n));
  }
  if (out.empty()) throw UsageError(opt + " needs a list of N");
  return out;
}

// A number option's value, or a UsageError naming the option (std::stod's own message is
// only "stod").
double number_of(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(d)) throw UsageError(opt + ": \"" + v + "\" is not a number");
  return d;
}

// A whole-number option's value (0 to max), or a UsageError naming the option.
uint64_t whole_of(const std::string& opt, const std::string& v, uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || errno == ERANGE || n > max)
    throw UsageError(opt + ": \"" + v + "\" is not a whole number from 0 to " + std::to_string(max));
  return n;
}

// The command line (CLI11, as tcemu's own): one subcommand and its options. Number options
// are read as text and checked by whole_of / number_of / parse_n_list, whose messages name the
// option and the value.
struct RawNumbers {
  std::string tiles, seed, seconds, wgmma_n;
};

void finish_args(Args& a, const RawNumbers& raw) {
  if (!raw.tiles.empty()) a.tiles = static_cast<long>(whole_of("--tiles", raw.tiles, 1000000000000ULL));
  if (!raw.seed.empty()) a.seed = whole_of("--seed", raw.seed, UINT64_MAX);
  if (!raw.seconds.empty()) {
    a.seconds = number_of("--seconds", raw.seconds);
    if (!(a.seconds > 0)) throw UsageError("--seconds needs a positive number of seconds");
  }
  if (!raw.wgmma_n.empty() && raw.wgmma_n != "all") {
    a.wgmma_n_except = raw.wgmma_n[0] == '!';
    a.wgmma_n = parse_n_list("--wgmma-n", a.wgmma_n_except ? raw.wgmma_n.substr(1) : raw.wgmma_n);
  }
}

void add_options(CLI::App& app, Args& a, RawNumbers& raw) {
  CLI::App* info = app.add_subcommand("info", "the GPU, the CUDA versions, the instructions built");
  CLI::App* list = app.add_subcommand("list", "the instructions built, or which cases of CASES.json would run where");
  list->add_option("cases", a.inputs, "golden files (CASES.json)");
  CLI::App* run = app.add_subcommand("run", "run the cases on the GPU, compare them with their expected results");
  run->add_option("cases", a.inputs, "golden files (CASES.json)")->required();
  CLI::App* random = app.add_subcommand("random", "random cases of every instruction the GPU runs");
  CLI::App* probe = app.add_subcommand("probe", "the directed probes (docs/sources.md): the measured datapath parameters");
  for (CLI::App* c : {run, random}) {
    c->add_option("-o,--out", a.out, "the measured cases (a golden file)");
    c->add_option("--report", a.reports, "a report, R.md or R.json (repeatable)")->allow_extra_args(false);
  }
  for (CLI::App* c : {run, random, probe})
    c->add_option("--only", a.only, "only the instructions (run: or cases) whose name holds SUBSTRING");
  for (CLI::App* c : {random, probe})
    c->add_option("--wgmma-n", raw.wgmma_n, "the wgmma N taken: all (default), a list 8,256, or all but a list !8,256");
  random->add_option("--tiles", raw.tiles, "instruction tiles per instruction (default 1000)");
  random->add_option("--seed", raw.seed, "the first seed (default 1)");
  random->add_option("--seconds", raw.seconds, "start no instruction after T seconds");
  probe->add_option("--json", a.json, "the probe results as JSON");
  probe->add_option("--emulator", a.emulator_arch, "probe the emulator's model of ARCH instead of the GPU");
  for (CLI::App* c : {info, list, run, random, probe})
    c->callback([&a, c] { a.cmd = c->get_name(); });
  app.require_subcommand(1);
  app.footer("exit: 0 all matched, 1 differences or device errors, 2 bad input, 77 no usable GPU (skipped)");
}

std::string arch_of(const DeviceInfo& d) {
  switch (d.arch_bit()) {
    case 1: return "sm_90a";
    case 2: return "sm_100a";
    case 4: return "sm_120a";
    default: return std::string("sm_") + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
  }
}

DeviceInfo need_device() {
  DeviceInfo d = query_device();
  if (!d.present) {
    std::cout << "tcemu-gpu: no usable GPU: " << d.why_not << "; nothing ran (exit " << kExitNoGpu << ": skipped)\n";
    std::exit(kExitNoGpu);
  }
  if (!d.arch_bit())
    std::cout << "tcemu-gpu: " << d.name << " is sm_" << d.cc_major << d.cc_minor
              << "; the kernels are built for sm_90a, sm_100a and sm_120a only: every instruction will be skipped\n";
  return d;
}

// One compared case, for the summary and the report.
struct Outcome {
  std::string file, name, what, status;  // status: identical / N mismatches / skipped: why / error: why
  size_t mismatches = 0, total = 0;
  std::string verdict;
};

void write_report(const std::string& path, const DeviceInfo& dev, const std::vector<Outcome>& res) {
  if (path.empty()) return;
  std::ofstream out(path);
  if (!out) throw UsageError(path + ": cannot write");
  const bool json = path.size() > 5 && path.substr(path.size() - 5) == ".json";
  size_t ran = 0, same = 0, skipped = 0;
  for (const Outcome& o : res) {
    if (o.status.rfind("skipped", 0) == 0) ++skipped;
    else ++ran;
    if (o.status == "identical") ++same;
  }
  if (json) {
    nlohmann::json j = {{"gpu", dev.name}, {"driver", dev.driver}, {"cuda", dev.runtime}, {"arch", arch_of(dev)},
                        {"ran", ran}, {"identical", same}, {"skipped", skipped}};
    nlohmann::json cases = nlohmann::json::array();
    for (const Outcome& o : res)
      cases.push_back({{"file", o.file}, {"name", o.name}, {"instruction", o.what}, {"status", o.status},
                       {"mismatches", o.mismatches}, {"elements", o.total}, {"verdict", o.verdict}});
    j["cases"] = cases;
    out << j.dump(1) << "\n";
    return;
  }
  out << "# tcemu-gpu results on " << dev.name << " (" << arch_of(dev) << ", driver " << dev.driver << ", CUDA "
      << dev.runtime << ")\n\n"
      << ran << " cases ran, " << same << " identical to the emulator bit for bit, " << skipped << " skipped.\n\n"
      << "| file | case | instruction | result |\n|---|---|---|---|\n";
  for (const Outcome& o : res) out << "| " << o.file << " | " << o.name << " | `" << o.what << "` | " << o.status << " |\n";
  bool any = false;
  for (const Outcome& o : res)
    if (!o.verdict.empty() && o.status != "identical") {
      if (!any) out << "\n## Differences\n\n";
      any = true;
      out << "- **" << o.name << "**: " << o.verdict << "\n";
    }
}

// Runs the cases of `gf`, appending measured cases to `measured` and outcomes to `res`.
void run_file(const std::string& label, tg::GoldenFile& gf, const DeviceInfo& dev, const std::string& only,
              tg::GoldenFile& measured, std::vector<Outcome>& res) {
  const nlohmann::json prov = hardware_provenance(dev, "tcemu-gpu");
  for (tg::Case& c : gf.cases) {
    Outcome o;
    o.file = label;
    o.name = c.name;
    o.what = c.op == tg::OpKind::mma || c.op == tg::OpKind::gemm ? c.mma.ptx : c.op == tg::OpKind::cvt ? c.cvt.ptx : "convert";
    if (!only.empty() && o.what.find(only) == std::string::npos && c.name.find(only) == std::string::npos) continue;
    const std::string why = why_not_runnable(c, dev);
    if (!why.empty()) {
      o.status = std::string("skipped: ") + why;
      std::cout << "  skip  " << c.name << ": " << why << "\n";
      res.push_back(o);
      continue;
    }
    std::string err;
    std::optional<tg::Array> hw = run_case(c, err);
    if (!hw) {
      o.status = std::string("error: ") + err;
      std::cout << "  ERROR " << c.name << ": " << err << "\n";
      res.push_back(o);
      continue;
    }
    tg::CompareOptions copt;
    copt.model_sample = 256;
    const tg::CompareReport rep = tg::compare(c, *hw, copt);
    o.mismatches = rep.mismatches;
    o.total = rep.total;
    o.status = rep.identical() ? "identical" : std::to_string(rep.mismatches) + " of " + std::to_string(rep.total) + " differ";
    if (!rep.identical()) o.verdict = rep.verdict;
    std::cout << "  " << (rep.identical() ? "ok    " : "DIFF  ") << c.name << " (" << o.what << "): " << o.status << "\n";
    tg::Case m = c;
    m.expected = *hw;
    m.provenance.source = "hardware";
    m.provenance.fields = prov;
    m.note = "measured by tcemu-gpu; the emulator's result for these operands: see the committed or generated set";
    measured.cases.push_back(std::move(m));
    res.push_back(o);
  }
}

int finish(const Args& a, const DeviceInfo& dev, tg::GoldenFile& measured, const std::vector<Outcome>& res) {
  if (!a.out.empty()) tg::write_golden(a.out, measured);
  for (const std::string& r : a.reports) write_report(r, dev, res);
  size_t ran = 0, same = 0, skipped = 0, errors = 0;
  for (const Outcome& o : res) {
    if (o.status.rfind("skipped", 0) == 0) ++skipped;
    else if (o.status.rfind("error", 0) == 0) ++errors;
    else ++ran;
    if (o.status == "identical") ++same;
  }
  std::cout << "tcemu-gpu: " << ran << " cases ran on " << dev.name << ", " << same << " identical, " << (ran - same)
            << " differ, " << errors << " errors, " << skipped << " skipped"
            << (a.out.empty() ? "" : std::string("; measured cases in ") + a.out) << "\n";
  return (ran == same && errors == 0) ? 0 : kExitDiffers;
}

int cmd_run(const Args& a) {
  if (a.inputs.empty()) throw UsageError("run needs CASES.json");
  std::vector<tg::GoldenFile> files;
  for (const std::string& p : a.inputs) files.push_back(tg::read_golden(p));  // bad input: exit 2 before the GPU
  const DeviceInfo dev = need_device();
  tg::GoldenFile measured;
  measured.description = std::string("Measured on ") + dev.name + " by tcemu-gpu run";
  std::vector<Outcome> res;
  for (size_t i = 0; i < files.size(); ++i) {
    std::cout << a.inputs[i] << ": " << files[i].cases.size() << " cases\n";
    run_file(a.inputs[i], files[i], dev, a.only, measured, res);
  }
  return finish(a, dev, measured, res);
}

// "atype.btype.dtype[.stype]" of a tcgen05 entry (its types live in the descriptor).
std::string tcgen05_types(const tcemu::InstrEntry& e) {
  std::string s(tcemu::info(e.atype).name);
  s += '.';
  s += tcemu::info(e.btype).name;
  s += e.dtype == tcemu::AccType::f16 ? ".f16" : e.dtype == tcemu::AccType::f32 ? ".f32" : ".s32";
  if (e.scale_type) {
    s += '.';
    s += tcemu::info(*e.scale_type).name;
  }
  return s;
}

// One instruction's random cases: `a.tiles` instruction tiles of up to 128 outputs (mma.sync
// m16n8); larger tiles (wgmma, tcgen05) get proportionally fewer, so every instruction computes
// about tiles * 128 dot products. One GEMM case per distribution (side x side tiles along M and
// N), generated (and their expected results computed by the emulator) in parallel.
using RandomRequest = std::function<tg::MmaGenRequest(int side, tg::Dist dist, uint64_t seed)>;
void random_instruction(const Args& a, const DeviceInfo& dev, const std::string& label, int tile_m, int tile_n,
                        const RandomRequest& request, tg::GoldenFile& measured, std::vector<Outcome>& res) {
  const auto dists = tg::all_distributions();
  const long tiles = std::max<long>(1, a.tiles * 128 / static_cast<long>(tile_m * tile_n));
  const long per = std::max<long>(1, tiles / static_cast<long>(dists.size()));
  const int side = static_cast<int>(std::max<long>(1, static_cast<long>(std::ceil(std::sqrt(static_cast<double>(per))))));
  std::vector<std::future<tg::Case>> jobs;
  for (size_t di = 0; di < dists.size(); ++di) {
    const tg::MmaGenRequest r = request(side, dists[di], a.seed + di);
    jobs.push_back(std::async(std::launch::async, [r] { return tg::generate_mma(r); }));
  }
  tg::GoldenFile gf;
  for (auto& j : jobs) {
    try {
      gf.cases.push_back(j.get());
    } catch (const std::exception& ex) {
      Outcome o;
      o.file = "random";
      o.name = o.what = label;
      o.status = std::string("skipped: generator: ") + ex.what();
      res.push_back(o);
    }
  }
  std::cout << label << ": " << gf.cases.size() << " random cases of " << side * side << " tiles\n";
  run_file("random", gf, dev, "", measured, res);
}

// Random cases: per instruction the GPU runs (tcgen05.mma: per catalog entry, in the catalog's
// default tiles, 64 x 8 or 128 x 16 for cta_group::2), as random_instruction says.
int cmd_random(const Args& a) {
  const DeviceInfo dev = need_device();
  const std::string arch = arch_of(dev);
  tg::GoldenFile measured;
  measured.description = std::string("Random cases measured on ") + dev.name + " by tcemu-gpu random";
  std::vector<Outcome> res;
  // --seconds: past the budget an instruction is listed as skipped instead of run.
  const auto t0 = std::chrono::steady_clock::now();
  auto out_of_time = [&](const std::string& label) {
    if (a.seconds <= 0 || std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < a.seconds)
      return false;
    Outcome o;
    o.file = "random";
    o.name = o.what = label;
    o.status = "skipped: not run, the time budget (--seconds) was spent";
    res.push_back(o);
    return true;
  };
  for (const InstrInfo& in : instructions()) {
    if (!(in.arch_mask & dev.arch_bit())) continue;
    if (!a.takes(in)) continue;
    if (!tcemu::find_instruction(arch, in.ptx).entry) continue;
    if (out_of_time(in.ptx)) continue;
    random_instruction(a, dev, in.ptx, in.m, in.n, [&](int side, tg::Dist dist, uint64_t seed) {
      tg::MmaGenRequest r;
      r.arch = arch;
      r.ptx = in.ptx;
      r.M = in.m * side;
      r.N = in.n * side;
      r.K = in.k;
      r.dist_a = r.dist_b = r.dist_c = dist;
      r.seed = seed;
      return r;
    }, measured, res);
  }
  for (const tcemu::InstrEntry* e : dev.arch_bit() == 2 ? tcgen05_entries() : std::vector<const tcemu::InstrEntry*>{}) {
    if (!a.only.empty() && e->ptx.find(a.only) == std::string::npos) continue;
    const std::string label = e->ptx + " " + tcgen05_types(*e);
    if (out_of_time(label)) continue;
    if (const std::string why = tcgen05_entry_why_not(*e); !why.empty()) {
      Outcome o;
      o.file = "random";
      o.name = o.what = label;
      o.status = std::string("skipped: ") + why;
      res.push_back(o);
      continue;
    }
    const tg::InstrTile tile = tg::default_tile(*e);
    random_instruction(a, dev, label, tile.m, tile.n, [e](int side, tg::Dist dist, uint64_t seed) {
      return tcgen05_random_request(*e, side, dist, seed);
    }, measured, res);
  }
  return finish(a, dev, measured, res);
}

int cmd_probe(const Args& a) {
  DeviceInfo dev;
  std::string arch;
  if (!a.emulator_arch.empty()) {
    arch = a.emulator_arch;
    dev.name = std::string("the emulator (") + arch + ")";
  } else {
    dev = need_device();
    arch = arch_of(dev);
  }
  nlohmann::json all = nlohmann::json::array();
  int differ = 0, n = 0;
  std::vector<const tcemu::InstrEntry*> entries;
  if (!a.emulator_arch.empty()) {
    // The entries an `arch` GPU runs: its own and, for an `a` target, its base arch's.
    const std::string base = !arch.empty() && arch.back() == 'a' ? arch.substr(0, arch.size() - 1) : arch;
    for (const tcemu::InstrEntry& e : tcemu::catalog())
      if (e.arch == arch || e.arch == base) entries.push_back(&e);
  } else {
    for (const InstrInfo& in : instructions())
      if ((in.arch_mask & dev.arch_bit()) && a.takes(in))
        if (const tcemu::InstrLookup lk = tcemu::find_instruction(arch, in.ptx); lk.entry) entries.push_back(lk.entry);
    if (dev.arch_bit() == 2)
      for (const tcemu::InstrEntry* e : tcgen05_entries())
        if (tcgen05_entry_why_not(*e).empty()) entries.push_back(e);
  }
  for (const tcemu::InstrEntry* e : entries) {
    if (!a.only.empty() && e->ptx.find(a.only) == std::string::npos) continue;
    if (const InstrInfo* in = find_instr(e->ptx); in && !a.takes(*in)) continue;
    DotRunner run;
    if (!a.emulator_arch.empty()) {
      run = emulator_runner(*e);
    } else {
      run = is_tcgen05(e->ptx) ? tcgen05_dot_runner(*e) : gpu_dot_runner(*e, *find_instr(e->ptx));
    }
    ++n;
    try {
      const ProbeResult r = probe_instruction(*e, run);
      std::cout << probe_text(r, *e) << "\n";
      if (!r.differences.empty()) ++differ;
      all.push_back(probe_json(r, *e));
    } catch (const std::exception& ex) {
      std::cout << e->arch << " " << e->ptx << ": probe failed: " << ex.what() << "\n\n";
      ++differ;
    }
  }
  std::cout << "tcemu-gpu probe: " << n << " instructions on " << dev.name << ", " << differ
            << " with a difference from the catalog\n";
  if (!a.json.empty()) {
    std::ofstream out(a.json);
    if (!out) throw UsageError(a.json + ": cannot write");
    out << nlohmann::json{{"device", dev.name}, {"driver", dev.driver}, {"cuda", dev.runtime}, {"arch", arch}, {"probes", all}}
               .dump(1)
        << "\n";
  }
  return differ ? kExitDiffers : 0;
}

int cmd_info() {
  const DeviceInfo d = query_device();
  if (!d.present) std::cout << "no usable GPU: " << d.why_not << "\n";
  else
    std::cout << d.name << ", compute capability " << d.cc_major << "." << d.cc_minor << " (" << arch_of(d) << "), driver "
              << d.driver << ", CUDA runtime " << d.runtime << "\n";
  std::map<std::string, int> per;
  for (const InstrInfo& in : instructions())
    ++per[std::string(in.wgmma ? "wgmma" : in.wmma ? "wmma" : "mma.sync") + " on " + arch_mask_names(in.arch_mask)];
  std::cout << instructions().size() << " instruction kernels built:";
  for (const auto& [k, v] : per) std::cout << " " << v << " " << k << ";";
  size_t tc = 0;
  for (const tcemu::InstrEntry* e : tcgen05_entries()) tc += tcgen05_entry_why_not(*e).empty();
  std::cout << " tcgen05.mma: " << tc << " catalog entries (cta_group::1 and ::2, every kind) on sm_100a;";
  std::map<std::string, int> cvt_per;
  for (const CvtInfo& cv : cvt_variants()) ++cvt_per[arch_mask_names(cv.arch_mask)];
  std::cout << " PTX cvt:";
  for (const auto& [k, v] : cvt_per) std::cout << " " << v << " on " << k << ";";
  std::cout << "\n";
  return d.present ? 0 : kExitNoGpu;
}

int cmd_list(const Args& a) {
  if (a.inputs.empty()) {
    for (const InstrInfo& in : instructions())
      std::cout << arch_mask_names(in.arch_mask) << "\t"
                << in.ptx << "\n";
    for (const tcemu::InstrEntry* e : tcgen05_entries()) {
      const std::string why = tcgen05_entry_why_not(*e);
      std::cout << (why.empty() ? "sm_100a" : "not built") << "\t" << e->ptx << " " << tcgen05_types(*e)
                << (why.empty() ? std::string() : std::string("\t") + why) << "\n";
    }
    for (const CvtInfo& cv : cvt_variants()) std::cout << arch_mask_names(cv.arch_mask) << "\t" << cv.ptx << "\n";
    return 0;
  }
  // Which cases of the files would run on each architecture (no GPU needed).
  for (const std::string& p : a.inputs) {
    tg::GoldenFile gf = tg::read_golden(p);
    for (const tg::Case& c : gf.cases) {
      std::string runs;
      for (auto [cc, name] : {std::pair{90, "sm_90a"}, std::pair{100, "sm_100a"}, std::pair{120, "sm_120a"}}) {
        DeviceInfo d;
        d.present = true;
        d.cc_major = cc / 10;
        d.cc_minor = cc % 10;
        if (!why_not_runnable(c, d).empty()) continue;
        if (!runs.empty()) runs += ',';
        runs += name;
      }
      DeviceInfo none;
      std::string why = why_not_runnable(c, none);
      if (why.empty() && c.op == tg::OpKind::mma) {
        // Runnable in itself, but only on its own architecture, which tcemu-gpu does not build.
        why = "the case models ";
        why += c.mma.arch;
        why += "; tcemu-gpu runs the cases of sm_90/sm_90a, sm_100* and sm_120* on those GPUs";
      }
      std::cout << p << "\t" << c.name << "\t" << (runs.empty() ? std::string("skipped: ") + why : std::string("runs on ") + runs) << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // One line at a time, also into a file: a run stopped at its time limit keeps what it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"tcemu-gpu: runs tensor-core instructions and PTX cvt on the present GPU (docs/gpu.md)", "tcemu-gpu"};
  Args a;
  RawNumbers raw;
  add_options(app, a, raw);
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string cmd = argv[1];
    if (cmd == "help") {
      std::cout << app.help();
      return 0;
    }
    bool known = false;
    for (const CLI::App* c : app.get_subcommands({})) known = known || c->get_name() == cmd;
    if (!known) {
      std::cerr << "tcemu-gpu: unknown command " << cmd << " (tcemu-gpu --help lists the commands)\n";
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitBadInput;  // usage errors are bad input: status 2
  }
  try {
    finish_args(a, raw);
    if (a.cmd == "run") return cmd_run(a);
    if (a.cmd == "random") return cmd_random(a);
    if (a.cmd == "probe") return cmd_probe(a);
    if (a.cmd == "info") return cmd_info();
    return cmd_list(a);
  } catch (const UsageError& e) {
    std::cerr << "tcemu-gpu: " << e.what() << "\n(tcemu-gpu --help lists the commands and their options)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {  // tg::GoldenError among them: bad input
    std::cerr << "tcemu-gpu: " << e.what() << "\n";
    return kExitBadInput;
  }
}
