// NVFP4: E2M1 elements in blocks of 16 with an E4M3 block scale, under a per-tensor f32 scale
// (two-level scaling), in TransformerEngine's arithmetic order and in torchao's; the 16-point
// random Hadamard transform TE applies before quantizing gradients; stochastic rounding with
// Philox random bits.
//
// Sources: docs/quantization.md; TransformerEngine `common/cast/nvfp4/core_nvfp4.cuh`
// (compute_global_encode_scaling_factor_FP4, compute_decoding_scaling_factor) and its C++ test
// reference `tests/cpp/operator/test_cast_nvfp4_transpose.cu` (compute_scaling_coefficient with
// and without fast math); pytorch/ao `torchao/prototype/mx_formats/nvfp4_tensor.py`
// (nvfp4_quantize, per_tensor_amax_to_scale). Details and open points: docs/quantization.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tcemu/ptx_cvt.hpp"
#include "tcemu/quant.hpp"

namespace tcemu::quant {

enum class Nvfp4Order : uint8_t {
  te,              // TE now: sfb = e4m3(fminf(block_amax * (S_enc * (float)(1/6)), FLT_MAX))
  te_div6,         // TE before (and its transpose variant earlier): block_amax / 6 * S_enc
  torchao,         // torchao two-level: per_tensor = amax / 2688, sfb = e4m3(clamp(block_amax/6/per_tensor, 2^-6, 448))
  torchao_single,  // torchao one-level: sfb = e4m3(clamp(block_amax / 6, 2^-6, 448)), no tensor scale
};
std::optional<Nvfp4Order> parse_nvfp4_order(std::string_view s);  // te te-div6 torchao torchao-single
std::string_view to_string(Nvfp4Order o);

// How the transformed values are rounded (the exact sum of 16 terms is rounded once).
enum class RhtOut : uint8_t { bf16, f32 };

// The 16 signs of TE's default RHT, element i uses bit i: s = [1,1,1,-1,1,-1,-1,-1,-1,-1,-1,1,
// -1,1,-1,-1] (docs/quantization.md); a set bit means -1.
inline constexpr uint16_t kTeRhtSignMask = 0b1101'0111'1110'1000;

struct Nvfp4Options {
  Nvfp4Order order = Nvfp4Order::te;
  bool tile2d = false;      // 16x16 blocks (TE for weights) instead of 1x16 along rows
  bool fast_math = false;   // TE: element scale S_enc / sfb rounded to bf16 (else 1/(sfb*S_dec))
  Round round = Round::rn;  // rn, or rs (cvt.rs.satfinite.e2m1x4.f32; one random word per 4 elements)
  RsBitMap rs_map = RsBitMap::ptx_doc;
  std::optional<float> global_amax;  // the tensor amax behind the per-tensor scale (default: computed)
  bool rht = false;         // transform each row's 16-element groups with diag(s) H16 / 4 first
  uint16_t rht_signs = kTeRhtSignMask;
  RhtOut rht_out = RhtOut::bf16;
};

struct Nvfp4Tensor {
  BlockGrid grid;
  Nvfp4Order order = Nvfp4Order::te;
  std::vector<uint8_t> codes;   // E2M1 codes, one per byte, in the input's layout
  std::vector<uint8_t> scales;  // E4M3 block scale codes, grid.scale_count()
  float global_scale = 1.0f;    // te: S_enc (2688 / amax); torchao: per_tensor_scale (amax / 2688)
  float amax = 0.0f;            // the tensor amax the global scale came from
};

// NVFP4 dequantization.
enum class Nvfp4Dequant : uint8_t {
  tcemu,      // te orders: elem * sfb * (1/S_enc), left to right; torchao: elem * (per_tensor * sfb)
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

// With Round::rs, `rbits` holds one random word per group of 4 consecutive elements of a
// row (cols must then be a multiple of 4); element j of a group lands in field j from the low
// end of the cvt's packed result (so it is operand f, e, b, a for j = 0..3).
Nvfp4Tensor nvfp4_quantize(std::span<const float> x, size_t rows, size_t cols, const Nvfp4Options& o,
                           std::span<const uint32_t> rbits = {});
// Nvfp4Dequant::tcemu: elem * sfb * (1/S_enc) for te (left to right, f32), elem * (per_tensor
// * sfb) for torchao; te_kernel: TE's kernel from q.amax (std::invalid_argument for torchao
// orders, which TE does not produce).
std::vector<float> nvfp4_dequantize(const Nvfp4Tensor& q, Nvfp4Dequant d = Nvfp4Dequant::tcemu);

// diag(s) H16 / 4 applied to each group of 16 consecutive elements of each row (cols a
// multiple of 16): y_j = sum_i x_i s_i (-1)^popcount(i & j) / 4, summed exactly and rounded
// once (RN) to bf16 or f32. NaN or Inf - Inf gives NaN. Returned as f32 values.
std::vector<float> rht16(std::span<const float> x, size_t rows, size_t cols, uint16_t sign_mask = kTeRhtSignMask,
                         RhtOut out = RhtOut::bf16);

}  // namespace tcemu::quant
