// tcemu quantize / dequantize / lossscale on published cases: the block containing
// 480 (RCEIL: scale 2^1 = 0x80, 480 -> 240 = 0x77; FLOOR: 0x7f, 448 = 0x7e) and PyTorch's
// GradScaler update test (4 -> 4 -> 8 -> 2). The golden case quantize writes (OUT.json):
// read back with the published values, accepted by `golden check`, tampered copies caught by
// `golden check` and `compare`.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
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

// analyze on every thread count: the same report (counts and SQNR) for 1 and 3 threads, on a
// tensor of several pieces (300 x 1008 values of different magnitudes, NaN and Inf among them).
TEST(QuantCli, AnalyzeSameReportForOneAndThreeThreads) {
  std::vector<uint64_t> bits(300 * 1008);
  uint64_t state = 12345;
  for (size_t i = 0; i < bits.size(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const float m = static_cast<float>((state >> 40) & 0xFFFF) / 65536.0f + 0.5f;
    bits[i] = std::bit_cast<uint32_t>(std::ldexp(((state >> 20) & 1) ? -m : m, static_cast<int>((state >> 33) % 40) - 30));
  }
  bits[5] = 0x7FC00000u;   // NaN
  bits[777] = 0x7F800000u; // Inf
  const std::string in = tmpdir() + "/an.npy";
  tcemu::io::write_npy(in, tcemu::io::make_npy("<f4", {300, 1008}, bits));
  std::string one, three, env3;
  ASSERT_EQ(run("--threads 1 analyze " + in, &one), 0);
  ASSERT_EQ(run("analyze " + in + " --threads 3", &three), 0);
  ASSERT_EQ(run("analyze " + in, &env3), 0);
  EXPECT_NE(one.find("fp8-block128x128"), std::string::npos) << one;
  EXPECT_EQ(one, three);
  EXPECT_EQ(one, env3);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// quantize and dequantize through the command line: the same files for --threads 1 and 3.
TEST(QuantCli, QuantizeSameFilesForOneAndThreeThreads) {
  std::vector<uint64_t> bits(130 * 1008);
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = std::bit_cast<uint32_t>(std::ldexp(static_cast<float>(i % 977) - 488.0f, static_cast<int>(i % 23) - 11));
  const std::string dir = tmpdir(), in = dir + "/t.npy";
  tcemu::io::write_npy(in, tcemu::io::make_npy("<f4", {130, 1008}, bits));
  for (const char* recipe : {"mxfp8", "nvfp4", "fp8-block128x128"}) {
    std::string o1 = dir + "/t1", o3 = dir + "/t3";
    ASSERT_EQ(run(std::string("--threads 1 quantize --recipe ") + recipe + " " + in + " -o " + o1), 0) << recipe;
    ASSERT_EQ(run(std::string("--threads 3 quantize --recipe ") + recipe + " " + in + " -o " + o3), 0) << recipe;
    EXPECT_EQ(slurp(o1 + ".codes.npy"), slurp(o3 + ".codes.npy")) << recipe;
    EXPECT_EQ(slurp(o1 + ".scales.npy"), slurp(o3 + ".scales.npy")) << recipe;
    ASSERT_EQ(run(std::string("--threads 1 dequantize --recipe ") + recipe + " " + o1 + " -o " + o1 + ".back.npy"), 0);
    ASSERT_EQ(run(std::string("--threads 3 dequantize --recipe ") + recipe + " " + o1 + " -o " + o3 + ".back.npy"), 0);
    const std::string back = slurp(o1 + ".back.npy");
    EXPECT_GT(back.size(), 130u * 1008u * 4u) << recipe;
    EXPECT_EQ(back, slurp(o3 + ".back.npy")) << recipe;
  }
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
  // x is referenced (the input file), not copied; the random words get OUT.rbits.npy.
  EXPECT_FALSE(fs::exists(out + ".r.x.npy"));
  EXPECT_TRUE(fs::exists(out + ".rbits.npy"));
  const tcemu::golden::GoldenFile f = tcemu::golden::read_golden(out + ".json");
  EXPECT_EQ(f.cases[0].operands.at("x").npy, "r.npy");
  EXPECT_EQ(f.cases[0].operands.at("rbits").npy, "r.rbits.npy");
  EXPECT_EQ(f.cases[0].operands.at("rbits").cols, 16u);
  EXPECT_EQ(f.cases[0].provenance.fields.at("seed"), 11);
  EXPECT_EQ(f.cases[0].extra_expected.count("global"), 1u);
  EXPECT_EQ(run("golden check " + out + ".json", &text), 0) << text;
  ASSERT_EQ(run("quantize --recipe mxfp8 --round rs --seed 3 --npy-threshold 0 " + in + " -o " + out), 0);
  EXPECT_EQ(run("golden check " + out + ".json", &text), 0) << text;
}

// Issue 14, through the command line: the one-level torchao order writes no global scale and
// dequantizes without one; --variant selects an older release and is refused where it does not
// apply; --fast-math reads the input format (bf16: TE's tuned kernel, -0.0 -> code 0x0).
TEST(QuantCli, UpstreamVariantsAndInputFormat) {
  const std::string dir = tmpdir();
  std::vector<uint64_t> v(16, 0);
  v[0] = std::bit_cast<uint32_t>(22.0f);
  v[1] = std::bit_cast<uint32_t>(18.75f);
  tcemu::io::write_npy(dir + "/s.npy", tcemu::io::make_npy("<f4", {1, 16}, v));
  fs::remove(dir + "/s.global.npy");
  std::string text;
  ASSERT_EQ(run("quantize --recipe nvfp4-torchao --order torchao-single " + dir + "/s.npy -o " + dir + "/s"), 0);
  EXPECT_FALSE(fs::exists(dir + "/s.global.npy"));
  EXPECT_EQ(tcemu::io::read_npy(dir + "/s.codes.npy").bits(1), 0x7u);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/s.scales.npy").bits(0), 0x47u);
  ASSERT_EQ(run("dequantize --recipe nvfp4-torchao --order torchao-single " + dir + "/s -o " + dir + "/s.back.npy"), 0);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/s.back.npy").bits(1), std::bit_cast<uint32_t>(22.5f));  // 6 * 3.75
  EXPECT_EQ(run("golden check " + dir + "/s.json", &text), 0) << text;
  ASSERT_EQ(run("quantize --recipe nvfp4-torchao --order torchao-single-0.17 " + dir + "/s.npy -o " + dir + "/s"), 0);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/s.codes.npy").bits(1), 0x6u);

  // MX: 32 x 2^-126 -> 0x40 today, 0x38 with torchao <= v0.18.0.
  tcemu::io::write_npy(dir + "/m.npy", tcemu::io::make_npy("<f4", {1, 32}, std::vector<uint64_t>(32, 0x00800000u)));
  ASSERT_EQ(run("quantize --recipe mx " + dir + "/m.npy -o " + dir + "/m"), 0);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/m.codes.npy").bits(0), 0x40u);
  ASSERT_EQ(run("quantize --recipe mx --variant torchao-0.18 " + dir + "/m.npy -o " + dir + "/m"), 0);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/m.codes.npy").bits(0), 0x38u);
  EXPECT_EQ(run("golden check " + dir + "/m.json", &text), 0) << text;
  EXPECT_EQ(run("quantize --recipe mx --variant te-2.12 " + dir + "/m.npy -o " + dir + "/m"), 2);
  EXPECT_EQ(run("quantize --recipe nvfp4 --variant torchao-0.18 " + dir + "/m.npy -o " + dir + "/m"), 2);
  EXPECT_EQ(run("quantize --recipe mx --variant torchao-9 " + dir + "/m.npy -o " + dir + "/m"), 2);

  // NVFP4 fast math: bf16 codes [1.0, -0.0, 0...] (<u2).
  std::vector<uint64_t> b(16, 0);
  b[0] = 0x3F80;
  b[1] = 0x8000;
  tcemu::io::write_npy(dir + "/b.npy", tcemu::io::make_npy("<u2", {1, 16}, b));
  ASSERT_EQ(run("quantize --recipe nvfp4 --fast-math " + dir + "/b.npy -o " + dir + "/b"), 0);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/b.codes.npy").bits(1), 0x0u);
  EXPECT_EQ(run("golden check " + dir + "/b.json", &text), 0) << text;
  ASSERT_EQ(run("quantize --recipe nvfp4 " + dir + "/b.npy -o " + dir + "/b"), 0);
  EXPECT_EQ(tcemu::io::read_npy(dir + "/b.codes.npy").bits(1), 0x8u);
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
