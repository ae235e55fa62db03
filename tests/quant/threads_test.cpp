// Quantize and dequantize on several threads: every recipe of recipe_presets() (and the option
// variants that take other code paths: column and 2-D MX blocks, stochastic rounding, the RHT,
// TE's fast math and test reference, the older orders, TE's dequantize kernels), on shapes that
// do not divide evenly into blocks and are cut into several rectangles, with 1, 2, 3 and 7
// threads and the plain call: codes, scales and values bit-identical to the 1-thread result
// (which the published-case and reference tests check on their own inputs). Independently of
// the cut, the 1-thread result of MX, blockwise FP8 and TE NVFP4 is re-derived block by block
// from the scalar steps of quant.hpp (mx_amax, mx_scale_code, mx_element_code, ...), which
// mx_reference_test / nvfp4_test / scaling_test check against exact arithmetic.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../emulator/src/quant_fast.hpp"
#include "tcemu/quant_recipe.hpp"

namespace {

using namespace tcemu::quant;
using tcemu::Exec;
using tcemu::Fmt;
using tcemu::Round;

struct Shape {
  size_t rows, cols;
  bool specials;  // NaN, Inf, zeros and subnormals sprinkled in
};

std::vector<float> make_input(const Shape& s, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-30, 12);
  std::vector<float> x(s.rows * s.cols);
  for (float& v : x) v = std::ldexp(n(g), ex(g) / 4);  // blocks of different magnitudes
  // Some rows and blocks far larger or smaller, so scales differ across the tensor.
  for (size_t i = 0; i < x.size(); i += 97) x[i] = std::ldexp(x[i], (i / 97) % 2 ? 14 : -20);
  if (s.specials) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (size_t i = 5; i < x.size(); i += 4099) x[i] = nan;
    for (size_t i = 77; i < x.size(); i += 6007) x[i] = (i % 2) ? inf : -inf;
    for (size_t i = 11; i < x.size(); i += 331) x[i] = 0.0f;
    for (size_t i = 13; i < x.size(); i += 503) x[i] = 1e-40f;
  }
  return x;
}

std::vector<uint32_t> make_rbits(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<uint32_t> r(n);
  for (uint32_t& v : r) v = static_cast<uint32_t>(g());
  return r;
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = std::bit_cast<uint32_t>(v[i]);
  return b;
}

void expect_same(const Quantized& a, const Quantized& b, const std::string& what) {
  EXPECT_EQ(a.codes, b.codes) << what << ": codes";
  EXPECT_EQ(a.scale_codes, b.scale_codes) << what << ": scale codes";
  EXPECT_EQ(bits(a.scale_f32), bits(b.scale_f32)) << what << ": f32 scales";
  EXPECT_EQ(std::bit_cast<uint32_t>(a.global_scale), std::bit_cast<uint32_t>(b.global_scale)) << what << ": global scale";
  EXPECT_EQ(std::bit_cast<uint32_t>(a.amax), std::bit_cast<uint32_t>(b.amax)) << what << ": amax";
  EXPECT_EQ(a.scale_rows, b.scale_rows) << what;
  EXPECT_EQ(a.scale_cols, b.scale_cols) << what;
}

// The recipes: every preset, then variants with other code paths. needs16: the variant needs a
// multiple of 16 columns (RHT) or of 4 (stochastic rounding).
struct Case {
  Recipe r;
  bool needs16 = false;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const RecipePreset& p : recipe_presets()) {
    const Recipe r = *find_recipe(p.name);  // TE's NVFP4 variants need whole 16-blocks
    out.push_back({r, r.kind == RecipeKind::nvfp4 && nvfp4_te_variant(r.nvfp4)});
  }
  auto variant = [&](const char* base, auto&& edit, bool needs16 = false) {
    Case c{*find_recipe(base), needs16};
    edit(c.r);
    out.push_back(c);
  };
  variant("mxfp8", [](Recipe& r) { r.name += " axis col, dequant te"; r.mx.axis = BlockAxis::columnwise; r.mx_dequant = MxDequant::te; });
  variant("mx", [](Recipe& r) { r.name += " axis 2d, dequant te-2.18"; r.mx.axis = BlockAxis::tile2d; r.mx_dequant = MxDequant::te_2_18; });
  variant("mxfp4", [](Recipe& r) { r.name += " rs"; r.mx.round = Round::rs; });
  variant("mx", [](Recipe& r) { r.name += " ceil, ignore-nonfinite"; r.mx.scale = MxScaleMode::ceil; r.mx.amax_nan = AmaxNan::ignore_nonfinite; });
  variant("nvfp4", [](Recipe& r) { r.name += " rs"; r.nvfp4.round = Round::rs; }, true);
  variant("nvfp4", [](Recipe& r) { r.name += " rht, dequant te"; r.nvfp4.rht = true; r.nvfp4_dequant = Nvfp4Dequant::te_kernel; }, true);
  variant("nvfp4", [](Recipe& r) { r.name += " bf16 fast math"; r.input = Fmt::bf16; r.nvfp4.fast_math = true; });
  variant("nvfp4", [](Recipe& r) { r.name += " te test reference"; r.nvfp4.te_test_reference = true; });
  variant("nvfp4", [](Recipe& r) { r.name += " te-div6"; r.nvfp4.order = Nvfp4Order::te_div6; });
  variant("nvfp4-torchao", [](Recipe& r) { r.name += " single"; r.nvfp4.order = Nvfp4Order::torchao_single; });
  variant("nvfp4-torchao", [](Recipe& r) { r.name += " 0.16"; r.nvfp4.order = Nvfp4Order::torchao_0_16; });
  variant("nvfp4-row-scaled", [](Recipe& r) { r.name += " dequant te"; r.nvfp4_dequant = Nvfp4Dequant::te_kernel; }, true);
  variant("fp8-current", [](Recipe& r) { r.name += " e5m2 pow2"; r.fp8 = Fmt::e5m2; r.pow2 = true; });
  variant("fp8-block128x128", [](Recipe& r) { r.name += " exact scales, bf16 input"; r.pow2 = false; r.input = Fmt::bf16; });
  return out;
}

// Shapes cut into several rectangles (quant_tiles.hpp: about 16 Ki elements each), none a
// multiple of 32 or 128 in either dimension, 130 and 77 not multiples of 16.
const Shape kShapes[] = {{130, 1008, false}, {5, 20016, false}, {1, 70000, true}, {77, 1001, true}};

TEST(QuantThreads, EveryRecipeEveryThreadCountGivesTheOneThreadBits) {
  for (const Case& c : cases()) {
    for (const Shape& s : kShapes) {
      if (c.needs16 && s.cols % 16 != 0) continue;
      const std::string what = c.r.name + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols);
      const std::vector<float> x = make_input(s, s.rows * 7919 + s.cols);
      const std::vector<uint32_t> rb = make_rbits(random_words_needed(c.r, x.size()), s.cols);
      const Quantized one = quantize(c.r, x, s.rows, s.cols, rb, Exec{1}).value;
      const std::vector<uint32_t> deq_one = bits(dequantize(c.r, one, Exec{1}).value);
      ASSERT_EQ(one.codes.size(), x.size()) << what;
      for (int t : {2, 3, 7}) {
        const Quantized q = quantize(c.r, x, s.rows, s.cols, rb, Exec{t}).value;
        expect_same(one, q, what + " with " + std::to_string(t) + " threads");
        EXPECT_EQ(deq_one, bits(dequantize(c.r, one, Exec{t}).value)) << what << ": dequantized with " << t << " threads";
      }
      expect_same(one, quantize(c.r, x, s.rows, s.cols, rb).value, what + " (plain call)");
      EXPECT_EQ(deq_one, bits(dequantize(c.r, one).value)) << what << ": dequantized (plain call)";
    }
  }
}

// dequantize_into writes, into a buffer full of another pattern, the bits dequantize returns:
// every recipe and variant, every shape, 1 and 3 threads, on the fast paths and on the scalar
// rules alone (whose vector is copied in). A buffer of another size, or codes that do not match
// the shape, is refused with a message and the buffer is left as it was.
TEST(QuantThreads, DequantizeIntoWritesTheBitsOfDequantize) {
  const float poison = std::bit_cast<float>(0xDEADBEEFu);
  for (bool fast : {true, false}) {
    detail::set_fast_quant(fast);
    for (const Case& c : cases()) {
      for (const Shape& s : kShapes) {
        if (c.needs16 && s.cols % 16 != 0) continue;
        const std::string what = c.r.name + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                                 (fast ? "" : " (scalar rules)");
        const std::vector<float> x = make_input(s, s.rows * 7919 + s.cols);
        const std::vector<uint32_t> rb = make_rbits(random_words_needed(c.r, x.size()), s.cols);
        const Quantized q = quantize(c.r, x, s.rows, s.cols, rb, Exec{1}).value;
        const std::vector<uint32_t> want = bits(dequantize(c.r, q, Exec{1}).value);
        for (int t : {1, 3}) {
          std::vector<float> out(x.size(), poison);
          const tcemu::Result<std::span<float>> res = dequantize_into(c.r, q, out, Exec{t});
          ASSERT_TRUE(res.ok()) << what << ": " << res.error;
          EXPECT_EQ(res.value.data(), out.data()) << what;
          EXPECT_EQ(bits(out), want) << what << " on " << t << " threads";
        }
      }
    }
  }
  detail::set_fast_quant(true);
  const Recipe r = *find_recipe("nvfp4");
  const std::vector<float> x = make_input({4, 64, false}, 3);
  Quantized q = quantize(r, x, 4, 64).value;
  std::vector<float> small(255, poison);
  const auto res = dequantize_into(r, q, small, Exec{1});
  EXPECT_EQ(res.error, "the output holds 255 floats; the tensor has 4 x 64 = 256 elements");
  EXPECT_EQ(bits(small), bits(std::vector<float>(255, poison)));
  q.codes.pop_back();
  std::vector<float> out(256, poison);
  EXPECT_EQ(dequantize_into(r, q, out, Exec{1}).error, "element codes do not match the shape");
  EXPECT_EQ(bits(out), bits(std::vector<float>(256, poison)));
}

// The 1-thread result, block by block from the scalar steps (whatever the rectangles).
TEST(QuantThreads, OneThreadEqualsBlockByBlockScalarSteps) {
  for (const Shape& s : kShapes) {
    const std::vector<float> x = make_input(s, s.rows * 7919 + s.cols);
    const std::string shape = std::to_string(s.rows) + "x" + std::to_string(s.cols);
    // MX (mxfp8 rowwise and column blocks, torchao FLOOR 2-D tiles): TE ignores NaN, torchao propagates.
    for (auto [name, axis] : {std::pair{"mxfp8", BlockAxis::rowwise}, std::pair{"mxfp8", BlockAxis::columnwise},
                              std::pair{"mx", BlockAxis::tile2d}}) {
      Recipe r = *find_recipe(name);
      r.mx.axis = axis;
      const Quantized q = quantize(r, x, s.rows, s.cols, {}, Exec{1}).value;
      const BlockGrid g = make_grid(s.rows, s.cols, axis, 32);
      const AmaxNan pol = r.mx.scale == MxScaleMode::rceil_sat ? AmaxNan::ignore : AmaxNan::propagate;
      size_t bad = 0;
      for (size_t br = 0; br < g.scale_rows(); ++br)
        for (size_t bc = 0; bc < g.scale_cols(); ++bc) {
          std::vector<float> v;
          std::vector<size_t> at;
          for (size_t rr = br * g.block_rows; rr < std::min(s.rows, (br + 1) * g.block_rows); ++rr)
            for (size_t cc = bc * g.block_cols; cc < std::min(s.cols, (bc + 1) * g.block_cols); ++cc) {
              v.push_back(x[rr * s.cols + cc]);
              at.push_back(rr * s.cols + cc);
            }
          const uint8_t sc = mx_scale_code(mx_amax(v, pol), r.mx);
          bad += q.scale_codes[br * g.scale_cols() + bc] != sc;
          for (size_t k = 0; k < v.size(); ++k) bad += q.codes[at[k]] != mx_element_code(v[k], sc, r.mx);
        }
      EXPECT_EQ(bad, 0u) << name << " axis " << to_string(axis) << " " << shape;
    }
    // Blockwise FP8, 1x128 and 128x128 (fmaxf amax: NaN ignored).
    for (const char* name : {"fp8-block1x128", "fp8-block128x128"}) {
      const Recipe r = *find_recipe(name);
      const Quantized q = quantize(r, x, s.rows, s.cols, {}, Exec{1}).value;
      const BlockGrid g = make_grid(s.rows, s.cols, r.tile128 ? BlockAxis::tile2d : BlockAxis::rowwise, 128);
      size_t bad = 0;
      for (size_t br = 0; br < g.scale_rows(); ++br)
        for (size_t bc = 0; bc < g.scale_cols(); ++bc) {
          std::vector<float> v;
          std::vector<size_t> at;
          for (size_t rr = br * g.block_rows; rr < std::min(s.rows, (br + 1) * g.block_rows); ++rr)
            for (size_t cc = bc * g.block_cols; cc < std::min(s.cols, (bc + 1) * g.block_cols); ++cc) {
              v.push_back(x[rr * s.cols + cc]);
              at.push_back(rr * s.cols + cc);
            }
          const float scale = te_scale_from_amax(mx_amax(v, AmaxNan::ignore), 448.0f, true);
          bad += std::bit_cast<uint32_t>(q.scale_f32[br * g.scale_cols() + bc]) != std::bit_cast<uint32_t>(1.0f / scale);
          for (size_t k = 0; k < v.size(); ++k) bad += q.codes[at[k]] != fp8_cast(v[k], scale, Fmt::e4m3);
        }
      EXPECT_EQ(bad, 0u) << name << " " << shape;
    }
    // NVFP4 as TE (1x16): S_enc from the tensor amax (NaN ignored), then each block.
    {
      const Recipe r = *find_recipe("nvfp4");
      const Quantized q = quantize(r, x, s.rows, s.cols, {}, Exec{1}).value;
      const float s_enc = nvfp4_te_encode_scale(mx_amax(x, AmaxNan::ignore));
      EXPECT_EQ(std::bit_cast<uint32_t>(q.global_scale), std::bit_cast<uint32_t>(s_enc)) << shape;
      tcemu::ConvertOptions sat;
      sat.satfinite = true;
      size_t bad = 0;
      for (size_t rr = 0; rr < s.rows; ++rr)
        for (size_t b0 = 0; b0 < s.cols; b0 += 16) {
          const std::span<const float> v(&x[rr * s.cols + b0], std::min<size_t>(16, s.cols - b0));
          const uint8_t sfb = nvfp4_te_block_scale(mx_amax(v, AmaxNan::ignore), s_enc, Nvfp4Order::te);
          bad += q.scale_codes[rr * q.scale_cols + b0 / 16] != sfb;
          const float mul = nvfp4_te_element_scale(sfb, s_enc, false);
          for (size_t k = 0; k < v.size(); ++k)
            bad += q.codes[rr * s.cols + b0 + k] != tcemu::convert(Fmt::f32, Fmt::e2m1, std::bit_cast<uint32_t>(v[k] * mul), sat).code;
        }
      EXPECT_EQ(bad, 0u) << "nvfp4 " << shape;
    }
  }
}

// Large tensors (2^18 elements and more) dequantize through a table of the per-element function
// over every (scale, code) pair: random codes and scales (NaN and 0xFF scales included) give
// the bits of mx_dequantize_element, and for NVFP4 those of the same tensor cut into bands of
// rows small enough to be dequantized element by element.
TEST(QuantThreads, LargeTensorDequantizeEqualsPerElement) {
  const size_t rows = 600, cols = 1001;
  std::mt19937_64 g(5);
  for (Fmt elem : {Fmt::e4m3, Fmt::e5m2, Fmt::e2m1, Fmt::e3m2, Fmt::s8}) {
    for (MxDequant d : {MxDequant::ocp, MxDequant::te, MxDequant::te_2_18}) {
      MxTensor q;
      q.grid = make_grid(rows, cols, BlockAxis::rowwise, 32);
      q.elem = elem;
      const uint64_t mask = (uint64_t{1} << tcemu::info(elem).width) - 1;
      q.codes.resize(rows * cols);
      for (uint8_t& c : q.codes) c = static_cast<uint8_t>(g() & mask);
      q.scales.resize(q.grid.scale_count());
      for (uint8_t& c : q.scales) c = static_cast<uint8_t>(g());
      const std::vector<float> out = mx_dequantize(q, d, Exec{2});
      size_t bad = 0;
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c)
          bad += std::bit_cast<uint32_t>(out[r * cols + c]) !=
                 std::bit_cast<uint32_t>(mx_dequantize_element(elem, q.codes[r * cols + c], q.scales[q.grid.scale_index(r, c)], d));
      EXPECT_EQ(bad, 0u) << tcemu::info(elem).name << " dequant " << to_string(d);
    }
  }
  for (Nvfp4Order order : {Nvfp4Order::te, Nvfp4Order::torchao, Nvfp4Order::torchao_single}) {
    for (Nvfp4Dequant d : {Nvfp4Dequant::tcemu, Nvfp4Dequant::te_kernel}) {
      if (d == Nvfp4Dequant::te_kernel && order != Nvfp4Order::te) continue;
      Nvfp4Tensor q;
      q.order = order;
      q.grid = make_grid(rows, cols, BlockAxis::rowwise, 16);
      q.codes.resize(rows * cols);
      for (uint8_t& c : q.codes) c = static_cast<uint8_t>(g() & 0xF);
      q.scales.resize(q.grid.scale_count());
      for (uint8_t& c : q.scales) c = static_cast<uint8_t>(g());
      q.global_scale = 2688.0f / 3.75f;
      q.amax = 3.75f;
      const std::vector<float> out = nvfp4_dequantize(q, d, Exec{2});
      size_t bad = 0;
      const size_t band = 100;  // 100 x 1001 elements: below the table's threshold
      for (size_t r0 = 0; r0 < rows; r0 += band) {
        Nvfp4Tensor part = q;
        part.grid = make_grid(band, cols, BlockAxis::rowwise, 16);
        part.codes.assign(q.codes.begin() + static_cast<long>(r0 * cols), q.codes.begin() + static_cast<long>((r0 + band) * cols));
        const size_t sc = q.grid.scale_cols();
        part.scales.assign(q.scales.begin() + static_cast<long>(r0 * sc), q.scales.begin() + static_cast<long>((r0 + band) * sc));
        const std::vector<float> want = nvfp4_dequantize(part, d, Exec{1});
        for (size_t i = 0; i < want.size(); ++i)
          bad += std::bit_cast<uint32_t>(want[i]) != std::bit_cast<uint32_t>(out[r0 * cols + i]);
      }
      EXPECT_EQ(bad, 0u) << "nvfp4 order " << to_string(order) << " dequant " << to_string(d);
    }
  }
}

}  // namespace
