// PTX `cvt` instructions, bit for bit: operand packing and element order of the x2/x4
// forms, on top of the element conversions of convert.hpp.
//
// Source: PTX ISA §9.7.9.21 (cvt), summarised in docs/sources.md and docs/conversions.md.
// Packing: the first source operand ("a") lands in the highest field of the destination.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/result.hpp"
#include "tcemu/convert.hpp"

namespace tcemu {

// How a cvt's source and destination registers are laid out.
struct PtxCvt {
  std::string spelling;  // e.g. "cvt.rn.satfinite.e4m3x2.f32"
  Fmt dst = Fmt::f32;    // element format of the destination
  int dst_count = 1;     // elements packed in d (1, 2 or 4)
  Fmt src = Fmt::f32;    // element format of the source
  int src_count = 1;     // source elements in total (1, 2 or 4)
  bool src_packed = false;  // sources come packed in one register (f16x2, e4m3x2, ...)
  bool has_rbits = false;   // cvt.rs: a .b32 operand of random bits follows the sources
  ConvertOptions options;   // the element conversion (PTX convention)
  // cvt.rna.satfinite.tf32.f32 as ptxas lowers it for sm_90 (measured on H200): one tf32
  // ulp is subtracted from the truncated NaN (0x7fc00000 -> 0x7fbfe000).
  bool sm90_tf32_satfinite_nan = false;
  int min_sm = 0;           // smallest sm_XX that has it (a/f-suffix variants noted in `arch`)
  std::string_view arch;    // e.g. "sm_89", "sm_90", "sm_100a/sm_103a"
};

// Parses a PTX cvt spelling; the error names the spelling and what is wrong when it is not a
// cvt tcemu knows.
Result<PtxCvt> parse_ptx_cvt(std::string_view spelling);

// Every cvt variant in the catalog (spellings), in a stable order.
const std::vector<std::string>& ptx_cvt_catalog();

// Width in bits of the destination register d and of one source register.
int ptx_cvt_dst_bits(const PtxCvt& c);
int ptx_cvt_src_bits(const PtxCvt& c);

// Evaluates the instruction. `src` holds the source registers in PTX operand order: one
// packed register, or one register per element (f32 bit patterns for .f32 sources). For
// cvt.rs, `rbits` is the random-bit operand. Returns the destination register's bits.
// `rs_map` selects how the random-bit register is split among elements (see
// docs/conversions.md: the mapping is unverified on hardware).
enum class RsBitMap : uint8_t {
  ptx_doc,        // the PTX ISA's text (§9.7.9.21) read literally: f16x2 13 low bits of each
                  // half (upper half for a), bf16x2 each 16-bit half; x4 FP8/FP6 ("upper 16
                  // bits for a, b"): byte 3 -> a, 2 -> b, 1 -> e, 0 -> f; e2m1x4 ("upper 8 bits
                  // of both halves for a, b"): byte 3 -> a, 1 -> b, 2 -> e, 0 -> f. Unmeasured.
  flashinfer_hw,  // x4: per 16-bit half, the high byte as-is for b/f, the bit-reversed low
                  // byte for a/e (one third-party hardware report)
};
uint64_t ptx_cvt_eval(const PtxCvt& c, std::span<const uint64_t> src, uint32_t rbits = 0,
                      RsBitMap rs_map = RsBitMap::ptx_doc);

}  // namespace tcemu
