// The instruction catalog as data (tcemu.instructions), instruction lookup, and whole-matrix
// MMA / single dot products through an instruction (tcemu.mma, tcemu.dot) with the GIL released.
#include <pybind11/stl.h>

#include "common.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/mma.hpp"

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
  d["scale_type"] = e.scale_type ? py::object(py::str(std::string(info(*e.scale_type).name))) : py::object(py::none());
  d["scale_block"] = e.scale_block;
  d["scale_vec"] = e.scale_vec;
  d["types_in_descriptor"] = e.types_in_descriptor;
  d["evidence"] = e.evidence;
  d["confidence"] = std::string(to_string(e.confidence));
  d["note"] = e.note;
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

py::array to_acc_array(const InstrEntry& e, const std::vector<uint64_t>& D, std::vector<py::ssize_t> shape) {
  if (e.dtype == AccType::s32) {
    py::array_t<int32_t> out(shape);
    int32_t* p = out.mutable_data();
    for (size_t i = 0; i < D.size(); ++i) p[i] = static_cast<int32_t>(static_cast<uint32_t>(D[i]));
    return out;
  }
  return narrow(D, e.dtype == AccType::f16 ? 2 : 4, shape);
}

py::array mma_codes(const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                    const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
                    const std::optional<std::string>& stype, const py::array& a, const py::array& b,
                    const std::optional<py::array>& c, const std::optional<py::array>& sa,
                    const std::optional<py::array>& sb, int M, int N, int K, int promote_every, bool negate_a,
                    bool negate_b, bool scale_d, int scale_input_d) {
  const InstrEntry& e = lookup(arch, instr, atype, btype, dtype, stype);
  std::vector<uint64_t> A = widen(a), B = widen(b), C, SA, SB;
  if (c) C = widen(*c);
  else C.assign(static_cast<size_t>(M) * static_cast<size_t>(N), 0);
  if (sa) SA = widen(*sa);
  if (sb) SB = widen(*sb);
  MmaProblem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.atype = e.atype;
  p.btype = e.btype;
  p.A = A;
  p.B = B;
  p.C = C;
  if (e.scale_type) {
    p.scale_type = e.scale_type;
    p.scale_block = e.scale_block;
    p.sa = SA;
    p.sb = SB;
  }
  const MmaOptions o = make_options(promote_every, negate_a, negate_b, scale_d, scale_input_d);
  MmaResult r;
  {
    py::gil_scoped_release nogil;
    r = mma(e, p, o);
  }
  if (!r.error.empty()) throw py::value_error(r.error);
  return to_acc_array(e, r.D, {static_cast<py::ssize_t>(M), static_cast<py::ssize_t>(N)});
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
  const MmaOptions o = make_options(promote_every, negate_a, negate_b, scale_d, scale_input_d);
  MmaResult r;
  {
    py::gil_scoped_release nogil;
    r = mma_dot(e, A, B, c, SA, SB, o);
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
        py::arg("scale_input_d"));
  m.def("dot_code", &dot_code, py::arg("arch"), py::arg("instr"), py::arg("atype"), py::arg("btype"), py::arg("dtype"),
        py::arg("stype"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("sa"), py::arg("sb"),
        py::arg("promote_every"), py::arg("negate_a"), py::arg("negate_b"), py::arg("scale_d"), py::arg("scale_input_d"));
}

}  // namespace tcemu::py_bind
