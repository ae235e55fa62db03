// Conversions: tcemu.convert / encode / decode (Converter over whole arrays, the GIL
// released) and tcemu.cvt (PTX cvt instructions with their register packing).
#include <pybind11/stl.h>

#include <cstring>

#include "common.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/ptx_cvt.hpp"

namespace tcemu::py_bind {
namespace {

ConvertOptions resolve_options(const std::string& convention, Fmt from, Fmt to, const std::optional<std::string>& round,
                               bool satfinite, bool relu, bool ftz) {
  if (!convention.empty() && !find_convention(convention)) {
    std::string names;
    for (const Convention& c : conventions()) names += (names.empty() ? "" : ", ") + std::string(c.name);
    throw py::value_error("convention: unknown convention '" + convention + "' (one of " + names + ")");
  }
  OptionRequest req;
  if (round) {
    req.round = parse_round(*round);
    if (!req.round) throw py::value_error("round: unknown rounding mode '" + *round + "' (rn, rna, rz, rd, ru, rs)");
  }
  // As the command line: a flag that is not set leaves the convention's value.
  if (satfinite) req.satfinite = true;
  if (relu) req.relu = true;
  if (ftz) req.ftz = true;
  Resolved r = resolve(convention, from, to, req);
  if (!r.options) throw py::value_error(r.error);
  return *r.options;
}

py::array convert_codes(const py::array& codes, const std::string& from_name, const std::string& to_name,
                        const std::optional<std::string>& round, bool satfinite, bool relu, bool ftz,
                        const std::string& convention, const std::optional<py::array>& rbits,
                        const std::optional<py::array>& out_arg, int threads) {
  const Exec exec = exec_of(threads);
  const Fmt from = format_of(from_name, "src"), to = format_of(to_name, "dst");
  const ConvertOptions opt = resolve_options(convention, from, to, round, satfinite, relu, ftz);
  if (static_cast<size_t>(item_bytes(codes)) != container_bytes(from))
    throw py::type_error("codes: elements of " + std::to_string(item_bytes(codes)) + " bytes; " +
                         std::string(info(from).name) + " codes travel in " + std::to_string(container_bytes(from)));
  const bool rs = opt.round == Round::rs;
  if (rs && !rbits) throw py::value_error("rbits: stochastic rounding (round='rs') needs one uint32 of random bits per element");
  if (!rs && rbits) throw py::value_error("rbits: only stochastic rounding (round='rs') takes random bits");
  const size_t n = count(codes);
  if (rbits && count(*rbits) != n) throw py::value_error("rbits: must have the shape of codes");
  std::vector<py::ssize_t> shape(codes.shape(), codes.shape() + codes.ndim());
  py::array out;
  if (out_arg) {
    // Checked by tcemu.convert (dtype, shape, C order, writeable); the size is checked here too.
    if (count(*out_arg) != n || static_cast<size_t>(item_bytes(*out_arg)) != container_bytes(to))
      throw py::value_error("out: must have the shape of codes and the destination's container dtype");
    out = *out_arg;
  } else {
    switch (container_bytes(to)) {
      case 1: out = py::array_t<uint8_t>(shape); break;
      case 2: out = py::array_t<uint16_t>(shape); break;
      case 4: out = py::array_t<uint32_t>(shape); break;
      default: out = py::array_t<uint64_t>(shape); break;
    }
  }
  const void* src = codes.data();
  void* dst = out.mutable_data();
  const auto* rb = rbits ? static_cast<const uint32_t*>(rbits->data()) : nullptr;
  // Options without a defined result for some inputs: element by element, stopping at the
  // first such input (the command line exits 2 there).
  const bool may_be_undefined = opt.nan_to_finite == NanToFinite::undefined ||
                                opt.neg_to_unsigned == NegToUnsigned::undefined || opt.overflow_undefined;
  if (may_be_undefined) {
    const std::vector<uint64_t> in = widen(codes);
    std::vector<uint64_t> res(n);
    py::ssize_t bad = -1;
    {
      py::gil_scoped_release nogil;
      for (size_t i = 0; i < n && bad < 0; ++i) {
        ConvertResult r = convert(from, to, in[i], opt, rb ? rb[i] : 0);
        if (r.flags & kUndefined) bad = static_cast<py::ssize_t>(i);
        res[i] = r.code;
      }
    }
    if (bad >= 0)
      throw py::value_error("codes: element " + std::to_string(bad) + " (0x" + to_hex(from, in[static_cast<size_t>(bad)]) +
                            "): convention '" + (convention.empty() ? std::string("generic") : convention) +
                            "' defines no result for this input in " + std::string(info(to).name));
    py::array r = narrow(res, static_cast<int>(container_bytes(to)), shape);
    if (!out_arg) return r;
    std::memcpy(out.mutable_data(), r.data(), n * container_bytes(to));
    return out;
  }
  const Converter conv(from, to, opt);
  {
    py::gil_scoped_release nogil;
    conv.run(src, dst, n, rb, exec);  // the same codes for every thread count
  }
  return out;
}

// Codes and IEEE status flags (tcemu::Flag, one uint8 per element), element by element through
// the scalar core: an input the options define no result for gets code 0 and kUndefined.
py::tuple convert_codes_flags(const py::array& codes, const std::string& from_name, const std::string& to_name,
                              const std::optional<std::string>& round, bool satfinite, bool relu, bool ftz,
                              const std::string& convention, const std::optional<py::array>& rbits) {
  const Fmt from = format_of(from_name, "src"), to = format_of(to_name, "dst");
  const ConvertOptions opt = resolve_options(convention, from, to, round, satfinite, relu, ftz);
  if (static_cast<size_t>(item_bytes(codes)) != container_bytes(from))
    throw py::type_error("codes: elements of " + std::to_string(item_bytes(codes)) + " bytes; " +
                         std::string(info(from).name) + " codes travel in " + std::to_string(container_bytes(from)));
  const bool rs = opt.round == Round::rs;
  if (rs && !rbits) throw py::value_error("rbits: stochastic rounding (round='rs') needs one uint32 of random bits per element");
  if (!rs && rbits) throw py::value_error("rbits: only stochastic rounding (round='rs') takes random bits");
  const size_t n = count(codes);
  if (rbits && count(*rbits) != n) throw py::value_error("rbits: must have the shape of codes");
  std::vector<py::ssize_t> shape(codes.shape(), codes.shape() + codes.ndim());
  const std::vector<uint64_t> in = widen(codes);
  const auto* rb = rbits ? static_cast<const uint32_t*>(rbits->data()) : nullptr;
  std::vector<uint64_t> res(n), fl(n);
  {
    py::gil_scoped_release nogil;
    for (size_t i = 0; i < n; ++i) {
      const ConvertResult r = convert(from, to, in[i], opt, rb ? rb[i] : 0);
      res[i] = r.code;
      fl[i] = r.flags;
    }
  }
  return py::make_tuple(narrow(res, static_cast<int>(container_bytes(to)), shape), narrow(fl, 1, shape));
}

py::array cvt_eval(const std::string& spelling, const py::array_t<uint64_t>& regs, const std::optional<py::array>& rbits,
                   const std::string& rs_map_name) {
  const Result<PtxCvt> parsed = parse_ptx_cvt(spelling);
  if (!parsed.ok()) throw py::value_error("ptx: " + parsed.error);
  const PtxCvt* c = &parsed.value;
  RsBitMap map;
  if (rs_map_name == "ptx_doc") map = RsBitMap::ptx_doc;
  else if (rs_map_name == "flashinfer_hw") map = RsBitMap::flashinfer_hw;
  else throw py::value_error("rs_map: unknown mapping '" + rs_map_name + "' (ptx_doc, flashinfer_hw)");
  const size_t nsrc = c->src_packed ? 1u : static_cast<size_t>(c->src_count);
  if (regs.ndim() != 2 || static_cast<size_t>(regs.shape(0)) != nsrc)
    throw py::value_error("registers: " + c->spelling + " takes " + std::to_string(nsrc) + " source register(s), got " +
                          std::to_string(regs.ndim() == 2 ? regs.shape(0) : 0));
  if (c->has_rbits && !rbits) throw py::value_error("rbits: " + c->spelling + " takes a .b32 register of random bits");
  if (!c->has_rbits && rbits) throw py::value_error("rbits: " + c->spelling + " takes no random bits");
  const size_t n = static_cast<size_t>(regs.shape(1));
  if (rbits && count(*rbits) != n) throw py::value_error("rbits: must have the shape of the registers");
  const int sbits = ptx_cvt_src_bits(*c), dbits = ptx_cvt_dst_bits(*c);
  const uint64_t* p = regs.data();
  for (size_t k = 0; k < nsrc; ++k)
    for (size_t i = 0; i < n; ++i)
      if (sbits < 64 && (p[k * n + i] >> sbits) != 0)
        throw py::value_error("registers[" + std::to_string(k) + "]: element " + std::to_string(i) + " is not a " +
                              std::to_string(sbits) + "-bit value");
  const auto* rb = rbits ? static_cast<const uint32_t*>(rbits->data()) : nullptr;
  std::vector<uint64_t> d(n);
  {
    py::gil_scoped_release nogil;
    std::vector<uint64_t> src(nsrc);
    for (size_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < nsrc; ++k) src[k] = p[k * n + i];
      d[i] = ptx_cvt_eval(*c, src, rb ? rb[i] : 0, map);
    }
  }
  return narrow(d, dbits / 8 > 0 ? dbits / 8 : 1, {static_cast<py::ssize_t>(n)});
}

}  // namespace

void init_convert(py::module_& m) {
  m.def("convert_codes", &convert_codes, py::arg("codes"), py::arg("src"), py::arg("dst"), py::arg("round"),
        py::arg("satfinite"), py::arg("relu"), py::arg("ftz"), py::arg("convention"), py::arg("rbits"),
        py::arg("out") = py::none(), py::arg("threads") = 0);
  m.def("convert_codes_flags", &convert_codes_flags, py::arg("codes"), py::arg("src"), py::arg("dst"),
        py::arg("round"), py::arg("satfinite"), py::arg("relu"), py::arg("ftz"), py::arg("convention"),
        py::arg("rbits"));
  m.attr("FLAG_INEXACT") = static_cast<int>(kInexact);
  m.attr("FLAG_OVERFLOW") = static_cast<int>(kOverflow);
  m.attr("FLAG_UNDERFLOW") = static_cast<int>(kUnderflow);
  m.attr("FLAG_INVALID") = static_cast<int>(kInvalid);
  m.attr("FLAG_UNDEFINED") = static_cast<int>(kUndefined);
  m.def("container_bytes", [](const std::string& f) { return container_bytes(format_of(f, "fmt")); });
  m.def("conventions", [] {
    py::list l;
    for (const Convention& c : conventions()) {
      py::dict d;
      d["name"] = std::string(c.name);
      d["summary"] = std::string(c.summary);
      d["source"] = std::string(c.source);
      l.append(d);
    }
    return l;
  });
  m.def("cvt_eval", &cvt_eval, py::arg("ptx"), py::arg("registers"), py::arg("rbits"), py::arg("rs_map"));
  m.def("cvt_info", [](const std::string& spelling) {
    const Result<PtxCvt> parsed = parse_ptx_cvt(spelling);
    if (!parsed.ok()) throw py::value_error("ptx: " + parsed.error);
    const PtxCvt* c = &parsed.value;
    py::dict d;
    d["spelling"] = c->spelling;
    d["dst"] = std::string(info(c->dst).name);
    d["dst_count"] = c->dst_count;
    d["src"] = std::string(info(c->src).name);
    d["src_count"] = c->src_count;
    d["src_packed"] = c->src_packed;
    d["has_rbits"] = c->has_rbits;
    d["dst_bits"] = ptx_cvt_dst_bits(*c);
    d["src_bits"] = ptx_cvt_src_bits(*c);
    d["registers"] = c->src_packed ? 1 : c->src_count;
    d["arch"] = std::string(c->arch);
    return d;
  });
  m.def("cvt_catalog", [] { return ptx_cvt_catalog(); });
}

}  // namespace tcemu::py_bind
