// RapidCheck generators of codes of every tcemu format, weighted toward the values that break
// rounding, overflow and quantization code. Every generator shrinks toward simpler values
// (see `simpler_codes`): zero, then fewer significand bits, an exponent nearer to 1.0, the
// positive sign; a failing case therefore ends as "1.0625" rather than "1.06251526".
//
//   auto x = *tcemu::testing::gen::interesting(Fmt::f32, Fmt::e4m3);  // inside a property
//
// docs/testing.md lists every category and shows complete examples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <rapidcheck.h>

#include "tcemu/format.hpp"
#include "tcemu/testing/code.hpp"

namespace tcemu::testing {

// The shrink candidates of a code, each strictly simpler: the zero of the format (1.0 for
// ue8m0), the canonical NaN for other NaN codes, the positive sign, the exponent moved
// toward 1.0's (halfway, one binade), the fraction with its low set bits cleared. Integers:
// 0, the magnitude halved, minus one, the positive sign.
std::vector<Code> simpler_codes(const Code& c);

namespace gen {

// Every valid code of the format, uniformly (tf32: its low 13 bits zero).
rc::Gen<Code> arbitrary(Fmt f);

// The special points of a format, each category drawn equally often: +0 and -0, the
// smallest and largest subnormal, the smallest normal, the largest finite (both signs),
// Inf, and NaN encodings (the canonical NaN, both signs, and for IEEE formats quiet and
// signalling NaNs with random payloads). Integers: 0, +-1, the range ends.
rc::Gen<Code> special(Fmt f);

// Codes of `src` exactly at a rounding tie of `dst` (the midpoint of two neighbouring
// values of `dst`, zero and the smallest subnormal included) or one ulp of `src` either
// side, both signs. Fails to generate (rc::gen's GenerationFailure) when `src` holds no tie
// of `dst` exactly (e.g. e4m3 into f32: every e4m3 value is an f32 value).
rc::Gen<Code> tie(Fmt src, Fmt dst);

// Codes of `src` at and one ulp around each overflow threshold of `dst`, both signs: the
// largest finite value, the round-to-nearest threshold (largest finite + half an ulp:
// 464 for e4m3) and one ulp of `dst` beyond the largest finite (480 for e4m3). Where `src`
// cannot hold a threshold exactly, its two neighbours in `src` instead. Generation failure
// when every threshold lies beyond the range of `src`.
rc::Gen<Code> overflow(Fmt src, Fmt dst);

// Negative finite codes of `src` (for conversions into the unsigned scale formats ue8m0
// and ue4m3, where a negative input is an edge case).
rc::Gen<Code> negative(Fmt src);

// How `interesting` mixes the categories (relative weights; 0 leaves a category out).
struct Weights {
  int special = 3;
  int tie = 3;
  int overflow = 2;
  int negative = 1;   // only when the destination is unsigned (ue8m0, ue4m3)
  int arbitrary = 2;
};

// Codes of `f` weighted toward what breaks code: special values and arbitrary codes.
rc::Gen<Code> interesting(Fmt f, Weights w = {});
// Codes of `src` weighted toward what breaks a conversion into `dst`: special values of
// `src`, ties and overflow thresholds of `dst`, negative values when `dst` is unsigned, and
// arbitrary codes. Categories that `src` cannot reach are left out.
rc::Gen<Code> interesting(Fmt src, Fmt dst, Weights w = {});

// Finite values with an unbiased exponent in [lo, hi] (clamped to the format's finite range;
// subnormals where lo reaches them), random fraction and sign, plus a share of zeros and
// of special codes. Integers: magnitudes below 2^(hi+1).
struct Spread {
  int lo = -4;
  int hi = 4;
  int zero_percent = 5;
  int special_percent = 0;  // drawn from `special`
};
rc::Gen<Code> spread(Fmt f, Spread s = {});
// n codes, or a rows x cols row-major matrix, of `spread` elements. Shrinking works element
// by element.
rc::Gen<Codes> vector(Fmt f, size_t n, Spread s = {});
rc::Gen<Codes> matrix(Fmt f, int rows, int cols, Spread s = {});

// Scale patterns of a block-scaled operand (MX: ue8m0 scales, blocks of 32; NVFP4: e4m3 /
// ue4m3 scales, blocks of 16).
enum class BlockPattern : uint8_t {
  ordinary,    // spread elements, a scale near 1
  zero,        // every element zero
  saturating,  // elements at +-largest finite with the largest finite scale
  nan_scale,   // the scale is a NaN code (ue8m0 0xff, e4m3/ue4m3 0x7f)
  extreme_scale,  // the smallest or largest finite scale
};
std::string_view to_string(BlockPattern p);

struct ScaledBlock {
  BlockPattern pattern = BlockPattern::ordinary;
  Code scale;
  Codes elems;
};
void showValue(const ScaledBlock& b, std::ostream& os);

// One block of `size` elements of `elem` with a `scale_fmt` scale; the patterns equally often.
// Drawn without shrinking (the pattern is the point).
rc::Gen<ScaledBlock> scaled_block(Fmt elem, Fmt scale_fmt, size_t size);
rc::Gen<ScaledBlock> scaled_block(Fmt elem, Fmt scale_fmt, size_t size, BlockPattern p);

// f32 input of a block quantizer (MX, NVFP4): rows x cols values whose blocks of `block`
// along rows follow the patterns that matter to scale selection, each block drawn from:
// all zeros; amax exactly at a power of two times the element's largest value (a scale
// boundary) or one f32 ulp either side; a block containing NaN; one containing +-Inf; an
// amax near FLT_MAX (2^125..2^128); an f32 subnormal amax; an ordinary amax (2^-10..2^11).
// Drawn without shrinking (the pattern is the point).
struct F32Tensor {
  size_t rows = 0, cols = 0;
  std::vector<float> values;
};
void showValue(const F32Tensor& t, std::ostream& os);
rc::Gen<F32Tensor> quantizer_input(size_t rows, size_t cols, size_t block, Fmt elem);

}  // namespace gen
}  // namespace tcemu::testing
