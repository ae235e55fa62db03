// MX quantization of random tensors against an exact-arithmetic re-derivation of each
// documented step (docs/quantization.md): every f32 operation of the named
// implementation is the exact result rounded once by tcemu::ref, every cast is tcemu::ref's
// conversion. Plus RapidCheck properties: the dequantization error bound and "RCEIL never
// saturates a finite block".
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "quant_ref.hpp"
#include "tcemu/quant.hpp"

namespace {

using namespace tcemu::quant;
using qref::R::cpp_int;
using qref::R::cpp_rational;
using tcemu::ConvertOptions;
using tcemu::Fmt;
using tcemu::Round;
namespace R = qref::R;

// docs/quantization.md (OCP emax_elem) and docs/formats.md (fraction bits; MXINT8 1.xxxxxx), typed again here.
int emax_of(Fmt e) {
  switch (e) {
    case Fmt::e4m3: return 8;
    case Fmt::e5m2: return 15;
    case Fmt::e3m2: return 4;
    case Fmt::e2m3: return 2;
    case Fmt::e2m1: return 2;
    default: return 0;  // s8
  }
}
int mbits_of(Fmt e) {
  switch (e) {
    case Fmt::e4m3: return 3;
    case Fmt::e5m2: return 2;
    case Fmt::e3m2: return 2;
    case Fmt::e2m3: return 3;
    case Fmt::e2m1: return 1;
    default: return 6;
  }
}
R::Real max_of(Fmt e) {
  if (e == Fmt::s8) { R::Real r; r.mag = cpp_rational(127, 64); return r; }
  return R::to_real(R::max_finite(e));
}
cpp_rational mag(float f) { return qref::real(f).mag; }

int clamp_i(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// The scale code by the rule of each mode, from the exact amax.
int ref_scale(float amax, Fmt e, MxScaleMode m) {
  if (std::isnan(amax)) return 255;
  const int emax = emax_of(e);
  const R::Real maxn = max_of(e);
  switch (m) {
    case MxScaleMode::floor:
    case MxScaleMode::ceil:
    case MxScaleMode::even: {
      if (std::isinf(amax)) return clamp_i(128 - emax, -127, 128) + 127;
      if (amax == 0.0f) return clamp_i(-127 - emax, -127, 128) + 127;
      cpp_rational a = mag(amax);
      int p;
      if (m == MxScaleMode::even) {
        const int k = qref::floor_log2(a);
        const int sh = k - mbits_of(e);  // the grid of mbits fraction bits
        const cpp_rational ulp = sh >= 0 ? cpp_rational(cpp_int(1) << sh) : cpp_rational(cpp_int(1), cpp_int(1) << -sh);
        const cpp_rational units = a / ulp + cpp_rational(1, 2);
        const cpp_int whole = boost::multiprecision::numerator(units) / boost::multiprecision::denominator(units);  // half up
        p = qref::floor_log2(cpp_rational(whole) * ulp);
      } else if (m == MxScaleMode::ceil) {
        p = qref::ceil_log2(a);
      } else {
        p = qref::floor_log2(a);
      }
      return clamp_i(p - emax, -127, 128) + 127;
    }
    case MxScaleMode::rceil: {
      const float d = qref::rn32(qref::div(qref::real(amax), maxn));
      ConvertOptions c;
      c.round = Round::ru;
      return static_cast<int>(R::convert(Fmt::f32, Fmt::ue8m0, qref::bits(d), c).code);
    }
    case MxScaleMode::rceil_sat: {
      R::Real one;
      one.mag = 1;
      const float rcp = qref::rn32(qref::div(one, maxn));
      const float d = qref::fmul(amax, rcp);
      ConvertOptions c;
      c.round = Round::ru;
      c.satfinite = true;
      return static_cast<int>(R::convert(Fmt::f32, Fmt::ue8m0, qref::bits(d), c).code);
    }
    case MxScaleMode::rceil_legacy: {
      const float d = qref::rn32(qref::div(qref::real(amax), maxn));
      const int k = d == 0.0f ? -127 : qref::ceil_log2(mag(d));
      return clamp_i(k, -127, 127) + 127;
    }
  }
  return -1;
}

// The element code: the scaled f32 value, then the cast.
int ref_element(float x, int e, Fmt elem, MxScaleMode m, Round round, uint32_t rbits) {
  float y;
  if (m == MxScaleMode::rceil_sat) {
    y = e == 0 ? x : e == 254 ? qref::rn32(qref::mul(qref::real(x), R::Real{})) : qref::rn32(qref::mul(qref::real(x), qref::real_pow2(127 - e)));
  } else if (m == MxScaleMode::rceil) {
    y = qref::rn32(qref::mul(qref::real(x), qref::real_pow2(127 - e)));
  } else if (m == MxScaleMode::rceil_legacy) {
    y = e == 0 ? x : qref::rn32(qref::mul(qref::real(x), qref::real_pow2(127 - e)));
  } else {
    y = qref::rn32(qref::div(qref::real(x), qref::real_pow2(e - 127 < -126 ? -126 : e - 127)));
  }
  ConvertOptions c;
  c.round = round;
  const bool te = m == MxScaleMode::rceil_sat;
  if (!te) {  // torch.clamp to +-MAX before the cast
    const R::Real mx = max_of(elem);
    if (mag(y) > mx.mag) y = qref::rn32(R::Real{R::Exact::finite, y < 0, mx.mag});
  }
  if (elem == Fmt::s8) {
    c.satfinite = true;
    const float z = qref::rn32(qref::mul(qref::real(y), qref::real_pow2(6)));
    int code = static_cast<int>(R::convert(Fmt::f32, Fmt::s8, qref::bits(z), c, rbits).code);
    return code == 0x80 ? 0x81 : code;
  }
  if (te || !(elem == Fmt::e4m3 || elem == Fmt::e5m2)) {
    c.satfinite = true;
  } else {
    c.nan_out = tcemu::NanOut::keep_sign;
  }
  return static_cast<int>(R::convert(Fmt::f32, elem, qref::bits(y), c, rbits).code);
}

// Random finite tensor: blocks at different magnitudes, mantissas with few bits (so that ties
// and exact powers of two are common), some zeros and negative zeros.
std::vector<float> random_tensor(std::mt19937& g, size_t n, bool allow_subnormal) {
  std::uniform_int_distribution<int> kind(0, 15), exp(-20, 20), man(0, 63), sh(0, 20);
  std::vector<float> x(n);
  const int base = exp(g);
  for (auto& v : x) {
    const int k = kind(g);
    if (k == 0) { v = 0.0f; continue; }
    if (k == 1) { v = -0.0f; continue; }
    float m = 1.0f + man(g) / 64.0f;
    if (k == 2) m = 1.0f;
    v = std::ldexp(m, base - sh(g));
    if (k == 3 && allow_subnormal) v = std::ldexp(m, -140);
    if (k & 4) v = -v;
  }
  return x;
}

std::string label(const MxOptions& o) {
  std::ostringstream s;
  s << to_string(o.scale) << " " << tcemu::info(o.elem).name << " " << tcemu::to_string(o.round) << " "
    << to_string(o.axis) << " block " << o.block;
  return s.str();
}

void check(const std::vector<float>& x, size_t rows, size_t cols, const MxOptions& o, const std::vector<uint32_t>& rb) {
  const MxTensor q = mx_quantize(x, rows, cols, o, rb);
  const BlockGrid g = make_grid(rows, cols, o.axis, o.block);
  ASSERT_EQ(q.scales.size(), g.scale_count());
  // Block amax straight from the definition: max |x| over the block's elements.
  std::vector<float> amax(g.scale_count(), 0.0f);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const size_t b = (r / g.block_rows) * g.scale_cols() + c / g.block_cols;
      amax[b] = std::max(amax[b], std::fabs(x[r * cols + c]));
    }
  int bad = 0;
  for (size_t b = 0; b < amax.size() && bad < 5; ++b)
    if (int(q.scales[b]) != ref_scale(amax[b], o.elem, o.scale)) {
      ADD_FAILURE() << label(o) << ": block " << b << " amax " << amax[b] << " scale " << int(q.scales[b]) << " expected "
                    << ref_scale(amax[b], o.elem, o.scale);
      ++bad;
    }
  for (size_t r = 0; r < rows && bad < 5; ++r)
    for (size_t c = 0; c < cols && bad < 5; ++c) {
      const size_t i = r * cols + c;
      const int e = q.scales[(r / g.block_rows) * g.scale_cols() + c / g.block_cols];
      const int want = ref_element(x[i], e, o.elem, o.scale, o.round, rb.empty() ? 0 : rb[i]);
      if (int(q.codes[i]) != want) {
        ADD_FAILURE() << label(o) << ": element " << i << " x " << x[i] << " scale " << e << " code " << int(q.codes[i])
                      << " expected " << want;
        ++bad;
      }
    }
  // Dequantization: P * 2^(e-127) rounded once to f32 (scale 0xFF: NaN).
  const std::vector<float> d = mx_dequantize(q);
  for (size_t r = 0; r < rows && bad < 5; ++r)
    for (size_t c = 0; c < cols && bad < 5; ++c) {
      const size_t i = r * cols + c;
      const int e = q.scales[(r / g.block_rows) * g.scale_cols() + c / g.block_cols];
      R::Real p = o.elem == Fmt::s8 ? R::Real{R::Exact::finite, (q.codes[i] & 0x80) != 0,
                                               cpp_rational(std::abs(int(int8_t(q.codes[i]))), 64)}
                                    : qref::real_of(o.elem, q.codes[i]);
      const float want = e == 255 ? std::numeric_limits<float>::quiet_NaN() : qref::rn32(qref::mul(p, qref::real_pow2(e - 127)));
      if (qref::bits(d[i]) != qref::bits(want) && !(std::isnan(d[i]) && std::isnan(want))) {
        ADD_FAILURE() << label(o) << ": dequantized element " << i << " " << d[i] << " expected " << want;
        ++bad;
      }
    }
}

const MxScaleMode kModes[] = {MxScaleMode::floor, MxScaleMode::rceil_sat, MxScaleMode::rceil,
                              MxScaleMode::rceil_legacy, MxScaleMode::ceil, MxScaleMode::even};
const Fmt kElems[] = {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::s8};

TEST(MxReference, EveryModeElementAndAxisRoundToNearest) {
  std::mt19937 g(1234);
  for (MxScaleMode m : kModes)
    for (Fmt e : kElems)
      for (BlockAxis a : {BlockAxis::rowwise, BlockAxis::columnwise, BlockAxis::tile2d}) {
        MxOptions o;
        o.scale = m;
        o.elem = e;
        o.axis = a;
        const size_t rows = a == BlockAxis::rowwise ? 3 : 40, cols = a == BlockAxis::columnwise ? 3 : 40;  // partial blocks
        check(random_tensor(g, rows * cols, e != Fmt::s8), rows, cols, o, {});
      }
}

TEST(MxReference, ElementRoundingModesAndBlockSizes) {
  std::mt19937 g(99);
  for (MxScaleMode m : kModes)
    for (Fmt e : kElems)
      for (Round r : {Round::rna, Round::rz, Round::rs})
        for (size_t block : {size_t{16}, size_t{32}}) {
          MxOptions o;
          o.scale = m;
          o.elem = e;
          o.round = r;
          o.block = block;
          const size_t rows = 2, cols = 64;
          std::vector<uint32_t> rb;
          if (r == Round::rs) {
            std::uniform_int_distribution<uint32_t> u;
            for (size_t i = 0; i < rows * cols; ++i) rb.push_back(u(g));
          }
          check(random_tensor(g, rows * cols, e != Fmt::s8), rows, cols, o, rb);
        }
}

// An f32 block whose amax sits anywhere in the normal range.
rc::Gen<std::vector<float>> gen_block() {
  return rc::gen::container<std::vector<float>>(
      32, rc::gen::map(rc::gen::tuple(rc::gen::inRange(0, 1 << 23), rc::gen::inRange(-100, 100), rc::gen::arbitrary<bool>()),
                       [](const std::tuple<int, int, bool>& t) {
                         const float m = 1.0f + std::get<0>(t) / 8388608.0f;
                         const float v = std::ldexp(m, std::get<1>(t));
                         return std::get<2>(t) ? -v : v;
                       }));
}

// RCEIL picks the smallest power of two X with amax / X <= MAX: no finite block saturates.
RC_GTEST_PROP(MxProperties, RceilNeverSaturatesAFiniteBlock, ()) {
  const auto x = *gen_block();
  const Fmt e = *rc::gen::element(Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1);
  const MxScaleMode m = *rc::gen::element(MxScaleMode::rceil, MxScaleMode::rceil_sat, MxScaleMode::rceil_legacy);
  MxOptions o;
  o.elem = e;
  o.scale = m;
  const MxTensor q = mx_quantize(x, 1, 32, o);
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const cpp_rational scaled = mag(amax) / qref::real_pow2(int(q.scales[0]) - 127).mag;
  RC_ASSERT(scaled <= max_of(e).mag);
}

// dequantize(quantize(x)) is within half a unit of the element grid at the block's largest
// binade, X * 2^(emax - m - 1), when nothing saturates (RCEIL, rounding to nearest).
RC_GTEST_PROP(MxProperties, RoundTripErrorWithinHalfUlpOfTheTopBinade, ()) {
  const auto x = *gen_block();
  const Fmt e = *rc::gen::element(Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1);
  MxOptions o;
  o.elem = e;
  o.scale = MxScaleMode::rceil;
  const MxTensor q = mx_quantize(x, 1, 32, o);
  const std::vector<float> d = mx_dequantize(q);
  const int s = int(q.scales[0]) - 127;
  const cpp_rational bound = qref::real_pow2(s + emax_of(e) - mbits_of(e) - 1).mag;
  for (size_t i = 0; i < 32; ++i) {
    const R::Real xi = qref::real(x[i]), di = qref::real(d[i]);
    const cpp_rational err = (xi.sign ? -xi.mag : xi.mag) - (di.sign ? -di.mag : di.mag);
    RC_ASSERT((err < 0 ? -err : err) <= bound);
  }
}

}  // namespace
