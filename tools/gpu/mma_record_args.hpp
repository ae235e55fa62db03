// mma_record's options and their parsing (mma_record_args.cpp, CLI11, compiled by the host
// compiler; this header is plain C++ for mma_record.cu).
#pragma once

#include <string>

namespace tcemu_gpu {

struct MmaRecordOptions {
  std::string out_dir = ".";
  std::string only;
  int jobs = 4;
  int random = 30;     // random tiles per distribution, mma.sync
  int random_wg = 12;  // per distribution, wgmma with scale-d = 1 (a quarter of it with scale-d = 0)
  int child_timeout = 90;
  bool list = false;
  int child = -1;  // internal: run this instruction index and exit
  bool host_dry_run = false;  // no GPU: D := C through the C/D packing, to check generation and sizes
};

// The ranges of the number options (docs/gpu.md).
inline constexpr int kMmaRecordMaxJobs = 64;
inline constexpr int kMmaRecordMaxRandom = 10000;      // --random, --random-wg
inline constexpr int kMmaRecordMinChildTimeout = 5;    // seconds
inline constexpr int kMmaRecordMaxChildTimeout = 3600;

// Reads argv into o (n_instr: the number of instructions, the bound of --child): -1 when
// mma_record is to run; otherwise the exit status (0 after --help, 2 after a bad command line,
// reported in one line on stderr that names the option).
int parse_mma_record_args(int argc, char** argv, int n_instr, MmaRecordOptions& o);

}  // namespace tcemu_gpu
