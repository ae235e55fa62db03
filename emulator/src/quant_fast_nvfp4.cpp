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

// The rows of a rectangle from a bf16 copy of the tensor (rht16_bf16_fast's), widened to f32
// (exact) into a buffer of the thread, one block row at a time.
struct Bf16Rows {
  const uint16_t* y;
  size_t cols;
  std::pair<const float*, size_t> operator()(const Tile& t, size_t r0, size_t r1) const {
    thread_local std::vector<float> buf;
    const size_t w = t.c1 - t.c0;
    buf.resize(w * (r1 - r0));
    for (size_t r = r0; r < r1; ++r) bf16_to_f32(y + r * cols + t.c0, w, buf.data() + (r - r0) * w);
    return {buf.data(), w};
  }
};

// nvfp4_quantize_fast on the rows `src` gives (TensorRows or Bf16Rows) of a tensor of n
// elements; amax_of() is called for the tensor amax when neither o.global_amax nor x_amax is set.
template <class Rows, class AmaxOf>
void nvfp4_quantize_rows(Rows src, AmaxOf&& amax_of, size_t n, size_t rows, size_t cols, const Nvfp4Options& o,
                         std::span<const uint32_t> rbits, const Exec& exec, Nvfp4Tensor& q, std::optional<float> x_amax) {
  q.grid = make_grid(rows, cols, o.tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, 16);
  const float amax = o.global_amax ? *o.global_amax : x_amax ? *x_amax : amax_of();
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
  q.codes = big_vector<uint8_t>(n);
  uint8_t* scales = q.scales.data();
  const float g = q.global_scale;
  const bool div6 = o.order == Nvfp4Order::te_div6;
  auto block_rule = [&](size_t b0, const uint32_t* acc, size_t nb, float* m) {
    nvfp4_block_scales(acc, nb, g, div6, mul, scales + b0, m);
  };
  if (o.round != Round::rs) {
    quantize_blocks(q.grid, AmaxNan::ignore, q.codes.data(), exec, block_rule, src, RnCast{spec});
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
  quantize_blocks(q.grid, AmaxNan::ignore, q.codes.data(), exec, block_rule, src, rs);
}

}  // namespace

void nvfp4_quantize_fast(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                         std::span<const uint32_t> rbits, const Exec& exec, Nvfp4Tensor& q, std::optional<float> x_amax) {
  nvfp4_quantize_rows(TensorRows{x.data(), cols}, [&] { return amax_fast(x, AmaxNan::ignore, exec); }, x.size(), rows, cols,
                      o, rbits, exec, q, x_amax);
}

void nvfp4_quantize_fast_bf16(std::span<const uint16_t> y, size_t rows, size_t cols, const Nvfp4Options& o,
                              std::span<const uint32_t> rbits, const Exec& exec, Nvfp4Tensor& q, std::optional<float> y_amax) {
  auto amax_of = [&] {  // only without either amax (callers pass one): the widened rows' max
    std::vector<float> wide(y.size());
    bf16_to_f32(y.data(), y.size(), wide.data());
    return amax_fast(wide, AmaxNan::ignore, exec);
  };
  nvfp4_quantize_rows(Bf16Rows{y.data(), cols}, amax_of, y.size(), rows, cols, o, rbits, exec, q, y_amax);
}

std::vector<uint16_t> rht16_bf16_fast(std::span<const float> x, uint16_t sign_mask, const Exec& exec, float* amax) {
  std::vector<uint16_t> y = big_vector<uint16_t>(x.size());
  const size_t groups = x.size() / 16;
  std::vector<uint32_t> part(amax ? (groups + kTileElems - 1) / kTileElems : 0, 0u);
  for_each_range(groups, exec, [&](size_t g0, size_t g1) {
    // Chunks of 256 groups through an f32 buffer that stays in L1: the kernel, the scalar rule
    // for its bad groups, the chunk's amax, then the bf16 bits (the results are bf16 values).
    constexpr size_t kChunk = 256;
    thread_local std::vector<float> f;
    thread_local std::vector<uint8_t> bad;
    f.resize(kChunk * 16);
    bad.resize(kChunk);
    uint32_t m = 0;
    for (size_t c0 = g0; c0 < g1; c0 += kChunk) {
      const size_t ng = std::min(kChunk, g1 - c0);
      rht16_groups(x.data() + c0 * 16, f.data(), ng, sign_mask, true, bad.data());
      for (size_t k = 0; k < ng; ++k) {
        if (!bad[k]) continue;
        const std::vector<float> r = rht16_scalar(x.subspan((c0 + k) * 16, 16), 1, 16, sign_mask, RhtOut::bf16, Exec{1});
        std::copy(r.begin(), r.end(), f.begin() + static_cast<std::ptrdiff_t>(k * 16));
      }
      if (amax) m = std::max(m, absmax_bits(f.data(), ng * 16, AmaxNan::ignore));
      f32_to_bf16_bits(f.data(), ng * 16, y.data() + c0 * 16);
    }
    if (amax) part[g0 / kTileElems] = m;
  });
  if (amax) {
    uint32_t a = 0;
    for (uint32_t v : part) a = std::max(a, v);
    *amax = f32_from_bits(a);
  }
  return y;
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
