// `tcemu mma` on the user's operands: committed golden cases (golden/sets/, checked against the
// reference by the committed-set test) written out as .npy operands in their storage order,
// run through `tcemu mma`, and D compared with the case's expected D bit for bit, for every
// datapath family (T-FDPA, ST-FDPA and GST-FDPA block-scaled, integer, the generic loop's
// widened FP8) and 1 or 3 threads; --from-values against the same operands as codes; --values;
// and bad input: exit status 2 with a message naming the problem.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "tcemu/convert.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::golden {
namespace {

struct CliRun {
  std::string out;
  int status = -1;
};

CliRun tcemu(const std::string& args) {
  const std::string cmd = std::string(TCEMU_CLI) + " " + args + " 2>&1 < /dev/null";
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

std::filesystem::path work_dir() {
  const auto d = std::filesystem::temp_directory_path() / ("tcemu_mma_cli_" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

// The array as a .npy in its storage order (what a kernel's buffer holds).
void write_storage(const Array& a, const std::string& path) {
  std::vector<uint64_t> codes(a.storage_count());
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = a.at_storage(i);
  const size_t outer = a.col_major ? a.cols : a.rows;
  io::write_npy(path, io::make_npy(npy_descr(a.type), {outer, a.lead()}, codes));
}

std::string q(const std::string& s) { return "'" + s + "'"; }

// The `tcemu mma` arguments for a case, its operands written under dir.
std::string args_for(const Case& c, const std::filesystem::path& dir) {
  const MmaSpec& m = c.mma;
  const InstrEntry& e = *m.entry;
  std::string args = "mma --arch " + m.arch + " --instr " + q(m.ptx) + " --atype " + std::string(info(e.atype).name) +
                     " --btype " + std::string(info(e.btype).name) + " --dtype " + std::string(to_string(e.dtype));
  if (e.scale_type) args += " --stype " + std::string(info(*e.scale_type).name);
  for (const char* name : {"A", "B", "C"}) {
    auto it = c.operands.find(name);
    if (it == c.operands.end()) continue;
    const std::string path = (dir / (std::string(name) + ".npy")).string();
    write_storage(it->second, path);
    args += " " + path;
    args += std::string(" --order-") + static_cast<char>(std::tolower(name[0])) + (it->second.col_major ? " col" : " row");
  }
  if (e.scale_type) {
    write_storage(c.operands.at("scale_A"), (dir / "sa.npy").string());
    write_storage(c.operands.at("scale_B"), (dir / "sb.npy").string());
    args += " --scale-a " + (dir / "sa.npy").string() + " --scale-b " + (dir / "sb.npy").string();
  }
  const MmaOptions& o = m.options;
  if (o.promote_every) args += " --promote-every " + std::to_string(o.promote_every);
  if (o.negate_a) args += " --negate-a";
  if (o.negate_b) args += " --negate-b";
  if (!o.scale_d) args += " --no-scale-d";
  if (o.scale_input_d >= 0) args += " --scale-input-d " + std::to_string(o.scale_input_d);
  args += std::string(" --order-d ") + (c.expected.col_major ? "col" : "row");
  return args + " -o " + (dir / "D.npy").string();
}

std::vector<uint64_t> storage(const Array& a) {
  std::vector<uint64_t> v(a.storage_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = a.at_storage(i);
  return v;
}

std::vector<uint64_t> npy_codes(const std::string& path) {
  const io::NpyArray a = io::read_npy(path);
  std::vector<uint64_t> v(a.count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = a.bits(i);
  return v;
}

TEST(MmaCli, CommittedGoldenCasesBitForBit) {
  const auto sets = std::filesystem::path(TCEMU_SOURCE_DIR) / "golden" / "sets";
  const auto dir = work_dir();
  int checked = 0;
  for (const char* file : {"wgmma_f16.json", "wgmma_tf32.json", "tcgen05_kind-mxf8f6f4.json", "tcgen05_kind-mxf4nvf4.json",
                           "tcgen05_kind-f8f6f4.json", "wgmma_s8-u8.json", "mma.sync_e4m3-e5m2.json"}) {
    const GoldenFile f = read_golden((sets / file).string());
    ASSERT_FALSE(f.cases.empty()) << file;
    // The first cases (mixed distributions) and the last (a pure one: specials, edges, ...).
    for (size_t i : {size_t{0}, size_t{1}, f.cases.size() - 1}) {
      const Case& c = f.cases[i];
      ASSERT_EQ(c.op, OpKind::mma);
      ASSERT_TRUE(c.expected.ld == 0 || c.expected.ld == (c.expected.col_major ? c.expected.rows : c.expected.cols));
      const std::string threads = i == 1 ? " --threads 3" : " --threads 1";
      const CliRun r = tcemu(args_for(c, dir) + threads + " --quiet");
      ASSERT_EQ(r.status, 0) << file << " " << c.name << ": " << r.out;
      EXPECT_EQ(npy_codes((dir / "D.npy").string()), storage(c.expected)) << file << " " << c.name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 21);
  std::filesystem::remove_all(dir);
}

// tf32 operands with any of their low 13 bits set compute as the cleared codes (the tensor
// core reads bits & 0xFFFFE000): committed wgmma tf32 cases (checked against the reference by
// the committed-set test) with the low bits of A and B replaced by random ones give the expected D bit for
// bit through the golden evaluator, through a golden file written and read back (`tcemu
// golden check` reproduces it), and through `tcemu mma` on .npy operands.
TEST(MmaCli, Tf32LowContainerBitsAreIgnored) {
  const auto sets = std::filesystem::path(TCEMU_SOURCE_DIR) / "golden" / "sets";
  const auto dir = work_dir();
  GoldenFile f = read_golden((sets / "wgmma_tf32.json").string());
  ASSERT_GE(f.cases.size(), 2u);
  GoldenFile dirty_file = f;
  dirty_file.cases.clear();
  uint64_t x = 99;
  size_t dirtied = 0;
  for (size_t i : {size_t{0}, size_t{1}, f.cases.size() - 1}) {
    Case c = f.cases[i];
    for (const char* name : {"A", "B"}) {
      Array& a = c.operands.at(name);
      ASSERT_EQ(a.type.name, "tf32");
      for (size_t r = 0; r < a.rows; ++r)
        for (size_t k = 0; k < a.cols; ++k) {
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          const uint64_t low = 1 + (x >> 33) % 0x1FFF;
          if ((a.at(r, k) & 0x1FFF) == low) continue;  // already these bits (the "bits" case draws them)
          a.set(r, k, (a.at(r, k) & 0xFFFFE000u) | low);
          ++dirtied;
        }
    }
    EXPECT_EQ(evaluate(c), c.expected.logical()) << c.name;
    const CliRun r = tcemu(args_for(c, dir) + " --threads 2 --quiet");
    ASSERT_EQ(r.status, 0) << c.name << ": " << r.out;
    EXPECT_EQ(npy_codes((dir / "D.npy").string()), storage(c.expected)) << c.name;
    dirty_file.cases.push_back(std::move(c));
  }
  const std::string path = (dir / "dirty_tf32.json").string();
  write_golden(path, dirty_file, 0);
  const GoldenFile back = read_golden(path);
  ASSERT_EQ(back.cases.size(), 3u);
  EXPECT_EQ(back.cases[0].operands.at("A").raw, dirty_file.cases[0].operands.at("A").raw);  // read as written
  const CliRun check = tcemu("golden check " + path);
  EXPECT_EQ(check.status, 0) << check.out;
  EXPECT_NE(check.out.find("3 cases, 0 not reproduced"), std::string::npos) << check.out;
  EXPECT_GT(dirtied, 1000u);
  std::filesystem::remove_all(dir);
}

// --from-values: f32 values converted under the convention (ptx: rn satfinite for FP8) give the
// D of the converted codes; the side file records the conversion; --values writes D's values.
TEST(MmaCli, FromValuesEqualsConvertedCodesAndValuesFile) {
  const auto dir = work_dir();
  const size_t M = 70, N = 24, K = 64;
  std::vector<uint64_t> av(M * K), bv(N * K);  // f32 bit patterns; B stored N x K (col order)
  uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const float v = static_cast<float>(static_cast<int64_t>(x >> 40) - (1 << 23)) / static_cast<float>(1 << 20);
    return static_cast<uint64_t>(std::bit_cast<uint32_t>(v));
  };
  for (uint64_t& v : av) v = next();
  for (uint64_t& v : bv) v = next();
  io::write_npy((dir / "Av.npy").string(), io::make_npy("<f4", {M, K}, av));
  io::write_npy((dir / "Bv.npy").string(), io::make_npy("<f4", {N, K}, bv));
  ConvertOptions o;
  o.round = Round::rn;
  o.satfinite = true;  // the ptx convention's FP8 conversion: cvt.rn.satfinite
  std::vector<uint64_t> ac(av.size()), bc(bv.size());
  for (size_t i = 0; i < av.size(); ++i) ac[i] = convert(Fmt::f32, Fmt::e4m3, av[i], o).code;
  for (size_t i = 0; i < bv.size(); ++i) bc[i] = convert(Fmt::f32, Fmt::e4m3, bv[i], o).code;
  io::write_npy((dir / "Ac.npy").string(), io::make_npy("|u1", {M, K}, ac));
  io::write_npy((dir / "Bc.npy").string(), io::make_npy("|u1", {N, K}, bc));
  const std::string base = "mma --arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 --quiet ";
  const CliRun codes = tcemu(base + (dir / "Ac.npy").string() + " " + (dir / "Bc.npy").string() + " -o " + (dir / "Dc.npy").string());
  ASSERT_EQ(codes.status, 0) << codes.out;
  const CliRun values = tcemu(base + "--from-values --convention ptx --round rn --values " + (dir / "Av.npy").string() + " " +
                              (dir / "Bv.npy").string() + " -o " + (dir / "Dv.npy").string());
  ASSERT_EQ(values.status, 0) << values.out;
  const std::vector<uint64_t> d = npy_codes((dir / "Dc.npy").string());
  EXPECT_EQ(npy_codes((dir / "Dv.npy").string()), d);
  EXPECT_EQ(npy_codes((dir / "Dv.values.npy").string()), d);  // f32 codes are their values
  std::ifstream js(dir / "Dv.json");
  const nlohmann::json side = nlohmann::json::parse(js);
  EXPECT_EQ(side.at("operands_as"), "values");
  EXPECT_EQ(side.at("conversion").at("convention"), "ptx");
  EXPECT_EQ(side.at("conversion").at("operands").at("A").at("round"), "rn");
  EXPECT_EQ(side.at("shape").at("M"), M);
  std::filesystem::remove_all(dir);
}

// The progress bar: on stderr when it is a terminal (`script` gives the command one), nothing
// when it is not, nothing with --quiet.
TEST(MmaCli, ProgressBarOnlyOnATerminal) {
  const auto dir = work_dir();
  const std::string a = (dir / "A.npy").string(), b = (dir / "B.npy").string(), d = (dir / "D.npy").string();
  io::write_npy(a, io::make_npy("|u1", {256, 64}, std::vector<uint64_t>(256 * 64, 0x38)));
  io::write_npy(b, io::make_npy("|u1", {64, 64}, std::vector<uint64_t>(64 * 64, 0x38)));
  const std::string cmd = std::string(TCEMU_CLI) + " mma --arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 " +
                          a + " " + b + " --order-b col -o " + d;
  const std::string err = (dir / "err.txt").string();
  ASSERT_EQ(tcemu("mma --help > /dev/null; " + cmd + " 2> " + err + " > /dev/null").status, 0);
  std::ifstream e(err);
  const std::string stderr_text((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  EXPECT_EQ(stderr_text, "");  // not a terminal: no bar
  const CliRun tty = tcemu("mma --help > /dev/null; script -qec \"" + cmd + "\" /dev/null");
  EXPECT_EQ(tty.status, 0) << tty.out;
  EXPECT_NE(tty.out.find("MAC/s"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("100%"), std::string::npos) << tty.out;
  const CliRun quiet = tcemu("mma --help > /dev/null; script -qec \"" + cmd + " --quiet\" /dev/null");
  EXPECT_EQ(quiet.status, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("MAC/s"), std::string::npos) << quiet.out;
  std::filesystem::remove_all(dir);
}

TEST(MmaCli, BadInputExitsTwoNamingTheProblem) {
  const auto dir = work_dir();
  const std::string a = (dir / "A.npy").string(), b = (dir / "B.npy").string(), d = (dir / "D.npy").string();
  io::write_npy(a, io::make_npy("|u1", {64, 32}, std::vector<uint64_t>(64 * 32, 0x38)));
  io::write_npy(b, io::make_npy("|u1", {8, 32}, std::vector<uint64_t>(8 * 32, 0x38)));
  const std::string e4m3 = "mma --arch sm_90a --instr wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 ";
  ASSERT_EQ(tcemu(e4m3 + a + " " + b + " -o " + d).status, 0);
  struct Bad {
    std::string args, says;
  };
  const std::string f32 = (dir / "f.npy").string(), kbad = (dir / "k.npy").string(), fp4 = (dir / "fp4.npy").string();
  io::write_npy(f32, io::make_npy("<f4", {64, 32}, std::vector<uint64_t>(64 * 32, 0)));
  io::write_npy(kbad, io::make_npy("|u1", {8, 48}, std::vector<uint64_t>(8 * 48, 0)));
  const std::string sq = (dir / "sq.npy").string(), kxn = (dir / "kxn.npy").string();
  io::write_npy(sq, io::make_npy("|u1", {32, 32}, std::vector<uint64_t>(32 * 32, 0x38)));
  io::write_npy(kxn, io::make_npy("|u1", {32, 8}, std::vector<uint64_t>(32 * 8, 0x38)));
  io::write_npy(fp4, io::make_npy("|u1", {128, 64}, std::vector<uint64_t>(128 * 64, 0x1F)));
  std::ofstream(dir / "junk.npy") << "not a numpy file";
  const Bad bad[] = {
      {e4m3 + (dir / "none.npy").string() + " " + b + " -o " + d, "none.npy"},
      {e4m3 + (dir / "junk.npy").string() + " " + b + " -o " + d, "junk.npy"},
      {e4m3 + f32 + " " + b + " -o " + d, "--from-values"},
      {e4m3 + a + " " + kbad + " -o " + d, "K differ"},
      {e4m3 + a + " " + sq + " -o " + d, "B is square (32 x 32), so its shape cannot say how it is stored"},
      {e4m3 + a + " " + kxn + " -o " + d, "stored K x N, as NumPy's a @ b? then give --order-b row"},
      {e4m3 + "--from-values " + a + " " + b + " -o " + d, "--from-values reads"},
      {e4m3 + "--round rz " + a + " " + b + " -o " + d, "--from-values only"},
      {e4m3 + "--no-scale-d " + a + " " + b + " " + a + " -o " + d, "--no-scale-d"},
      {"mma --arch sm_90a --instr wgmma.nothing " + a + " " + b + " -o " + d, "wgmma.nothing"},
      {"mma --arch sm_100a --instr 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X' --stype ue4m3 " +
           fp4 + " " + fp4 + " -o " + d,
       "--scale-a"},
      {"mma --arch sm_100a --instr 'tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X' --stype ue4m3 " +
           fp4 + " " + fp4 + " --scale-a " + a + " --scale-b " + a + " -o " + d,
       "not a e2m1 code"},
      {e4m3 + "--threads 0 " + a + " " + b + " -o " + d, "--threads"},
      {"mma --arch sm_90a " + a + " " + b + " -o " + d, "--instr"},
  };
  for (const Bad& x : bad) {
    const CliRun r = tcemu(x.args);
    EXPECT_EQ(r.status, 2) << x.args << "\n" << r.out;
    EXPECT_NE(r.out.find(x.says), std::string::npos) << x.args << "\n" << r.out;
  }
  const CliRun env = tcemu("mma --help > /dev/null; TCEMU_NUM_THREADS=many " + std::string(TCEMU_CLI) + " " + e4m3 + a + " " +
                           b + " -o " + d);
  EXPECT_EQ(env.status, 2) << env.out;
  EXPECT_NE(env.out.find("TCEMU_NUM_THREADS"), std::string::npos) << env.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tcemu::golden
