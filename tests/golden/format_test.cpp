// The golden file format: lossless round trips through JSON (hex) and .npy, and every reading
// error, each with a message that names the field.
#include <gtest/gtest.h>

#include "golden_test_support.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::golden {
namespace {

using test::TempDir;
using nlohmann::json;

// A file with one case of each operation, with column-major and padded layouts.
GoldenFile sample_file() {
  GoldenFile f;
  f.description = "round trip";
  MmaGenRequest q = test::mma_request("sm_90", test::kF16, Dist::specials);
  q.M = 32;
  q.N = 16;
  q.K = 32;
  q.a_col = true;
  q.d_col = true;
  f.cases.push_back(generate_mma(q));
  MmaGenRequest s = test::mma_request("sm_120a", test::kMxf8, Dist::wide);
  f.cases.push_back(generate_mma(s));
  ConvertGenRequest c;
  c.from = Fmt::f32;
  c.to = Fmt::e2m3;
  c.count = 40;
  f.cases.push_back(generate_convert(c));
  CvtGenRequest v;
  v.ptx = "cvt.rn.satfinite.e4m3x2.f32";
  v.count = 24;
  f.cases.push_back(generate_cvt(v));
  return f;
}

void expect_same(const GoldenFile& a, const GoldenFile& b) {
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (size_t i = 0; i < a.cases.size(); ++i) {
    const Case& x = a.cases[i];
    const Case& y = b.cases[i];
    EXPECT_EQ(x.name, y.name);
    ASSERT_EQ(x.operands.size(), y.operands.size());
    for (const auto& [name, arr] : x.operands) {
      const Array& o = y.operands.at(name);
      EXPECT_EQ(arr.type.name, o.type.name) << name;
      EXPECT_EQ(arr.rows, o.rows) << name;
      EXPECT_EQ(arr.cols, o.cols) << name;
      EXPECT_EQ(arr.col_major, o.col_major) << name;
      EXPECT_EQ(arr.raw, o.raw) << x.name << " " << name;
    }
    EXPECT_EQ(x.expected.raw, y.expected.raw) << x.name;
    EXPECT_EQ(x.expected.col_major, y.expected.col_major);
  }
  // And the documents are the same (modulo where the arrays live).
  json ja = to_json(a), jb = to_json(b);
  for (json* j : {&ja, &jb})
    for (json& c : (*j)["cases"]) {
      for (auto& [k, v] : c["operands"].items()) v.erase("npy"), v.erase("hex");
      for (auto& [k, v] : c["expected"].items()) v.erase("npy"), v.erase("hex");
    }
  EXPECT_EQ(ja, jb);
}

TEST(GoldenFormat, HexRoundTripIsLossless) {
  TempDir d("hex");
  GoldenFile f = sample_file();
  write_golden(d.file("f.json"), f, 0);
  GoldenFile g = read_golden(d.file("f.json"));
  expect_same(f, g);
  // Writing what was read gives the same bytes.
  write_golden(d.file("g.json"), g, 0);
  EXPECT_EQ(test::slurp(d.file("f.json")), test::slurp(d.file("g.json")));
}

TEST(GoldenFormat, NpyRoundTripIsLossless) {
  TempDir d("npy");
  GoldenFile f = sample_file();
  write_golden(d.file("f.json"), f, 1);  // every array of more than one element in a .npy
  const json doc = json::parse(test::slurp(d.file("f.json")));
  const json& A = doc["cases"][0]["operands"]["A"];
  ASSERT_TRUE(A.contains("npy"));
  EXPECT_FALSE(A.contains("hex"));
  // The .npy holds the storage: A is column-major, so [K, M] of f16 ("<f2").
  io::NpyArray n = io::read_npy(d.file(A["npy"].get<std::string>()));
  EXPECT_EQ(n.descr, "<f2");
  EXPECT_EQ(n.shape, (std::vector<size_t>{32, 32}));
  GoldenFile g = read_golden(d.file("f.json"));
  expect_same(f, g);
  EXPECT_EQ(g.cases[0].operands.at("A").npy, A["npy"].get<std::string>());
}

TEST(GoldenFormat, LayoutsMapLogicalElements) {
  // A 2 x 3 matrix stored column-major with ld 4: element (r, c) at c*4 + r.
  Array a = make_array(elem_type(Fmt::f16), 2, 3, {1, 2, 3, 4, 5, 6}, true);
  EXPECT_EQ(a.at(1, 2), 6u);
  EXPECT_EQ(a.at_storage(5), 6u);  // (1, 2) -> 2*2 + 1
  EXPECT_EQ(to_hex_string(a), "000100040002000500030006");
  EXPECT_EQ(a.logical(), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
}

// ---- reading errors ----------------------------------------------------------------------

json valid_doc() { return to_json(sample_file()); }

// Parses a document and returns the error message ("" when it was accepted).
std::string error_of(const json& doc, const std::string& dir = ".") {
  try {
    parse_golden(doc, dir, "t.json");
  } catch (const GoldenError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REJECTED(doc, field, words)                                       \
  do {                                                                           \
    const std::string msg_ = error_of(doc);                                      \
    EXPECT_NE(msg_.find(field), std::string::npos) << "message: " << msg_;      \
    EXPECT_NE(msg_.find(words), std::string::npos) << "message: " << msg_;      \
  } while (0)

TEST(GoldenReadErrors, ValidDocumentIsAccepted) { EXPECT_EQ(error_of(valid_doc()), ""); }

TEST(GoldenReadErrors, UnknownVersion) {
  json d = valid_doc();
  d["version"] = 2;
  EXPECT_REJECTED(d, "t.json.version", "unknown version 2");
  d["version"] = "1";
  EXPECT_REJECTED(d, "t.json.version", "must be an integer");
  d.erase("version");
  EXPECT_REJECTED(d, "t.json.version", "missing");
}

TEST(GoldenReadErrors, FormatAndStructure) {
  json d = valid_doc();
  d["format"] = "something-else";
  EXPECT_REJECTED(d, "t.json.format", "tcemu-golden");
  d = valid_doc();
  d["cases"] = json::array();
  EXPECT_REJECTED(d, "t.json.cases", "non-empty");
  d = valid_doc();
  d["extra"] = 1;
  EXPECT_REJECTED(d, "t.json.extra", "unknown field");
  d = valid_doc();
  d["cases"][0]["oprands"] = json::object();
  EXPECT_REJECTED(d, "cases[0].oprands", "unknown field");
  d = valid_doc();
  d["cases"][0]["op"] = "gemv";
  EXPECT_REJECTED(d, "cases[0].op", "must be mma, convert or cvt");
  d = valid_doc();
  d["cases"][1]["name"] = d["cases"][0]["name"];
  EXPECT_REJECTED(d, "cases[1].name", "duplicate");
  EXPECT_NE(error_of(json::array()).find("must be a JSON object"), std::string::npos);
}

TEST(GoldenReadErrors, WrongLengths) {
  json d = valid_doc();
  std::string h = d["cases"][0]["operands"]["A"]["hex"];
  d["cases"][0]["operands"]["A"]["hex"] = h.substr(1);
  EXPECT_REJECTED(d, "cases[0].operands.A.hex", "expected " + std::to_string(h.size()));
  d = valid_doc();
  h = d["cases"][0]["expected"]["D"]["hex"];
  d["cases"][0]["expected"]["D"]["hex"] = h + "00000000";
  EXPECT_REJECTED(d, "cases[0].expected.D.hex", "hex digits, expected");
  d = valid_doc();
  h = d["cases"][0]["operands"]["B"]["hex"];
  h[3] = 'g';
  d["cases"][0]["operands"]["B"]["hex"] = h;
  EXPECT_REJECTED(d, "cases[0].operands.B.hex", "not a hex digit");
}

TEST(GoldenReadErrors, ShapesAndTypesMustMatchTheInstruction) {
  json d = valid_doc();
  d["cases"][0]["operands"]["A"]["shape"] = {32, 31};  // column-major: 31 columns of 32
  d["cases"][0]["operands"]["A"]["hex"] = d["cases"][0]["operands"]["A"]["hex"].get<std::string>().substr(0, 31 * 32 * 4);
  EXPECT_REJECTED(d, "cases[0].operands.A.shape", "A (M x K) is 32 x 32");
  d = valid_doc();
  d["cases"][0]["operands"]["B"]["type"] = "bf16";
  EXPECT_REJECTED(d, "cases[0].operands.B.type", "needs f16");
  d = valid_doc();
  d["cases"][0]["operands"]["C"]["type"] = "e9m9";
  EXPECT_REJECTED(d, "cases[0].operands.C.type", "unknown element type");
  d = valid_doc();
  d["cases"][0]["operands"]["C"]["ld"] = 3;
  EXPECT_REJECTED(d, "cases[0].operands.C.ld", "smaller than");
  d = valid_doc();
  d["cases"][0]["operands"]["C"]["order"] = "diagonal";
  EXPECT_REJECTED(d, "cases[0].operands.C.order", "row");
  d = valid_doc();
  d["cases"][0]["operands"].erase("A");
  EXPECT_REJECTED(d, "cases[0].operands.A", "missing");
}

TEST(GoldenReadErrors, ShapesThatDoNotTile) {
  json d = valid_doc();
  d["cases"][0]["shape"]["K"] = 40;  // m16n8k16
  EXPECT_REJECTED(d, "cases[0].shape.K", "does not tile into the instruction's K = 16");
  d = valid_doc();
  d["cases"][0]["shape"]["M"] = 24;
  EXPECT_REJECTED(d, "cases[0].shape.M", "does not tile into the instruction's M = 16");
  d = valid_doc();
  d["cases"][0]["shape"]["N"] = 12;
  EXPECT_REJECTED(d, "cases[0].shape.N", "does not tile into the instruction's N = 8");
  d = valid_doc();
  d["cases"][0]["instruction"]["tile"] = {32, 8};
  EXPECT_REJECTED(d, "cases[0].instruction.tile", "16 x 8");
  d = valid_doc();
  d["cases"][0]["instruction"]["arch"] = "sm_70";
  EXPECT_REJECTED(d, "cases[0].instruction", "no instruction");
}

TEST(GoldenReadErrors, MissingScales) {
  json d = valid_doc();
  ASSERT_TRUE(d["cases"][1]["operands"].contains("scale_A"));
  d["cases"][1]["operands"].erase("scale_B");
  EXPECT_REJECTED(d, "cases[1].operands.scale_B", "missing");
  EXPECT_REJECTED(d, "cases[1].operands.scale_B", "needs block scales");
  d = valid_doc();
  d["cases"][0]["operands"]["scale_A"] = d["cases"][1]["operands"]["scale_A"];
  EXPECT_REJECTED(d, "cases[0].operands.scale_A", "takes no block scales");
  d = valid_doc();
  d["cases"][1]["operands"]["scale_A"]["shape"] = {16, 2};
  d["cases"][1]["operands"]["scale_A"]["hex"] = d["cases"][1]["operands"]["scale_A"]["hex"].get<std::string>() + "7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f";
  EXPECT_REJECTED(d, "cases[1].operands.scale_A.shape", "M x K/32");
}

TEST(GoldenReadErrors, CodesOutOfRange) {
  // e2m3 is 6 bits: 0x40 and above are not codes.
  json d = valid_doc();
  std::string h = d["cases"][2]["expected"]["y"]["hex"];
  h.replace(0, 2, "7f");
  d["cases"][2]["expected"]["y"]["hex"] = h;
  EXPECT_REJECTED(d, "cases[2].expected.y.hex", "code 0 (0x7f) is out of range for e2m3");
  // The widths behind the check: ue4m3 scales have 7 bits, FP6 6, e2m1 4.
  EXPECT_FALSE(code_in_range(elem_type(Fmt::ue4m3), 0x80));
  EXPECT_TRUE(code_in_range(elem_type(Fmt::ue4m3), 0x7F));
  EXPECT_FALSE(code_in_range(elem_type(Fmt::e3m2), 0x40));
  EXPECT_FALSE(code_in_range(elem_type(Fmt::e2m1), 0x10));
  EXPECT_FALSE(code_in_range(bits_type(16), 0x10000));
}

TEST(GoldenReadErrors, ConversionFields) {
  json d = valid_doc();
  d["cases"][2]["conversion"]["convention"] = "nvidia-magic";
  EXPECT_REJECTED(d, "cases[2].conversion.convention", "unknown convention");
  d = valid_doc();
  d["cases"][2]["conversion"]["options"]["round"] = "sideways";
  EXPECT_REJECTED(d, "cases[2].conversion.options.round", "unknown rounding");
  d = valid_doc();
  d["cases"][2]["conversion"]["convention"] = "generic";
  d["cases"][2]["conversion"]["options"]["round"] = "rs";
  EXPECT_REJECTED(d, "cases[2].operands.rbits", "missing");
  d = valid_doc();
  d["cases"][3]["instruction"]["ptx"] = "cvt.rn.e9m9x2.f32";
  EXPECT_REJECTED(d, "cases[3].instruction.ptx", "");
  d = valid_doc();
  d["cases"][3]["instruction"]["rs_map"] = "random";
  EXPECT_REJECTED(d, "cases[3].instruction.rs_map", "ptx_doc");
}

TEST(GoldenReadErrors, Provenance) {
  json d = valid_doc();
  d["cases"][0]["provenance"] = {{"source", "hardware"}, {"gpu", "H100"}, {"driver", "550"}, {"cuda", "12.4"}};
  EXPECT_REJECTED(d, "cases[0].provenance.date", "missing");
  d["cases"][0]["provenance"]["date"] = "2026-01-01";
  EXPECT_EQ(error_of(d), "");
  d["cases"][0]["provenance"]["source"] = "folklore";
  EXPECT_REJECTED(d, "cases[0].provenance.source", "tcemu");
  d = valid_doc();
  d["cases"][0]["provenance"].erase("seed");
  EXPECT_REJECTED(d, "cases[0].provenance.seed", "missing");
}

TEST(GoldenReadErrors, NpyReferences) {
  TempDir dir("npyerr");
  GoldenFile f = sample_file();
  write_golden(dir.file("f.json"), f, 1);
  json d = json::parse(test::slurp(dir.file("f.json")));
  json bad = d;
  bad["cases"][0]["operands"]["A"]["npy"] = "nope.npy";
  std::string msg = error_of(bad, dir.path.string());
  EXPECT_NE(msg.find("cases[0].operands.A.npy"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
  // A .npy of the wrong element count, and one of the wrong item size.
  io::write_npy(dir.file("short.npy"), io::make_npy("<f2", {3}, {1, 2, 3}));
  bad = d;
  bad["cases"][0]["operands"]["A"]["npy"] = "short.npy";
  msg = error_of(bad, dir.path.string());
  EXPECT_NE(msg.find("holds 3 elements"), std::string::npos) << msg;
  io::write_npy(dir.file("wide.npy"), io::make_npy("<f4", {1024}, std::vector<uint64_t>(1024, 0)));
  bad["cases"][0]["operands"]["A"]["npy"] = "wide.npy";
  msg = error_of(bad, dir.path.string());
  EXPECT_NE(msg.find("4-byte items"), std::string::npos) << msg;
  bad["cases"][0]["operands"]["A"]["hex"] = "00";
  msg = error_of(bad, dir.path.string());
  EXPECT_NE(msg.find("exactly one of"), std::string::npos) << msg;
}

TEST(GoldenReadErrors, FilesThatAreNotGolden) {
  TempDir dir("notjson");
  std::ofstream(dir.file("x.json")) << "{ not json";
  try {
    read_golden(dir.file("x.json"));
    FAIL() << "accepted";
  } catch (const GoldenError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_golden(dir.file("absent.json")), GoldenError);
}

}  // namespace
}  // namespace tcemu::golden

namespace tcemu::golden {
namespace {

// The JSON Schema lists the same formats and element types the reader accepts.
TEST(GoldenSchema, MatchesTheReader) {
  const nlohmann::json s = nlohmann::json::parse(test::slurp(std::string(TCEMU_SOURCE_DIR) + "/golden/schema/golden-v1.schema.json"));
  EXPECT_EQ(s["properties"]["version"]["const"], kFormatVersion);
  EXPECT_EQ(s["properties"]["format"]["const"], std::string(kFormatName));
  std::set<std::string> listed;
  for (const auto& f : s["$defs"]["format"]["enum"]) listed.insert(f.get<std::string>());
  std::set<std::string> known;
  for (const FormatInfo& fi : kFormats) known.insert(std::string(fi.name));
  EXPECT_EQ(listed, known);
  for (const auto& t : s["$defs"]["elemType"]["anyOf"][1]["enum"]) EXPECT_TRUE(parse_elem_type(t.get<std::string>())) << t;
}

}  // namespace
}  // namespace tcemu::golden
