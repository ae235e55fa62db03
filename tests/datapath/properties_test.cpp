// RapidCheck properties of the datapath models: permutation invariance within one fused
// step (the sum is exact and the alignment exponent is a maximum: order-free), and the error
// bound of one T-FDPA step against the exact dot product: every term (and C) loses less than
// one unit 2^q to truncation, and rho (RZ to f32) less than one f32 ulp.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

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
  // q from the definition (§3.1).
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

// The correctly rounded exact result is within the same bound's neighbourhood: the model is
// never better than exact, and the RZ output never exceeds |S 2^q| (checked by the bound).
RC_GTEST_PROP(DatapathProperties, ExactDotRoundsCorrectly, ()) {
  const size_t n = *rc::gen::inRange<size_t>(1, 9);
  std::vector<uint64_t> a = *codes(Fmt::f16, n), b = *codes(Fmt::f16, n);
  const ref::ExactValue x = ref::exact_dot(Fmt::f16, Fmt::f16, a, b, Fmt::f32, 0);
  RC_PRE(x.kind == ref::ExactValue::finite);
  const uint64_t rn = ref::correctly_rounded(x, Fmt::f32, Round::rn);
  RC_ASSERT(ref::ulp_error(Fmt::f32, rn, x.v) <= 0.5);
  const uint64_t rz = ref::correctly_rounded(x, Fmt::f32, Round::rz);
  RC_ASSERT(ref::ulp_error(Fmt::f32, rz, x.v) < 1.0);
}

}  // namespace
}  // namespace tcemu::test
