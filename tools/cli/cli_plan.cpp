// The GEMM plan options of cli_plan.hpp, shared by `tcemu gemm` and `tcemu golden gen --gemm`.
#include "cli_plan.hpp"

#include <sstream>

#include "cli_util.hpp"
#include "tcemu/convert.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::cli {
namespace {

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
  const io::NpyArray a = value_of(io::try_read_npy(path));
  if (a.shape.size() != 1) throw InputError(path + ": " + flag + " is a 1-D array, the file has " +
                                            std::to_string(a.shape.size()) + " dimensions");
  Fmt from;
  if (!type.empty()) {
    from = format_arg(type, "--bias-type");
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
  if (a.count() == 0) throw InputError(path + ": " + flag + " has no values (the file's shape is (0,))");
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

}  // namespace

bool PlanArgs::any_given() const {
  for (const CLI::Option* o : options)
    if (o->count() > 0) return true;
  return false;
}

void add_plan_options(CLI::App* c, PlanArgs& g, bool with_satfinite) {
  auto& o = g.options;
  o.push_back(c->add_option("--plan", g.plan, "cublaslt-bitequiv, cutlass-serial, cutlass-parallel, f32-forward, f32-tree"));
  g.split_opt = c->add_option("--split-k", g.split_k, "split K into s chunks of ceil(ceil(K/grain)/s)*grain (1..1024)");
  g.grain_opt = c->add_option("--grain", g.grain, "the split grain (CUTLASS: the tile's K; cublaslt-bitequiv fixes it)");
  o.push_back(g.split_opt);
  o.push_back(g.grain_opt);
  o.push_back(c->add_option("--chunks", g.chunks, "explicit chunk K sizes, comma-separated (128,128,64)"));
  o.push_back(c->add_option("--epilogue", g.epilogue, "epilogue order: fold (default), cutlass-sm90, cutlass-2x, sequential"));
  o.push_back(c->add_option("--alpha", g.alpha, "alpha (a decimal number, rounded to f32)")->capture_default_str());
  o.push_back(c->add_option("--beta", g.beta, "beta (rounded to f32; 0: C is not read)")->capture_default_str());
  o.push_back(c->add_option("--a-scale", g.a_scale, "A's dequantization scale: a number, or a .npy of M f32 values (rowwise)"));
  o.push_back(c->add_option("--b-scale", g.b_scale, "B's dequantization scale: a number, or a .npy of N f32 values"));
  o.push_back(c->add_option("--bias", g.bias, "bias.npy: N values (f32 <f4, f16 <f2, or codes with --bias-type)"));
  o.push_back(c->add_option("--bias-type", g.bias_type, "the bias file's type when it holds codes: f32, bf16, f16"));
  o.push_back(c->add_option("--out-type", g.out_type, "D's type: f32, bf16, f16, e4m3, e5m2")->capture_default_str());
  o.push_back(c->add_option("--out-round", g.out_round, "D's rounding: rn, rna, rz, rd, ru")->capture_default_str());
  if (with_satfinite) o.push_back(c->add_flag("--satfinite", g.satfinite, "overflow gives +-MAX_NORM instead of Inf/NaN"));
}

PlanRequest plan_request(const PlanArgs& g) {
  PlanRequest req;
  if (!g.plan.empty()) req.plan = g.plan;
  if (g.split_opt && g.split_opt->count() > 0) req.split_k = g.split_k;
  if (g.grain_opt && g.grain_opt->count() > 0) req.grain = g.grain;
  if (!g.chunks.empty()) req.chunks = chunks_arg(g.chunks);
  if (!g.epilogue.empty()) req.epilogue = g.epilogue;
  return req;
}

Epilogue plan_epilogue(const PlanArgs& g) {
  Epilogue ep;
  ep.out_type = format_arg(g.out_type, "--out-type");
  const auto r = parse_round(g.out_round);
  if (!r) throw InputError("--out-round: unknown rounding '" + shown(g.out_round) + "' (rn, rna, rz, rd, ru)");
  ep.out_round = *r;
  ep.satfinite = g.satfinite;
  ep.alpha = f32_number(g.alpha, "--alpha");
  ep.beta = f32_number(g.beta, "--beta");
  if (!g.bias_type.empty() && g.bias.empty()) throw InputError("--bias-type: given without --bias");
  ep.a_scale = scale_arg(g.a_scale, "--a-scale");
  ep.b_scale = scale_arg(g.b_scale, "--b-scale");
  if (!g.bias.empty()) ep.bias = read_vector(g.bias, "--bias", g.bias_type);
  return ep;
}

}  // namespace tcemu::cli
