// Nearest catalog spellings for an unknown instruction (catalog_suggest.hpp).
#include "tcemu/catalog_suggest.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <unordered_map>

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

// The Levenshtein distance of a and b; with a `limit`, any distance above it is returned as
// limit + 1 as soon as a whole row of the table exceeds it (a row's minimum never decreases).
template <class Seq>
size_t edit_distance(const Seq& a, const Seq& b, size_t limit = SIZE_MAX - 1) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], limit + 1);
}

std::string_view base(std::string_view arch) {
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) arch.remove_suffix(1);
  return arch;
}

}  // namespace

std::vector<std::string> nearest_spellings(std::string_view arch, std::string_view ptx, size_t n) {
  // A typed spelling is cut to 128 characters: more than any PTX spelling of the catalog (98 at
  // most), and bounded work.
  ptx = ptx.substr(0, 128);
  if (n == 0) return {};
  const std::vector<std::string_view> want = tokens(ptx);
  struct Cand {
    bool other_arch;
    size_t tok, chr, unshared;  // unshared: characters after the common prefix (a tie-break)
    std::string ptx;
  };
  std::vector<Cand> cands;
  std::unordered_map<std::string_view, size_t> seen;  // spelling -> its candidate (e.ptx outlives the call)
  for (const InstrEntry& e : catalog()) {
    const bool other = base(e.arch) != base(arch);
    if (auto it = seen.find(e.ptx); it != seen.end()) {
      cands[it->second].other_arch = cands[it->second].other_arch && other;
      continue;
    }
    seen.emplace(e.ptx, cands.size());
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
  // Those ordered before the n-th's (other_arch, tok) are among the first n whatever their
  // character distance; the rest (the n-th's group) compete for the `room` places left, so a
  // distance above the room-th smallest found so far cannot place: it is cut short there.
  // The group is visited from the smallest bag distance (characters counted without their
  // order: a lower bound of the edit distance), so the bound tightens early and a candidate
  // whose bag distance is above it needs no table at all.
  size_t room = std::min(n, cands.size()), limit = SIZE_MAX - 1;
  const auto group0 = std::find_if(cands.begin(), cands.end(), [&](const Cand& c) {
    return std::tie(c.other_arch, c.tok) == std::tie(cands.back().other_arch, cands.back().tok);
  });
  std::array<int, 256> want_count{};
  for (unsigned char ch : ptx) ++want_count[ch];
  for (auto it = group0; it != cands.end(); ++it) {
    std::array<int, 256> d = want_count;
    for (unsigned char ch : it->ptx) --d[ch];
    size_t extra = 0, missing = 0;  // characters only the candidate has / only the typed name has
    for (int v : d) (v < 0 ? extra : missing) += static_cast<size_t>(v < 0 ? -v : v);
    it->chr = std::max(extra, missing);
  }
  std::stable_sort(group0, cands.end(), [](const Cand& x, const Cand& y) { return x.chr < y.chr; });
  std::vector<size_t> best;  // the group's smallest distances so far, at most `room`
  for (auto it = cands.begin(); it != cands.end(); ++it) {
    Cand& c = *it;
    if (it < group0) {
      c.chr = edit_distance(std::string_view(c.ptx), ptx);
      --room;
      continue;
    }
    c.chr = c.chr > limit ? limit + 1 : edit_distance(std::string_view(c.ptx), ptx, limit);
    if (room == 0 || c.chr > limit) continue;
    best.insert(std::upper_bound(best.begin(), best.end(), c.chr), c.chr);
    if (best.size() > room) best.pop_back();
    if (best.size() == room) limit = best.back();
  }
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
