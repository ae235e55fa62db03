// tcemu quantize / dequantize / lossscale on published cases: NUMERICS.md §4's block containing
// 480 (RCEIL: scale 2^1 = 0x80, 480 -> 240 = 0x77; FLOOR: 0x7f, 448 = 0x7e) and PyTorch's
// GradScaler update test (4 -> 4 -> 8 -> 2).
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "tcemu_golden/npy.hpp"

namespace {

namespace fs = std::filesystem;

std::string tmpdir() {
  const fs::path p = fs::temp_directory_path() / ("tcemu_quant_cli_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p.string();
}

int run(const std::string& args, std::string* out = nullptr) {
  const std::string dir = tmpdir();
  const std::string cmd = std::string(TCEMU_CLI_PATH) + " " + args + " > " + dir + "/stdout 2> " + dir + "/stderr";
  const int rc = std::system(cmd.c_str());
  if (out) {
    std::ifstream f(dir + "/stdout");
    std::stringstream s;
    s << f.rdbuf();
    *out = s.str();
  }
  return WEXITSTATUS(rc);
}

std::string write_block_with_480() {
  std::vector<uint64_t> bits(64, std::bit_cast<uint32_t>(1.0f));
  bits[3] = std::bit_cast<uint32_t>(480.0f);
  const std::string path = tmpdir() + "/x.npy";
  tcemu::io::write_npy(path, tcemu::io::make_npy("<f4", {2, 32}, bits));
  return path;
}

TEST(QuantCli, Mxfp8BlockContaining480) {
  const std::string in = write_block_with_480(), out = tmpdir() + "/q";
  ASSERT_EQ(run("quantize --recipe mxfp8 " + in + " -o " + out), 0);
  const auto codes = tcemu::io::read_npy(out + ".codes.npy");
  const auto scales = tcemu::io::read_npy(out + ".scales.npy");
  ASSERT_EQ(scales.count(), 2u);
  EXPECT_EQ(scales.bits(0), 0x80u);
  EXPECT_EQ(codes.bits(3), 0x77u);
  ASSERT_EQ(run("quantize --recipe mx " + in + " -o " + out), 0);  // OCP FLOOR
  EXPECT_EQ(tcemu::io::read_npy(out + ".scales.npy").bits(0), 0x7Fu);
  EXPECT_EQ(tcemu::io::read_npy(out + ".codes.npy").bits(3), 0x7Eu);
  // Dequantized: 448 * 2^0 and 1.0 exactly.
  ASSERT_EQ(run("dequantize --recipe mx " + out + " -o " + out + ".back.npy"), 0);
  const auto back = tcemu::io::read_npy(out + ".back.npy");
  EXPECT_EQ(back.bits(3), std::bit_cast<uint32_t>(448.0f));
  EXPECT_EQ(back.bits(0), std::bit_cast<uint32_t>(1.0f));
}

TEST(QuantCli, BadInputGivesStatus2) {
  const std::string in = write_block_with_480();
  EXPECT_EQ(run("quantize --recipe no-such-recipe " + in + " -o " + tmpdir() + "/z"), 2);
  EXPECT_EQ(run("quantize --recipe mxfp8 " + tmpdir() + "/missing.npy -o " + tmpdir() + "/z"), 2);
  EXPECT_EQ(run("quantize --recipe nvfp4 --elem e2m1 " + in + " -o " + tmpdir() + "/z"), 2);
}

TEST(QuantCli, LossScalePyTorchUpdateTest) {
  const std::string flags = tmpdir() + "/flags";
  std::ofstream(flags) << "0\n0\n1\n";
  std::string out;
  ASSERT_EQ(run("lossscale --init 4 --growth 2 --backoff 0.25 --interval 2 < " + flags, &out), 0);
  EXPECT_NE(out.find("1\t0\t4 (0x40800000)\t1"), std::string::npos) << out;
  EXPECT_NE(out.find("2\t0\t8 (0x41000000)\t0"), std::string::npos) << out;
  EXPECT_NE(out.find("3\t1\t2 (0x40000000)\t0"), std::string::npos) << out;
}

}  // namespace
