// Library GEMMs on top of the whole-matrix mma (mma.hpp): the K schedule a library
// runs (one chain, or split-K into chunks that each chain from +0 and are then combined in a
// stated order and precision) and the epilogue it applies (alpha, beta * C, per-tensor or
// rowwise scales, bias, the output conversion). Every epilogue step is one IEEE binary32
// operation rounding to nearest even (an FMUL, FADD or FFMA of the CUDA cores; subnormals
// kept, NaN results the canonical 0x7FFFFFFF), the output conversion goes through the
// converter (convert.hpp). docs/gemm.md gives every preset with its evidence.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu {

// ---- the f32 operations of an epilogue (codes in, code out; RNE, no flush) -----------------
uint32_t f32_mul(uint32_t x, uint32_t y);
uint32_t f32_fma(uint32_t x, uint32_t y, uint32_t z);  // x * y + z rounded once
uint32_t f32_add(uint32_t x, uint32_t y);

// ---- epilogue -------------------------------------------------------------------------------

// The order of the epilogue's f32 operations. g is the scale factor, t the running value,
// sa / sb the scales of row m / column n (1 when absent), acc the combined accumulator.
// Steps with C are left out when beta is +0 or -0 (C is not read), the bias step without a bias.
enum class EpilogueOrder : uint8_t {
  // g = (sa * sb) * alpha; t = g * acc; t = fma(beta, C, t); t = t + bias. The default: the
  // cuBLASLt API formula alpha * (scaleA * scaleB * AB) + beta * C + bias with the scale
  // factor formed first (cuBLASLt's internal order is not public).
  fold,
  // CUTLASS 3.x Sm90 fusion (Sm90ScaledLinCombPerRowBias, Sm90LinCombPerRowBias,
  // Sm90LinearCombination): g = (sa * sb) * alpha; t = bias ? fma(g, acc, bias) : g * acc;
  // t = fma(beta, C, t).
  cutlass_sm90,
  // CUTLASS 2.x epilogue::thread::LinearCombination: beta != 0: t = fma(alpha, acc, beta * C),
  // else t = alpha * acc. No scales, no bias.
  cutlass_2x,
  // t = acc * sa; t = t * sb; t = t * alpha; t = fma(beta, C, t); t = t + bias (an alternative
  // order, as a kernel that applies the row scale, then the column scale).
  sequential,
};
std::optional<EpilogueOrder> parse_epilogue_order(std::string_view s);  // "fold", "cutlass-sm90", ...
std::string_view to_string(EpilogueOrder o);
std::string epilogue_steps(EpilogueOrder o);  // the steps as text (docs, the CLI's side file)

struct Epilogue {
  EpilogueOrder order = EpilogueOrder::fold;
  uint32_t alpha = 0x3F800000u;  // f32 codes
  uint32_t beta = 0;
  // f32 codes: empty (no scale), 1 (per tensor), or M values (a_scale: one per row of D) /
  // N values (b_scale: one per column of D).
  std::vector<uint32_t> a_scale, b_scale;
  std::vector<uint32_t> bias;  // f32 codes, N values (one per column of D); empty: no bias
  Fmt out_type = Fmt::f32;     // f32, bf16, f16, e4m3, e5m2
  Round out_round = Round::rn;
  bool satfinite = false;
};

// ---- K schedule ---------------------------------------------------------------------------------

// How the chunks' f32 partial results p_0 .. p_{s-1} (each a chain from +0 over its K range)
// become D.
enum class Combine : uint8_t {
  // acc = p_0; acc = acc + p_j for j = 1 .. s-1 (f32 adds, RNE); then the epilogue. The
  // cuBLASLt split-K plan as facebookexperimental/triton PR #2752 (bitequiv) reconstructs it.
  f32_forward,
  // Pairwise: each level adds neighbours (p_0 + p_1), (p_2 + p_3), ..., an odd last one
  // carried up unchanged; then the epilogue.
  f32_tree,
  // CUTLASS 2.x serial split-K (kernel::Gemm with SplitKSerial): partition 0 writes
  // D = epilogue(p_0, C, beta); partition k > 0 writes D = epilogue(p_k, D, beta = 1), D read
  // back from the output type (LinearCombination::set_k_partition). Each write rounds to out_type.
  cutlass_serial,
  // CUTLASS 2.x parallel split-K (GemmSplitKParallel + reduction::kernel::ReduceSplitK): the
  // partials in an f32 workspace, acc = +0; acc = acc + p_j for j = 0 .. s-1; then the epilogue
  // (with beta = 0 the kernel passes a cleared source: t = fma(alpha, acc, beta * +0)).
  cutlass_parallel,
};
std::optional<Combine> parse_combine(std::string_view s);
std::string_view to_string(Combine c);

struct GemmPlan {
  // K sizes of the chunks in order, summing to K; each a multiple of the instruction's K (and
  // of the scale block). Zero-sized chunks are allowed (their partial is +0). Empty: one chain
  // over the whole K (D = epilogue(A*B chained from +0)).
  std::vector<int> chunks;
  Combine combine = Combine::f32_forward;
  Epilogue epilogue;
  MmaOptions mma;  // promotion, negation (scale_d / scale_input_d must stay at their defaults)
};

// At most this many chunks (split_k and explicit chunk lists).
inline constexpr int kMaxSplits = 1024;

// The split-K chunks a library computes from a split count s and a grain G: chunk =
// ceil(ceil(K / G) / s) * G; slice j covers [j * chunk, min((j + 1) * chunk, K)), so the
// remainder is in the last slices (which may be empty). bitequiv (PR #2752) for cuBLASLt, and
// CUTLASS 2.x kernel::Gemm's gemm_k_size with G = the threadblock tile's K. Empty with `error`
// set when s is outside 1..kMaxSplits, G < 1 or K < 1.
std::vector<int> split_k_chunks(int K, int s, int grain, std::string* error = nullptr);

// The grain bitequiv documents for cuBLASLt's split-K: 64 for f16/bf16 operands, 128 for
// e4m3/e5m2; 0 for other types (none documented: give the chunks).
int cublaslt_split_grain(Fmt atype);

// A named plan: its combine, its epilogue order, and where its split sizes come from.
struct PlanPreset {
  std::string_view name;
  Combine combine;
  EpilogueOrder epilogue;
  bool bitequiv_grain;  // split_k uses cublaslt_split_grain(atype); else the grain is an input
  std::string_view summary;
};
std::span<const PlanPreset> plan_presets();
const PlanPreset* find_plan_preset(std::string_view name);

// What a caller asks for (every field optional): a preset, a split count with its grain, or
// explicit chunk sizes (stream-K's per-tile K ranges are such a list), and an epilogue order.
struct PlanRequest {
  std::optional<std::string> plan;
  std::optional<int> split_k;
  std::optional<int> grain;
  std::optional<std::vector<int>> chunks;
  std::optional<std::string> epilogue;
};
// Fills plan.chunks, plan.combine and plan.epilogue.order from the request for instruction e
// and this K. Without a preset: f32-forward and the fold epilogue. split_k with a preset
// whose grain is not documented needs `grain` (CUTLASS: the threadblock tile's K); the
// f32-forward / f32-tree presets and no preset default it to the instruction's K.
// Returns "" or what is wrong (an unknown name, split_k with chunks, ...).
std::string resolve_plan(const InstrEntry& e, int K, const PlanRequest& req, GemmPlan& plan);

// ---- the GEMM ---------------------------------------------------------------------------------

struct GemmResult {
  std::vector<uint64_t> D;  // M x N codes of epilogue.out_type; empty on error
  std::string error;
};

// D = epilogue(combine(chunk partials)) for the problem (mma.hpp's layout; C, when given, is
// M x N f32 codes read by the epilogue as beta * C, never chained into the accumulator).
// The instruction must accumulate in f32 or f16 (f16 partials widen exactly to f32). The same
// D for every thread count.
GemmResult gemm(const InstrEntry& e, const MmaProblem& prob, const GemmPlan& plan, const Exec& exec = {});

// The plan's problems as a message ("" when fine): chunk sizes, scale and bias lengths,
// output type, an epilogue order that refuses scales or bias, ...
std::string check_plan(const InstrEntry& e, const MmaProblem& prob, const GemmPlan& plan);

// The epilogue of one element (exposed for tests): acc and c f32 codes, sa / sb / bias f32
// codes (1.0 / none when absent: has_bias false), returns the f32 value t before the output
// conversion.
uint32_t epilogue_f32(const Epilogue& ep, uint32_t acc, uint32_t c, uint32_t sa, uint32_t sb, bool has_bias,
                      uint32_t bias);

}  // namespace tcemu
