// tcemu demo: the conversion demo on built-in data. Shows how a few telling values land in
// the narrow formats under every convention, with the decoded result.
#include <iomanip>
#include <iostream>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/convert.hpp"

namespace tcemu::cli {
namespace {

// Each cell: the code and its value, "-" where the convention has no such conversion, "undef"
// where it defines no result.
std::string cell(std::string_view conv, Fmt to, const DecimalValue& v, Round round, bool sat) {
  OptionRequest req;
  req.round = round;
  if (sat) req.satfinite = true;
  Resolved r = resolve(conv, Fmt::f32, to, req);
  if (!r.options) return "-";
  ConvertResult res = v.kind == DecimalValue::nan ? round_nan(v.sign, to, *r.options)
                    : v.kind == DecimalValue::inf ? round_inf(v.sign, to, *r.options)
                                                  : round_value(v.sign, v.sig, v.exp, v.sticky, to, *r.options);
  if (res.flags & kUndefined) return "undef";
  return to_hex(to, res.code) + " (" + exact_decimal(to, res.code) + ")";
}

int run_demo() {
  const char* values[] = {"465", "-465", "464", "nan", "1e-9", "5.0", "-3.3", "inf"};
  struct Col { std::string_view conv; Round round; bool sat; std::string title; };
  const Col cols[] = {
      {"ptx", Round::rn, true, "ptx rn.satfinite"},  {"cuda-host", Round::rn, false, "cuda-host NOSAT"},
      {"cuda-host", Round::rn, true, "cuda-host SAT"}, {"cutlass-host", Round::rn, false, "cutlass-host"},
      {"ml-dtypes", Round::rn, false, "ml-dtypes"},    {"ocp-ovf", Round::rn, false, "ocp-ovf"},
      {"ocp-sat", Round::rn, false, "ocp-sat"},       {"gfloat", Round::rn, false, "gfloat"},
  };
  const Col ue8m0_cols[] = {
      {"ptx", Round::rz, false, "ptx rz"},          {"ptx", Round::ru, true, "ptx rp.satfinite"},
      {"cuda-host", Round::rz, false, "cuda-host rz"}, {"cutlass-host", Round::ru, false, "cutlass-host"},
      {"ml-dtypes", Round::rn, false, "ml-dtypes"}, {"llvm-apfloat", Round::rn, false, "llvm-apfloat"},
      {"gfloat", Round::rn, false, "gfloat"},
  };
  std::cout << "How values land in narrow formats under each convention (code, then its exact value).\n"
               "'-': the convention has no such conversion; 'undef': it defines no result.\n";
  for (Fmt to : {Fmt::e4m3, Fmt::e5m2, Fmt::e2m1, Fmt::ue8m0}) {
    std::cout << "\n== f32 value -> " << info(to).name << "\n";
    const Col* cs = to == Fmt::ue8m0 ? ue8m0_cols : cols;
    const size_t nc = to == Fmt::ue8m0 ? std::size(ue8m0_cols) : std::size(cols);
    for (const char* val : values) {
      DecimalValue v = *parse_decimal(val);
      std::cout << std::left << std::setw(7) << val;
      for (size_t i = 0; i < nc; ++i) {
        std::cout << " | " << cs[i].title << ": " << cell(cs[i].conv, to, v, cs[i].round, cs[i].sat);
      }
      std::cout << "\n";
    }
  }
  std::cout << "\nTry: echo 43e88000 | tcemu convert --from f32 --to e4m3 --satfinite   (465.0 -> 7e)\n";
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("demo", "Show how 465, NaN, 1e-9, ... land in e4m3/e5m2/e2m1/ue8m0 under each convention");
  cmd->callback([&run] { run = [] { return run_demo(); }; });
}

}  // namespace tcemu::cli
