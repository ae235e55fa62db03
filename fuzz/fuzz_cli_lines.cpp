// The line parsers of `tcemu convert`, `tcemu cvt` and `tcemu dot`, run as the command line
// runs them: the first byte picks a command (a conversion, any spelling of the cvt catalog,
// or an MMA instruction of the catalog), the rest is standard input. Only the commands' input
// error (InputError: exit status 2 with a message) may escape.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/ptx_cvt.hpp"

namespace {

constexpr size_t kFixed = 7, kCvts = 8, kDots = 16, kCommands = kFixed + kCvts + kDots;

std::vector<std::string> command(uint8_t pick) {
  const size_t k = pick % kCommands;
  static const std::vector<std::vector<std::string>> fixed = {
      {"convert", "--from", "f32", "--to", "e4m3"},
      {"convert", "--from", "bf16", "--to", "e2m1", "--round", "rs", "--satfinite"},
      {"convert", "--from", "tf32", "--to", "f16", "--round", "rz"},
      {"convert", "--value", "--to", "f16"},
      {"convert", "--value", "--to", "e5m2", "--satfinite"},
      {"convert", "--value", "--to", "f64", "--round", "ru"},
      {"convert", "--from", "e4m3", "--to", "ue8m0", "--convention", "ptx"},
  };
  static_assert(kFixed == 7);
  if (k < kFixed) return fixed[k];
  const std::vector<std::string> cvts = tcemu::ptx_cvt_catalog();
  if (k < kFixed + kCvts) return {"cvt", "--ptx", cvts[(pick * 7u) % cvts.size()]};
  // Instructions whose spelling names their types (dot cannot guess descriptor types).
  std::vector<const tcemu::InstrEntry*> dots;
  for (const tcemu::InstrEntry& e : tcemu::catalog())
    if (!e.types_in_descriptor) dots.push_back(&e);
  const tcemu::InstrEntry& e = *dots[(pick * 13u) % dots.size()];
  return {"dot", "--arch", e.arch, "--ptx", e.ptx};
}

// The command line that byte `pick` names, parsed once (CLI11 and the catalog cost more than
// the lines): the runner holds its options and reads std::cin when called.
const tcemu::cli::Runner& runner(uint8_t pick) {
  static std::vector<tcemu::cli::Runner> runners(256);
  tcemu::cli::Runner& run = runners[pick];
  if (!run) {
    std::vector<std::string> args = command(pick);
    args.insert(args.begin(), "tcemu");
    std::vector<char*> argv;
    for (std::string& s : args) argv.push_back(s.data());
    CLI::App app;
    tcemu::cli::add_convert_command(app, run);
    tcemu::cli::add_dot_command(app, run);
    app.parse(static_cast<int>(argv.size()), argv.data());
  }
  return run;
}

struct NullBuf : std::streambuf {
  int overflow(int c) override { return c; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const tcemu::cli::Runner& run = runner(data[0]);
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  static NullBuf null;
  std::streambuf* old_in = std::cin.rdbuf(in.rdbuf());
  std::streambuf* old_out = std::cout.rdbuf(&null);
  try {
    run();
  } catch (const tcemu::cli::InputError&) {
  }
  std::cin.rdbuf(old_in);
  std::cout.rdbuf(old_out);
  return 0;
}
