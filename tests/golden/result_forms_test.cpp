// The Result forms (try_<name>) of the golden library's calls that take a user's data
// (docs/architecture.md, "Errors"): each returns the error for a bad input instead of throwing,
// its message is byte for byte what the throwing form throws, and for the inputs the CLI reads
// it is what `tcemu` prints after "tcemu: " (exit status 2).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tcemu_golden/committed_set.hpp"
#include "tcemu_golden/compare.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace {

namespace fs = std::filesystem;
namespace tg = tcemu::golden;
namespace io = tcemu::io;

std::string tmpdir() {
  const fs::path p = fs::temp_directory_path() / ("tcemu_result_forms_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p.string();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// The Result form returned an error (it did not throw: the call itself would have ended the
// test), and the throwing form throws that message.
template <class R, class F>
std::string same_error(const R& r, F&& throwing) {
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.error.empty());
  try {
    throwing();
    ADD_FAILURE() << "the throwing form did not throw; the Result form said: " << r.error;
  } catch (const std::exception& e) {
    EXPECT_EQ(r.error, e.what());
  }
  return r.error;
}
// The same for the forms that return the message.
template <class F>
std::string same_error_text(const std::string& error, F&& throwing) {
  EXPECT_FALSE(error.empty());
  try {
    throwing();
    ADD_FAILURE() << "the throwing form did not throw; the Result form said: " << error;
  } catch (const std::exception& e) {
    EXPECT_EQ(error, e.what());
  }
  return error;
}

#ifdef TCEMU_CLI
// What the CLI prints (standard error and output together) and its exit status.
struct CliRun {
  int rc = 0;
  std::string out;
};
CliRun cli(const std::string& args) {
  const std::string out_file = tmpdir() + "/cli_out";
  const std::string cmd = std::string(TCEMU_CLI) + " " + args + " > " + out_file + " 2>&1 < /dev/null";
  const int rc = std::system(cmd.c_str());
  std::ifstream f(out_file);
  std::stringstream s;
  s << f.rdbuf();
  return {WEXITSTATUS(rc), s.str()};
}
void cli_says(const std::string& args, const std::string& error) {
  const CliRun r = cli(args);
  EXPECT_EQ(r.rc, 2) << args;
  EXPECT_EQ(r.out, "tcemu: " + error + "\n") << args;
}
#else
void cli_says(const std::string&, const std::string&) {}
#endif

tg::Case small_mma() {
  tg::MmaGenRequest r;
  r.arch = "sm_90a";
  r.ptx = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  r.name = "small";
  tcemu::Result<tg::Case> c = tg::try_generate_mma(r);
  EXPECT_TRUE(c.ok()) << c.error;
  return c.value;
}

TEST(ResultForms, ReadGolden) {
  const std::string d = tmpdir();
  const std::string missing = d + "/missing.json";
  const std::string e1 = same_error(tg::try_read_golden(missing), [&] { tg::read_golden(missing); });
  cli_says("golden check " + missing, e1);

  const std::string bad = d + "/bad.json";
  write_text(bad, R"({"format": "tcemu-golden", "version": 99, "cases": []})");
  const std::string e2 = same_error(tg::try_read_golden(bad), [&] { tg::read_golden(bad); });
  cli_says("golden check " + bad, e2);
  cli_says("compare " + bad + " " + bad, e2);

  const std::string not_json = d + "/not_json.json";
  write_text(not_json, "{ this is not JSON");
  const std::string e3 = same_error(tg::try_read_golden(not_json), [&] { tg::read_golden(not_json); });
  cli_says("golden check " + not_json, e3);

  // A good file reads.
  tg::GoldenFile f;
  f.cases = {small_mma()};
  const std::string good = d + "/good.json";
  EXPECT_EQ(tg::try_write_golden(good, f), "");
  const tcemu::Result<tg::GoldenFile> ok = tg::try_read_golden(good);
  ASSERT_TRUE(ok.ok()) << ok.error;
  EXPECT_EQ(ok.value.cases.size(), 1u);
}

TEST(ResultForms, ParseGolden) {
  const nlohmann::json doc = {{"format", "tcemu-golden"}, {"version", 1}, {"cases", {{{"name", "x"}, {"op", "nonsense"}}}}};
  same_error(tg::try_parse_golden(doc, ".", "doc.json"), [&] { tg::parse_golden(doc, ".", "doc.json"); });
  const nlohmann::json not_object = nlohmann::json::array();
  same_error(tg::try_parse_golden(not_object, ".", "doc.json"), [&] { tg::parse_golden(not_object, ".", "doc.json"); });
}

TEST(ResultForms, WriteGoldenAndNpy) {
  const std::string nowhere = tmpdir() + "/no/such/folder/out.json";
  tg::GoldenFile f;
  f.cases = {small_mma()};
  const std::string e = same_error_text(tg::try_write_golden(nowhere, f), [&] { tg::write_golden(nowhere, f); });
  cli_says("golden gen --arch sm_90a --instr mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 -o " + nowhere, e);
  const io::NpyArray a = io::make_npy("<f4", {2}, {0, 0});
  const std::string npy = tmpdir() + "/no/such/folder/a.npy";
  same_error_text(io::try_write_npy(npy, a), [&] { io::write_npy(npy, a); });
}

TEST(ResultForms, ReadNpyAndActual) {
  const std::string d = tmpdir();
  tg::GoldenFile f;
  f.cases = {small_mma()};
  const std::string exp = d + "/exp.json";
  ASSERT_EQ(tg::try_write_golden(exp, f), "");
  const tg::Case& c = f.cases[0];

  const std::string garbage = d + "/garbage.npy";
  write_text(garbage, "not an npy file at all");
  const std::string e1 = same_error(io::try_read_npy(garbage), [&] { io::read_npy(garbage); });
  // read_actual passes the reader's message on unchanged.
  const std::string e2 = same_error(tg::try_read_actual(garbage, c), [&] { tg::read_actual(garbage, c); });
  EXPECT_EQ(e1, e2);
  cli_says("compare " + exp + " " + garbage, e2);

  const std::string wrong = d + "/wrong.npy";
  io::write_npy(wrong, io::make_npy("<f4", {3}, {0, 0, 0}));
  const std::string e3 = same_error(tg::try_read_actual(wrong, c), [&] { tg::read_actual(wrong, c); });
  cli_says("compare " + exp + " " + wrong, e3);

  const std::string raw = d + "/short.bin";
  write_text(raw, "abc");
  const std::string e4 = same_error(tg::try_read_actual(raw, c), [&] { tg::read_actual(raw, c); });
  cli_says("compare " + exp + " " + raw, e4);

  // ActualSource: a golden ACTUAL that does not read, and one without the case.
  const std::string bad_golden = d + "/bad_actual.json";
  write_text(bad_golden, "[]");
  const std::string e5 =
      same_error(tg::ActualSource::try_open(bad_golden), [&] { tg::ActualSource s(bad_golden); });
  cli_says("compare " + exp + " " + bad_golden, e5);
  tg::GoldenFile other;
  other.cases = {small_mma()};
  other.cases[0].name = "other";
  const std::string other_path = d + "/other.json";
  ASSERT_EQ(tg::try_write_golden(other_path, other), "");
  tcemu::Result<tg::ActualSource> src = tg::ActualSource::try_open(other_path);
  ASSERT_TRUE(src.ok()) << src.error;
  const std::string e6 = same_error(src.value.try_read(c), [&] { src.value.read(c); });
  cli_says("compare " + exp + " " + other_path + " --case small", e6);

  // compare: an actual array of another shape.
  const tg::Array small = tg::make_array(c.expected.type, 1, 1, {0});
  same_error(tg::try_compare(c, small), [&] { tg::compare(c, small); });
}

TEST(ResultForms, Generate) {
  tg::MmaGenRequest m;
  m.arch = "sm_90a";
  m.ptx = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  m.M = 17;  // not a multiple of the tile's 16 rows
  same_error(tg::try_generate_mma(m), [&] { tg::generate_mma(m); });
  const std::vector<tg::MmaGenRequest> many = {m};
  same_error(tg::try_generate_mma_cases(many), [&] { tg::generate_mma_cases(many); });
  cli_says("golden gen --arch sm_90a --instr mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 -M 17 -o " + tmpdir() +
               "/g.json",
           tg::try_generate_mma(m).error);

  tg::GemmGenRequest g;
  g.mma.arch = "sm_90a";
  g.mma.ptx = m.ptx;
  g.mma.M = 17;
  same_error(tg::try_generate_gemm(g), [&] { tg::generate_gemm(g); });

  tg::ConvertGenRequest cv;
  cv.convention = "no-such-convention";
  const std::string ec = same_error(tg::try_generate_convert(cv), [&] { tg::generate_convert(cv); });
  cli_says("golden gen --from f32 --to e4m3 --convention no-such-convention -o " + tmpdir() + "/g.json", ec);

  tg::CvtGenRequest ct;
  ct.ptx = "cvt.no.such.thing";
  const std::string et = same_error(tg::try_generate_cvt(ct), [&] { tg::generate_cvt(ct); });
  cli_says("golden gen --cvt cvt.no.such.thing -o " + tmpdir() + "/g.json", et);

  tg::QuantizeGenRequest q;
  q.recipe = *tcemu::quant::find_recipe("mxfp8");
  q.rows = 0;
  same_error(tg::try_generate_quantize(q), [&] { tg::generate_quantize(q); });
}

TEST(ResultForms, QuantCases) {
  const nlohmann::json unknown = {{"name", "no-such-recipe"}};
  same_error(tg::try_parse_recipe_json(unknown, "recipe"), [&] { tg::parse_recipe_json(unknown, "recipe"); });
  const tcemu::quant::Recipe mx = *tcemu::quant::find_recipe("mxfp8");
  // NVFP4 with the 16-point Hadamard transform on 17 columns.
  tcemu::quant::Recipe rht = *tcemu::quant::find_recipe("nvfp4");
  rht.nvfp4.rht = true;
  same_error(tg::try_quant_shapes(rht, 1, 17), [&] { tg::quant_shapes(rht, 1, 17); });
  const tg::Array wide = tg::make_array(tg::elem_type(tcemu::Fmt::f32), 1, 17, std::vector<uint64_t>(17, 0));
  same_error(tg::try_make_quantize_case("q", rht, wide, {}, {}), [&] { tg::make_quantize_case("q", rht, wide, {}, {}); });
  const tg::Array x = tg::make_array(tg::elem_type(tcemu::Fmt::f32), 1, 32, std::vector<uint64_t>(32, 0));
  const auto good = tg::try_make_quantize_case("q", mx, x, {}, {});
  ASSERT_TRUE(good.ok()) << good.error;
  const auto ev = tg::try_evaluate_quantize(good.value);
  EXPECT_TRUE(ev.ok()) << ev.error;
}

TEST(ResultForms, CommittedIndex) {
  const std::string missing = tmpdir() + "/no_index.json";
  same_error(tg::try_read_committed_index(missing), [&] { tg::read_committed_index(missing); });
  const std::string bad = tmpdir() + "/bad_index.json";
  write_text(bad, R"({"entries": 3})");
  same_error(tg::try_read_committed_index(bad), [&] { tg::read_committed_index(bad); });
}

TEST(ResultForms, EvaluateGoodCase) {
  const tg::Case c = small_mma();
  const auto v = tg::try_evaluate(c);
  ASSERT_TRUE(v.ok()) << v.error;
  EXPECT_EQ(v.value.size(), 16u * 8u);
  const auto nr = tg::try_not_reproduced(c);
  ASSERT_TRUE(nr.ok()) << nr.error;
  EXPECT_TRUE(nr.value.empty());
}

}  // namespace
