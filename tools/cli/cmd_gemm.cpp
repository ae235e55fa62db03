// tcemu gemm: a library GEMM (tcemu/gemm.hpp) on the user's .npy operands: the operands of
// `tcemu mma` (same storage orders) plus the K schedule (--split-k, --grain, --chunks, --plan)
// and the epilogue (--alpha, --beta, --a-scale, --b-scale, --bias, --epilogue, --out-type,
// --out-round, --satfinite). D is written as codes of the output type; the JSON side file
// records the plan that was run (chunks, combine, epilogue steps, scalars as f32 codes).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_operands.hpp"
#include "cli_plan.hpp"
#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::cli {
namespace {

struct GemmArgs {
  std::string arch, instr, atype, btype, dtype, stype;
  std::string a, b, c, scale_a, scale_b, out;
  std::string order_a = "row", order_b = "col", order_c = "row", order_d = "row";
  int promote_every = 0;
  bool negate_a = false, negate_b = false;
  PlanArgs plan;  // the K schedule and the epilogue (cli_plan.hpp)
  bool quiet = false;
};

const InstrEntry& gemm_entry(const GemmArgs& g) {
  auto opt_fmt = [](const std::string& s) -> std::optional<Fmt> {
    if (s.empty()) return std::nullopt;
    return format_arg(s);
  };
  std::optional<AccType> dtype;
  if (!g.dtype.empty()) {
    dtype = parse_acc_type(g.dtype);
    if (!dtype) throw InputError("--dtype: must be f16, f32 or s32");
  }
  const InstrLookup lk = find_instruction(g.arch, g.instr, opt_fmt(g.atype), opt_fmt(g.btype), dtype, opt_fmt(g.stype));
  if (!lk.entry) throw InputError(lk.error);
  return *lk.entry;
}

int run_gemm(const GemmArgs& g) {
  const InstrEntry& e = gemm_entry(g);
  if (e.dtype == AccType::s32) throw InputError("gemm: " + e.ptx + " accumulates in s32; give an f32- or f16-accumulating instruction");
  if (e.scale_type && (g.scale_a.empty() || g.scale_b.empty()))
    throw InputError(e.ptx + " is block-scaled: give --scale-a and --scale-b");
  if (!e.scale_type && (!g.scale_a.empty() || !g.scale_b.empty()))
    throw InputError(e.ptx + " takes no block scales (--scale-a/--scale-b; epilogue scales are --a-scale/--b-scale)");
  const bool ca = col_order(g.order_a, "--order-a"), cb = col_order(g.order_b, "--order-b"),
             cc = col_order(g.order_c, "--order-c"), cd = col_order(g.order_d, "--order-d");

  // The plan, before any operand is read.
  GemmPlan plan;
  const PlanRequest req = plan_request(g.plan);
  plan.epilogue = plan_epilogue(g.plan);
  const Epilogue& ep = plan.epilogue;

  const golden::ElemType at = golden::elem_type(e.atype), bt = golden::elem_type(e.btype);
  const Matrix A = read_codes(g.a, "A", at, ca), B = read_codes(g.b, "B", bt, cb);
  const size_t M = A.rows, K = A.cols, N = B.cols;
  if (B.rows != K)
    throw InputError("A is " + std::to_string(M) + " x " + std::to_string(K) + " but B is " + std::to_string(B.rows) +
                     " x " + std::to_string(N) + ": their K differ");
  const std::string perr = resolve_plan(e, static_cast<int>(K), req, plan);
  if (!perr.empty()) throw InputError("gemm: " + perr);
  plan.mma.promote_every = g.promote_every;
  plan.mma.negate_a = g.negate_a;
  plan.mma.negate_b = g.negate_b;
  Matrix C;
  if (!g.c.empty()) {
    C = read_codes(g.c, "C", golden::elem_type(Fmt::f32), cc);
    if (C.rows != M || C.cols != N)
      throw InputError(g.c + ": C must be " + std::to_string(M) + " x " + std::to_string(N) + " (M x N, f32 codes)");
  }
  Matrix SA, SB;
  if (e.scale_type) {
    const golden::ElemType st = golden::elem_type(*e.scale_type);
    SA = read_codes(g.scale_a, "scale_A", st, false);
    SB = read_codes(g.scale_b, "scale_B", st, false);
  }
  const MmaProblem p = make_problem(e, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), A.codes, B.codes,
                                    C.codes, SA.codes, SB.codes);
  const GemmResult res = gemm(e, p, plan, Exec{});  // tcemu --threads N sets TCEMU_NUM_THREADS;
  if (!res.error.empty()) throw InputError("gemm: " + res.error);

  std::vector<uint64_t> d(M * N);
  if (cd)
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) d[n * M + m] = res.D[m * N + n];
  else
    d = res.D;
  const golden::ElemType ot = golden::elem_type(ep.out_type);
  check_error(io::try_write_npy(g.out, io::make_npy(golden::npy_descr(ot), cd ? std::vector<size_t>{N, M} : std::vector<size_t>{M, N}, d)));

  auto list = [](const std::vector<uint32_t>& v) {
    nlohmann::json j = nlohmann::json::array();
    for (uint32_t x : v) j.push_back(golden::f32_hex(x));
    return j;
  };
  nlohmann::json side = {
      {"format", "tcemu-gemm-output"},
      {"version", 1},
      {"instruction", {{"arch", e.arch}, {"ptx", e.ptx}, {"atype", std::string(info(e.atype).name)},
                       {"btype", std::string(info(e.btype).name)}, {"dtype", std::string(to_string(e.dtype))}}},
      {"shape", {{"M", M}, {"N", N}, {"K", K}}},
      {"plan",
       {{"name", g.plan.plan.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.plan.plan)},
        {"chunks", plan.chunks.empty() ? nlohmann::json(std::vector<size_t>{K}) : nlohmann::json(plan.chunks)},
        {"one_chain", plan.chunks.empty()},
        {"combine", std::string(to_string(plan.combine))},
        {"promote_every", plan.mma.promote_every},
        {"negate_a", plan.mma.negate_a},
        {"negate_b", plan.mma.negate_b}}},
      {"epilogue",
       {{"order", std::string(to_string(ep.order))},
        {"steps", epilogue_steps(ep.order)},
        {"alpha", golden::f32_hex(ep.alpha)},
        {"beta", golden::f32_hex(ep.beta)},
        {"a_scale", list(ep.a_scale)},
        {"b_scale", list(ep.b_scale)},
        {"bias", g.plan.bias.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.plan.bias)},
        {"out_type", std::string(info(ep.out_type).name)},
        {"out_round", std::string(to_string(ep.out_round))},
        {"satfinite", ep.satfinite}}},
      {"orders", {{"A", g.order_a}, {"B", g.order_b}, {"C", g.order_c}, {"D", g.order_d}}},
      {"inputs", {{"A", g.a}, {"B", g.b}}},
      {"D", {{"npy", g.out}, {"type", ot.name}}}};
  if (!g.c.empty()) side["inputs"]["C"] = g.c;
  const std::string spath = side_file(g.out);
  std::ofstream js(spath);
  js << side.dump(2) << "\n";
  if (!js) throw InputError(spath + ": cannot write");
  if (!g.quiet)
    std::cout << "D (" << M << " x " << N << ", " << ot.name << ") written to " << g.out << "; the plan: " << spath
              << "\n";
  return 0;
}

}  // namespace

void add_gemm_command(CLI::App& app, Runner& run) {
  auto g = std::make_shared<GemmArgs>();
  auto* c = app.add_subcommand("gemm", "A library GEMM on your operands (.npy): split-K plan and epilogue (docs/gemm.md)");
  c->add_option("--arch", g->arch, "target architecture (sm_80, sm_90a, sm_100a, ...)")->required();
  c->add_option("--instr", g->instr, "the instruction's PTX spelling (see `tcemu instr list`)")->required();
  c->add_option("--atype", g->atype, "A's type, where the spelling leaves it out (tcgen05)");
  c->add_option("--btype", g->btype, "B's type, where the spelling leaves it out");
  c->add_option("--dtype", g->dtype, "accumulator type f16 or f32, where the spelling leaves it out");
  c->add_option("--stype", g->stype, "scale type ue8m0 or ue4m3 (block-scaled kinds)");
  c->add_option("A", g->a, "A.npy: M x K codes (row order; --order-a col: stored K x M)")->required();
  c->add_option("B", g->b, "B.npy: K x N codes (col order by default: stored N x K)")->required();
  c->add_option("C", g->c, "C.npy: M x N f32 codes, the epilogue's beta * C");
  c->add_option("--scale-a", g->scale_a, "block-scaled kinds: scale_A.npy, M x K/block scale codes");
  c->add_option("--scale-b", g->scale_b, "block-scaled kinds: scale_B.npy, N x K/block scale codes");
  c->add_option("-o,--output", g->out, "D.npy to write (codes of --out-type; D.json records the plan)")->required();
  c->add_option("--order-a", g->order_a, "storage order of A: row or col")->capture_default_str();
  c->add_option("--order-b", g->order_b, "storage order of B: row or col")->capture_default_str();
  c->add_option("--order-c", g->order_c, "storage order of C: row or col")->capture_default_str();
  c->add_option("--order-d", g->order_d, "storage order of D: row or col")->capture_default_str();
  c->add_option("--promote-every", g->promote_every, "FP32 promotion every N instructions along K (0 = off)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  c->add_flag("--negate-a", g->negate_a, "wgmma imm-scale-a = -1");
  c->add_flag("--negate-b", g->negate_b, "wgmma imm-scale-b = -1");
  add_plan_options(c, g->plan, true);
  c->add_flag("-q,--quiet", g->quiet, "no summary line");
  c->callback([&run, g] { run = [g] { return run_gemm(*g); }; });
}

}  // namespace tcemu::cli
