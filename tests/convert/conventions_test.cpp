// Named conventions against docs/sources.md, "Where libraries disagree" and the facts of
// NVIDIA's host conversions of docs/sources.md. Expected codes are the table's, not the emulator's.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "convert_test_support.hpp"

namespace tctest {
namespace {

uint64_t f32(float v) { return std::bit_cast<uint32_t>(v); }
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Converts an f32 value under a convention with the requested options; fails the test when
// the convention rejects them.
ConvertResult conv(const char* convention, float x, Fmt to, std::optional<Round> round = std::nullopt,
                   std::optional<bool> sat = std::nullopt) {
  tcemu::OptionRequest req;
  req.round = round;
  req.satfinite = sat;
  tcemu::Resolved r = tcemu::resolve(convention, Fmt::f32, to, req);
  if (!r.options) {
    ADD_FAILURE() << convention << " rejects f32 -> " << tcemu::info(to).name << ": " << r.error;
    return {~uint64_t{0}, 0};
  }
  return tcemu::convert(Fmt::f32, to, f32(x), *r.options);
}

TEST(Conventions, ListedByName) {
  std::set<std::string> names;
  for (const auto& c : tcemu::conventions()) {
    names.insert(std::string(c.name));
    EXPECT_FALSE(c.summary.empty()) << c.name;
    EXPECT_FALSE(c.source.empty()) << c.name;
    EXPECT_EQ(tcemu::find_convention(c.name), &c);
  }
  for (const char* n : {"generic", "ptx", "cuda-host", "cutlass-host", "ml-dtypes",
                        "ml-dtypes-0.6", "ocp-ovf", "ocp-sat", "llvm-apfloat", "gfloat", "gfloat-sr-odd",
                        "gfloat-sr-fastest"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(tcemu::find_convention("no-such-convention"), nullptr);
  EXPECT_FALSE(tcemu::resolve("no-such-convention", Fmt::f32, Fmt::e4m3, {}).options.has_value());
  EXPECT_FALSE(tcemu::resolve("no-such-convention", Fmt::f32, Fmt::e4m3, {}).error.empty());
}

// Row "465 -> e4m3".
TEST(LibraryConventions, E4m3Of465) {
  EXPECT_EQ(conv("cuda-host", 465, Fmt::e4m3, Round::rn, false).code, 0x7Fu);
  EXPECT_EQ(conv("cuda-host", 465, Fmt::e4m3, Round::rn, true).code, 0x7Eu);
  EXPECT_EQ(conv("cutlass-host", 465, Fmt::e4m3).code, 0x7Eu);
  EXPECT_EQ(conv("ml-dtypes", 465, Fmt::e4m3).code, 0x7Fu);
  EXPECT_EQ(conv("ml-dtypes", 465, Fmt::e4m3, std::nullopt, true).code, 0x7Eu);
  ConvertResult llvm = conv("llvm-apfloat", 465, Fmt::e4m3);
  EXPECT_EQ(llvm.code, 0x7Fu);
  EXPECT_TRUE(llvm.flags & tcemu::kOverflow) << "APFloat reports overflow";
  EXPECT_EQ(conv("gfloat", 465, Fmt::e4m3).code, 0xFFu);
}

// Row "NaN -> e2m1".
TEST(LibraryConventions, E2m1OfNaN) {
  EXPECT_EQ(conv("cuda-host", kNaN, Fmt::e2m1, Round::rn).code, 0x7u);
  EXPECT_EQ(conv("cutlass-host", kNaN, Fmt::e2m1).code, 0x7u);
  EXPECT_EQ(conv("cutlass-host", -kNaN, Fmt::e2m1).code, 0xFu) << "CUTLASS exmy_base: -NaN -> -6";
  EXPECT_EQ(conv("ml-dtypes", kNaN, Fmt::e2m1).code, 0x8u);
  EXPECT_TRUE(conv("llvm-apfloat", kNaN, Fmt::e2m1).flags & tcemu::kUndefined);
  EXPECT_TRUE(conv("gfloat", kNaN, Fmt::e2m1).flags & tcemu::kUndefined);
}

// Row "5.0 -> ue8m0".
TEST(LibraryConventions, Ue8m0Of5) {
  EXPECT_EQ(conv("cuda-host", 5.0f, Fmt::ue8m0, Round::rz).code, 0x81u);
  EXPECT_EQ(conv("cuda-host", 5.0f, Fmt::ue8m0, Round::ru).code, 0x82u);
  EXPECT_EQ(conv("cutlass-host", 5.0f, Fmt::ue8m0).code, 0x82u);
  EXPECT_EQ(conv("ml-dtypes", 5.0f, Fmt::ue8m0).code, 0x81u);
  EXPECT_EQ(conv("llvm-apfloat", 5.0f, Fmt::ue8m0).code, 0x81u);
  EXPECT_EQ(conv("gfloat", 5.0f, Fmt::ue8m0).code, 0x81u);
}

// Row "-3.3 -> ue8m0".
TEST(LibraryConventions, Ue8m0OfMinus3p3) {
  EXPECT_EQ(conv("cuda-host", -3.3f, Fmt::ue8m0, Round::rz).code, 0x80u);
  EXPECT_EQ(conv("cuda-host", -3.3f, Fmt::ue8m0, Round::ru).code, 0x81u);
  EXPECT_EQ(conv("cutlass-host", -3.3f, Fmt::ue8m0).code, 0x81u);
  EXPECT_EQ(conv("ml-dtypes", -3.3f, Fmt::ue8m0).code, 0xFFu);
  // LLVM: "n/a" in the table; docs/conversions.md defines it as undefined.
  EXPECT_TRUE(conv("llvm-apfloat", -3.3f, Fmt::ue8m0).flags & tcemu::kUndefined);
  EXPECT_EQ(conv("gfloat", -3.3f, Fmt::ue8m0).code, 0xFFu);
}

// Notes under the table: CUTLASS ue8m0 maps NaN and Inf to 0xFF; its ue4m3 drops the sign.
TEST(LibraryConventions, CutlassNotes) {
  EXPECT_EQ(conv("cutlass-host", kNaN, Fmt::ue8m0).code, 0xFFu);
  EXPECT_EQ(conv("cutlass-host", kInf, Fmt::ue8m0).code, 0xFFu);
  EXPECT_EQ(conv("cutlass-host", -1.0f, Fmt::ue4m3).code, 0x38u);
  EXPECT_EQ(conv("cutlass-host", 1.0f, Fmt::ue4m3).code, 0x38u);
}

// Issue 27's examples, one per class (docs/conversions.md "Library conventions"; every code is
// checked against the running libraries by python/tests/test_conventions_upstream.py).
TEST(LibraryConventions, Issue27Classes) {
  EXPECT_EQ(conv("ml-dtypes", kNaN, Fmt::e5m2).code, 0x7Eu) << "quiet_NaN() of e5m2";
  EXPECT_EQ(conv("ml-dtypes", -kNaN, Fmt::e5m2).code, 0xFEu);
  EXPECT_EQ(conv("ml-dtypes", -kNaN, Fmt::e3m2).code, 0x00u) << "-(NaN) where NaN is -0";
  EXPECT_EQ(conv("ml-dtypes", kInf, Fmt::e4m3, std::nullopt, true).code, 0x7Fu) << "Inf before kSaturate";
  EXPECT_EQ(conv("ml-dtypes", kInf, Fmt::e5m2, std::nullopt, true).code, 0x7Cu);
  EXPECT_EQ(conv("ml-dtypes", 3.0f, Fmt::ue8m0).code, 0x81u) << "ue8m0 ties up";
  EXPECT_EQ(conv("ml-dtypes", 0.0f, Fmt::ue8m0).code, 0xFFu);
  EXPECT_EQ(conv("ml-dtypes", 0.0f, Fmt::ue8m0, std::nullopt, true).code, 0x00u);
  EXPECT_EQ(conv("ml-dtypes", -1.0f, Fmt::ue8m0, std::nullopt, true).code, 0x00u);
  EXPECT_EQ(conv("ml-dtypes", std::ldexp(1.25f, -127), Fmt::ue8m0).code, 0x00u);
  EXPECT_EQ(conv("ml-dtypes-0.6", std::ldexp(1.25f, -127), Fmt::ue8m0).code, 0x01u);
  EXPECT_EQ(conv("gfloat", 3.0f, Fmt::ue8m0).code, 0x80u) << "ties to the even exponent";
  EXPECT_EQ(conv("gfloat", 0.0f, Fmt::ue8m0).code, 0xFFu);
  EXPECT_EQ(conv("gfloat", std::ldexp(1.0f, -128), Fmt::ue8m0).code, 0xFFu);
  EXPECT_EQ(conv("gfloat", std::ldexp(1.5f, -128), Fmt::ue8m0).code, 0x00u);
  EXPECT_EQ(conv("gfloat", -kInf, Fmt::ue8m0, std::nullopt, true).code, 0xFEu);
  EXPECT_TRUE(conv("gfloat", 30.0f, Fmt::e3m2).flags & tcemu::kUndefined);
  EXPECT_EQ(conv("cutlass-host", 464.00003f, Fmt::ue4m3).code, 0x7Eu);
  EXPECT_EQ(conv("cutlass-host", std::ldexp(1.5f, 127), Fmt::ue8m0).code, 0xFEu);
  EXPECT_FALSE(tcemu::resolve("cutlass-host", Fmt::f32, Fmt::ue8m0, {Round::rz, {}, {}, {}}).options.has_value());
}

// OCP MX v1.0 §5.3 presets: overflow to Inf/NaN vs to MAX.
TEST(Conventions, OcpOvfAndSat) {
  EXPECT_EQ(conv("ocp-ovf", 465, Fmt::e4m3).code, 0x7Fu);
  EXPECT_EQ(conv("ocp-sat", 465, Fmt::e4m3).code, 0x7Eu);
  EXPECT_EQ(conv("ocp-ovf", 61440, Fmt::e5m2).code, 0x7Cu);
  EXPECT_EQ(conv("ocp-sat", 61440, Fmt::e5m2).code, 0x7Bu);
  EXPECT_EQ(conv("ocp-sat", -1e6f, Fmt::e5m2).code, 0xFBu);
}

// the CUDA 13.0 host headers (docs/sources.md): NVIDIA's host FP8 conversions.
TEST(CudaHostConventions, CudaHostFp8) {
  for (bool sat : {false, true}) {
    EXPECT_EQ(conv("cuda-host", 464, Fmt::e4m3, Round::rn, sat).code, 0x7Eu) << "464 ties to even (448)";
    EXPECT_EQ(conv("cuda-host", -464, Fmt::e4m3, Round::rn, sat).code, 0xFEu);
    EXPECT_EQ(conv("cuda-host", 448, Fmt::e4m3, Round::rn, sat).code, 0x7Eu);
    EXPECT_EQ(conv("cuda-host", std::nextafter(61440.0f, 0.0f), Fmt::e5m2, Round::rn, sat).code, 0x7Bu);
    // NaN from a float gives 0x7F, sign dropped, for both formats.
    EXPECT_EQ(conv("cuda-host", kNaN, Fmt::e4m3, Round::rn, sat).code, 0x7Fu);
    EXPECT_EQ(conv("cuda-host", -kNaN, Fmt::e4m3, Round::rn, sat).code, 0x7Fu);
    EXPECT_EQ(conv("cuda-host", kNaN, Fmt::e5m2, Round::rn, sat).code, 0x7Fu);
    EXPECT_EQ(conv("cuda-host", -kNaN, Fmt::e5m2, Round::rn, sat).code, 0x7Fu);
    // |x| <= minsub/2 gives +-0 (2^-10 is half of e4m3's 2^-9; ties to even 0).
    EXPECT_EQ(conv("cuda-host", std::ldexp(1.0f, -10), Fmt::e4m3, Round::rn, sat).code, 0x00u);
    EXPECT_EQ(conv("cuda-host", -std::ldexp(1.0f, -10), Fmt::e4m3, Round::rn, sat).code, 0x80u);
    EXPECT_EQ(conv("cuda-host", std::ldexp(1.0f, -17), Fmt::e5m2, Round::rn, sat).code, 0x00u);
  }
  EXPECT_EQ(conv("cuda-host", 465, Fmt::e4m3, Round::rn, false).code, 0x7Fu);
  EXPECT_EQ(conv("cuda-host", -465, Fmt::e4m3, Round::rn, false).code, 0xFFu);
  EXPECT_EQ(conv("cuda-host", -465, Fmt::e4m3, Round::rn, true).code, 0xFEu);
  EXPECT_EQ(conv("cuda-host", 61440, Fmt::e5m2, Round::rn, false).code, 0x7Cu) << "e5m2 overflows at 61440";
  EXPECT_EQ(conv("cuda-host", -61440, Fmt::e5m2, Round::rn, false).code, 0xFCu);
  EXPECT_EQ(conv("cuda-host", 61440, Fmt::e5m2, Round::rn, true).code, 0x7Bu);
  // Inf input takes the overflow branch.
  EXPECT_EQ(conv("cuda-host", kInf, Fmt::e4m3, Round::rn, false).code, 0x7Fu);
  EXPECT_EQ(conv("cuda-host", kInf, Fmt::e4m3, Round::rn, true).code, 0x7Eu);
  EXPECT_EQ(conv("cuda-host", -kInf, Fmt::e5m2, Round::rn, false).code, 0xFCu);
  EXPECT_EQ(conv("cuda-host", -kInf, Fmt::e5m2, Round::rn, true).code, 0xFBu);
}

// FP6/FP4: rn or rz, always saturating, NaN -> +MAXNORM, +-0 kept.
TEST(CudaHostConventions, CudaHostFp6Fp4) {
  for (Round r : {Round::rn, Round::rz}) {
    EXPECT_EQ(conv("cuda-host", kNaN, Fmt::e2m1, r).code, 0x7u);
    EXPECT_EQ(conv("cuda-host", -kNaN, Fmt::e2m1, r).code, 0x7u);
    EXPECT_EQ(conv("cuda-host", kNaN, Fmt::e2m3, r).code, 0x1Fu);
    EXPECT_EQ(conv("cuda-host", -kNaN, Fmt::e3m2, r).code, 0x1Fu);
    EXPECT_EQ(conv("cuda-host", -0.0f, Fmt::e2m1, r).code, 0x8u);
    EXPECT_EQ(conv("cuda-host", -0.0f, Fmt::e2m3, r).code, 0x20u);
    EXPECT_EQ(conv("cuda-host", 0.0f, Fmt::e3m2, r).code, 0x00u);
    EXPECT_EQ(conv("cuda-host", 1e30f, Fmt::e2m1, r).code, 0x7u);
    EXPECT_EQ(conv("cuda-host", -kInf, Fmt::e3m2, r).code, 0x3Fu);
    EXPECT_EQ(conv("cuda-host", 100.0f, Fmt::e2m3, r).code, 0x1Fu);
  }
  EXPECT_EQ(conv("cuda-host", 5.9f, Fmt::e2m1, Round::rz).code, 0x6u) << "rz 5.9 -> 4";
  EXPECT_EQ(conv("cuda-host", 5.9f, Fmt::e2m1, Round::rn).code, 0x7u) << "rn 5.9 -> 6";
  EXPECT_EQ(conv("cuda-host", 5.0f, Fmt::e2m1, Round::rn).code, 0x6u) << "5 ties to even 4";
  EXPECT_EQ(conv("cuda-host", 0.25f, Fmt::e2m1, Round::rn).code, 0x0u) << "0.25 ties to even 0";
}

// UE8M0: rz = exponent of bf16_rz(|x|); rp rounds |x| up to a power of two; satfinite turns
// a non-NaN 0xFF into 0xFE; sign ignored; 0 and tiny give 0x00.
TEST(CudaHostConventions, CudaHostUe8m0) {
  const float tiny = std::ldexp(1.0f, -140);  // f32 subnormal, below 2^-127
  for (bool sat : {false, true}) {
    for (Round r : {Round::rz, Round::ru}) {
      EXPECT_EQ(conv("cuda-host", 0.0f, Fmt::ue8m0, r, sat).code, 0x00u);
      EXPECT_EQ(conv("cuda-host", -0.0f, Fmt::ue8m0, r, sat).code, 0x00u);
      EXPECT_EQ(conv("cuda-host", tiny, Fmt::ue8m0, r, sat).code, 0x00u);
      EXPECT_EQ(conv("cuda-host", kNaN, Fmt::ue8m0, r, sat).code, 0xFFu);
      EXPECT_EQ(conv("cuda-host", kInf, Fmt::ue8m0, r, sat).code, sat ? 0xFEu : 0xFFu);
      EXPECT_EQ(conv("cuda-host", -kInf, Fmt::ue8m0, r, sat).code, sat ? 0xFEu : 0xFFu);
      EXPECT_EQ(conv("cuda-host", 1.0f, Fmt::ue8m0, r, sat).code, 0x7Fu);
      EXPECT_EQ(conv("cuda-host", std::ldexp(1.0f, -127), Fmt::ue8m0, r, sat).code, 0x00u);
    }
    EXPECT_EQ(conv("cuda-host", std::ldexp(1.5f, -127), Fmt::ue8m0, Round::ru, sat).code, 0x01u);
    EXPECT_EQ(conv("cuda-host", std::ldexp(1.5f, -127), Fmt::ue8m0, Round::rz, sat).code, 0x00u);
    EXPECT_EQ(conv("cuda-host", std::numeric_limits<float>::max(), Fmt::ue8m0, Round::rz, sat).code, 0xFEu);
    EXPECT_EQ(conv("cuda-host", std::numeric_limits<float>::max(), Fmt::ue8m0, Round::ru, sat).code,
              sat ? 0xFEu : 0xFFu);
    EXPECT_EQ(conv("cuda-host", 1.0001f, Fmt::ue8m0, Round::ru, sat).code, 0x80u);
    EXPECT_EQ(conv("cuda-host", -1.0001f, Fmt::ue8m0, Round::ru, sat).code, 0x80u) << "magnitude";
  }
  // bf16_rz: 1.99 keeps exponent 0.
  EXPECT_EQ(conv("cuda-host", 1.99f, Fmt::ue8m0, Round::rz).code, 0x7Fu);
}

TEST(CudaHostConventions, CudaHostF16Bf16) {
  EXPECT_EQ(conv("cuda-host", 65520.0f, Fmt::f16, Round::rn).code, 0x7C00u) << "IEEE overflow";
  EXPECT_EQ(conv("cuda-host", std::nextafter(65520.0f, 0.0f), Fmt::f16, Round::rn).code, 0x7BFFu);
  EXPECT_EQ(conv("cuda-host", 1e10f, Fmt::f16, Round::rz).code, 0x7BFFu);
  EXPECT_EQ(conv("cuda-host", 1e10f, Fmt::f16, Round::rd).code, 0x7BFFu);
  EXPECT_EQ(conv("cuda-host", 1e10f, Fmt::f16, Round::ru).code, 0x7C00u);
  EXPECT_EQ(conv("cuda-host", -1e10f, Fmt::f16, Round::ru).code, 0xFBFFu);
  EXPECT_EQ(conv("cuda-host", kNaN, Fmt::f16, Round::rn).code, 0x7FFFu);
  EXPECT_EQ(conv("cuda-host", -kNaN, Fmt::bf16, Round::rn).code, 0x7FFFu);
  EXPECT_EQ(conv("cuda-host", 1.0001f, Fmt::bf16, Round::ru).code, 0x3F81u);
  EXPECT_EQ(conv("cuda-host", 1.0001f, Fmt::bf16, Round::rd).code, 0x3F80u);
  EXPECT_EQ(conv("cuda-host", -1.0001f, Fmt::f16, Round::rd).code, 0xBC01u);
}

// docs/formats.md: ue8m0 0x00 is 2^-127 and converts to bf16 0x0040.
TEST(CudaHostConventions, Ue8m0ZeroCodeToBf16) {
  EXPECT_EQ(tcemu::convert(Fmt::ue8m0, Fmt::bf16, 0x00, ConvertOptions{}).code, 0x0040u);
  EXPECT_EQ(tcemu::convert(Fmt::ue8m0, Fmt::bf16, 0xFF, ConvertOptions{}).code, 0x7FFFu);
}

// A convention rejects what it does not allow, with a message.
TEST(Conventions, PtxRejectsNonInstructions) {
  tcemu::OptionRequest req;
  req.round = Round::rz;
  tcemu::Resolved r = tcemu::resolve("ptx", Fmt::f32, Fmt::e4m3, req);
  EXPECT_FALSE(r.options.has_value());
  EXPECT_FALSE(r.error.empty());
  req.round = Round::rn;
  req.satfinite = true;
  EXPECT_TRUE(tcemu::resolve("ptx", Fmt::f32, Fmt::e4m3, req).options.has_value());
}

}  // namespace
}  // namespace tctest
