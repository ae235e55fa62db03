// Quantization recipes (tcemu.quantize / dequantize) and the loss scalers (tcemu.GradScaler,
// tcemu.MegatronScaler). A recipe is a preset name plus options; the options are read by the
// golden library's recipe reader (quant_case.hpp), so they have the names and checks of the
// "recipe" object of a golden file (docs/golden.md), and an error names the option.
#include <pybind11/stl.h>

#include "tcemu/catalog.hpp"

#include <bit>
#include <span>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "recipe_options.hpp"
#include "tcemu/loss_scale.hpp"
#include "tcemu/philox.hpp"
#include "tcemu/quant_recipe.hpp"
#include "tcemu/gemm_kblock.hpp"
#include "tcemu/quant_gemm_scales.hpp"
#include "tcemu/quant_scaling.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::py_bind {
namespace {

using quant::Quantized;
using quant::Recipe;

struct PyQuantized {
  Recipe recipe;
  Quantized q;
};

nlohmann::json to_json_value(const py::handle& v, const std::string& key) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  throw py::type_error(key + ": expected a str, bool or int, got " + std::string(py::str(py::type::handle_of(v).attr("__name__"))));
}

}  // namespace

Recipe make_recipe(const std::string& name, const py::dict& options) {
  if (!quant::find_recipe(name)) {
    std::string list;
    for (const auto& p : quant::recipe_presets()) list += (list.empty() ? "" : ", ") + std::string(p.name);
    throw py::value_error("recipe: unknown recipe '" + name + "' (one of " + list + ")");
  }
  const Recipe base = *quant::find_recipe(name);
  const char* sub = base.kind == quant::RecipeKind::mx ? "mx" : base.kind == quant::RecipeKind::nvfp4 ? "nvfp4" : "fp8";
  nlohmann::json j = {{"name", name}};
  nlohmann::json o = nlohmann::json::object();
  for (auto item : options) {
    const std::string key = py::str(item.first);
    o[key] = to_json_value(item.second, key);
  }
  if (!o.empty()) j[sub] = o;
  // Errors read "recipe.<kind>.<option>: ...".
  Result<Recipe> r = golden::try_parse_recipe_json(j, "recipe");
  if (!r.ok()) throw py::value_error(r.error);
  return std::move(r.value);
}

namespace {

PyQuantized quantize(const py::array_t<float>& x, size_t rows, size_t cols, const std::string& recipe,
                     const py::dict& options, const std::optional<py::array_t<uint32_t>>& rbits, uint64_t seed,
                     uint64_t offset, bool have_seed, int threads) {
  const Exec exec = exec_of(threads);
  PyQuantized out;
  out.recipe = make_recipe(recipe, options);
  if (const auto shapes = golden::try_quant_shapes(out.recipe, rows, cols, "recipe"); !shapes.ok())
    throw py::value_error(shapes.error);
  const size_t n = rows * cols;
  const size_t words = quant::random_words_needed(out.recipe, n);
  std::vector<uint32_t> rb;
  if (words) {
    if (rbits) {
      if (static_cast<size_t>(rbits->size()) != words)
        throw py::value_error("rbits: recipe '" + recipe + "' needs " + std::to_string(words) + " random words for " +
                              std::to_string(n) + " elements, got " + std::to_string(rbits->size()));
      rb.assign(rbits->data(), rbits->data() + words);
    } else if (have_seed) {
      rb = philox_words(seed, offset, words);
    } else {
      throw py::value_error("rbits: stochastic rounding needs random words: pass rbits= (uint32) or seed= (Philox4x32-10)");
    }
  } else if (rbits) {
    throw py::value_error("rbits: recipe '" + recipe + "' rounds to nearest and takes no random bits");
  }
  std::span<const float> xs(x.data(), n);
  Result<Quantized> res;
  {
    py::gil_scoped_release nogil;
    res = quant::quantize(out.recipe, xs, rows, cols, rb, exec);
  }
  if (!res.ok()) throw py::value_error("recipe: " + res.error);
  out.q = std::move(res.value);
  return out;
}

// dequant: "" keeps the recipe's dequantize arithmetic; else MX "ocp" / "te" / "te-2.18" or
// NVFP4 "tcemu" / "te" (tcemu/quant.hpp MxDequant, tcemu/quant_nvfp4.hpp Nvfp4Dequant).
// out: None (a new array) or the caller's float32 C-contiguous writeable rows x cols array,
// written in place (tcemu.dequantize checked it with messages naming the argument; checked
// again here).
py::array_t<float> dequantize(const PyQuantized& q, int threads, const std::string& dequant, const py::object& out_obj) {
  const Exec exec = exec_of(threads);
  Recipe r = q.recipe;
  if (!dequant.empty()) {
    if (r.kind == quant::RecipeKind::mx) {
      const auto d = quant::parse_mx_dequant(dequant);
      if (!d) throw py::value_error("dequant: '" + dequant + "' is not an MX dequantize rule (ocp, te, te-2.18)");
      r.mx_dequant = *d;
    } else if (r.kind == quant::RecipeKind::nvfp4) {
      const auto d = quant::parse_nvfp4_dequant(dequant);
      if (!d) throw py::value_error("dequant: '" + dequant + "' is not an NVFP4 dequantize rule (tcemu, te)");
      r.nvfp4_dequant = *d;
    } else {
      throw py::value_error("dequant: the recipe has one dequantize rule; dequant= applies to MX and NVFP4");
    }
  }
  const auto rows = static_cast<py::ssize_t>(q.q.rows), cols = static_cast<py::ssize_t>(q.q.cols);
  py::array_t<float> out;
  if (out_obj.is_none()) {
    out = py::array_t<float>({rows, cols});
  } else {
    if (!py::isinstance<py::array_t<float, py::array::c_style>>(out_obj))
      throw py::type_error("out: a float32 C-contiguous NumPy array is required");
    out = py::reinterpret_borrow<py::array_t<float>>(out_obj);
    if (!out.writeable()) throw py::value_error("out: the array is read-only");
    if (out.ndim() != 2 || out.shape(0) != rows || out.shape(1) != cols)
      throw py::value_error("out: the shape must be (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
  const std::span<float> dst(out.mutable_data(), static_cast<size_t>(out.size()));
  Result<std::span<float>> res;
  {
    py::gil_scoped_release nogil;
    res = quant::dequantize_into(r, q.q, dst, exec);
  }
  if (!res.ok()) throw py::value_error("dequantize: " + res.error);
  return out;
}

template <class T>
py::array_t<T> matrix(const std::vector<T>& v, size_t r, size_t c) {
  py::array_t<T> out({static_cast<py::ssize_t>(r), static_cast<py::ssize_t>(c)});
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

}  // namespace

void init_quant(py::module_& m) {
  m.def("recipes", [] {
    py::list l;
    for (const auto& p : quant::recipe_presets()) {
      py::dict d;
      d["name"] = std::string(p.name);
      d["summary"] = std::string(p.summary);
      l.append(d);
    }
    return l;
  });
  m.def("recipe_options", [](const std::string& name, const py::dict& options) {
    return golden::recipe_json(make_recipe(name, options)).dump();
  }, py::arg("recipe"), py::arg("options"), "The resolved recipe as JSON text (every option)");

  py::class_<PyQuantized>(m, "Quantized", "A quantized tensor: element codes, block scales, per-tensor scale")
      .def_property_readonly("codes", [](const PyQuantized& q) { return matrix(q.q.codes, q.q.rows, q.q.cols); })
      .def_property_readonly("scales", [](const PyQuantized& q) -> py::object {
        if (q.q.scale_fmt == Fmt::f32) {
          if (q.recipe.kind == quant::RecipeKind::fp8_current) return matrix(q.q.scale_f32, 1, 1);
          return matrix(q.q.scale_f32, q.q.scale_rows, q.q.scale_cols);
        }
        return matrix(q.q.scale_codes, q.q.scale_rows, q.q.scale_cols);
      }, "block scale codes (ue8m0 / e4m3, uint8) or f32 scale_inv (FP8 recipes, float32)")
      .def_property_readonly("global_scale", [](const PyQuantized& q) -> py::object {
        if (q.recipe.kind != quant::RecipeKind::nvfp4) return py::none();
        if (q.recipe.nvfp4.row_scaled) return matrix(q.q.row_global, q.q.rows, 1).attr("reshape")(-1);
        return py::float_(q.q.global_scale);
      }, "NVFP4's per-tensor f32 scale (a float32 array of one per row for row-scaled NVFP4; None for other recipes)")
      .def_property_readonly("amax", [](const PyQuantized& q) -> py::object {
        if (q.recipe.kind == quant::RecipeKind::nvfp4 && q.recipe.nvfp4.row_scaled)
          return matrix(q.q.row_amax, q.q.rows, 1).attr("reshape")(-1);
        return py::float_(q.q.amax);
      }, "the tensor amax behind NVFP4's scale (float32 array of one per row for row-scaled NVFP4)")
      .def_property_readonly("elem", [](const PyQuantized& q) { return std::string(info(q.q.elem).name); })
      .def_property_readonly("scale_format", [](const PyQuantized& q) { return std::string(info(q.q.scale_fmt).name); })
      .def_property_readonly("recipe", [](const PyQuantized& q) { return golden::recipe_json(q.recipe).dump(); })
      .def_property_readonly("shape", [](const PyQuantized& q) { return py::make_tuple(q.q.rows, q.q.cols); });
  m.def("quantize_f32", &quantize, py::arg("x"), py::arg("rows"), py::arg("cols"), py::arg("recipe"), py::arg("options"),
        py::arg("rbits"), py::arg("seed"), py::arg("offset"), py::arg("have_seed"),
        py::arg("threads") = 0);
  m.def("dequantize_q", &dequantize, py::arg("q"), py::arg("threads") = 0, py::arg("dequant") = "",
        py::arg("out") = py::none());
  m.def("philox_words", [](uint64_t seed, uint64_t offset, size_t n) {
    const std::vector<uint32_t> w = philox_words(seed, offset, n);
    py::array_t<uint32_t> out(static_cast<py::ssize_t>(n));
    std::copy(w.begin(), w.end(), out.mutable_data());
    return out;
  }, py::arg("seed"), py::arg("offset"), py::arg("n"), "Philox4x32-10 words as curand gives them (the CLI's --seed/--offset)");

  py::class_<GradScaler>(m, "GradScaler", "PyTorch GradScaler's update rule and unscale arithmetic, bit for bit")
      .def(py::init([](float init_scale, double growth_factor, double backoff_factor, int32_t growth_interval) {
             GradScalerOptions o;
             o.init_scale = init_scale;
             o.growth_factor = growth_factor;
             o.backoff_factor = backoff_factor;
             o.growth_interval = growth_interval;
             if (std::string err = grad_scaler_options_error(o); !err.empty()) throw py::value_error(err);
             return GradScaler(o);
           }),
           py::arg("init_scale") = 65536.0f, py::arg("growth_factor") = 2.0, py::arg("backoff_factor") = 0.5,
           py::arg("growth_interval") = 2000)
      .def_property_readonly("scale", &GradScaler::scale)
      .def_property_readonly("growth_tracker", &GradScaler::growth_tracker)
      .def_property_readonly("inv_scale", &GradScaler::inv_scale)
      .def("update", &GradScaler::update, py::arg("found_inf"))
      .def("_unscale_f32", [](const GradScaler& s, py::array_t<float> g) {
        std::span<float> sp(g.mutable_data(), static_cast<size_t>(g.size()));
        py::gil_scoped_release nogil;
        return s.unscale(sp);
      })
      .def("_unscale_codes", [](const GradScaler& s, py::array_t<uint16_t> g, const std::string& fmt) {
        const Fmt f = format_of(fmt, "fmt");
        if (std::string err = GradScaler::unscale_codes_error(f); !err.empty()) throw py::value_error(err);
        std::span<uint16_t> sp(g.mutable_data(), static_cast<size_t>(g.size()));
        py::gil_scoped_release nogil;
        return s.unscale_codes(sp, f);
      });

  // Per-tensor FP8 with a scale the caller holds (TE's delayed scaling casts with last step's
  // scale): cvt.rn.satfinite(x * scale) of each element, the f32 product (quant_scaling.hpp).
  m.def("fp8_cast_scaled", [](py::array_t<float, py::array::c_style | py::array::forcecast> x, float scale,
                              const std::string& fmt, int threads) {
    const Fmt f = format_of(fmt, "fmt");
    if (std::string err = quant::fp8_format_error(f); !err.empty()) throw py::value_error("fmt: " + err);
    std::vector<uint8_t> codes;
    {
      py::gil_scoped_release nogil;
      codes = quant::fp8_cast(std::span<const float>(x.data(), static_cast<size_t>(x.size())), scale, f, exec_of(threads));
    }
    py::array_t<uint8_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    std::copy(codes.begin(), codes.end(), out.mutable_data());
    return out;
  }, py::arg("x"), py::arg("scale"), py::arg("fmt"), py::arg("threads") = 0);

  // torchao float8 tensorwise scaling (quant_gemm_scales.hpp): (codes, scale, scale_inv, amax).
  m.def("torchao_fp8_quantize", [](py::array_t<float, py::array::c_style | py::array::forcecast> x,
                                   const std::string& fmt, bool pow2, int threads) {
    const Fmt f = format_of(fmt, "fmt");
    if (std::string err = quant::fp8_format_error(f); !err.empty()) throw py::value_error("fmt: " + err);
    std::vector<uint8_t> codes;
    float amax = 0, scale = 0;
    {
      py::gil_scoped_release nogil;
      const std::span<const float> xs(x.data(), static_cast<size_t>(x.size()));
      amax = quant::torchao_amax(xs, exec_of(threads));
      scale = quant::torchao_fp8_scale(amax, f, pow2);
      codes = quant::torchao_fp8_cast(xs, scale, f, exec_of(threads));
    }
    py::array_t<uint8_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    std::copy(codes.begin(), codes.end(), out.mutable_data());
    return py::make_tuple(out, scale, quant::torchao_fp8_scale_inv(scale), amax);
  }, py::arg("x"), py::arg("fmt"), py::arg("pow2") = false, py::arg("threads") = 0);
  // torchao float8 axiswise scaling, each row of a 2-D x (quant_gemm_scales.hpp):
  // (codes rows x k, scale, scale_inv, amax), the last three one float32 per row.
  m.def("torchao_fp8_quantize_rows", [](py::array_t<float, py::array::c_style | py::array::forcecast> x,
                                        const std::string& fmt, bool pow2, int threads) {
    const Fmt f = format_of(fmt, "fmt");
    if (std::string err = quant::fp8_format_error(f); !err.empty()) throw py::value_error("fmt: " + err);
    if (x.ndim() != 2) throw py::value_error("x: a 2-D array (rows x K) is required, got " + std::to_string(x.ndim()) + "-D");
    const size_t rows = static_cast<size_t>(x.shape(0)), k = static_cast<size_t>(x.shape(1));
    quant::TorchaoRows r;
    {
      py::gil_scoped_release nogil;
      r = quant::torchao_fp8_quantize_rows(std::span<const float>(x.data(), rows * k), rows, k, f, pow2,
                                           exec_of(threads));
    }
    py::array_t<uint8_t> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(k)});
    std::copy(r.codes.begin(), r.codes.end(), out.mutable_data());
    auto vec = [](const std::vector<float>& v) {
      py::array_t<float> a(static_cast<py::ssize_t>(v.size()));
      std::copy(v.begin(), v.end(), a.mutable_data());
      return a;
    };
    return py::make_tuple(out, vec(r.scale), vec(r.scale_inv), vec(r.amax));
  }, py::arg("x"), py::arg("fmt"), py::arg("pow2") = false, py::arg("threads") = 0);
  m.def("te_nvfp4_gemm_alpha", &quant::te_nvfp4_gemm_alpha, py::arg("alpha_in"), py::arg("amax_a"), py::arg("amax_b"),
        py::arg("e4m3_max_a") = 448.0f, py::arg("e4m3_max_b") = 448.0f,
        "TransformerEngine's NVFP4 GEMM alpha: alpha_in * amax_a * amax_b * (1 / (36 * max_a * max_b)), f32");

  // The K-block-scaled GEMM of blockwise FP8 (tcemu/gemm_kblock.hpp): sa, sb, bias as f32 codes.
  m.def("gemm_kblock_codes", [](const std::string& arch, const std::string& instr, const std::optional<std::string>& atype,
                                const std::optional<std::string>& btype, const py::array& a, const py::array& b, int M,
                                int N, int K, const py::array& sa, const py::array& sb, int block,
                                const std::optional<py::array>& bias, const std::string& out_type,
                                const std::string& out_round, bool satfinite, int promote_every, int threads,
                                int device) {
    auto opt_fmt = [](const std::optional<std::string>& s, const char* arg) -> std::optional<Fmt> {
      if (!s) return std::nullopt;
      return format_of(*s, arg);
    };
    const InstrLookup l = find_instruction(arch, instr, opt_fmt(atype, "atype"), opt_fmt(btype, "btype"),
                                           std::optional<AccType>(AccType::f32), std::nullopt);
    if (!l.entry) throw py::value_error("instr: " + l.error);
    KBlockScaling s;
    s.block = block;
    auto f32s = [](const py::array& x) {
      const std::vector<uint64_t> w = widen(x);
      return std::vector<uint32_t>(w.begin(), w.end());
    };
    s.sa = f32s(sa);
    s.sb = f32s(sb);
    if (bias) s.bias = f32s(*bias);
    s.out_type = format_of(out_type, "out_type");
    const auto r = parse_round(out_round);
    if (!r) throw py::value_error("out_round: unknown rounding '" + out_round + "' (rn, rna, rz, rd, ru)");
    s.out_round = *r;
    s.satfinite = satfinite;
    MmaOptions o;
    o.promote_every = promote_every;
    const std::vector<uint64_t> A = widen(a), B = widen(b);
    const MmaProblem p = make_problem(*l.entry, M, N, K, A, B, {});
    GemmResult res;
    {
      py::gil_scoped_release nogil;
      res = gemm_kblock(*l.entry, p, s, o, exec_of(threads, device));
    }
    if (!res.error.empty() && device >= 0) throw_device_error(res.error, device);
    if (!res.error.empty()) throw py::value_error(res.error);
    return narrow(res.D, static_cast<int>(container_bytes(s.out_type)),
                  {static_cast<py::ssize_t>(M), static_cast<py::ssize_t>(N)});
  });

  py::class_<quant::DelayedScaling>(m, "DelayedScaling",
                                    "TransformerEngine's delayed scaling of one tensor: amax history, scale update")
      .def(py::init([](int margin, size_t history_len, const std::string& algo, const std::string& fp8_format,
                       const std::string& update, bool backward) {
             quant::DelayedScalingOptions o;
             o.margin = margin;
             o.history_len = history_len;
             if (algo != "max" && algo != "most_recent")
               throw py::value_error("amax_compute_algo: '" + algo + "' (one of max, most_recent)");
             o.algo = algo == "max" ? quant::AmaxAlgo::max : quant::AmaxAlgo::most_recent;
             const auto r = quant::parse_fp8_recipe(fp8_format);
             if (!r) throw py::value_error("fp8_format: '" + fp8_format + "' (one of e4m3, e5m2, hybrid)");
             o.recipe = *r;
             if (update != "fused" && update != "python")
               throw py::value_error("update: '" + update + "' (one of fused, python)");
             o.update = update == "fused" ? quant::DelayedUpdate::fused : quant::DelayedUpdate::python;
             if (std::string err = quant::delayed_scaling_options_error(o); !err.empty()) throw py::value_error(err);
             return quant::DelayedScaling(o, backward);
           }),
           py::arg("margin") = 0, py::arg("history_len") = 1024, py::arg("amax_compute_algo") = "max",
           py::arg("fp8_format") = "hybrid", py::arg("update") = "fused", py::arg("backward") = false)
      .def_property_readonly("format", [](const quant::DelayedScaling& d) { return std::string(info(d.format()).name); })
      .def_property_readonly("scale", &quant::DelayedScaling::scale)
      .def_property_readonly("scale_inv", &quant::DelayedScaling::scale_inv)
      .def_property_readonly("history", [](const quant::DelayedScaling& d) {
        const auto& h = d.history();
        py::array_t<float> out(static_cast<py::ssize_t>(h.size()));
        std::copy(h.begin(), h.end(), out.mutable_data());
        return out;
      })
      .def("quantize", [](quant::DelayedScaling& d, py::array_t<float, py::array::c_style | py::array::forcecast> x) {
        std::vector<uint8_t> codes;
        {
          py::gil_scoped_release nogil;
          codes = d.quantize(std::span<const float>(x.data(), static_cast<size_t>(x.size())));
        }
        py::array_t<uint8_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
        std::copy(codes.begin(), codes.end(), out.mutable_data());
        return out;
      }, py::arg("x"), "casts with the current scale and records the amax in slot 0 of the history")
      .def("record_amax", &quant::DelayedScaling::record_amax, py::arg("amax"))
      .def("update", &quant::DelayedScaling::update, "end of step: new scale from the history, history rolled");

  py::class_<MegatronDynamicScaler>(m, "MegatronScaler", "Megatron-LM's DynamicGradScaler with hysteresis, bit for bit")
      .def(py::init([](float initial_scale, float min_scale, float growth_factor, float backoff_factor,
                       int32_t growth_interval, int32_t hysteresis) {
             MegatronScalerOptions o;
             o.initial_scale = initial_scale;
             o.min_scale = min_scale;
             o.growth_factor = growth_factor;
             o.backoff_factor = backoff_factor;
             o.growth_interval = growth_interval;
             o.hysteresis = hysteresis;
             if (std::string err = megatron_scaler_options_error(o); !err.empty()) throw py::value_error(err);
             return MegatronDynamicScaler(o);
           }),
           py::arg("initial_scale") = 4294967296.0f, py::arg("min_scale") = 1.0f, py::arg("growth_factor") = 2.0f,
           py::arg("backoff_factor") = 0.5f, py::arg("growth_interval") = 1000, py::arg("hysteresis") = 2)
      .def_property_readonly("scale", &MegatronDynamicScaler::scale)
      .def_property_readonly("inv_scale", &MegatronDynamicScaler::inv_scale)
      .def_property_readonly("growth_tracker", &MegatronDynamicScaler::growth_tracker)
      .def_property_readonly("hysteresis_tracker", &MegatronDynamicScaler::hysteresis_tracker)
      .def("update", &MegatronDynamicScaler::update, py::arg("found_inf"));
}

}  // namespace tcemu::py_bind
