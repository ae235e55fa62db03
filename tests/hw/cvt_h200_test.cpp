// The PTX cvt catalog against outputs measured on an NVIDIA H200 (golden/hw/h200, recorded by
// tools/gpu/device_check.sh): every directed input of every sm_90 cvt variant, and every
// input the first sweep reported as a mismatch (each such line also holds the hardware's
// output). Expected values are hardware outputs; nothing here comes from the emulator.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tcemu/ptx_cvt.hpp"

namespace {

struct Sample {
  std::string spelling;
  std::vector<uint64_t> src;
  uint64_t hw;
};

uint64_t hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

// "cvt.x a=0000 [b=0000] -> 7e00"
std::vector<Sample> read_directed(const std::string& path) {
  std::vector<Sample> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Sample s;
    std::string tok;
    ss >> s.spelling;
    while (ss >> tok) {
      if (tok == "->") { ss >> tok; s.hw = hex(tok); break; }
      s.src.push_back(hex(tok.substr(2)));  // a=..., b=...
    }
    out.push_back(s);
  }
  return out;
}

// "## cvt.x (N mismatches)" then "a=.. [b=..] hw=.. emu=.."
std::vector<Sample> read_report_mismatches(const std::string& path) {
  std::vector<Sample> out;
  std::ifstream f(path);
  std::string line, current;
  while (std::getline(f, line)) {
    if (line.rfind("## ", 0) == 0) {
      std::istringstream ss(line.substr(3));
      ss >> current;
      continue;
    }
    if (current.empty() || line.rfind("a=", 0) != 0) continue;
    std::istringstream ss(line);
    Sample s;
    s.spelling = current;
    std::string tok;
    bool have_hw = false;
    while (ss >> tok) {
      if (tok.rfind("hw=", 0) == 0) { s.hw = hex(tok.substr(3)); have_hw = true; }
      else if (tok.rfind("a=", 0) == 0 || tok.rfind("b=", 0) == 0) s.src.push_back(hex(tok.substr(2)));
    }
    if (have_hw) out.push_back(s);
  }
  return out;
}

void check(const std::vector<Sample>& samples, const char* what) {
  ASSERT_FALSE(samples.empty()) << what << ": no samples read";
  std::map<std::string, std::pair<int, int>> per;  // spelling -> (checked, mismatches)
  int unmodelled = 0, shown = 0;
  for (const Sample& s : samples) {
    const auto c = tcemu::parse_ptx_cvt(s.spelling);
    if (!c.ok()) { ++unmodelled; ADD_FAILURE() << what << ": no model for " << s.spelling << ": " << c.error; continue; }
    const uint64_t emu = tcemu::ptx_cvt_eval(c.value, s.src);
    auto& p = per[s.spelling];
    ++p.first;
    if (emu != s.hw) {
      ++p.second;
      if (shown++ < 30) {
        std::ostringstream os;
        os << std::hex << s.spelling << " a=" << s.src[0];
        if (s.src.size() > 1) os << " b=" << s.src[1];
        os << " hw=" << s.hw << " emu=" << emu;
        ADD_FAILURE() << what << ": " << os.str();
      }
    }
  }
  int variants = 0, total = 0;
  for (auto& [k, v] : per) { ++variants; total += v.first; EXPECT_EQ(v.second, 0) << k; }
  std::printf("%s: %d samples over %d variants, %d unmodelled\n", what, total, variants, unmodelled);
}

}  // namespace

TEST(CvtH200, DirectedOutputsOfEverySm90Variant) {
  auto samples = read_directed(TCEMU_SOURCE_DIR "/golden/hw/h200/cvt_directed.txt");
  EXPECT_GT(samples.size(), 10000u);
  check(samples, "cvt_directed");
}

TEST(CvtH200, InputsTheFirstSweepFoundMismatched) {
  check(read_report_mismatches(TCEMU_SOURCE_DIR "/golden/hw/h200/cvt_report.txt"), "cvt_report mismatches");
}
