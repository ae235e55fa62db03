// The K schedule and epilogue options of a library GEMM (tcemu/gemm.hpp), declared once for
// `tcemu gemm` and `tcemu golden gen --gemm`: --plan, --split-k, --grain, --chunks, --epilogue,
// --alpha, --beta, --a-scale, --b-scale, --bias, --bias-type, --out-type, --out-round and
// (where the command has no --satfinite of its own) --satfinite.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tcemu/gemm.hpp"

namespace tcemu::cli {

struct PlanArgs {
  int split_k = 0, grain = 0;
  std::string chunks, plan, epilogue;
  std::string alpha = "1", beta = "0", a_scale, b_scale, bias, bias_type;
  std::string out_type = "f32", out_round = "rn";
  bool satfinite = false;
  std::vector<CLI::Option*> options;  // every option added, to tell whether one was given
  CLI::Option *split_opt = nullptr, *grain_opt = nullptr;
  bool any_given() const;
};

// Adds the options to `c`, bound to `p` (which must outlive the parse). with_satfinite: add
// --satfinite too (a command with a --satfinite of its own sets p.satfinite from it).
void add_plan_options(CLI::App* c, PlanArgs& p, bool with_satfinite);

// The request for resolve_plan: preset, split count, grain, chunks, epilogue order.
PlanRequest plan_request(const PlanArgs& p);

// The epilogue's scalars and vectors: alpha, beta (decimal numbers rounded once to f32),
// a_scale / b_scale (a number: per tensor; a .npy: one f32 per row / column of D), bias (a
// 1-D .npy), out_type, out_round, satfinite. The order is resolve_plan's. InputError naming
// the flag on bad input.
Epilogue plan_epilogue(const PlanArgs& p);

}  // namespace tcemu::cli
