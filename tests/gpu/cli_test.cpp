// The tcemu-gpu command without a GPU: option checking, the --wgmma-n filter of probe/random
// (through `probe --emulator`, which needs no GPU), and the reasons `list` gives. The expected
// instruction counts come from the PTX ISA: wgmma k16 has three type forms (f16 -> f16,
// f16 -> f32, bf16 -> f32) at every N (9.7.15.5).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

int run(const std::string& args, std::string* out) {
  const fs::path dir = fs::temp_directory_path() / ("tcemu_gpu_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "out").string();
  const std::string cmd = std::string(TCEMU_GPU_CLI) + " " + args + " > " + file + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream f(file);
  std::stringstream s;
  s << f.rdbuf();
  *out = s.str();
  fs::remove_all(dir);
  return WEXITSTATUS(rc);
}

TEST(TcemuGpuCli, WgmmaNFilter) {
  std::string out;
  ASSERT_EQ(run("probe --emulator sm_90a --only m64n8k16 --wgmma-n 8,256", &out), 0) << out;
  EXPECT_NE(out.find("probe: 3 instructions"), std::string::npos) << out;
  ASSERT_EQ(run("probe --emulator sm_90a --only m64n136k16 --wgmma-n 8,256", &out), 0) << out;
  EXPECT_NE(out.find("probe: 0 instructions"), std::string::npos) << out;
  ASSERT_EQ(run("probe --emulator sm_90a --only m64n136k16 --wgmma-n '!8,256'", &out), 0) << out;
  EXPECT_NE(out.find("probe: 3 instructions"), std::string::npos) << out;
  // bf16 -> f32 with K = 16 other than wgmma N = 8 and 256: the 30 other wgmma N, plus the three
  // wmma shapes (m16n16k16, m32n8k16, m8n32k16), which the filter leaves alone.
  ASSERT_EQ(run("probe --emulator sm_90a --only k16.f32.bf16.bf16 --wgmma-n '!8,256'", &out), 0) << out;
  EXPECT_NE(out.find("probe: 33 instructions"), std::string::npos) << out;
  ASSERT_EQ(run("probe --emulator sm_90a --only k16.f32.bf16.bf16", &out), 0) << out;
  EXPECT_NE(out.find("probe: 35 instructions"), std::string::npos) << out;
}

TEST(TcemuGpuCli, BadOptionsExit2NamingTheProblem) {
  std::string out;
  EXPECT_EQ(run("random --wgmma-n 7 -o x.json", &out), 2);
  EXPECT_NE(out.find("\"7\" is not a wgmma N"), std::string::npos) << out;
  EXPECT_EQ(run("probe --wgmma-n 8,x", &out), 2);
  EXPECT_NE(out.find("\"x\" is not a wgmma N"), std::string::npos) << out;
  EXPECT_EQ(run("probe --no-such-option", &out), 2);  // CLI11's message
  EXPECT_NE(out.find("The following argument was not expected: --no-such-option"), std::string::npos) << out;
  // An option belongs to the commands that use it.
  EXPECT_EQ(run("probe --tiles 4", &out), 2);
  EXPECT_NE(out.find("not expected: 4 --tiles"), std::string::npos) << out;
  EXPECT_EQ(run("frobnicate", &out), 2);
  EXPECT_NE(out.find("unknown command frobnicate"), std::string::npos) << out;
  EXPECT_EQ(run("", &out), 2);
  EXPECT_NE(out.find("A subcommand is required"), std::string::npos) << out;
  EXPECT_EQ(run("run", &out), 2);
  EXPECT_NE(out.find("cases is required"), std::string::npos) << out;
  EXPECT_EQ(run("random --tiles", &out), 2);
  EXPECT_NE(out.find("--tiles"), std::string::npos) << out;
  EXPECT_EQ(run("random --seconds soon -o x.json", &out), 2);
  EXPECT_NE(out.find("--seconds: \"soon\" is not a number"), std::string::npos) << out;
  EXPECT_EQ(run("random --seconds 0 -o x.json", &out), 2);
  EXPECT_NE(out.find("--seconds needs a positive number"), std::string::npos) << out;
  EXPECT_EQ(run("random --tiles 10x -o x.json", &out), 2);
  EXPECT_NE(out.find("--tiles: \"10x\" is not a whole number"), std::string::npos) << out;
  EXPECT_EQ(run("random --seed -1 -o x.json", &out), 2);
  EXPECT_NE(out.find("--seed: \"-1\" is not a whole number"), std::string::npos) << out;
}

TEST(TcemuGpuCli, HelpExits0AndNamesTheCommands) {
  std::string out;
  for (const char* args : {"help", "--help", "random --help"}) {
    ASSERT_EQ(run(args, &out), 0) << args << "\n" << out;
    EXPECT_NE(out.find("random"), std::string::npos) << out;
  }
  EXPECT_NE(out.find("--wgmma-n"), std::string::npos) << out;
}

// --report is repeatable and takes one value each time: the files after it are cases again.
TEST(TcemuGpuCli, ReportTakesOneValue) {
  std::string out;
  const std::string set = std::string(TCEMU_SOURCE_DIR) + "/golden/sets/mma.sync_bf16.json";
  // No GPU here: run reads its files first (bad input: 2), then exits 77; either way the cases
  // were taken as cases (a missing file is named).
  const std::string md = std::string("out-report.") + "md";  // an output name, not a document
  EXPECT_EQ(run("run --report " + md + " " + set + " --report out-report.json /nonexistent/cases.json", &out), 2);
  EXPECT_NE(out.find("/nonexistent/cases.json"), std::string::npos) << out;
}

TEST(TcemuGpuCli, ListSaysWhyACaseOfAnotherArchitectureIsSkipped) {
  std::string out;
  ASSERT_EQ(run(std::string("list ") + TCEMU_SOURCE_DIR + "/golden/sets/mma.sync_bf16.json", &out), 0) << out;
  EXPECT_NE(out.find("skipped: the case models sm_80;"), std::string::npos) << out;
  EXPECT_EQ(out.find("skipped: \n"), std::string::npos) << out;  // never an empty reason
}

}  // namespace
