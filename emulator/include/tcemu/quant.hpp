// Block-scaled quantization (OCP MX): tensors cut into blocks that share one UE8M0 scale,
// elements converted to a narrow format, in the arithmetic order of the implementation a
// scale mode is named after, so that codes and scales match it bit for bit.
//
// Sources: OCP Microscaling Formats (MX) v1.0; NVIDIA TransformerEngine at commit
// d0067d0da6cb01811b8072a7d304f0e00344ce2b (`common/cast/mxfp8/quantize_mxfp8.cuh`,
// `dequantize_mxfp8.cuh`, `common/util/ptx.cuh` exp2f_rcp / exp2f, `ptx_arch_spec.cuh`
// float_to_e8m0); pytorch/ao at commit 36027d82d1ad9949597ea16002ff4940374b1b94
// (`torchao/prototype/mx_formats/mx_tensor.py` to_mx, _to_mx_rceil, _f32_to_e8m0_rceil,
// _e8m0_scale_to_reciprocal_fp32, get_fp_scale; `torchao/prototype/custom_fp_utils.py`).
// Written out in docs/quantization.md. Everything here is plain arithmetic: no I/O. Whole-tensor
// calls spread rectangles of whole blocks over threads (tcemu/parallel.hpp): the same bits for
// every thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/convert.hpp"
#include "tcemu/format.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu::quant {

// Which elements share a scale. Tensors are 2-D, row-major (leading dimensions folded into
// rows); a block of the last row or column may be partial (its amax covers what exists).
enum class BlockAxis : uint8_t {
  rowwise,     // 1 x B along a row (TE "rowwise", torchao's last dimension)
  columnwise,  // B x 1 down a column (TE "colwise": the copy used by wgrad/dgrad GEMMs)
  tile2d,      // B x B tiles
};
std::optional<BlockAxis> parse_block_axis(std::string_view s);  // row, col, 2d
std::string_view to_string(BlockAxis a);

// Blocks of a rows x cols tensor; scales are stored row-major [scale_rows][scale_cols].
struct BlockGrid {
  size_t rows = 0, cols = 0;
  size_t block_rows = 1, block_cols = 1;
  // Ceiling divisions that do not overflow for a block near 2^64 (rows + block - 1 would).
  size_t scale_rows() const { return rows / block_rows + (rows % block_rows != 0); }
  size_t scale_cols() const { return cols / block_cols + (cols % block_cols != 0); }
  size_t scale_count() const { return scale_rows() * scale_cols(); }
  size_t scale_index(size_t r, size_t c) const { return (r / block_rows) * scale_cols() + c / block_cols; }
};
// Precondition: block > 0 (std::invalid_argument "block size must be positive" otherwise).
BlockGrid make_grid(size_t rows, size_t cols, BlockAxis axis, size_t block);

// How the shared scale is chosen from the block's amax.
enum class MxScaleMode : uint8_t {
  floor,      // OCP MX v1.0 / torchao FLOOR: exponent field of amax minus emax_elem; a
              // non-finite amax gives 0xFF; elements x * 2^(127-e) (the reciprocal built from bits)
  rceil_sat,  // TransformerEngine / cuBLAS: cvt.rp.satfinite.ue8m0(amax * (float)(1/max_elem));
              // elements x * exp2f_rcp(e)
  rceil,      // torchao RCEIL: cvt.rp.ue8m0 without satfinite of amax * (float)(1/max_elem)
              // (> 2^127, Inf, NaN give 0xFF); elements x * 2^(127-e) (0xFF: NaN)
  rceil_legacy,  // torchao <= v0.18.0 _to_mx_rceil: clamp(ceil(log2(amax / max_elem)), -127,
                 // 127) + 127 (NaN 0xFF, Inf 0xFE); elements x * (e == 0 ? 1 : 2^(127-e))
  ceil,       // torchao CEIL: exponent of amax, +1 when its f32 fraction is nonzero
  even,       // torchao EVEN: amax rounded (half up) to the element's mantissa width first
};
std::optional<MxScaleMode> parse_mx_scale_mode(std::string_view s);  // floor rceil-sat rceil rceil-legacy ceil even
std::string_view to_string(MxScaleMode m);

// A NaN inside a block, when the amax is taken.
enum class AmaxNan : uint8_t {
  propagate,  // torch.amax: the amax is NaN (torchao: the scale becomes 0xFF)
  ignore,     // fmaxf: NaN elements do not count (TransformerEngine kernels)
  ignore_nonfinite,  // only finite elements count (TE kernels that test isfinite(elt) first)
};

// The final cast of a scaled element.
enum class ElemCast : uint8_t {
  ptx,    // cvt.rn.satfinite.<elem>.f32: NaN -> canonical NaN (e4m3/e5m2 0x7f), or +MAX (FP6/FP4)
  torch,  // PyTorch / torchao: clamp to +-MAX first, then FP8 c10 cast (RNE, no saturation,
          // NaN keeps its sign: 0x7f|sign) or torchao's FP6/FP4 bit-trick cast
          // (custom_fp_utils.py: RNE, saturating; a NaN takes its normal branch, which for the
          // GPU's NaN 0x7FFFFFFF gives e2m1 0x4, e3m2/e2m3 0x10)
};

// torchao's legacy RCEIL computes ceil(torch.log2(descale)) in f32. `exact` takes the true ceil(log2)
// (what cvt.rp.ue8m0 does); `f32_log2` first rounds log2 to f32 (correctly rounded), which
// turns 2^k(1+tiny) into k for |k| >= 4 and can then saturate an element.
enum class RceilLog2 : uint8_t { exact, f32_log2 };

// Which release of the implementation a scale mode follows. `current` is the upstream arithmetic
// at the commits named above; the others keep an older release's arithmetic for users who still
// run it (docs/quantization.md names the ranges).
enum class MxVariant : uint8_t {
  current,
  torchao_0_18,  // floor/ceil/even in torchao <= v0.18.0: x / max(2^(e-127), 2^-126) (code 0
                 // divides by 2^-126, 0xFF by Inf), an Inf amax gives a finite scale
  te_2_12,       // rceil-sat in TransformerEngine <= v2.12: exp2f_rcp gives 1 for code 0, +0
                 // for 0xFE and the bits 0xFF800000 (-Inf) for 0xFF
};
std::optional<MxVariant> parse_mx_variant(std::string_view s);  // current torchao-0.18 te-2.12
std::string_view to_string(MxVariant v);

// torchao computes FLOOR in two places that disagree in one corner: to_mx (Python, the
// default) reads the exponent field of amax; its CUDA MXFP8 kernel (torchao/csrc/cuda/
// mx_kernels/mxfp8_quantize.cuh, e4m3 only) computes cvt.rz.ue8m0 (no saturation) of the f32
// product amax * 2^-8, whose rounding into the f32 subnormal range can carry into the next
// power of two (amax 0x047FFFFF: to_mx scale 0, the kernel 1).
enum class TorchaoFloorPath : uint8_t { to_mx, cuda };
std::optional<TorchaoFloorPath> parse_torchao_floor_path(std::string_view s);  // to_mx cuda
std::string_view to_string(TorchaoFloorPath p);

// The largest block the MX rules take (the golden files' bound too): a block beyond 2^20
// elements is a mistake, and a bound keeps every index computation far from overflow.
inline constexpr size_t kMaxMxBlock = size_t{1} << 20;

struct MxOptions {
  Fmt elem = Fmt::e4m3;  // e4m3 e5m2 e3m2 e2m3 e2m1, or s8 (MXINT8: implicit 2^-6)
  size_t block = 32;     // 1 .. kMaxMxBlock
  BlockAxis axis = BlockAxis::rowwise;
  MxScaleMode scale = MxScaleMode::floor;
  Round round = Round::rn;         // element rounding: rn, rna, rz or rs
  std::optional<AmaxNan> amax_nan; // unset: ignore for rceil_sat (TE), else propagate (torchao)
  std::optional<ElemCast> cast;    // unset: ptx for rceil_sat (TE), else torch (torchao)
  RceilLog2 rceil_log2 = RceilLog2::exact;
  uint8_t rs_bits = 0;             // random bits for rs (0: the PTX width, 8)
  MxVariant variant = MxVariant::current;  // torchao-0.18: floor/ceil/even only; te-2.12: rceil-sat only
  TorchaoFloorPath floor_path = TorchaoFloorPath::to_mx;  // cuda: scale floor, e4m3, variant current only
};
// Empty when the options go together, else what is wrong (a variant of another scale mode).
std::string mx_options_error(const MxOptions& o);

struct MxTensor {
  BlockGrid grid;
  Fmt elem = Fmt::e4m3;
  std::vector<uint8_t> codes;   // one per element, in the input's layout (s8: two's complement)
  std::vector<uint8_t> scales;  // UE8M0 codes, grid.scale_count()
};

// Element format parameters used by the scale rules.
// Precondition of mx_emax and mx_max_norm: mx_supported(elem) (std::invalid_argument otherwise).
int mx_emax(Fmt elem);          // OCP emax_elem: e4m3 8, e5m2 15, e3m2 4, e2m3 2, e2m1 2, s8 0
float mx_max_norm(Fmt elem);    // 448, 57344, 28, 7.5, 6, 127/64
bool mx_supported(Fmt elem);

// cvt.rp{.satfinite}.ue8m0.f32 of a positive f32 (the RCEIL rounding of a scale).
uint8_t e8m0_round_up(float d, bool satfinite);

// TE's ptx::exp2f_rcp (variant current: 0xFF -> NaN 0x7FFFFFFF, 0xFE -> 2^-127, else the f32
// with exponent field 254 - e, so 0 -> 2^127; te_2_12: the older one).
float te_exp2f_rcp(uint8_t e, MxVariant v = MxVariant::current);
// torchao's _e8m0_scale_to_reciprocal_fp32: 2^(127 - e) (0 -> 2^127, 0xFE -> 2^-127), 0xFF -> NaN.
float torchao_e8m0_reciprocal(uint8_t e);
// torchao's FP6/FP4 bit-trick cast (custom_fp_utils.py) of a NaN with the given f32 bits.
uint8_t torchao_floatx_nan_code(Fmt f, uint32_t nan_bits);

// The UE8M0 scale of a block whose amax (already NaN-policed) is `amax`.
uint8_t mx_scale_code(float amax, const MxOptions& o);
// One element x of a block with scale code `scale` (rbits used with Round::rs).
uint8_t mx_element_code(float x, uint8_t scale, const MxOptions& o, uint32_t rbits = 0);
// The block amax of `values` under the NaN policy.
float mx_amax(std::span<const float> values, AmaxNan policy);
// The same, in pieces on thread_count(exec) threads.
float mx_amax(std::span<const float> values, AmaxNan policy, const Exec& exec);

// Quantizes a rows x cols tensor. With Round::rs, `rbits` holds one random word per element
// (same layout as x).
// Precondition: mx_quantize_error(x.size(), rows, cols, o, rbits.size()) is empty (an
// unsupported element format or rounding, a size that is not rows * cols, options that do not
// go together, too few random words, block 0); std::invalid_argument with that message
// otherwise. quant::quantize (quant_recipe.hpp) returns the message instead.
std::string mx_quantize_error(size_t n, size_t rows, size_t cols, const MxOptions& o, size_t rbits);
// The plain call uses Exec{} (TCEMU_NUM_THREADS, else every core); the result is the same for
// every thread count.
MxTensor mx_quantize(std::span<const float> x, size_t rows, size_t cols, const MxOptions& o,
                     std::span<const uint32_t> rbits = {});
MxTensor mx_quantize(std::span<const float> x, size_t rows, size_t cols, const MxOptions& o,
                     std::span<const uint32_t> rbits, const Exec& exec);

// How a block scale becomes a multiplier when dequantizing.
enum class MxDequant : uint8_t {
  ocp,      // OCP / torchao to_dtype: 2^(e-127) (e = 0: 2^-127, an f32 subnormal); 0xFF gives NaN
  te,       // TransformerEngine dequantize_mxfp8_kernel (ptx::exp2f since 4ff5fdfed): 2^(e-127),
            // e = 0 the subnormal 2^-127, 0xFF NaN; block_scale * element in f32, NaN 0x7FFFFFFF
  te_2_18,  // the same kernel in TE <= v2.18: the f32 with bits e << 23, so e = 0 is +0 and
            // e = 0xFF is +Inf
};
std::optional<MxDequant> parse_mx_dequant(std::string_view s);  // ocp te te-2.18
std::string_view to_string(MxDequant d);

// Dequantization X * P_i: the element in f32 times the scale's multiplier, one f32 rounding.
float mx_dequantize_element(Fmt elem, uint8_t code, uint8_t scale, MxDequant d = MxDequant::ocp);
std::vector<float> mx_dequantize(const MxTensor& q, MxDequant d = MxDequant::ocp);
std::vector<float> mx_dequantize(const MxTensor& q, MxDequant d, const Exec& exec);

// f32 <-> bits, and small helpers shared by the recipes.
uint32_t f32_bits(float f);
float f32_from_bits(uint32_t b);
// Exact value of a code of a format of 16 bits or fewer as an f32 (every such code is one).
float code_to_f32(Fmt f, uint64_t code);

}  // namespace tcemu::quant
