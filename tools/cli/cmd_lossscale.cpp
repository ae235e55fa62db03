// tcemu lossscale: replays dynamic loss scaling over a sequence of steps and prints the scale
// and trackers after each. Steps come as found-inf flags, one per line on stdin ("1"/"0",
// "inf"/"ok", "true"/"false"), or as gradient files (--grads a.npy b.npy ...: one step per
// file; found_inf when any scaled gradient is not finite, as GradScaler.unscale_ finds it).
#include <bit>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_util.hpp"
#include "cmd_quant_io.hpp"
#include "commands.hpp"
#include "tcemu/loss_scale.hpp"

namespace tcemu::cli {
namespace {

struct LossArgs {
  double init = -1, growth = 2.0, backoff = 0.5, min_scale = 1.0;
  int interval = -1, hysteresis = 2;
  bool megatron = false;
  std::vector<std::string> grads;
  CLI::Option *init_opt = nullptr, *interval_opt = nullptr;  // given on the command line?
};

// The bounds PyTorch's GradScaler and Megatron's DynamicGradScaler assert in their
// constructors (growth > 1, 0 < backoff < 1, interval > 0, hysteresis > 0, min scale > 0),
// and a finite positive initial scale that a float holds.
void check_options(const LossArgs& a) {
  auto show_d = [](double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  if (a.init_opt->count() && !(std::isfinite(a.init) && a.init > 0 && a.init <= 3.4028234663852886e38))
    throw InputError("--init: " + show_d(a.init) + " is not a positive finite scale (a float)");
  if (a.interval_opt->count() && a.interval < 1)
    throw InputError("--interval: " + std::to_string(a.interval) + " is not a positive number of steps");
  if (!(std::isfinite(a.growth) && a.growth > 1)) throw InputError("--growth: " + show_d(a.growth) + " must be a finite factor above 1");
  if (!(a.backoff > 0 && a.backoff < 1)) throw InputError("--backoff: " + show_d(a.backoff) + " must lie strictly between 0 and 1");
  if (a.hysteresis < 1) throw InputError("--hysteresis: " + std::to_string(a.hysteresis) + " must be at least 1");
  if (!(std::isfinite(a.min_scale) && a.min_scale > 0)) throw InputError("--min-scale: " + show_d(a.min_scale) + " must be positive and finite");
  if (a.megatron && a.init_opt->count() && a.min_scale > a.init)
    throw InputError("--min-scale " + show_d(a.min_scale) + " is above --init " + show_d(a.init));
}

std::string show(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", static_cast<double>(f), std::bit_cast<uint32_t>(f));
  return buf;
}

bool parse_flag(const std::string& w, size_t lineno) {
  if (w == "1" || w == "inf" || w == "true" || w == "found_inf") return true;
  if (w == "0" || w == "ok" || w == "false" || w == "finite") return false;
  throw InputError("line " + std::to_string(lineno) + ": expected a found-inf flag (1/0, inf/ok, true/false), found '" + shown(w) + "'");
}

int run_lossscale(const LossArgs& a) {
  check_options(a);
  std::vector<bool> flags;
  if (!a.grads.empty()) {
    for (const std::string& g : a.grads) {
      const QuantInput in = read_quant_input(g, "");
      bool inf = false;
      for (float v : in.values) inf = inf || !std::isfinite(v);
      flags.push_back(inf);
    }
  } else {
    std::string line;
    size_t lineno = 0;
    while (std::getline(std::cin, line)) {
      ++lineno;
      auto w = words(line);
      if (w.empty()) continue;
      if (w.size() != 1) throw InputError("line " + std::to_string(lineno) + ": one flag per line");
      flags.push_back(parse_flag(std::string(w[0]), lineno));
    }
  }
  if (a.megatron) {
    MegatronScalerOptions o;
    if (a.init > 0) o.initial_scale = static_cast<float>(a.init);
    o.min_scale = static_cast<float>(a.min_scale);
    o.growth_factor = static_cast<float>(a.growth);
    o.backoff_factor = static_cast<float>(a.backoff);
    if (a.interval > 0) o.growth_interval = a.interval;
    o.hysteresis = a.hysteresis;
    if (std::string err = megatron_scaler_options_error(o); !err.empty()) throw InputError(err);
    MegatronDynamicScaler s(o);
    std::cout << "step\tfound_inf\tscale\tgrowth_tracker\thysteresis_tracker\n";
    std::cout << "0\t-\t" << show(s.scale()) << "\t" << s.growth_tracker() << "\t" << s.hysteresis_tracker() << "\n";
    for (size_t i = 0; i < flags.size(); ++i) {
      s.update(flags[i]);
      std::cout << i + 1 << "\t" << flags[i] << "\t" << show(s.scale()) << "\t" << s.growth_tracker() << "\t"
                << s.hysteresis_tracker() << "\n";
    }
    return 0;
  }
  GradScalerOptions o;
  if (a.init > 0) o.init_scale = static_cast<float>(a.init);
  o.growth_factor = a.growth;
  o.backoff_factor = a.backoff;
  if (a.interval > 0) o.growth_interval = a.interval;
  if (std::string err = grad_scaler_options_error(o); !err.empty()) throw InputError(err);
  GradScaler s(o);
  std::cout << "step\tfound_inf\tscale\tgrowth_tracker\n";
  std::cout << "0\t-\t" << show(s.scale()) << "\t" << s.growth_tracker() << "\n";
  for (size_t i = 0; i < flags.size(); ++i) {
    s.update(flags[i]);
    std::cout << i + 1 << "\t" << flags[i] << "\t" << show(s.scale()) << "\t" << s.growth_tracker() << "\n";
  }
  return 0;
}

}  // namespace

void add_lossscale_command(CLI::App& app, Runner& run) {
  auto a = std::make_shared<LossArgs>();
  auto* cmd = app.add_subcommand("lossscale", "Replay dynamic loss scaling (PyTorch GradScaler, or Megatron with hysteresis)");
  a->init_opt = cmd->add_option("--init", a->init, "initial scale (GradScaler 65536; Megatron's default is 2^32)");
  cmd->add_option("--growth", a->growth, "growth factor (2)");
  cmd->add_option("--backoff", a->backoff, "backoff factor (0.5)");
  a->interval_opt = cmd->add_option("--interval", a->interval, "growth interval (2000; Megatron 1000)");
  cmd->add_flag("--megatron", a->megatron, "Megatron DynamicGradScaler (hysteresis, min scale)");
  cmd->add_option("--hysteresis", a->hysteresis, "Megatron hysteresis (2)");
  cmd->add_option("--min-scale", a->min_scale, "Megatron minimum scale (1)");
  cmd->add_option("--grads", a->grads, "gradient .npy files, one step each (default: flags on stdin)");
  cmd->callback([&run, a] {
    run = [a] { return run_lossscale(*a); };
  });
}

}  // namespace tcemu::cli
