// tcemu.gemm (python/tcemu/_gemm.py): the library GEMM of tcemu/gemm.hpp with the GIL released.
// Every number the epilogue uses reaches the C++ core as codes: alpha, beta and per-tensor
// scales as f64 codes of the Python numbers (rounded here to f32 by the converter, to nearest
// even), rowwise scales as f32 codes, the bias as codes of its type (widened here to f32).
#include <pybind11/stl.h>

#include <cstring>
#include <stdexcept>

#include "common.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/gemm.hpp"

namespace tcemu::py_bind {
namespace {

// Codes of `from` (f64, f32, bf16, f16) as f32 codes, rounded to nearest even (exact for all
// but f64).
std::vector<uint32_t> to_f32(const py::array& a, const std::string& from_name, const char* arg) {
  const Fmt from = format_of(from_name, arg);
  if (from != Fmt::f64 && from != Fmt::f32 && from != Fmt::bf16 && from != Fmt::f16)
    throw py::value_error(std::string(arg) + ": values of type " + from_name + "; f32, bf16 or f16 are taken");
  const std::vector<uint64_t> c = widen(a);
  std::vector<uint32_t> out(c.size());
  const ConvertOptions rn;
  for (size_t i = 0; i < c.size(); ++i) out[i] = static_cast<uint32_t>(convert(from, Fmt::f32, c[i], rn).code);
  return out;
}

uint32_t scalar_f32(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return static_cast<uint32_t>(convert(Fmt::f64, Fmt::f32, bits, ConvertOptions{}).code);
}

using OptArr = std::optional<std::pair<py::array, std::string>>;

py::array gemm_codes(const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                     const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                     const std::optional<std::string>& stype, const py::array& a, const py::array& b,
                     const std::optional<py::array>& c, const std::optional<py::array>& sa,
                     const std::optional<py::array>& sb, int M, int N, int K, int promote_every, bool negate_a,
                     bool negate_b, const std::optional<int>& split_k, const std::optional<int>& grain,
                     const std::optional<std::vector<int>>& chunks, const std::optional<std::string>& plan_name,
                     double alpha, double beta, const OptArr& a_scale, const OptArr& b_scale, const OptArr& bias,
                     const std::string& out_type, const std::string& out_round, bool satfinite,
                     const std::optional<std::string>& epilogue, int threads, int device) {
  std::optional<AccType> dt;
  if (dtype) {
    dt = parse_acc_type(*dtype);
    if (!dt) throw py::value_error("dtype: '" + *dtype + "' is not f16, f32 or s32");
  }
  auto opt_fmt = [](const std::optional<std::string>& s, const char* arg) -> std::optional<Fmt> {
    if (!s) return std::nullopt;
    return format_of(*s, arg);
  };
  const InstrLookup l = find_instruction(arch, instr, opt_fmt(atype, "atype"), opt_fmt(btype, "btype"), dt,
                                         opt_fmt(stype, "stype"));
  if (!l.entry) throw py::value_error("instr: " + l.error);
  const InstrEntry& e = *l.entry;
  const Exec exec = exec_of(threads, device);

  GemmPlan plan;
  PlanRequest req;
  req.plan = plan_name;
  req.split_k = split_k;
  req.grain = grain;
  req.chunks = chunks;
  req.epilogue = epilogue;
  std::string err = resolve_plan(e, K, req, plan);
  if (!err.empty()) throw py::value_error(err);
  plan.mma.promote_every = promote_every;
  plan.mma.negate_a = negate_a;
  plan.mma.negate_b = negate_b;
  Epilogue& ep = plan.epilogue;
  ep.alpha = scalar_f32(alpha);
  ep.beta = scalar_f32(beta);
  if (a_scale) ep.a_scale = to_f32(a_scale->first, a_scale->second, "a_scale");
  if (b_scale) ep.b_scale = to_f32(b_scale->first, b_scale->second, "b_scale");
  if (bias) ep.bias = to_f32(bias->first, bias->second, "bias");
  ep.out_type = format_of(out_type, "out_type");
  const auto r = parse_round(out_round);
  if (!r) throw py::value_error("out_round: unknown rounding '" + out_round + "' (rn, rna, rz, rd, ru)");
  ep.out_round = *r;
  ep.satfinite = satfinite;

  std::vector<uint64_t> A = widen(a), B = widen(b), C, SA, SB;
  if (c) C = widen(*c);
  if (sa) SA = widen(*sa);
  if (sb) SB = widen(*sb);
  const MmaProblem p = make_problem(e, M, N, K, A, B, C, SA, SB);
  GemmResult res;
  {
    py::gil_scoped_release nogil;
    res = gemm(e, p, plan, exec);
  }
  if (!res.error.empty() && device >= 0) throw_device_error(res.error, device);
  if (!res.error.empty()) throw py::value_error(res.error);
  return narrow(res.D, static_cast<int>(container_bytes(ep.out_type)),
                {static_cast<py::ssize_t>(M), static_cast<py::ssize_t>(N)});
}

}  // namespace

void init_gemm(py::module_& m) {
  m.def("gemm_codes", &gemm_codes, py::arg("arch"), py::arg("instr"), py::arg("atype"), py::arg("btype"),
        py::arg("dtype"), py::arg("stype"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("sa"), py::arg("sb"),
        py::arg("M"), py::arg("N"), py::arg("K"), py::arg("promote_every"), py::arg("negate_a"), py::arg("negate_b"),
        py::arg("split_k"), py::arg("grain"), py::arg("chunks"), py::arg("plan"), py::arg("alpha"), py::arg("beta"),
        py::arg("a_scale"), py::arg("b_scale"), py::arg("bias"), py::arg("out_type"), py::arg("out_round"),
        py::arg("satfinite"), py::arg("epilogue"), py::arg("threads"), py::arg("device") = -1);
  m.def("split_k_chunks", [](int K, int s, int grain) {
    std::string err;
    std::vector<int> c = split_k_chunks(K, s, grain, &err);
    if (c.empty()) throw py::value_error(err);
    return c;
  }, py::arg("K"), py::arg("split_k"), py::arg("grain"));
  m.def("gemm_plans", [] {
    py::list l;
    for (const PlanPreset& p : plan_presets()) {
      py::dict d;
      d["name"] = std::string(p.name);
      d["combine"] = std::string(to_string(p.combine));
      d["epilogue"] = std::string(to_string(p.epilogue));
      d["summary"] = std::string(p.summary);
      l.append(d);
    }
    return l;
  });
  m.def("epilogue_steps", [](const std::string& name) {
    const auto o = parse_epilogue_order(name);
    if (!o) throw py::value_error("epilogue: unknown epilogue order '" + name + "'");
    return epilogue_steps(*o);
  });
}

}  // namespace tcemu::py_bind
