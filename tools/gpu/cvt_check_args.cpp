#include "cvt_check_args.hpp"

#include "check_args.hpp"

namespace tcemu_gpu {

int parse_cvt_check_args(int argc, char** argv, CvtCheckOptions& o) {
  CLI::App app{"cvt_check: every PTX cvt variant of the present GPU against tcemu::ptx_cvt_eval (docs/gpu.md)",
               "cvt_check"};
  // An option given twice: the last one counts (device_check.sh appends CVT_ARGS).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--out", o.out_dir, "folder for cvt_report.txt and cvt_directed.txt (existing)")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_option("--budget", o.budget, "seconds for the whole run after start-up (the f32 and cvt.rs sweeps share it)")
      ->check(check_args::number_in(0.0, kCvtCheckMaxBudget))
      ->type_name("SECONDS")
      ->capture_default_str();
  app.add_flag("--full", o.full, "exhaustive f32 sweeps, the budget ignored");
  app.add_option("--only", o.only, "only the variants whose spelling holds SUBSTRING")->type_name("SUBSTRING");
  app.add_flag("--list", o.list, "print the variants and their targets, run nothing");
  app.add_flag("--eval-only", o.eval_only, "compare through ptx_cvt_eval for every input (no bulk path)");
  app.add_flag("--selftest-host", o.selftest_host, "only the host self-check of the selected variants (no GPU)");
  app.footer("exit: 0 done (mismatches are in the report), 1 a CUDA or file error or an unsupported GPU (--selftest-host: an "
             "inconsistent variant), 2 bad command line");
  return check_args::parse(app, argc, argv, "cvt_check");
}

}  // namespace tcemu_gpu
