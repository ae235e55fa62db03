// The hostile inputs of issue 13, each as the issue gives it, through the command line: exit
// status 2, a message naming the problem, no C++ internals ("std::", "vector::", "basic_string",
// "bad_alloc") in it. Commands that once allocated gigabytes before failing run where no
// allocation of 1 GiB or more succeeds (ulimit -v; in an ASan build, ASan's
// max_allocation_size_mb), so that allocating the claimed size would fail loudly instead of
// ending in the expected message.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"
#include "hostile.hpp"

namespace {

namespace fs = std::filesystem;
namespace tg = tcemu::golden;

std::string tmpdir() { return tcemu_test::tmpdir("tcemu_hostile_"); }
using tcemu_test::CliRun;
using tcemu_test::put;
using tcemu_test::slurp;
using tcemu_test::expect_refused;
using tcemu_test::f32_npy;
using tcemu_test::npy;

// Runs tcemu ARGS (stdin from `input`) where no allocation of 1 GiB or more can succeed.
CliRun tcemu(const std::string& args, const std::string& input = "") {
  return tcemu_test::run_tcemu(tmpdir(), args, input, true);
}

TEST(HostileInput, NpyShapesThatOverflow) {
  const std::string d = tmpdir();
  // Shape (2^40, 2^30): once SIGSEGV in analyze and in mx_quantize.
  put(d + "/huge.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1073741824), }"));
  expect_refused(tcemu("analyze " + d + "/huge.npy"), "more elements than this machine can address", "analyze");
  expect_refused(tcemu("quantize --recipe mxfp8 " + d + "/huge.npy -o " + d + "/q"), "more elements than this machine",
                 "quantize mxfp8");
  // scales.npy of shape (2^62, 1): once SIGSEGV in dequantize (NpyArray::bits).
  const std::string x = f32_npy(d + "/x.npy", {1, 128}, std::vector<float>(128, 1.0f));
  for (const char* recipe : {"fp8-block1x128", "fp8-current"}) {
    const std::string q = d + "/" + recipe;
    ASSERT_EQ(tcemu(std::string("quantize --recipe ") + recipe + " " + x + " -o " + q).rc, 0);
    put(q + ".scales.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 1), }"));
    expect_refused(tcemu(std::string("dequantize --recipe ") + recipe + " " + q + " -o " + d + "/back.npy"),
                   "more than this machine can address", recipe);
  }
}

TEST(HostileInput, LyingNpyHeadersAllocateNothing) {
  const std::string d = tmpdir();
  // 144 bytes whose header claims 2^30 f32 (4 GB): refused by size under a 1 GiB limit.
  const std::string lie = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", std::string(16, '\0'));
  ASSERT_EQ(lie.size(), 144u);
  put(d + "/lie.npy", lie);
  const std::string msg = "data truncated: the header claims 1073741824 elements of 4 bytes";
  expect_refused(tcemu("analyze " + d + "/lie.npy"), msg, "analyze");
  expect_refused(tcemu("quantize --recipe mxfp8 " + d + "/lie.npy -o " + d + "/q"), msg, "quantize");
  expect_refused(tcemu("lossscale --grads " + d + "/lie.npy"), msg, "lossscale");
  tg::MmaGenRequest r;
  r.arch = "sm_90a";
  r.ptx = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
  tg::GoldenFile g;
  g.cases = {tg::generate_mma(r)};
  tg::write_golden(d + "/g.json", g);
  expect_refused(tcemu("compare " + d + "/g.json " + d + "/lie.npy"), msg, "compare");
  // A 160-byte scales.npy of shape (2^32, 4): dequantize once grew past 3 GB.
  const std::string x = f32_npy(d + "/x.npy", {1, 64}, std::vector<float>(64, 1.0f));
  ASSERT_EQ(tcemu("quantize --recipe mxfp8 " + x + " -o " + d + "/m").rc, 0);
  const std::string scales = npy("{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4), }", std::string(32, '\0'));
  ASSERT_EQ(scales.size(), 160u);
  put(d + "/m.scales.npy", scales);
  expect_refused(tcemu("dequantize --recipe mxfp8 " + d + "/m -o " + d + "/back.npy"), "data truncated", "dequantize");
}

TEST(HostileInput, LooseNpyHeaders) {
  const std::string d = tmpdir();
  const std::string data(8, '\0');
  const std::pair<std::string, std::string> cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': '128,256', }", "shape must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': 'yes', 'shape': (2,), }", "fortran_order must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (128.5,), }", "not a non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }", "duplicate key 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "negative dimension"},
  };
  for (const auto& [dict, fragment] : cases) {
    put(d + "/bad.npy", npy(dict, data));
    expect_refused(tcemu("analyze " + d + "/bad.npy"), fragment, dict);
  }
  put(d + "/trailing.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data + "xx"));
  expect_refused(tcemu("analyze " + d + "/trailing.npy"), "trailing data", "trailing");
}

TEST(HostileInput, GoldenLeadingDimensionThatOverflows) {
  const std::string d = tmpdir();
  tg::MmaGenRequest r;
  r.arch = "sm_90a";
  r.ptx = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
  tg::GoldenFile g;
  g.cases = {tg::generate_mma(r)};
  nlohmann::json doc = tg::to_json(g);
  // "ld": 2^58 with "hex": "": rows x ld x digits once wrapped to 0 and Array::logical crashed.
  doc["cases"][0]["operands"]["A"]["ld"] = int64_t{1} << 58;
  doc["cases"][0]["operands"]["A"]["hex"] = "";
  put(d + "/ld.json", doc.dump());
  expect_refused(tcemu("golden check " + d + "/ld.json"), "cases[0].operands.A.ld: 288230376151711744 is larger than 2^31",
                 "golden check");
  put(d + "/zero.bin", std::string(64 * 8 * 4, '\0'));
  expect_refused(tcemu("compare " + d + "/ld.json " + d + "/zero.bin"), "is larger than 2^31", "compare");
  // A shape beyond 2^31.
  doc = tg::to_json(g);
  doc["cases"][0]["operands"]["A"]["shape"] = {int64_t{1} << 40, 16};
  put(d + "/shape.json", doc.dump());
  expect_refused(tcemu("golden check " + d + "/shape.json"), "is not a positive size of at most 2^31", "shape");
}

TEST(HostileInput, GoldenGenSizes) {
  const std::string d = tmpdir();
  const std::string base = "golden gen --arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 -o " + d + "/g.json ";
  expect_refused(tcemu(base + "-M -64"), "-M: -64 is not 0 (the default) or a size from 1 to 2^20", "-M -64");
  expect_refused(tcemu(base + "-M 1048576 -N 1048576"), "at most 2^30 are generated", "huge D");
  expect_refused(tcemu(base + "--cases 0"), "--cases", "cases 0");
}

TEST(HostileInput, ConvertValueIsLinearAndQuotesShortly) {
  // 1 followed by a million zeros, scaled back: exactly 1.0 (f16 0x3c00, IEEE 754).
  const std::string one = "1" + std::string(1000000, '0') + "e-1000000\n";
  CliRun r = tcemu("convert --value --to f16", one);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "3c00\n");
  // 0.1 with a 1 a million digits later: RN to f16 is 0x2e66 (0.0999755859375 is nearer than
  // 0x2e67 = 0.10003662109375); a tail of zeros after it is exactly 0.1, the same code.
  r = tcemu("convert --value --to f16", "0.1" + std::string(1000000, '0') + "1\n");
  EXPECT_EQ(r.out, "2e66\n") << r.err;
  // Round up (ru) of 1 + 10^-1000001 is the next f16 after 1.0 (0x3c01): the far digit counts.
  r = tcemu("convert --value --to f16 --round ru", "1." + std::string(1000000, '0') + "1\n");
  EXPECT_EQ(r.out, "3c01\n") << r.err;
  r = tcemu("convert --value --to f16 --round ru", "1." + std::string(1000000, '0') + "\n");
  EXPECT_EQ(r.out, "3c00\n") << r.err;
  // Beyond every format's range: overflow and underflow as for any huge or tiny value
  // (IEEE 754: RN of a value above f16's range is Inf, 0x7c00; RU of a tiny positive one is
  // the smallest subnormal, 0x0001).
  r = tcemu("convert --value --to f16", "1e999999999999\n-1e999999999999\n1e-999999999999\n");
  EXPECT_EQ(r.out, "7c00\nfc00\n0000\n") << r.err;
  r = tcemu("convert --value --to f16 --round ru", "1e-999999999999\n");
  EXPECT_EQ(r.out, "0001\n") << r.err;
  // A bad token of 100000 characters is quoted cut, with its length.
  r = tcemu("convert --value --to f16", std::string(100000, 'x') + "\n");
  expect_refused(r, "(100000 characters)", "long token");
  EXPECT_LT(r.err.size(), 300u);
  r = tcemu("convert --from f16 --to f32", std::string(100000, 'z') + "\n");
  expect_refused(r, "(100000 characters)", "long hex token");
  EXPECT_LT(r.err.size(), 300u);
}

TEST(HostileInput, DequantizeRefusesCodesOfAnotherFormat) {
  const std::string d = tmpdir();
  std::vector<float> v(64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 100.0f + static_cast<float>(i);
  const std::string x = f32_npy(d + "/x.npy", {1, 64}, v);
  ASSERT_EQ(tcemu("quantize --recipe mxfp8 " + x + " -o " + d + "/m").rc, 0);
  // mxfp8 codes (8 bits) given to mxfp4 (e2m1, 4 bits): once exit 0 with garbage.
  expect_refused(tcemu("dequantize --recipe mxfp4 " + d + "/m -o " + d + "/back.npy"), "not a e2m1 code (4 bits)", "mxfp4");
  EXPECT_FALSE(fs::exists(d + "/back.npy"));
}

TEST(HostileInput, LossScaleOptions) {
  for (const char* bad : {"--init -5", "--init 0", "--init nan", "--init inf", "--interval 0", "--growth 1",
                          "--backoff 1.5", "--megatron --hysteresis 0", "--megatron --min-scale 0"})
    expect_refused(tcemu(std::string("lossscale ") + bad, "0\n"), std::string(bad).substr(std::string(bad).rfind("--"), 6), bad);
  EXPECT_EQ(tcemu("lossscale --init 4 --interval 1", "0\n").rc, 0);
}

TEST(HostileInput, AnalyzeSqnrIsNotInfWhenValuesAreLost) {
  const std::string d = tmpdir();
  // 16384 values and one NaN: nvfp4-torchao's per-tensor amax is NaN, every value is lost
  // (16383 overflow; the SQNR once read "inf").
  std::vector<float> v(16384);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0f + static_cast<float>(i % 7);
  v[5] = std::bit_cast<float>(0x7fc00000u);
  CliRun r = tcemu("analyze " + f32_npy(d + "/nan.npy", {128, 128}, v));
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t row = r.out.find("\nnvfp4-torchao ");
  ASSERT_NE(row, std::string::npos) << r.out;
  const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("16383"), std::string::npos) << line;
  EXPECT_EQ(line.substr(line.size() - 4), "-inf") << line;
  EXPECT_NE(r.out.find("1 input value is Inf or NaN"), std::string::npos) << r.out;
  // All zero: no signal, SQNR n/a (not inf).
  r = tcemu("analyze " + f32_npy(d + "/zero.npy", {4, 32}, std::vector<float>(128, 0.0f)));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find(" inf\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n/a\n"), std::string::npos) << r.out;
}

}  // namespace
