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
};

std::string show(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", static_cast<double>(f), std::bit_cast<uint32_t>(f));
  return buf;
}

bool parse_flag(const std::string& w, size_t lineno) {
  if (w == "1" || w == "inf" || w == "true" || w == "found_inf") return true;
  if (w == "0" || w == "ok" || w == "false" || w == "finite") return false;
  throw InputError("line " + std::to_string(lineno) + ": expected a found-inf flag (1/0, inf/ok, true/false), found '" + w + "'");
}

int run_lossscale(const LossArgs& a) {
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
  cmd->add_option("--init", a->init, "initial scale (GradScaler 65536; Megatron's default is 2^32)");
  cmd->add_option("--growth", a->growth, "growth factor (2)");
  cmd->add_option("--backoff", a->backoff, "backoff factor (0.5)");
  cmd->add_option("--interval", a->interval, "growth interval (2000; Megatron 1000)");
  cmd->add_flag("--megatron", a->megatron, "Megatron DynamicGradScaler (hysteresis, min scale)");
  cmd->add_option("--hysteresis", a->hysteresis, "Megatron hysteresis (2)");
  cmd->add_option("--min-scale", a->min_scale, "Megatron minimum scale (1)");
  cmd->add_option("--grads", a->grads, "gradient .npy files, one step each (default: flags on stdin)");
  cmd->callback([&run, a] {
    run = [a] {
      try {
        return run_lossscale(*a);
      } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
      }
    };
  });
}

}  // namespace tcemu::cli
