// The fast quantizers (emulator/src/quant_fast.hpp) against the scalar rules they replace, bit
// for bit: codes, scales, amax and global scale, dequantized values. The scalar rules are the
// definition (mx_reference_test, nvfp4_test, scaling_test and the upstream cases check them
// against exact arithmetic and upstream); here each covered option combination runs both ways
// (detail::set_fast_quant) on tensors with the hard cases - zero blocks, NaN, +-Inf,
// subnormals, values on rounding ties, values near FLT_MAX and the formats' maxima, partial last
// blocks, shapes that are not multiples of the blocks - on every kernel build the CPU has
// (baseline, AVX2, AVX-512) and on 1, 2, 3 and 7 threads. The per-block scale rules written on
// the bits are checked against the scalar ones on every exponent and the patterns next to
// their rounding boundaries.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../emulator/src/quant_fast.hpp"
#include "../datapath/kernel_builds.hpp"
#include "tcemu/ptx_cvt.hpp"
#include "tcemu/quant_recipe.hpp"

namespace {

using namespace tcemu::quant;
using tcemu::Exec;
using tcemu::Fmt;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = std::bit_cast<uint32_t>(v[i]);
  return b;
}
uint32_t fb(float f) { return std::bit_cast<uint32_t>(f); }

// Values of every kind, blocks of different magnitudes, and the hard cases at fixed places.
std::vector<float> hard_input(size_t rows, size_t cols, uint64_t seed, bool specials = true) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-40, 40), small(0, 255), kind(0, 19);
  std::vector<float> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) {
    const int e = ex(g);
    switch (kind(g)) {
      case 0: x[i] = std::ldexp(static_cast<float>(small(g) - 128), e);  break;  // few bits: ties after power-of-two scaling
      case 1: x[i] = std::ldexp(1.0f + static_cast<float>(2 * small(g) + 1) / 512.0f, e); break;  // halfway patterns
      case 2: x[i] = (i & 1 ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(small(g) + 1), -149 + small(g) % 20); break;  // subnormals
      default: x[i] = std::ldexp(n(g), e / 4);
    }
  }
  // Some blocks far larger or smaller than others.
  for (size_t i = 0; i < x.size(); i += 97) x[i] = std::ldexp(x[i], (i / 97) % 2 ? 14 : -20);
  if (!specials) return x;
  // Zero blocks: whole row segments (and so whole 1x16/1x32/1x128 and, for 2-D, partial tiles).
  for (size_t r = 3; r < rows; r += 11)
    for (size_t c = 0; c < std::min<size_t>(cols, 160); ++c) x[r * cols + c] = (c % 3 == 0) ? -0.0f : 0.0f;
  for (size_t i = 5; i < x.size(); i += 1031) x[i] = (i % 2) ? kNan : -kNan;
  for (size_t i = 77; i < x.size(); i += 1511) x[i] = (i % 2) ? kInf : -kInf;
  for (size_t i = 13; i < x.size(); i += 503) x[i] = 1e-40f;
  for (size_t i = 29; i < x.size(); i += 877) x[i] = (i % 2 ? -1.0f : 1.0f) * std::numeric_limits<float>::max();
  for (size_t i = 31; i < x.size(); i += 659) x[i] = std::ldexp(0x1.FFFFFEp0f, 127 - static_cast<int>(i % 5));
  for (size_t i = 41; i < x.size(); i += 313) x[i] = (i % 2 ? 448.0f : 464.0f) * (i % 3 ? 1.0f : -1.0f);  // e4m3 max, tie above
  for (size_t i = 43; i < x.size(); i += 401) x[i] = (i % 2 ? 6.0f : 57344.0f);
  return x;
}

struct FastScalar {
  template <class F>
  static auto both(F&& f) {
    detail::set_fast_quant(false);
    auto s = f();
    detail::set_fast_quant(true);
    return std::pair{s, f()};
  }
};

// Where two arrays first differ (their sizes when those differ), or "" when they agree.
template <class T>
std::string first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size());
  size_t count = 0, first = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && count++ == 0) first = i;
  if (count == 0) return {};
  return std::to_string(count) + " differ, first at " + std::to_string(first) + ": " + std::to_string(a[first]) + " vs " +
         std::to_string(b[first]);
}
#define EXPECT_SAME_ARRAYS(a, b) EXPECT_EQ(first_difference(a, b), "")

void expect_same(const Quantized& a, const Quantized& b, const std::string& what) {
  EXPECT_SAME_ARRAYS(a.codes, b.codes) << what << ": codes";
  EXPECT_SAME_ARRAYS(a.scale_codes, b.scale_codes) << what << ": scale codes";
  EXPECT_SAME_ARRAYS(bits(a.scale_f32), bits(b.scale_f32)) << what << ": f32 scales";
  EXPECT_EQ(fb(a.global_scale), fb(b.global_scale)) << what << ": global scale";
  EXPECT_EQ(fb(a.amax), fb(b.amax)) << what << ": amax";
  EXPECT_EQ(a.scale_rows, b.scale_rows) << what;
  EXPECT_EQ(a.scale_cols, b.scale_cols) << what;
}

struct Shape {
  size_t rows, cols;
};
// Partial last blocks everywhere (none a multiple of 32 or 128; 45 and 75 not of 16), one
// vector, one element, and two shapes with several rectangles (quant_tiles.hpp) for threads.
const Shape kShapes[] = {{37, 45}, {19, 75}, {1, 1}, {1, 200}, {130, 176}};
const Shape kThreadShapes[] = {{130, 1008}, {77, 1001}};

// The fast path on `threads` threads against the scalar rules on one thread: quantize and
// dequantize.
void check_recipe(const Recipe& r, const Shape& s, const std::vector<float>& x, const std::string& what,
                  std::initializer_list<int> threads = {1}) {
  tcemu::quant::detail::set_fast_quant(false);
  const auto sq = quantize(r, x, s.rows, s.cols, {}, Exec{1});
  ASSERT_TRUE(sq.error.empty()) << what << ": " << sq.error;
  const std::vector<uint32_t> sd = bits(dequantize(r, sq.value, Exec{1}).value);
  tcemu::quant::detail::set_fast_quant(true);
  for (int t : threads) {
    const std::string w = what + " on " + std::to_string(t) + " threads";
    const Quantized fq = quantize(r, x, s.rows, s.cols, {}, Exec{t}).value;
    expect_same(sq.value, fq, w);
    EXPECT_SAME_ARRAYS(sd, bits(dequantize(r, sq.value, Exec{t}).value)) << w << ": dequantized";
  }
}

std::string shape_name(const Shape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

TEST(QuantFast, ScaleRulesOnTheBitsEqualTheScalarRules) {
  std::vector<uint32_t> in;
  std::mt19937_64 g(99);
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 0x400000u, 0x3FFFFFu, 0x400001u, 0x7FFFFFu, 0x200000u})
      in.push_back((e << 23) | m);
  for (uint32_t e = 0; e < 256; ++e)
    for (int k = 0; k < 16; ++k) in.push_back((e << 23) | static_cast<uint32_t>(g() & 0x7FFFFF));
  for (int k = 0; k < 4000; ++k) in.push_back(static_cast<uint32_t>(g()) & 0x7FFFFFFFu);
  size_t bad = 0;
  for (uint32_t b : in) {
    const float d = std::bit_cast<float>(b);
    for (bool sat : {false, true}) bad += detail::e8m0_round_up_bits(d, sat) != e8m0_round_up(d, sat);
  }
  EXPECT_EQ(bad, 0u) << "e8m0 round up";
  const float encs[] = {1.0f, 2688.0f, 0.37f, 1e-30f, 3e30f, std::numeric_limits<float>::max(), nvfp4_te_encode_scale(0.7f),
                        nvfp4_te_encode_scale(1e-38f), -2.0f};
  float mul_tab[256];
  for (int k = 0; k < 256; ++k) mul_tab[k] = static_cast<float>(k) + 0.5f;
  tcemu::test::for_each_kernel_build([&](uint64_t) {
    bad = 0;
    std::vector<uint8_t> codes(in.size());
    std::vector<float> mul(in.size());
    for (float s : encs)
      for (Nvfp4Order o : {Nvfp4Order::te, Nvfp4Order::te_div6}) {
        detail::nvfp4_block_scales(in.data(), in.size(), s, o == Nvfp4Order::te_div6, mul_tab, codes.data(), mul.data());
        for (size_t k = 0; k < in.size(); ++k) {
          const uint8_t want = nvfp4_te_block_scale(std::bit_cast<float>(in[k]), s, o);
          bad += codes[k] != want || mul[k] != mul_tab[want];
        }
      }
    EXPECT_EQ(bad, 0u) << "nvfp4 block scales";
  });
}

// The element cast (rn on the bits above the format's smallest normal, the f32 adder below it)
// against the conversion core's cvt.rn.satfinite on every exponent, the patterns around every
// rounding position (ties and their neighbours) and random ones, with and without the torch
// clamp, and a multiplier that is not 1.
TEST(QuantFast, ElementCastEqualsTheConversionCore) {
  std::vector<float> x;
  std::mt19937_64 g(17);
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t e = 0; e < 256; ++e) {
      for (uint32_t hi = 0; hi < 64; ++hi)
        for (uint32_t lo : {0u, 1u, 0xFFFFu, 0x10000u, 0x1FFFFu, 0x10001u})
          x.push_back(std::bit_cast<float>(sign | (e << 23) | (hi << 17) | lo));
      for (int k = 0; k < 64; ++k) x.push_back(std::bit_cast<float>(sign | (e << 23) | static_cast<uint32_t>(g() & 0x7FFFFF)));
    }
  for (float m : {1.0f, 0.75f}) {
    std::vector<float> mul(x.size(), m);
    for (Fmt f : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1})
      for (bool clamp : {false, true}) {
        tcemu::ConvertOptions sat;
        sat.satfinite = true;
        detail::CastSpec spec;
        spec.elem = f;
        spec.clamp = clamp;
        spec.max = mx_max_norm(f);
        spec.nan_code = 0x5A;
        std::vector<uint8_t> want(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          float y = x[i] * m;
          const bool nan = std::isnan(y);
          if (clamp) y = std::min(std::max(y, -spec.max), spec.max);
          want[i] = nan ? spec.nan_code : static_cast<uint8_t>(tcemu::convert(Fmt::f32, f, fb(y), sat).code);
        }
        tcemu::test::for_each_kernel_build([&](uint64_t) {
          std::vector<uint8_t> got(x.size());
          detail::scale_cast(x.data(), mul.data(), 1, x.size(), got.data(), spec);
          EXPECT_SAME_ARRAYS(want, got) << tcemu::info(f).name << (clamp ? " clamped" : "") << " mul " << m;
          for (size_t bw : {size_t{8}, size_t{12}, size_t{32}, x.size()}) {  // one multiplier per block
            std::vector<uint8_t> blocks(x.size());
            detail::scale_cast(x.data(), mul.data(), bw, x.size(), blocks.data(), spec);
            EXPECT_SAME_ARRAYS(want, blocks) << tcemu::info(f).name << " blocks of " << bw;
          }
        });
      }
  }
}

TEST(QuantFast, AmaxEqualsTheScalarLoop) {
  tcemu::test::for_each_kernel_build([&](uint64_t) {
    for (const Shape& s : kShapes) {
      const std::vector<float> x = hard_input(s.rows, s.cols, s.rows + 17 * s.cols);
      for (AmaxNan p : {AmaxNan::propagate, AmaxNan::ignore, AmaxNan::ignore_nonfinite})
        for (int t : {1, 3}) {
          const auto [sc, fa] = FastScalar::both([&] { return mx_amax(x, p, Exec{t}); });
          EXPECT_EQ(fb(sc), fb(fa)) << shape_name(s) << " policy " << static_cast<int>(p);
          EXPECT_EQ(fb(mx_amax(x, p)), fb(sc)) << "serial amax";
        }
    }
  });
}

// Every covered MX option combination (quant_fast.hpp mx_fast_applies).
TEST(QuantFast, MxEveryCoveredOptionEqualsTheScalarRules) {
  struct Mode {
    MxScaleMode m;
    MxVariant v;
  };
  const Mode modes[] = {{MxScaleMode::rceil_sat, MxVariant::current}, {MxScaleMode::rceil_sat, MxVariant::te_2_12},
                        {MxScaleMode::rceil, MxVariant::current},     {MxScaleMode::floor, MxVariant::current},
                        {MxScaleMode::ceil, MxVariant::current},      {MxScaleMode::even, MxVariant::current}};
  const std::optional<AmaxNan> nans[] = {std::nullopt, AmaxNan::propagate, AmaxNan::ignore, AmaxNan::ignore_nonfinite};
  const std::optional<ElemCast> casts[] = {std::nullopt, ElemCast::ptx, ElemCast::torch};
  tcemu::test::for_each_kernel_build([&](uint64_t isa) {
    for (const Shape& s : kShapes) {
      const std::vector<float> x = hard_input(s.rows, s.cols, 1000 * isa + s.rows * 31 + s.cols);
      for (Fmt e : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1})
        for (const Mode& md : modes)
          for (BlockAxis axis : {BlockAxis::rowwise, BlockAxis::columnwise, BlockAxis::tile2d})
            for (size_t block : {size_t{32}, size_t{16}, size_t{7}})
              for (size_t k = 0; k < 4; ++k) {  // NaN policies and casts in turn (not all 12 pairs)
                if (s.rows * s.cols > 10000 && block != 32) continue;  // the large shape: the default block
                Recipe r = *find_recipe("mxfp8");
                r.mx.elem = e;
                r.mx.scale = md.m;
                r.mx.variant = md.v;
                r.mx.axis = axis;
                r.mx.block = block;
                r.mx.amax_nan = nans[k];
                r.mx.cast = casts[(k + block) % 3];
                r.mx_dequant = static_cast<MxDequant>(k % 3);
                ASSERT_TRUE(detail::mx_fast_applies(r.mx));
                check_recipe(r, s, x,
                             std::string(tcemu::info(e).name) + " " + std::string(to_string(md.m)) + " " +
                                 std::string(to_string(md.v)) + " " + std::string(to_string(axis)) + " block " +
                                 std::to_string(block) + " k " + std::to_string(k) + " " + shape_name(s));
              }
    }
  });
}

TEST(QuantFast, MxOptionsNotCoveredRunTheScalarRules) {
  MxOptions o;
  o.scale = MxScaleMode::rceil_sat;
  EXPECT_TRUE(detail::mx_fast_applies(o));
  MxOptions a = o;
  a.elem = Fmt::s8;
  EXPECT_FALSE(detail::mx_fast_applies(a));
  a = o;
  a.round = tcemu::Round::rz;
  EXPECT_FALSE(detail::mx_fast_applies(a));
  a = o;
  a.scale = MxScaleMode::rceil_legacy;
  EXPECT_FALSE(detail::mx_fast_applies(a));
  a = o;
  a.scale = MxScaleMode::floor;
  a.variant = MxVariant::torchao_0_18;
  EXPECT_FALSE(detail::mx_fast_applies(a));
  a.variant = MxVariant::current;
  a.floor_path = TorchaoFloorPath::cuda;
  EXPECT_FALSE(detail::mx_fast_applies(a));
  detail::set_fast_quant(false);
  EXPECT_FALSE(detail::mx_fast_applies(o));
  detail::set_fast_quant(true);
}

TEST(QuantFast, Nvfp4EveryCoveredOptionEqualsTheScalarRules) {
  tcemu::test::for_each_kernel_build([&](uint64_t isa) {
    for (const Shape& s : kShapes) {
      const std::vector<float> x = hard_input(s.rows, s.cols, 77 * isa + s.rows * 13 + s.cols);
      for (Nvfp4Order order : {Nvfp4Order::te, Nvfp4Order::te_div6})
        for (bool tile2d : {false, true})
          for (int rht = 0; rht < 3; ++rht)
            for (int amax = 0; amax < 3; ++amax) {
              if (rht && s.cols % 16) continue;
              Recipe r = *find_recipe("nvfp4");
              r.nvfp4.order = order;
              r.nvfp4.tile2d = tile2d;
              r.nvfp4.rht = rht > 0;
              r.nvfp4.rht_out = rht == 2 ? RhtOut::f32 : RhtOut::bf16;
              if (rht == 2) r.nvfp4.rht_signs = 0x1234;
              if (amax == 1) r.nvfp4.global_amax = 3.5f;
              if (amax == 2) r.nvfp4.global_amax = 0.0f;
              r.nvfp4.fast_math = amax == 1;  // ignored with f32 input
              r.nvfp4_dequant = order == Nvfp4Order::te && amax == 0 ? Nvfp4Dequant::te_kernel : Nvfp4Dequant::tcemu;
              Nvfp4Options o = r.nvfp4;
              o.input = r.input;
              ASSERT_TRUE(detail::nvfp4_fast_applies(o));
              check_recipe(r, s, x,
                           "nvfp4 " + std::string(to_string(order)) + (tile2d ? " 2d" : " 1d") + " rht " +
                               std::to_string(rht) + " amax " + std::to_string(amax) + " " + shape_name(s));
            }
      // Orders and options the fast path does not cover still dequantize through it.
      for (const char* name : {"nvfp4-torchao"}) check_recipe(*find_recipe(name), s, x, std::string(name) + " " + shape_name(s));
    }
  });
}

TEST(QuantFast, Nvfp4OptionsNotCoveredRunTheScalarRules) {
  Nvfp4Options o;
  EXPECT_TRUE(detail::nvfp4_fast_applies(o));
  Nvfp4Options a = o;
  a.order = Nvfp4Order::torchao;
  EXPECT_FALSE(detail::nvfp4_fast_applies(a));
  a = o;
  a.round = tcemu::Round::rs;
  EXPECT_TRUE(detail::nvfp4_fast_applies(a));  // covered since the stochastic cast
  a.rs_map = tcemu::RsBitMap::flashinfer_hw;
  EXPECT_TRUE(detail::nvfp4_fast_applies(a));
  a.rs_map = static_cast<tcemu::RsBitMap>(static_cast<int>(tcemu::RsBitMap::flashinfer_hw) + 1);  // a map added later
  EXPECT_FALSE(detail::nvfp4_fast_applies(a));
  a = o;
  a.round = tcemu::Round::rs;
  a.order = Nvfp4Order::torchao;
  EXPECT_FALSE(detail::nvfp4_fast_applies(a));
  a = o;
  a.te_test_reference = true;
  EXPECT_FALSE(detail::nvfp4_fast_applies(a));
  a = o;
  a.fast_math = true;
  a.input = Fmt::bf16;  // TE's tuned kernel
  EXPECT_FALSE(detail::nvfp4_fast_applies(a));
}

// The RHT's double path where it reaches, the scalar rule where not: groups with NaN, Inf,
// signed zeros only, exponents far apart, results on bf16 ties, sums that overflow.
TEST(QuantFast, RhtEqualsTheExactScalarSum) {
  std::vector<float> x;
  std::mt19937_64 g(5);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-150, 127), k16(0, 15);
  auto group = [&](auto&& f) {
    for (int i = 0; i < 16; ++i) x.push_back(f(i));
  };
  for (int k = 0; k < 400; ++k) group([&](int) { return n(g); });
  for (int k = 0; k < 200; ++k) group([&](int) { return std::ldexp(n(g), ex(g)); });  // far apart: scalar
  for (int k = 0; k < 200; ++k) {  // within 25 binades, random placement
    const int base = ex(g) % 100;
    group([&](int) { return std::ldexp(n(g), base + k16(g)); });
  }
  for (int k = 0; k < 100; ++k) {  // one nonzero: y = +-x/4 exactly; halfway between bf16 values
    const int at = k16(g);
    const float v = std::ldexp(1.0f + static_cast<float>(2 * (k % 64) + 1) / 256.0f, (k % 50) - 20);
    group([&](int i) { return i == at ? v : 0.0f; });
  }
  for (int k = 0; k < 50; ++k) {  // two terms adding to bf16 ties at various scales
    const float a = std::ldexp(1.0f, k - 25), b = std::ldexp(1.0f, k - 33);
    group([&](int i) { return i == 0 ? a : i == 5 ? b : 0.0f; });
  }
  group([&](int) { return -0.0f; });
  group([&](int i) { return i % 2 ? -0.0f : 0.0f; });
  group([&](int) { return 0.0f; });
  group([&](int) { return std::numeric_limits<float>::max(); });  // sums overflow
  group([&](int i) { return i < 8 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max(); });
  group([&](int i) { return i == 3 ? kNan : 1.0f; });
  group([&](int i) { return i == 3 ? kInf : i == 4 ? -kInf : 1.0f; });
  group([&](int i) { return i == 9 ? -kInf : 2.0f; });
  group([&](int i) { return std::ldexp(1.0f + static_cast<float>(i) / 16.0f, -140 - i); });  // subnormal / 4
  group([&](int i) { return std::ldexp(static_cast<float>(i + 1), -149); });
  // Results on bf16's subnormal grid (2^-133) and next to its normals: random groups there,
  // one nonzero y = x / 4 halfway between grid points, and just below 2^-126 (rounding up to it).
  for (int k = 0; k < 200; ++k) {
    const int base = -150 + k % 30;
    group([&](int) { return std::ldexp(n(g), base + k16(g)); });
  }
  for (int k = 0; k < 64; ++k) {
    const int at = k16(g);
    group([&](int i) { return i == at ? (k % 2 ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(2 * k + 1), -132) : 0.0f; });
  }
  for (int k = 0; k < 9; ++k)  // (the group count stays a multiple of 3: the 48-column layout)
    group([&](int i) { return i == k ? (k % 2 ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(255 * 2 + (k % 3) - 1), -133) : 0.0f; });
  const size_t rows = x.size() / 16;
  tcemu::test::for_each_kernel_build([&](uint64_t) {
    for (RhtOut out : {RhtOut::bf16, RhtOut::f32})
      for (uint16_t mask : {kTeRhtSignMask, uint16_t{0}, uint16_t{0xFFFF}})
        for (int t : {1, 2, 7}) {
          const auto [sc, fa] = FastScalar::both([&] { return rht16(x, rows, 16, mask, out, Exec{t}); });
          EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "out " << static_cast<int>(out) << " mask " << mask << " threads " << t;
        }
    // A 2-D layout: groups along rows of 48.
    const auto [sc, fa] = FastScalar::both([&] { return rht16(x, x.size() / 48, 48, kTeRhtSignMask, RhtOut::bf16, Exec{3}); });
    EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "48 columns";
  });
}

TEST(QuantFast, Fp8ScalingEqualsTheScalarRules) {
  tcemu::test::for_each_kernel_build([&](uint64_t isa) {
    for (const Shape& s : kShapes) {
      const std::vector<float> x = hard_input(s.rows, s.cols, 5 * isa + s.rows * 3 + s.cols);
      const std::vector<float> finite = hard_input(s.rows, s.cols, 5 * isa + s.rows * 3 + s.cols, false);
      for (Fmt f : {Fmt::e4m3, Fmt::e5m2})
        for (bool pow2 : {false, true}) {
          Recipe r = *find_recipe("fp8-current");
          r.fp8 = f;
          r.pow2 = pow2;
          const std::string fs = std::string(tcemu::info(f).name) + (pow2 ? " pow2 " : " ") + shape_name(s);
          check_recipe(r, s, x, "fp8-current " + fs);
          check_recipe(r, s, finite, "fp8-current finite " + fs);
          for (const char* name : {"fp8-block1x128", "fp8-block128x128"})
            for (Fmt input : {Fmt::f32, Fmt::bf16, Fmt::f16}) {
              Recipe b = *find_recipe(name);
              b.fp8 = f;
              b.pow2 = pow2;
              b.input = input;
              check_recipe(b, s, x, std::string(name) + " " + std::string(tcemu::info(input).name) + " " + fs);
            }
          // The casts with a given scale and epsilon (delayed scaling, the API).
          for (float scale : {1.0f, 3.7e-3f, 1e30f, kInf}) {
            const auto [sc, fa] = FastScalar::both([&] { return fp8_cast(x, scale, f, Exec{2}); });
            EXPECT_SAME_ARRAYS(sc, fa) << "fp8_cast scale " << scale << " " << fs;
          }
          const auto [sb, fbw] = FastScalar::both(
              [&] { return fp8_blockwise(x, s.rows, s.cols, f, true, pow2, 1e-3f, Fmt::f32, Exec{2}).codes; });
          EXPECT_SAME_ARRAYS(sb, fbw) << "blockwise epsilon " << fs;
        }
    }
  });
}

// Every covered recipe on 1, 2, 3 and 7 threads (several rectangles each): the scalar bits.
TEST(QuantFast, EveryThreadCountGivesTheScalarBits) {
  std::vector<Recipe> rs;
  for (const char* n : {"mxfp8", "mxfp8-e5m2", "mxfp8-torchao", "mx", "mxfp6-e3m2", "mxfp6-e2m3", "mxfp4", "nvfp4", "nvfp4-2d",
                        "nvfp4-torchao", "fp8-current", "fp8-block1x128", "fp8-block128x128"})
    rs.push_back(*find_recipe(n));
  Recipe c = *find_recipe("mxfp8");
  c.mx.axis = BlockAxis::columnwise;
  rs.push_back(c);
  c.mx.axis = BlockAxis::tile2d;
  rs.push_back(c);
  Recipe h = *find_recipe("nvfp4");
  h.nvfp4.rht = true;
  rs.push_back(h);
  for (const Shape& s : kThreadShapes) {
    const std::vector<float> x = hard_input(s.rows, s.cols, s.rows * 7919 + s.cols);
    for (const Recipe& r : rs) {
      if (r.kind == RecipeKind::nvfp4 && r.nvfp4.rht && s.cols % 16) continue;
      check_recipe(r, s, x, r.name + (r.nvfp4.rht ? " rht " : " ") + shape_name(s), {1, 2, 3, 7});
    }
  }
}

// Dequantization of codes and scales the quantizers never produce: every scale code, codes
// outside the narrow formats (a byte above 0x0F for e2m1), every dequantize arithmetic.
TEST(QuantFast, DequantizeEveryCodeAndScale) {
  std::mt19937_64 g(11);
  tcemu::test::for_each_kernel_build([&](uint64_t) {
    const size_t rows = 40, cols = 300;
    std::vector<uint8_t> codes(rows * cols);
    for (uint8_t& c : codes) c = static_cast<uint8_t>(g());
    for (Fmt e : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::s8})
      for (BlockAxis axis : {BlockAxis::rowwise, BlockAxis::columnwise, BlockAxis::tile2d})
        for (MxDequant d : {MxDequant::ocp, MxDequant::te, MxDequant::te_2_18}) {
          MxTensor q;
          q.grid = make_grid(rows, cols, axis, 32);
          q.elem = e;
          q.codes = codes;
          const uint32_t width = tcemu::info(e).width;
          for (size_t i = 0; i < q.codes.size(); ++i)  // mostly valid codes, some not
            if (i % 50) q.codes[i] &= static_cast<uint8_t>((1u << width) - 1);
          q.scales.resize(q.grid.scale_count());
          for (size_t i = 0; i < q.scales.size(); ++i) q.scales[i] = static_cast<uint8_t>(i * 7);
          const auto [sc, fa] = FastScalar::both([&] { return mx_dequantize(q, d, Exec{3}); });
          EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << tcemu::info(e).name << " " << to_string(axis) << " " << to_string(d);
        }
    for (Nvfp4Order o : {Nvfp4Order::te, Nvfp4Order::torchao, Nvfp4Order::torchao_single})
      for (bool tile2d : {false, true}) {
        Nvfp4Tensor q;
        q.grid = make_grid(rows, cols, tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, 16);
        q.order = o;
        q.codes = codes;
        for (size_t i = 0; i < q.codes.size(); ++i)
          if (i % 40) q.codes[i] &= 0xF;
        q.scales.resize(q.grid.scale_count());
        for (size_t i = 0; i < q.scales.size(); ++i) q.scales[i] = static_cast<uint8_t>(i * 5);
        q.global_scale = 2688.0f / 3.3f;
        q.amax = 3.3f;
        for (Nvfp4Dequant d : {Nvfp4Dequant::tcemu, Nvfp4Dequant::te_kernel}) {
          if (d == Nvfp4Dequant::te_kernel && o != Nvfp4Order::te) continue;
          const auto [sc, fa] = FastScalar::both([&] { return nvfp4_dequantize(q, d, Exec{2}); });
          EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "nvfp4 order " << to_string(o) << (tile2d ? " 2d" : "");
        }
      }
    for (Fmt f : {Fmt::e4m3, Fmt::e5m2}) {
      for (float s : {1.0f, 0.125f, 3.7e-3f, 1e-40f, kInf, kNan}) {
        const auto [sc, fa] = FastScalar::both([&] { return fp8_dequantize(codes, s, f, Exec{2}); });
        EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "fp8 scale_inv " << s;
      }
      BlockwiseFp8 q;
      q.grid = make_grid(rows, cols, BlockAxis::rowwise, 128);
      q.fmt = f;
      q.codes = codes;
      q.scale_inv.resize(q.grid.scale_count());
      for (size_t i = 0; i < q.scale_inv.size(); ++i) q.scale_inv[i] = std::ldexp(1.3f, static_cast<int>(i % 40) - 20);
      q.scale_inv[1] = kNan;
      const auto [sc, fa] = FastScalar::both([&] { return fp8_blockwise_dequantize(q, Exec{3}); });
      EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "fp8 blockwise";
    }
  });
}

}  // namespace

namespace {

// The vectorised dequantization (gather_blocks: 16-entry rows by permutes, larger ones by
// hardware gathers, one-column blocks by per-element scale codes; gather_mul) against the
// scalar loops on every pair of an element byte (valid codes and bytes outside the format) and
// a scale: MX every UE8M0 code, NVFP4 every E4M3 code (zero, subnormals, NaN) under ordinary and
// extreme global scales, FP8 scale_inv values from zero and subnormals to Inf and NaN. Every
// row has a partial last vector and a partial last block.
TEST(QuantFast, DequantizeVectorEveryCodeWithEveryScale) {
  const std::vector<float> fp8_scales = {1.0f, 0.125f, -2.5f, 3.7e-3f, 0.0f, -0.0f, 1e-40f,
                                         std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                                         -kInf, kInf, kNan};
  tcemu::test::for_each_kernel_build([&](uint64_t) {
    // Rows: every scale; columns: every byte once, plus a partial block of 13.
    const size_t n = 256, cols = 256 + 13;
    auto byte_grid = [&](size_t rows, size_t c, bool by_row) {
      std::vector<uint8_t> codes(rows * c);
      for (size_t r = 0; r < rows; ++r)
        for (size_t k = 0; k < c; ++k) codes[r * c + k] = static_cast<uint8_t>(by_row ? r : k);
      return codes;
    };
    for (Fmt e : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::s8})
      for (size_t block : {size_t{32}, size_t{16}, size_t{12}})
        for (BlockAxis axis : {BlockAxis::rowwise, BlockAxis::columnwise, BlockAxis::tile2d})
          for (MxDequant d : {MxDequant::ocp, MxDequant::te, MxDequant::te_2_18}) {
            MxTensor q;
            const bool col = axis == BlockAxis::columnwise;
            q.grid = make_grid(col ? cols : n, col ? n : cols, axis, block);
            q.elem = e;
            q.codes = byte_grid(q.grid.rows, q.grid.cols, col);
            q.scales.resize(q.grid.scale_count());
            // Block (i, k) scale (i + 37 k) mod 256: each byte meets every scale code.
            for (size_t i = 0; i < q.grid.scale_rows(); ++i)
              for (size_t k = 0; k < q.grid.scale_cols(); ++k)
                q.scales[i * q.grid.scale_cols() + k] = static_cast<uint8_t>(col ? (k + 37 * i) : (i + 37 * k));
            const auto [sc, fa] = FastScalar::both([&] { return mx_dequantize(q, d, Exec{2}); });
            EXPECT_SAME_ARRAYS(bits(sc), bits(fa))
                << tcemu::info(e).name << " block " << block << " " << to_string(axis) << " " << to_string(d);
          }
    for (Nvfp4Order o : {Nvfp4Order::te, Nvfp4Order::torchao, Nvfp4Order::torchao_0_16})
      for (bool tile2d : {false, true})
        for (float amax : {3.3f, 0.0f, 1e-30f, 3e38f, kInf, kNan}) {
          Nvfp4Tensor q;
          q.grid = make_grid(n, cols, tile2d ? BlockAxis::tile2d : BlockAxis::rowwise, 16);
          q.order = o;
          q.codes = byte_grid(n, cols, false);
          q.scales.resize(q.grid.scale_count());
          for (size_t i = 0; i < q.grid.scale_rows(); ++i)
            for (size_t k = 0; k < q.grid.scale_cols(); ++k)
              q.scales[i * q.grid.scale_cols() + k] = static_cast<uint8_t>(i * (tile2d ? 16 : 1) + 37 * k);
          q.amax = amax;
          q.global_scale = o == Nvfp4Order::te ? nvfp4_te_encode_scale(amax) : amax / 2688.0f;
          for (Nvfp4Dequant d : {Nvfp4Dequant::tcemu, Nvfp4Dequant::te_kernel}) {
            if (d == Nvfp4Dequant::te_kernel && o != Nvfp4Order::te) continue;
            const auto [sc, fa] = FastScalar::both([&] { return nvfp4_dequantize(q, d, Exec{2}); });
            EXPECT_SAME_ARRAYS(bits(sc), bits(fa))
                << "nvfp4 order " << to_string(o) << (tile2d ? " 2d" : "") << " amax " << amax << " " << to_string(d);
          }
        }
    const std::vector<uint8_t> every = byte_grid(1, 256 * 3 + 5, false);
    for (Fmt f : {Fmt::e4m3, Fmt::e5m2}) {
      for (float s : fp8_scales) {
        const auto [sc, fa] = FastScalar::both([&] { return fp8_dequantize(every, s, f, Exec{2}); });
        EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "fp8 scale_inv " << s;
      }
      for (bool tile : {false, true}) {
        BlockwiseFp8 q;
        q.grid = make_grid(tile ? 300 : fp8_scales.size(), 256 + 128 + 7, tile ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
        q.fmt = f;
        q.codes = byte_grid(q.grid.rows, q.grid.cols, false);
        q.scale_inv.resize(q.grid.scale_count());
        // Block (i, k) takes scale i + k: in 1x128 blocks each byte meets every scale.
        for (size_t i = 0; i < q.grid.scale_rows(); ++i)
          for (size_t k = 0; k < q.grid.scale_cols(); ++k)
            q.scale_inv[i * q.grid.scale_cols() + k] = fp8_scales[(i + k) % fp8_scales.size()];
        const auto [sc, fa] = FastScalar::both([&] { return fp8_blockwise_dequantize(q, Exec{3}); });
        EXPECT_SAME_ARRAYS(bits(sc), bits(fa)) << "fp8 blockwise" << (tile ? " 128x128" : " 1x128");
      }
    }
  });
}

}  // namespace

namespace {

// The stochastic e2m1 cast (scale_cast_rs_e2m1) against ptx_cvt_eval of
// cvt.rs.satfinite.e2m1x4.f32, the scalar loop's instruction: every f32 exponent field with
// mantissas at and next to the discarded byte's edges and the rounding carries, both signs, NaN
// payloads, Inf, subnormals, each with every random byte (the word's four bytes equal), then
// random words for the split of a word among the four elements, under both maps.
TEST(QuantFast, StochasticE2m1CastEqualsPtxCvt) {
  const tcemu::PtxCvt cvt = tcemu::parse_ptx_cvt("cvt.rs.satfinite.e2m1x4.f32").value;
  std::vector<float> y;
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 0x3FFFu, 0x4000u, 0x1FC000u, 0x200000u, 0x3FBFFFu, 0x3FC000u, 0x3FFFFFu, 0x400000u,
                       0x5FC000u, 0x600000u, 0x7FC000u, 0x7FFFFFu, 0x123456u})
      for (uint32_t sg : {0u, 1u}) y.push_back(std::bit_cast<float>((sg << 31) | (e << 23) | m));
  while (y.size() % 4) y.push_back(0.0f);
  const std::vector<float> one(y.size(), 1.0f);
  auto expected = [&](const std::vector<uint32_t>& words, tcemu::RsBitMap map) {
    std::vector<uint8_t> c(y.size());
    for (size_t i = 0; i < y.size(); i += 4) {
      const std::vector<uint64_t> src = {fb(y[i + 3]), fb(y[i + 2]), fb(y[i + 1]), fb(y[i])};
      const uint64_t d = tcemu::ptx_cvt_eval(cvt, src, words[i / 4], map);
      for (size_t j = 0; j < 4; ++j) c[i + j] = static_cast<uint8_t>((d >> (4 * j)) & 0xF);
    }
    return c;
  };
  const auto nan_code = [&](uint32_t b) {
    return static_cast<uint8_t>(tcemu::convert(Fmt::f32, Fmt::e2m1, b, cvt.options).code);
  };
  const uint8_t nan_pos = nan_code(0x7FC00000u), nan_neg = nan_code(0xFFC00000u);
  std::mt19937 g(5);
  tcemu::test::for_each_kernel_build([&](uint64_t) {
    for (tcemu::RsBitMap map : {tcemu::RsBitMap::ptx_doc, tcemu::RsBitMap::flashinfer_hw}) {
      std::vector<uint32_t> words(y.size() / 4);
      for (int pass = 0; pass < 256 + 8; ++pass) {
        for (uint32_t& w : words) w = pass < 256 ? 0x01010101u * static_cast<uint32_t>(pass) : static_cast<uint32_t>(g());
        std::vector<uint8_t> got(y.size());
        // The whole array, and an odd group count (the vector loop's last group alone).
        detail::scale_cast_rs_e2m1(y.data(), one.data(), 1, y.size(), words.data(), map, nan_pos, nan_neg, got.data());
        const std::vector<uint8_t> want = expected(words, map);
        EXPECT_SAME_ARRAYS(want, got) << "pass " << pass << " map " << static_cast<int>(map);
        std::vector<uint8_t> part(12);
        detail::scale_cast_rs_e2m1(y.data() + 4, one.data(), 1, 12, words.data() + 1, map, nan_pos, nan_neg, part.data());
        EXPECT_SAME_ARRAYS(std::vector<uint8_t>(want.begin() + 4, want.begin() + 16), part) << "pass " << pass;
        for (size_t bw : {size_t{16}, size_t{12}}) {  // one multiplier per block
          std::vector<uint8_t> blocks(y.size());
          detail::scale_cast_rs_e2m1(y.data(), one.data(), bw, y.size(), words.data(), map, nan_pos, nan_neg, blocks.data());
          EXPECT_SAME_ARRAYS(want, blocks) << "pass " << pass << " blocks of " << bw;
        }
      }
    }
  });
}

// NVFP4 with stochastic rounding on the fast path against the scalar loop: the same random words
// read by the same elements, with and without the RHT, 1x16 and 16x16 blocks, both maps, on 1,
// 2, 3 and 7 threads.
TEST(QuantFast, Nvfp4StochasticRoundingEqualsTheScalarRules) {
  const Shape shapes[] = {{37, 48}, {19, 76}, {1, 4}, {130, 176}, {77, 1008}};
  tcemu::test::for_each_kernel_build([&](uint64_t isa) {
    for (const Shape& s : shapes) {
      const std::vector<float> x = hard_input(s.rows, s.cols, 31 * isa + s.rows * 5 + s.cols);
      std::mt19937 g(static_cast<uint32_t>(s.rows * 7 + s.cols + isa));
      std::vector<uint32_t> words(x.size() / 4);
      for (uint32_t& w : words) w = static_cast<uint32_t>(g());
      for (bool tile2d : {false, true})
        for (int rht = 0; rht < 2; ++rht)
          for (tcemu::RsBitMap map : {tcemu::RsBitMap::ptx_doc, tcemu::RsBitMap::flashinfer_hw}) {
            if (rht && s.cols % 16) continue;
            Recipe r = *find_recipe("nvfp4");
            r.nvfp4.round = tcemu::Round::rs;
            r.nvfp4.rs_map = map;
            r.nvfp4.tile2d = tile2d;
            r.nvfp4.rht = rht > 0;
            Nvfp4Options o = r.nvfp4;
            o.input = r.input;
            ASSERT_TRUE(detail::nvfp4_fast_applies(o));
            const std::string what = "nvfp4 rs" + std::string(tile2d ? " 2d" : " 1d") + (rht ? " rht" : "") + " map " +
                                     std::to_string(static_cast<int>(map)) + " " + shape_name(s);
            detail::set_fast_quant(false);
            const auto sq = quantize(r, x, s.rows, s.cols, words, Exec{1});
            detail::set_fast_quant(true);
            ASSERT_TRUE(sq.error.empty()) << what << ": " << sq.error;
            for (int t : {1, 2, 3, 7}) expect_same(sq.value, quantize(r, x, s.rows, s.cols, words, Exec{t}).value, what + " on " + std::to_string(t) + " threads");
          }
    }
  });
}

}  // namespace
