// Internal: the block loop of the fast quantizers (quant_fast.hpp). The tensor is cut into the
// rectangles of quant_tiles.hpp (so every thread count gives the same bits, as in the scalar
// loops); in each rectangle, one block row at a time: the block amaxes (vectorised), one call of
// the scale rule per block, which stores the block's scale and returns its element multiplier,
// then every element cast from x * multiplier (vectorised).
#pragma once

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "quant_fast.hpp"
#include "quant_tiles.hpp"

namespace tcemu::quant::detail {

// Adapts a per-block scale rule, rule(b, amax) -> float (block b's multiplier from its amax;
// a NaN seen under propagate gives quiet_NaN, as in the scalar loops), to quantize_blocks'
// batches.
template <class Rule>
auto per_block(AmaxNan policy, Rule&& rule) {
  return [policy, &rule](size_t b0, const uint32_t* acc, size_t nb, float* mul) {
    for (size_t k = 0; k < nb; ++k) {
      const uint32_t a = acc[k];
      const float amax = policy == AmaxNan::propagate && a > 0x7F800000u ? std::numeric_limits<float>::quiet_NaN()
                                                                         : f32_from_bits(a);
      mul[k] = rule(b0 + k, amax);
    }
  };
}

// The rows of a rectangle as the block loop reads them: the tensor's own (rows of `cols`).
struct TensorRows {
  const float* x;
  size_t cols;
  // Row r0's elements from column t.c0 on, the following rows `stride` apart, for rows
  // [r0, r1) of rectangle t.
  std::pair<const float*, size_t> operator()(const Tile& t, size_t r0, size_t r1) const {
    (void)r1;
    return {x + r0 * cols + t.c0, cols};
  }
};

// The element cast of quantize_blocks: codes of one row piece of w elements from x times the
// multipliers mul, one per block of bw elements (bw 1: one per element).
struct RnCast {
  const CastSpec& spec;
  void operator()(size_t r, size_t c0, const float* x, const float* mul, size_t bw, size_t w, uint8_t* out) const {
    (void)r;
    (void)c0;
    scale_cast(x, mul, bw, w, out, spec);
  }
};

// batch_rule(b0, acc, nb, mul): the scales of blocks b0 .. b0 + nb - 1 (one block row of a
// rectangle) from their masked amax bits acc[0, nb), their multipliers into mul[0, nb).
// rows(t, r0, r1): where the block row's elements are (TensorRows, or a transformed copy);
// cast(r, c0, x, mul, bw, w, out): row r's codes from column c0 on (RnCast, or stochastic), the
// blocks' multipliers as they are (bw the block width, a multiple of 8: the kernels broadcast
// them) or one per element (bw 1).
template <class ScaleRule, class Rows, class Cast>
void quantize_blocks(const BlockGrid& g, AmaxNan policy, uint8_t* codes, const Exec& exec, ScaleRule&& batch_rule,
                     Rows&& rows, Cast&& cast) {
  const size_t cols = g.cols, bc_len = g.block_cols, br_len = g.block_rows;
  // Multipliers per block where that saves filling a per-element array: one-row blocks (the
  // array would serve one row) and wide ones (one broadcast per 64 or more elements); blocks of
  // several rows and few columns (16 x 16) fill the array once for all their rows.
  const bool per_block = bc_len % 8 == 0 && (br_len == 1 || bc_len >= 64);
  for_each_tile(g, exec, [&](const Tile& t) {
    thread_local std::vector<uint32_t> acc;
    thread_local std::vector<float> mul, bmul;
    const size_t w = t.c1 - t.c0;
    const size_t nb = (w + bc_len - 1) / bc_len;  // blocks across the rectangle
    const bool colwise = bc_len == 1;
    acc.resize(colwise ? w : nb);
    if (!per_block) mul.resize(w);
    bmul.resize(nb);
    for (size_t r0 = t.r0; r0 < t.r1; r0 += br_len) {
      const size_t r1 = std::min(t.r1, r0 + br_len);
      const auto [x, stride] = rows(t, r0, r1);
      std::fill(acc.begin(), acc.end(), 0u);
      for (size_t r = r0; r < r1; ++r) segment_absmax(x + (r - r0) * stride, w, bc_len, acc.data(), policy);
      const size_t b0 = (r0 / br_len) * g.scale_cols() + t.c0 / bc_len;
      batch_rule(b0, acc.data(), nb, bmul.data());
      const float* m = bmul.data();
      if (per_block) {
      } else if (colwise) {
        std::copy(bmul.begin(), bmul.begin() + static_cast<std::ptrdiff_t>(w), mul.begin());
        m = mul.data();
      } else {
        for (size_t k = 0; k < nb; ++k) {
          const size_t c0 = k * bc_len, c1 = std::min(w, c0 + bc_len);
          std::fill(mul.begin() + static_cast<std::ptrdiff_t>(c0), mul.begin() + static_cast<std::ptrdiff_t>(c1), bmul[k]);
        }
        m = mul.data();
      }
      const size_t bw = per_block ? bc_len : 1;
      for (size_t r = r0; r < r1; ++r) cast(r, t.c0, x + (r - r0) * stride, m, bw, w, codes + r * cols + t.c0);
    }
  });
}

// The tensor's own rows, cast rn.
template <class ScaleRule>
void quantize_blocks(const float* x, const BlockGrid& g, AmaxNan policy, const CastSpec& spec, uint8_t* codes,
                     const Exec& exec, ScaleRule&& batch_rule) {
  quantize_blocks(g, policy, codes, exec, batch_rule, TensorRows{x, g.cols}, RnCast{spec});
}

}  // namespace tcemu::quant::detail
