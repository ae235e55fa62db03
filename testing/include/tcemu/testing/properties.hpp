// Ready-made properties: point one at your own function and get, when it is wrong, the
// simplest input RapidCheck's shrinking found, with the expected and actual codes decoded and
// their distance in ulps. tcemu is the oracle: the expected side is tcemu's bit-exact model
// of the PTX instruction (conversions) or of the tensor-core datapath (dot products), or a
// statement about the quantizer itself (monotone, never overflows, round-trips).
//
//   auto r = tcemu::testing::converts_like(ConversionSpec::ptx("cvt.rn.satfinite.e4m3x2.f32"),
//                                          [](uint64_t x) { return my_f32_to_e4m3(x); });
//   EXPECT_THAT(r, tcemu::testing::Holds());     // matchers.hpp; or if (!r) std::cout << r;
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/ptx_cvt.hpp"
#include "tcemu/testing/code.hpp"
#include "tcemu/testing/generators.hpp"

namespace tcemu::testing {

// How many cases, from which seed. Runs are deterministic for a seed (0: RapidCheck's
// configured seed, from RC_PARAMS, else random).
struct CheckOptions {
  int tests = 2000;
  uint64_t seed = 1;
  int max_size = 100;
  bool shrink = true;
  bool nan_aware = false;  // conversions, dot products: any NaN code matches any NaN code
};

// A named input of a counterexample.
struct Operand {
  std::string name;
  Codes codes;
};

// What went wrong, on the simplest failing case found.
struct Counterexample {
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;  // further results, where a law relates several (monotone)
  std::optional<Code> expected;  // what tcemu's model gives (absent for quantizer laws)
  std::optional<Code> actual;    // what the function under test gave
  std::optional<uint64_t> ulps;  // |expected - actual| in ulps, when both are numbers
  std::string why;               // the law that broke, in words
  int shrink_steps = 0;          // how many simpler failing cases shrinking moved through
  std::string to_string() const;
};

struct PropertyResult {
  std::string property;  // what was checked, e.g. "converts like cvt.rn.satfinite.e4m3x2.f32"
  bool passed = false;
  int tests_run = 0;     // cases that passed before the failure (all of them on success)
  std::optional<Counterexample> counterexample;
  std::string error;     // RapidCheck gave up or failed to run (then passed is false)
  uint64_t seed = 0;
  explicit operator bool() const { return passed; }
  std::string to_string() const;  // one line on success; the counterexample on failure
};
std::ostream& operator<<(std::ostream& os, const PropertyResult& r);
std::ostream& operator<<(std::ostream& os, const Counterexample& c);

// ------------------------------------------------------------------------------------------
// Conversions

// The conversion a user's function should reproduce, element by element.
struct ConversionSpec {
  std::string name;
  Fmt from = Fmt::f32, to = Fmt::e4m3;
  ConvertOptions options;
  // A PTX cvt spelling ("cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.bf16.f32"): the element
  // conversion of that instruction as tcemu models it (ptx_cvt_eval of ptx_cvt.hpp on the input
  // in every source field, the lowest destination field kept). std::invalid_argument for an
  // unknown spelling. cvt.rs: the element conversion with the random bits given to it
  // (convert(), its low rs_bits bits), not the instruction's split of one random register.
  static ConversionSpec ptx(std::string_view spelling);
  // A named convention (convert.hpp `conventions()`: "cuda-host", "ml-dtypes", ...) for one
  // pair of formats, with optional overrides; std::invalid_argument when it does not allow them.
  static ConversionSpec convention(std::string_view convention, Fmt from, Fmt to, const OptionRequest& req = {});
  // Explicit options.
  static ConversionSpec with_options(Fmt from, Fmt to, const ConvertOptions& o);
  // The expected code for one input.
  uint64_t expected(uint64_t code, uint32_t rbits = 0) const;

  std::optional<PtxCvt> ptx_cvt;  // set by ptx(): evaluated through ptx_cvt_eval
};

// The user's function: one code of spec.from in, one code of spec.to out.
using ConvertFn = std::function<uint64_t(uint64_t)>;
using ConvertRsFn = std::function<uint64_t(uint64_t, uint32_t)>;  // code, random bits

// For inputs from gen::interesting(from, to): fn(x) == spec.expected(x), bit for bit.
PropertyResult converts_like(const ConversionSpec& spec, const ConvertFn& fn, const CheckOptions& o = {});
// The same for stochastic rounding (spec.options.round == Round::rs): random bits drawn too.
PropertyResult converts_like_rs(const ConversionSpec& spec, const ConvertRsFn& fn, const CheckOptions& o = {});
// The same over inputs of your own generator.
PropertyResult converts_like(const ConversionSpec& spec, const ConvertFn& fn, const rc::Gen<Code>& inputs,
                             const CheckOptions& o = {});

// ------------------------------------------------------------------------------------------
// Dot products

// One dot product's operands, as codes: a and b hold K elements, c one accumulator code
// (f32, f16, or s32 two's complement), sa and sb one scale per block (block-scaled kinds).
struct DotInputs {
  Codes a, b;
  Code c;
  Codes sa, sb;
};
using DotFn = std::function<uint64_t(const DotInputs&)>;

struct DotOptions {
  int k = 0;                       // elements per dot product: a multiple of the instruction's K (0: its K)
  gen::Spread spread{-3, 3, 5, 2};      // operand elements
  std::optional<Fmt> atype, btype;  // tcgen05 kinds keep types in a descriptor
  std::optional<AccType> dtype;
  std::optional<Fmt> stype;
  MmaOptions mma;
};

// For random operands: fn(in) == tcemu::mma (the M = N = 1 problem of the instruction, in) bit for bit. `arch` and
// `ptx` as in find_instruction ("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3");
// std::invalid_argument when the catalog has no such instruction.
PropertyResult dot_agrees_with(std::string_view arch, std::string_view ptx, const DotFn& fn,
                               const DotOptions& d = {}, const CheckOptions& o = {});

// ------------------------------------------------------------------------------------------
// Quantizers: f32 in, one code of `fmt` out, representing value * scale.

using QuantizeFn = std::function<uint64_t(float)>;

struct QuantizerSpec {
  Fmt fmt = Fmt::e4m3;
  // The code represents code_value * scale; inputs are drawn around the thresholds of
  // fmt scaled by it. The round-trip bound is taken on x / scale computed in f64 (exact
  // for a power of two).
  double scale = 1.0;
};

// x <= y (neither NaN) implies value(fn(x)) <= value(fn(y)), and no NaN result.
PropertyResult quantizer_is_monotone(const QuantizerSpec& q, const QuantizeFn& fn, const CheckOptions& o = {});
// For every finite x (huge ones included), fn(x) is a finite code (no Inf, no NaN).
PropertyResult quantizer_never_overflows(const QuantizerSpec& q, const QuantizeFn& fn, const CheckOptions& o = {});

enum class Bound : uint8_t {
  half_ulp,  // round to nearest: the nearest value of fmt to x / scale (either at a tie),
             // or +-largest finite beyond it
  one_ulp,   // faithful (stochastic rounding, truncation): either neighbour of x / scale
};
// For every finite x, value(fn(x)) lies within the bound of x / scale (saturating at the
// largest finite value of fmt).
PropertyResult quantizer_round_trips(const QuantizerSpec& q, const QuantizeFn& fn, Bound bound = Bound::half_ulp,
                                     const CheckOptions& o = {});

// ------------------------------------------------------------------------------------------
// Your own property with the same reporting: `body` returns nullopt when the case passes, or
// the counterexample (inputs, expected, actual, why) when it fails. It runs under RapidCheck,
// so `*gen` draws inputs inside it.
PropertyResult check_property(std::string name, const std::function<std::optional<Counterexample>()>& body,
                              const CheckOptions& o = {});

}  // namespace tcemu::testing
