// tcemu: the command line. Each subcommand lives in its own cmd_*.cpp.
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tcemu: bit-exact emulator of NVIDIA tensor-core arithmetic and conversions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tcemu 0.1.0");
  tcemu::cli::Runner run;
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors are bad input: status 2
  }
  try {
    return run ? run() : 0;
  } catch (const std::exception& e) {
    std::cerr << "tcemu: " << e.what() << "\n";
    return 2;
  }
}
