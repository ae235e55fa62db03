// Renders the HTML report in headless Chromium and checks that the heat map's script ran
// (the canvas carries data-rendered="true" and the number of painted cells). Runs only where
// /usr/bin/chromium exists (scripts/install-deps.sh installs it, so CI runs it); elsewhere it skips and says so.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "golden_test_support.hpp"
#include "tcemu_golden/compare.hpp"

namespace tcemu::golden {
namespace {

TEST(GoldenBrowser, HeatMapRendersInHeadlessChromium) {
  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) GTEST_SKIP() << "no " << chromium << ": the HTML report was not rendered";
  MmaGenRequest q = test::mma_request("sm_90", test::kF16, Dist::normal, 4);
  q.M = 32;
  q.N = 16;
  const Case c = generate_mma(q);
  Array act = c.expected;
  for (size_t k = 0; k < 8; ++k) act.set(3, k, act.at(3, k) ^ 1);
  const std::string html = html_report(compare(c, act));
  test::TempDir d("browser");
  std::ofstream(d.file("r.html")) << html;
  const std::string cmd = std::string(chromium) + " --headless --disable-gpu --no-sandbox --dump-dom file://" +
                          d.file("r.html") + " 2>/dev/null";
  std::string dom;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) dom.append(buf.data(), n);
  pclose(p);
  EXPECT_NE(dom.find("data-rendered=\"true\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("data-painted=\"8\""), std::string::npos);
}

}  // namespace
}  // namespace tcemu::golden
