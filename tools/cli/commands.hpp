// Each subcommand of the tcemu command line registers itself here: a cmd_NAME.cpp defines
// add_NAME_command and main.cpp calls it. Errors in input give exit status 2.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tcemu::cli {

// A subcommand sets `run` to the function to call when it was chosen; it returns the exit
// status.
using Runner = std::function<int()>;
void add_info_command(CLI::App& app, Runner& run);
void add_decode_command(CLI::App& app, Runner& run);
void add_convert_command(CLI::App& app, Runner& run);
void add_demo_command(CLI::App& app, Runner& run);
void add_dot_command(CLI::App& app, Runner& run);
void add_instr_command(CLI::App& app, Runner& run);
void add_golden_command(CLI::App& app, Runner& run);
void add_compare_command(CLI::App& app, Runner& run);
void add_quantize_command(CLI::App& app, Runner& run);  // quantize and dequantize
void add_analyze_command(CLI::App& app, Runner& run);
void add_lossscale_command(CLI::App& app, Runner& run);
void add_mma_command(CLI::App& app, Runner& run);  // whole-matrix MMA on .npy operands
void add_gemm_command(CLI::App& app, Runner& run);  // library GEMM: split-K plan and epilogue

}  // namespace tcemu::cli
