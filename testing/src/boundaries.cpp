// Rounding ties and overflow thresholds of a destination format, found from its codes: the
// midpoint of two neighbouring values a < b is (A + B) / 2 on their common grid, which is
// exact in binary; it is a tie of the destination when the source format holds it exactly.
#include "boundaries.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "tcemu/convert.hpp"
#include "tcemu/testing/code.hpp"

namespace tcemu::testing::detail {

int64_t max_ordinal(Fmt f) { return *ordinal(f, max_finite_code(f, false)); }
int64_t min_ordinal(Fmt f) {
  const FormatInfo& fi = info(f);
  return fi.is_signed ? *ordinal(f, max_finite_code(f, true)) : 0;
}

void add_with_neighbours(Fmt src, uint64_t code, std::vector<uint64_t>& out) {
  out.push_back(code);
  const auto o = ordinal(src, code);
  if (!o) return;
  for (int64_t d : {-1, 1}) {
    // The ulp below +0 is the smallest negative value, as the number line goes.
    if (const auto c = code_at_ordinal(src, *o + d)) out.push_back(*c);
  }
}

std::optional<uint64_t> midpoint_in(Fmt src, Fmt dst, int64_t k) {
  const auto ca = code_at_ordinal(dst, k), cb = code_at_ordinal(dst, k + 1);
  if (!ca || !cb) return std::nullopt;
  const Decoded a = decode(dst, *ca), b = decode(dst, *cb);
  if (a.cls == Class::inf || b.cls == Class::inf) return std::nullopt;
  // Neighbours' exponents differ by at most one binade (zero sits on the subnormal grid).
  const int e = std::min(a.sig ? a.exp : b.exp, b.sig ? b.exp : a.exp);
  if (a.exp - e > 8 || b.exp - e > 8) return std::nullopt;
  const __int128 A = static_cast<__int128>(a.sig) << (a.exp - e), B = static_cast<__int128>(b.sig) << (b.exp - e);
  const __int128 sum = (a.sign ? -A : A) + (b.sign ? -B : B);
  if (sum == 0) return std::nullopt;
  const unsigned __int128 mag = sum < 0 ? -sum : sum;
  if (mag >> 64) return std::nullopt;
  return encode_exact(src, sum < 0, static_cast<uint64_t>(mag), e - 1);
}

namespace {

bool narrow(Fmt dst) { return info(dst).width <= 16; }

// Ties near the places where code breaks: the zero / smallest-subnormal corner, the
// subnormal / normal boundary, every binade edge, the top of the range.
std::vector<uint64_t> compute_edge_ties(Fmt src, Fmt dst) {
  std::vector<uint64_t> out;
  const int64_t lo = min_ordinal(dst), hi = max_ordinal(dst);
  auto add = [&](int64_t k) {
    if (k >= lo && k < hi) {
      if (const auto t = midpoint_in(src, dst, k)) add_with_neighbours(src, *t, out);
    }
  };
  const FormatInfo& fi = info(dst);
  // Binade edges of a float format: ordinals m * 2^man_bits (integers: every 2^m).
  for (int64_t k = 1; k <= hi && k > 0;
       k = fi.is_int ? k * 2 : k + (int64_t{1} << fi.man_bits)) {
    for (int64_t d : {-1, 0}) {
      add(k + d);
      add(-(k + d) - 1);  // the mirror pair on the negative side
    }
  }
  for (int64_t k : {int64_t{0}, int64_t{-1}, hi - 1, lo}) add(k);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint64_t> compute_ties(Fmt src, Fmt dst) {
  if (!narrow(dst)) return compute_edge_ties(src, dst);
  std::vector<uint64_t> out;
  for (int64_t k = min_ordinal(dst); k < max_ordinal(dst); ++k) {
    if (const auto t = midpoint_in(src, dst, k)) add_with_neighbours(src, *t, out);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint64_t> compute_overflow(Fmt src, Fmt dst) {
  std::vector<uint64_t> out;
  const FormatInfo& fd = info(dst);
  for (bool neg : {false, true}) {
    if (neg && !fd.is_signed) break;
    const Decoded m = decode(dst, max_finite_code(dst, neg));
    const std::pair<uint64_t, int> thresholds[] = {
        {m.sig, m.exp}, {2 * m.sig + 1, m.exp - 1}, {m.sig + 1, m.exp}};
    for (const auto& [sig, exp] : thresholds) {
      if (const auto c = encode_exact(src, neg, sig, exp)) {
        add_with_neighbours(src, *c, out);
        continue;
      }
      // Not exact in src: the two src values around it (only finite ones).
      for (Round r : {Round::rd, Round::ru}) {
        ConvertOptions o;
        o.round = r;
        const ConvertResult res = round_value(neg, sig, exp, false, src, o);
        const Class cls = classify(src, res.code);
        if (cls != Class::nan && cls != Class::inf && !(res.flags & (kOverflow | kInvalid))) out.push_back(res.code);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <class F>
const std::vector<uint64_t>& cached(int which, Fmt src, Fmt dst, F compute) {
  static std::mutex mu;
  static std::map<std::tuple<int, Fmt, Fmt>, std::vector<uint64_t>> cache;
  std::lock_guard lock(mu);
  auto key = std::make_tuple(which, src, dst);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, compute(src, dst)).first;
  return it->second;  // std::map nodes never move
}

}  // namespace

const std::vector<uint64_t>& tie_points(Fmt src, Fmt dst) { return cached(0, src, dst, compute_ties); }
const std::vector<uint64_t>& edge_tie_points(Fmt src, Fmt dst) { return cached(2, src, dst, compute_edge_ties); }
const std::vector<uint64_t>& overflow_points(Fmt src, Fmt dst) { return cached(1, src, dst, compute_overflow); }

}  // namespace tcemu::testing::detail
