// Golden generation on several threads (generate_mma_cases, used by `golden gen` and
// `golden gen-set`): the committed family files regenerated with 1, 2, 3 and 7 threads are
// byte-identical to golden/sets/ (which the committed-set test checks against the reference).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "tcemu_golden/committed_set.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GoldenGenerateThreads, FamilyFilesByteIdenticalForEveryThreadCount) {
  const std::filesystem::path sets = std::filesystem::path(TCEMU_SOURCE_DIR) / "golden" / "sets";
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() / ("tcemu_generate_threads_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  // T-FDPA, ST-FDPA and GST-FDPA block-scaled, integer, widened FP8 (the generic loop).
  for (const char* family : {"wgmma f16", "tcgen05 kind::mxf8f6f4", "tcgen05 kind::mxf4nvf4", "wgmma s8/u8",
                             "mma.sync e4m3/e5m2"}) {
    const std::string file = family_file_name(family);
    const std::string want = slurp(sets / file);
    ASSERT_FALSE(want.empty()) << file;
    for (const char* t : {"1", "2", "3", "7"}) {
      ::setenv("TCEMU_NUM_THREADS", t, 1);
      GoldenFile f = family_set(family);
      write_golden((tmp / file).string(), f, 0);
      EXPECT_TRUE(slurp(tmp / file) == want) << file << " with " << t << " threads";
    }
  }
  ::unsetenv("TCEMU_NUM_THREADS");
  std::filesystem::remove_all(tmp);
}

}  // namespace
}  // namespace tcemu::golden
