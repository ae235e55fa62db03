// RapidCheck properties of the datapath models: permutation invariance within one fused
// step (the sum is exact and the alignment exponent is a maximum: order-free), and the error
// bound of one T-FDPA step against the exact dot product: every term (and C) loses less than
// one unit 2^q to truncation, and rho (RZ to f32) less than one f32 ulp.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <tuple>

#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu_ref/datapath_ref.hpp"

namespace tcemu::test {
namespace {

// A finite code of format f.
rc::Gen<uint64_t> finite_code(Fmt f) {
  return rc::gen::suchThat(rc::gen::inRange<uint64_t>(0, info(f).code_mask() + 1), [f](uint64_t c) {
    const Class k = decode(f, c).cls;
    return is_valid_code(f, c) && k != Class::inf && k != Class::nan;
  });
}

rc::Gen<std::vector<uint64_t>> codes(Fmt f, size_t n) { return rc::gen::container<std::vector<uint64_t>>(n, finite_code(f)); }

const DatapathParams& params_of(const char* arch, const char* ptx) {
  const InstrLookup l = find_instruction(arch, ptx);
  if (!l.entry) throw std::runtime_error(l.error);
  return l.entry->params;
}

RC_GTEST_PROP(DatapathProperties, PermutationWithinAStepLeavesDUnchanged, ()) {
  const DatapathParams& p = params_of("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2");
  const size_t n = *rc::gen::inRange<size_t>(1, static_cast<size_t>(p.L) + 1);
  std::vector<uint64_t> a = *codes(Fmt::e4m3, n), b = *codes(Fmt::e5m2, n);
  const uint64_t c = *finite_code(Fmt::f32);
  const uint64_t d = fdpa_step(p, Fmt::e4m3, Fmt::e5m2, a, b, c);
  std::vector<size_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = i;
  perm = *rc::gen::exec([&] {
    std::vector<size_t> v = perm;
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[*rc::gen::inRange<size_t>(0, i)]);
    return v;
  });
  std::vector<uint64_t> pa(n), pb(n);
  for (size_t i = 0; i < n; ++i) {
    pa[i] = a[perm[i]];
    pb[i] = b[perm[i]];
  }
  RC_ASSERT(fdpa_step(p, Fmt::e4m3, Fmt::e5m2, pa, pb, c) == d);
}

RC_GTEST_PROP(DatapathProperties, GstPermutationWithinAGroup, ()) {
  DatapathParams p;
  p.kind = DatapathKind::gst_fdpa;
  p.L = 64;
  p.F = 35;
  p.e_zero = -139;
  p.group = 16;
  std::vector<uint64_t> a = *codes(Fmt::e2m1, 64), b = *codes(Fmt::e2m1, 64);
  std::vector<uint64_t> sa = *rc::gen::container<std::vector<uint64_t>>(4, rc::gen::inRange<uint64_t>(100, 150));
  std::vector<uint64_t> sb = *rc::gen::container<std::vector<uint64_t>>(4, rc::gen::inRange<uint64_t>(100, 150));
  const uint64_t c = *finite_code(Fmt::f32);
  BlockScales s{Fmt::ue8m0, 16, sa, sb};
  const uint64_t d = fdpa_step(p, Fmt::e2m1, Fmt::e2m1, a, b, c, &s);
  const size_t g = *rc::gen::inRange<size_t>(0, 4);
  std::reverse(a.begin() + static_cast<long>(g * 16), a.begin() + static_cast<long>(g * 16 + 16));
  std::reverse(b.begin() + static_cast<long>(g * 16), b.begin() + static_cast<long>(g * 16 + 16));
  RC_ASSERT(fdpa_step(p, Fmt::e2m1, Fmt::e2m1, a, b, c, &s) == d);
}

// |d - exact| <= (n + 1) 2^q + ulp_f32 at the magnitude |exact| + (n + 1) 2^q.
void check_bound(const DatapathParams& p, Fmt fa, Fmt fb, const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                 uint64_t c) {
  using ref::Rational;
  const uint64_t d = fdpa_step(p, fa, fb, a, b, c);
  const ref::ExactValue x = ref::exact_dot(fa, fb, a, b, Fmt::f32, c);
  RC_PRE(x.kind == ref::ExactValue::finite);
  const ref::ExactValue dv = ref::value_of(Fmt::f32, d);
  RC_PRE(dv.kind == ref::ExactValue::finite);  // overflow gives Inf by design
  // q from the definition (datapath.md §1).
  auto E = [](Fmt f, uint64_t code) {
    return std::max(ref::floor_log2(abs(ref::value_of(f, code).v)), info(f).emin());
  };
  int emax = static_cast<int>(a.size()) < p.L ? p.e_zero : INT_MIN;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool zero = ref::value_of(fa, a[i]).v == 0 || ref::value_of(fb, b[i]).v == 0;
    emax = std::max(emax, zero ? p.e_zero : E(fa, a[i]) + E(fb, b[i]));
  }
  emax = std::max(emax, ref::value_of(Fmt::f32, c).v == 0 ? p.e_zero : E(Fmt::f32, c));
  const int q = emax - p.F;
  auto pow2 = [](int e) {
    return e >= 0 ? Rational(ref::Integer(1) << e) : Rational(ref::Integer(1), ref::Integer(ref::Integer(1) << -e));
  };
  const Rational trunc_err = Rational(static_cast<long long>(a.size() + 1)) * pow2(q);
  const Rational top = abs(x.v) + trunc_err;
  const Rational ulp = pow2(std::max(ref::floor_log2(top), -126) - 23);
  RC_ASSERT(abs(dv.v - x.v) <= trunc_err + ulp);
}

RC_GTEST_PROP(DatapathProperties, ErrorBoundHopperF16, ()) {
  const DatapathParams& p = params_of("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  const size_t n = *rc::gen::inRange<size_t>(1, 17);
  check_bound(p, Fmt::f16, Fmt::f16, *codes(Fmt::f16, n), *codes(Fmt::f16, n), *finite_code(Fmt::f32));
}

RC_GTEST_PROP(DatapathProperties, ErrorBoundAmpereBf16, ()) {
  const DatapathParams& p = params_of("sm_80", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32");
  const size_t n = *rc::gen::inRange<size_t>(1, 9);
  check_bound(p, Fmt::bf16, Fmt::bf16, *codes(Fmt::bf16, n), *codes(Fmt::bf16, n), *finite_code(Fmt::f32));
}

RC_GTEST_PROP(DatapathProperties, ErrorBoundBlackwellF8f6f4, ()) {
  const InstrLookup l = find_instruction("sm_100a", "tcgen05.mma.cta_group::1.kind::f8f6f4", Fmt::e4m3, Fmt::e2m1, AccType::f32);
  RC_ASSERT(l.entry != nullptr);
  const size_t n = *rc::gen::inRange<size_t>(1, 33);
  check_bound(l.entry->params, Fmt::e4m3, Fmt::e2m1, *codes(Fmt::e4m3, n), *codes(Fmt::e2m1, n), *finite_code(Fmt::f32));
}

// The emulator's Hopper f16 model (F = 25, RZ to f32) on operands whose products lie within
// a few binades of each other: every product's lowest bit is then at or above 2^q, nothing is
// truncated in the alignment, and one T-FDPA step must be exactly the exact dot product
// rounded once toward zero. f16 operands in [0.5, 4) have E in {-1, 0, 1}: e_i in [-2, 2],
// product bits down to e_i - 20 >= -22, q = max e_i - 25 <= -23.
rc::Gen<uint64_t> f16_near_one() {
  return rc::gen::map(rc::gen::tuple(rc::gen::inRange<uint64_t>(0, 2), rc::gen::inRange<uint64_t>(14, 17),
                                     rc::gen::inRange<uint64_t>(0, 1024)),
                      [](const std::tuple<uint64_t, uint64_t, uint64_t>& t) {
                        return std::get<0>(t) << 15 | std::get<1>(t) << 10 | std::get<2>(t);
                      });
}

RC_GTEST_PROP(DatapathProperties, ExactDotRoundsCorrectly, ()) {
  const DatapathParams& p = params_of("sm_90", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  RC_ASSERT(p.F == 25);
  const size_t n = *rc::gen::inRange<size_t>(1, 17);
  const auto a = *rc::gen::container<std::vector<uint64_t>>(n, f16_near_one());
  const auto b = *rc::gen::container<std::vector<uint64_t>>(n, f16_near_one());
  const ref::ExactValue x = ref::exact_dot(Fmt::f16, Fmt::f16, a, b, Fmt::f32, 0);
  RC_ASSERT(x.kind == ref::ExactValue::finite);
  const uint64_t rz = ref::correctly_rounded(x, Fmt::f32, Round::rz);
  RC_PRE((rz & 0x7FFFFFFFu) != 0);  // an exact zero sum: its sign is a separate rule (+0)
  const uint64_t d = fdpa_dot(p, Fmt::f16, Fmt::f16, a, b, 0);
  RC_ASSERT(d == rz);
}

}  // namespace
}  // namespace tcemu::test
