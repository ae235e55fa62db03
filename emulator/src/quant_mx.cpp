// MX block quantization in each implementation's arithmetic order (docs/quantization.md).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "quant_fast.hpp"
#include "quant_tiles.hpp"
#include "tcemu/quant.hpp"

namespace tcemu::quant {

uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
float f32_from_bits(uint32_t b) { return std::bit_cast<float>(b); }

float code_to_f32(Fmt f, uint64_t code) {
  if (f == Fmt::f32) return f32_from_bits(static_cast<uint32_t>(code));
  ConvertOptions o;  // every code of these formats is exact in f32; NaN -> canonical
  return f32_from_bits(static_cast<uint32_t>(convert(f, Fmt::f32, code, o).code));
}

std::optional<BlockAxis> parse_block_axis(std::string_view s) {
  if (s == "row" || s == "rowwise" || s == "1d") return BlockAxis::rowwise;
  if (s == "col" || s == "column" || s == "columnwise" || s == "colwise") return BlockAxis::columnwise;
  if (s == "2d" || s == "tile" || s == "tile2d") return BlockAxis::tile2d;
  return std::nullopt;
}
std::string_view to_string(BlockAxis a) {
  switch (a) {
    case BlockAxis::rowwise: return "row";
    case BlockAxis::columnwise: return "col";
    case BlockAxis::tile2d: return "2d";
  }
  return "?";
}

BlockGrid make_grid(size_t rows, size_t cols, BlockAxis axis, size_t block) {
  if (block == 0) throw std::invalid_argument("block size must be positive");
  BlockGrid g;
  g.rows = rows;
  g.cols = cols;
  g.block_rows = axis == BlockAxis::rowwise ? 1 : block;
  g.block_cols = axis == BlockAxis::columnwise ? 1 : block;
  return g;
}

std::optional<MxScaleMode> parse_mx_scale_mode(std::string_view s) {
  if (s == "floor") return MxScaleMode::floor;
  if (s == "rceil-sat" || s == "rceil_sat" || s == "te") return MxScaleMode::rceil_sat;
  if (s == "rceil" || s == "rceil-nonsat") return MxScaleMode::rceil;
  if (s == "rceil-legacy" || s == "rceil_legacy") return MxScaleMode::rceil_legacy;
  if (s == "ceil") return MxScaleMode::ceil;
  if (s == "even") return MxScaleMode::even;
  return std::nullopt;
}
std::string_view to_string(MxScaleMode m) {
  switch (m) {
    case MxScaleMode::floor: return "floor";
    case MxScaleMode::rceil_sat: return "rceil-sat";
    case MxScaleMode::rceil: return "rceil";
    case MxScaleMode::rceil_legacy: return "rceil-legacy";
    case MxScaleMode::ceil: return "ceil";
    case MxScaleMode::even: return "even";
  }
  return "?";
}

std::optional<MxVariant> parse_mx_variant(std::string_view s) {
  if (s == "current") return MxVariant::current;
  if (s == "torchao-0.18") return MxVariant::torchao_0_18;
  if (s == "te-2.12") return MxVariant::te_2_12;
  return std::nullopt;
}
std::string_view to_string(MxVariant v) {
  switch (v) {
    case MxVariant::current: return "current";
    case MxVariant::torchao_0_18: return "torchao-0.18";
    case MxVariant::te_2_12: return "te-2.12";
  }
  return "?";
}

std::optional<TorchaoFloorPath> parse_torchao_floor_path(std::string_view s) {
  if (s == "to_mx") return TorchaoFloorPath::to_mx;
  if (s == "cuda") return TorchaoFloorPath::cuda;
  return std::nullopt;
}
std::string_view to_string(TorchaoFloorPath p) { return p == TorchaoFloorPath::cuda ? "cuda" : "to_mx"; }

std::string mx_options_error(const MxOptions& o) {
  if (o.floor_path == TorchaoFloorPath::cuda &&
      (o.scale != MxScaleMode::floor || o.elem != Fmt::e4m3 || o.variant != MxVariant::current))
    return "floor path cuda (torchao's CUDA MXFP8 kernel) applies to scale floor with e4m3 elements, variant current";
  const bool torchao_bits = o.scale == MxScaleMode::floor || o.scale == MxScaleMode::ceil || o.scale == MxScaleMode::even;
  if (o.variant == MxVariant::torchao_0_18 && !torchao_bits)
    return "variant torchao-0.18 applies to scale modes floor, ceil and even (torchao <= v0.18.0 RCEIL is scale rceil-legacy)";
  if (o.variant == MxVariant::te_2_12 && o.scale != MxScaleMode::rceil_sat)
    return "variant te-2.12 applies to scale mode rceil-sat only";
  return {};
}

bool mx_supported(Fmt e) {
  return e == Fmt::e4m3 || e == Fmt::e5m2 || e == Fmt::e3m2 || e == Fmt::e2m3 || e == Fmt::e2m1 || e == Fmt::s8;
}

int mx_emax(Fmt e) {
  switch (e) {
    case Fmt::e4m3: return 8;
    case Fmt::e5m2: return 15;
    case Fmt::e3m2: return 4;
    case Fmt::e2m3: return 2;
    case Fmt::e2m1: return 2;
    case Fmt::s8: return 0;  // MXINT8: 1.xxxxxx (implicit 2^-6), largest power of two 2^0
    default: throw std::invalid_argument("not an MX element format: " + std::string(info(e).name));
  }
}

float mx_max_norm(Fmt e) {
  if (e == Fmt::s8) return 127.0f / 64.0f;
  if (!mx_supported(e)) throw std::invalid_argument("not an MX element format: " + std::string(info(e).name));
  // Every element of a block asks (cast_element): the formats' largest finite values, decoded
  // once (thread-safe static initialisation).
  static const std::array<float, 5> kMax = [] {
    const Fmt f[5] = {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1};
    std::array<float, 5> m{};
    for (int k = 0; k < 5; ++k) m[k] = code_to_f32(f[k], max_finite_code(f[k]));
    return m;
  }();
  switch (e) {
    case Fmt::e4m3: return kMax[0];
    case Fmt::e5m2: return kMax[1];
    case Fmt::e3m2: return kMax[2];
    case Fmt::e2m3: return kMax[3];
    default: return kMax[4];  // e2m1, the last format mx_supported admits
  }
}

namespace {

// Fraction bits that torchao's EVEN mode rounds amax to (MXINT8: 6, its 1.xxxxxx grid).
int mx_mbits(Fmt e) { return e == Fmt::s8 ? 6 : info(e).man_bits; }

// Exact ceil(log2(d)) of a finite positive f32.
int ceil_log2_exact(float d) {
  const uint32_t b = f32_bits(d);
  const int field = static_cast<int>(b >> 23);
  uint32_t man = b & 0x7FFFFF;
  int k;  // floor(log2 d)
  if (field == 0) {
    k = -149 + (31 - std::countl_zero(man));
    man &= ~(uint32_t{1} << (31 - std::countl_zero(man)));  // bits below the leading one
  } else {
    k = field - 127;
  }
  return man != 0 ? k + 1 : k;
}

// ceil of log2(d) rounded to f32 (correctly rounded). log2 of m in [1,2) is computed in double,
// far more accurate than the f32 rounding it feeds (a tie is impossible: log2 of a non-power of
// two is irrational).
int ceil_log2_f32(float d) {
  const uint32_t b = f32_bits(d);
  const int field = static_cast<int>(b >> 23);
  if (field != 0 && (b & 0x7FFFFF) == 0) return field - 127;  // a power of two: log2 exact
  const double l = std::log2(static_cast<double>(d));
  return static_cast<int>(std::ceil(static_cast<double>(static_cast<float>(l))));
}

// A NaN result of a GPU f32 operation: the canonical 0x7FFFFFFF.
float gpu_nan(float v) { return std::isnan(v) ? f32_from_bits(0x7FFFFFFF) : v; }

}  // namespace

uint8_t torchao_floatx_nan_code(Fmt f, uint32_t nan_bits) {
  // custom_fp_utils._f32_to_floatx_unpacked: a NaN fails both the saturate (x >= max) and the
  // denormal (x < min_normal) tests, so it takes the normal branch: bits + ((bias - 127) << 23)
  // + magic_adder + mant_odd, shifted right by 23 - mbits, truncated to uint8, sign or-ed in.
  const int ebits = info(f).exp_bits, mbits = info(f).man_bits;
  const int64_t bias = (1 << (ebits - 1)) - 1;
  const uint32_t sign = nan_bits & 0x80000000u;
  const int64_t x = static_cast<int64_t>(nan_bits ^ sign);
  const int64_t mant_odd = (x >> (23 - mbits)) & 1;
  const int64_t magic = (int64_t{1} << (23 - mbits - 1)) - 1;
  const int64_t normal = x + ((bias - 127) * (int64_t{1} << 23)) + magic + mant_odd;
  uint8_t code = static_cast<uint8_t>(static_cast<uint64_t>(normal >> (23 - mbits)) & 0xFF);
  const uint32_t sign_lp = (sign >> (23 + 8 - mbits - ebits)) & (1u << (ebits + mbits));
  return static_cast<uint8_t>(code | sign_lp);
}

namespace {

ConvertOptions cast_options(const MxOptions& o, ElemCast cast) {
  ConvertOptions c;
  c.round = o.round;
  c.rs_bits = o.rs_bits;
  if (cast == ElemCast::ptx || o.elem == Fmt::s8) {
    c.satfinite = true;
  } else if (o.elem == Fmt::e4m3 || o.elem == Fmt::e5m2) {
    c.satfinite = false;  // c10's FP8 cast does not saturate (inputs are clamped before it)
    c.nan_out = NanOut::keep_sign;
  } else {
    c.satfinite = true;
    c.nan_to_finite = NanToFinite::plus_max;
  }
  return c;
}

ElemCast default_cast(const MxOptions& o) {
  return o.cast ? *o.cast : (o.scale == MxScaleMode::rceil_sat ? ElemCast::ptx : ElemCast::torch);
}

// Converts the scaled f32 value y into the element format.
uint8_t cast_element(float y, const MxOptions& o, uint32_t rbits) {
  const ElemCast cast = default_cast(o);
  const float mx = mx_max_norm(o.elem);
  if (cast == ElemCast::torch) {  // torch.clamp: NaN passes through
    if (y > mx) y = mx;
    if (y < -mx) y = -mx;
  }
  const ConvertOptions c = cast_options(o, cast);
  if (cast == ElemCast::torch && std::isnan(y) && o.elem != Fmt::s8 && o.elem != Fmt::e4m3 && o.elem != Fmt::e5m2)
    return torchao_floatx_nan_code(o.elem, f32_bits(y));
  if (o.elem == Fmt::s8) {
    // MXINT8: the element holds y * 2^6 as a two's complement integer, clamped symmetrically
    // to +-127 (microxcaling's max_norm 127/64). NaN gives 0 (PTX float-to-integer).
    const float z = y * 64.0f;  // exact: a power of two (an overflow gives Inf, clamped)
    uint64_t code = convert(Fmt::f32, Fmt::s8, f32_bits(z), c, rbits).code;
    if (code == 0x80) code = 0x81;  // -128 -> -127
    return static_cast<uint8_t>(code);
  }
  return static_cast<uint8_t>(convert(Fmt::f32, o.elem, f32_bits(y), c, rbits).code);
}

}  // namespace

float mx_amax(std::span<const float> values, AmaxNan policy) {
  float a = 0.0f;
  for (float v : values) {
    const float m = std::fabs(v);
    if (std::isnan(m)) {
      if (policy == AmaxNan::propagate) return std::numeric_limits<float>::quiet_NaN();
      continue;  // fmaxf returns the other operand
    }
    if (std::isinf(m) && policy == AmaxNan::ignore_nonfinite) continue;
    if (m > a) a = m;
  }
  return a;
}

float mx_amax(std::span<const float> values, AmaxNan policy, const Exec& exec) {
  if (detail::fast_quant_enabled()) return detail::amax_fast(values, policy, exec);  // the same bits
  // Each piece's amax, then their max: a max does not depend on the order, and a NaN (only
  // returned under propagate) wins as it does in the serial loop.
  const size_t pieces = (values.size() + detail::kTileElems - 1) / detail::kTileElems;
  std::vector<float> part(pieces, 0.0f);
  parallel_for(pieces, exec, [&](size_t p) {
    const size_t b = p * detail::kTileElems, e = std::min(values.size(), b + detail::kTileElems);
    part[p] = mx_amax(values.subspan(b, e - b), policy);
  });
  float a = 0.0f;
  for (float v : part) {
    if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
    if (v > a) a = v;
  }
  return a;
}

uint8_t e8m0_round_up(float d, bool satfinite) {
  ConvertOptions c;
  c.round = Round::ru;
  c.satfinite = satfinite;
  return static_cast<uint8_t>(convert(Fmt::f32, Fmt::ue8m0, f32_bits(d), c).code);
}

uint8_t mx_scale_code(float amax, const MxOptions& o) {
  const Fmt e = o.elem;
  const int emax = mx_emax(e);
  const float max_norm = mx_max_norm(e);
  switch (o.scale) {
    case MxScaleMode::rceil_sat: {
      // TE: float_to_e8m0(amax * max_norm_rcp), i.e. cvt.rp.satfinite.ue8m0x2.f32.
      const float rcp = static_cast<float>(1.0 / static_cast<double>(max_norm));
      return e8m0_round_up(amax * rcp, true);
    }
    case MxScaleMode::rceil: {
      // torchao _to_mx_rceil: descale = max_abs * (1.0 / max_pos) (the Python float rounded to
      // f32 by the f32 multiply), rounded up to a power of two without saturation.
      const float rcp = static_cast<float>(1.0 / static_cast<double>(max_norm));
      return e8m0_round_up(amax * rcp, false);
    }
    case MxScaleMode::rceil_legacy: {
      // torchao <= v0.18.0 _to_mx_rceil: descale = max_abs / max_pos; NaN -> 0xFF; else
      // clamp(ceil(log2(descale)), -127, 127) + 127 (0 gives -inf, clamped to 0; Inf gives 254).
      const float d = amax / max_norm;
      if (std::isnan(d)) return 0xFF;
      int k;
      if (d == 0.0f) k = -127;
      else if (std::isinf(d)) k = 127;
      else k = o.rceil_log2 == RceilLog2::exact ? ceil_log2_exact(d) : ceil_log2_f32(d);
      if (k < -127) k = -127;
      if (k > 127) k = 127;
      return static_cast<uint8_t>(k + 127);
    }
    case MxScaleMode::floor:
    case MxScaleMode::ceil:
    case MxScaleMode::even: {
      if (o.floor_path == TorchaoFloorPath::cuda) {
        // mxfp8_quantize.cuh calculate_scale<FLOOR>: __nv_cvt_float_to_e8m0(amax * (1.0f /
        // F8E4M3_MAX_POWER_OF_2), __NV_NOSAT, cudaRoundZero); NaN and Inf give 0xFF.
        ConvertOptions c;
        c.round = Round::rz;
        c.satfinite = false;
        return static_cast<uint8_t>(convert(Fmt::f32, Fmt::ue8m0, f32_bits(amax * 0x1p-8f), c).code);
      }
      // torchao to_mx: integer work on the f32 bits of max_abs.
      if (std::isnan(amax)) return 0xFF;
      uint32_t bits = f32_bits(amax);
      if (o.scale == MxScaleMode::even) {
        const uint32_t add = uint32_t{1} << (23 - mx_mbits(e) - 1);
        bits = (bits + add) & 0xFF800000u;
      }
      int pow2 = static_cast<int>((bits >> 23) & 0xFF) - 127;
      if (o.scale == MxScaleMode::ceil && (bits & 0x7FFFFF) != 0) pow2 += 1;
      int unbiased = pow2 - emax;
      if (unbiased < -127) unbiased = -127;
      if (unbiased > 128) unbiased = 128;
      // Since torchao 5d73a0c10: where(isfinite(max_abs), code, 0xFF) - an Inf amax (or EVEN's
      // rounding of amax up to Inf) gives 0xFF like NaN.
      if (o.variant == MxVariant::current && (bits & 0x7F800000u) == 0x7F800000u) return 0xFF;
      return static_cast<uint8_t>(unbiased + 127);
    }
  }
  throw std::invalid_argument("unknown MX scale mode");
}

float te_exp2f_rcp(uint8_t e, MxVariant v) {
  if (v == MxVariant::te_2_12)  // TE <= v2.12: 1 for code 0, else bits (254 - e) << 23 (0xFE: +0, 0xFF: -Inf)
    return e == 0 ? 1.0f : f32_from_bits(static_cast<uint32_t>(254 - static_cast<int>(e)) << 23);
  if (e == 0xFF) return f32_from_bits(0x7FFFFFFF);
  if (e == 0xFE) return f32_from_bits(0x00400000);  // 2^-127
  return f32_from_bits(static_cast<uint32_t>(254 - static_cast<int>(e)) << 23);
}

float torchao_e8m0_reciprocal(uint8_t e) {
  // _e8m0_scale_to_reciprocal_fp32: (254 - e) as uint8 read as E8M0 (0 -> 2^-127, 0xFF -> NaN).
  const uint8_t r = static_cast<uint8_t>(254 - static_cast<int>(e));
  if (r == 0xFF) return f32_from_bits(0x7F800001);
  if (r == 0) return f32_from_bits(0x00400000);
  return f32_from_bits(static_cast<uint32_t>(r) << 23);
}

uint8_t mx_element_code(float x, uint8_t scale, const MxOptions& o, uint32_t rbits) {
  switch (o.scale) {
    case MxScaleMode::rceil_sat:
      // TE: x * exp2f_rcp(e) in f32 (mul.f32x2), a GPU NaN is 0x7FFFFFFF.
      return cast_element(gpu_nan(x * te_exp2f_rcp(scale, o.variant)), o, rbits);
    case MxScaleMode::rceil:
      // torchao: x * 2^(127 - e) (2^127 for code 0, 2^-127 for 0xFE), NaN for 0xFF.
      return cast_element(gpu_nan(x * torchao_e8m0_reciprocal(scale)), o, rbits);
    case MxScaleMode::rceil_legacy: {
      // torchao <= v0.18.0: descale_fp = 1 for code 0, else exp2(127 - e) (exact in f32; 0xFE: 2^-127).
      const float inv = scale == 0 ? 1.0f : std::ldexp(1.0f, 127 - static_cast<int>(scale));
      return cast_element(x * inv, o, rbits);
    }
    default: {
      if (o.variant == MxVariant::torchao_0_18) {
        // torchao <= v0.18.0: scale_fp32 = bits(e << 23), clamped below to 2^-126 (so code 0
        // divides by 2^-126, 0xFF by Inf), then data_hp / scale_fp32 in f32.
        float s = f32_from_bits(uint32_t{scale} << 23);
        const float min_normal = std::numeric_limits<float>::min();
        if (s < min_normal) s = min_normal;
        return cast_element(x / s, o, rbits);
      }
      // torchao since 5d73a0c10: data_hp * _e8m0_scale_to_reciprocal_fp32(e) in f32.
      return cast_element(gpu_nan(x * torchao_e8m0_reciprocal(scale)), o, rbits);
    }
  }
}

std::string mx_quantize_error(size_t n, size_t rows, size_t cols, const MxOptions& o, size_t rbits) {
  if (!mx_supported(o.elem))
    return "MX element format must be e4m3, e5m2, e3m2, e2m3, e2m1 or s8, not " + std::string(info(o.elem).name);
  if (o.round != Round::rn && o.round != Round::rna && o.round != Round::rz && o.round != Round::rs)
    return "MX element rounding must be rn, rna, rz or rs";
  if (n != rows * cols) return "tensor has " + std::to_string(n) + " values, shape says " + std::to_string(rows * cols);
  if (std::string err = mx_options_error(o); !err.empty()) return err;
  if (o.round == Round::rs && rbits < n) return "stochastic rounding needs one random word per element";
  if (o.block == 0) return "block size must be positive";  // make_grid's precondition
  if (o.block > kMaxMxBlock) return "block size " + std::to_string(o.block) + " is above 2^20 (1048576)";
  return {};
}

MxTensor mx_quantize(std::span<const float> x, size_t rows, size_t cols, const MxOptions& o,
                     std::span<const uint32_t> rbits, const Exec& exec) {
  if (const std::string err = mx_quantize_error(x.size(), rows, cols, o, rbits.size()); !err.empty())
    throw std::invalid_argument(err);
  MxTensor q;
  q.grid = make_grid(rows, cols, o.axis, o.block);
  q.elem = o.elem;
  if (detail::mx_fast_applies(o)) {  // the same bits, vectorised (quant_fast.hpp)
    detail::mx_quantize_fast(x, o, exec, q);
    return q;
  }
  const AmaxNan nan_policy = o.amax_nan ? *o.amax_nan : (o.scale == MxScaleMode::rceil_sat ? AmaxNan::ignore : AmaxNan::propagate);
  // Each rectangle of whole blocks (quant_tiles.hpp) on its own: block amax (a NaN-aware running
  // max; the order of a max does not matter), the blocks' scales, then the elements.
  std::vector<float> amax(q.grid.scale_count(), 0.0f);
  std::vector<uint8_t> has_nan(q.grid.scale_count(), 0);
  q.scales.resize(amax.size());
  q.codes.resize(x.size());
  const BlockGrid& g = q.grid;
  detail::for_each_tile(g, exec, [&](const detail::Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const size_t b = g.scale_index(r, c);
        const float m = std::fabs(x[r * cols + c]);
        if (std::isnan(m)) has_nan[b] = 1;
        else if (std::isinf(m) && nan_policy == AmaxNan::ignore_nonfinite) continue;
        else if (m > amax[b]) amax[b] = m;
      }
    for (size_t br = t.r0 / g.block_rows; br <= (t.r1 - 1) / g.block_rows; ++br)
      for (size_t bc = t.c0 / g.block_cols; bc <= (t.c1 - 1) / g.block_cols; ++bc) {
        const size_t b = br * g.scale_cols() + bc;
        const float a = (has_nan[b] && nan_policy == AmaxNan::propagate) ? std::numeric_limits<float>::quiet_NaN() : amax[b];
        q.scales[b] = mx_scale_code(a, o);
      }
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const size_t i = r * cols + c;
        q.codes[i] = mx_element_code(x[i], q.scales[g.scale_index(r, c)], o, o.round == Round::rs ? rbits[i] : 0);
      }
  });
  return q;
}

MxTensor mx_quantize(std::span<const float> x, size_t rows, size_t cols, const MxOptions& o,
                     std::span<const uint32_t> rbits) {
  return mx_quantize(x, rows, cols, o, rbits, Exec{});
}

std::optional<MxDequant> parse_mx_dequant(std::string_view s) {
  if (s == "ocp") return MxDequant::ocp;
  if (s == "te") return MxDequant::te;
  if (s == "te-2.18") return MxDequant::te_2_18;
  return std::nullopt;
}

std::string_view to_string(MxDequant d) {
  switch (d) {
    case MxDequant::ocp: return "ocp";
    case MxDequant::te: return "te";
    case MxDequant::te_2_18: return "te-2.18";
  }
  return "?";
}

float mx_dequantize_element(Fmt elem, uint8_t code, uint8_t scale, MxDequant d) {
  float s;
  if (d == MxDequant::te || d == MxDequant::te_2_18) {
    if (d == MxDequant::te_2_18) s = f32_from_bits(static_cast<uint32_t>(scale) << 23);  // 0 -> +0, 0xFF -> +Inf
    else if (scale == 0xFF) s = f32_from_bits(0x7FFFFFFF);  // ptx::exp2f since 4ff5fdfed
    else if (scale == 0) s = f32_from_bits(0x00400000);     // 2^-127
    else s = f32_from_bits(static_cast<uint32_t>(scale) << 23);
    const float v = elem == Fmt::s8 ? static_cast<float>(static_cast<int8_t>(code)) / 64.0f : code_to_f32(elem, code);
    const float p = v * s;
    return std::isnan(p) ? f32_from_bits(0x7FFFFFFF) : p;  // a GPU multiply gives the canonical NaN
  } else {
    if (scale == 0xFF) return std::numeric_limits<float>::quiet_NaN();
    s = std::ldexp(1.0f, static_cast<int>(scale) - 127);  // 2^-127 is an exact f32 subnormal
  }
  float v;
  if (elem == Fmt::s8) v = static_cast<float>(static_cast<int8_t>(code)) / 64.0f;
  else v = code_to_f32(elem, code);
  return v * s;
}

std::vector<float> detail::mx_dequantize_fast(const BlockGrid& g, Fmt elem, std::span<const uint8_t> codes,
                                              std::span<const uint8_t> scales, MxDequant d, const Exec& exec,
                                              float* into) {
  struct Ctx {
    Fmt elem;
    MxDequant d;
  } ctx{elem, d};
  auto value = [](const void* c, uint8_t code, uint8_t scale) {
    const Ctx& k = *static_cast<const Ctx*>(c);
    return mx_dequantize_element(k.elem, code, scale, k.d);
  };
  return detail::dequantize_by_table(g, codes, scales, uint32_t{1} << info(elem).width, value, &ctx, exec, into);
}

std::vector<float> mx_dequantize(const MxTensor& q, MxDequant d, const Exec& exec) {
  if (detail::fast_quant_enabled() && info(q.elem).width <= 8)  // the same function, tabulated
    return detail::mx_dequantize_fast(q.grid, q.elem, q.codes, q.scales, d, exec);
  // A large tensor first computes mx_dequantize_element once for every (scale, code) pair of
  // the element format, then looks each element up: the same function, so the same bits.
  const size_t codes = size_t{1} << info(q.elem).width;
  std::vector<float> table;
  if (q.codes.size() >= detail::kTableMin && codes <= 256) {
    table.resize(256 * codes);
    detail::for_each_range(table.size(), exec, [&](size_t b, size_t e) {
      for (size_t k = b; k < e; ++k)
        table[k] = mx_dequantize_element(q.elem, static_cast<uint8_t>(k % codes), static_cast<uint8_t>(k / codes), d);
    });
  }
  std::vector<float> out(q.codes.size());
  detail::for_each_tile(q.grid, exec, [&](const detail::Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c = t.c0; c < t.c1; ++c) {
        const size_t i = r * q.grid.cols + c;
        const uint8_t code = q.codes[i], scale = q.scales[q.grid.scale_index(r, c)];
        out[i] = !table.empty() && code < codes ? table[scale * codes + code] : mx_dequantize_element(q.elem, code, scale, d);
      }
  });
  return out;
}

std::vector<float> mx_dequantize(const MxTensor& q, MxDequant d) { return mx_dequantize(q, d, Exec{}); }

}  // namespace tcemu::quant
