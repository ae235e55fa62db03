// The GEMM plan options of `tcemu gemm` and `tcemu golden gen --gemm` (tools/cli/cli_plan.*):
// the options parsed as the command line parses them (CLI11), then the plan request resolved
// for an instruction and K (resolve_plan) and the epilogue read (plan_epilogue: alpha, beta,
// scales, bias, output type and rounding), as both commands do before any arithmetic. Byte 0
// picks a catalog instruction that accumulates in f32 or f16, bytes 1-2 give K, the rest are
// the arguments, one per line. Only the command's input errors may escape: CLI11's parse
// error (exit 2), InputError, the .npy reader's NpyError (a named file that is missing).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli_plan.hpp"
#include "cli_util.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu_golden/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static const std::vector<const tcemu::InstrEntry*> instrs = [] {
    std::vector<const tcemu::InstrEntry*> v;
    for (const tcemu::InstrEntry& e : tcemu::catalog())
      if (!e.types_in_descriptor && (e.dtype == tcemu::AccType::f32 || e.dtype == tcemu::AccType::f16)) v.push_back(&e);
    return v;
  }();
  const tcemu::InstrEntry& e = *instrs[(data[0] * 7u) % instrs.size()];
  // K: mostly a multiple of the instruction's K (up to 64 steps), sometimes any 15-bit value.
  const unsigned k16 = data[1] | (data[2] << 8);
  const int K = (k16 & 0x8000) ? static_cast<int>(k16 & 0x7FFF) : static_cast<int>((k16 % 64 + 1) * e.K);
  std::vector<std::string> args = {"plan"};
  std::string cur;
  for (size_t i = 3; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 64) return 0;  // a few dozen options reach every check
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  // The parser is built once per 4096 inputs (building it took two thirds of a run) and
  // cleared per input; the bound arguments go back to their defaults, the option pointers stay.
  // CLI11 2.1's App::clear() keeps the parse order of every earlier parse (App::parse_order_):
  // a parser kept for millions of inputs grew past the 512 MiB allocation limit, a finding of
  // the harness, not of tcemu (which parses one command line).
  static tcemu::cli::PlanArgs p;
  static std::unique_ptr<CLI::App> owner;
  static unsigned inputs = 0;
  if (!owner || ++inputs % 4096 == 0) {
    owner.reset();
    p = tcemu::cli::PlanArgs{};
    owner = std::make_unique<CLI::App>();
    tcemu::cli::add_plan_options(owner.get(), p, true);
  }
  CLI::App& app = *owner;
  app.clear();
  {
    tcemu::cli::PlanArgs fresh;
    fresh.options = p.options;
    fresh.split_opt = p.split_opt;
    fresh.grain_opt = p.grain_opt;
    p = std::move(fresh);
  }
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return 0;
  }
  try {
    const tcemu::PlanRequest req = tcemu::cli::plan_request(p);
    tcemu::GemmPlan plan;
    const std::string err = tcemu::resolve_plan(e, K, req, plan);
    if (err.empty() && !req.chunks) {
      // Chunks computed from a split count cover K exactly (an explicit chunk list is passed
      // through: the GEMM checks its sum against the problem's K).
      long sum = 0;
      for (const int c : plan.chunks) {
        if (c < 0) std::abort();
        sum += c;
      }
      if (!plan.chunks.empty() && sum != K) std::abort();
    } else if (!err.empty() && err.find(' ') == std::string::npos) {
      std::abort();  // an error is a message
    }
    (void)tcemu::cli::plan_epilogue(p);
  } catch (const tcemu::cli::InputError&) {
  } catch (const tcemu::io::NpyError&) {
  }
  return 0;
}
