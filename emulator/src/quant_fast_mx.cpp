// The fast MX quantizer and tensor amax (quant_fast.hpp): the scale rules of quant_mx.cpp per
// block, the elements vectorised.
#include <algorithm>
#include <atomic>
#include <limits>
#include <vector>

#include "quant_fast.hpp"
#include "quant_fast_blocks.hpp"
#include "quant_tiles.hpp"

namespace tcemu::quant::detail {

namespace {
std::atomic<bool> g_fast{true};
}

void set_fast_quant(bool on) { g_fast.store(on, std::memory_order_relaxed); }
bool fast_quant_enabled() { return g_fast.load(std::memory_order_relaxed); }

float amax_fast(std::span<const float> values, AmaxNan policy, const Exec& exec) {
  // mx_amax's pieces (quant_mx.cpp), each piece's masked |x| bits: max of the pieces.
  const size_t pieces = (values.size() + kTileElems - 1) / kTileElems;
  std::vector<uint32_t> part(pieces, 0u);
  parallel_for(pieces, exec, [&](size_t p) {
    const size_t b = p * kTileElems, e = std::min(values.size(), b + kTileElems);
    part[p] = absmax_bits(values.data() + b, e - b, policy);
  });
  uint32_t a = 0;
  for (uint32_t v : part) a = std::max(a, v);
  if (a > 0x7F800000u) return std::numeric_limits<float>::quiet_NaN();  // propagate only
  return f32_from_bits(a);
}

bool mx_fast_applies(const MxOptions& o) {
  if (!fast_quant_enabled()) return false;
  if (o.elem != Fmt::e4m3 && o.elem != Fmt::e5m2 && o.elem != Fmt::e3m2 && o.elem != Fmt::e2m3 && o.elem != Fmt::e2m1)
    return false;
  if (o.round != Round::rn || o.floor_path != TorchaoFloorPath::to_mx) return false;
  switch (o.scale) {
    case MxScaleMode::rceil_sat: return o.variant == MxVariant::current || o.variant == MxVariant::te_2_12;
    case MxScaleMode::rceil:
    case MxScaleMode::floor:
    case MxScaleMode::ceil:
    case MxScaleMode::even: return o.variant == MxVariant::current;
    default: return false;
  }
}

void mx_quantize_fast(std::span<const float> x, const MxOptions& o, const Exec& exec, MxTensor& q) {
  // As mx_quantize: the NaN policy and the cast by default from the scale mode.
  const AmaxNan policy = o.amax_nan ? *o.amax_nan : (o.scale == MxScaleMode::rceil_sat ? AmaxNan::ignore : AmaxNan::propagate);
  const ElemCast cast = o.cast ? *o.cast : (o.scale == MxScaleMode::rceil_sat ? ElemCast::ptx : ElemCast::torch);
  CastSpec spec;
  spec.elem = o.elem;
  spec.clamp = cast == ElemCast::torch;
  spec.max = mx_max_norm(o.elem);
  // Every scaled NaN is the GPU's 0x7FFFFFFF in these modes (mx_element_code), so it has one code.
  spec.nan_code = mx_element_code(std::numeric_limits<float>::quiet_NaN(), 127, o);
  // mx_element_code's multiplier of each scale code.
  float mul[256];
  for (int s = 0; s < 256; ++s)
    mul[s] = o.scale == MxScaleMode::rceil_sat ? te_exp2f_rcp(static_cast<uint8_t>(s), o.variant)
                                               : torchao_e8m0_reciprocal(static_cast<uint8_t>(s));
  const bool rceil = o.scale == MxScaleMode::rceil_sat || o.scale == MxScaleMode::rceil;
  const bool sat = o.scale == MxScaleMode::rceil_sat;
  // mx_scale_code's rceil rules: amax * (float)(1 / max_norm), rounded up to a power of two.
  const float rcp = static_cast<float>(1.0 / static_cast<double>(spec.max));
  q.scales.resize(q.grid.scale_count());
  q.codes = big_vector<uint8_t>(x.size());
  uint8_t* scales = q.scales.data();
  if (rceil) {  // the rule on the bits for a block row at a time
    quantize_blocks(x.data(), q.grid, policy, spec, q.codes.data(), exec,
                    [&](size_t b0, const uint32_t* acc, size_t nb, float* m) {
                      mx_rceil_block_scales(acc, nb, policy == AmaxNan::propagate, rcp, sat, mul, scales + b0, m);
                    });
    return;
  }
  // floor, ceil, even (variant current, to_mx: mx_fast_applies): mx_scale_code's integer rule
  // on the amax bits, a block row at a time.
  const int mode = o.scale == MxScaleMode::floor ? 0 : o.scale == MxScaleMode::ceil ? 1 : 2;
  const uint32_t even_add = uint32_t{1} << (23 - info(o.elem).man_bits - 1);
  quantize_blocks(x.data(), q.grid, policy, spec, q.codes.data(), exec,
                  [&](size_t b0, const uint32_t* acc, size_t nb, float* m) {
                    mx_tomx_block_scales(acc, nb, policy == AmaxNan::propagate, mode, mx_emax(o.elem), even_add, mul,
                                         scales + b0, m);
                  });

}

}  // namespace tcemu::quant::detail
