#include "mma_record_args.hpp"

#include "check_args.hpp"

namespace tcemu_gpu {

int parse_mma_record_args(int argc, char** argv, int n_instr, MmaRecordOptions& o) {
  CLI::App app{"mma_record: records mma.sync and wgmma of sm_90a on directed and random tiles (docs/gpu.md)",
               "mma_record"};
  // An option given twice: the last one counts (device_check.sh appends MMA_ARGS to --jobs 4).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto integer = [&](const char* name, const char* type, int& v, int lo, int hi, const char* what) {
    return app.add_option(name, v, what)
        ->transform(check_args::decimal_integer())
        ->check(CLI::Range(lo, hi))
        ->type_name(type)
        ->capture_default_str();
  };
  app.add_option("--out", o.out_dir, "folder for mma_summary.txt and mma/ (made when missing)")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_option("--only", o.only, "only the instructions whose spelling holds SUBSTRING")->type_name("SUBSTRING");
  integer("--jobs", "N", o.jobs, 1, kMmaRecordMaxJobs, "instructions run at a time (one child process each)");
  integer("--random", "N", o.random, 0, kMmaRecordMaxRandom, "random tiles per distribution, mma.sync");
  integer("--random-wg", "N", o.random_wg, 0, kMmaRecordMaxRandom,
          "random tiles per distribution, wgmma with scale-d = 1 (a quarter, at least 1, with scale-d = 0)");
  integer("--child-timeout", "S", o.child_timeout, kMmaRecordMinChildTimeout, kMmaRecordMaxChildTimeout,
          "seconds before a child that has not ended is killed");
  app.add_flag("--list", o.list, "print the instructions, run nothing");
  app.add_flag("--host-dry-run", o.host_dry_run, "no GPU: write the records with D taken from C (checks the C/D layouts)");
  // Internal: what a child does, in this process (its own group in --help).
  integer("--child", "I", o.child, 0, n_instr - 1, "run instruction I (an index of --list) in this process")
      ->default_str("")
      ->group("Internal");
  app.footer("exit: 0 done (each record's status is in mma_summary.txt), 1 --host-dry-run or --child failed, "
             "2 bad command line");
  return check_args::parse(app, argc, argv, "mma_record");
}

}  // namespace tcemu_gpu
