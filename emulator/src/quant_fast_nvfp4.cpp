// The fast NVFP4 quantizer and RHT (quant_fast.hpp): TE's scale rules of quant_nvfp4.cpp, the
// block scales (nvfp4_block_scales) and the elements vectorised.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "quant_fast.hpp"
#include "quant_fast_blocks.hpp"
#include "quant_tiles.hpp"

namespace tcemu::quant::detail {

bool nvfp4_fast_applies(const Nvfp4Options& o) {
  if (!fast_quant_enabled()) return false;
  // The covered fields copied onto the defaults: any other field set (an option added later
  // included) makes the two differ and runs the scalar rules.
  Nvfp4Options covered;
  covered.order = o.order;
  covered.tile2d = o.tile2d;
  covered.fast_math = o.fast_math;
  covered.input = o.input;
  covered.global_amax = o.global_amax;
  covered.rht = o.rht;
  covered.rht_signs = o.rht_signs;
  covered.rht_out = o.rht_out;
  covered.round = o.round;  // rn or rs (nvfp4_quantize_error)
  covered.rs_map = o.rs_map;
  if (!(covered == o)) return false;
  if (o.rs_map != RsBitMap::ptx_doc && o.rs_map != RsBitMap::flashinfer_hw) return false;
  return nvfp4_te_order(o.order) && !nvfp4_te_fast_math_applies(o);
}

namespace {

// The stochastic element cast of quantize_blocks: row r's codes from column c0 on, the random
// words of the tensor's elements (one per 4; c0 and cols are multiples of 4).
struct RsCast {
  const uint32_t* rbits;
  size_t cols;
  RsBitMap map;
  uint8_t nan_pos, nan_neg;
  void operator()(size_t r, size_t c0, const float* x, const float* mul, size_t bw, size_t w, uint8_t* out) const {
    scale_cast_rs_e2m1(x, mul, bw, w, rbits + (r * cols + c0) / 4, map, nan_pos, nan_neg, out);
  }
};

}  // namespace

void nvfp4_quantize_fast(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                         std::span<const uint32_t> rbits, const Exec& exec, Nvfp4Tensor& q, std::optional<float> x_amax) {
  q.grid = make_grid(rows, cols, o.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, 16);
  const float amax = o.global_amax ? *o.global_amax : x_amax ? *x_amax : amax_fast(x, AmaxNan::ignore, exec);
  q.amax = amax;
  q.global_scale = nvfp4_te_encode_scale(amax);
  float mul[256];  // nvfp4_te_element_scale of every block scale code
  for (int s = 0; s < 256; ++s) mul[s] = nvfp4_te_element_scale(static_cast<uint8_t>(s), q.global_scale, false);
  CastSpec spec;  // cvt.rn.satfinite.e2m1x2.f32 of x * multiplier
  spec.elem = Fmt::e2m1;
  ConvertOptions sat;
  sat.satfinite = true;
  spec.nan_code = static_cast<uint8_t>(convert(Fmt::f32, Fmt::e2m1, 0x7FFFFFFFu, sat).code);
  q.scales.resize(q.grid.scale_count());
  q.codes = big_vector<uint8_t>(x.size());
  uint8_t* scales = q.scales.data();
  const float g = q.global_scale;
  const bool div6 = o.order == Nvfp4Order::te_div6;
  auto block_rule = [&](size_t b0, const uint32_t* acc, size_t nb, float* m) {
    nvfp4_block_scales(acc, nb, g, div6, mul, scales + b0, m);
  };
  if (o.round != Round::rs) {
    quantize_blocks(x.data(), q.grid, AmaxNan::ignore, spec, q.codes.data(), exec, block_rule);
    return;
  }
  // cvt.rs.satfinite.e2m1x4.f32 as the scalar loop evaluates it (ptx_cvt_eval): the kernel
  // assumes its options are the ones it implements (8 random bits added to the truncated
  // fraction, satfinite); its NaN codes come from the conversion core.
  const Result<PtxCvt> cvt = parse_ptx_cvt("cvt.rs.satfinite.e2m1x4.f32");
  if (!cvt.ok()) throw std::logic_error("PTX catalog lacks cvt.rs.satfinite.e2m1x4.f32: " + cvt.error);
  const ConvertOptions& co = cvt.value.options;
  if (!co.satfinite || (co.rs_bits != 0 && co.rs_bits != 8) || co.rs_fraction != RsFraction::truncate || co.relu || co.ftz)
    throw std::logic_error("cvt.rs.satfinite.e2m1x4.f32 options differ from the fast stochastic cast's");
  const RsCast rs{rbits.data(), cols, o.rs_map, static_cast<uint8_t>(convert(Fmt::f32, Fmt::e2m1, 0x7FC00000u, co).code),
                  static_cast<uint8_t>(convert(Fmt::f32, Fmt::e2m1, 0xFFC00000u, co).code)};
  quantize_blocks(q.grid, AmaxNan::ignore, q.codes.data(), exec, block_rule, TensorRows{x.data(), cols}, rs);
}

std::vector<float> rht16_fast(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask, RhtOut out,
                              const Exec& exec, float* amax) {
  (void)rows;
  (void)cols;  // groups of 16 never straddle rows (cols is a multiple of 16)
  std::vector<float> y = big_vector<float>(x.size());
  const size_t groups = x.size() / 16;
  // With amax: each piece's largest |y| (NaN dropped) while the piece is still in the cache.
  std::vector<uint32_t> part(amax ? (groups + kTileElems - 1) / kTileElems : 0, 0u);
  for_each_range(groups, exec, [&](size_t g0, size_t g1) {
    thread_local std::vector<uint8_t> bad;
    bad.resize(g1 - g0);
    rht16_groups(x.data() + g0 * 16, y.data() + g0 * 16, g1 - g0, sign_mask, out == RhtOut::bf16, bad.data());
    for (size_t k = 0; k < g1 - g0; ++k) {
      if (!bad[k]) continue;
      // A group whose exact sum does not fit a double (or with NaN / Inf): the scalar rule.
      const size_t at = (g0 + k) * 16;
      const std::vector<float> r = rht16_scalar(x.subspan(at, 16), 1, 16, sign_mask, out, Exec{1});
      std::copy(r.begin(), r.end(), y.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (amax) part[g0 / kTileElems] = absmax_bits(y.data() + g0 * 16, (g1 - g0) * 16, AmaxNan::ignore);
  });
  if (amax) {
    uint32_t a = 0;
    for (uint32_t v : part) a = std::max(a, v);
    *amax = f32_from_bits(a);  // amax_fast(y, AmaxNan::ignore): the max over any split
  }
  return y;
}

}  // namespace tcemu::quant::detail
