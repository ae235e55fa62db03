// tcemu: the command line. Each subcommand lives in its own cmd_*.cpp.
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli_integers.hpp"
#include "commands.hpp"
#include "tcemu/parallel.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tcemu: bit-exact emulator of NVIDIA tensor-core arithmetic and conversions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tcemu 0.1.0");
  tcemu::cli::Runner run;
  // --threads N, before or after the subcommand (fallthrough: subcommands pass it up):
  // the thread count of every multi-threaded operation, as TCEMU_NUM_THREADS gives it.
  app.fallthrough();
  int threads = 0;
  app.add_option("--threads", threads,
                 "threads for whole-matrix MMA and GEMM, array conversions, golden generation, compare's model "
                 "diagnosis, quantize, dequantize and analyze (default: "
                 "TCEMU_NUM_THREADS, else every core)")
      ->check(CLI::Range(1, tcemu::kMaxThreads));
  tcemu::cli::add_info_command(app, run);
  tcemu::cli::add_decode_command(app, run);
  tcemu::cli::add_convert_command(app, run);
  tcemu::cli::add_demo_command(app, run);
  tcemu::cli::add_dot_command(app, run);
  tcemu::cli::add_instr_command(app, run);
  tcemu::cli::add_golden_command(app, run);
  tcemu::cli::add_compare_command(app, run);
  tcemu::cli::add_quantize_command(app, run);
  tcemu::cli::add_analyze_command(app, run);
  tcemu::cli::add_lossscale_command(app, run);
  tcemu::cli::add_mma_command(app, run);
  tcemu::cli::add_gemm_command(app, run);
  tcemu::cli::strict_integer_options(app);  // decimal, in range: no saturation, no octal
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors are bad input: status 2
  }
  if (threads > 0) setenv("TCEMU_NUM_THREADS", std::to_string(threads).c_str(), 1);
  if (const std::string bad = tcemu::threads_env_error(); !bad.empty()) {
    std::cerr << "tcemu: " << bad << "\n";
    return 2;
  }
  try {
    return run ? run() : 0;
  } catch (const std::exception& e) {
    std::cerr << "tcemu: " << e.what() << "\n";
    return 2;
  }
}
