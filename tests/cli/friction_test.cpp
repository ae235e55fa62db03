// What a new user hit first (issue 13): compare's `--json -` holds JSON alone, a verdict that
// names --nans-equal when only NaN payloads differ, --case by the .npy spelling, by index and
// with the list of cases in the error, `--max-listed 0` without an empty table, quantize of a
// large tensor without OUT.OUT.* copies, and unknown instructions answered with the nearest
// catalog spellings. Expected outcomes are known by construction (copies of generated cases
// with chosen bits changed), never taken from the output under test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"
#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
namespace tg = tcemu::golden;

std::string tmpdir() { return tcemu_test::tmpdir("tcemu_friction_"); }
using tcemu_test::CliRun;
using tcemu_test::slurp;

CliRun tcemu(const std::string& args) { return tcemu_test::run_tcemu(tmpdir(), args); }

// An f32 D of 64 x 8 (wgmma m64n8k16, C and D f32) in a golden file; and the same D as raw
// codes with every element replaced by `fill` (NaN payloads) or with one element changed.
struct Fixture {
  std::string dir = tmpdir();
  tg::GoldenFile file;
  std::string json;
  Fixture() {
    tg::MmaGenRequest r;
    r.arch = "sm_90a";
    r.ptx = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
    r.name = "f32.case";  // a dot: the .npy spelling is f32_case
    file.cases = {tg::generate_mma(r)};
    r.name = "second";
    r.seed = 2;
    file.cases.push_back(tg::generate_mma(r));
    json = dir + "/g.json";
    tg::write_golden(json, file);
  }
  // The case's D as raw little-endian f32 codes, `edit` applied to each (index, code).
  template <class F>
  std::string raw(F edit) const {
    const tg::Array& e = file.cases[0].expected;
    std::string bytes = std::string(reinterpret_cast<const char*>(e.raw.data()), e.raw.size());
    for (size_t i = 0; i < e.storage_count(); ++i) {
      uint32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      v = edit(i, v);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
    const std::string path = dir + "/actual.bin";
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
};

TEST(Friction, JsonToStdoutIsPureJson) {
  Fixture f;
  const std::string act = f.raw([](size_t i, uint32_t v) { return i == 3 ? v ^ 1 : v; });
  for (const char* quiet : {"", " -q"}) {
    const CliRun r = tcemu("compare " + f.json + " " + act + " --case 0 --json -" + quiet);
    EXPECT_EQ(r.rc, 1) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "stdout is not JSON alone:\n" << r.out;
    EXPECT_EQ(j["cases"][0]["mismatches"], 1);
    EXPECT_NE(r.err.find(*quiet ? "different" : "mismatches: 1 of 512"), std::string::npos) << r.err;
  }
}

TEST(Friction, NanPayloadsAloneAreNamed) {
  Fixture f;
  // Expected D with NaNs: make the expected file's first 100 codes the canonical 0x7fffffff and
  // the actual's NumPy's 0x7fc00000; every other element equal.
  tg::GoldenFile nan_file = f.file;
  tg::Array& d = nan_file.cases[0].expected;
  for (size_t i = 0; i < 100; ++i) {
    const uint32_t canon = 0x7fffffff;
    std::memcpy(d.raw.data() + 4 * i, &canon, 4);
  }
  const std::string nan_json = f.dir + "/nan.json";
  tg::write_golden(nan_json, nan_file);
  Fixture g = f;
  g.file = nan_file;
  const std::string act = g.raw([](size_t i, uint32_t v) { return i < 100 ? 0x7fc00000u : v; });
  CliRun r = tcemu("compare " + nan_json + " " + act + " --case 0 --no-models");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("All 100 differences are NaN in both, differing only in payload or sign"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--nans-equal"), std::string::npos);
  r = tcemu("compare " + nan_json + " " + act + " --case 0 --no-models --nans-equal");
  EXPECT_EQ(r.rc, 0) << r.out;
  // One real difference besides: "100 of the 101".
  const std::string act2 = g.raw([](size_t i, uint32_t v) { return i < 100 ? 0x7fc00000u : i == 200 ? v ^ 1 : v; });
  r = tcemu("compare " + nan_json + " " + act2 + " --case 0 --no-models --json " + f.dir + "/r.json");
  EXPECT_NE(r.out.find("100 of the 101 differences are NaN in both"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(slurp(f.dir + "/r.json"))["cases"][0]["nan_payload_mismatches"], 100);
}

TEST(Friction, CaseByNpySpellingIndexAndList) {
  Fixture f;
  const std::string act = f.raw([](size_t, uint32_t v) { return v; });
  EXPECT_EQ(tcemu("compare " + f.json + " " + act + " --case f32.case -q").rc, 0);
  EXPECT_EQ(tcemu("compare " + f.json + " " + act + " --case f32_case -q").rc, 0);
  EXPECT_EQ(tcemu("compare " + f.json + " " + act + " --case 0 -q").rc, 0);
  CliRun r = tcemu("compare " + f.json + " " + act + " --case 7");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no case 7: it holds 2 cases (indices 0 to 1)"), std::string::npos) << r.err;
  r = tcemu("compare " + f.json + " " + act + " --case nope");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no case named 'nope'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0: f32.case"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1: second"), std::string::npos) << r.err;
}

TEST(Friction, MaxListedZeroPrintsNoTable) {
  Fixture f;
  const std::string act = f.raw([](size_t i, uint32_t v) { return i == 3 ? v ^ 1 : v; });
  CliRun r = tcemu("compare " + f.json + " " + act + " --case 0 --max-listed 0 --no-models");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.find("first mismatches"), std::string::npos) << r.out;
  r = tcemu("compare " + f.json + " " + act + " --case 0 --no-models");
  EXPECT_NE(r.out.find("first mismatches"), std::string::npos) << r.out;
}

TEST(Friction, QuantizeOfALargeTensorReferencesItsFiles) {
  const std::string d = tmpdir() + "/q";
  fs::create_directories(d);
  std::vector<uint64_t> bits;
  for (size_t i = 0; i < 64 * 128; ++i) bits.push_back(std::bit_cast<uint32_t>(static_cast<float>(i % 97) - 48.0f));
  tcemu::io::write_npy(d + "/x.npy", tcemu::io::make_npy("<f4", {64, 128}, bits));
  ASSERT_EQ(tcemu("quantize --recipe mxfp8 " + d + "/x.npy -o " + d + "/out").rc, 0);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(d)) {
    ++files;
    EXPECT_EQ(e.path().filename().string().find("out.out."), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 4u);  // x.npy, out.codes.npy, out.scales.npy, out.json
  const nlohmann::json j = nlohmann::json::parse(slurp(d + "/out.json"));
  EXPECT_EQ(j["cases"][0]["operands"]["x"]["npy"], "x.npy");
  EXPECT_EQ(j["cases"][0]["expected"]["codes"]["npy"], "out.codes.npy");
  const CliRun r = tcemu("golden check " + d + "/out.json");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reproduced by the emulator"), std::string::npos) << r.out;
}

TEST(Friction, UnknownInstructionSuggestsSpellings) {
  // docs/workflow.md once spelled the WMMA instruction with four types; the catalog has two.
  const std::string wrong = "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16.f16.f32";
  CliRun r = tcemu("golden gen --arch sm_80 --instr " + wrong + " -o " + tmpdir() + "/w.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("did you mean"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", r.err.find("did you mean")), std::string::npos)
      << r.err;
  r = tcemu("dot --arch sm_80 --ptx " + wrong);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(" wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", r.err.find("did you mean")), std::string::npos)
      << r.err;
}

}  // namespace

namespace {

// Runs tcemu with `input` on stdin.
CliRun tcemu_in(const std::string& args, const std::string& input) {
  return tcemu_test::run_tcemu(tmpdir(), args, input);
}

TEST(Friction, DotTakesTf32AsTheTensorCoreDoes) {
  // The tensor core reads tf32 from an f32 container and ignores its low 13 bits: operands
  // with those bits set give the same D as with them cleared (1*1 + 2*1 = 3, 0x40400000).
  const std::string ptx = "dot --arch sm_80 --ptx mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
  const CliRun set = tcemu_in(ptx, "3f801fff 40000001 | 3f800000 3f801000 | 00000000\n");
  const CliRun clear = tcemu_in(ptx, "3f800000 40000000 | 3f800000 3f800000 | 00000000\n");
  EXPECT_EQ(set.rc, 0) << set.err;
  EXPECT_EQ(set.out, "40400000\n");
  EXPECT_EQ(clear.out, set.out);
  const CliRun strict = tcemu_in(ptx + " --strict-tf32", "3f801fff | 3f800000 | 00000000\n");
  EXPECT_EQ(strict.rc, 2);
  EXPECT_NE(strict.err.find("line 1: 0x3f801fff is not a tf32 code"), std::string::npos) << strict.err;
}

}  // namespace
