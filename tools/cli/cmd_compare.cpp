// tcemu compare EXPECTED.json ACTUAL: bit-by-bit comparison of a kernel's output with a golden
// case, and a report that says where and why it differs (docs/golden.md, docs/workflow.md).
// Exit status: 0 identical, 1 different, 2 bad input.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::cli {
namespace {

using namespace tcemu::golden;

struct CompareArgs {
  std::string expected, actual, case_name, json_out, html_out, missing = "error";
  bool nans_equal = false, no_models = false, quiet = false;
  size_t max_listed = 10, sample = 2048;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write");
  out << text;
}

// The case --case names: its name, its name as the .npy files spell it (characters other
// than letters, digits, '-' and '_' become '_'), or its index.
const Case& find_case(const GoldenFile& exp, const std::string& file, const std::string& want) {
  auto npy_spelling = [](const std::string& s) {
    std::string o;
    for (char ch : s) o.push_back((std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_');
    return o;
  };
  for (const Case& c : exp.cases)
    if (c.name == want) return c;
  const Case* by_spelling = nullptr;
  size_t matches = 0;
  for (const Case& c : exp.cases)
    if (npy_spelling(c.name) == want) by_spelling = &c, ++matches;
  if (matches == 1) return *by_spelling;
  const bool is_index = !want.empty() && want.size() <= 9 &&
                        std::all_of(want.begin(), want.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  if (is_index) {
    const size_t i = std::stoul(want);
    if (i < exp.cases.size()) return exp.cases[i];
    throw InputError(file + ": no case " + want + ": it holds " + std::to_string(exp.cases.size()) + " case" +
                     (exp.cases.size() == 1 ? "" : "s") + " (indices 0 to " + std::to_string(exp.cases.size() - 1) + ")");
  }
  std::string names;
  for (size_t i = 0; i < exp.cases.size() && i < 20; ++i) names += "\n  " + std::to_string(i) + ": " + exp.cases[i].name;
  if (exp.cases.size() > 20) names += "\n  ... (" + std::to_string(exp.cases.size() - 20) + " more)";
  throw InputError(file + ": no case named '" + shown(want) + "'" + (matches > 1 ? " (several names spell it so)" : "") +
                   "; its cases (--case takes a name or an index):" + names);
}

int run_compare(const CompareArgs& a) {
  GoldenFile exp = value_of(try_read_golden(a.expected));
  // With --json - standard output holds the JSON alone; the text goes to standard error.
  std::ostream& text = a.json_out == "-" ? std::cerr : std::cout;
  std::vector<const Case*> cases;
  if (!a.case_name.empty()) {
    cases.push_back(&find_case(exp, a.expected, a.case_name));
  } else if (actual_kind(a.actual) == "golden") {
    for (const Case& c : exp.cases) cases.push_back(&c);
  } else {
    if (exp.cases.size() != 1)
      throw InputError(a.expected + " holds " + std::to_string(exp.cases.size()) +
                       " cases: choose the one ACTUAL belongs to with --case NAME (or its index)");
    cases.push_back(&exp.cases[0]);
  }
  CompareOptions opt;
  opt.nans_equal = a.nans_equal;
  opt.max_listed = a.max_listed;
  opt.analyse_models = !a.no_models;
  opt.model_sample = a.sample;
  nlohmann::json reports = nlohmann::json::array();
  bool all_same = true;
  // --missing skip: a golden ACTUAL may hold only some of EXPECTED's cases (tcemu-gpu run
  // writes the cases the GPU ran); the others are listed, not compared.
  std::set<std::string> present;
  const bool skip_missing = a.missing == "skip" && actual_kind(a.actual) == "golden";
  const ActualSource actual = value_of(ActualSource::try_open(a.actual));  // a golden ACTUAL is read once, not once per case
  if (skip_missing)
    for (const std::string& name : actual.case_names()) present.insert(name);
  nlohmann::json skipped = nlohmann::json::array();
  size_t compared = 0;
  // A quantize case's codes are its main result; against a golden ACTUAL the scales and the
  // global scale are compared too, each with a report of its own.
  std::vector<Case> parts;
  if (actual_kind(a.actual) == "golden") {
    for (const Case* c : cases)
      for (Case& p : expected_parts(*c)) parts.push_back(std::move(p));
    for (const Case& p : parts) cases.push_back(&p);  // parts is complete: the pointers stay valid
  }
  for (const Case* c : cases) {
    if (skip_missing && !present.count(c->name)) {
      if (c->expected_name == "codes" || c->op != OpKind::quantize) {
        skipped.push_back(c->name);
        if (!a.quiet) text << "skipped " << c->name << ": not in " << a.actual << "\n";
      }
      continue;
    }
    ++compared;
    const Array act = value_of(actual.try_read(*c));
    const CompareReport r = value_of(try_compare(*c, act, opt));
    all_same = all_same && r.identical();
    if (!a.quiet) text << text_report(r) << (cases.size() > 1 ? "\n" : "");
    if (!a.json_out.empty()) reports.push_back(json_report(r));
    if (!a.html_out.empty()) {
      std::string path = a.html_out;
      if (cases.size() > 1) {
        const std::filesystem::path p(a.html_out);
        std::string part = c->name;
        if (c->expected_name != "codes" && c->op == OpKind::quantize) part += "." + c->expected_name;
        path = (p.parent_path() / (p.stem().string() + "." + part + p.extension().string())).string();
      }
      write_file(path, html_report(r));
    }
  }
  if (skip_missing && compared == 0)
    throw InputError(a.actual + ": holds none of the cases of " + a.expected + " (nothing to compare)");
  if (skip_missing && !skipped.empty() && !a.quiet)
    text << compared << " compared, " << skipped.size() << " case(s) of " << a.expected << " not in " << a.actual
              << " (skipped)\n";
  if (!a.json_out.empty()) {
    nlohmann::json j = {{"expected", a.expected}, {"actual", a.actual}, {"identical", all_same}, {"cases", reports}};
    if (skip_missing) j["skipped"] = skipped;
    if (a.json_out == "-") std::cout << j.dump(1) << "\n";
    else write_file(a.json_out, j.dump(1) + "\n");
  }
  if (a.quiet) text << (all_same ? "identical" : "different") << "\n";
  return all_same ? 0 : 1;
}

}  // namespace

void add_compare_command(CLI::App& app, Runner& run) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand("compare",
                                 "Compare a kernel's output with a golden case bit for bit (exit 0 identical, 1 different, 2 bad input)");
  cmd->add_option("EXPECTED", a->expected, "golden JSON file")->required();
  cmd->add_option("ACTUAL", a->actual,
                  "the kernel's output: raw little-endian codes in the expected layout, a .npy file, or a golden .json file")
      ->required();
  cmd->add_option("--case", a->case_name, "the case ACTUAL belongs to (name or index), when EXPECTED holds several");
  cmd->add_option("--missing", a->missing,
                  "cases of EXPECTED that a golden ACTUAL lacks: 'error' (default) or 'skip' (list them, compare the rest; "
                  "e.g. the output of tcemu-gpu run, which leaves out what the GPU cannot run)")
      ->check(CLI::IsMember({"error", "skip"}))
      ->capture_default_str();
  cmd->add_flag("--nans-equal", a->nans_equal, "treat all NaNs as equal (any payload or sign)");
  cmd->add_option("--json", a->json_out,
                  "write a JSON report to this file ('-' = standard output, which then holds the JSON alone: the text "
                  "report goes to standard error)");
  cmd->add_option("--html", a->html_out, "write an HTML report with a heat map of mismatches");
  cmd->add_option("--max-listed", a->max_listed, "mismatches listed in the report")->capture_default_str();
  cmd->add_option("--sample", a->sample, "elements on which alternative models are evaluated")->capture_default_str();
  cmd->add_flag("--no-models", a->no_models, "skip the alternative-model analysis");
  cmd->add_flag("-q,--quiet", a->quiet, "print only 'identical' or 'different'");
  cmd->callback([&run, a] { run = [a] { return run_compare(*a); }; });
}

}  // namespace tcemu::cli
