// Helpers shared by the golden tests: temporary folders and small generated cases.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <unistd.h>
#include <string>

#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"

namespace tcemu::golden::test {

// A fresh folder under the system's temporary directory, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() / ("tcemu_golden_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& n) const { return (path / n).string(); }
};

inline std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline MmaGenRequest mma_request(const std::string& arch, const std::string& ptx, Dist d = Dist::normal, uint64_t seed = 7) {
  MmaGenRequest q;
  q.arch = arch;
  q.ptx = ptx;
  q.dist_a = q.dist_b = q.dist_c = d;
  q.seed = seed;
  return q;
}

inline const char* kF16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
inline const char* kMxf8 = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0";

}  // namespace tcemu::golden::test
