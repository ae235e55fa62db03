// Helpers shared by the golden tests: temporary folders and small generated cases.
#pragma once

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <unistd.h>
#include <string>

#include "tcemu_golden/generate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_ref/datapath_ref.hpp"

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

// The reference datapath's chain over K range [k0, k0 + kc) of element (m, n) of an mma or gemm
// case, from the accumulator code c_code: the catalog entry's own parameters (L = min(L, K), the
// chunking mma.hpp uses), the block scales of those K blocks. The result is an accumulator code.
inline uint64_t reference_dot(const Case& c, size_t m, size_t n, size_t k0, size_t kc, uint64_t c_code) {
  const InstrEntry& e = *c.mma.entry;
  std::vector<uint64_t> a(kc), b(kc), sa, sb;
  for (size_t k = 0; k < kc; ++k) {
    a[k] = c.operands.at("A").at(m, k0 + k);
    b[k] = c.operands.at("B").at(k0 + k, n);
  }
  DatapathParams p = e.params;
  p.L = std::min(p.L, e.K);  // an instruction whose K is below L runs one K-term step (mma.hpp)
  BlockScales s;
  const BlockScales* sp = nullptr;
  if (e.scale_type) {
    const size_t blk = static_cast<size_t>(e.scale_block);
    for (size_t j = k0 / blk; j < (k0 + kc) / blk; ++j) {
      sa.push_back(c.operands.at("scale_A").at(m, j));
      sb.push_back(c.operands.at("scale_B").at(n, j));
    }
    s.fmt = *e.scale_type;
    s.block = e.scale_block;
    s.a = sa;
    s.b = sb;
    sp = &s;
  }
  return ref::fdpa_dot(p, e.atype, e.btype, a, b, c_code, sp);
}

inline const char* kF16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
inline const char* kMxf8 = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0";

}  // namespace tcemu::golden::test
