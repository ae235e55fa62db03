// The instruction catalog as data (tcemu.instructions), instruction lookup, and whole-matrix
// MMA / single dot products through an instruction (tcemu.mma, tcemu.dot) with the GIL released,
// on the CPU or (device >= 0) with the emulator on a CUDA GPU (tcemu/mma_cuda.hpp), from host
// arrays or from operands already in GPU memory (mma_device_codes): every one a call of
// tcemu::mma(problem, exec).
#include <pybind11/stl.h>

#include <stdexcept>
#include <utility>

#include "common.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/mma_cuda.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu::py_bind {
namespace {

std::optional<Fmt> opt_format(const std::optional<std::string>& s, const char* arg) {
  if (!s) return std::nullopt;
  return format_of(*s, arg);
}

const InstrEntry& lookup(const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                         const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                         const std::optional<std::string>& stype) {
  std::optional<AccType> dt;
  if (dtype) {
    dt = parse_acc_type(*dtype);
    if (!dt) throw py::value_error("dtype: '" + *dtype + "' is not f16, f32 or s32");
  }
  InstrLookup l = find_instruction(arch, instr, opt_format(atype, "atype"), opt_format(btype, "btype"), dt,
                                   opt_format(stype, "stype"));
  if (!l.entry) throw py::value_error("instr: " + l.error);
  return *l.entry;
}

constexpr std::pair<const char*, DatapathKind> kKinds[] = {
    {"t_fdpa", DatapathKind::t_fdpa}, {"st_fdpa", DatapathKind::st_fdpa}, {"gst_fdpa", DatapathKind::gst_fdpa},
    {"integer", DatapathKind::integer}};
constexpr std::pair<const char*, CEntry> kCEntries[] = {
    {"fused", CEntry::fused}, {"rne_f32_after", CEntry::rne_f32_after},
    {"rne_after_instruction", CEntry::rne_after_instruction}};

template <class T, size_t N>
const char* name_of(const std::pair<const char*, T> (&table)[N], T v) {
  for (const auto& [n, x] : table)
    if (x == v) return n;
  return "?";
}

template <class T, size_t N>
T value_of(const std::pair<const char*, T> (&table)[N], const std::string& s, const char* arg) {
  std::string names;
  for (const auto& [n, x] : table) {
    if (s == n) return x;
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  throw py::value_error(std::string(arg) + ": unknown value '" + s + "' (one of " + names + ")");
}

// DatapathParams as a dict (the fields of datapath.hpp) and back.
py::dict params_dict(const DatapathParams& p) {
  py::dict d;
  d["kind"] = name_of(kKinds, p.kind);
  d["L"] = p.L;
  d["F"] = p.F;
  d["e_zero"] = p.e_zero;
  d["rounding"] = std::string(to_string(p.rounding));
  d["c_entry"] = name_of(kCEntries, p.c_entry);
  d["group"] = p.group;
  d["satfinite"] = p.satfinite;
  d["widen_to_f16"] = p.widen_to_f16;
  d["kpair_halves"] = p.kpair_halves;
  d["positive_zero"] = p.positive_zero;
  return d;
}

DatapathParams params_from(const py::dict& d) {
  DatapathParams p;
  for (auto item : d) {
    const std::string k = py::str(item.first);
    const py::handle v = item.second;
    const std::string arg = "params." + k;
    auto as_int = [&] {
      if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v)) throw py::type_error(arg + ": an int is required");
      return v.cast<int>();
    };
    auto as_bool = [&] {
      if (!py::isinstance<py::bool_>(v)) throw py::type_error(arg + ": True or False is required");
      return v.cast<bool>();
    };
    auto as_str = [&] {
      if (!py::isinstance<py::str>(v)) throw py::type_error(arg + ": a name (str) is required");
      return v.cast<std::string>();
    };
    if (k == "kind") p.kind = value_of(kKinds, as_str(), arg.c_str());
    else if (k == "L") p.L = as_int();
    else if (k == "F") p.F = as_int();
    else if (k == "e_zero") p.e_zero = as_int();
    else if (k == "rounding") {
      auto r = parse_output_rounding(as_str());
      if (!r) throw py::value_error(arg + ": unknown rounding (rz_f32, rne_f16, rz_e8m13, rne_f32, rz_f16)");
      p.rounding = *r;
    } else if (k == "c_entry") p.c_entry = value_of(kCEntries, as_str(), arg.c_str());
    else if (k == "group") p.group = as_int();
    else if (k == "satfinite") p.satfinite = as_bool();
    else if (k == "widen_to_f16") p.widen_to_f16 = as_bool();
    else if (k == "kpair_halves") p.kpair_halves = as_bool();
    else if (k == "positive_zero") p.positive_zero = as_bool();
    else
      throw py::value_error("params: unknown key '" + k +
                            "' (kind, L, F, e_zero, rounding, c_entry, group, satfinite, widen_to_f16, kpair_halves, positive_zero)");
  }
  return p;
}

py::dict entry_dict(const InstrEntry& e) {
  py::dict d;
  d["arch"] = e.arch;
  d["ptx"] = e.ptx;
  d["family"] = e.family;
  d["M"] = e.M;
  d["N"] = e.N;
  d["K"] = e.K;
  d["atype"] = std::string(info(e.atype).name);
  d["btype"] = std::string(info(e.btype).name);
  d["dtype"] = std::string(to_string(e.dtype));
  d["datapath"] = describe(e.params);
  d["params"] = params_dict(e.params);
  d["scale_type"] = e.scale_type ? py::object(py::str(std::string(info(*e.scale_type).name))) : py::object(py::none());
  d["scale_block"] = e.scale_block;
  d["scale_vec"] = e.scale_vec;
  d["types_in_descriptor"] = e.types_in_descriptor;
  d["evidence"] = e.evidence;
  d["confidence"] = std::string(to_string(e.confidence));
  d["note"] = e.note;
  d["family_target"] = e.family_target;  // PTX also gives it to the arch's `f` target
  d["params_from"] = e.params_from.empty() ? py::object(py::none()) : py::object(py::str(e.params_from));
  return d;
}

MmaOptions make_options(int promote_every, bool negate_a, bool negate_b, bool scale_d, int scale_input_d) {
  MmaOptions o;
  o.promote_every = promote_every;
  o.negate_a = negate_a;
  o.negate_b = negate_b;
  o.scale_d = scale_d;
  o.scale_input_d = scale_input_d;
  return o;
}

py::array to_acc_array(const InstrEntry& e, CodeVector&& D, std::vector<py::ssize_t> shape) {
  if (e.dtype == AccType::s32) return narrow(std::move(D), 4, std::move(shape), true);
  return narrow(std::move(D), e.dtype == AccType::f16 ? 2 : 4, std::move(shape));
}

py::array mma_codes(const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                    const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                    const std::optional<std::string>& stype, const py::array& a, const py::array& b,
                    const std::optional<py::array>& c, const std::optional<py::array>& sa,
                    const std::optional<py::array>& sb, int M, int N, int K, int promote_every, bool negate_a,
                    bool negate_b, bool scale_d, int scale_input_d, int threads, int device) {
  const InstrEntry& e = lookup(arch, instr, atype, btype, dtype, stype);
  std::vector<uint64_t> A = widen(a), B = widen(b), C, SA, SB;
  if (c) C = widen(*c);  // else empty: C = +0 everywhere
  if (sa) SA = widen(*sa);
  if (sb) SB = widen(*sb);
  const MmaProblem p =
      make_problem(e, M, N, K, A, B, C, SA, SB, make_options(promote_every, negate_a, negate_b, scale_d, scale_input_d));
  MmaResult r;
  try {
    py::gil_scoped_release nogil;
    // threads: 0 = TCEMU_NUM_THREADS, else every core; the same D for every thread count.
    // device >= 0: the emulator on that CUDA device.
    r = mma(p, exec_of(threads, device));
  } catch (const std::invalid_argument& ex) {
    throw py::value_error(std::string("threads: ") + ex.what());
  }
  if (!r.error.empty() && device >= 0) throw_device_error(r.error, device);
  if (!r.error.empty()) throw py::value_error(r.error);
  return to_acc_array(e, std::move(r.D), {static_cast<py::ssize_t>(M), static_cast<py::ssize_t>(N)});
}

py::array mma_params_codes(const py::dict& params, const std::string& atype_name, const std::string& btype_name,
                           const std::optional<std::string>& stype_name, int scale_block, int instr_k,
                           const py::array& a, const py::array& b, const std::optional<py::array>& c,
                           const std::optional<py::array>& sa, const std::optional<py::array>& sb, int M, int N, int K,
                           int promote_every, bool negate_a, bool negate_b, bool scale_d, int scale_input_d,
                           int device) {
  const DatapathParams p = params_from(params);
  const Fmt at = format_of(atype_name, "atype"), bt = format_of(btype_name, "btype");
  std::optional<Fmt> st;
  if (stype_name) st = format_of(*stype_name, "stype");
  const std::string err = validate(p, at, bt, st);
  if (!err.empty()) throw py::value_error("params: " + err);
  std::vector<uint64_t> A = widen(a), B = widen(b), C, SA, SB;
  if (c) C = widen(*c);  // else empty: C = +0 everywhere
  if (sa) SA = widen(*sa);
  if (sb) SB = widen(*sb);
  MmaProblem prob;
  prob.M = M;
  prob.N = N;
  prob.K = K;
  prob.atype = at;
  prob.btype = bt;
  prob.A = A;
  prob.B = B;
  prob.C = C;
  if (st) {
    prob.scale_type = st;
    prob.scale_block = scale_block;
    prob.sa = SA;
    prob.sb = SB;
  }
  prob.instr = MmaInstr(p, instr_k);
  prob.options = make_options(promote_every, negate_a, negate_b, scale_d, scale_input_d);
  MmaResult r;
  {
    py::gil_scoped_release nogil;
    r = mma(prob, exec_of(1, device));
  }
  if (!r.error.empty() && device >= 0) throw_device_error(r.error, device);
  if (!r.error.empty()) throw py::value_error(r.error);
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(M), static_cast<py::ssize_t>(N)};
  if (p.kind == DatapathKind::integer) return narrow(std::move(r.D), 4, shape, true);
  return narrow(std::move(r.D), output_format(p.rounding) == Fmt::f16 ? 2 : 4, shape);
}

// An operand in GPU memory as the Python layer passes it: (device pointer, itemsize, count), or
// None for an absent C or absent scales.
DeviceCodes device_codes(const std::optional<std::tuple<uintptr_t, int, size_t>>& t) {
  if (!t) return {};
  const auto [ptr, itemsize, n] = *t;
  return DeviceCodes{reinterpret_cast<const void*>(ptr), itemsize, n};
}

using DeviceArg = std::optional<std::tuple<uintptr_t, int, size_t>>;

// tcemu.mma on operands already in GPU memory (CUDA arrays; python/tcemu/_device.py checks
// their dtypes, shapes and layout): mma() with DeviceOperands, D back in host memory.
py::array mma_device_codes(const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                           const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                           const std::optional<std::string>& stype, const DeviceArg& a, const DeviceArg& b,
                           const DeviceArg& c, const DeviceArg& sa, const DeviceArg& sb, int M, int N, int K,
                           int promote_every, bool negate_a, bool negate_b, bool scale_d, int scale_input_d,
                           int device) {
  const InstrEntry& e = lookup(arch, instr, atype, btype, dtype, stype);
  DeviceOperands ops;
  ops.A = device_codes(a);
  ops.B = device_codes(b);
  ops.C = device_codes(c);
  if (e.scale_type) {
    ops.sa = device_codes(sa);
    ops.sb = device_codes(sb);
  }
  MmaProblem p = make_problem(e, M, N, K, {}, {}, {}, {}, {},
                              make_options(promote_every, negate_a, negate_b, scale_d, scale_input_d));
  p.device_operands = &ops;
  MmaResult r;
  {
    py::gil_scoped_release nogil;
    r = mma(p, exec_of(1, device));
  }
  if (!r.error.empty()) throw_device_error(r.error, device);
  return to_acc_array(e, std::move(r.D), {static_cast<py::ssize_t>(M), static_cast<py::ssize_t>(N)});
}

py::object dot_code(const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                    const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                    const std::optional<std::string>& stype, const py::array& a, const py::array& b, uint64_t c,
                    const std::optional<py::array>& sa, const std::optional<py::array>& sb, int promote_every,
                    bool negate_a, bool negate_b, bool scale_d, int scale_input_d) {
  const InstrEntry& e = lookup(arch, instr, atype, btype, dtype, stype);
  std::vector<uint64_t> A = widen(a), B = widen(b), SA, SB;
  if (sa) SA = widen(*sa);
  if (sb) SB = widen(*sb);
  const uint64_t C[1] = {c};
  const MmaProblem p = make_problem(e, 1, 1, static_cast<int>(A.size()), A, B, C, SA, SB,
                                    make_options(promote_every, negate_a, negate_b, scale_d, scale_input_d));
  MmaResult r;
  {
    py::gil_scoped_release nogil;
    r = mma(p, Exec{1});
  }
  if (!r.error.empty()) throw py::value_error(r.error);
  return py::int_(r.D.at(0));
}

}  // namespace

void init_mma(py::module_& m) {
  m.def("catalog", [] {
    py::list l;
    for (const InstrEntry& e : catalog()) l.append(entry_dict(e));
    return l;
  });
  m.def("find_instruction", [](const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                               const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                               const std::optional<std::string>& stype) {
    return entry_dict(lookup(arch, instr, atype, btype, dtype, stype));
  }, py::arg("arch"), py::arg("instr"), py::arg("atype") = py::none(), py::arg("btype") = py::none(),
     py::arg("dtype") = py::none(), py::arg("stype") = py::none());
  m.def("mma_codes", &mma_codes, py::arg("arch"), py::arg("instr"), py::arg("atype"), py::arg("btype"), py::arg("dtype"),
        py::arg("stype"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("sa"), py::arg("sb"), py::arg("M"), py::arg("N"),
        py::arg("K"), py::arg("promote_every"), py::arg("negate_a"), py::arg("negate_b"), py::arg("scale_d"),
        py::arg("scale_input_d"), py::arg("threads") = 1, py::arg("device") = -1);
  m.def("mma_device_codes", &mma_device_codes);
  m.def("thread_count", [](int threads) {
    try {
      return thread_count(Exec{threads});
    } catch (const std::invalid_argument& ex) {
      throw py::value_error(std::string("threads: ") + ex.what());
    }
  }, py::arg("threads") = 0, "The thread count a threads= value resolves to");
  m.def("mma_params_codes", &mma_params_codes);
  m.def("default_params", [] { return params_dict(DatapathParams{}); });
  m.def("dot_code", &dot_code, py::arg("arch"), py::arg("instr"), py::arg("atype"), py::arg("btype"), py::arg("dtype"),
        py::arg("stype"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("sa"), py::arg("sb"),
        py::arg("promote_every"), py::arg("negate_a"), py::arg("negate_b"), py::arg("scale_d"), py::arg("scale_input_d"));
}

}  // namespace tcemu::py_bind
