// tcemu dot: one dot product per line through an MMA instruction of the catalog.
// Line: a codes | b codes | c code [| a scale codes | b scale codes], all hex in their formats
// (block-scaled kinds: one scale per block). Fewer terms than the instruction's K are padded
// with zeros; more must be a multiple of K and chain instructions in k order. Writes D's code
// in hex per line. At the first bad line: a message naming it, exit status 2, nothing more.
#include <iostream>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/catalog_suggest.hpp"
#include "tcemu/mma.hpp"

namespace tcemu::cli {
namespace {

struct DotArgs {
  std::string arch, ptx, atype, btype, dtype, stype, operands_as;
  int promote_every = 0;
  bool strict_tf32 = false;
};

std::vector<std::string_view> split_bar(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (true) {
    size_t j = line.find('|', i);
    if (j == std::string_view::npos) {
      out.push_back(line.substr(i));
      return out;
    }
    out.push_back(line.substr(i, j - i));
    i = j + 1;
  }
}

// An operand code, given in its format or (--operands-as f32) as an f32 pattern that the
// format must hold exactly.
// tf32 operands: the tensor core reads an f32 container and ignores its low 13 bits (the
// catalog's tf32 entries take bits & 0xFFFFE000; MMA-Sim, validated on hardware, does the
// same), so by default they are dropped; --strict-tf32 refuses them instead.
uint64_t operand(Fmt f, std::string_view tok, bool as_f32, const std::string& where, bool strict_tf32) {
  if (f == Fmt::tf32 && !strict_tf32) return parse_code(Fmt::f32, tok, where) & 0xFFFFE000u;
  if (!as_f32 || f == Fmt::f32) return parse_code(f, tok, where);
  const uint64_t x = parse_code(Fmt::f32, tok, where);
  const Decoded d = decode(Fmt::f32, x);
  std::optional<uint64_t> c;
  if (d.cls == Class::zero) c = zero_code(f, d.sign);
  else if (d.cls == Class::inf) c = inf_code(f, d.sign);
  else if (d.cls == Class::nan) c = canonical_nan(f);
  else c = encode_exact(f, d.sign, d.sig, d.exp);
  if (!c)
    throw InputError(where + ": f32 0x" + shown(tok) + " is not exactly representable in " + std::string(info(f).name));
  return *c;
}

uint64_t scale_code(Fmt f, std::string_view tok, const std::string& where) {
  auto v = parse_hex(tok);
  // ue4m3 scales travel in a byte whose top (sign) bit the hardware ignores.
  if (!v || *v > 0xFF) throw InputError(where + ": scale '" + shown(tok) + "' is not an 8-bit " + std::string(info(f).name) + " code");
  return *v;
}

std::optional<Fmt> opt_format(const std::string& s, const char* flag) {
  if (s.empty()) return std::nullopt;
  auto f = parse_format(s);
  if (!f) throw InputError(std::string(flag) + ": unknown format '" + s + "'");
  return f;
}

int run_dot(const DotArgs& a) {
  if (a.arch.empty() || a.ptx.empty()) throw InputError("dot needs --arch and --ptx");
  bool as_f32 = false;
  if (!a.operands_as.empty()) {
    if (a.operands_as != "f32") throw InputError("--operands-as takes only f32");
    as_f32 = true;
  }
  std::optional<AccType> dt;
  if (!a.dtype.empty()) {
    dt = parse_acc_type(a.dtype);
    if (!dt) throw InputError("--dtype: '" + a.dtype + "' is not f16, f32 or s32");
  }
  const InstrLookup l = find_instruction(a.arch, a.ptx, opt_format(a.atype, "--atype"), opt_format(a.btype, "--btype"), dt,
                                         opt_format(a.stype, "--stype"));
  if (!l.entry) throw InputError(lookup_error_with_suggestions(l, a.arch, a.ptx));
  const InstrEntry& e = *l.entry;
  const Fmt acc = acc_format(e.dtype);
  const bool scaled = e.scale_type.has_value();
  const size_t K = static_cast<size_t>(e.K);
  MmaOptions opt;
  opt.promote_every = a.promote_every;
  std::string line;
  size_t lineno = 0;
  while (std::getline(std::cin, line)) {
    ++lineno;
    const std::string where = "line " + std::to_string(lineno);
    const auto parts = split_bar(line);
    const size_t want = scaled ? 5 : 3;
    if (parts.size() != want)
      throw InputError(where + ": expected " + std::string(scaled ? "'a... | b... | c | sa... | sb...'" : "'a... | b... | c'") +
                       " (" + std::to_string(want) + " fields separated by |), found " + std::to_string(parts.size()));
    std::vector<uint64_t> A, B, sa, sb;
    for (auto w : words(parts[0])) A.push_back(operand(e.atype, w, as_f32, where, a.strict_tf32));
    for (auto w : words(parts[1])) B.push_back(operand(e.btype, w, as_f32, where, a.strict_tf32));
    if (A.size() != B.size())
      throw InputError(where + ": " + std::to_string(A.size()) + " a codes but " + std::to_string(B.size()) + " b codes");
    if (A.empty()) throw InputError(where + ": no a and b codes");
    if (A.size() > K && A.size() % K != 0)
      throw InputError(where + ": " + std::to_string(A.size()) + " terms: more than K = " + std::to_string(K) +
                       " must be a multiple of it");
    const size_t n = std::max(A.size(), K);
    A.resize(n, 0);
    B.resize(n, 0);
    const auto cw = words(parts[2]);
    if (cw.size() != 1) throw InputError(where + ": expected one c code, found " + std::to_string(cw.size()));
    uint64_t c;
    if (e.dtype != AccType::s32) {
      c = operand(acc, cw[0], as_f32, where, true);
    } else {
      auto v = parse_hex(cw[0]);
      if (!v || *v > 0xFFFFFFFFu) throw InputError(where + ": c '" + shown(cw[0]) + "' is not a 32-bit hex s32 code");
      c = *v;
    }
    if (scaled) {
      for (auto w : words(parts[3])) sa.push_back(scale_code(*e.scale_type, w, where));
      for (auto w : words(parts[4])) sb.push_back(scale_code(*e.scale_type, w, where));
      const size_t nb = n / static_cast<size_t>(e.scale_block);
      if (sa.size() != nb || sb.size() != nb)
        throw InputError(where + ": expected " + std::to_string(nb) + " scale codes for a and for b (one per " +
                         std::to_string(e.scale_block) + " elements), found " + std::to_string(sa.size()) + " and " +
                         std::to_string(sb.size()));
    }
    const uint64_t C[1] = {c};
    const MmaResult r = mma(make_problem(e, 1, 1, static_cast<int>(A.size()), A, B, C, sa, sb, opt), Exec{1});
    if (!r.error.empty()) throw InputError(where + ": " + r.error);
    std::cout << to_hex(acc, r.D[0]) << "\n";
  }
  return 0;
}

}  // namespace

void add_dot_command(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("dot", "Dot products through a tensor-core instruction: 'a... | b... | c [| sa... | sb...]' per line");
  auto a = std::make_shared<DotArgs>();
  cmd->add_option("--arch", a->arch, "target architecture (sm_70, sm_80, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a)");
  cmd->add_option("--ptx", a->ptx, "instruction, PTX spelling (see `tcemu instr list`)");
  cmd->add_option("--atype", a->atype, "A type, when the spelling leaves it to the descriptor (tcgen05)");
  cmd->add_option("--btype", a->btype, "B type");
  cmd->add_option("--dtype", a->dtype, "accumulator type: f32, f16, s32");
  cmd->add_option("--stype", a->stype, "scale type: ue8m0, ue4m3 (mxf4nvf4 scale_vec::4X)");
  cmd->add_option("--operands-as", a->operands_as, "f32: operands and c given as f32 bit patterns, exactly representable");
  cmd->add_flag("--strict-tf32", a->strict_tf32,
                "refuse tf32 operands whose low 13 bits are set (default: ignore them, as the tensor core does)");
  cmd->add_option("--promote-every", a->promote_every, "FP32 promotion every N instructions along K (Hopper FP8 GEMMs); 0 = off");
  cmd->callback([&run, a] { run = [a] { return run_dot(*a); }; });
}

}  // namespace tcemu::cli
