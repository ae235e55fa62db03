// tcemu-naive-gemm: the demo's "kernel" (scripts/demo.sh). It computes a golden MMA case the way
// a first reference implementation often does: dequantize A and B to f32 (block scales
// applied), then D = C + A*B with one f32 FMA per term in k order. That is close to, but not,
// what the tensor core computes (it adds groups of products exactly and rounds once per
// group), so `tcemu compare` of its output against the golden case tells the difference.
//   tcemu-naive-gemm GOLDEN.json CASE_INDEX OUT.npy
#include <cmath>
#include <cstring>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tcemu/quant.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

using namespace tcemu;

int run(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tcemu-naive-gemm GOLDEN.json CASE_INDEX OUT.npy\n");
    return 2;
  }
  Result<golden::GoldenFile> read = golden::try_read_golden(argv[1]);
  if (!read.ok()) throw std::runtime_error(read.error);
  const golden::GoldenFile f = std::move(read.value);
  const size_t index = std::stoul(argv[2]);
  if (index >= f.cases.size()) throw std::runtime_error(std::string(argv[1]) + ": no case " + argv[2]);
  const golden::Case& c = f.cases[index];
  if (c.op != golden::OpKind::mma || c.mma.entry->dtype != AccType::f32)
    throw std::runtime_error("case " + c.name + ": the demo kernel computes MMA cases with an f32 accumulator");
  const InstrEntry& e = *c.mma.entry;
  const size_t M = static_cast<size_t>(c.mma.M), N = static_cast<size_t>(c.mma.N), K = static_cast<size_t>(c.mma.K);
  const std::vector<uint64_t> A = c.operands.at("A").logical(), B = c.operands.at("B").logical();
  std::vector<uint64_t> C(M * N, 0);
  if (c.operands.count("C")) C = c.operands.at("C").logical();
  std::vector<uint64_t> sa, sb;
  const size_t block = e.scale_type ? static_cast<size_t>(e.scale_block) : 0;
  if (block) {
    sa = c.operands.at("scale_A").logical();  // M x K/block
    sb = c.operands.at("scale_B").logical();  // N x K/block
  }
  // Dequantized operands in f32 (exact: narrow codes times power-of-two or e4m3 scales).
  std::vector<float> a(M * K), b(K * N);
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k)
      a[m * K + k] = tcemu::quant::code_to_f32(e.atype, A[m * K + k]) * (block ? tcemu::quant::code_to_f32(*e.scale_type, sa[m * (K / block) + k / block]) : 1.0f);
  for (size_t k = 0; k < K; ++k)
    for (size_t n = 0; n < N; ++n)
      b[k * N + n] = tcemu::quant::code_to_f32(e.btype, B[k * N + n]) * (block ? tcemu::quant::code_to_f32(*e.scale_type, sb[n * (K / block) + k / block]) : 1.0f);
  std::vector<uint64_t> D(M * N);
  for (size_t m = 0; m < M; ++m)
    for (size_t n = 0; n < N; ++n) {
      float acc = tcemu::quant::code_to_f32(Fmt::f32, C[m * N + n]);
      for (size_t k = 0; k < K; ++k) acc = std::fma(a[m * K + k], b[k * N + n], acc);
      uint32_t bits;
      std::memcpy(&bits, &acc, 4);
      D[m * N + n] = bits;
    }
  if (const std::string error = io::try_write_npy(argv[3], io::make_npy("<f4", {M, N}, D)); !error.empty())
    throw std::runtime_error(error);
  std::printf("naive f32 GEMM of %s (%zu x %zu x %zu) -> %s\n", c.name.c_str(), M, N, K, argv[3]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcemu-naive-gemm: %s\n", e.what());
    return 2;
  }
}
