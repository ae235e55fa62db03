// The MMA records measured on an NVIDIA H200 (golden/hw/h200/mma_record.tar.gz, format in
// docs/gpu.md) compared bit for bit with the emulator, every element of every tile.
//
// IN-SAMPLE. The findings these records led to (sm_90 f16 -> f16 e_zero -22, +0 for results
// that round to zero, the mma.sync FP8 lowering of docs/hw-h200.md) were fitted to these same
// 43 records. A pass shows that the catalog holds what was fitted and that nothing has
// regressed since; it is not evidence that the fit predicts other hardware runs. That
// out-of-sample evidence is elsewhere and named as such: the hw-vectors H100 E4M3/E5M2 -> f16
// rows and the B200 FP8 rows (tests/datapath/hw_vectors_test.cpp), measured by others and
// never used in the fit; new random runs on an H200 (tools/gpu/crossval.sh) are the next.
//
// Tests:
//  - H200RecordInSample.CatalogEntryReproducesEveryBit: the entry find_instruction() returns,
//    through the whole-matrix mma(), on every record; a record without an entry fails.
//  - H200Fp8LoweringInSample.PublicPiecesReproduceEveryBit: for the mma.sync FP8 records, the
//    lowering rebuilt from the library's public pieces (convert, fdpa_dot, an IEEE add), a
//    second derivation that does not use the catalog's parameters.
// A missing tarball or `tar` command fails: these records are evidence, not an option.
// Each test prints elements, mismatches and the first mismatches decoded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mma_record.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/mma.hpp"

namespace tcemu_test {
namespace {

using namespace tcemu;
namespace fs = std::filesystem;

const char* const kTarball = TCEMU_SOURCE_DIR "/golden/hw/h200/mma_record.tar.gz";

// ---- The records ----------------------------------------------------------------------------
// ctest runs every test in its own process, so each test extracts only the member it needs
// (tar decompresses the 8 MB archive in a fraction of a second); the listing test reads all.

// Why the records cannot be read ("" when they can): the tests fail, saying so.
const std::string& unreadable_reason() {
  static const std::string why = [] {
    if (!fs::exists(kTarball)) return std::string("record tarball absent: ") + kTarball;
    if (std::system("tar --version > /dev/null 2>&1") != 0)
      return std::string("the `tar` command is not available to extract ") + kTarball;
    return std::string();
  }();
  return why;
}

// Extracts `member` ("" = everything) into a fresh temporary directory and reads every record
// file found there. Errors go into the returned records' `error` or a single placeholder.
std::vector<MmaRecord> extract_and_read(const std::string& member) {
  std::vector<MmaRecord> out;
  std::string tmpl = (fs::temp_directory_path() / "tcemu_h200_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    out.emplace_back().error = "cannot create a temporary directory";
    return out;
  }
  const fs::path dir = tmpl;
  std::string cmd = std::string("tar -xzf '") + kTarball + "' -C '" + dir.string() + "'";
  if (!member.empty()) cmd += " '" + member + "'";
  cmd += " 2> /dev/null";
  if (std::system(cmd.c_str()) != 0) {
    out.emplace_back().error = "extraction failed: " + cmd;
    fs::remove_all(dir);
    return out;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) out.push_back(read_mma_record(f.string(), f.stem().string()));
  fs::remove_all(dir);
  return out;
}

const std::vector<MmaRecord>& all_records() {
  static const std::vector<MmaRecord> all = extract_and_read("");
  return all;
}

// One record, by file stem (the tarball holds mma/<stem>.txt).
MmaRecord one_record(const std::string& stem) {
  std::vector<MmaRecord> v = extract_and_read("mma/" + stem + ".txt");
  if (v.size() != 1 || v[0].stem != stem) {
    MmaRecord r;
    r.error = stem + " is not in " + kTarball;
    return r;
  }
  return v[0];
}

// ---- Models -------------------------------------------------------------------------------

enum class Model {
  catalog,            // the catalog entry, as is
  catalog_pos_zero,   // the catalog entry's parameters (e_zero possibly replaced), with
                      // a result that rounds to zero given as +0 (never -0)
  sm90_fp8_via_f16,   // mma.sync FP8 on sm_90: two chained f16 MMAs over interleaved
                      // k-pairs from +0, then C added by one IEEE add (see below)
};

struct Expectation {
  const char* stem;
  Model model;              // what was fitted (documentation; the catalog holds each finding)
  int e_zero = 0;           // the e_zero fitted where it is not the published one
};

// Every record of the tarball. The catalog took every finding on 2026-11-30, so each entry
// is asserted exact.
const Expectation kExpect[] = {
    // mma.sync f16/bf16 -> f32, tf32, s8: catalog reproduces every bit.
    {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", Model::catalog},
    {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", Model::catalog},
    {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", Model::catalog},
    {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", Model::catalog},
    {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", Model::catalog},
    {"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", Model::catalog},
    {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", Model::catalog},
    {"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", Model::catalog},
    {"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", Model::catalog},
    {"mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32", Model::catalog},
    // mma.sync f16 -> f16: catalog parameters, but tiny negative sums that round to zero
    // are +0 on the hardware (the catalog gives -0).
    {"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", Model::catalog_pos_zero},
    {"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", Model::catalog_pos_zero},
    // mma.sync FP8 on sm_90: not the wgmma datapath at all.
    {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", Model::sm90_fp8_via_f16},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", Model::sm90_fp8_via_f16},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", Model::sm90_fp8_via_f16},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", Model::sm90_fp8_via_f16},
    {"mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", Model::sm90_fp8_via_f16},
    {"mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", Model::sm90_fp8_via_f16},
    {"mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32", Model::sm90_fp8_via_f16},
    // wgmma f16/bf16/tf32 -> f32, FP8 -> f32 (C entered or not), s8: catalog exact.
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8_scale-d0", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8_scale-d1", Model::catalog},
    {"wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8_scale-d0", Model::catalog},
    // wgmma f16 -> f16: e_zero is not -133 (the e_zero tie probe gives 0, so e_zero >= -22;
    // every record fits -22 .. -15) and results that round to zero are +0.
    {"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16_scale-d1", Model::catalog_pos_zero, -22},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16_scale-d0", Model::catalog_pos_zero, -22},
    // wgmma FP8 -> f16: catalog parameters; only the sign of zero differs (e5m2 records; the
    // e4m3 records happen to hold no underflowing negative sum, so the catalog is exact there).
    {"wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3_scale-d1", Model::catalog_pos_zero},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3_scale-d0", Model::catalog_pos_zero},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2_scale-d1", Model::catalog_pos_zero},
    {"wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2_scale-d0", Model::catalog_pos_zero},
};

const Expectation* expectation(const std::string& stem) {
  for (const Expectation& e : kExpect)
    if (stem == e.stem) return &e;
  return nullptr;
}

InstrLookup lookup(const MmaRecord& r) {
  const bool wg = r.instruction.rfind("wgmma", 0) == 0;
  return find_instruction(wg ? "sm_90a" : "sm_90", r.instruction);
}

MmaProblem problem(const MmaRecord& r, const MmaTile& t) {
  MmaProblem p;
  p.M = r.M;
  p.N = r.N;
  p.K = r.K;
  p.atype = *parse_format(r.fa);
  p.btype = *parse_format(r.fb);
  p.A = t.A;
  p.B = t.B;
  p.C = t.C;
  return p;
}

// IEEE addition of two f16 codes rounding to nearest even (HADD): NaN in -> canonical NaN,
// Inf - Inf -> NaN, an exact zero sum is +0 unless both are -0.
uint64_t f16_add_rne(uint64_t x, uint64_t y) {
  const Operand a = decode_operand(Fmt::f16, x), b = decode_operand(Fmt::f16, y);
  if (a.special == 2 || b.special == 2) return 0x7fff;
  if (a.special == 1 && b.special == 1) return a.neg == b.neg ? (a.neg ? 0xfc00 : 0x7c00) : 0x7fff;
  if (a.special == 1 || b.special == 1) return (a.special ? a.neg : b.neg) ? 0xfc00 : 0x7c00;
  if (a.sig == 0 && b.sig == 0) return (a.neg && b.neg) ? 0x8000 : 0;
  const int lo = std::min(a.sig ? a.low : 1000, b.sig ? b.low : 1000);
  const int64_t va = a.sig ? (int64_t{a.sig} << (a.low - lo)) * (a.neg ? -1 : 1) : 0;
  const int64_t vb = b.sig ? (int64_t{b.sig} << (b.low - lo)) * (b.neg ? -1 : 1) : 0;
  const int64_t s = va + vb;
  if (s == 0) return 0;
  return round_to_float(s < 0, static_cast<uint64_t>(s < 0 ? -s : s), lo, false, Fmt::f16, true);
}

// mma.sync e4m3/e5m2 (m16n8k32 and m16n8k16) on sm_90, as the H200 computes it: the FP8
// operands are widened to f16 (exactly; alignment exponents are then those of f16 values,
// which differs from FP8 for e4m3 subnormals), the K products are split into two halves by
// k-pairs, {k : (k/2) even} then {k : (k/2) odd}, each half is one T-FDPA step of the sm_90
// f16 datapath (K/2 terms, F = 25; f32: RZ, e_zero -133; f16: RNE, e_zero -22), chained
// from +0, and C is added last by an IEEE add rounding to nearest even (f32 or f16).
// In short: what a lowering to two HMMAs plus one FADD/HADD computes.
uint64_t sm90_fp8_element(const MmaRecord& r, const MmaTile& t, int m, int n, bool f16_out) {
  const Fmt fa = *parse_format(r.fa), fb = *parse_format(r.fb);
  std::vector<uint64_t> a, b;
  for (int half = 0; half < 2; ++half)
    for (int k = 0; k < r.K; ++k)
      if ((k / 2) % 2 == half) {
        a.push_back(convert(fa, Fmt::f16, t.A[static_cast<size_t>(m * r.K + k)], {}).code);
        b.push_back(convert(fb, Fmt::f16, t.B[static_cast<size_t>(k * r.N + n)], {}).code);
      }
  DatapathParams p;
  p.L = r.K / 2;
  p.F = 25;
  p.e_zero = f16_out ? -22 : -133;
  p.rounding = f16_out ? OutputRounding::rne_f16 : OutputRounding::rz_f32;
  const uint64_t prods = fdpa_dot(p, Fmt::f16, Fmt::f16, a, b, 0);
  const uint64_t c = t.C[static_cast<size_t>(m * r.N + n)];
  return f16_out ? f16_add_rne(prods, c) : f32_add_rne(static_cast<uint32_t>(prods), static_cast<uint32_t>(c));
}

// ---- Comparison ---------------------------------------------------------------------------

struct Tally {
  size_t elements = 0, mismatches = 0;
  std::string first;  // the first mismatches, decoded
  std::string error;
};

double value_of(const std::string& fmt, uint64_t code) {
  if (fmt == "s32") return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(code)));
  const Decoded d = decode(*parse_format(fmt), code);
  if (d.cls == Class::nan) return NAN;
  if (d.cls == Class::inf) return d.sign ? -INFINITY : INFINITY;
  const double v = std::ldexp(static_cast<double>(d.sig), d.exp);
  return d.sign ? -v : v;
}

void note_mismatch(Tally& t, const MmaRecord& r, const MmaTile& tile, size_t i, uint64_t model) {
  ++t.mismatches;
  if (t.mismatches > 6) return;
  char buf[400];
  const int w = r.fd == "f16" ? 4 : 8;
  std::snprintf(buf, sizeof buf, "  tile %d (%s) D[%zu][%zu]: C=%0*llx (%a) hw=%0*llx (%a) model=%0*llx (%a)\n", tile.index,
                tile.label.c_str(), i / static_cast<size_t>(r.N), i % static_cast<size_t>(r.N), w,
                static_cast<unsigned long long>(tile.C[i]), value_of(r.fc, tile.C[i]), w,
                static_cast<unsigned long long>(tile.D[i]), value_of(r.fd, tile.D[i]), w,
                static_cast<unsigned long long>(model), value_of(r.fd, model));
  t.first += buf;
}

// The catalog entry (or, with `override`, its parameters with that e_zero) on every tile;
// `pos_zero` turns a -0 result into +0.
Tally run_catalog(const MmaRecord& r, const InstrEntry& e, bool pos_zero, int e_zero_override) {
  Tally t;
  MmaOptions opt;
  opt.scale_d = r.scale_d;
  DatapathParams p = e.params;
  if (e_zero_override != 0) p.e_zero = e_zero_override;
  const uint64_t neg_zero = r.fd == "f16" ? 0x8000 : 0x80000000;
  for (const MmaTile& tile : r.tiles) {
    const MmaResult res = e_zero_override != 0 ? mma(problem(r, tile).with({p, e.K}, opt), Exec{1}) : mma(problem(r, tile).with(e, opt), Exec{1});
    if (!res.error.empty()) {
      t.error = "tile " + std::to_string(tile.index) + ": " + res.error;
      return t;
    }
    for (size_t i = 0; i < res.D.size(); ++i) {
      uint64_t d = res.D[i];
      if (pos_zero && r.fd != "s32" && d == neg_zero) d = 0;
      ++t.elements;
      if (d != tile.D[i]) note_mismatch(t, r, tile, i, d);
    }
  }
  return t;
}

Tally run_sm90_fp8(const MmaRecord& r) {
  Tally t;
  const bool f16_out = r.fd == "f16";
  for (const MmaTile& tile : r.tiles)
    for (int m = 0; m < r.M; ++m)
      for (int n = 0; n < r.N; ++n) {
        const uint64_t d = sm90_fp8_element(r, tile, m, n, f16_out);
        const size_t i = static_cast<size_t>(m * r.N + n);
        ++t.elements;
        if (d != tile.D[i]) note_mismatch(t, r, tile, i, d);
      }
  return t;
}

std::string report(const std::string& what, const MmaRecord& r, const Tally& t) {
  std::ostringstream o;
  o << what << " " << r.instruction << (r.instruction.rfind("wgmma", 0) == 0 ? (r.scale_d ? " scale-d 1" : " scale-d 0") : "")
    << ": " << t.elements << " elements, " << t.mismatches << " mismatches";
  if (t.elements) o << " (match " << 100.0 * static_cast<double>(t.elements - t.mismatches) / static_cast<double>(t.elements) << "%)";
  o << "\n" << t.first;
  return o.str();
}

// ---- Tests --------------------------------------------------------------------------------

TEST(H200MmaRecords, EveryRecordIsValidAndExpected) {
  ASSERT_TRUE(unreadable_reason().empty()) << unreadable_reason();
  const std::vector<MmaRecord>& all = all_records();
  EXPECT_EQ(all.size(), std::size(kExpect)) << "records in the tarball vs expectations in this test";
  for (const MmaRecord& r : all) {
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.valid) << r.stem << " is not marked VALID";
    EXPECT_FALSE(r.tiles.empty()) << r.stem;
    EXPECT_EQ(r.device.rfind("NVIDIA H200", 0), 0u) << r.stem << ": device " << r.device;
    EXPECT_NE(expectation(r.stem), nullptr) << r.stem << " has no expectation in this test: add one";
  }
  for (const Expectation& e : kExpect) {
    const bool found = std::any_of(all.begin(), all.end(), [&](const MmaRecord& r) { return r.stem == e.stem; });
    EXPECT_TRUE(found) << e.stem << " is not in the tarball";
  }
}

class H200RecordInSample : public ::testing::TestWithParam<Expectation> {};

TEST_P(H200RecordInSample, CatalogEntryReproducesEveryBit) {
  ASSERT_TRUE(unreadable_reason().empty()) << unreadable_reason();
  const MmaRecord r = one_record(GetParam().stem);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const InstrLookup lk = lookup(r);
  ASSERT_NE(lk.entry, nullptr) << "no catalog entry for " << r.instruction << ": " << lk.error;
  const Tally t = run_catalog(r, *lk.entry, false, 0);
  ASSERT_TRUE(t.error.empty()) << t.error;
  const std::string rep = report("catalog (" + describe(lk.entry->params) + "):", r, t);
  std::printf("%s", rep.c_str());
  RecordProperty("elements", static_cast<int>(t.elements));
  RecordProperty("mismatches", static_cast<int>(t.mismatches));
  EXPECT_GT(t.elements, 0u);
  EXPECT_EQ(t.mismatches, 0u) << rep;
}

class H200Fp8LoweringInSample : public ::testing::TestWithParam<Expectation> {};

TEST_P(H200Fp8LoweringInSample, PublicPiecesReproduceEveryBit) {
  ASSERT_TRUE(unreadable_reason().empty()) << unreadable_reason();
  const MmaRecord r = one_record(GetParam().stem);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Tally t = run_sm90_fp8(r);
  ASSERT_TRUE(t.error.empty()) << t.error;
  const std::string rep = report("FP8 lowering from public pieces:", r, t);
  std::printf("%s", rep.c_str());
  EXPECT_GT(t.elements, 0u);
  EXPECT_EQ(t.mismatches, 0u) << rep;
}

std::vector<Expectation> fp8_lowering_records() {
  std::vector<Expectation> v;
  for (const Expectation& e : kExpect)
    if (e.model == Model::sm90_fp8_via_f16) v.push_back(e);
  return v;
}

std::string param_name(const ::testing::TestParamInfo<Expectation>& info) {
  std::string n = info.param.stem;
  for (const char* pre : {"mma.sync.aligned.", "wgmma.mma_async.sync.aligned."})
    if (n.rfind(pre, 0) == 0) n = std::string(pre[0] == 'm' ? "mma_" : "wgmma_") + n.substr(std::string(pre).size());
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(H200, H200RecordInSample, ::testing::ValuesIn(kExpect), param_name);
INSTANTIATE_TEST_SUITE_P(H200, H200Fp8LoweringInSample, ::testing::ValuesIn(fp8_lowering_records()), param_name);

}  // namespace
}  // namespace tcemu_test
