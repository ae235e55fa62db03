// Formats as data (tcemu.formats), code validity, exact decimal values, ulp distances (the
// ones compare reports use) and the special codes each format has.
#include <pybind11/stl.h>

#include "common.hpp"
#include "tcemu/convert.hpp"
#include "tcemu_golden/compare.hpp"

namespace tcemu::py_bind {
namespace {

std::string_view specials_name(Specials s) {
  switch (s) {
    case Specials::ieee: return "ieee";
    case Specials::nan_all_ones: return "nan_all_ones";
    case Specials::nan_max_code: return "nan_max_code";
    case Specials::none: return "none";
  }
  return "?";
}

py::object opt_code(std::optional<uint64_t> c) { return c ? py::object(py::int_(*c)) : py::object(py::none()); }

py::dict format_dict(const FormatInfo& fi) {
  const Fmt f = fi.id;
  py::dict d;
  d["name"] = std::string(fi.name);
  d["width"] = fi.width;
  d["container_bytes"] = container_bytes(f);
  d["is_int"] = fi.is_int;
  d["is_signed"] = fi.is_signed;
  d["exp_bits"] = fi.exp_bits;
  d["man_bits"] = fi.man_bits;
  d["bias"] = fi.bias;
  d["man_shift"] = fi.man_shift;
  d["specials"] = std::string(specials_name(fi.specials));
  d["has_inf"] = fi.has_inf();
  d["has_nan"] = fi.has_nan();
  d["has_zero"] = fi.has_zero;
  d["has_subnormals"] = fi.has_subnormals;
  d["emin"] = fi.is_int ? 0 : fi.emin();
  d["emax"] = fi.is_int ? 0 : fi.emax();
  d["code_mask"] = py::int_(fi.code_mask());
  d["max_finite"] = py::int_(max_finite_code(f));
  d["max_finite_neg"] = py::int_(max_finite_code(f, true));
  d["min_normal"] = py::int_(min_normal_code(f));
  d["min_subnormal"] = opt_code(min_subnormal_code(f));
  d["zero"] = opt_code(zero_code(f));
  d["neg_zero"] = opt_code(fi.is_signed && !fi.is_int ? zero_code(f, true) : std::nullopt);
  d["inf"] = opt_code(inf_code(f));
  d["neg_inf"] = opt_code(inf_code(f, true));
  d["nan"] = opt_code(canonical_nan(f));
  d["max_value"] = exact_decimal(f, max_finite_code(f));
  return d;
}

template <class T>
py::ssize_t first_invalid_in(Fmt f, const T* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!is_valid_code(f, p[i])) return static_cast<py::ssize_t>(i);
  return -1;
}

// Index of the first code that is not a valid code of `f` (wider than it, tf32 low bits), or -1.
py::ssize_t first_invalid(const std::string& fmt, const py::array& codes) {
  const Fmt f = format_of(fmt, "fmt");
  const void* p = codes.data();
  const size_t n = count(codes);
  const auto size = item_bytes(codes);
  py::gil_scoped_release nogil;
  switch (size) {
    case 1: return first_invalid_in(f, static_cast<const uint8_t*>(p), n);
    case 2: return first_invalid_in(f, static_cast<const uint16_t*>(p), n);
    case 4: return first_invalid_in(f, static_cast<const uint32_t*>(p), n);
    default: return first_invalid_in(f, static_cast<const uint64_t*>(p), n);
  }
}

// ulp distance of each pair (golden::ulp_distance); -1 where not comparable (NaN, Inf).
py::array_t<int64_t> ulp_distances(const std::string& type, const py::array& a, const py::array& b) {
  auto t = golden::parse_elem_type(type);
  if (!t) throw py::value_error("fmt: unknown element type '" + type + "'");
  const std::vector<uint64_t> x = widen(a), y = widen(b);
  if (x.size() != y.size()) throw py::value_error("ulp_distance: arrays of different sizes");
  py::array_t<int64_t> out(static_cast<py::ssize_t>(x.size()));
  int64_t* p = out.mutable_data();
  {
    py::gil_scoped_release nogil;
    for (size_t i = 0; i < x.size(); ++i) {
      auto u = golden::ulp_distance(*t, x[i], y[i]);
      p[i] = u ? static_cast<int64_t>(*u) : -1;
    }
  }
  return out;
}

}  // namespace

void init_formats(py::module_& m) {
  m.def("format_table", [] {
    py::list l;
    for (const FormatInfo& fi : kFormats) l.append(format_dict(fi));
    return l;
  }, "Every format's properties, in the order of tcemu::Fmt");
  m.def("canonical_format_name", [](const std::string& name) -> py::object {
    auto f = parse_format(name);
    if (!f) return py::none();
    return py::str(std::string(info(*f).name));
  }, "The canonical name of a format name or alias, or None");
  m.def("first_invalid", &first_invalid, py::arg("fmt"), py::arg("codes"));
  m.def("exact_decimal", [](const std::string& fmt, uint64_t code) {
    return exact_decimal(format_of(fmt, "fmt"), code);
  }, py::arg("fmt"), py::arg("code"));
  m.def("short_value", [](const std::string& type, uint64_t code) {
    auto t = golden::parse_elem_type(type);
    if (!t) throw py::value_error("fmt: unknown element type '" + type + "'");
    return golden::short_value(*t, code);
  }, py::arg("type"), py::arg("code"));
  m.def("ulp_distances", &ulp_distances, py::arg("type"), py::arg("a"), py::arg("b"));
  m.def("classify", [](const std::string& fmt, uint64_t code) {
    switch (classify(format_of(fmt, "fmt"), code)) {
      case Class::zero: return "zero";
      case Class::subnormal: return "subnormal";
      case Class::normal: return "normal";
      case Class::inf: return "inf";
      case Class::nan: return "nan";
    }
    return "?";
  }, py::arg("fmt"), py::arg("code"));
}

}  // namespace tcemu::py_bind
