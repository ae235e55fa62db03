// Hostile input to the command line's newer entry points (issue 32): `tcemu gemm` and the GEMM
// plan options of `golden gen`, the MX / NVFP4 options of `quantize` and `dequantize`, and the
// integer options of every command. Each is refused with status 2 and a message naming the
// problem, under the 1 GiB allocation limit of tests/cli/cli_run.hpp, never with a crash,
// a C++ internal message or a value other than the one written.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hostile.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

using tcemu_test::CliRun;
using tcemu_test::expect_refused;
using tcemu_test::f32_npy;
using tcemu_test::npy;
using tcemu_test::put;
using tcemu_test::slurp;

std::string tmpdir() { return tcemu_test::tmpdir("tcemu_hostile_plan_"); }

CliRun tcemu(const std::string& args) { return tcemu_test::run_tcemu(tmpdir(), args, "", true); }

const std::string kInstr = "--arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 ";

// e4m3 codes 0x00..0x3f (no NaN), rows x cols, as `tcemu gemm` reads A (row order) and B
// (column order: stored N x K).
std::string codes_npy(const std::string& path, size_t rows, size_t cols) {
  std::vector<uint64_t> c(rows * cols);
  for (size_t i = 0; i < c.size(); ++i) c[i] = (i * 7) & 0x3f;
  tcemu::io::write_npy(path, tcemu::io::make_npy("|u1", {rows, cols}, c));
  return path;
}

// A and B of a 64 x 8 x 64 GEMM in d, and the start of a `tcemu gemm` command on them.
std::string gemm_on(const std::string& d, const std::string& a = "") {
  codes_npy(d + "/A.npy", 64, 64);
  codes_npy(d + "/B.npy", 8, 64);
  return "gemm " + kInstr + (a.empty() ? d + "/A.npy" : a) + " " + d + "/B.npy -o " + d + "/D.npy ";
}

TEST(HostilePlan, GemmOperands) {
  const std::string d = tmpdir();
  gemm_on(d);
  put(d + "/lie.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (64, 1099511627776), }", std::string(64, '\0')));
  expect_refused(tcemu(gemm_on(d, d + "/lie.npy")), "data truncated: the header claims 70368744177664 elements", "lying A");
  put(d + "/huge.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"));
  expect_refused(tcemu(gemm_on(d, d + "/huge.npy")), "more elements than this machine can address", "overflowing A");
  put(d + "/empty.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 64), }"));
  expect_refused(tcemu(gemm_on(d, d + "/empty.npy")), "the matrix is empty", "zero-size A");
  put(d + "/rank3.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 64, 64), }", std::string(4096, '\0')));
  expect_refused(tcemu(gemm_on(d, d + "/rank3.npy")), "a matrix needs 2 dimensions, the file has 3", "3-D A");
  put(d + "/fortran.npy", npy("{'descr': '|u1', 'fortran_order': True, 'shape': (64, 64), }", std::string(4096, '\0')));
  expect_refused(tcemu(gemm_on(d, d + "/fortran.npy")), "fortran_order arrays are not supported", "Fortran-order A");
  // Values where codes are expected: named, and without `tcemu mma`'s --from-values hint, which
  // `tcemu gemm` does not have.
  const CliRun r = tcemu(gemm_on(d, f32_npy(d + "/values.npy", {64, 64}, std::vector<float>(4096, 1.0f))));
  expect_refused(r, "A holds e4m3 codes, 1-byte items (e.g. |u1), but its dtype '<f4' has 4-byte items", "f32 A");
  EXPECT_EQ(r.err.find("--from-values"), std::string::npos) << r.err;
}

TEST(HostilePlan, GemmPlanAndEpilogueInputs) {
  const std::string d = tmpdir();
  const std::string base = gemm_on(d);
  put(d + "/lie.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"));
  expect_refused(tcemu(base + "--a-scale " + d + "/lie.npy"), "data truncated", "lying --a-scale");
  expect_refused(tcemu(base + "--bias " + d + "/lie.npy"), "data truncated", "lying --bias");
  put(d + "/none.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }"));
  expect_refused(tcemu(base + "--bias " + d + "/none.npy"), "--bias has no values (the file's shape is (0,))", "empty bias");
  expect_refused(tcemu(base + "--bias " + d + "/none.npy --bias-type nope"), "--bias-type: unknown format 'nope'", "bias type");
  expect_refused(tcemu(base + "--out-type nope"), "--out-type: unknown format 'nope'", "out type");
  expect_refused(tcemu(base + "--chunks 4294967328,-4294967264"), "'4294967328' is not a K size", "chunks that wrap");
  expect_refused(tcemu(base + "--chunks 32,,32"), "'' is not a K size", "empty chunk");
  expect_refused(tcemu(base + "--split-k 99999999999999"), "--split-k", "split-k beyond int");
  expect_refused(tcemu(base + "--promote-every -1"), "--promote-every", "negative promotion interval");
  expect_refused(tcemu(base + "--promote-every 0x4"), "--promote-every: '0x4' is not a decimal integer", "hex interval");
}

// A NaN alpha or scale is arithmetic, not malformed input: the epilogue's f32 products carry it
// into every element it scales (IEEE 754: NaN * x is NaN), as the library's epilogue would.
TEST(HostilePlan, GemmNanScalesPropagate) {
  const std::string d = tmpdir();
  const std::string base = gemm_on(d) + "-q ";
  auto d_codes = [&] {
    const tcemu::io::NpyArray D = tcemu::io::read_npy(d + "/D.npy");
    std::vector<uint32_t> v(D.count());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint32_t>(D.bits(i));
    return v;
  };
  auto is_nan = [](uint32_t c) { return (c & 0x7f800000u) == 0x7f800000u && (c & 0x007fffffu) != 0; };
  ASSERT_EQ(tcemu(base + "--alpha nan").rc, 0);
  for (uint32_t c : d_codes()) EXPECT_TRUE(is_nan(c)) << std::hex << c;
  std::vector<float> rows(64, 1.0f);
  rows[3] = std::bit_cast<float>(0x7fc00000u);
  ASSERT_EQ(tcemu(base + "--a-scale " + f32_npy(d + "/rows.npy", {64}, rows)).rc, 0);
  const std::vector<uint32_t> v = d_codes();
  ASSERT_EQ(v.size(), 64u * 8u);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(is_nan(v[i]), i / 8 == 3) << i;
}

TEST(HostilePlan, GoldenGenPlanOptions) {
  const std::string d = tmpdir();
  const std::string base = "golden gen " + kInstr + "-M 64 -N 8 -K 64 --chunks 32,32 -o " + d + "/g.json ";
  put(d + "/lie.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"));
  expect_refused(tcemu(base + "--a-scale " + d + "/lie.npy"), "data truncated", "lying --a-scale");
  put(d + "/none.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }"));
  expect_refused(tcemu(base + "--bias " + d + "/none.npy"), "--bias has no values", "empty bias");
  expect_refused(tcemu(base + "--out-type e9"), "--out-type: unknown format 'e9'", "out type");
  expect_refused(tcemu(base + "--plan nope"), "unknown plan 'nope'", "plan");
  expect_refused(tcemu(base + "--promote-every -3"), "--promote-every", "negative promotion interval");
  expect_refused(tcemu(base + "--seed 99999999999999999999999"), "is out of range", "seed beyond 64 bits");
}

TEST(HostilePlan, IntegerOptionsAreDecimalAndInRange) {
  const std::string d = tmpdir();
  std::vector<float> v(16 * 32);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 13) - 6.0f;
  const std::string x = f32_npy(d + "/x.npy", {16, 32}, v);
  const std::string q = "quantize " + x + " --recipe nvfp4 --round rs -o " + d + "/q ";
  // CLI11's own conversion once ran these as seed 2^64 - 1 without a word.
  expect_refused(tcemu(q + "--seed 18446744073709551616"), "--seed: '18446744073709551616' is out of range", "2^64");
  expect_refused(tcemu(q + "--seed 99999999999999999999999"), "is out of range", "seed beyond 64 bits");
  expect_refused(tcemu(q + "--seed -1"), "--seed: '-1' is not a non-negative decimal integer", "negative seed");
  expect_refused(tcemu(q + "--offset 0x10"), "--offset: '0x10' is not a non-negative decimal integer", "hex offset");
  expect_refused(tcemu("--threads 0x2 info e4m3"), "--threads: '0x2' is not a decimal integer", "hex threads");
  // Leading zeros are decimal (CLI11 alone read 010 as octal 8): the file records seed 10,
  // and a golden file made with -M 064 is the one -M 64 makes.
  ASSERT_EQ(tcemu(q + "--seed 010").rc, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(d + "/q.json"))["cases"][0]["provenance"]["generator"]["philox"]["seed"], 10);
  const std::string g = "golden gen " + kInstr + "-N 8 -K 32 --seed 3 -o ";
  ASSERT_EQ(tcemu(g + d + "/g1.json -M 64").rc, 0);
  ASSERT_EQ(tcemu(g + d + "/g2.json -M 064").rc, 0);
  EXPECT_EQ(slurp(d + "/g1.json"), slurp(d + "/g2.json"));
}

TEST(HostilePlan, QuantizeMxAndNvfp4Options) {
  const std::string d = tmpdir();
  std::vector<float> v(16 * 32);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 11) * 0.25f - 1.0f;
  const std::string x = f32_npy(d + "/x.npy", {16, 32}, v);
  const std::string out = " -o " + d + "/q ";
  put(d + "/empty.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 32), }"));
  for (const char* recipe : {"nvfp4", "mxfp8", "fp8-current"})
    expect_refused(tcemu(std::string("quantize --recipe ") + recipe + " " + d + "/empty.npy" + out),
                   "shape (0, 32) has no elements to quantize", recipe);
  put(d + "/i8.npy", npy("{'descr': '|i1', 'fortran_order': False, 'shape': (4, 32), }", std::string(128, '\1')));
  expect_refused(tcemu("quantize --recipe nvfp4 " + d + "/i8.npy" + out), "dtype '|i1' is not f32", "int8 input");
  const std::string nv = "quantize --recipe nvfp4 " + x + out;
  expect_refused(tcemu(nv + "--e4m3-max -1"), "--e4m3-max must be 448 or 256", "e4m3-max");
  expect_refused(tcemu(nv + "--e4m3-max 99999999999"), "--e4m3-max", "e4m3-max beyond int");
  expect_refused(tcemu(nv + "--four-over-six mae --rht"), "does not support RHT", "4over6 with RHT");
  expect_refused(tcemu(nv + "--four-over-six max"), "--four-over-six must be off, mae or mse", "4over6 name");
  expect_refused(tcemu(nv + "--order nope"), "--order must be te, te-div6", "order");
  expect_refused(tcemu(nv + "--err-fast-math"), "it needs 4over6", "err-fast-math alone");
  expect_refused(tcemu(nv + "--round rz"), "NVFP4 element rounding is rn or rs", "nvfp4 rz");
  expect_refused(tcemu(nv + "--dequant ocp"), "--dequant for NVFP4 recipes is tcemu or te, not 'ocp'", "dequant");
  expect_refused(tcemu(nv + "--block 0"), "NVFP4 blocks are 16 elements; 32 is auto-round's", "nvfp4 block");
  expect_refused(tcemu(nv + "--block 32"), "got 32", "nvfp4 block 32 with order te");
  // --block 0 once meant the default (32) without a word; 2^64 - 1 once ended in SIGFPE (a
  // ceiling division that wrapped) or SIGSEGV.
  const std::string mx = "quantize --recipe mxfp8 " + x + out;
  expect_refused(tcemu(mx + "--block 0"), "block size must be positive", "block 0");
  for (const char* axis : {"row", "col", "2d"}) {
    const std::string big = std::string("--axis ") + axis + " --block 18446744073709551615";
    expect_refused(tcemu(mx + big), "block size 18446744073709551615 is above 2^20 (1048576)", big);
    ASSERT_EQ(tcemu(mx + "--axis " + axis + " --block 1048576").rc, 0) << axis;  // one partial block
    expect_refused(tcemu("dequantize --recipe mxfp8 " + d + "/q -o " + d + "/back.npy " + big),
                   "block size 18446744073709551615 is above 2^20", "dequantize " + big);
  }
}

}  // namespace
