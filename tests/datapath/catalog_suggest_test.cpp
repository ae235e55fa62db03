// nearest_spellings (catalog_suggest.cpp) against a brute-force evaluation of its definition
// written here: every catalog spelling once (other architectures last), ordered by the edit
// distance over '.'-separated tokens, then in characters, then by the characters after the
// common prefix, then by name; the first n. Its distance in characters is cut short where it
// cannot place; the answer must not change. Typos of real spellings, garbage, long names and
// unknown architectures.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/catalog_suggest.hpp"

namespace tcemu {
namespace {

template <class Seq>
size_t lev(const Seq& a, const Seq& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
  return d[a.size()][b.size()];
}

std::vector<std::string> toks(const std::string& s) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : s) {
    if (c == '.') {
      if (!cur.empty()) v.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) v.push_back(cur);
  return v;
}

std::string base(std::string a) {
  if (!a.empty() && (a.back() == 'a' || a.back() == 'f')) a.pop_back();
  return a;
}

std::vector<std::string> brute(const std::string& arch, std::string ptx, size_t n) {
  ptx = ptx.substr(0, 128);
  std::map<std::string, bool> other;  // spelling -> on no architecture of arch's base
  for (const InstrEntry& e : catalog()) {
    const bool o = base(e.arch) != base(arch);
    auto [it, fresh] = other.emplace(e.ptx, o);
    if (!fresh) it->second = it->second && o;
  }
  std::vector<std::tuple<bool, size_t, size_t, size_t, std::string>> keys;
  for (const auto& [p, o] : other) {
    const size_t common = static_cast<size_t>(std::mismatch(p.begin(), p.end(), ptx.begin(), ptx.end()).first - p.begin());
    keys.emplace_back(o, lev(toks(p), toks(ptx)), lev(p, ptx), p.size() - common, p);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < keys.size() && i < n; ++i) out.push_back(std::get<4>(keys[i]));
  return out;
}

TEST(NearestSpellings, EqualsTheDefinitionEvaluatedInFull) {
  std::mt19937 rng(7);
  const auto cat = catalog();
  std::vector<std::pair<std::string, std::string>> asks = {
      {"sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3x"},
      {"sm_79", std::string(300, 'q')},
      {"sm_100a", ""},
      {"sm_120a", "mma.sync"},
      {"nope", "...."},
  };
  for (int i = 0; i < 40; ++i) {  // typos: a character replaced, inserted or removed; any arch
    const InstrEntry& e = cat[rng() % cat.size()];
    std::string p = e.ptx;
    for (int k = 0, edits = 1 + static_cast<int>(rng() % 4); k < edits && !p.empty(); ++k) {
      const size_t at = rng() % p.size();
      switch (rng() % 3) {
        case 0: p[at] = static_cast<char>('a' + rng() % 26); break;
        case 1: p.insert(at, 1, '.'); break;
        default: p.erase(at, 1); break;
      }
    }
    asks.emplace_back(rng() % 4 ? e.arch : std::string("sm_79"), p);
  }
  // The longest spelling fits in the 128 characters a typed name is cut to.
  size_t longest = 0;
  for (const InstrEntry& e : cat) longest = std::max(longest, e.ptx.size());
  EXPECT_LT(longest, 128u);
  for (const auto& [arch, ptx] : asks)
    for (size_t n : {size_t{1}, size_t{3}}) EXPECT_EQ(nearest_spellings(arch, ptx, n), brute(arch, ptx, n)) << arch << " " << ptx << " " << n;
}

}  // namespace
}  // namespace tcemu
