// The reports: the HTML page's structure (the heat map's data, the tables, balanced tags) and
// the JSON report's fields. Rendering in a browser is browser_test.cpp.
#include <gtest/gtest.h>

#include <regex>

#include "golden_test_support.hpp"
#include "tcemu_golden/compare.hpp"

namespace tcemu::golden {
namespace {

CompareReport differing_report(size_t* planted = nullptr) {
  MmaGenRequest q = test::mma_request("sm_90", test::kF16, Dist::normal, 4);
  q.M = 64;
  q.N = 32;
  q.K = 32;
  static Case c;
  c = generate_mma(q);
  Array act = c.expected;
  size_t n = 0;
  for (size_t r = 16; r < 32; ++r)  // every element of tile row 1, tile column 2
    for (size_t k = 16; k < 24; ++k, ++n) act.set(r, k, act.at(r, k) ^ 1);
  if (planted) *planted = n;
  return compare(c, act);
}

size_t count(const std::string& s, const std::string& sub) {
  size_t n = 0;
  for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + 1)) ++n;
  return n;
}

TEST(GoldenReport, HtmlStructure) {
  size_t planted = 0;
  const CompareReport r = differing_report(&planted);
  ASSERT_EQ(r.mismatches, planted);
  const std::string h = html_report(r);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* tag : {"html", "head", "body", "table", "tr", "td", "th", "ul", "li", "script", "canvas", "title", "p", "h1", "h2"}) {
    const std::string open = std::string("<") + tag, close = std::string("</") + tag + ">";
    // "<t" also starts "<table", "<title": count exact open tags with a following space or '>'.
    const size_t opens = count(h, open + ">") + count(h, open + " ");
    EXPECT_EQ(opens, count(h, close)) << tag;
  }
  EXPECT_NE(h.find("id=\"mismatches\" class=\"bad\">" + std::to_string(planted) + " ("), std::string::npos);
  EXPECT_NE(h.find("id=\"verdict\""), std::string::npos);
  EXPECT_NE(h.find("id=\"models\""), std::string::npos);
  EXPECT_NE(h.find("id=\"first\""), std::string::npos);
  EXPECT_NE(h.find("id=\"histogram\""), std::string::npos);
  // The heat map data: one share per cell of a 64 x 32 grid (cells of one element), and the
  // cells of the planted tile are exactly the non-zero ones.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(h, m, std::regex("<script type=\"application/json\" id=\"heatmap-data\">(.*)</script>")));
  const nlohmann::json d = nlohmann::json::parse(m[1].str());
  EXPECT_EQ(d["rows"], 64);
  EXPECT_EQ(d["cols"], 32);
  ASSERT_EQ(d["share"].size(), 64u * 32u);
  size_t hot = 0;
  for (size_t i = 0; i < d["share"].size(); ++i) {
    const double s = d["share"][i];
    const size_t row = i / 32, col = i % 32;
    const bool in_tile = row >= 16 && row < 32 && col >= 16 && col < 24;
    EXPECT_EQ(s, in_tile ? 1.0 : 0.0) << row << "," << col;
    hot += s > 0;
  }
  EXPECT_EQ(hot, planted);
  EXPECT_NE(h.find("<canvas id=\"heatmap\" width=\"32\" height=\"64\""), std::string::npos);
  EXPECT_NE(h.find("data-rendered"), std::string::npos);
}

TEST(GoldenReport, HeatMapOfALargeOutputIsDownsampled) {
  MmaGenRequest q = test::mma_request("sm_90", test::kF16, Dist::normal, 4);
  q.M = 1024;
  q.N = 512;
  q.K = 16;
  const Case c = generate_mma(q);
  Array act = c.expected;
  act.set(1023, 511, act.at(1023, 511) ^ 1);
  CompareOptions o;
  o.analyse_models = false;
  const CompareReport r = compare(c, act, o);
  EXPECT_EQ(r.heat_rows, 256u);
  EXPECT_EQ(r.heat_cols, 256u);
  EXPECT_EQ(r.cell_r, 4u);
  EXPECT_EQ(r.cell_c, 2u);
  EXPECT_EQ(r.heat[255 * 256 + 255], 1u);
  EXPECT_NE(html_report(r).find("width=\"256\" height=\"256\""), std::string::npos);
}

TEST(GoldenReport, JsonReport) {
  size_t planted = 0;
  const CompareReport r = differing_report(&planted);
  const nlohmann::json j = json_report(r);
  EXPECT_EQ(j["mismatches"], planted);
  EXPECT_EQ(j["identical"], false);
  EXPECT_EQ(j["total"], 64 * 32);
  EXPECT_EQ(j["first_mismatches"][0]["row"], 16);
  EXPECT_EQ(j["first_mismatches"][0]["col"], 16);
  EXPECT_EQ(j["first_mismatches"][0]["ulps"], 1);
  EXPECT_EQ(j["ulp_histogram"][0]["ulps"], "1");
  EXPECT_EQ(j["ulp_histogram"][0]["count"], planted);
  EXPECT_EQ(j["rows_with_mismatches"].size(), 16u);
  EXPECT_TRUE(j["models"][0]["case_model"].get<bool>());
  EXPECT_FALSE(j["verdict"].get<std::string>().empty());
  // Whole tile (1, 2) differs: the text report says so.
  const std::string t = text_report(r);
  EXPECT_NE(t.find("1 of 16 instruction tiles (16 x 8) have mismatches; 1 differ in every element"), std::string::npos) << t;
}

}  // namespace
}  // namespace tcemu::golden
