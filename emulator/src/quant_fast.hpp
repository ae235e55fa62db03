// Internal: the fast quantizers. The scalar rules of quant_mx.cpp, quant_nvfp4.cpp and
// quant_scaling.cpp stay the definition; these compute the same bits with the per-element work
// vectorised (quant_fast_kernels.cpp, built for AVX-512, AVX2 and baseline x86-64 like the
// conversion kernels they cast with, converter_kernels.hpp) and the per-block scale rules either
// called as they are or, where those go through the scalar conversion core, written out on the
// bits (tested against the scalar rules by tests/quant/fast_test.cpp). The entry points of
// quant.hpp, quant_nvfp4.hpp and quant_scaling.hpp call them when *_fast_applies says the options
// are covered; every other option combination runs the scalar rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "tcemu/parallel.hpp"
#include "tcemu/ptx_cvt.hpp"
#include "tcemu/quant.hpp"
#include "tcemu/quant_nvfp4.hpp"
#include "tcemu/quant_scaling.hpp"

namespace tcemu::quant::detail {

// For tests and benchmarks: false runs every quantizer on its scalar rules. Default true.
void set_fast_quant(bool on);
bool fast_quant_enabled();

// A zeroed vector of n elements whose pages, when it is large, are asked to be huge ones first
// (quant_fast_memory.cpp): the results of the fast paths.
void advise_huge_pages(const void* p, size_t bytes);
template <class T>
std::vector<T> big_vector(size_t n) {
  std::vector<T> v;
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  v.resize(n);
  return v;
}

// --- Kernels (quant_fast_kernels.cpp), each dispatched on detail::convert_isa().

// The largest |x| of x[0, n) under the NaN policy, as f32 bits: propagate keeps NaN bits (any
// result above 0x7F800000 means a NaN was seen), ignore drops NaN, ignore_nonfinite drops NaN
// and Inf. An empty range gives 0.
uint32_t absmax_bits(const float* x, size_t n, AmaxNan policy);
// acc[k] = max(acc[k], absmax_bits of segment k of x[0, n)), segments of `seg` elements (the
// last may be shorter); seg 1 is the element-wise max.
void segment_absmax(const float* x, size_t n, size_t seg, uint32_t* acc, AmaxNan policy);

// How a scaled element becomes a code: the f32 product x * mul, a NaN product gives nan_code,
// else (clamp: first clamped to [-max, max], torch.clamp) cvt.rn.satfinite into elem
// (e4m3, e5m2, e3m2, e2m3 or e2m1).
struct CastSpec {
  Fmt elem = Fmt::e4m3;
  bool clamp = false;
  float max = 0.0f;
  uint8_t nan_code = 0;
};
// out[i] = cast(x[i] * m_i), m_i = mul[i / bw]: one multiplier per element (bw 1) or per block
// of bw consecutive elements.
void scale_cast(const float* x, const float* mul, size_t bw, size_t n, uint8_t* out, const CastSpec& s);
// out[i] = cvt.rs.satfinite.e2m1(x[i] * mul[i / bw]) with element i's random byte of word
// rbits[i / 4] under `map` (ptx_cvt_eval's e2m1x4 split), a NaN product nan_pos or nan_neg
// by its sign; n a multiple of 4.
void scale_cast_rs_e2m1(const float* x, const float* mul, size_t bw, size_t n, const uint32_t* rbits, RsBitMap map,
                        uint8_t nan_pos, uint8_t nan_neg, uint8_t* out);
// out[i] = table[sc[i / bw] * ncodes + codes[i]] for one row piece of w elements in blocks of
// bw columns (sc: the blocks' scale codes) where codes[i] < ncodes (a power of two up to 256);
// returns whether some code was not (those outputs are left for the caller).
bool gather_blocks(const uint8_t* codes, size_t w, size_t bw, const uint8_t* sc, const float* table, uint32_t ncodes,
                   float* out);
// out[i] = vtab[codes[i]] * s (f32 multiply; with two NaN operands the first, quieted, as the
// scalar loops' x86 multiply gives it); vtab has 256 entries.
void gather_mul(const uint8_t* codes, size_t n, const float* vtab, float s, float* out);
// nvfp4_te_block_scale(amax, s_enc, te_div6 or te) of nb block amaxes given as f32 bits into
// codes (the same products, cvt.rn.satfinite.e4m3 by the conversion kernel), and
// mul[k] = mul_tab[codes[k]].
void nvfp4_block_scales(const uint32_t* amax, size_t nb, float s_enc, bool div6, const float* mul_tab, uint8_t* codes,
                        float* mul);
// out[i] = the f32 of bf16 bits in[i] (exact); the bf16 bits of f32 bf16 values (the high
// halves).
void bf16_to_f32(const uint16_t* in, size_t n, float* out);
void f32_to_bf16_bits(const float* in, size_t n, uint16_t* out);
// The 16-point RHT of `groups` groups of 16 (quant_nvfp4.hpp rht16) in double, where the exact
// sum is representable: every input finite and the exponents of its nonzero inputs within 25
// binades, then one rounding to bf16 or f32. bad[g] = 1 for a group outside that (y left for the
// caller), else 0.
void rht16_groups(const float* x, float* y, size_t groups, uint16_t sign_mask, bool bf16, uint8_t* bad);

// --- Scale rules on the bits (quant_fast_mx.cpp).

// e8m0_round_up(d, satfinite) (cvt.rp{.satfinite}.ue8m0.f32) of d >= 0 or NaN.
inline uint8_t e8m0_round_up_bits(float d, bool satfinite) {
  // UE8M0 holds 2^(c - 127) for c in 0..254, 0xFF is NaN. Rounding up: the power of two at or
  // above d; d at or below 2^-127 (0 included) gives 0; above 2^127: satfinite 0xFE, else 0xFF.
  uint32_t b;
  std::memcpy(&b, &d, sizeof b);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0xFF;  // NaN
  const uint32_t field = b >> 23, man = b & 0x7FFFFF;
  uint32_t c;
  if (field == 0) c = man > 0x400000u ? 1 : 0;  // subnormal: 2^-127 is man 0x400000
  else c = field + (man != 0 ? 1 : 0);          // Inf: 256
  if (c > 254) return satfinite ? 0xFE : 0xFF;
  return static_cast<uint8_t>(c);
}
// The rceil scale rule of a block row (mx_quantize_fast): block k's amax from its masked bits
// acc[k] (above Inf: a NaN seen, under propagate), codes[k] = e8m0_round_up_bits(amax * rcp,
// sat), mul[k] = mul_tab[codes[k]].
void mx_rceil_block_scales(const uint32_t* acc, size_t nb, bool propagate, float rcp, bool sat, const float* mul_tab,
                           uint8_t* codes, float* mul);
// The same for torchao to_mx's floor, ceil and even rules (variant current, mx_scale_code's
// integer work on the amax bits): mode 0 floor, 1 ceil, 2 even; emax the element format's
// mx_emax, even_add mx_scale_code's rounding addend for even.
void mx_tomx_block_scales(const uint32_t* acc, size_t nb, bool propagate, int mode, int emax, uint32_t even_add,
                          const float* mul_tab, uint8_t* codes, float* mul);

// --- Whole-tensor fast paths. Each *_applies is false when fast_quant_enabled() is.

// mx_amax(values, policy, exec).
float amax_fast(std::span<const float> values, AmaxNan policy, const Exec& exec);

// Covered: elements e4m3, e5m2, e3m2, e2m3, e2m1 rounded rn; scale rceil-sat (variants
// current and te-2.12), rceil, floor, ceil and even (variant current, floor path to_mx); every
// block size and axis, NaN policy and element cast. Not covered: s8, rna/rz/rs, rceil-legacy,
// variant torchao-0.18, floor path cuda.
bool mx_fast_applies(const MxOptions& o);
// q.grid and q.elem set; fills q.codes and q.scales (sized here).
void mx_quantize_fast(std::span<const float> x, const MxOptions& o, const Exec& exec, MxTensor& q);

// Covered: orders te and te-div6, 1x16 and 16x16 blocks, rn and rs (either random-bit map),
// with or without the RHT (either output), a given or computed tensor amax, fast_math where it
// does not apply (f32/f16 input or 16x16). Not covered: the torchao orders, te_test_reference,
// TE's tuned fast-math kernel, and any option added later (the comparison with the covered
// fields, nvfp4_fast_applies).
bool nvfp4_fast_applies(const Nvfp4Options& o);
// x already transformed when o.rht; rbits: one word per 4 elements with rs; x_amax: x's amax
// under AmaxNan::ignore when already known (rht16_fast's), used without o.global_amax; sets
// everything in q but q.order.
void nvfp4_quantize_fast(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                         std::span<const uint32_t> rbits, const Exec& exec, Nvfp4Tensor& q,
                         std::optional<float> x_amax = std::nullopt);
// nvfp4_quantize_fast of a tensor held as bf16 bits (rht16_bf16_fast's copy, half the
// memory of f32), its rows widened as the block loop reads them; y_amax: as x_amax.
void nvfp4_quantize_fast_bf16(std::span<const uint16_t> y, size_t rows, size_t cols, const Nvfp4Options& o,
                              std::span<const uint32_t> rbits, const Exec& exec, Nvfp4Tensor& q,
                              std::optional<float> y_amax);
// rht16(x, rows, cols, sign_mask, RhtOut::bf16, exec) as bf16 bits (the results are bf16
// values), with amax its amax under AmaxNan::ignore.
std::vector<uint16_t> rht16_bf16_fast(std::span<const float> x, uint16_t sign_mask, const Exec& exec, float* amax);
// rht16(x, rows, cols, sign_mask, out, exec) (cols a multiple of 16), and the scalar rule it
// falls back to for groups outside the double's reach (quant_nvfp4.cpp). With amax, also the
// result's amax under AmaxNan::ignore (amax_fast's), taken piece by piece as it is written.
std::vector<float> rht16_fast(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask, RhtOut out,
                              const Exec& exec, float* amax = nullptr);

std::vector<float> rht16_scalar(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask, RhtOut out,
                                const Exec& exec);

// fp8_cast(x, scale, f, exec) for e4m3 / e5m2.
std::vector<uint8_t> fp8_cast_fast(std::span<const float> x, float scale, Fmt f, const Exec& exec);
// fp8_blockwise's codes and scales (q.grid and q.fmt set) from value_for_inf and the options.
void fp8_blockwise_fast(std::span<const float> x, size_t cols, bool pow2, float epsilon, float value_for_inf,
                        const Exec& exec, BlockwiseFp8& q);

// --- Dequantization (quant_fast_fp8.cpp).

// Every dequantizer below takes `into`: nullptr returns the values in a new vector; else they
// are written to into[0, codes.size()) (the caller's buffer, which nothing else touches) and
// the returned vector is empty.
//
// value(code, scale) for every element of a block-scaled tensor, from a table of value over
// (scale, code < ncodes) for the scales that occur (built on the threads), codes >= ncodes by
// value itself. `value` must be a pure function: the result is then the scalar loop's.
std::vector<float> dequantize_by_table(const BlockGrid& g, std::span<const uint8_t> codes,
                                       std::span<const uint8_t> scales, uint32_t ncodes,
                                       float (*value)(const void* ctx, uint8_t code, uint8_t scale),
                                       const void* ctx, const Exec& exec, float* into = nullptr);
// code_to_f32(f, code) * scale_inv per element (fp8_dequantize).
std::vector<float> fp8_dequantize_fast(std::span<const uint8_t> codes, float scale_inv, Fmt f, const Exec& exec,
                                       float* into = nullptr);
// fp8_blockwise_dequantize of codes and scale_inv in grid g (q's, or a recipe's Quantized
// read in place).
std::vector<float> fp8_blockwise_dequantize_fast(const BlockGrid& g, Fmt fmt, std::span<const uint8_t> codes,
                                                 std::span<const float> scale_inv, const Exec& exec,
                                                 float* into = nullptr);
inline std::vector<float> fp8_blockwise_dequantize_fast(const BlockwiseFp8& q, const Exec& exec) {
  return fp8_blockwise_dequantize_fast(q.grid, q.fmt, q.codes, q.scale_inv, exec);
}
// mx_dequantize's fast path (element formats up to 8 bits) of codes and scales in grid g.
std::vector<float> mx_dequantize_fast(const BlockGrid& g, Fmt elem, std::span<const uint8_t> codes,
                                      std::span<const uint8_t> scales, MxDequant d, const Exec& exec,
                                      float* into = nullptr);
// nvfp4_dequantize(q, d, exec) with q's codes and scales given apart (q's own, or a recipe's
// Quantized read in place; q.codes and q.scales unused). Precondition: nvfp4_dequantize_error
// of q is empty and the spans have q.grid's sizes.
std::vector<float> nvfp4_dequantize_view(const Nvfp4Tensor& q, std::span<const uint8_t> codes,
                                         std::span<const uint8_t> scales, Nvfp4Dequant d, const Exec& exec,
                                         float* into = nullptr);

}  // namespace tcemu::quant::detail
