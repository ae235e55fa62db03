// The `tcemu dot` and `tcemu instr list` contract (issue 3): hex codes per line, padding to
// K, chaining of longer lines, --operands-as f32, and exit status 2 with a message naming the
// line on bad input (earlier lines printed, nothing for later ones).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct CliRun {
  std::string out;
  int status = -1;
};

CliRun tcemu(const std::string& args, const std::string& input) {
  // One file per process: ctest -j runs these tests in parallel processes.
  const std::string in_path = testing::TempDir() + "tcemu_dot_input_" + std::to_string(getpid()) + ".txt";
  std::ofstream(in_path) << input;
  const std::string cmd = std::string(TCEMU_CLI) + " " + args + " < " + in_path + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

const char* kHopperF16 = "dot --arch sm_90 --ptx mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";

TEST(CliDot, DiscriminatorAndPadding) {
  // §5 one-shot discriminator, Hopper f16: -0.75 (0xbf400000). Four terms padded to K = 16.
  CliRun r = tcemu(kHopperF16, "f000 b800 b400 b000 | 6400 3c00 3c00 3c00 | 4b000000\n");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "bf400000\n");
  // Ampere: -0.5; V100: 0.
  EXPECT_EQ(tcemu("dot --arch sm_80 --ptx mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                  "f000 b800 b400 b000 | 6400 3c00 3c00 3c00 | 4b000000\n").out, "bf000000\n");
  EXPECT_EQ(tcemu("dot --arch sm_70 --ptx mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
                  "f000 b800 b400 b000 | 6400 3c00 3c00 3c00 | 4b000000\n").out, "00000000\n");
}

TEST(CliDot, OperandsAsF32AndTcgen05Types) {
  // The same as f32 patterns; e5m2 on sm_100a kind::f8f6f4: -0.75.
  CliRun r = tcemu("dot --arch sm_100a --ptx tcgen05.mma.cta_group::1.kind::f8f6f4 --atype e5m2 --btype e5m2 --dtype f32 "
                "--operands-as f32",
                "c6000000 bf000000 be800000 be000000 | 44800000 3f800000 3f800000 3f800000 | 4b000000\n");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "bf400000\n");
  // 0.1 is not an e5m2 value.
  CliRun bad = tcemu("dot --arch sm_100a --ptx tcgen05.mma.cta_group::1.kind::f8f6f4 --atype e5m2 --btype e5m2 --dtype f32 "
                  "--operands-as f32",
                  "3dcccccd | 3f800000 | 0\n");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("line 1"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("not exactly representable"), std::string::npos) << bad.out;
}

TEST(CliDot, ChainingAndErrors) {
  // 17 terms: not a multiple of K = 16.
  std::string a17, b17;
  for (int i = 0; i < 17; ++i) {
    a17 += "3c00 ";
    b17 += "3c00 ";
  }
  CliRun r = tcemu(kHopperF16, "3c00 | 3c00 | 0\n" + a17 + "| " + b17 + "| 0\n3c00 | 3c00 | 0\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.substr(0, 9), "3f800000\n");  // line 1 printed, line 3 not
  EXPECT_NE(r.out.find("line 2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("3f800000\n", 9), std::string::npos) << r.out;
  // 32 terms of 1*1 chain two instructions: 32.
  std::string a32, b32;
  for (int i = 0; i < 32; ++i) {
    a32 += "3c00 ";
    b32 += "3c00 ";
  }
  EXPECT_EQ(tcemu(kHopperF16, a32 + "| " + b32 + "| 0\n").out, "42000000\n");
  EXPECT_EQ(tcemu(kHopperF16, "3c00 | 3c00\n").status, 2);
  EXPECT_EQ(tcemu(kHopperF16, "zz | 3c00 | 0\n").status, 2);
  EXPECT_EQ(tcemu("dot --arch sm_90 --ptx wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "").status, 2);
  CliRun amb = tcemu("dot --arch sm_100a --ptx tcgen05.mma.cta_group::1.kind::f8f6f4", "");
  EXPECT_EQ(amb.status, 2);
  EXPECT_NE(amb.out.find("--atype"), std::string::npos) << amb.out;
}

TEST(CliDot, BlockScaled) {
  // mxf8f6f4 with a 2^1 scale on A: 1*1*2 = 2 (0x40000000).
  CliRun r = tcemu("dot --arch sm_120a --ptx mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0",
                "38 | 38 | 0 | 80 | 7f\n38 | 38 | 0 | 80 7f | 7f\n");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.substr(0, 9), "40000000\n");
  EXPECT_NE(r.out.find("line 2"), std::string::npos) << r.out;
}

TEST(CliInstr, ListShowsEvidenceAndConfidence) {
  CliRun r = tcemu("instr list --arch sm_90", "");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"), std::string::npos);
  EXPECT_NE(r.out.find("extrapolated"), std::string::npos);
  EXPECT_NE(r.out.find("measured"), std::string::npos);
}

}  // namespace

namespace {

// docs/catalog.md lists every catalog entry; it must be what the code says today.
TEST(CliInstr, DocsCatalogIsCurrent) {
  const CliRun r = tcemu("instr list --markdown", "");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream f(std::string(TCEMU_SOURCE_DIR) + "/docs/catalog.md");
  ASSERT_TRUE(f) << "docs/catalog.md missing";
  std::stringstream doc;
  doc << f.rdbuf();
  EXPECT_TRUE(doc.str() == r.out) << "docs/catalog.md is stale: run `tcemu instr list --markdown > docs/catalog.md`";
}

}  // namespace
