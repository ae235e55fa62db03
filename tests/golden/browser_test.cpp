// Renders the HTML report in headless Chromium and checks that the heat map's script ran
// (the canvas carries data-rendered="true" and the number of painted cells). Runs only where
// /usr/bin/chromium exists (scripts/install-deps.sh installs it, so CI runs it); elsewhere it
// skips and says so.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "golden_test_support.hpp"
#include "tcemu_golden/compare.hpp"

namespace tcemu::golden {
namespace {

constexpr const char* kChromium = "/usr/bin/chromium";

// The DOM of `html_path` after headless Chromium ran its scripts ("" when it printed nothing).
std::string rendered_dom(const std::string& html_path) {
  const std::string cmd =
      std::string(kChromium) + " --headless --disable-gpu --no-sandbox --dump-dom file://" + html_path + " 2>/dev/null";
  std::string dom;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return dom;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) dom.append(buf.data(), n);
  pclose(p);
  return dom;
}

TEST(GoldenBrowser, HeatMapRendersInHeadlessChromium) {
  if (!std::filesystem::exists(kChromium)) GTEST_SKIP() << "no " << kChromium << ": the HTML report was not rendered";
  MmaGenRequest q = test::mma_request("sm_90", test::kF16, Dist::normal, 4);
  q.M = 32;
  q.N = 16;
  const Case c = generate_mma(q);
  Array act = c.expected;
  for (size_t k = 0; k < 8; ++k) act.set(3, k, act.at(3, k) ^ 1);
  const std::string html = html_report(compare(c, act));
  test::TempDir d("browser");
  std::ofstream(d.file("r.html")) << html;
  const std::string dom = rendered_dom(d.file("r.html"));
  ASSERT_FALSE(dom.empty()) << "chromium printed nothing";
  EXPECT_NE(dom.find("data-rendered=\"true\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("data-painted=\"8\""), std::string::npos);
}

// One mismatching element in a 2048 x 2048 output (cells of 8 x 8 elements, share 1/64):
// the cell is painted at least light red, green channel at most 255 * (1 - 0.3) = 178.5 (on
// the old linear scale it was 251, indistinguishable from white).
TEST(GoldenBrowser, OneMismatchInALargeOutputIsVisible) {
  if (!std::filesystem::exists(kChromium)) GTEST_SKIP() << "no " << kChromium << ": the HTML report was not rendered";
  CompareReport r;
  r.case_name = "large";
  r.operation = "a 2048 x 2048 output";
  r.type = elem_type(Fmt::f32);
  r.rows = r.cols = 2048;
  r.total = r.rows * r.cols;
  r.mismatches = 1;
  r.cell_r = r.cell_c = 8;
  r.heat_rows = r.heat_cols = 256;
  r.heat.assign(256 * 256, 0);
  r.heat[100 * 256 + 37] = 1;
  r.first.push_back({800, 296, 0x3f800000, 0x3f800001, 1});
  r.histogram.push_back({"1", 1});
  r.verdict = "DIFFERENT: 1 of 4194304 elements differ.";
  test::TempDir d("browser_faint");
  std::ofstream(d.file("r.html")) << html_report(r);
  const std::string dom = rendered_dom(d.file("r.html"));
  ASSERT_FALSE(dom.empty()) << "chromium printed nothing";
  ASSERT_NE(dom.find("data-painted=\"1\""), std::string::npos) << dom.substr(0, 2000);
  const size_t at = dom.find("data-faintest=\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LE(std::stoi(dom.substr(at + 15)), 178);
}

}  // namespace
}  // namespace tcemu::golden
