// tcemu golden gen | check: golden vectors for kernel validation (docs/golden.md).
//   gen    writes cases for a catalog instruction or GEMM shape, a conversion under a
//          convention, or a PTX cvt spelling, from named distributions and a seed.
//   check  reads a file (every check of the format) and, for cases tcemu generated,
//          recomputes them with the emulator.
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>

#include "cli_device.hpp"
#include "cli_plan.hpp"
#include "cli_util.hpp"
#include "tcemu/catalog_suggest.hpp"
#include "commands.hpp"
#include "tcemu_golden/committed_set.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::cli {
namespace {

using namespace tcemu::golden;

struct GenArgs {
  std::string out, description;
  std::string arch, instr, atype, btype, dtype, stype;
  int M = 0, N = 0, K = 0, tile_m = 0, tile_n = 0;
  std::string dist = "all", dist_a, dist_b, dist_c, scales = "random";
  double scale = 1.0;
  uint64_t seed = 1;
  int cases = 1;
  std::string order_a = "row", order_b = "col", order_c = "row", order_d = "row";
  int promote_every = 0, scale_input_d = -1;
  bool negate_a = false, negate_b = false, no_scale_d = false;
  std::string from, to, convention = "ptx", round, cvt, rs_map = "ptx_doc";
  bool satfinite = false, relu = false, ftz = false;
  size_t count = 256, npy_threshold = 4096;
  std::string recipe;
  size_t rows = 4, cols = 64;
  std::string device = "cpu";
  bool gemm = false;  // op gemm cases (--gemm, or any option of `plan`)
  PlanArgs plan;
};

std::vector<Dist> dists_arg(const std::string& s, const char* flag) {
  if (s == "all") return {all_distributions().begin(), all_distributions().end()};
  std::optional<Dist> d = parse_dist(s);
  if (!d) {
    std::string msg = flag;
    msg += ": unknown distribution '";
    msg += s;
    msg += "' (known: all";
    for (Dist x : all_distributions()) msg.append(" ").append(to_string(x));
    msg += ")";
    throw InputError(msg);
  }
  return {*d};
}

std::vector<ScaleDist> scales_arg(const std::string& s) {
  if (s == "all") return {all_scale_distributions().begin(), all_scale_distributions().end()};
  std::optional<ScaleDist> d = parse_scale_dist(s);
  if (!d) {
    std::string msg = "--scales: unknown pattern '";
    msg += s;
    msg += "' (known: all";
    for (ScaleDist x : all_scale_distributions()) msg.append(" ").append(to_string(x));
    msg += ")";
    throw InputError(msg);
  }
  return {*d};
}

bool order_arg(const std::string& s, const char* flag) {
  if (s == "row") return false;
  if (s == "col") return true;
  throw InputError(std::string(flag) + ": must be row or col, not '" + s + "'");
}

std::optional<Fmt> opt_fmt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return format_arg(s);
}

// Sizes are checked before anything is allocated: a negative or huge size is bad input.
void check_sizes(const GenArgs& g) {
  auto dim = [](long long v, const char* flag, bool zero_ok) {
    if (v < (zero_ok ? 0 : 1) || v > (1LL << 20))
      throw InputError(std::string(flag) + ": " + std::to_string(v) + " is not " + (zero_ok ? "0 (the default) or " : "") +
                       "a size from 1 to 2^20");
  };
  dim(g.M, "-M", true);
  dim(g.N, "-N", true);
  dim(g.K, "-K", true);
  dim(g.tile_m, "--tile-m", true);
  dim(g.tile_n, "--tile-n", true);
  auto area = [](long long a, long long b, const char* what) {
    if (a * b > (1LL << 30))
      throw InputError(std::string(what) + " would hold " + std::to_string(a * b) + " elements (at most 2^30 are generated)");
  };
  area(g.M, g.K, "A (M x K)");
  area(g.K, g.N, "B (K x N)");
  area(g.M, g.N, "D (M x N)");
  if (g.cases < 1 || g.cases > 100000) throw InputError("--cases: " + std::to_string(g.cases) + " is not a count from 1 to 100000");
  if (g.count < 1 || g.count > (size_t{1} << 30)) throw InputError("--count: " + std::to_string(g.count) + " is not a count from 1 to 2^30");
  if (g.rows < 1 || g.cols < 1 || g.rows > (size_t{1} << 30) || g.cols > (size_t{1} << 30) || g.rows * g.cols > (size_t{1} << 30))
    throw InputError("--rows x --cols: " + std::to_string(g.rows) + " x " + std::to_string(g.cols) +
                     " is not a shape of 1 to 2^30 elements");
}

// The steps of `golden gen`, one per kind of case; each handles one seed (run_gen loops).
void add_quantize_cases(const GenArgs& g, uint64_t seed, GoldenFile& file) {
  QuantizeGenRequest q;
  const std::optional<tcemu::quant::Recipe> r = tcemu::quant::find_recipe(g.recipe);
  if (!r) throw InputError("--recipe: unknown recipe (tcemu quantize --list shows them)");
  q.recipe = *r;
  q.rows = g.rows;
  q.cols = g.cols;
  q.scale = g.scale;
  q.seed = seed;
  for (Dist d : dists_arg(g.dist, "--dist")) {
    q.dist = d;
    file.cases.push_back(value_of(try_generate_quantize(q)));
  }
}

// Instruction cases are only requested here; run_gen generates them together, in parallel.
// `compute`, when set, computes D instead of the CPU emulator (--device cuda).
void add_mma_requests(const GenArgs& g, uint64_t seed, const MmaGenRequest::Compute& compute,
                      std::vector<MmaGenRequest>& mma_requests) {
  if (g.arch.empty()) throw InputError("golden gen: --instr needs --arch (sm_90a, sm_100a, ...)");
  MmaGenRequest q;
  q.arch = g.arch;
  q.ptx = g.instr;
  q.atype = opt_fmt(g.atype);
  q.btype = opt_fmt(g.btype);
  q.stype = opt_fmt(g.stype);
  if (!g.dtype.empty()) {
    q.dtype = parse_acc_type(g.dtype);
    if (!q.dtype) throw InputError("--dtype: must be f16, f32 or s32");
  }
  q.M = g.M;
  q.N = g.N;
  q.K = g.K;
  q.tile_m = g.tile_m;
  q.tile_n = g.tile_n;
  q.scale = g.scale;
  q.seed = seed;
  q.a_col = order_arg(g.order_a, "--order-a");
  q.b_col = order_arg(g.order_b, "--order-b");
  q.c_col = order_arg(g.order_c, "--order-c");
  q.d_col = order_arg(g.order_d, "--order-d");
  q.options.promote_every = g.promote_every;
  q.options.negate_a = g.negate_a;
  q.options.negate_b = g.negate_b;
  q.options.scale_d = !g.no_scale_d;
  q.options.scale_input_d = g.scale_input_d;
  q.compute = compute;
  InstrLookup lk = find_instruction(q.arch, q.ptx, q.atype, q.btype, q.dtype, q.stype);
  if (!lk.entry) throw InputError(lookup_error_with_suggestions(lk, q.arch, q.ptx));
  const std::vector<ScaleDist> scale_list =
      lk.entry->scale_type ? scales_arg(g.scales) : std::vector<ScaleDist>{ScaleDist::mixed};
  for (Dist d : dists_arg(g.dist, "--dist"))
    for (ScaleDist s : scale_list) {
      q.dist_a = g.dist_a.empty() ? d : dists_arg(g.dist_a, "--dist-a")[0];
      q.dist_b = g.dist_b.empty() ? d : dists_arg(g.dist_b, "--dist-b")[0];
      q.dist_c = g.dist_c.empty() ? d : dists_arg(g.dist_c, "--dist-c")[0];
      q.scales = s;
      mma_requests.push_back(q);
    }
}

void add_cvt_cases(const GenArgs& g, uint64_t seed, GoldenFile& file) {
  CvtGenRequest q;
  q.ptx = g.cvt;
  if (g.rs_map == "ptx_doc") q.rs_map = RsBitMap::ptx_doc;
  else if (g.rs_map == "flashinfer_hw") q.rs_map = RsBitMap::flashinfer_hw;
  else throw InputError("--rs-map: must be ptx_doc or flashinfer_hw");
  q.count = g.count;
  q.scale = g.scale;
  q.seed = seed;
  for (Dist d : dists_arg(g.dist, "--dist")) {
    q.dist = d;
    file.cases.push_back(value_of(try_generate_cvt(q)));
  }
}

void add_convert_cases(const GenArgs& g, uint64_t seed, GoldenFile& file) {
  if (g.to.empty()) throw InputError("golden gen: --from needs --to");
  ConvertGenRequest q;
  q.from = format_arg(g.from);
  q.to = format_arg(g.to);
  q.convention = g.convention;
  if (!g.round.empty()) {
    q.request.round = parse_round(g.round);
    if (!q.request.round) throw InputError("--round: unknown rounding '" + g.round + "'");
  }
  if (g.satfinite) q.request.satfinite = true;
  if (g.relu) q.request.relu = true;
  if (g.ftz) q.request.ftz = true;
  q.count = g.count;
  q.scale = g.scale;
  q.seed = seed;
  for (Dist d : dists_arg(g.dist, "--dist")) {
    q.dist = d;
    file.cases.push_back(value_of(try_generate_convert(q)));
  }
}

// Gemm cases: the MMA requests' operands, the plan and epilogue of the plan options, D by tcemu::gemm.
void add_gemm_cases(const GenArgs& g, uint64_t seed, GoldenFile& file) {
  std::vector<MmaGenRequest> requests;
  add_mma_requests(g, seed, {}, requests);
  GemmGenRequest r;
  r.plan = plan_request(g.plan);
  PlanArgs p = g.plan;
  p.satfinite = g.satfinite;  // golden gen's --satfinite: the output conversion saturates
  r.epilogue = plan_epilogue(p);
  for (const MmaGenRequest& q : requests) {
    r.mma = q;
    file.cases.push_back(value_of(try_generate_gemm(r), "golden gen --gemm: "));
  }
}

int run_gen(const GenArgs& g) {
  check_sizes(g);
  GoldenFile file;
  file.description = g.description;
  const bool gemm = g.gemm || g.plan.any_given();
  const int modes = !g.instr.empty() + !g.cvt.empty() + !g.from.empty() + !g.recipe.empty();
  if (modes != 1) throw InputError("golden gen: give exactly one of --instr (with --arch), --cvt, --from/--to, or --recipe");
  if (gemm && g.instr.empty())
    throw InputError("golden gen: --gemm and the plan options (--plan, --split-k, --chunks, --alpha, --out-type, ...) need --instr");
  std::vector<MmaGenRequest> mma_requests;  // generated together, in parallel, after the loop
  // --device cuda: the MMA cases' D from the emulator on the GPU, one case at a time.
  if (const auto asked = parse_device(g.device); asked && asked->kind == DeviceSpec::Kind::cuda && (g.instr.empty() || gemm))
    throw InputError("--device " + to_string(*asked) + ": only MMA cases (--instr without the GEMM plan options) are computed on a GPU");
  const DeviceSpec dev = device_arg(g.device);
  MmaGenRequest::Compute compute;
  if (dev.kind == DeviceSpec::Kind::cuda)
    compute = [gpu_lock = std::make_shared<std::mutex>(), index = dev.index](const InstrEntry& e, const MmaProblem& p,
                                                                            const MmaOptions& o) {
      const std::lock_guard<std::mutex> hold(*gpu_lock);
      return mma(p.with(e, o), Exec{.device = DeviceSpec::cuda(index)});
    };
  for (int i = 0; i < g.cases; ++i) {
    const uint64_t seed = g.seed + static_cast<uint64_t>(i);
    if (!g.recipe.empty()) add_quantize_cases(g, seed, file);
    else if (gemm) add_gemm_cases(g, seed, file);
    else if (!g.instr.empty()) add_mma_requests(g, seed, compute, mma_requests);
    else if (!g.cvt.empty()) add_cvt_cases(g, seed, file);
    else add_convert_cases(g, seed, file);
  }
  for (Case& c : value_of(try_generate_mma_cases(mma_requests))) file.cases.push_back(std::move(c));
  check_error(try_write_golden(g.out, file, g.npy_threshold));
  std::cout << "wrote " << file.cases.size() << " case" << (file.cases.size() == 1 ? "" : "s") << " to " << g.out << "\n";
  return 0;
}

int run_check(const std::string& path) {
  GoldenFile f = value_of(try_read_golden(path));
  size_t bad = 0;
  for (const Case& c : f.cases) {
    std::string status = "well-formed";
    if (c.provenance.source == "tcemu") {
      const std::vector<std::string> differ = value_of(try_not_reproduced(c));  // every expected array (quantize: codes, scales, global)
      status = differ.empty() ? "reproduced by the emulator" : "NOT reproduced by the emulator";
      for (size_t i = 0; i < differ.size(); ++i) status.append(i ? ", " : " (differs: ").append(differ[i]);
      if (!differ.empty()) status += ")";
      bad += !differ.empty();
    } else {
      status += " (measured on " + c.provenance.fields.value("gpu", std::string("?")) + ")";
    }
    std::cout << c.name << ": " << status << "\n";
  }
  std::cout << f.cases.size() << " cases, " << bad << " not reproduced\n";
  return bad ? 1 : 0;
}

int run_gen_set(const std::string& dir) {
  size_t n = 0;
  auto put = [&](const std::string& name, GoldenFile f) {
    check_error(try_write_golden(dir + "/" + name, f, 0));
    std::cout << name << ": " << f.cases.size() << " cases\n";
    n += f.cases.size();
  };
  CommittedFamilies fams = committed_families();  // every family generated once, with its index
  for (auto& [name, file] : fams.files) put(name, std::move(file));
  put("conversions.json", conversion_set());
  put("ptx_cvt.json", cvt_set());
  put("gemm_plans.json", gemm_plan_set());
  {
    const std::vector<CoveredEntry>& index = fams.index;
    std::ofstream out(dir + "/index.json");
    out << committed_index_json(index);
    if (!out) throw InputError(dir + "/index.json: cannot write");
    std::cout << "index.json: " << index.size() << " catalog entries\n";
  }
  std::cout << n << " cases in " << dir << "\n";
  return 0;
}

}  // namespace

void add_golden_command(CLI::App& app, Runner& run) {
  auto* golden = app.add_subcommand("golden", "Golden vectors for kernel validation (docs/golden.md)");
  golden->require_subcommand(1);
  auto g = std::make_shared<GenArgs>();
  auto* gen = golden->add_subcommand("gen", "Generate golden cases (an MMA/GEMM, a conversion, or a PTX cvt)");
  gen->add_option("-o,--output", g->out, "the golden JSON file to write (.npy files go next to it)")->required();
  gen->add_option("--description", g->description, "a line stored in the file");
  gen->add_option("--arch", g->arch, "target architecture of the instruction (sm_80, sm_90a, sm_100a, sm_120a, ...)");
  gen->add_option("--instr", g->instr, "the MMA instruction's PTX spelling (see `tcemu instr list`)");
  gen->add_option("--atype", g->atype, "A's type, where the spelling leaves it out (tcgen05)");
  gen->add_option("--btype", g->btype, "B's type, where the spelling leaves it out");
  gen->add_option("--dtype", g->dtype, "accumulator type f16, f32 or s32, where the spelling leaves it out");
  gen->add_option("--stype", g->stype, "scale type ue8m0 or ue4m3 (block-scaled kinds)");
  gen->add_option("-M", g->M, "GEMM rows (default: one instruction tile)");
  gen->add_option("-N", g->N, "GEMM columns (default: one instruction tile)");
  gen->add_option("-K", g->K, "GEMM depth (default: one instruction's K)");
  gen->add_option("--tile-m", g->tile_m, "tcgen05: the M the instruction descriptor picks (64, 128, 256)");
  gen->add_option("--tile-n", g->tile_n, "tcgen05: the N the instruction descriptor picks");
  gen->add_option("--dist", g->dist, "distribution of every operand: bits, normal, wide, subnormal, specials, edges, or all (one case each)")
      ->capture_default_str();
  gen->add_option("--dist-a", g->dist_a, "distribution of A (overrides --dist)");
  gen->add_option("--dist-b", g->dist_b, "distribution of B (overrides --dist)");
  gen->add_option("--dist-c", g->dist_c, "distribution of C (overrides --dist)");
  gen->add_option("--scale", g->scale, "standard deviation of the normal distribution")->capture_default_str();
  gen->add_option("--scales", g->scales, "block-scale pattern: unit, random (finite, the default: tests the arithmetic), min, max, zero_blocks, "
                  "nan, mixed, or all")
      ->capture_default_str();
  gen->add_option("--seed", g->seed, "seed; the same seed gives the same file")->capture_default_str();
  gen->add_option("--cases", g->cases, "cases per distribution (seeds seed, seed+1, ...)")->capture_default_str();
  gen->add_option("--order-a", g->order_a, "storage order of A: row or col")->capture_default_str();
  gen->add_option("--order-b", g->order_b, "storage order of B: row or col (col = N x K, the .row.col operand)")->capture_default_str();
  gen->add_option("--order-c", g->order_c, "storage order of C")->capture_default_str();
  gen->add_option("--order-d", g->order_d, "storage order of the expected D (how the kernel writes it)")->capture_default_str();
  gen->add_option("--promote-every", g->promote_every, "FP32 promotion every N instructions along K (0 = off)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  gen->add_flag("--negate-a", g->negate_a, "wgmma imm-scale-a = -1");
  gen->add_flag("--negate-b", g->negate_b, "wgmma imm-scale-b = -1");
  gen->add_flag("--no-scale-d", g->no_scale_d, "scale-d / enable-input-d false: D = A*B, no C operand");
  gen->add_option("--scale-input-d", g->scale_input_d, "tcgen05 scale-input-d s in 0..15 (D = A*B + D*2^-s)");
  gen->add_option("--from", g->from, "conversion: source format");
  gen->add_option("--to", g->to, "conversion: destination format");
  gen->add_option("--convention", g->convention, "conversion convention (see `tcemu convert --list`)")->capture_default_str();
  gen->add_option("--round", g->round, "conversion rounding: rn, rna, rz, rd/rm, ru/rp, rs");
  gen->add_flag("--satfinite", g->satfinite, "conversion: saturate");
  gen->add_flag("--relu", g->relu, "conversion: negative results become 0");
  gen->add_flag("--ftz", g->ftz, "conversion: flush subnormals");
  gen->add_option("--cvt", g->cvt, "a PTX cvt spelling, e.g. cvt.rn.satfinite.e4m3x2.f32");
  gen->add_option("--rs-map", g->rs_map, "cvt.rs random-bit mapping: ptx_doc or flashinfer_hw")->capture_default_str();
  gen->add_option("--count", g->count, "conversion cases: elements per case")->capture_default_str();
  gen->add_option("--recipe", g->recipe, "quantize case: a recipe of `tcemu quantize --list` (x of --rows x --cols from --dist)");
  gen->add_option("--rows", g->rows, "quantize case: rows of x")->capture_default_str();
  gen->add_option("--cols", g->cols, "quantize case: columns of x")->capture_default_str();
  gen->add_flag("--gemm", g->gemm, "write op gemm cases: the instruction's GEMM with a K schedule and an epilogue (docs/gemm.md); "
                "any of the options below implies it");
  add_plan_options(gen, g->plan, false);  // --satfinite (above) saturates the GEMM's output too
  gen->add_option("--device", g->device, kDeviceHelp)->capture_default_str();
  gen->add_option("--npy-threshold", g->npy_threshold,
                  "arrays with more elements go to .npy files next to the JSON (0: all inline hex)")
      ->capture_default_str();
  gen->callback([&run, g] { run = [g] { return run_gen(*g); }; });
  auto set_dir = std::make_shared<std::string>();
  auto* set = golden->add_subcommand("gen-set", "Regenerate the committed golden set (golden/sets/) into a folder");
  set->add_option("DIR", *set_dir, "output folder (existing)")->required();
  set->callback([&run, set_dir] { run = [set_dir] { return run_gen_set(*set_dir); }; });
  auto path = std::make_shared<std::string>();
  auto* check = golden->add_subcommand("check", "Read a golden file, check it, and recompute generated cases");
  check->add_option("FILE", *path, "golden JSON file")->required();
  check->callback([&run, path] { run = [path] { return run_check(*path); }; });
}

}  // namespace tcemu::cli
