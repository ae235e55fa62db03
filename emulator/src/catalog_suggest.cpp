// Nearest catalog spellings for an unknown instruction (catalog_suggest.hpp).
#include "tcemu/catalog_suggest.hpp"

#include <algorithm>
#include <cstddef>
#include <tuple>

namespace tcemu {
namespace {

std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i <= s.size()) {
    const size_t j = std::min(s.find('.', i), s.size());
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

template <class Seq>
size_t edit_distance(const Seq& a, const Seq& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string_view base(std::string_view arch) {
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) arch.remove_suffix(1);
  return arch;
}

}  // namespace

std::vector<std::string> nearest_spellings(std::string_view arch, std::string_view ptx, size_t n) {
  // A typed spelling is cut to 200 characters: enough for any PTX spelling, bounded work.
  ptx = ptx.substr(0, 200);
  if (n == 0) return {};
  const std::vector<std::string_view> want = tokens(ptx);
  struct Cand {
    bool other_arch;
    size_t tok, chr, unshared;  // unshared: characters after the common prefix (a tie-break)
    std::string ptx;
  };
  std::vector<Cand> cands;
  for (const InstrEntry& e : catalog()) {
    const bool other = base(e.arch) != base(arch);
    auto it = std::find_if(cands.begin(), cands.end(), [&](const Cand& c) { return c.ptx == e.ptx; });
    if (it != cands.end()) {
      it->other_arch = it->other_arch && other;
      continue;
    }
    const size_t common = static_cast<size_t>(std::mismatch(e.ptx.begin(), e.ptx.end(), ptx.begin(), ptx.end()).first - e.ptx.begin());
    cands.push_back({other, edit_distance(tokens(e.ptx), want), 0, e.ptx.size() - common, e.ptx});
  }
  // The character distance (the costly one) only for the candidates that can be among the
  // first n: those ordered by (other_arch, tok) no later than the n-th.
  std::sort(cands.begin(), cands.end(),
            [](const Cand& x, const Cand& y) { return std::tie(x.other_arch, x.tok) < std::tie(y.other_arch, y.tok); });
  if (cands.size() > n) {
    const Cand& last = cands[n - 1];
    const auto keep = std::find_if(cands.begin() + static_cast<std::ptrdiff_t>(n), cands.end(), [&](const Cand& c) {
      return std::tie(last.other_arch, last.tok) < std::tie(c.other_arch, c.tok);
    });
    cands.erase(keep, cands.end());
  }
  for (Cand& c : cands) c.chr = edit_distance(std::string_view(c.ptx), ptx);
  std::sort(cands.begin(), cands.end(), [](const Cand& x, const Cand& y) {
    return std::tie(x.other_arch, x.tok, x.chr, x.unshared, x.ptx) < std::tie(y.other_arch, y.tok, y.chr, y.unshared, y.ptx);
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < cands.size() && out.size() < n; ++i) out.push_back(cands[i].ptx);
  return out;
}

std::string lookup_error_with_suggestions(const InstrLookup& lookup, std::string_view arch, std::string_view ptx) {
  std::string msg = lookup.error;
  if (lookup.entry || msg.rfind("no instruction", 0) != 0 || msg.find("(it exists on:") != std::string::npos) return msg;
  const std::vector<std::string> near = nearest_spellings(arch, ptx);
  if (near.empty()) return msg;
  msg += "; did you mean";
  for (size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : " ") + near[i];
  msg += "?";
  return msg;
}

}  // namespace tcemu
