// Named recipes (see quant_recipe.hpp, docs/quantization.md).
#include "tcemu/quant_recipe.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "quant_fast.hpp"

namespace tcemu::quant {

namespace {
const std::array<RecipePreset, 18> kPresets = {{
    {"mxfp8", "MXFP8 as TransformerEngine: e4m3, 1x32, cvt.rp.satfinite.ue8m0 scale (rceil-sat), x * exp2f_rcp, cvt.rn.satfinite elements"},
    {"mxfp8-e5m2", "as mxfp8 with e5m2 elements (TE gradients)"},
    {"mxfp8-torchao", "torchao MXFP8: e4m3, 1x32, RCEIL without saturation (Inf/NaN blocks -> scale 0xff)"},
    {"mx", "torchao to_mx: e4m3, 1x32, FLOOR scale, x * 2^(127-e), elements clamped; set --elem/--scale/--block/--axis"},
    {"mxfp6-e3m2", "OCP MX FLOOR with e3m2 elements"},
    {"mxfp6-e2m3", "OCP MX FLOOR with e2m3 elements"},
    {"mxfp4", "OCP MX FLOOR with e2m1 elements (torchao MXFP4)"},
    {"mxint8", "OCP MXINT8: s8 elements with implicit 2^-6, FLOOR"},
    {"nvfp4", "NVFP4 as TransformerEngine: 1x16 e4m3 block scales under S_enc = 2688/amax"},
    {"nvfp4-2d", "NVFP4 as TransformerEngine for weights: 16x16 blocks"},
    {"nvfp4-4over6", "NVFP4 as TE's 4over6 (#2972): each 1x16 block keeps the scale mapping its amax to 6 or to 4 with the smaller MAE, S_enc from E4M3 max 256 (16x16: nvfp4-2d --four-over-six mae --e4m3-max 256)"},
    {"nvfp4-row-scaled", "NVFP4 as TE's row-scaled activations (#2931): one amax and S_enc per row, 1x16 blocks"},
    {"nvfp4-torchao", "NVFP4 as torchao: per-tensor amax/2688, block scales clamped to [2^-6, 448]"},
    {"nvfp4-e5m3-autoround", "NVFP4 with UE5M3 block scales as intel/auto-round v0.16.1 nvfp4_v2 (scheme NVFP4_E5M3): 1x16, no tensor scale (--block 32: group_size 32)"},
    {"nvfp4-e5m3-autoround-gs", "as nvfp4-e5m3-autoround under auto-round's global scale 688128/amax (nvfp4_v2_with_global_scale)"},
    {"fp8-current", "per-tensor FP8 current scaling (TE): scale = 448/amax, e4m3 (--fp8 e5m2, --pow2)"},
    {"fp8-block1x128", "blockwise FP8 (TE/DeepSeek): 1x128 blocks, power-of-two scales, e4m3"},
    {"fp8-block128x128", "blockwise FP8 (TE/DeepSeek): 128x128 blocks, power-of-two scales, e4m3"},
}};
}  // namespace

std::span<const RecipePreset> recipe_presets() { return kPresets; }

std::optional<Recipe> find_recipe(std::string_view name) {
  Recipe r;
  r.name = std::string(name);
  auto mx = [&](Fmt e, MxScaleMode m) {
    r.kind = RecipeKind::mx;
    r.mx.elem = e;
    r.mx.scale = m;
  };
  if (name == "mxfp8") mx(Fmt::e4m3, MxScaleMode::rceil_sat);
  else if (name == "mxfp8-e5m2") mx(Fmt::e5m2, MxScaleMode::rceil_sat);
  else if (name == "mxfp8-torchao") mx(Fmt::e4m3, MxScaleMode::rceil);
  else if (name == "mx") mx(Fmt::e4m3, MxScaleMode::floor);
  else if (name == "mxfp6-e3m2") mx(Fmt::e3m2, MxScaleMode::floor);
  else if (name == "mxfp6-e2m3") mx(Fmt::e2m3, MxScaleMode::floor);
  else if (name == "mxfp4") mx(Fmt::e2m1, MxScaleMode::floor);
  else if (name == "mxint8") mx(Fmt::s8, MxScaleMode::floor);
  else if (name == "nvfp4-e5m3-autoround" || name == "nvfp4-e5m3-autoround-gs") {
    r.kind = RecipeKind::nvfp4;
    r.nvfp4.order = name == "nvfp4-e5m3-autoround" ? Nvfp4Order::autoround_e5m3 : Nvfp4Order::autoround_e5m3_gs;
  } else if (name == "nvfp4" || name == "nvfp4-2d" || name == "nvfp4-torchao" || name == "nvfp4-4over6" ||
           name == "nvfp4-row-scaled") {
    r.kind = RecipeKind::nvfp4;
    r.nvfp4.tile2d = name == "nvfp4-2d";
    if (name == "nvfp4-4over6") {  // TE's recipe defaults: err_mode MAE, e4m3_use_256 'all'
      r.nvfp4.four_over_six = FourOverSix::min_mae;
      r.nvfp4.e4m3_max = 256;
    }
    r.nvfp4.row_scaled = name == "nvfp4-row-scaled";
    r.nvfp4.order = name == "nvfp4-torchao" ? Nvfp4Order::torchao : Nvfp4Order::te;
  } else if (name == "fp8-current") {
    r.kind = RecipeKind::fp8_current;
  } else if (name == "fp8-block1x128" || name == "fp8-block128x128") {
    r.kind = RecipeKind::fp8_block;
    r.pow2 = true;
    r.tile128 = name == "fp8-block128x128";
  } else {
    return std::nullopt;
  }
  return r;
}

Upstream recipe_upstream(const Recipe& r) {
  const std::string ao = "pytorch/ao", te = "NVIDIA/TransformerEngine";
  const std::string ao_c(kTorchaoCommit), te_c(kTeCommit);
  switch (r.kind) {
    case RecipeKind::mx: {
      const MxOptions& o = r.mx;
      if (o.scale == MxScaleMode::rceil_sat)
        return {te, o.variant == MxVariant::te_2_12 ? "v2.12" : te_c, "transformer_engine/common/cast/mxfp8/quantize_mxfp8.cuh"};
      if (o.elem == Fmt::s8) return {"OCP", "mx-v1.0", "OCP Microscaling Formats (MX) v1.0, section 6.3 (torchao to_mx order)"};
      const std::string mx_file = "torchao/prototype/mx_formats/mx_tensor.py";
      if (o.scale == MxScaleMode::rceil_legacy) return {ao, "v0.18.0", mx_file};
      if (o.variant == MxVariant::torchao_0_18) return {ao, "v0.18.0", mx_file};
      if (o.floor_path == TorchaoFloorPath::cuda) return {ao, ao_c, "torchao/csrc/cuda/mx_kernels/mxfp8_quantize.cuh"};
      return {ao, ao_c, mx_file};
    }
    case RecipeKind::nvfp4: {
      const std::string nv_file = "torchao/prototype/mx_formats/nvfp4_tensor.py";
      switch (r.nvfp4.order) {
        case Nvfp4Order::te:
          if (r.nvfp4.four_over_six != FourOverSix::off) return {te, te_c, "transformer_engine/common/cast/nvfp4/quantize_4over6_nvfp4.cuh"};
          if (r.nvfp4.te_test_reference) return {te, te_c, "tests/cpp/operator/test_cast_nvfp4_transpose.cu"};
          return {te, te_c,
                  nvfp4_te_fast_math_applies([&] { Nvfp4Options o = r.nvfp4; o.input = r.input; return o; }())
                      ? "transformer_engine/common/cast/nvfp4/specialized/quantize_transpose_nvfp4_tuned_1D.cuh"
                      : "transformer_engine/common/cast/nvfp4/quantize_transpose_nvfp4.cuh"};
        case Nvfp4Order::te_div6: return {te, "3f5b47549567d13db76470073c8f0467c23d4fca", "transformer_engine/common/util/nvfp4_transpose.cuh"};
        case Nvfp4Order::torchao:
        case Nvfp4Order::torchao_single: return {ao, ao_c, nv_file};
        case Nvfp4Order::torchao_0_16: return {ao, "v0.16.0", nv_file};
        case Nvfp4Order::torchao_single_0_17: return {ao, "v0.17.0", nv_file};
        case Nvfp4Order::autoround_e5m3:
        case Nvfp4Order::autoround_e5m3_gs: return {"intel/auto-round", "v0.16.1", "auto_round/data_type/nvfp.py"};
      }
      break;
    }
    case RecipeKind::fp8_current: return {te, te_c, "transformer_engine/common/recipe/current_scaling.cu"};
    case RecipeKind::fp8_block:
      return {te, te_c,
              r.tile128 ? "transformer_engine/common/transpose/quantize_transpose_square_blockwise.cu"
                        : "transformer_engine/common/transpose/quantize_transpose_vector_blockwise.cu"};
  }
  return {};
}

size_t random_words_needed(const Recipe& r, size_t n) {
  if (r.kind == RecipeKind::mx && r.mx.round == Round::rs) return n;
  if (r.kind == RecipeKind::nvfp4 && r.nvfp4.round == Round::rs) return n / 4;
  return 0;
}

float element_max(const Recipe& r) {
  switch (r.kind) {
    case RecipeKind::mx: return mx_max_norm(r.mx.elem);
    case RecipeKind::nvfp4: return 6.0f;
    default: return fp8_max(r.fp8);
  }
}

namespace {

// The recipe's call, once quantize_error has found nothing wrong.
Quantized quantize_checked(const Recipe& r, std::span<const float> x, size_t rows, size_t cols,
                           std::span<const uint32_t> rbits, const Exec& exec) {
  Quantized q;
  q.rows = rows;
  q.cols = cols;
  switch (r.kind) {
    case RecipeKind::mx: {
      MxTensor t = mx_quantize(x, rows, cols, r.mx, rbits, exec);
      q.elem = t.elem;
      q.codes = std::move(t.codes);
      q.scale_fmt = Fmt::ue8m0;
      q.scale_rows = t.grid.scale_rows();
      q.scale_cols = t.grid.scale_cols();
      q.scale_codes = std::move(t.scales);
      break;
    }
    case RecipeKind::nvfp4: {
      Nvfp4Options o = r.nvfp4;
      o.input = r.input;
      Nvfp4Tensor t = nvfp4_quantize(x, rows, cols, o, rbits, exec);
      q.elem = Fmt::e2m1;
      q.codes = std::move(t.codes);
      q.scale_fmt = nvfp4_scale_fmt(r.nvfp4.order);
      q.scale_rows = t.grid.scale_rows();
      q.scale_cols = t.grid.scale_cols();
      q.scale_codes = std::move(t.scales);
      q.global_scale = t.global_scale;
      q.amax = t.amax;
      q.row_global = std::move(t.row_scale);
      q.row_amax = std::move(t.row_amax);
      break;
    }
    case RecipeKind::fp8_current: {
      PerTensorFp8 t = fp8_current_scaling(x, r.fp8, r.pow2, 0.0f, exec);
      q.elem = r.fp8;
      q.codes = std::move(t.codes);
      q.scale_fmt = Fmt::f32;
      q.scale_rows = q.scale_cols = 1;
      q.scale_f32 = {t.scale_inv};
      break;
    }
    case RecipeKind::fp8_block: {
      BlockwiseFp8 t = fp8_blockwise(x, rows, cols, r.fp8, r.tile128, r.pow2, 0.0f, r.input, exec);
      q.elem = r.fp8;
      q.codes = std::move(t.codes);
      q.scale_fmt = Fmt::f32;
      q.scale_rows = t.grid.scale_rows();
      q.scale_cols = t.grid.scale_cols();
      q.scale_f32 = std::move(t.scale_inv);
      break;
    }
  }
  return q;
}

// What dequantize_checked would find wrong with q, in the order it looks.
std::string dequantize_error(const Recipe& r, const Quantized& q) {
  auto counts = [&](size_t scales) -> std::string {
    if (q.codes.size() != q.rows * q.cols) return "element codes do not match the shape";
    if (scales != q.scale_rows * q.scale_cols) return "scale count does not match the scale shape";
    return {};
  };
  auto blocks = [&](size_t block, BlockAxis axis, size_t scales) -> std::string {
    if (block == 0) return "block size must be positive";
    if (block > kMaxMxBlock) return "block size " + std::to_string(block) + " is above 2^20 (1048576)";
    if (std::string e = counts(scales); !e.empty()) return e;
    const BlockGrid g = make_grid(q.rows, q.cols, axis, block);
    if (g.scale_rows() != q.scale_rows || g.scale_cols() != q.scale_cols) return "scale shape does not match the recipe's blocks";
    return {};
  };
  switch (r.kind) {
    case RecipeKind::mx: return blocks(r.mx.block, r.mx.axis, q.scale_codes.size());
    case RecipeKind::nvfp4: {
      if (std::string e = nvfp4_block_error(r.nvfp4.order, r.nvfp4.block); !e.empty()) return e;
      if (std::string e = blocks(r.nvfp4.block, r.nvfp4.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, q.scale_codes.size()); !e.empty())
        return e;
      if (r.nvfp4.row_scaled && (q.row_global.size() != q.rows || q.row_amax.size() != q.rows))
        return "row-scaled NVFP4 needs one global scale and one amax per row";
      Nvfp4Tensor t;
      t.order = r.nvfp4.order;
      t.e4m3_max = r.nvfp4.e4m3_max;
      return nvfp4_dequantize_error(t, r.nvfp4_dequant);
    }
    case RecipeKind::fp8_current:
      if (std::string e = counts(q.scale_f32.size()); !e.empty()) return e;
      if (q.scale_f32.size() != 1) return "per-tensor scaling has one scale";
      return {};
    case RecipeKind::fp8_block: {
      if (std::string e = counts(q.scale_f32.size()); !e.empty()) return e;
      const BlockGrid g = make_grid(q.rows, q.cols, r.tile128 ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
      if (g.scale_count() != q.scale_f32.size()) return "scale shape does not match 128-blocks";
      return {};
    }
  }
  return {};
}

// The recipe's call, once dequantize_error has found nothing wrong; into: as quant_fast.hpp's
// dequantizers (the paths without it write a vector, copied there).
std::vector<float> dequantize_checked(const Recipe& r, const Quantized& q, const Exec& exec, float* into) {
  auto put = [into](std::vector<float> v) {
    if (!into) return v;
    std::copy(v.begin(), v.end(), into);
    return std::vector<float>{};
  };
  switch (r.kind) {
    case RecipeKind::mx: {
      MxTensor t;
      t.grid = make_grid(q.rows, q.cols, r.mx.axis, r.mx.block);
      t.elem = r.mx.elem;
      if (detail::fast_quant_enabled() && info(t.elem).width <= 8)  // the codes read in place
        return detail::mx_dequantize_fast(t.grid, t.elem, q.codes, q.scale_codes, r.mx_dequant, exec, into);
      t.codes = q.codes;
      t.scales = q.scale_codes;
      return put(mx_dequantize(t, r.mx_dequant, exec));
    }
    case RecipeKind::nvfp4: {
      Nvfp4Tensor t;
      t.grid = make_grid(q.rows, q.cols, r.nvfp4.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, r.nvfp4.block);
      t.order = r.nvfp4.order;
      t.codes = q.codes;
      t.scales = q.scale_codes;
      t.global_scale = q.global_scale;
      t.amax = q.amax;
      t.e4m3_max = r.nvfp4.e4m3_max;
      if (r.nvfp4.row_scaled) t.row_scale = q.row_global, t.row_amax = q.row_amax;
      // nvfp4_dequantize's checks (dequantize_error made them), the codes read in place.
      return detail::nvfp4_dequantize_view(t, q.codes, q.scale_codes, r.nvfp4_dequant, exec, into);
    }
    case RecipeKind::fp8_current:
      if (detail::fast_quant_enabled() && fp8_format_error(r.fp8).empty())  // fp8_dequantize's fast path
        return detail::fp8_dequantize_fast(q.codes, q.scale_f32[0], r.fp8, exec, into);
      return put(fp8_dequantize(q.codes, q.scale_f32[0], r.fp8, exec));
    case RecipeKind::fp8_block: {
      BlockwiseFp8 t;
      t.grid = make_grid(q.rows, q.cols, r.tile128 ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
      t.fmt = r.fp8;
      if (detail::fast_quant_enabled() && fp8_format_error(t.fmt).empty())  // the codes read in place
        return detail::fp8_blockwise_dequantize_fast(t.grid, t.fmt, q.codes, q.scale_f32, exec, into);
      t.codes = q.codes;
      t.scale_inv = q.scale_f32;
      return put(fp8_blockwise_dequantize(t, exec));
    }
  }
  return {};
}

}  // namespace

std::string quantize_error(const Recipe& r, size_t n, size_t rows, size_t cols, size_t rbits) {
  switch (r.kind) {
    case RecipeKind::mx: return mx_quantize_error(n, rows, cols, r.mx, rbits);
    case RecipeKind::nvfp4: {
      Nvfp4Options o = r.nvfp4;
      o.input = r.input;
      return nvfp4_quantize_error(n, rows, cols, o, rbits);
    }
    case RecipeKind::fp8_current:
      if (n != rows * cols) return "tensor size does not match its shape";
      return fp8_format_error(r.fp8);
    case RecipeKind::fp8_block: return fp8_blockwise_error(n, rows, cols, r.fp8, r.input);
  }
  return {};
}

Result<Quantized> quantize(const Recipe& r, std::span<const float> x, size_t rows, size_t cols,
                           std::span<const uint32_t> rbits) {
  return quantize(r, x, rows, cols, rbits, Exec{});
}

Result<Quantized> quantize(const Recipe& r, std::span<const float> x, size_t rows, size_t cols,
                           std::span<const uint32_t> rbits, const Exec& exec) {
  if (std::string e = quantize_error(r, x.size(), rows, cols, rbits.size()); !e.empty())
    return Result<Quantized>::failure(std::move(e));
  return {quantize_checked(r, x, rows, cols, rbits, exec), {}};
}

Result<std::vector<float>> dequantize(const Recipe& r, const Quantized& q) { return dequantize(r, q, Exec{}); }

Result<std::vector<float>> dequantize(const Recipe& r, const Quantized& q, const Exec& exec) {
  if (std::string e = dequantize_error(r, q); !e.empty()) return Result<std::vector<float>>::failure(std::move(e));
  return {dequantize_checked(r, q, exec, nullptr), {}};
}

Result<std::span<float>> dequantize_into(const Recipe& r, const Quantized& q, std::span<float> out,
                                         const Exec& exec) {
  if (std::string e = dequantize_error(r, q); !e.empty()) return Result<std::span<float>>::failure(std::move(e));
  if (out.size() != q.codes.size())
    return Result<std::span<float>>::failure("the output holds " + std::to_string(out.size()) + " floats; the tensor has " +
                                             std::to_string(q.rows) + " x " + std::to_string(q.cols) + " = " +
                                             std::to_string(q.codes.size()) + " elements");
  dequantize_checked(r, q, exec, out.data());
  return {out, {}};
}

}  // namespace tcemu::quant
