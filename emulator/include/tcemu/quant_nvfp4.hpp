// NVFP4: E2M1 elements in blocks of 16 with an E4M3 block scale, under a per-tensor f32 scale
// (two-level scaling), in TransformerEngine's arithmetic order and in torchao's; the 16-point
// random Hadamard transform TE applies before quantizing gradients; stochastic rounding with
// Philox random bits.
//
// Sources: TransformerEngine at commit d0067d0da6cb01811b8072a7d304f0e00344ce2b
// (`common/cast/nvfp4/core_nvfp4.cuh` compute_global_encode_scaling_factor_FP4 and
// compute_decoding_scaling_factor, `quantize_transpose_nvfp4.cuh`,
// `specialized/quantize_transpose_nvfp4_tuned_1D.cuh` with its fast-math coefficient and
// fma.rn.f32.bf16, `dequantize_nvfp4.cuh`; C++ test reference
// `tests/cpp/operator/test_cast_nvfp4_transpose.cu`); pytorch/ao at commit
// 36027d82d1ad9949597ea16002ff4940374b1b94 (`torchao/prototype/mx_formats/nvfp4_tensor.py`
// nvfp4_quantize, per_tensor_amax_to_scale, get_hp_scales); intel/auto-round v0.16.1
// (`auto_round/data_type/nvfp.py` nvfp4_v2, nvfp4_v2_with_global_scale, ref_fp4_quant,
// float_to_e5m3_frexp: NVFP4 with UE5M3 block scales). Details: docs/quantization.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/ptx_cvt.hpp"
#include "tcemu/quant.hpp"

namespace tcemu::quant {

enum class Nvfp4Order : uint8_t {
  te,              // TE now: sfb = e4m3(fminf(block_amax * (S_enc * (float)(1/6)), FLT_MAX))
  te_div6,         // TE's first NVFP4 kernels (3f5b47549): block_amax / 6 * S_enc
  torchao,         // torchao two-level: per_tensor = amax / 2688, sfb = e4m3(clamp(block_amax/6/per_tensor,
                   // 2^-6, 448)), element x * ((1 / per_tensor) / sfb) (since 5c0c81487, v0.17.0)
  torchao_single,  // torchao one-level: sfb = e4m3(clamp(block_amax / 6, 2^-6, 448)), element
                   // x * (1 / sfb), no tensor scale (since a302c10bb, v0.18.0)
  torchao_0_16,    // torchao <= v0.16.0 two-level: element x / (per_tensor * sfb)
  torchao_single_0_17,  // torchao <= v0.17.0 one-level: element x / sfb
  // intel/auto-round v0.16.1 NVFP4 with UE5M3 block scales (auto_round/data_type/nvfp.py):
  autoround_e5m3,     // nvfp4_v2: sfb = ue5m3(clip(block_amax * (float)(1/6), 0, 114688)), no tensor
                      // scale; element clamp(x / sfb + 0, -6, 6) (0 where sfb is 0), value q * sfb
  autoround_e5m3_gs,  // nvfp4_v2_with_global_scale: gs = 688128 * rcp(amax), sfb = ue5m3(clip(gs *
                      // (block_amax * (float)(1/6)), 0, 114688)), d = sfb * rcp(gs); element
                      // clamp(x / d + 0, -6, 6) (0 where d is 0), value q * d; rcp(0) = 0
};
std::optional<Nvfp4Order> parse_nvfp4_order(std::string_view s);
// te te-div6 torchao torchao-single torchao-0.16 torchao-single-0.17 autoround-e5m3 autoround-e5m3-gs
bool nvfp4_te_order(Nvfp4Order o);          // te, te-div6
bool nvfp4_autoround_order(Nvfp4Order o);   // autoround-e5m3, autoround-e5m3-gs
bool nvfp4_has_global(Nvfp4Order o);        // every order but the one-level torchao ones and autoround-e5m3
Fmt nvfp4_scale_fmt(Nvfp4Order o);          // the block scales' format: ue5m3 for auto-round, else e4m3
std::string_view to_string(Nvfp4Order o);

// How the transformed values are rounded (the exact sum of 16 terms is rounded once).
enum class RhtOut : uint8_t { bf16, f32 };

// The 16 signs of TE's default RHT, element i uses bit i: s = [1,1,1,-1,1,-1,-1,-1,-1,-1,-1,1,
// -1,1,-1,-1] (TE transformer_engine/pytorch/tensor/nvfp4_tensor.py at d0067d0); a set bit means -1.
inline constexpr uint16_t kTeRhtSignMask = 0b1101'0111'1110'1000;

// TransformerEngine's 4over6 block-scale choice (see "TransformerEngine's NVFP4 variants" below):
// off, or keep the candidate scale (map the block amax to 6 or to 4) with the smaller squared
// (min_mse) or absolute (min_mae) error.
enum class FourOverSix : uint8_t { off, min_mse, min_mae };
std::optional<FourOverSix> parse_four_over_six(std::string_view s);  // off, mse, mae
std::string_view to_string(FourOverSix f);

struct Nvfp4Options {
  Nvfp4Order order = Nvfp4Order::te;
  bool tile2d = false;      // 16x16 blocks (TE for weights) instead of 1x16 along rows
  bool fast_math = false;   // TE use_fast_math: only TE's tuned 1D kernel (bf16 input, 1x16) reads
                            // it: coefficient bf16(fminf(S_enc / sfb, bf16 max)), element
                            // fma.rn.f32.bf16(x, coef, +0); other inputs and 16x16 ignore it
  Fmt input = Fmt::f32;     // the input's format (f32, f16, bf16): selects TE's kernel
  // TE's C++ test reference (tests/cpp/operator/test_cast_nvfp4_transpose.cu, quantize_nvfp4_1d)
  // instead of its kernels, where the two disagree: a block scale of 0 gives multiplier 0 (the
  // kernels: FLT_MAX); with fast_math (any input) S_enc is capped at bf16 max and the multiplier
  // is bf16(fminf(1 / (sfb * (1 / S_enc)), FLT_MAX)) applied by a plain f32 multiply (the tuned
  // kernel: bf16(fminf(S_enc / sfb, bf16 max)) and fma with +0). Order te, 1x16 only.
  bool te_test_reference = false;
  Round round = Round::rn;  // rn, or rs (cvt.rs.satfinite.e2m1x4.f32; one random word per 4 elements)
  RsBitMap rs_map = RsBitMap::ptx_doc;
  std::optional<float> global_amax;  // the tensor amax behind the per-tensor scale (default: computed)
  bool rht = false;         // transform each row's 16-element groups with diag(s) H16 / 4 first
  uint16_t rht_signs = kTeRhtSignMask;
  RhtOut rht_out = RhtOut::bf16;
  // TE's variants (order te, rn, no rht / fast_math / te_test_reference; nvfp4_te_variant_error):
  FourOverSix four_over_six = FourOverSix::off;  // 4over6 block scales (1x16, or 16x16 with tile2d)
  bool row_scaled = false;  // one amax and S_enc per row (1x16 only, no global_amax)
  int e4m3_max = 448;       // the E4M3 bound of S_enc: 448, or 256 with 4over6
  bool err_fast_math = false;  // 4over6: TE's NVTE_NVFP4_4OVER6_ERR_USE_FAST_MATH error (Nvfp4TeVariant)
  // Elements per block along a row: 16, or 32 for the auto-round orders (auto-round's group_size
  // 32, nvfp4_v2's own default; its NVFP4_E5M3 scheme uses 16). The last block of a row may be
  // shorter (auto-round pads it with zeros; a row shorter than the block is one block).
  size_t block = 16;
  bool operator==(const Nvfp4Options&) const = default;
};

struct Nvfp4Tensor {
  BlockGrid grid;
  Nvfp4Order order = Nvfp4Order::te;
  std::vector<uint8_t> codes;   // E2M1 codes, one per byte, in the input's layout
  std::vector<uint8_t> scales;  // block scale codes (nvfp4_scale_fmt(order)), grid.scale_count()
  float global_scale = 1.0f;    // te: S_enc (2688 / amax); torchao: per_tensor_scale (amax / 2688);
                                // autoround-e5m3-gs: gs (688128 * rcp(amax)); 1 where there is none
  float amax = 0.0f;            // the tensor amax the global scale came from
  // Row-scaled (Nvfp4Options::row_scaled): each row's amax and S_enc (global_scale and amax then
  // unused); empty otherwise.
  std::vector<float> row_amax, row_scale;
  int e4m3_max = 448;           // S_enc = e4m3_max * 6 / amax (256: TE's 4over6 option)
};

// NVFP4 dequantization.
enum class Nvfp4Dequant : uint8_t {
  tcemu,      // te orders: elem * sfb * (1/S_enc), left to right; torchao: elem * (per_tensor * sfb);
              // auto-round: elem * (sfb * rcp(gs)) (gs 1 for autoround-e5m3), auto-round's own order
  te_kernel,  // TransformerEngine dequantize_fp4_kernel (te orders): final = (sfb * amax) *
              // (float)(1/(6*448)), then elem * final, all f32; needs the tensor amax
};
std::optional<Nvfp4Dequant> parse_nvfp4_dequant(std::string_view s);  // tcemu te
std::string_view to_string(Nvfp4Dequant d);

// TE's per-tensor encode scale: 2688 / amax, at most FLT_MAX; 1 when amax is 0 or the
// quotient is 0 (Inf amax). fminf drops a NaN quotient (NaN amax gives FLT_MAX).
float nvfp4_te_encode_scale(float amax);
// TE's block decode scale code (E4M3) and element multiplier.
uint8_t nvfp4_te_block_scale(float block_amax, float s_enc, Nvfp4Order order);
float nvfp4_te_element_scale(uint8_t sfb, float s_enc, bool fast_math);
// Whether TE's tuned fast-math path applies (fast_math, bf16 input, 1x16 blocks, a TE order).
bool nvfp4_te_fast_math_applies(const Nvfp4Options& o);

// With Round::rs, `rbits` holds one random word per group of 4 consecutive elements of a
// row (cols must then be a multiple of 4); element j of a group lands in field j from the low
// end of the cvt's packed result (so it is operand f, e, b, a for j = 0..3).
// Precondition: nvfp4_quantize_error(x.size(), rows, cols, o, rbits.size()) is empty (a size
// that is not rows * cols, a rounding other than rn/rs, options that do not go together, too
// few random words, rht with cols not a multiple of 16); std::invalid_argument with that
// message otherwise. quant::quantize (quant_recipe.hpp) returns the message instead.
std::string nvfp4_quantize_error(size_t n, size_t rows, size_t cols, const Nvfp4Options& o, size_t rbits);
// Empty when `block` is a block size order `o` has (16; 32 for the auto-round orders).
std::string nvfp4_block_error(Nvfp4Order o, size_t block);
// Whether o asks for one of TE's variants (4over6 or row-scaled: nvfp4_te_variant_quantize).
bool nvfp4_te_variant(const Nvfp4Options& o);
Nvfp4Tensor nvfp4_quantize(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                           std::span<const uint32_t> rbits = {});
// The same on thread_count(exec) threads (the plain call: Exec{}); the same bits for every count.
Nvfp4Tensor nvfp4_quantize(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                           std::span<const uint32_t> rbits, const Exec& exec);
// Nvfp4Dequant::tcemu: elem * sfb * (1/S_enc) for te (left to right, f32), elem * (per_tensor
// * sfb) for torchao; te_kernel: TE's kernel from q.amax.
// Precondition: nvfp4_dequantize_error(q, d) is empty (te_kernel with a torchao order, which TE
// does not produce); std::invalid_argument with that message otherwise.
std::string nvfp4_dequantize_error(const Nvfp4Tensor& q, Nvfp4Dequant d);
std::vector<float> nvfp4_dequantize(const Nvfp4Tensor& q, Nvfp4Dequant d = Nvfp4Dequant::tcemu);
std::vector<float> nvfp4_dequantize(const Nvfp4Tensor& q, Nvfp4Dequant d, const Exec& exec);

// diag(s) H16 / 4 applied to each group of 16 consecutive elements of each row (cols a
// multiple of 16): y_j = sum_i x_i s_i (-1)^popcount(i & j) / 4, summed exactly and rounded
// once (RN) to bf16 or f32. NaN or Inf - Inf gives NaN. Returned as f32 values.
// Precondition: rht16_error(x.size(), rows, cols) is empty; std::invalid_argument with that
// message otherwise.
std::string rht16_error(size_t n, size_t rows, size_t cols);
std::vector<float> rht16(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask = kTeRhtSignMask,
                         RhtOut out = RhtOut::bf16);
std::vector<float> rht16(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask, RhtOut out,
                         const Exec& exec);


// ---- TransformerEngine's NVFP4 variants at d0067d0 (docs/quantization.md, "TE 4over6 and
// row-scaled NVFP4") ---------------------------------------------------------------------------
// 4over6 (TE #2972, `common/cast/nvfp4/quantize_4over6_nvfp4.cuh`, rowwise 1x16, the exact
// error path, not err_use_fast_math): each block is quantized twice, with the scale mapping its
// amax to 6 (map6: e4m3(fminf(block_amax / 6 * S_enc, 448))) and to 4 (map4: 1.5 times that),
// elements cvt.rn.satfinite.e2m1(x * fminf(1 / (sfb * (1 / S_enc)), FLT_MAX)); each candidate's
// error sums, in element order, (((q * sfb) * amax) / (6 * e4m3_max) - x)^2 (min_mse) or its
// absolute value (min_mae) in f32; map4 is kept iff its error is smaller. S_enc =
// fminf(e4m3_max * 6 / amax, FLT_MAX) (1 for amax 0 or a 0 quotient), e4m3_max 448 or 256.
// Row-scaled NVFP4 (TE #2931, #3206, #3324): one tensor scale per row, from that row's amax
// (TE's dispatch: rowwise only, not with 16x16 blocks); without 4over6 the blocks are TE's
// (order te: nvfp4_te_block_scale, nvfp4_te_element_scale).

struct Nvfp4TeVariant {
  FourOverSix four_over_six = FourOverSix::off;
  bool row_scaled = false;
  int e4m3_max = 448;  // 256: only with 4over6 (TE: "Non-4over6 NVFP4 quantization requires E4M3 max 448")
  std::optional<float> amax;  // the tensor amax (not row-scaled; default: computed)
  // 16x16 blocks (4over6 only: TE's quantize_4over6<true>): the block amax over the 16 rows, one
  // scale per block, each row's 16-element error summed in element order and the 16 row errors
  // added as its warp shuffle tree does (reduce_group_sum_16: row r + row r+8, then +4, +2, +1).
  bool tile2d = false;
  // TE's NVTE_NVFP4_4OVER6_ERR_USE_FAST_MATH (accumulate_fp16_scaled_error_pair): each error
  // term is (q * sfb) - x * S_enc instead of ((q * sfb) * amax) / (6 * e4m3_max) - x, the
  // product from mul.rn.f16x2 (exact: a 2-bit E2M1 significand times a 4-bit E4M3 one, at most
  // 6 * 448), x * S_enc one f32 rounding; the terms are summed in the same element order.
  bool err_fast_math = false;
};

struct Nvfp4TeVariantTensor {
  size_t rows = 0, cols = 0;
  bool tile2d = false;
  std::vector<uint8_t> codes;        // E2M1 codes, row-major, one per byte
  std::vector<uint8_t> scales;       // E4M3 block scales, rows x (cols / 16) (tile2d: rows/16 x cols/16)
  std::vector<uint8_t> picked_map4;  // 4over6: 1 where the block took the map-to-4 scale (as scales)
  std::vector<float> amax;           // per row (row-scaled) or one value
  std::vector<float> s_enc;          // the encode scale of each amax
};

// Precondition: nvfp4_te_variant_error(...) is empty (cols a multiple of 16, e4m3_max 448 or
// 256 and 256 only with 4over6, row_scaled without amax, tile2d only with 4over6, not
// row-scaled, and rows a multiple of 16); std::invalid_argument otherwise. nvfp4_quantize runs
// these with Nvfp4Options::four_over_six / row_scaled / e4m3_max.
std::string nvfp4_te_variant_error(size_t n, size_t rows, size_t cols, const Nvfp4TeVariant& v);
Nvfp4TeVariantTensor nvfp4_te_variant_quantize(std::span<const float> x, size_t rows, size_t cols,
                                               const Nvfp4TeVariant& v);
// elem * sfb * (1 / S_enc of its row), left to right in f32.
std::vector<float> nvfp4_te_variant_dequantize(const Nvfp4TeVariantTensor& q);

}  // namespace tcemu::quant
