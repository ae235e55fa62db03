// Block-scaled quantization (OCP MX): tensors cut into blocks that share one UE8M0 scale,
// elements converted to a narrow format, in the arithmetic order of the implementation a
// scale mode is named after, so that codes and scales match it bit for bit.
//
// Sources: docs/quantization.md; OCP Microscaling Formats (MX) v1.0; NVIDIA
// TransformerEngine (`quantize_mxfp8.cuh`, `utils.cuh` float_to_e8m0 / exp2f_rcp); pytorch/ao
// `torchao/prototype/mx_formats/mx_tensor.py` (to_mx, _to_mx_rceil, get_fp_scale). Written out
// in docs/quantization.md. Everything here is plain arithmetic: no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tcemu/convert.hpp"
#include "tcemu/format.hpp"

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
  size_t scale_rows() const { return (rows + block_rows - 1) / block_rows; }
  size_t scale_cols() const { return (cols + block_cols - 1) / block_cols; }
  size_t scale_count() const { return scale_rows() * scale_cols(); }
  size_t scale_index(size_t r, size_t c) const { return (r / block_rows) * scale_cols() + c / block_cols; }
};
BlockGrid make_grid(size_t rows, size_t cols, BlockAxis axis, size_t block);

// How the shared scale is chosen from the block's amax.
enum class MxScaleMode : uint8_t {
  floor,      // OCP MX v1.0 / torchao FLOOR: exponent field of amax minus emax_elem
  rceil_sat,  // TransformerEngine / cuBLAS: cvt.rp.satfinite.ue8m0(amax * (float)(1/max_elem))
  rceil,      // torchao RCEIL (torchao/testing/_mxfp8_test_utils.py contract): cvt.rp.ue8m0
              // without satfinite of amax / max_elem (> 2^127, Inf, NaN give 0xFF); elements
              // x * 2^(127-e) (0xFF: NaN)
  rceil_legacy,  // torchao <= 0.12 _to_mx_rceil: clamp(ceil(log2(amax / max_elem)), -127, 127)
                 // + 127 (NaN 0xFF, Inf 0xFE); elements x * (e == 0 ? 1 : 2^(127-e))
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
  torch,  // PyTorch / torchao: clamp to +-MAX first, then FP8 c10 cast (RNE, NaN keeps its
          // sign: 0x7f|sign) or torchao's FP6/FP4 cast (RNE, saturating; NaN: +MAX here, the
          // torchao bit trick gives no meaningful code)
};

// torchao's legacy RCEIL computes ceil(torch.log2(descale)) in f32. `exact` takes the true ceil(log2)
// (what cvt.rp.ue8m0 does); `f32_log2` first rounds log2 to f32 (correctly rounded), which
// turns 2^k(1+tiny) into k for |k| >= 4 and can then saturate an element.
enum class RceilLog2 : uint8_t { exact, f32_log2 };

struct MxOptions {
  Fmt elem = Fmt::e4m3;  // e4m3 e5m2 e3m2 e2m3 e2m1, or s8 (MXINT8: implicit 2^-6)
  size_t block = 32;
  BlockAxis axis = BlockAxis::rowwise;
  MxScaleMode scale = MxScaleMode::floor;
  Round round = Round::rn;         // element rounding: rn, rna, rz or rs
  std::optional<AmaxNan> amax_nan; // unset: ignore for rceil_sat (TE), else propagate (torchao)
  std::optional<ElemCast> cast;    // unset: ptx for rceil_sat (TE), else torch (torchao)
  RceilLog2 rceil_log2 = RceilLog2::exact;
  uint8_t rs_bits = 0;             // random bits for rs (0: the PTX width, 8)
};

struct MxTensor {
  BlockGrid grid;
  Fmt elem = Fmt::e4m3;
  std::vector<uint8_t> codes;   // one per element, in the input's layout (s8: two's complement)
  std::vector<uint8_t> scales;  // UE8M0 codes, grid.scale_count()
};

// Element format parameters used by the scale rules.
int mx_emax(Fmt elem);          // OCP emax_elem: e4m3 8, e5m2 15, e3m2 4, e2m3 2, e2m1 2, s8 0
float mx_max_norm(Fmt elem);    // 448, 57344, 28, 7.5, 6, 127/64
bool mx_supported(Fmt elem);

// cvt.rp{.satfinite}.ue8m0.f32 of a positive f32 (the RCEIL rounding of a scale).
uint8_t e8m0_round_up(float d, bool satfinite);

// The UE8M0 scale of a block whose amax (already NaN-policed) is `amax`.
uint8_t mx_scale_code(float amax, const MxOptions& o);
// One element x of a block with scale code `scale` (rbits used with Round::rs).
uint8_t mx_element_code(float x, uint8_t scale, const MxOptions& o, uint32_t rbits = 0);
// The block amax of `values` under the NaN policy.
float mx_amax(std::span<const float> values, AmaxNan policy);

// Quantizes a rows x cols tensor. With Round::rs, `rbits` holds one random word per element
// (same layout as x); std::invalid_argument otherwise, and for unsupported options.
MxTensor mx_quantize(std::span<const float> x, size_t rows, size_t cols, const MxOptions& o,
                     std::span<const uint32_t> rbits = {});

// How a block scale becomes a multiplier when dequantizing.
enum class MxDequant : uint8_t {
  ocp,  // OCP / torchao to_dtype: 2^(e-127) (e = 0: 2^-127, an f32 subnormal); 0xFF gives NaN
  te,   // TransformerEngine dequantize_mxfp8_kernel: the f32 with bits e << 23 (ptx::exp2f),
        // so e = 0 is +0 and e = 0xFF is +Inf; then block_scale * element in f32
};
std::optional<MxDequant> parse_mx_dequant(std::string_view s);  // ocp te
std::string_view to_string(MxDequant d);

// Dequantization X * P_i: the element in f32 times the scale's multiplier, one f32 rounding.
float mx_dequantize_element(Fmt elem, uint8_t code, uint8_t scale, MxDequant d = MxDequant::ocp);
std::vector<float> mx_dequantize(const MxTensor& q, MxDequant d = MxDequant::ocp);

// f32 <-> bits, and small helpers shared by the recipes.
uint32_t f32_bits(float f);
float f32_from_bits(uint32_t b);
// Exact value of a code of a format of 16 bits or fewer as an f32 (every such code is one).
float code_to_f32(Fmt f, uint64_t code);

}  // namespace tcemu::quant
