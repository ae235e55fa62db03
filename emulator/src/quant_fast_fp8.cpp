// The fast FP8 scaling casts and dequantizers (quant_fast.hpp): current scaling's cast,
// blockwise FP8, and the table-driven dequantization of every recipe.
#include <algorithm>
#include <limits>
#include <vector>

#include "quant_fast.hpp"
#include "quant_fast_blocks.hpp"
#include "quant_tiles.hpp"

namespace tcemu::quant::detail {

namespace {

// cvt.rn.satfinite.{e4m3,e5m2}.f32 (fp8_cast); NaN gives the canonical NaN.
CastSpec fp8_spec(Fmt f) {
  CastSpec s;
  s.elem = f;
  ConvertOptions c;
  c.satfinite = true;
  s.nan_code = static_cast<uint8_t>(convert(Fmt::f32, f, 0x7FFFFFFFu, c).code);
  return s;
}

}  // namespace

std::vector<uint8_t> fp8_cast_fast(std::span<const float> x, float scale, Fmt f, const Exec& exec) {
  const CastSpec spec = fp8_spec(f);
  std::vector<uint8_t> out = big_vector<uint8_t>(x.size());
  for_each_range(x.size(), exec, [&](size_t b, size_t e) {
    scale_cast(x.data() + b, &scale, e - b, e - b, out.data() + b, spec);  // one multiplier for the range
  });
  return out;
}

void fp8_blockwise_fast(std::span<const float> x, size_t cols, bool pow2, float epsilon, float value_for_inf,
                        const Exec& exec, BlockwiseFp8& q) {
  (void)cols;
  const float max_fp8 = fp8_max(q.fmt);
  q.scale_inv.resize(q.grid.scale_count());
  q.codes = big_vector<uint8_t>(x.size());
  float* scale_inv = q.scale_inv.data();
  // fp8_blockwise's amax: m > a, so NaN does not count (AmaxNan::ignore).
  quantize_blocks(x.data(), q.grid, AmaxNan::ignore, fp8_spec(q.fmt), q.codes.data(), exec, per_block(AmaxNan::ignore, [&](size_t b, float amax) {
    const float s = te_scale_from_amax(amax, max_fp8, pow2, epsilon, value_for_inf);
    scale_inv[b] = 1.0f / s;
    return s;
  }));

}

std::vector<float> dequantize_by_table(const BlockGrid& g, std::span<const uint8_t> codes,
                                       std::span<const uint8_t> scales, uint32_t ncodes,
                                       float (*value)(const void* ctx, uint8_t code, uint8_t scale),
                                       const void* ctx, const Exec& exec, float* into) {
  // The scale codes that occur, then their rows of the table (on the threads).
  bool used[256] = {};
  for (uint8_t s : scales) used[s] = true;
  std::vector<uint8_t> list;
  for (int s = 0; s < 256; ++s)
    if (used[s]) list.push_back(static_cast<uint8_t>(s));
  std::vector<float> table(size_t{256} * ncodes);
  parallel_for(list.size(), exec, [&](size_t k) {
    const uint8_t s = list[k];
    for (uint32_t c = 0; c < ncodes; ++c) table[size_t{s} * ncodes + c] = value(ctx, static_cast<uint8_t>(c), s);
  });
  std::vector<float> storage = into ? std::vector<float>{} : big_vector<float>(codes.size());
  float* const out = into ? into : storage.data();
  const size_t cols = g.cols;
  for_each_tile(g, exec, [&](const Tile& t) {
    const size_t w = t.c1 - t.c0;
    for (size_t r0 = t.r0; r0 < t.r1; r0 += g.block_rows) {
      const size_t r1 = std::min(t.r1, r0 + g.block_rows);
      const uint8_t* sc = scales.data() + (r0 / g.block_rows) * g.scale_cols() + t.c0 / g.block_cols;
      for (size_t r = r0; r < r1; ++r) {
        const size_t i0 = r * cols + t.c0;
        if (gather_blocks(codes.data() + i0, w, g.block_cols, sc, table.data(), ncodes, out + i0))
          for (size_t c = 0; c < w; ++c)  // codes outside the format: value itself
            if (codes[i0 + c] >= ncodes) out[i0 + c] = value(ctx, codes[i0 + c], sc[c / g.block_cols]);
      }
    }
  });
  return storage;
}

std::vector<float> fp8_dequantize_fast(std::span<const uint8_t> codes, float scale_inv, Fmt f, const Exec& exec,
                                       float* into) {
  float vtab[256];
  for (int c = 0; c < 256; ++c) vtab[c] = code_to_f32(f, static_cast<uint64_t>(c));
  std::vector<float> storage = into ? std::vector<float>{} : big_vector<float>(codes.size());
  float* const out = into ? into : storage.data();
  for_each_range(codes.size(), exec,
                 [&](size_t b, size_t e) { gather_mul(codes.data() + b, e - b, vtab, scale_inv, out + b); });
  return storage;
}

std::vector<float> fp8_blockwise_dequantize_fast(const BlockGrid& g, Fmt fmt, std::span<const uint8_t> codes,
                                                 std::span<const float> scale_inv, const Exec& exec,
                                                 float* into) {
  float vtab[256];
  for (int c = 0; c < 256; ++c) vtab[c] = code_to_f32(fmt, static_cast<uint64_t>(c));
  std::vector<float> storage = into ? std::vector<float>{} : big_vector<float>(codes.size());
  float* const out = into ? into : storage.data();
  for_each_tile(g, exec, [&](const Tile& t) {
    for (size_t r = t.r0; r < t.r1; ++r)
      for (size_t c0 = t.c0; c0 < t.c1; c0 += g.block_cols) {
        const size_t n = std::min(t.c1, c0 + g.block_cols) - c0, i = r * g.cols + c0;
        gather_mul(codes.data() + i, n, vtab, scale_inv[g.scale_index(r, c0)], out + i);
      }
  });
  return storage;
}

}  // namespace tcemu::quant::detail
