// tcemu quantize / dequantize / lossscale on published cases: docs/quantization.md's block containing
// 480 (RCEIL: scale 2^1 = 0x80, 480 -> 240 = 0x77; FLOOR: 0x7f, 448 = 0x7e) and PyTorch's
// GradScaler update test (4 -> 4 -> 8 -> 2). The golden case quantize writes (OUT.json):
// read back with the published values, accepted by `golden check`, tampered copies caught by
// `golden check` and `compare`.
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

#include "tcemu_golden/golden.hpp"
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

TEST(QuantCli, QuantizeWritesAGoldenCase) {
  const std::string in = write_block_with_480(), out = tmpdir() + "/g";
  std::string text;
  ASSERT_EQ(run("quantize --recipe mxfp8 " + in + " -o " + out, &text), 0);
  EXPECT_EQ(text.find("not written yet"), std::string::npos) << text;
  // The published values through the JSON path.
  const tcemu::golden::GoldenFile f = tcemu::golden::read_golden(out + ".json");
  ASSERT_EQ(f.cases.size(), 1u);
  const tcemu::golden::Case& c = f.cases[0];
  EXPECT_EQ(c.op, tcemu::golden::OpKind::quantize);
  EXPECT_EQ(c.quant.recipe.name, "mxfp8");
  EXPECT_EQ(c.expected.type.name, "e4m3");
  EXPECT_EQ(c.expected.at(0, 3), 0x77u);
  EXPECT_EQ(c.expected.at(0, 0), 0x30u);  // 1.0 / 2 = 0.5
  const tcemu::golden::Array& s = c.extra_expected.at("scales");
  EXPECT_EQ(s.type.name, "ue8m0");
  EXPECT_EQ(s.rows, 2u);
  EXPECT_EQ(s.at(0, 0), 0x80u);
  EXPECT_EQ(c.provenance.fields.at("model"), "tcemu::quant recipe mxfp8");
  EXPECT_EQ(run("golden check " + out + ".json", &text), 0) << text;
  // compare against the .npy codes quantize wrote: identical; a planted difference: found.
  EXPECT_EQ(run("compare " + out + ".json " + out + ".codes.npy"), 0);
  std::vector<uint64_t> codes;
  const auto npy = tcemu::io::read_npy(out + ".codes.npy");
  for (size_t i = 0; i < npy.count(); ++i) codes.push_back(npy.bits(i));
  codes[40] ^= 1;
  tcemu::io::write_npy(out + ".bad.npy", tcemu::io::make_npy("|u1", {2, 32}, codes));
  ASSERT_EQ(run("compare " + out + ".json " + out + ".bad.npy", &text), 1);
  EXPECT_NE(text.find("1 of 64"), std::string::npos) << text;
  // A tampered code in the JSON: golden check says not reproduced (exit 1).
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(out + ".json"));
  std::string hex = doc["cases"][0]["expected"]["codes"]["hex"];
  hex[0] = hex[0] == '3' ? '2' : '3';
  doc["cases"][0]["expected"]["codes"]["hex"] = hex;
  const std::string other = tmpdir() + "/tampered";
  fs::create_directories(other);
  std::ofstream(other + "/g.json") << doc.dump(1);
  EXPECT_EQ(run("golden check " + other + "/g.json", &text), 1) << text;
  // Golden against golden: the scales are compared too.
  doc = nlohmann::json::parse(std::ifstream(out + ".json"));
  std::string scales = doc["cases"][0]["expected"]["scales"]["hex"];
  ASSERT_EQ(scales.substr(0, 2), "80");
  scales.replace(0, 2, "7f");  // FLOOR's scale for the block with 480 (the codes stay)
  doc["cases"][0]["expected"]["scales"]["hex"] = scales;
  std::ofstream(other + "/g.json") << doc.dump(1);
  EXPECT_EQ(run("compare " + out + ".json " + out + ".json"), 0);
  ASSERT_EQ(run("compare " + out + ".json " + other + "/g.json", &text), 1);
  EXPECT_NE(text.find("scales is 2 ue8m0"), std::string::npos) << text;
  EXPECT_NE(text.find("DIFFERENT: 1 of 2 elements"), std::string::npos) << text;
}

TEST(QuantCli, QuantizeCaseWithRandomBitsAndNpyArrays) {
  // 8 x 64 values, stochastic rounding: x (512 elements) and rbits go to .npy files.
  std::vector<uint64_t> bits;
  for (int i = 0; i < 8 * 64; ++i) bits.push_back(std::bit_cast<uint32_t>(static_cast<float>(i % 37) * 0.37f - 5.0f));
  const std::string in = tmpdir() + "/r.npy", out = tmpdir() + "/r";
  tcemu::io::write_npy(in, tcemu::io::make_npy("<f4", {8, 64}, bits));
  std::string text;
  ASSERT_EQ(run("quantize --recipe nvfp4 --round rs --seed 11 --offset 4 --npy-threshold 100 " + in + " -o " + out), 0);
  EXPECT_TRUE(fs::exists(out + ".r.x.npy"));
  EXPECT_TRUE(fs::exists(out + ".r.rbits.npy"));
  const tcemu::golden::GoldenFile f = tcemu::golden::read_golden(out + ".json");
  EXPECT_EQ(f.cases[0].operands.at("rbits").cols, 16u);
  EXPECT_EQ(f.cases[0].provenance.fields.at("seed"), 11);
  EXPECT_EQ(f.cases[0].extra_expected.count("global"), 1u);
  EXPECT_EQ(run("golden check " + out + ".json", &text), 0) << text;
  ASSERT_EQ(run("quantize --recipe mxfp8 --round rs --seed 3 --npy-threshold 0 " + in + " -o " + out), 0);
  EXPECT_EQ(run("golden check " + out + ".json", &text), 0) << text;
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
