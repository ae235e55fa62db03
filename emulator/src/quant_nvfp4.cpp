// NVFP4 two-level scaling, the 16-point RHT, stochastic rounding (docs/quantization.md).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "quant_fast.hpp"
#include "quant_tiles.hpp"
#include "tcemu/quant_nvfp4.hpp"

namespace tcemu::quant {

std::optional<Nvfp4Order> parse_nvfp4_order(std::string_view s) {
  if (s == "te") return Nvfp4Order::te;
  if (s == "te-div6" || s == "te_div6") return Nvfp4Order::te_div6;
  if (s == "torchao") return Nvfp4Order::torchao;
  if (s == "torchao-single" || s == "torchao_single") return Nvfp4Order::torchao_single;
  if (s == "torchao-0.16") return Nvfp4Order::torchao_0_16;
  if (s == "torchao-single-0.17") return Nvfp4Order::torchao_single_0_17;
  if (s == "autoround-e5m3" || s == "autoround_e5m3") return Nvfp4Order::autoround_e5m3;
  if (s == "autoround-e5m3-gs" || s == "autoround_e5m3_gs") return Nvfp4Order::autoround_e5m3_gs;
  return std::nullopt;
}
std::string_view to_string(Nvfp4Order o) {
  switch (o) {
    case Nvfp4Order::te: return "te";
    case Nvfp4Order::te_div6: return "te-div6";
    case Nvfp4Order::torchao: return "torchao";
    case Nvfp4Order::torchao_single: return "torchao-single";
    case Nvfp4Order::torchao_0_16: return "torchao-0.16";
    case Nvfp4Order::torchao_single_0_17: return "torchao-single-0.17";
    case Nvfp4Order::autoround_e5m3: return "autoround-e5m3";
    case Nvfp4Order::autoround_e5m3_gs: return "autoround-e5m3-gs";
  }
  return "?";
}
bool nvfp4_te_order(Nvfp4Order o) { return o == Nvfp4Order::te || o == Nvfp4Order::te_div6; }
bool nvfp4_autoround_order(Nvfp4Order o) { return o == Nvfp4Order::autoround_e5m3 || o == Nvfp4Order::autoround_e5m3_gs; }
bool nvfp4_has_global(Nvfp4Order o) {
  return o != Nvfp4Order::torchao_single && o != Nvfp4Order::torchao_single_0_17 && o != Nvfp4Order::autoround_e5m3;
}
Fmt nvfp4_scale_fmt(Nvfp4Order o) { return nvfp4_autoround_order(o) ? Fmt::ue5m3 : Fmt::e4m3; }
bool nvfp4_te_fast_math_applies(const Nvfp4Options& o) {
  return o.fast_math && o.input == Fmt::bf16 && !o.tile2d && nvfp4_te_order(o.order);
}

namespace {

constexpr float kFltMax = std::numeric_limits<float>::max();
constexpr float kBf16Max = 0x1.FEp127f;
constexpr float kE4m3MinNormal = 0x1p-6f;  // torch.finfo(float8_e4m3fn).tiny
constexpr float kUe5m3Max = 114688.0f;     // auto-round's FLOAT8_UE5M3_MAX (code 0xFE)

// auto-round's get_reciprocal on an f32 tensor: torch.where(x == 0, 0, 1.0 / x), where 1.0 / x
// is Tensor.__rtruediv__ (x.reciprocal() * 1.0: one f32 division). NaN gives NaN.
float autoround_rcp(float x) { return x == 0.0f ? 0.0f : 1.0f / x; }

// fminf: a NaN operand is dropped.
float fminf_c(float a, float b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return a < b ? a : b;
}

ConvertOptions ptx_sat_rn() {
  ConvertOptions c;
  c.satfinite = true;
  return c;
}

// c10's float -> float8_e4m3fn: RNE, no saturation, NaN keeps its sign.
uint8_t torch_e4m3(float v) {
  ConvertOptions c;
  c.nan_out = NanOut::keep_sign;
  return static_cast<uint8_t>(convert(Fmt::f32, Fmt::e4m3, f32_bits(v), c).code);
}

float torch_clamp(float v, float lo, float hi) {  // torch.clamp: NaN passes through
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

// 384-bit unsigned fixed point with its lowest bit worth 2^-151 (below every f32 / 4).
using Wide = std::array<uint64_t, 6>;
constexpr int kWideLsb = -151;

void wide_add(Wide& a, uint64_t sig, int shift) {
  const int limb = shift / 64, off = shift % 64;
  const uint64_t lo = sig << off;
  const uint64_t hi = off == 0 ? 0 : sig >> (64 - off);
  uint64_t carry = 0;
  for (int i = limb; i < 6; ++i) {
    const uint64_t add = (i == limb ? lo : i == limb + 1 ? hi : 0);
    const uint64_t s1 = a[i] + add;
    const uint64_t c1 = s1 < add ? 1 : 0;
    const uint64_t s2 = s1 + carry;
    const uint64_t c2 = s2 < carry ? 1 : 0;
    a[i] = s2;
    carry = c1 + c2;
    if (i > limb + 1 && carry == 0) break;
  }
}
bool wide_less(const Wide& a, const Wide& b) {
  for (int i = 5; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}
Wide wide_sub(const Wide& a, const Wide& b) {  // a >= b
  Wide r{};
  uint64_t borrow = 0;
  for (int i = 0; i < 6; ++i) {
    const uint64_t d1 = a[i] - b[i];
    const uint64_t b1 = a[i] < b[i] ? 1 : 0;
    const uint64_t d2 = d1 - borrow;
    const uint64_t b2 = d1 < borrow ? 1 : 0;
    r[i] = d2;
    borrow = b1 + b2;
  }
  return r;
}

// Rounds sign * W * 2^-151 once into `to` (RN).
float wide_round(bool sign, const Wide& w, Fmt to) {
  int top = -1;
  for (int i = 5; i >= 0; --i)
    if (w[i]) { top = i * 64 + 63 - std::countl_zero(w[i]); break; }
  ConvertOptions rn;
  uint64_t code;
  if (top < 0) {
    code = *zero_code(to, sign);
  } else {
    const int shift = top >= 63 ? top - 63 : 0;  // keep the top 64 bits
    uint64_t sig = 0;
    bool sticky = false;
    for (int b = 0; b < 64 && shift + b <= top; ++b) {
      const int bit = shift + b;
      if ((w[bit / 64] >> (bit % 64)) & 1) sig |= uint64_t{1} << b;
    }
    for (int bit = 0; bit < shift; ++bit)
      if ((w[bit / 64] >> (bit % 64)) & 1) { sticky = true; break; }
    code = round_value(sign, sig, shift + kWideLsb, sticky, to, rn).code;
  }
  return code_to_f32(to, code);
}

}  // namespace

std::vector<float> rht16(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask, RhtOut out) {
  return rht16(x, rows, cols, sign_mask, out, Exec{});
}

std::string rht16_error(size_t n, size_t rows, size_t cols) {
  if (cols % 16 != 0) return "the 16-point Hadamard transform needs a multiple of 16 columns, got " + std::to_string(cols);
  if (n != rows * cols) return "tensor size does not match its shape";
  return {};
}

std::vector<float> rht16(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask, RhtOut out,
                         const Exec& exec) {
  if (const std::string err = rht16_error(x.size(), rows, cols); !err.empty()) throw std::invalid_argument(err);
  if (detail::fast_quant_enabled()) return detail::rht16_fast(x, rows, cols, sign_mask, out, exec);  // the same bits
  return detail::rht16_scalar(x, rows, cols, sign_mask, out, exec);
}

std::vector<float> detail::rht16_scalar(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask,
                                        RhtOut out, const Exec& exec) {
  (void)rows;
  (void)cols;
  const Fmt to = out == RhtOut::bf16 ? Fmt::bf16 : Fmt::f32;
  std::vector<float> y(x.size());
  // Each group of 16 on its own (cols is a multiple of 16, so groups never straddle rows).
  detail::for_each_range(x.size() / 16, exec, [&](size_t g0, size_t g1) {
    for (size_t grp = g0; grp < g1; ++grp) {
      const float* in = &x[grp * 16];
      for (int j = 0; j < 16; ++j) {
        Wide pos{}, neg{};
        bool nan = false, pinf = false, ninf = false, all_neg_zero = true;
        for (int i = 0; i < 16; ++i) {
          const float v = in[i];
          const bool flip = ((sign_mask >> i) & 1) ^ (std::popcount(static_cast<unsigned>(i & j)) & 1);
          if (std::isnan(v)) { nan = true; continue; }
          const bool neg_term = std::signbit(v) != flip;
          if (std::isinf(v)) { (neg_term ? ninf : pinf) = true; continue; }
          if (!(v == 0.0f && neg_term)) all_neg_zero = false;
          if (v == 0.0f) continue;
          const uint32_t b = f32_bits(v);
          const uint32_t field = (b >> 23) & 0xFF;
          const uint64_t sig = field ? ((b & 0x7FFFFF) | 0x800000) : (b & 0x7FFFFF);
          const int exp = (field ? static_cast<int>(field) - 150 : -149) - 2;  // value / 4
          wide_add(neg_term ? neg : pos, sig, exp - kWideLsb);
        }
        float v;
        if (nan || (pinf && ninf)) v = std::numeric_limits<float>::quiet_NaN();
        else if (pinf) v = std::numeric_limits<float>::infinity();
        else if (ninf) v = -std::numeric_limits<float>::infinity();
        else if (wide_less(pos, neg)) v = wide_round(true, wide_sub(neg, pos), to);
        else {
          const Wide m = wide_sub(pos, neg);
          const bool zero = std::all_of(m.begin(), m.end(), [](uint64_t w) { return w == 0; });
          v = zero ? (all_neg_zero ? -0.0f : 0.0f) : wide_round(false, m, to);
        }
        y[grp * 16 + static_cast<size_t>(j)] = v;
      }
    }
  });
  return y;
}

float nvfp4_te_encode_scale(float amax) {
  float g = 2688.0f / amax;  // fp8_max * fp4_max, folded to a constant
  g = fminf_c(g, kFltMax);
  if (amax == 0.0f || g == 0.0f) return 1.0f;
  return g;
}

uint8_t nvfp4_te_block_scale(float block_amax, float s_enc, Nvfp4Order order) {
  float d;
  if (order == Nvfp4Order::te_div6) d = block_amax / 6.0f * s_enc;
  else d = block_amax * (s_enc * static_cast<float>(1.0 / 6.0));
  return static_cast<uint8_t>(convert(Fmt::f32, Fmt::e4m3, f32_bits(fminf_c(d, kFltMax)), ptx_sat_rn()).code);
}

float nvfp4_te_element_scale(uint8_t sfb, float s_enc, bool fast_math) {
  const float sfb_f = code_to_f32(Fmt::e4m3, sfb);
  if (fast_math) {
    const float r = fminf_c(s_enc / sfb_f, kBf16Max);
    return code_to_f32(Fmt::bf16, convert(Fmt::f32, Fmt::bf16, f32_bits(r), ConvertOptions{}).code);
  }
  const float s_dec = 1.0f / s_enc;
  return fminf_c(1.0f / (sfb_f * s_dec), kFltMax);
}

namespace {
// The TE variant (quant_nvfp4_te_variants.cpp) that options o ask for.
Nvfp4TeVariant te_variant_of(const Nvfp4Options& o) {
  Nvfp4TeVariant v;
  v.four_over_six = o.four_over_six;
  v.row_scaled = o.row_scaled;
  v.e4m3_max = o.e4m3_max;
  v.tile2d = o.tile2d;
  v.err_fast_math = o.err_fast_math;
  v.amax = o.global_amax;
  return v;
}
}  // namespace

std::string nvfp4_quantize_error(size_t n, size_t rows, size_t cols, const Nvfp4Options& o, size_t rbits) {
  if (n != rows * cols) return "tensor size does not match its shape";
  // NaN and Inf are amaxes a tensor can have (the implementations' NaN policies apply); a
  // negative one no tensor has.
  if (o.global_amax && *o.global_amax < 0.0f) return "global_amax is a magnitude: it cannot be negative";
  if (o.round != Round::rn && o.round != Round::rs) return "NVFP4 element rounding is rn or rs";
  if (std::string e = nvfp4_block_error(o.order, o.block); !e.empty()) return e;
  if (nvfp4_autoround_order(o.order)) {  // what auto-round's nvfp4_v2 functions do, and nothing else
    if (o.tile2d) return "auto-round's NVFP4 (UE5M3 scales) has 1xN blocks along rows: no tile2d";
    if (o.round != Round::rn) return "auto-round's NVFP4 (UE5M3 scales) rounds to nearest: no stochastic rounding";
    if (o.rht) return "auto-round's NVFP4 (UE5M3 scales) has no Hadamard transform";
    if (o.fast_math) return "fast_math is TransformerEngine's: it does not apply to auto-round's order";
    if (nvfp4_te_variant(o)) return "4over6 and row-scaled NVFP4 are TransformerEngine's: order te";
  }
  if (o.te_test_reference && (o.order != Nvfp4Order::te || o.tile2d))
    return "TE's test reference (te_test_reference) is modelled for order te with 1x16 blocks";
  if (nvfp4_te_variant(o)) {
    // TE's dispatch (common/cast/dispatch/quantize.cuh, pytorch/csrc/quantizer.cpp) and what is modelled.
    if (o.order != Nvfp4Order::te) return "4over6 and row-scaled NVFP4 are TransformerEngine's: order te";
    if (o.round != Round::rn) return "NVFP4 4over6 / row-scaled quantization does not support stochastic rounding (TE)";
    if (o.rht) return "NVFP4 4over6 / row-scaled quantization does not support RHT (TE)";
    if (o.fast_math) return "4over6 / row-scaled NVFP4 is modelled without fast math (TE ignores it under 4over6)";
    if (o.te_test_reference) return "TE's test reference (te_test_reference) is modelled for the plain te order only";
    if (o.row_scaled && o.global_amax) return "row-scaled NVFP4 takes each row's amax; global_amax does not apply";
    return nvfp4_te_variant_error(n, rows, cols, te_variant_of(o));
  }
  if (o.round == Round::rs) {
    if (!nvfp4_te_order(o.order)) return "stochastic rounding is modelled for TE's order only (cvt.rs)";
    if (cols % 4 != 0) return "stochastic rounding packs 4 elements: columns must be a multiple of 4";
    if (rbits < n / 4) return "stochastic rounding needs one random word per 4 elements";
  }
  if (o.rht) {
    if (std::string e = rht16_error(n, rows, cols); !e.empty()) return e;
  }
  if (o.e4m3_max != 448) return "e4m3_max 256 needs 4over6 (TE: non-4over6 NVFP4 quantization requires E4M3 max 448)";
  if (o.err_fast_math) return "err_fast_math is TE's 4over6 error option: it needs 4over6";
  return {};
}

std::string nvfp4_block_error(Nvfp4Order order, size_t block) {
  if (block == 16 || (block == 32 && nvfp4_autoround_order(order))) return {};
  return "NVFP4 blocks are 16 elements; 32 is auto-round's (orders autoround-e5m3, autoround-e5m3-gs), got " +
         std::to_string(block);
}

bool nvfp4_te_variant(const Nvfp4Options& o) { return o.four_over_six != FourOverSix::off || o.row_scaled; }

namespace {

// torchao's f32 results are the GPU's: a NaN is 0x7FFFFFFF (its casts read the bits).
float gpu_f32(float v) { return std::isnan(v) ? f32_from_bits(0x7FFFFFFF) : v; }

// The scale arithmetic of one nvfp4_quantize call, in the order of the implementation `o`
// names: the per-tensor scale first (from the tensor amax), then each block on its own (its
// scale and the element multiplier or divisor, from the block amax), then each element's
// scaled value before the cast.
struct Nvfp4Scaler {
  Nvfp4Scaler(const Nvfp4Options& opt, size_t blocks)
      : o(opt),
        te(nvfp4_te_order(opt.order)),
        fast(nvfp4_te_fast_math_applies(opt) && !opt.te_test_reference),
        two_level(opt.order == Nvfp4Order::torchao || opt.order == Nvfp4Order::torchao_0_16),
        recip(opt.order == Nvfp4Order::torchao || opt.order == Nvfp4Order::torchao_single),
        ar(nvfp4_autoround_order(opt.order)),
        elem_mul(blocks),
        elem_div(blocks) {}

  // Sets q.amax and q.global_scale from the tensor amax.
  void tensor_scale(Nvfp4Tensor& q, float amax) {
    if (ar) {
      // nvfp4_v2: global_scale = 1.0 (a Python float); nvfp4_v2_with_global_scale:
      // FLOAT8_UE5M3_MAX * FLOAT4_E2M1_MAX * get_reciprocal(tensor_max), 688128.0 times an f32.
      q.amax = amax;
      q.global_scale = o.order == Nvfp4Order::autoround_e5m3_gs ? 688128.0f * autoround_rcp(amax) : 1.0f;
      ar_rcp = o.order == Nvfp4Order::autoround_e5m3_gs ? autoround_rcp(q.global_scale) : 1.0f;
      return;
    }
    if (te) {
      q.amax = amax;
      q.global_scale = nvfp4_te_encode_scale(amax);
      if (o.te_test_reference && o.fast_math) {  // the reference caps S_enc at bf16 max
        const float g = fminf_c(2688.0f / amax, kBf16Max);
        q.global_scale = (amax == 0.0f || g == 0.0f) ? 1.0f : g;
      }
    } else {
      // per_tensor_amax_to_scale: amax.to(f32) / (F8E4M3_MAX * F4_E2M1_MAX) = amax / 2688.
      per_tensor = two_level ? gpu_f32(amax / 2688.0f) : 1.0f;
      q.amax = amax;
      q.global_scale = per_tensor;
    }
  }

  // The block scale q.scales[b] and element multiplier (or divisor) of block b from its amax.
  void block_scale(Nvfp4Tensor& q, size_t b, float bamax) {
    if (ar) {
      // ref_fp4_quant: scale = global_scale * (vec_max * get_reciprocal(6.0)), the Python float
      // 1/6 taken as f32 by the f32 multiply; clip to [0, 114688] (NaN passes); float_to_e5m3_frexp
      // (RNE, 0xFF for NaN) and back; dequant_scale = scale * get_reciprocal(global_scale).
      const float t = bamax * static_cast<float>(1.0 / 6.0);
      const float sc = torch_clamp(o.order == Nvfp4Order::autoround_e5m3_gs ? q.global_scale * t : t, 0.0f, kUe5m3Max);
      q.scales[b] = sc == 0.0f ? 0 : static_cast<uint8_t>(convert(Fmt::f32, Fmt::ue5m3, f32_bits(sc), ptx_sat_rn()).code);
      elem_div[b] = code_to_f32(Fmt::ue5m3, q.scales[b]) * ar_rcp;
      return;
    }
    if (te) {
      q.scales[b] = nvfp4_te_block_scale(bamax, q.global_scale, o.order);
      if (o.te_test_reference) {
        const float sfb = code_to_f32(Fmt::e4m3, q.scales[b]);
        float m = sfb == 0.0f ? 0.0f : fminf_c(1.0f / (sfb * (1.0f / q.global_scale)), kFltMax);
        if (o.fast_math) m = code_to_f32(Fmt::bf16, convert(Fmt::f32, Fmt::bf16, f32_bits(m), ConvertOptions{}).code);
        elem_mul[b] = m;
      } else {
        elem_mul[b] = nvfp4_te_element_scale(q.scales[b], q.global_scale, fast);
      }
    } else {
      const float block_scale = gpu_f32(bamax / 6.0f);
      const float scaled = two_level ? gpu_f32(block_scale / per_tensor) : block_scale;
      q.scales[b] = torch_e4m3(torch_clamp(scaled, kE4m3MinNormal, 448.0f));
      const float sfb = code_to_f32(Fmt::e4m3, q.scales[b]);
      if (o.order == Nvfp4Order::torchao) elem_mul[b] = gpu_f32(gpu_f32(1.0f / per_tensor) / sfb);  // (1/pts)/sfb
      else if (o.order == Nvfp4Order::torchao_single) elem_mul[b] = gpu_f32(1.0f / sfb);         // 1/sfb
      else if (o.order == Nvfp4Order::torchao_0_16) elem_div[b] = gpu_f32(per_tensor * sfb);      // pts*sfb
      else elem_div[b] = sfb;
    }
  }

  // The scaled value of element x of block b, before the cast.
  float scaled(float x, size_t b) const {
    if (ar) {
      // where(dequant_scale == 0, 0, x / dequant_scale) + 0 (v: a -0 quotient becomes +0),
      // clamp(-6, 6); cast_to_fp4 then rounds to nearest even on the E2M1 grid.
      const float d = elem_div[b];
      return torch_clamp((d == 0.0f ? 0.0f : x / d) + 0.0f, -6.0f, 6.0f);
    }
    if (te && fast) {
      // fma.rn.f32.bf16(x, coef, +0): the bf16 x bf16 product rounded once; an exact -0
      // product plus +0 is +0 (RN).
      const float p = x * elem_mul[b];
      return p == 0.0f && x == 0.0f ? 0.0f : p;
    }
    if (te) return x * elem_mul[b];
    return gpu_f32(torch_clamp(gpu_f32(recip ? x * elem_mul[b] : x / elem_div[b]), -6.0f, 6.0f));
  }

  const Nvfp4Options& o;
  const bool te, fast, two_level, recip, ar;
  float per_tensor = 1.0f;
  float ar_rcp = 1.0f;          // auto-round: get_reciprocal(global_scale)
  std::vector<float> elem_mul;  // te: x * mul
  std::vector<float> elem_div;  // torchao: x / div; auto-round: its dequant_scale
};

}  // namespace

namespace {
// TE's 4over6 / row-scaled kernels (quant_nvfp4_te_variants.cpp) in the layout of Nvfp4Tensor.
Nvfp4Tensor nvfp4_variant_tensor(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o) {
  Nvfp4TeVariantTensor t = nvfp4_te_variant_quantize(x, rows, cols, te_variant_of(o));
  Nvfp4Tensor q;
  q.grid = make_grid(rows, cols, o.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, 16);
  q.order = o.order;
  q.codes = std::move(t.codes);
  q.scales = std::move(t.scales);
  q.e4m3_max = o.e4m3_max;
  if (o.row_scaled) {
    q.row_amax = std::move(t.amax);
    q.row_scale = std::move(t.s_enc);
  } else {
    q.amax = t.amax[0];
    q.global_scale = t.s_enc[0];
  }
  return q;
}
}  // namespace

Nvfp4Tensor nvfp4_quantize(std::span<const float> x_in, size_t rows, size_t cols, const Nvfp4Options& o,
                           std::span<const uint32_t> rbits, const Exec& exec) {
  if (const std::string err = nvfp4_quantize_error(x_in.size(), rows, cols, o, rbits.size()); !err.empty())
    throw std::invalid_argument(err);
  const bool te = nvfp4_te_order(o.order);
  if (nvfp4_te_variant(o)) return nvfp4_variant_tensor(x_in, rows, cols, o);
  std::vector<float> transformed;
  std::span<const float> x = x_in;
  const bool fast = detail::nvfp4_fast_applies(o);
  std::optional<float> rht_amax;  // the fast RHT's amax of its result, taken as it writes it
  if (o.rht && fast && o.rht_out == RhtOut::bf16) {  // the transformed copy as bf16 bits
    float a = 0.0f;
    const std::vector<uint16_t> y = detail::rht16_bf16_fast(x_in, o.rht_signs, exec, o.global_amax ? nullptr : &a);
    if (!o.global_amax) rht_amax = a;
    Nvfp4Tensor q;
    q.order = o.order;
    detail::nvfp4_quantize_fast_bf16(y, rows, cols, o, rbits, exec, q, rht_amax);
    return q;
  }
  if (o.rht) {
    if (fast && !o.global_amax) {
      float a = 0.0f;
      transformed = detail::rht16_fast(x_in, rows, cols, o.rht_signs, o.rht_out, exec, &a);
      rht_amax = a;
    } else {
      transformed = rht16(x_in, rows, cols, o.rht_signs, o.rht_out, exec);
    }
    x = transformed;
  }
  Nvfp4Tensor q;
  q.order = o.order;
  if (fast) {  // the same bits, vectorised (quant_fast.hpp)
    detail::nvfp4_quantize_fast(x, rows, cols, o, rbits, exec, q, rht_amax);
    return q;
  }
  q.grid = make_grid(rows, cols, o.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, o.block);
  const AmaxNan nan_policy = te ? AmaxNan::ignore : AmaxNan::propagate;
  const float amax = o.global_amax ? *o.global_amax : mx_amax(x, nan_policy, exec);

  std::vector<float> bamax(q.grid.scale_count(), 0.0f);
  std::vector<uint8_t> bnan(q.grid.scale_count(), 0);
  q.scales.resize(bamax.size());
  Nvfp4Scaler s(o, bamax.size());
  s.tensor_scale(q, amax);
  const ConvertOptions e2m1 = ptx_sat_rn();  // cvt.rn.satfinite.e2m1x2.f32; torchao's cast saturates too
  std::optional<PtxCvt> cvt;
  if (o.round == Round::rs) {
    const Result<PtxCvt> p = parse_ptx_cvt("cvt.rs.satfinite.e2m1x4.f32");
    if (!p.ok()) throw std::logic_error("PTX catalog lacks cvt.rs.satfinite.e2m1x4.f32: " + p.error);
    cvt = p.value;
  }
  q.codes.resize(x.size());
  const BlockGrid& grid = q.grid;
  detail::for_each_tile(grid, exec, [&](const detail::Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const size_t b = grid.scale_index(r, c);
        const float m = std::fabs(x[r * cols + c]);
        if (std::isnan(m)) bnan[b] = 1;
        else if (m > bamax[b]) bamax[b] = m;
      }
    for (size_t br = t.r0 / grid.block_rows; br <= (t.r1 - 1) / grid.block_rows; ++br)
      for (size_t bc = t.c0 / grid.block_cols; bc <= (t.c1 - 1) / grid.block_cols; ++bc) {
        const size_t b = br * grid.scale_cols() + bc;
        if (nan_policy == AmaxNan::propagate && bnan[b]) bamax[b] = std::numeric_limits<float>::quiet_NaN();
        s.block_scale(q, b, bamax[b]);
      }
    if (o.round == Round::rn) {
      for (size_t r = t.r0; r < t.r1; ++r)
        for (size_t c = t.c0; c < t.c1; ++c) {
          const size_t i = r * cols + c;
          const float y = s.scaled(x[i], grid.scale_index(r, c));
          // auto-round: a NaN y (its block's scale is NaN, so is its value) gets satfinite's +6.
          q.codes[i] = !te && !s.ar && std::isnan(y)
                           ? torchao_floatx_nan_code(Fmt::e2m1, f32_bits(y))  // torchao's bit trick on NaN
                           : static_cast<uint8_t>(convert(Fmt::f32, Fmt::e2m1, f32_bits(y), e2m1).code);
        }
    } else {  // groups of 4 in a row: tiles start at a multiple of 16 and end at one or at cols
      for (size_t r = t.r0; r < t.r1; ++r)
        for (size_t c = t.c0; c < t.c1; c += 4) {
          const size_t i = r * cols + c, b = grid.scale_index(r, c);
          const std::array<uint64_t, 4> src = {f32_bits(s.scaled(x[i + 3], b)), f32_bits(s.scaled(x[i + 2], b)),
                                               f32_bits(s.scaled(x[i + 1], b)), f32_bits(s.scaled(x[i], b))};
          const uint64_t d = ptx_cvt_eval(*cvt, src, rbits[i / 4], o.rs_map);
          for (int j = 0; j < 4; ++j) q.codes[i + static_cast<size_t>(j)] = static_cast<uint8_t>((d >> (4 * j)) & 0xF);
        }
    }
  });
  return q;
}

Nvfp4Tensor nvfp4_quantize(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                           std::span<const uint32_t> rbits) {
  return nvfp4_quantize(x, rows, cols, o, rbits, Exec{});
}

std::optional<Nvfp4Dequant> parse_nvfp4_dequant(std::string_view s) {
  if (s == "tcemu") return Nvfp4Dequant::tcemu;
  if (s == "te") return Nvfp4Dequant::te_kernel;
  return std::nullopt;
}

std::string_view to_string(Nvfp4Dequant d) { return d == Nvfp4Dequant::te_kernel ? "te" : "tcemu"; }

std::vector<float> nvfp4_dequantize(const Nvfp4Tensor& q, Nvfp4Dequant d) { return nvfp4_dequantize(q, d, Exec{}); }

std::string nvfp4_dequantize_error(const Nvfp4Tensor& q, Nvfp4Dequant d) {
  if (d == Nvfp4Dequant::te_kernel && !nvfp4_te_order(q.order)) return "TE's NVFP4 dequantize kernel applies to the te orders";
  if (q.e4m3_max != 448 && q.e4m3_max != 256) return "e4m3_max must be 448 or 256";
  if (!q.row_scale.empty() && (q.row_scale.size() != q.grid.rows || q.row_amax.size() != q.grid.rows))
    return "row-scaled NVFP4 needs one S_enc and one amax per row";
  return {};
}

std::vector<float> nvfp4_dequantize(const Nvfp4Tensor& q, Nvfp4Dequant d, const Exec& exec) {
  if (const std::string err = nvfp4_dequantize_error(q, d); !err.empty()) throw std::invalid_argument(err);
  return detail::nvfp4_dequantize_view(q, q.codes, q.scales, d, exec);
}

std::vector<float> detail::nvfp4_dequantize_view(const Nvfp4Tensor& q, std::span<const uint8_t> codes,
                                                 std::span<const uint8_t> scales, Nvfp4Dequant d, const Exec& exec,
                                                 float* into) {
  const bool te = nvfp4_te_order(q.order);
  // te_kernel (dequantize_fp4_kernel<..., E4M3_MAX>): factor_inv = 1.0f / (6.0f * E4M3_MAX), f32.
  const float factor_inv = 1.0f / (6.0f * static_cast<float>(q.e4m3_max));
  // tcemu; torchao get_hp_scales: sfb alone without a per-tensor scale, else per_tensor * sfb.
  const float s_dec = te ? 1.0f / q.global_scale : nvfp4_has_global(q.order) ? q.global_scale : 1.0f;
  // auto-round: qdq = fp4 * (scale * get_reciprocal(global_scale)), gs 1 for autoround-e5m3.
  const bool ar = nvfp4_autoround_order(q.order);
  const float ar_rcp = q.order == Nvfp4Order::autoround_e5m3_gs ? autoround_rcp(q.global_scale) : 1.0f;
  // One element from its E2M1 code, its block's E4M3 scale code and its row's scales.
  auto value_in = [&](uint8_t code, uint8_t scale, float row_dec, float amax) {
    const float sfb = code_to_f32(nvfp4_scale_fmt(q.order), scale);
    const float e = code_to_f32(Fmt::e2m1, code);
    if (ar) return e * (sfb * ar_rcp);
    if (d == Nvfp4Dequant::te_kernel) {
      const float final_scale = sfb * amax * factor_inv;  // (sfb * amax) * factor_inv
      const float v = e * final_scale;
      return std::isnan(v) ? f32_from_bits(0x7FFFFFFF) : v;  // a GPU multiply gives the canonical NaN
    }
    return te ? e * sfb * row_dec : e * (row_dec * sfb);
  };
  auto value = [&](uint8_t code, uint8_t scale) { return value_in(code, scale, s_dec, q.amax); };
  std::vector<float> storage;  // the result when the caller gives no buffer
  auto buffer = [&] {
    if (into) return into;
    storage.resize(codes.size());
    return storage.data();
  };
  if (!q.row_scale.empty()) {  // row-scaled: each row its own S_enc and amax
    float* const out = buffer();
    detail::for_each_tile(q.grid, exec, [&](const detail::Tile& t) {
      for (size_t r = t.r0; r < t.r1; ++r) {
        const float row_dec = 1.0f / q.row_scale[r];
        for (size_t c = t.c0; c < t.c1; ++c) {
          const size_t i = r * q.grid.cols + c;
          out[i] = value_in(codes[i], scales[q.grid.scale_index(r, c)], row_dec, q.row_amax[r]);
        }
      }
    });
    return storage;
  }
  if (detail::fast_quant_enabled()) {  // value() tabulated for the scales that occur: the same bits
    auto call = [](const void* c, uint8_t code, uint8_t scale) { return (*static_cast<const decltype(value)*>(c))(code, scale); };
    return detail::dequantize_by_table(q.grid, codes, scales, 16, call, &value, exec, into);
  }
  // A large tensor tabulates value() over every (scale, code) pair first: the same bits.
  std::vector<float> table;
  if (codes.size() >= detail::kTableMin) {
    table.resize(256 * 16);
    for (size_t k = 0; k < table.size(); ++k) table[k] = value(static_cast<uint8_t>(k % 16), static_cast<uint8_t>(k / 16));
  }
  float* const out = buffer();
  detail::for_each_tile(q.grid, exec, [&](const detail::Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const size_t i = r * q.grid.cols + c;
        const uint8_t code = codes[i], scale = scales[q.grid.scale_index(r, c)];
        out[i] = !table.empty() && code < 16 ? table[scale * size_t{16} + code] : value(code, scale);
      }
  });
  return storage;
}

}  // namespace tcemu::quant
