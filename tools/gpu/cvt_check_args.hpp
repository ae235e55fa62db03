// cvt_check's options and their parsing (cvt_check_args.cpp, CLI11, compiled by the host
// compiler; this header is plain C++ for cvt_check.cu).
#pragma once

#include <string>

namespace tcemu_gpu {

struct CvtCheckOptions {
  std::string out_dir = ".";
  double budget = 150.0;  // seconds for the whole program after start-up
  bool full = false;
  std::string only;
  bool list = false;
  bool eval_only = false;
  bool selftest_host = false;  // only the host self-check (no GPU needed)
};

// Largest --budget, seconds (a day: longer sweeps are --full).
inline constexpr double kCvtCheckMaxBudget = 86400.0;

// Reads argv into o: -1 when cvt_check is to run; otherwise the exit status (0 after --help,
// 2 after a bad command line, reported in one line on stderr that names the option).
int parse_cvt_check_args(int argc, char** argv, CvtCheckOptions& o);

}  // namespace tcemu_gpu
