// Golden vectors (tcemu.golden): read and write golden files (JSON + .npy), cases with their
// operands and expected arrays as NumPy arrays in logical (row-major) order, generation with
// the options of `tcemu golden gen`, and compare with its report (text, JSON, HTML).
#include <pybind11/stl.h>

#include <fstream>

#include "common.hpp"
#include "recipe_options.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/npy.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::py_bind {
namespace {

using golden::Array;
using golden::Case;
using golden::GoldenFile;

// Bad input reaches Python as ValueError: the error of the golden library's Result forms
// (try_<name>), run without the GIL.
template <class F>
auto checked(F&& f) -> decltype(f().value) {
  auto r = [&] {
    py::gil_scoped_release nogil;
    return f();
  }();
  if (!r.ok()) throw py::value_error(r.error);
  return std::move(r.value);
}

// An array's logical codes: shape [rows] for vectors, [rows, cols] otherwise; unsigned
// containers of the type's size (s32: int32).
py::array logical_array(const Array& a) {
  std::vector<py::ssize_t> shape = a.is_vector ? std::vector<py::ssize_t>{static_cast<py::ssize_t>(a.rows)}
                                               : std::vector<py::ssize_t>{static_cast<py::ssize_t>(a.rows),
                                                                          static_cast<py::ssize_t>(a.cols)};
  py::array out = narrow(a.logical(), a.type.bytes, shape);
  if (a.type.fmt == Fmt::s32) return out.attr("view")("int32").cast<py::array>();
  return out;
}

// The instruction, shape, promotion and negation of an mma or gemm case.
void mma_fields(const golden::MmaSpec& m, py::dict& d) {
  d["arch"] = m.arch;
  d["ptx"] = m.ptx;
  d["atype"] = std::string(info(m.entry->atype).name);
  d["btype"] = std::string(info(m.entry->btype).name);
  d["dtype"] = std::string(to_string(m.entry->dtype));
  d["stype"] = m.entry->scale_type ? py::object(py::str(std::string(info(*m.entry->scale_type).name))) : py::object(py::none());
  d["M"] = m.M;
  d["N"] = m.N;
  d["K"] = m.K;
  d["tile_m"] = m.tile_m;
  d["tile_n"] = m.tile_n;
  d["promote_every"] = m.options.promote_every;
  d["negate_a"] = m.options.negate_a;
  d["negate_b"] = m.options.negate_b;
}

py::dict spec_dict(const Case& c) {
  py::dict d;
  d["op"] = std::string(golden::to_string(c.op));
  switch (c.op) {
    case golden::OpKind::mma:
      mma_fields(c.mma, d);
      d["scale_d"] = c.mma.options.scale_d;
      d["scale_input_d"] = c.mma.options.scale_input_d;
      break;
    case golden::OpKind::gemm: {
      mma_fields(c.mma, d);
      const golden::GemmSpec& g = c.gemm;
      const GemmPlan& p = g.plan;
      d["schedule"] = p.chunks.empty() ? "chain" : "split";
      d["chunks"] = p.chunks;
      d["combine"] = p.chunks.empty() ? py::object(py::none()) : py::object(py::str(std::string(to_string(p.combine))));
      d["preset"] = g.preset ? py::object(py::str(*g.preset)) : py::object(py::none());
      d["split_k"] = g.split_k ? py::object(py::int_(*g.split_k)) : py::object(py::none());
      d["grain"] = g.grain ? py::object(py::int_(*g.grain)) : py::object(py::none());
      const Epilogue& e = p.epilogue;
      d["epilogue"] = std::string(to_string(e.order));
      d["alpha"] = e.alpha;  // f32 bits
      d["beta"] = e.beta;
      d["out_type"] = std::string(info(e.out_type).name);
      d["out_round"] = std::string(to_string(e.out_round));
      d["satfinite"] = e.satfinite;
      break;
    }
    case golden::OpKind::convert: {
      d["src"] = std::string(info(c.conv.from).name);
      d["dst"] = std::string(info(c.conv.to).name);
      d["convention"] = c.conv.convention;
      const OptionRequest& r = c.conv.request;
      d["round"] = r.round ? py::object(py::str(std::string(to_string(*r.round)))) : py::object(py::none());
      d["satfinite"] = r.satfinite.value_or(false);
      d["relu"] = r.relu.value_or(false);
      d["ftz"] = r.ftz.value_or(false);
      break;
    }
    case golden::OpKind::cvt:
      d["ptx"] = c.cvt.ptx;
      d["rs_map"] = c.cvt.rs_map == RsBitMap::ptx_doc ? "ptx_doc" : "flashinfer_hw";
      break;
    case golden::OpKind::quantize:
      d["recipe"] = golden::recipe_json(c.quant.recipe).dump();
      d["rows"] = c.quant.rows;
      d["cols"] = c.quant.cols;
      break;
  }
  return d;
}

golden::Dist dist_arg(const std::string& s, const char* arg) {
  auto d = golden::parse_dist(s);
  if (!d) throw py::value_error(std::string(arg) + ": unknown distribution '" + s + "' (bits, normal, wide, subnormal, specials, edges, mixed)");
  return *d;
}

std::optional<Fmt> opt_fmt(const std::optional<std::string>& s, const char* arg) {
  if (!s) return std::nullopt;
  return format_of(*s, arg);
}

Case gen_mma(const std::string& arch, const std::string& ptx, const std::optional<std::string>& atype,
             const std::optional<std::string>& btype, const std::optional<std::string>& dtype,
             const std::optional<std::string>& stype, int M, int N, int K, int tile_m, int tile_n,
             const std::string& dist_a, const std::string& dist_b, const std::string& dist_c, double scale,
             const std::string& scales, bool a_col, bool b_col, bool c_col, bool d_col, int promote_every,
             bool negate_a, bool negate_b, bool scale_d, int scale_input_d, uint64_t seed, const std::string& name) {
  golden::MmaGenRequest r;
  r.arch = arch;
  r.ptx = ptx;
  r.atype = opt_fmt(atype, "atype");
  r.btype = opt_fmt(btype, "btype");
  r.stype = opt_fmt(stype, "stype");
  if (dtype) {
    r.dtype = parse_acc_type(*dtype);
    if (!r.dtype) throw py::value_error("dtype: '" + *dtype + "' is not f16, f32 or s32");
  }
  r.M = M, r.N = N, r.K = K, r.tile_m = tile_m, r.tile_n = tile_n;
  r.dist_a = dist_arg(dist_a, "dist_a");
  r.dist_b = dist_arg(dist_b, "dist_b");
  r.dist_c = dist_arg(dist_c, "dist_c");
  r.scale = scale;
  auto sd = golden::parse_scale_dist(scales);
  if (!sd) throw py::value_error("scales: unknown scale pattern '" + scales + "'");
  r.scales = *sd;
  r.a_col = a_col, r.b_col = b_col, r.c_col = c_col, r.d_col = d_col;
  r.options.promote_every = promote_every;
  r.options.negate_a = negate_a;
  r.options.negate_b = negate_b;
  r.options.scale_d = scale_d;
  r.options.scale_input_d = scale_input_d;
  r.seed = seed;
  r.name = name;
  return checked([&] { return golden::try_generate_mma(r); });
}

Case gen_convert(const std::string& src, const std::string& dst, const std::string& convention,
                 const std::optional<std::string>& round, bool satfinite, bool relu, bool ftz, size_t count,
                 const std::string& dist, double scale, uint64_t seed, const std::string& name) {
  golden::ConvertGenRequest r;
  r.from = format_of(src, "src");
  r.to = format_of(dst, "dst");
  r.convention = convention;
  if (round) {
    r.request.round = parse_round(*round);
    if (!r.request.round) throw py::value_error("round: unknown rounding mode '" + *round + "'");
  }
  if (satfinite) r.request.satfinite = true;
  if (relu) r.request.relu = true;
  if (ftz) r.request.ftz = true;
  r.count = count;
  r.dist = dist_arg(dist, "dist");
  r.scale = scale;
  r.seed = seed;
  r.name = name;
  return checked([&] { return golden::try_generate_convert(r); });
}

Case gen_cvt(const std::string& ptx, const std::string& rs_map, size_t count, const std::string& dist, double scale,
             uint64_t seed, const std::string& name) {
  golden::CvtGenRequest r;
  r.ptx = ptx;
  if (rs_map == "ptx_doc") r.rs_map = RsBitMap::ptx_doc;
  else if (rs_map == "flashinfer_hw") r.rs_map = RsBitMap::flashinfer_hw;
  else throw py::value_error("rs_map: unknown mapping '" + rs_map + "' (ptx_doc, flashinfer_hw)");
  r.count = count;
  r.dist = dist_arg(dist, "dist");
  r.scale = scale;
  r.seed = seed;
  r.name = name;
  return checked([&] { return golden::try_generate_cvt(r); });
}

// The actual output as an Array in the layout of the case's expected array.
Array actual_array(const Case& c, const py::array& actual) {
  const Array& e = c.expected;
  const size_t want = e.rows * e.cols;
  if (count(actual) != want)
    throw py::value_error("actual: " + std::to_string(count(actual)) + " elements; case '" + c.name + "' expects " +
                          std::to_string(e.rows) + " x " + std::to_string(e.cols));
  if (item_bytes(actual) != e.type.bytes)
    throw py::type_error("actual: elements of " + std::to_string(item_bytes(actual)) + " bytes; " + e.type.name +
                         " codes travel in " + std::to_string(e.type.bytes));
  const std::vector<uint64_t> codes = widen(actual);
  for (size_t i = 0; i < codes.size(); ++i)
    if (!golden::code_in_range(e.type, codes[i]))
      throw py::value_error("actual: element " + std::to_string(i) + " is not a " + e.type.name + " code");
  return golden::make_array(e.type, e.rows, e.cols, codes, e.col_major, e.is_vector);
}

golden::CompareReport compare_case(const Case& c, const py::array& actual, bool nans_equal, size_t max_listed,
                                   bool analyse_models, size_t model_sample) {
  const Array a = actual_array(c, actual);
  golden::CompareOptions o;
  o.nans_equal = nans_equal;
  o.max_listed = max_listed;
  o.analyse_models = analyse_models;
  o.model_sample = model_sample;
  return checked([&] { return golden::try_compare(c, a, o); });
}

}  // namespace

void init_golden(py::module_& m) {
  py::class_<Case>(m, "Case", "One golden case: an operation, its operands and the expected result")
      .def_readonly("name", &Case::name)
      .def_property_readonly("op", [](const Case& c) { return std::string(golden::to_string(c.op)); })
      .def_readonly("expected_name", &Case::expected_name)
      .def_readonly("note", &Case::note)
      .def_property_readonly("spec", &spec_dict)
      .def_property_readonly("expected_type", [](const Case& c) { return c.expected.type.name; })
      .def_property_readonly("expected_col_major", [](const Case& c) { return c.expected.col_major; })
      .def_property_readonly("operand_types", [](const Case& c) {
        py::dict d;
        for (const auto& [k, a] : c.operands) d[py::str(k)] = a.type.name;
        return d;
      })
      .def_property_readonly("operands", [](const Case& c) {
        py::dict d;
        for (const auto& [k, a] : c.operands) d[py::str(k)] = logical_array(a);
        return d;
      }, "operand arrays in logical (row-major) order, as codes")
      .def_property_readonly("expected", [](const Case& c) { return logical_array(c.expected); })
      .def_property_readonly("extra_expected", [](const Case& c) {
        py::dict d;
        for (const auto& [k, a] : c.extra_expected) d[py::str(k)] = logical_array(a);
        return d;
      })
      .def_property_readonly("provenance_json", [](const Case& c) { return c.provenance.fields.dump(); })
      .def("evaluate", [](const Case& c) {
        Array a = checked([&] { return golden::try_evaluate_as_expected(c); });
        return logical_array(a);
      }, "the emulator's result for the case, in the layout of `expected`")
      .def("__repr__", [](const Case& c) { return "<tcemu.golden.Case " + c.name + " (" + std::string(golden::to_string(c.op)) + ")>"; });

  py::class_<GoldenFile>(m, "GoldenFile", "A golden file: a description and its cases")
      .def(py::init([](std::vector<Case> cases, std::string description) {
             GoldenFile f;
             f.cases = std::move(cases);
             f.description = std::move(description);
             return f;
           }),
           py::arg("cases"), py::arg("description") = "")
      .def_readonly("version", &GoldenFile::version)
      .def_readwrite("description", &GoldenFile::description)
      .def_readonly("cases", &GoldenFile::cases)
      .def("to_json", [](const GoldenFile& f) { return golden::to_json(f).dump(1); });

  m.def("read_golden", [](const std::string& path) {
    return checked([&] { return golden::try_read_golden(path); });
  }, py::arg("path"));
  m.def("write_golden", [](const std::string& path, GoldenFile f, size_t npy_threshold) {
    std::string error;
    {
      py::gil_scoped_release nogil;
      error = golden::try_write_golden(path, f, npy_threshold);
    }
    if (!error.empty()) throw py::value_error(error);
  }, py::arg("path"), py::arg("file"), py::arg("npy_threshold") = 4096);
  m.def("gen_mma", &gen_mma);
  m.def("gen_convert", &gen_convert);
  m.def("gen_cvt", &gen_cvt);
  m.def("gen_quantize", [](const std::string& recipe, const py::dict& options, size_t rows, size_t cols,
                           const std::string& dist, double scale, uint64_t seed, uint64_t philox_offset,
                           const std::string& name) {
    golden::QuantizeGenRequest r;
    // The recipe's options are read as tcemu.quantize reads them.
    r.recipe = make_recipe(recipe, options);
    r.rows = rows, r.cols = cols;
    r.dist = dist_arg(dist, "dist");
    r.scale = scale;
    r.seed = seed;
    r.philox_offset = philox_offset;
    r.name = name;
    return checked([&] { return golden::try_generate_quantize(r); });
  });

  py::class_<golden::Mismatch>(m, "Mismatch")
      .def_readonly("row", &golden::Mismatch::row)
      .def_readonly("col", &golden::Mismatch::col)
      .def_readonly("expected", &golden::Mismatch::expected)
      .def_readonly("actual", &golden::Mismatch::actual)
      .def_readonly("ulps", &golden::Mismatch::ulps)
      .def("__repr__", [](const golden::Mismatch& x) {
        return "Mismatch(row=" + std::to_string(x.row) + ", col=" + std::to_string(x.col) + ", ulps=" +
               (x.ulps ? std::to_string(*x.ulps) : std::string("None")) + ")";
      });
  py::class_<golden::ModelFit>(m, "ModelFit")
      .def_readonly("name", &golden::ModelFit::name)
      .def_readonly("description", &golden::ModelFit::description)
      .def_readonly("matched", &golden::ModelFit::matched)
      .def_readonly("sampled", &golden::ModelFit::sampled)
      .def_readonly("is_case_model", &golden::ModelFit::is_case_model);
  py::class_<golden::CompareReport>(m, "Report", "The result of tcemu.compare: where and why the output differs")
      .def_property_readonly("identical", &golden::CompareReport::identical)
      .def_readonly("case_name", &golden::CompareReport::case_name)
      .def_readonly("operation", &golden::CompareReport::operation)
      .def_readonly("rows", &golden::CompareReport::rows)
      .def_readonly("cols", &golden::CompareReport::cols)
      .def_readonly("total", &golden::CompareReport::total)
      .def_readonly("mismatch_count", &golden::CompareReport::mismatches)
      .def_readonly("mismatches", &golden::CompareReport::first, "the first mismatches (max_listed of them)")
      .def_property_readonly("histogram", [](const golden::CompareReport& r) {
        py::list l;
        for (const auto& b : r.histogram) l.append(py::make_tuple(b.label, b.count));
        return l;
      })
      .def_readonly("findings", &golden::CompareReport::findings)
      .def_readonly("models", &golden::CompareReport::models)
      .def_readonly("verdict", &golden::CompareReport::verdict)
      .def_property_readonly("diagnosis", [](const golden::CompareReport& r) { return r.verdict; })
      .def("text", [](const golden::CompareReport& r) { return golden::text_report(r); })
      .def("to_json", [](const golden::CompareReport& r) { return golden::json_report(r).dump(1); })
      .def("html", [](const golden::CompareReport& r) { return golden::html_report(r); })
      .def("to_html", [](const golden::CompareReport& r, const std::string& path) {
        std::ofstream out(path);
        if (!out) throw py::value_error("path: cannot write '" + path + "'");
        out << golden::html_report(r);
        if (!out) throw py::value_error("path: write to '" + path + "' failed");
      }, py::arg("path"))
      .def("__str__", [](const golden::CompareReport& r) { return golden::text_report(r); })
      .def("__bool__", &golden::CompareReport::identical);
  m.def("compare_case", &compare_case, py::arg("case"), py::arg("actual"), py::arg("nans_equal"), py::arg("max_listed"),
        py::arg("analyse_models"), py::arg("model_sample"));
}

}  // namespace tcemu::py_bind
