// tcemu gemm: a library GEMM (tcemu/gemm.hpp) on the user's .npy operands: the operands of
// `tcemu mma` (same storage orders) plus the K schedule (--split-k, --grain, --chunks, --plan)
// and the epilogue (--alpha, --beta, --a-scale, --b-scale, --bias, --epilogue, --out-type,
// --out-round, --satfinite). D is written as codes of the output type; the JSON side file
// records the plan that was run (chunks, combine, epilogue steps, scalars as f32 codes).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_operands.hpp"
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
  int split_k = 0, grain = 0;
  bool has_split_k = false, has_grain = false;  // given on the command line
  std::string chunks, plan, epilogue;
  std::string alpha = "1", beta = "0", a_scale, b_scale, bias, bias_type;
  std::string out_type = "f32", out_round = "rn";
  bool satfinite = false, quiet = false;
};

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// A decimal number rounded to f32 (nearest even), InputError naming the flag otherwise.
uint32_t f32_number(const std::string& s, const char* flag) {
  const auto v = parse_decimal(s);
  if (!v) throw InputError(std::string(flag) + ": '" + shown(s) + "' is not a number");
  const ConvertOptions rn;
  if (v->kind == DecimalValue::nan) return static_cast<uint32_t>(round_nan(v->sign, Fmt::f32, rn).code);
  if (v->kind == DecimalValue::inf) return static_cast<uint32_t>(round_inf(v->sign, Fmt::f32, rn).code);
  return static_cast<uint32_t>(round_value(v->sign, v->sig, v->exp, v->sticky, Fmt::f32, rn).code);
}

bool is_npy(const std::string& s) { return s.size() > 4 && s.compare(s.size() - 4, 4, ".npy") == 0; }

// A vector of f32 codes from a 1-D .npy: f32 values (<f4), f16 values (<f2), or with type
// bf16 / f16 / f32 codes in unsigned items. Exact widening.
std::vector<uint32_t> read_vector(const std::string& path, const char* flag, const std::string& type) {
  const io::NpyArray a = io::read_npy(path);
  if (a.shape.size() != 1) throw InputError(path + ": " + flag + " is a 1-D array, the file has " +
                                            std::to_string(a.shape.size()) + " dimensions");
  Fmt from;
  if (!type.empty()) {
    from = format_arg(type);
    if (from != Fmt::f32 && from != Fmt::bf16 && from != Fmt::f16)
      throw InputError(std::string(flag) + ": type " + type + "; f32, bf16 or f16 are taken");
    if (a.item_size() != container_bytes(from))
      throw InputError(path + ": " + type + " codes are " + std::to_string(container_bytes(from)) +
                       "-byte items, the dtype '" + a.descr + "' is not");
  } else if (a.descr == "<f4") {
    from = Fmt::f32;
  } else if (a.descr == "<f2") {
    from = Fmt::f16;
  } else {
    throw InputError(path + ": " + flag + " holds f32 (<f4) or f16 (<f2) values, not dtype '" + a.descr +
                     "' (bf16 codes: give --bias-type bf16)");
  }
  std::vector<uint32_t> out(a.count());
  const ConvertOptions exact;
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint32_t>(convert(from, Fmt::f32, a.bits(i), exact).code);
  return out;
}

// --a-scale / --b-scale: a number (per tensor) or a .npy of f32 values (one per row / column).
std::vector<uint32_t> scale_arg(const std::string& s, const char* flag) {
  if (s.empty()) return {};
  if (is_npy(s)) return read_vector(s, flag, "");
  return {f32_number(s, flag)};
}

std::vector<int> chunks_arg(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    size_t pos = 0;
    long v = -1;
    try {
      v = std::stol(tok, &pos);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (pos == 0 || pos != tok.size() || v < 0 || v > (1L << 30))
      throw InputError("--chunks: '" + shown(tok) + "' is not a K size (a non-negative integer)");
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw InputError("--chunks: give K sizes separated by commas (128,128,64)");
  return out;
}

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
  PlanRequest req;
  if (!g.plan.empty()) req.plan = g.plan;
  if (g.has_split_k) req.split_k = g.split_k;
  if (g.has_grain) req.grain = g.grain;
  if (!g.chunks.empty()) req.chunks = chunks_arg(g.chunks);
  if (!g.epilogue.empty()) req.epilogue = g.epilogue;
  Epilogue& ep = plan.epilogue;
  ep.out_type = format_arg(g.out_type);
  const auto r = parse_round(g.out_round);
  if (!r) throw InputError("--out-round: unknown rounding '" + shown(g.out_round) + "' (rn, rna, rz, rd, ru)");
  ep.out_round = *r;
  ep.satfinite = g.satfinite;
  ep.alpha = f32_number(g.alpha, "--alpha");
  ep.beta = f32_number(g.beta, "--beta");
  if (!g.bias_type.empty() && g.bias.empty()) throw InputError("--bias-type: given without --bias");

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
  ep.a_scale = scale_arg(g.a_scale, "--a-scale");
  ep.b_scale = scale_arg(g.b_scale, "--b-scale");
  if (!g.bias.empty()) ep.bias = read_vector(g.bias, "--bias", g.bias_type);
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
  io::write_npy(g.out, io::make_npy(golden::npy_descr(ot), cd ? std::vector<size_t>{N, M} : std::vector<size_t>{M, N}, d));

  auto list = [](const std::vector<uint32_t>& v) {
    nlohmann::json j = nlohmann::json::array();
    for (uint32_t x : v) j.push_back(hex32(x));
    return j;
  };
  nlohmann::json side = {
      {"format", "tcemu-gemm-output"},
      {"version", 1},
      {"instruction", {{"arch", e.arch}, {"ptx", e.ptx}, {"atype", std::string(info(e.atype).name)},
                       {"btype", std::string(info(e.btype).name)}, {"dtype", std::string(to_string(e.dtype))}}},
      {"shape", {{"M", M}, {"N", N}, {"K", K}}},
      {"plan",
       {{"name", g.plan.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.plan)},
        {"chunks", plan.chunks.empty() ? nlohmann::json(std::vector<size_t>{K}) : nlohmann::json(plan.chunks)},
        {"one_chain", plan.chunks.empty()},
        {"combine", std::string(to_string(plan.combine))},
        {"promote_every", plan.mma.promote_every},
        {"negate_a", plan.mma.negate_a},
        {"negate_b", plan.mma.negate_b}}},
      {"epilogue",
       {{"order", std::string(to_string(ep.order))},
        {"steps", epilogue_steps(ep.order)},
        {"alpha", hex32(ep.alpha)},
        {"beta", hex32(ep.beta)},
        {"a_scale", list(ep.a_scale)},
        {"b_scale", list(ep.b_scale)},
        {"bias", g.bias.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.bias)},
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
  c->add_option("--promote-every", g->promote_every, "FP32 promotion every N instructions along K (0 = off)");
  c->add_flag("--negate-a", g->negate_a, "wgmma imm-scale-a = -1");
  c->add_flag("--negate-b", g->negate_b, "wgmma imm-scale-b = -1");
  c->add_option("--plan", g->plan, "cublaslt-bitequiv, cutlass-serial, cutlass-parallel, f32-forward, f32-tree");
  auto* split_opt = c->add_option("--split-k", g->split_k, "split K into s chunks of ceil(ceil(K/grain)/s)*grain (1..1024)");
  auto* grain_opt = c->add_option("--grain", g->grain, "the split grain (CUTLASS: the tile's K; cublaslt-bitequiv fixes it)");
  c->add_option("--chunks", g->chunks, "explicit chunk K sizes, comma-separated (128,128,64)");
  c->add_option("--epilogue", g->epilogue, "epilogue order: fold (default), cutlass-sm90, cutlass-2x, sequential");
  c->add_option("--alpha", g->alpha, "alpha (a decimal number, rounded to f32)")->capture_default_str();
  c->add_option("--beta", g->beta, "beta (rounded to f32; 0: C is not read)")->capture_default_str();
  c->add_option("--a-scale", g->a_scale, "A's dequantization scale: a number, or a .npy of M f32 values (rowwise)");
  c->add_option("--b-scale", g->b_scale, "B's dequantization scale: a number, or a .npy of N f32 values");
  c->add_option("--bias", g->bias, "bias.npy: N values (f32 <f4, f16 <f2, or codes with --bias-type)");
  c->add_option("--bias-type", g->bias_type, "the bias file's type when it holds codes: f32, bf16, f16");
  c->add_option("--out-type", g->out_type, "D's type: f32, bf16, f16, e4m3, e5m2")->capture_default_str();
  c->add_option("--out-round", g->out_round, "D's rounding: rn, rna, rz, rd, ru")->capture_default_str();
  c->add_flag("--satfinite", g->satfinite, "overflow gives +-MAX_NORM instead of Inf/NaN");
  c->add_flag("-q,--quiet", g->quiet, "no summary line");
  c->callback([&run, g, split_opt, grain_opt] {
    g->has_split_k = split_opt->count() > 0;
    g->has_grain = grain_opt->count() > 0;
    run = [g] { return run_gemm(*g); };
  });
}

}  // namespace tcemu::cli
