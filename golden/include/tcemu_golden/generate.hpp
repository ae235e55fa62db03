// Generating golden cases: operands drawn from named distributions with a seed, the expected
// result computed by the emulator. Every random draw comes from SplitMix64 and integer
// arithmetic (no std:: distributions, whose output differs between standard libraries), so one
// seed gives one file on every platform.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/parallel.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

// Distributions of operand values (docs/golden.md describes each).
enum class Dist : uint8_t {
  bits,       // uniformly random bit patterns (NaN and Inf included where the format has them)
  normal,     // normally distributed values times `scale`, rounded to nearest (saturating)
  wide,       // every binade equally likely; in MMAs pairs of k whose products cancel exactly
  subnormal,  // mostly subnormals and the smallest normal binade
  specials,   // normal values with zeros of both signs, Inf, NaNs, max and min mixed in
  edges,      // max, one below max, powers of two and their neighbours, min normal/subnormal;
              // conversions: midpoints between destination codes and their neighbours
  mixed,      // each of the above in turn: in MMAs every row of A, column of B and element of
              // C picks one at random (so one tile covers them all); elsewhere every element
};
// The six pure distributions (bits .. edges); `mixed` is not among them.
std::span<const Dist> all_distributions();
std::string_view to_string(Dist d);
std::optional<Dist> parse_dist(std::string_view s);

// Block-scale patterns of block-scaled kinds.
enum class ScaleDist : uint8_t {
  unit,         // every scale 1
  random,       // 2^-6 .. 2^6 (ue8m0) / random finite ue4m3
  min,          // the smallest scale (ue8m0 2^-127, ue4m3 its min subnormal)
  max,          // the largest finite scale
  zero_blocks,  // unit scales, and some blocks of elements all zero (ue4m3: zero scales too)
  nan,          // some NaN scales among random ones
  mixed,        // each block picks one of the above
};
std::span<const ScaleDist> all_scale_distributions();
std::string_view to_string(ScaleDist d);
std::optional<ScaleDist> parse_scale_dist(std::string_view s);

struct MmaGenRequest {
  std::string arch, ptx;
  std::optional<Fmt> atype, btype, stype;
  std::optional<AccType> dtype;
  int M = 0, N = 0, K = 0;      // 0: one instruction tile (and one instruction's K)
  int tile_m = 0, tile_n = 0;   // tcgen05: the tile the descriptor picks (0: the smallest)
  Dist dist_a = Dist::normal, dist_b = Dist::normal, dist_c = Dist::normal;
  double scale = 1.0;           // of Dist::normal
  ScaleDist scales = ScaleDist::mixed;
  bool a_col = false, b_col = true, c_col = false, d_col = false;  // storage orders
  MmaOptions options;
  uint64_t seed = 1;
  std::string name;  // "" = made from the family, distributions and seed
  // Computes the expected D in place of the CPU emulator's mma() when set: `tcemu golden gen
  // --device cuda` passes the emulator on the GPU here (tcemu_cuda, which this library does not
  // link). It must give mma()'s result; it may be called from several threads at once
  // (generate_mma_cases). An error in the result is thrown as GoldenError.
  using Compute = std::function<MmaResult(const InstrEntry&, const MmaProblem&, const MmaOptions&)>;
  Compute compute;
};
// The error names what is wrong with the request (generate_mma throws it as GoldenError).
Result<Case> try_generate_mma(const MmaGenRequest& r);
Case generate_mma(const MmaGenRequest& r);
// Every request's case, in the order of the requests, on thread_count(exec) threads (each case
// is generated from its own seed alone, so the cases are those of generate_mma one by one).
// A request that fails gives generate_mma's error (the first failing request's), thrown by
// generate_mma_cases.
Result<std::vector<Case>> try_generate_mma_cases(std::span<const MmaGenRequest> requests, const Exec& exec = {});
std::vector<Case> generate_mma_cases(std::span<const MmaGenRequest> requests, const Exec& exec = {});

// A gemm case (`tcemu golden gen --gemm`): A, B and block scales drawn as generate_mma draws
// them (C as f32 codes, drawn only when beta != 0: the epilogue reads it as beta * C), the
// plan resolved from `plan` (resolve_plan: preset, split count and grain, or chunks; the
// epilogue order), the epilogue's alpha, beta, vectors and output conversion from `epilogue`,
// D by tcemu::gemm. The error names what is wrong with the plan (generate_gemm throws it).
struct GemmGenRequest {
  MmaGenRequest mma;  // instruction, shape, distributions, orders, seed, name; options: promotion, negation
  PlanRequest plan;
  Epilogue epilogue;  // its order is replaced by the resolved plan's
};
Result<Case> try_generate_gemm(const GemmGenRequest& r);
Case generate_gemm(const GemmGenRequest& r);

struct ConvertGenRequest {
  Fmt from = Fmt::f32, to = Fmt::e4m3;
  std::string convention = "ptx";
  OptionRequest request;
  size_t count = 256;
  Dist dist = Dist::edges;
  double scale = 1.0;
  uint64_t seed = 1;
  std::string name;
};
// The error: an unknown convention or an option it does not allow (generate_convert throws it).
Result<Case> try_generate_convert(const ConvertGenRequest& r);
Case generate_convert(const ConvertGenRequest& r);

struct CvtGenRequest {
  std::string ptx;
  RsBitMap rs_map = RsBitMap::ptx_doc;
  size_t count = 256;
  Dist dist = Dist::edges;
  double scale = 1.0;
  uint64_t seed = 1;
  std::string name;
};
// The error: the PTX spelling does not parse (generate_cvt throws it).
Result<Case> try_generate_cvt(const CvtGenRequest& r);
Case generate_cvt(const CvtGenRequest& r);

}  // namespace tcemu::golden
