// The names of gemm.hpp's epilogue orders, combines and plan presets, and the split-K chunk
// sizes libraries compute. Evidence for each is in docs/gemm.md.
#include <algorithm>
#include <array>

#include "tcemu/gemm.hpp"

namespace tcemu {
namespace {

constexpr std::array<std::pair<std::string_view, EpilogueOrder>, 4> kOrders{{
    {"fold", EpilogueOrder::fold},
    {"cutlass-sm90", EpilogueOrder::cutlass_sm90},
    {"cutlass-2x", EpilogueOrder::cutlass_2x},
    {"sequential", EpilogueOrder::sequential},
}};

constexpr std::array<std::pair<std::string_view, Combine>, 4> kCombines{{
    {"f32-forward", Combine::f32_forward},
    {"f32-tree", Combine::f32_tree},
    {"cutlass-serial", Combine::cutlass_serial},
    {"cutlass-parallel", Combine::cutlass_parallel},
}};

constexpr std::array<PlanPreset, 5> kPresets{{
    {"cublaslt-bitequiv", Combine::f32_forward, EpilogueOrder::fold, true,
     "cuBLASLt split-K as bitequiv reconstructs it (facebookexperimental/triton PR #2752): grain 64 (f16/bf16) or "
     "128 (fp8), forward f32 combine"},
    {"cutlass-serial", Combine::cutlass_serial, EpilogueOrder::cutlass_2x, false,
     "CUTLASS 2.x serial split-K: each partition adds into D through LinearCombination with beta = 1"},
    {"cutlass-parallel", Combine::cutlass_parallel, EpilogueOrder::cutlass_2x, false,
     "CUTLASS 2.x parallel split-K: f32 workspace, ReduceSplitK sums from +0, then LinearCombination"},
    {"f32-forward", Combine::f32_forward, EpilogueOrder::fold, false, "partials added in order in f32"},
    {"f32-tree", Combine::f32_tree, EpilogueOrder::fold, false, "partials added pairwise in f32"},
}};

}  // namespace

std::optional<EpilogueOrder> parse_epilogue_order(std::string_view s) {
  for (const auto& [n, o] : kOrders)
    if (n == s) return o;
  return std::nullopt;
}

std::string_view to_string(EpilogueOrder o) {
  for (const auto& [n, x] : kOrders)
    if (x == o) return n;
  return "?";
}

std::string epilogue_steps(EpilogueOrder o) {
  switch (o) {
    case EpilogueOrder::fold:
      return "g = (sa * sb) * alpha; t = g * acc; t = fma(beta, C, t) if beta != 0; t = t + bias if bias";
    case EpilogueOrder::cutlass_sm90:
      return "g = (sa * sb) * alpha; t = fma(g, acc, bias) if bias else g * acc; t = fma(beta, C, t) if beta != 0";
    case EpilogueOrder::cutlass_2x:
      return "t = fma(alpha, acc, beta * C) if beta != 0 else alpha * acc";
    case EpilogueOrder::sequential:
      return "t = acc * sa; t = t * sb; t = t * alpha; t = fma(beta, C, t) if beta != 0; t = t + bias if bias";
  }
  return "?";
}

std::optional<Combine> parse_combine(std::string_view s) {
  for (const auto& [n, c] : kCombines)
    if (n == s) return c;
  return std::nullopt;
}

std::string_view to_string(Combine c) {
  for (const auto& [n, x] : kCombines)
    if (x == c) return n;
  return "?";
}

std::vector<int> split_k_chunks(int K, int s, int grain, std::string* error) {
  auto fail = [&](const std::string& m) {
    if (error) *error = m;
    return std::vector<int>{};
  };
  if (K < 1) return fail("K = " + std::to_string(K) + " must be at least 1");
  if (s < 1) return fail("split_k = " + std::to_string(s) + " must be at least 1");
  if (s > kMaxSplits) return fail("split_k = " + std::to_string(s) + " is above " + std::to_string(kMaxSplits));
  if (grain < 1) return fail("grain = " + std::to_string(grain) + " must be at least 1");
  const long long grains = (static_cast<long long>(K) + grain - 1) / grain;
  const long long chunk = (grains + s - 1) / s * grain;
  std::vector<int> out(static_cast<size_t>(s));
  for (int j = 0; j < s; ++j) {
    const long long lo = std::min<long long>(j * chunk, K), hi = std::min<long long>((j + 1) * chunk, K);
    out[static_cast<size_t>(j)] = static_cast<int>(hi - lo);
  }
  return out;
}

int cublaslt_split_grain(Fmt atype) {
  switch (atype) {
    case Fmt::f16:
    case Fmt::bf16:
      return 64;
    case Fmt::e4m3:
    case Fmt::e5m2:
      return 128;
    default:
      return 0;
  }
}

std::span<const PlanPreset> plan_presets() { return kPresets; }

const PlanPreset* find_plan_preset(std::string_view name) {
  for (const PlanPreset& p : kPresets)
    if (p.name == name) return &p;
  return nullptr;
}

std::string resolve_plan(const InstrEntry& e, int K, const PlanRequest& req, GemmPlan& plan) {
  const PlanPreset* preset = nullptr;
  if (req.plan) {
    preset = find_plan_preset(*req.plan);
    if (!preset) {
      std::string names;
      for (const PlanPreset& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
      return "plan: unknown plan '" + *req.plan + "' (one of " + names + ")";
    }
  }
  plan.combine = preset ? preset->combine : Combine::f32_forward;
  plan.epilogue.order = preset ? preset->epilogue : EpilogueOrder::fold;
  if (req.epilogue) {
    const auto o = parse_epilogue_order(*req.epilogue);
    if (!o) {
      std::string names;
      for (const auto& [n, x] : kOrders) names += (names.empty() ? "" : ", ") + std::string(n);
      return "epilogue: unknown epilogue order '" + *req.epilogue + "' (one of " + names + ")";
    }
    plan.epilogue.order = *o;
  }
  if (req.split_k && req.chunks) return "split_k and chunks: give one of them (chunks are the split sizes)";
  if (req.grain && !req.split_k) return "grain: applies with split_k only";
  plan.chunks.clear();
  if (req.chunks) {
    if (req.chunks->empty()) return "chunks: the list is empty";
    if (req.chunks->size() > static_cast<size_t>(kMaxSplits))
      return "chunks: " + std::to_string(req.chunks->size()) + " chunks; at most " + std::to_string(kMaxSplits);
    plan.chunks = *req.chunks;
    return "";
  }
  if (!req.split_k) return "";
  int grain = 0;
  if (preset && preset->bitequiv_grain) {
    if (req.grain) return "grain: plan " + std::string(preset->name) + " fixes the grain (64 for f16/bf16, 128 for fp8)";
    grain = cublaslt_split_grain(e.atype);
    if (!grain)
      return "plan " + std::string(preset->name) + ": no split-K grain is documented for " +
             std::string(info(e.atype).name) + " operands (64 for f16/bf16, 128 for fp8); give chunks";
  } else if (req.grain) {
    grain = *req.grain;
  } else if (preset && (preset->combine == Combine::cutlass_serial || preset->combine == Combine::cutlass_parallel)) {
    return "grain: plan " + std::string(preset->name) +
           " splits K in multiples of the threadblock tile's K (CUTLASS Mma::Shape::kK), an input: give grain";
  } else {
    grain = e.K;
  }
  std::string err;
  plan.chunks = split_k_chunks(K, *req.split_k, grain, &err);
  if (plan.chunks.empty()) return err.rfind("grain", 0) == 0 || err.rfind("split_k", 0) == 0 ? err : "split_k: " + err;
  return "";
}

}  // namespace tcemu
