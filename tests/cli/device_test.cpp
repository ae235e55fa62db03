// --device of `tcemu mma` and `tcemu golden gen`, and `tcemu info --devices` (docs/gpu-emulation.md):
// bad spellings and an unusable CUDA device are exit status 2 with a one-line message of a
// fixed prefix (whichever reason this build and machine give: no CUDA backend, no driver, no
// such device); --device cpu is the default bit for bit; the JSON side file records the device.
// Where a usable CUDA GPU is present, D on it is compared with D on the CPU (the tests that
// need one say so and skip elsewhere).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tcemu/mma_cuda.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

using tcemu_test::run_tcemu;

const std::string kUnknownPrefix = "tcemu: --device: unknown device '";
const std::string kWgmma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";

std::string dir() {
  static const std::string d = tcemu_test::tmpdir("tcemu_device_test_");
  return d;
}

// The message `tcemu` gives for a CUDA device that cannot run here.
std::string unusable_prefix(int index) {
  return "tcemu: --device cuda:" + std::to_string(index) + ": cannot run the emulator on the GPU: ";
}

// f16 A (64 x 16, row order), B (16 x 8, stored 8 x 16: col order), f32 C (64 x 8): arbitrary codes
// (every f16 pattern, NaN and Inf among them, is a code).
std::string operands() {
  std::vector<uint64_t> a(64 * 16), b(8 * 16), c(64 * 8);
  uint64_t x = 0x9E3779B97F4A7C15u;
  auto next = [&x] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
  };
  for (auto& v : a) v = next() & 0xFFFF;
  for (auto& v : b) v = next() & 0xFFFF;
  for (auto& v : c) v = next() & 0xFFFFFFFF;
  tcemu::io::write_npy(dir() + "/A.npy", tcemu::io::make_npy("<u2", {64, 16}, a));
  tcemu::io::write_npy(dir() + "/B.npy", tcemu::io::make_npy("<u2", {8, 16}, b));
  tcemu::io::write_npy(dir() + "/C.npy", tcemu::io::make_npy("<u4", {64, 8}, c));
  return "mma --arch sm_90a --instr " + kWgmma + " " + dir() + "/A.npy " + dir() + "/B.npy " + dir() + "/C.npy -q";
}

bool one_line(const std::string& s) { return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1; }

TEST(CliDevice, UnknownSpellingsAreExit2ListingTheValidOnes) {
  const std::string mma = operands() + " -o " + dir() + "/D.npy";
  const std::string gen = "golden gen -o " + dir() + "/g.json --arch sm_90a --instr " + kWgmma;
  for (const std::string bad : {"gpu", "CUDA", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "cuda0", "cpu:0", "''", "cuda:99999"}) {
    for (const std::string& cmd : {mma, gen}) {
      const auto r = run_tcemu(dir(), cmd + " --device " + bad);
      EXPECT_EQ(r.rc, 2) << cmd << " --device " << bad;
      EXPECT_EQ(r.err.rfind(kUnknownPrefix, 0), 0u) << r.err;
      EXPECT_NE(r.err.find("valid: cpu, cuda, or cuda:N"), std::string::npos) << r.err;
      EXPECT_TRUE(one_line(r.err)) << r.err;
    }
  }
}

// "cuda", "cuda:0" and "cuda:N" are devices: where one cannot run, the message says why in one
// line after a fixed prefix, and it is cuda_status()'s reason, whatever it is on this machine.
TEST(CliDevice, UnusableCudaDeviceIsExit2WithTheReason) {
  const std::string mma = operands() + " -o " + dir() + "/D.npy";
  const std::string gen = "golden gen -o " + dir() + "/g.json --arch sm_90a --instr " + kWgmma;
  int checked = 0;
  for (const auto& [spelling, index] : std::vector<std::pair<std::string, int>>{{"cuda", 0}, {"cuda:0", 0}, {"cuda:7", 7}, {"cuda:1023", 1023}}) {
    const tcemu::CudaStatus st = tcemu::cuda_status(index);
    if (st.usable) continue;
    ASSERT_FALSE(st.why_not.empty());
    for (const std::string& cmd : {mma, gen}) {
      const auto r = run_tcemu(dir(), cmd + " --device " + spelling);
      EXPECT_EQ(r.rc, 2) << cmd;
      EXPECT_EQ(r.err, unusable_prefix(index) + st.why_not + "\n");
      EXPECT_TRUE(one_line(r.err)) << r.err;
      ++checked;
    }
  }
  EXPECT_GE(checked, 2);  // cuda:1023 exists on no machine
}

TEST(CliDevice, CpuIsTheDefaultBitForBitAndTheSideFileSaysSo) {
  const std::string base = operands() + " -o " + dir() + "/D.npy";
  ASSERT_EQ(run_tcemu(dir(), base).rc, 0);
  const std::string d_default = tcemu_test::slurp(dir() + "/D.npy");
  const std::string side_default = tcemu_test::slurp(dir() + "/D.json");
  ASSERT_EQ(d_default.size(), 128 + 64 * 8 * 4u);
  const auto r = run_tcemu(dir(), base + " --device cpu");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(tcemu_test::slurp(dir() + "/D.npy"), d_default);
  EXPECT_EQ(tcemu_test::slurp(dir() + "/D.json"), side_default);
  const auto side = nlohmann::json::parse(side_default);
  EXPECT_EQ(side.at("device"), "cpu");
  EXPECT_FALSE(side.contains("device_name"));
}

TEST(CliDevice, GoldenGenCpuIsTheDefaultFile) {
  const std::string gen = "golden gen --arch sm_100a --instr tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X "
                          "--atype e2m1 --btype e2m1 --stype ue8m0 -M 128 -N 16 -K 128 --dist mixed --npy-threshold 0 -o ";
  ASSERT_EQ(run_tcemu(dir(), gen + dir() + "/g1.json").rc, 0);
  ASSERT_EQ(run_tcemu(dir(), gen + dir() + "/g2.json --device cpu").rc, 0);
  const std::string a = tcemu_test::slurp(dir() + "/g1.json"), b = tcemu_test::slurp(dir() + "/g2.json");
  ASSERT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b);
}

TEST(CliDevice, GoldenGenCudaOnlyForMmaCases) {
  for (const std::string spelling : {"cuda", "cuda:2"}) {
    const auto r = run_tcemu(dir(), "golden gen --cvt cvt.rn.satfinite.e4m3x2.f32 -o " + dir() + "/c.json --device " + spelling);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err, "tcemu: --device " + std::string(spelling == "cuda" ? "cuda:0" : spelling) +
                         ": only MMA cases (--instr without the GEMM plan options) are computed on a GPU\n");
  }
  EXPECT_EQ(run_tcemu(dir(), "golden gen --cvt cvt.rn.satfinite.e4m3x2.f32 -o " + dir() + "/c.json --device cpu").rc, 0);
}

TEST(CliDevice, InfoDevicesReportsTheBackend) {
  const auto r = run_tcemu(dir(), "info --devices");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("cpu     usable (", 0), 0u) << r.out;
  const tcemu::CudaStatus st = tcemu::cuda_status(0);
  EXPECT_NE(r.out.find(std::string("\ncuda    CUDA backend ") + (st.built ? "built\n" : "not built\n")), std::string::npos) << r.out;
  if (st.usable)
    EXPECT_NE(r.out.find("\ncuda:0  usable: " + st.name + "\n"), std::string::npos) << r.out;
  else
    EXPECT_NE(r.out.find("\ncuda:0  not usable: " + st.why_not + "\n"), std::string::npos) << r.out;
  const auto bad = run_tcemu(dir(), "info --devices e4m3");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(bad.err, "tcemu: info: --devices takes no FORMAT\n");
}

// On a machine with a usable CUDA GPU: D of `tcemu mma --device cuda` is D on the CPU, byte for
// byte, and the side file names the device; golden files generated on the GPU are the CPU's.
TEST(CliDevice, CudaIsTheCpuBitForBit) {
  const tcemu::CudaStatus st = tcemu::cuda_status(0);
  if (!st.usable) GTEST_SKIP() << "needs a usable CUDA GPU: " << st.why_not;
  const std::string base = operands() + " -o " + dir() + "/D.npy";
  ASSERT_EQ(run_tcemu(dir(), base + " --device cpu").rc, 0);
  const std::string d_cpu = tcemu_test::slurp(dir() + "/D.npy");
  const auto r = run_tcemu(dir(), base + " --device cuda");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(tcemu_test::slurp(dir() + "/D.npy") == d_cpu);
  const auto side = nlohmann::json::parse(tcemu_test::slurp(dir() + "/D.json"));
  EXPECT_EQ(side.at("device"), "cuda:0");
  EXPECT_EQ(side.at("device_name"), st.name);
  const std::vector<std::string> families = {
      "--arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 -K 64",
      "--arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 -K 256 --promote-every 4",
      "--arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 -K 64",
      "--arch sm_80 --instr mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 -K 32",
      "--arch sm_100a --instr tcgen05.mma.cta_group::1.kind::f8f6f4 --atype e4m3 --btype e2m1 --dtype f32 -K 128",
      "--arch sm_100a --instr tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X --atype e2m1 --btype e2m1 "
      "--stype ue4m3 -K 256 --scales all",
      "--arch sm_120a --instr mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 "
      "-K 128",
  };
  for (const std::string& f : families) {
    const std::string gen = "golden gen " + f + " -M 128 -N 64 --dist all --npy-threshold 0 -o ";
    ASSERT_EQ(run_tcemu(dir(), gen + dir() + "/cpu.json --device cpu").rc, 0) << f;
    const auto g = run_tcemu(dir(), gen + dir() + "/gpu.json --device cuda");
    ASSERT_EQ(g.rc, 0) << f << ": " << g.err;
    EXPECT_TRUE(tcemu_test::slurp(dir() + "/gpu.json") == tcemu_test::slurp(dir() + "/cpu.json")) << f;
  }
}

}  // namespace
