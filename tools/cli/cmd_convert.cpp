// tcemu convert: element conversions of codes (or decimal values) read one per line.
// tcemu cvt: PTX cvt instructions, with their operand packing (registered with convert).
// Output is written line by line; at the first bad line the command stops with a message
// naming the line and exit status 2, printing nothing for that line or later ones.
#include <iostream>
#include <utility>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/ptx_cvt.hpp"

namespace tcemu::cli {
namespace {

struct ConvertArgs {
  std::string from, to, round, convention;
  bool satfinite = false, relu = false, ftz = false, value = false, list = false, flags = false;
};

// The IEEE status flags of one conversion, by name ("-" when none): docs/conversions.md.
std::string flag_names(uint8_t f) {
  std::string s;
  const std::pair<uint8_t, const char*> names[] = {
      {kInexact, "inexact"}, {kUnderflow, "underflow"}, {kOverflow, "overflow"}, {kInvalid, "invalid"}, {kUndefined, "undefined"}};
  for (const auto& [bit, name] : names)
    if (f & bit) s += (s.empty() ? "" : ",") + std::string(name);
  return s.empty() ? "-" : s;
}

int list_conventions() {
  for (const Convention& c : conventions()) std::cout << c.name << "\t" << c.summary << "\t[" << c.source << "]\n";
  return 0;
}

int run_convert(const ConvertArgs& a) {
  if (a.list) return list_conventions();
  if (a.to.empty() || (a.from.empty() && !a.value)) throw InputError("convert needs --from and --to (or --list)");
  // With --value the input is a decimal number; a convention's rules are checked as for f32.
  const Fmt from = a.from.empty() ? Fmt::f32 : format_arg(a.from), to = format_arg(a.to);
  OptionRequest req;
  if (!a.round.empty()) {
    req.round = parse_round(a.round);
    if (!req.round) throw InputError("unknown rounding mode '" + a.round + "' (rn, rna, rz, rd, ru, rs)");
  }
  if (a.satfinite) req.satfinite = true;
  if (a.relu) req.relu = true;
  if (a.ftz) req.ftz = true;
  Resolved r = resolve(a.convention, from, to, req);
  if (!r.options) throw InputError(r.error);
  const ConvertOptions opt = *r.options;
  const bool rs = opt.round == Round::rs;
  std::string line;
  size_t lineno = 0;
  std::string out;
  while (std::getline(std::cin, line)) {
    ++lineno;
    const std::string where = "line " + std::to_string(lineno);
    auto w = words(line);
    if (w.empty()) throw InputError(where + ": empty line (expected " + std::string(a.value ? "a number" : "a hex code") + ")");
    if (w.size() != (rs ? 2u : 1u))
      throw InputError(where + (rs ? ": rs needs the code and its random bits in hex ('CODE RBITS')"
                                   : ": expected one value, found " + std::to_string(w.size())));
    uint32_t rbits = 0;
    if (rs) {
      auto rb = parse_hex(w[1]);
      if (!rb || *rb > 0xffffffffu) throw InputError(where + ": random bits '" + shown(w[1]) + "' are not a 32-bit hex number");
      rbits = static_cast<uint32_t>(*rb);
    }
    ConvertResult res;
    if (a.value) {
      auto v = parse_decimal(w[0]);
      if (!v) throw InputError(where + ": '" + shown(w[0]) + "' is not a decimal number");
      if (v->kind == DecimalValue::nan) res = round_nan(v->sign, to, opt);
      else if (v->kind == DecimalValue::inf) res = round_inf(v->sign, to, opt);
      else res = round_value(v->sign, v->sig, v->exp, v->sticky, to, opt, rbits);
    } else {
      res = convert(from, to, parse_code(from, w[0], where), opt, rbits);
    }
    if (a.flags) {
      std::cout << to_hex(to, res.code) << " " << flag_names(res.flags) << "\n";
      continue;
    }
    if (res.flags & kUndefined)
      throw InputError(where + ": convention '" + (a.convention.empty() ? std::string("generic") : a.convention) +
                       "' defines no result for this input in " + std::string(info(to).name));
    std::cout << to_hex(to, res.code) << "\n";
  }
  return 0;
}

}  // namespace

void add_convert_command(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("convert", "Convert codes (one hex code per line on stdin) between formats");
  auto a = std::make_shared<ConvertArgs>();
  cmd->add_option("--from", a->from, "source format (f64 f32 tf32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 ue8m0 ue4m3 s8 u8 s4 u4 ue5m3)");
  cmd->add_option("--to", a->to, "destination format");
  cmd->add_option("--round", a->round, "rn (default), rna, rz, rd, ru, rs (stochastic: 'CODE RBITS' per line)");
  cmd->add_flag("--satfinite", a->satfinite, "overflow and Inf give +-MAX_NORM");
  cmd->add_flag("--relu", a->relu, "negative results become +0");
  cmd->add_flag("--ftz", a->ftz, "flush subnormal inputs and results to zero");
  cmd->add_option("--convention", a->convention, "named convention (see --list); default: generic");
  cmd->add_flag("--value", a->value, "read decimal numbers (e.g. 465, 1e-9, nan, -inf) instead of codes");
  cmd->add_flag("--list", a->list, "list the conventions");
  cmd->add_flag("--flags", a->flags,
                "print each result's IEEE status after it: inexact, underflow, overflow, invalid, undefined "
                "(no result defined; the line does not fail), or -");
  cmd->callback([&run, a] { run = [a] { return run_convert(*a); }; });

  auto* cvt = app.add_subcommand("cvt", "Run a PTX cvt instruction: source registers in hex per line");
  auto spelling = std::make_shared<std::string>();
  auto rsmap = std::make_shared<std::string>("ptx_doc");
  auto list = std::make_shared<bool>(false);
  cvt->add_option("--ptx", *spelling, "e.g. cvt.rn.satfinite.e4m3x2.f32 (operands a b); cvt.rs.*: then rbits");
  cvt->add_option("--rs-map", *rsmap, "random-bit mapping of x4 cvt.rs forms: ptx_doc (default) or flashinfer_hw");
  cvt->add_flag("--list", *list, "list every cvt variant with its architecture");
  cvt->callback([&run, spelling, rsmap, list] {
    run = [spelling, rsmap, list] {
      if (*list) {
        for (const std::string& s : ptx_cvt_catalog()) {
          const auto c = parse_ptx_cvt(s);
          std::cout << s << "\t" << (c.ok() ? c.value.arch : "?") << "\n";
        }
        return 0;
      }
      const auto parsed = parse_ptx_cvt(*spelling);
      if (!parsed.ok()) throw InputError(spelling->empty() ? std::string("cvt needs --ptx SPELLING (or --list)") : parsed.error);
      const PtxCvt* c = &parsed.value;
      RsBitMap map;
      if (*rsmap == "ptx_doc") map = RsBitMap::ptx_doc;
      else if (*rsmap == "flashinfer_hw") map = RsBitMap::flashinfer_hw;
      else throw InputError("unknown --rs-map '" + *rsmap + "' (ptx_doc, flashinfer_hw)");
      const size_t nsrc = (c->src_packed ? 1u : static_cast<size_t>(c->src_count)) + (c->has_rbits ? 1u : 0u);
      const int sbits = ptx_cvt_src_bits(*c), dbits = ptx_cvt_dst_bits(*c);
      std::string line;
      size_t lineno = 0;
      while (std::getline(std::cin, line)) {
        ++lineno;
        const std::string where = "line " + std::to_string(lineno);
        auto w = words(line);
        if (w.size() != nsrc)
          throw InputError(where + ": " + c->spelling + " takes " + std::to_string(nsrc) + " hex operand(s), found " +
                           std::to_string(w.size()));
        std::vector<uint64_t> src;
        uint32_t rbits = 0;
        for (size_t i = 0; i < w.size(); ++i) {
          auto v = parse_hex(w[i]);
          const bool is_rb = c->has_rbits && i + 1 == w.size();
          const int bits = is_rb ? 32 : sbits;
          if (!v || (bits < 64 && (*v >> bits) != 0))
            throw InputError(where + ": operand " + std::to_string(i + 1) + " '" + shown(w[i]) +
                             "' is not a " + std::to_string(bits) + "-bit hex value");
          if (is_rb) rbits = static_cast<uint32_t>(*v);
          else src.push_back(*v);
        }
        uint64_t d = ptx_cvt_eval(*c, src, rbits, map);
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string s(static_cast<size_t>(dbits / 4), '0');
        for (size_t i = s.size(); i-- > 0; d >>= 4) s[i] = kDigits[d & 15];
        std::cout << s << "\n";
      }
      return 0;
    };
  });
}

}  // namespace tcemu::cli
