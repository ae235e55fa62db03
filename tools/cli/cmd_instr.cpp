// tcemu instr list: the instruction catalog with datapath parameters, evidence and confidence.
#include <iostream>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/catalog.hpp"

namespace tcemu::cli {
namespace {

struct InstrArgs {
  std::string arch, family;
};

int run_list(const InstrArgs& a) {
  size_t shown = 0;
  std::cout << "arch\tptx\ttypes\tshape\tdatapath\tconfidence\tevidence\tnote\n";
  for (const InstrEntry& e : catalog()) {
    if (!a.arch.empty() && e.arch != a.arch) continue;
    if (!a.family.empty() && e.family.find(a.family) == std::string::npos && e.ptx.find(a.family) == std::string::npos)
      continue;
    std::string types = std::string(info(e.atype).name) + "*" + std::string(info(e.btype).name) + "->" +
                        std::string(to_string(e.dtype));
    if (e.scale_type)
      types += " scale " + std::string(info(*e.scale_type).name) + "/" + std::to_string(e.scale_block);
    if (e.types_in_descriptor) types += " (descriptor: --atype --btype --dtype" + std::string(e.scale_type ? " --stype" : "") + ")";
    std::cout << e.arch << "\t" << e.ptx << "\t" << types << "\tm" << e.M << "n" << e.N << "k" << e.K << "\t"
              << describe(e.params) << "\t" << to_string(e.confidence) << "\t" << e.evidence << "\t" << e.note << "\n";
    ++shown;
  }
  if (shown == 0) throw InputError("no catalog entry matches (arch '" + a.arch + "', family '" + a.family + "')");
  return 0;
}

}  // namespace

void add_instr_command(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("instr", "The tensor-core instruction catalog");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "List entries (tab-separated) with datapath parameters, evidence and confidence");
  auto a = std::make_shared<InstrArgs>();
  list->add_option("--arch", a->arch, "only this architecture (exact, e.g. sm_90a)");
  list->add_option("--family", a->family, "only entries whose family or spelling contains this text");
  list->callback([&run, a] { run = [a] { return run_list(*a); }; });
}

}  // namespace tcemu::cli
