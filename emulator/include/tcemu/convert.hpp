// Conversions between formats: one rounding core that every conversion funnels into
// (as SoftFloat's roundPack), options as values, and named conventions that reproduce a PTX
// instruction or a library's behaviour.
//
// Semantics are written out in docs/conversions.md; sources in docs/sources.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/format.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu {

// Rounding of a value that the destination cannot hold exactly.
enum class Round : uint8_t {
  rn,   // to nearest, ties to even
  rna,  // to nearest, ties away from zero
  rz,   // toward zero
  rd,   // toward -inf (PTX .rm)
  ru,   // toward +inf (PTX .rp)
  rs,   // stochastic: random bits added to the discarded bits, round away on carry
};
std::optional<Round> parse_round(std::string_view s);  // also accepts PTX "rm", "rp"
std::string_view to_string(Round r);

// A NaN input, when the destination has NaN codes.
enum class NanOut : uint8_t {
  canonical,         // the destination's canonical NaN, sign dropped (PTX, CUDA host)
  keep_sign,         // canonical NaN with the input's sign (ml_dtypes: -NaN -> e4m3 0xFF)
  all_ones,          // the all-ones code, sign bit set (gfloat)
  payload,           // IEEE: sign kept, payload's high bits kept, quiet bit set (x86, f64<->f32)
  payload_raw,       // sign and the payload's high bits kept, nothing set: a plain bit move
                     // (H200: cvt.f32.bf16, cvt.rna.tf32.f32; may give Inf when no payload bit is kept)
  canonical_f32_payload,  // the canonical f32 NaN 0x7fffffff carried over with its payload
                          // (H200: cvt.ftz.f64.f32 gives 0x7fffffffe0000000)
  quiet,      // the IEEE default quiet NaN (only the fraction's top bit set) with the input's
              // sign: f32 0x7fc00000, f16 0x7e00, bf16 0x7fc0, e5m2 0x7e (ml_dtypes quiet_NaN())
};
// A NaN input, when the destination has no NaN (e2m1, e2m3, e3m2, ints).
enum class NanToFinite : uint8_t {
  plus_max,   // +MAX_NORM (PTX .satfinite, CUDA host, CUTLASS for +NaN)
  signed_max, // MAX_NORM with the NaN's sign (CUTLASS exmy: -NaN -> -6 for e2m1)
  neg_zero,   // -0 (ml_dtypes)
  zero,       // +0 (PTX float-to-integer conversions)
  undefined,  // no defined result: the conversion reports Flag::undefined (LLVM APFloat, gfloat)
  flipped_zero,  // zero with the sign opposite to the NaN's (ml_dtypes: -(quiet_NaN()), its NaN is -0)
};
// A negative input into an unsigned float format (ue8m0, ue4m3); integer formats clamp.
enum class NegToUnsigned : uint8_t {
  magnitude,  // the sign is ignored (PTX cvt ue8m0, CUDA host, CUTLASS)
  nan,        // NaN (ml_dtypes, gfloat)
  zero,       // clamp to 0 (PTX float-to-unsigned-integer; a negative that rounds to 0 is 0)
  undefined,
  nan_unless_satfinite,  // NaN, with satfinite the smallest code (ml_dtypes: lowest(), ue8m0 0x00)
  nan_except_inf,        // NaN for negative numbers and -0; -Inf is taken as +Inf (gfloat round_float)
};
// A zero input into a format without zero (ue8m0).
enum class ZeroToNoZero : uint8_t {
  smallest,              // the smallest value, code 0x00 (PTX, CUDA host, CUTLASS)
  nan,                   // NaN (gfloat)
  nan_unless_satfinite,  // NaN, with satfinite the smallest (ml_dtypes denorm_min())
};
// Values below 2^emin into a format without subnormals (ue8m0: below 2^-127, and the binade
// above it where a library reads code 0x00 as zero).
enum class TinyNoSubnormal : uint8_t {
  smallest,    // the smallest value 0x00 in every rounding mode
  nan,         // rounded on the grid continued below 2^emin; a result below 2^emin is NaN
               // (gfloat round_float + encode_float: 1.5*2^-128 rn -> 0x00, 2^-128 -> 0xff)
  zero_code,   // rounded as if 0x00 were zero and 2^(emin+1) the next value: x in (2^emin,
               // 2^(emin+1)) gives 0x01 (ml_dtypes 0.5.4 - 0.6.0, float8.h ConvertImpl)
};
// Stochastic rounding: what happens to the discarded bits below the w random bits.
enum class RsFraction : uint8_t {
  truncate,    // ignored (PTX; gfloat StochasticFastest)
  round_even,  // the discarded fraction is first rounded to w bits, ties to even (gfloat Stochastic)
  round_odd,   // ... ties to odd (gfloat StochasticOdd)
};

struct ConvertOptions {
  Round round = Round::rn;
  // Overflow (|rounded| > MAX_NORM, or Inf input) gives ±MAX_NORM. Without it: IEEE
  // overflow (Inf if the destination has Inf, else NaN if it has NaN, else MAX_NORM), where a
  // rounding toward zero gives MAX_NORM as IEEE 754 says.
  bool satfinite = false;
  bool relu = false;  // negative results become +0; NaN stays NaN (canonical)
  bool ftz = false;   // subnormal inputs and subnormal results become zero of the same sign
  NanOut nan_out = NanOut::canonical;
  NanToFinite nan_to_finite = NanToFinite::plus_max;
  NegToUnsigned neg_to_unsigned = NegToUnsigned::magnitude;
  // Stochastic rounding: how many random bits are added, aligned to the most significant
  // discarded bit. 0 selects the PTX width for the destination (f16 13, bf16 16, 8/6/4-bit
  // formats 8, others 32).
  uint8_t rs_bits = 0;
  // Library behaviours (docs/conversions.md, "Library conventions"); the defaults are the steps.
  RsFraction rs_fraction = RsFraction::truncate;
  bool rs_overflow_to_max = true;   // rs without a carry above MAX gives MAX (false: Inf/NaN, gfloat)
  bool inf_satfinite = true;        // satfinite applies to Inf inputs (false: Inf stays Inf/NaN, ml_dtypes)
  bool finite_overflow_to_max = false;  // a finite input above MAX gives MAX even without
                                        // satfinite; Inf inputs do not (CUTLASS ue8m0)
  bool overflow_undefined = false;  // overflow or Inf into a format with neither Inf nor NaN and
                                    // no satfinite has no result (kUndefined; gfloat raises)
  bool f64_via_f32 = false;         // an f64 source is first rounded to f32 (rn, NaN payload kept
                                    // and quieted as an x86 C cast): ml_dtypes 0.5/0.6 arrays, CUTLASS
  ZeroToNoZero zero_to_no_zero = ZeroToNoZero::smallest;
  TinyNoSubnormal tiny_no_subnormal = TinyNoSubnormal::smallest;
};

// Status of one conversion, as IEEE 754 §7 defines them where the formats allow (exactly the
// reference's definitions, docs/reference.md "Flags"; the exhaustive and stratified tests
// compare every flag with the reference):
enum Flag : uint8_t {
  kInexact = 1,     // the result differs from the input (also overflow, Inf made MAX, 0 into ue8m0)
  kOverflow = 2,    // the rounded magnitude is above MAX, or an Inf input became +-MAX
  kUnderflow = 4,   // |x| < 2^emin before rounding and inexact; a result flushed by ftz
  kInvalid = 8,     // NaN into a format without NaN or an integer, a negative refused by
                    // neg_to_unsigned, out of an integer's range (or Inf into one), a number
                    // or Inf turned into NaN (e4m3, ue4m3, ue8m0 without satfinite)
  kUndefined = 16,  // the options define no result for this input (see NanToFinite::undefined)
};

struct ConvertResult {
  uint64_t code = 0;
  uint8_t flags = 0;
  bool operator==(const ConvertResult&) const = default;
};

// Default random-bit width for stochastic rounding into `to`.
int default_rs_bits(Fmt to);

// Converts one code of `from` into `to`. `rbits` is used with Round::rs only (its low
// rs_bits bits). Integer formats take part as exact integers: into an integer format the
// value is rounded to an integer with `round` and clamped to its range (PTX semantics).
ConvertResult convert(Fmt from, Fmt to, uint64_t code, const ConvertOptions& opt, uint32_t rbits = 0);

// Rounds an exact binary value (-1)^sign * sig * 2^exp into `to`. `sticky` says that the true
// value has further nonzero bits below sig's lowest bit (its magnitude is slightly larger):
// with it, a value known to 64 significant bits rounds correctly in every mode except rs.
ConvertResult round_value(bool sign, uint64_t sig, int exp, bool sticky, Fmt to, const ConvertOptions& opt,
                          uint32_t rbits = 0);
// NaN and Inf inputs through the same policy (negative Inf when sign).
ConvertResult round_nan(bool sign, Fmt to, const ConvertOptions& opt);
ConvertResult round_inf(bool sign, Fmt to, const ConvertOptions& opt);

// Bytes that one element of a format occupies in the array API: 1 for formats of 8 bits or
// fewer (in the low bits), 2 for 16-bit, 4 for f32/tf32, 8 for f64.
size_t container_bytes(Fmt f);

// A conversion prepared once and applied to many codes: picks a specialised kernel where one
// exists (f32 to f16, bf16, e4m3, e5m2, e2m1, ...), else runs the scalar core.
class Converter {
 public:
  Converter(Fmt from, Fmt to, const ConvertOptions& opt);
  Fmt from() const { return from_; }
  Fmt to() const { return to_; }
  const ConvertOptions& options() const { return opt_; }
  ConvertResult operator()(uint64_t code, uint32_t rbits = 0) const { return convert(from_, to_, code, opt_, rbits); }
  // Converts n elements stored in their natural containers (container_bytes). `rbits` (one
  // per element) is used with Round::rs and ignored otherwise. Precondition: rbits is not null
  // when needs_rbits() (std::invalid_argument otherwise). Flags are not reported. Arrays of 64 Ki elements and more are converted in
  // chunks on thread_count(exec) threads (parallel.hpp; the default: every core or
  // TCEMU_NUM_THREADS); every element's result is the same for any thread count.
  void run(const void* src, void* dst, size_t n, const uint32_t* rbits = nullptr) const { run(src, dst, n, rbits, Exec{}); }
  void run(const void* src, void* dst, size_t n, const uint32_t* rbits, const Exec& exec) const;
  bool has_fast_kernel() const { return kernel_ != nullptr; }
  bool needs_rbits() const { return opt_.round == Round::rs; }  // stochastic rounding

 private:
  using Kernel = void (*)(const void*, void*, size_t);
  void run_serial(const void* src, void* dst, size_t n, const uint32_t* rbits) const;
  Fmt from_, to_;
  ConvertOptions opt_;
  Kernel kernel_ = nullptr;
  // 8- and 16-bit sources: every source code's result, built by the first run() of enough
  // elements to pay for it (at least 1/16 of the table); shorter runs convert element by
  // element. Shared by copies of the Converter.
  struct Table;
  std::shared_ptr<Table> table_;
  const uint64_t* ready_table(size_t n) const;
};

// ---------------------------------------------------------------------------------------
// Named conventions: presets of options plus the combinations they allow.

struct Convention {
  std::string_view name;
  std::string_view summary;  // one line: whose behaviour, and what stands out
  std::string_view source;   // where the behaviour comes from (specification section, file)
};
std::span<const Convention> conventions();
const Convention* find_convention(std::string_view name);

// What the user asked for on top of a convention: unset fields keep the convention's value.
struct OptionRequest {
  std::optional<Round> round;
  std::optional<bool> satfinite;
  std::optional<bool> relu;
  std::optional<bool> ftz;
};

// Resolves a request under a convention for one (from, to) pair: the options to use, or an
// error message naming what the convention does not allow ("ptx: cvt to e4m3 exists only as
// .rn.satfinite").
struct Resolved {
  std::optional<ConvertOptions> options;
  std::string error;
};
Resolved resolve(std::string_view convention, Fmt from, Fmt to, const OptionRequest& req);

}  // namespace tcemu
