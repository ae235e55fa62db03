// The emulator on a CUDA GPU (tcemu/mma_cuda.hpp):
//  - GpuEmuStatus: what a build without CUDA, or a machine without a GPU, reports (runs
//    everywhere): one line saying why, the same text in MmaResult::error, problems checked
//    as mma() checks them;
//  - GpuEmuDevice: mma_cuda against mma() (threaded CPU) on random problems of every catalog
//    family and option set, and mma() with DeviceOperands on codes of every item size; skipped where
//    cuda_status(0).usable is false.
#include <gtest/gtest.h>

#if TCEMU_TEST_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

#include "emu_cases.hpp"
#include "tcemu/mma_cuda.hpp"

namespace tcemu {
namespace {

const InstrEntry& entry(std::string_view arch, std::string_view ptx) {
  const InstrEntry* e = find_instruction(arch, ptx).entry;
  if (!e) throw std::runtime_error("no catalog entry " + std::string(ptx));
  return *e;
}

TEST(GpuEmuStatus, SaysWhyNotInOneLine) {
  const CudaStatus s = cuda_status(0);
  if (s.usable) GTEST_SKIP() << "device 0 is usable: " << s.name;
  EXPECT_FALSE(s.why_not.empty());
  EXPECT_EQ(s.why_not.find('\n'), std::string::npos) << s.why_not;
  if (!s.built) {
    EXPECT_NE(s.why_not.find("no CUDA backend"), std::string::npos) << s.why_not;
  }
  const CudaStatus far = cuda_status(99);
  EXPECT_FALSE(far.usable);
  EXPECT_FALSE(far.why_not.empty());
}

TEST(GpuEmuStatus, ErrorsComeBackInTheResult) {
  const CudaStatus s = cuda_status(0);
  if (s.usable) GTEST_SKIP() << "device 0 is usable: " << s.name;
  const InstrEntry& e = entry("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16");
  test::Rng r(3);
  const test::OwnedProblem pb = test::random_problem(e, 4, 4, 2, test::Dist::normal, r);
  const MmaResult ok = mma(pb.view().with(e), Exec{.device = DeviceSpec::cuda()});
  EXPECT_TRUE(ok.D.empty());
  EXPECT_EQ(ok.error, s.why_not);
  // A bad problem: with the backend built, the error is mma()'s, before any device is asked.
  MmaProblem bad = pb.view();
  bad.K = 24;
  const MmaResult cpu = mma(bad.with(e), Exec{1}), gpu = mma(bad.with(e), Exec{.device = DeviceSpec::cuda()});
  EXPECT_FALSE(cpu.error.empty());
  EXPECT_TRUE(gpu.D.empty());
  EXPECT_EQ(gpu.error, s.built ? cpu.error : s.why_not);
  DeviceOperands ops;
  ops.A = {reinterpret_cast<const void*>(16), 3, 64};
  ops.B = {reinterpret_cast<const void*>(16), 2, 64};
  MmaProblem dp;
  dp.M = dp.N = 4;
  dp.K = 16;
  dp.device_operands = &ops;
  const MmaResult dev = mma(dp.with(e), Exec{.device = DeviceSpec::cuda()});
  EXPECT_TRUE(dev.D.empty());
  EXPECT_EQ(dev.error, s.built ? "A: item size must be 1, 2, 4 or 8 bytes" : s.why_not);
}

class GpuEmuDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaStatus s = cuda_status(0);
    if (!s.usable) GTEST_SKIP() << s.why_not;
  }
};

TEST_F(GpuEmuDevice, EveryFamilyAndOptionAgreesWithMma) {
  test::Rng r(0xC0DA);
  for (const InstrEntry* e : test::family_entries()) {
    const int instrs = std::max(3, 512 / e->K);
    for (const auto& [what, opt] : test::option_sets(*e)) {
      const test::Dist d = test::kDists[r() % std::size(test::kDists)];
      const test::OwnedProblem pb = test::random_problem(*e, 67, 45, instrs, d, r);
      const MmaResult want = mma(pb.view().with(*e, opt), Exec{});
      const MmaResult got = mma(pb.view().with(*e, opt), Exec{.device = DeviceSpec::cuda()});
      ASSERT_EQ(got.error, "") << e->ptx;
      ASSERT_EQ(got.D.size(), want.D.size());
      size_t bad = 0;
      for (size_t i = 0; i < got.D.size(); ++i) bad += got.D[i] != want.D[i];
      EXPECT_EQ(bad, 0u) << e->ptx << " " << what << " " << test::dist_name(d);
    }
  }
}

#if TCEMU_TEST_CUDA_RUNTIME
// Codes of `itemsize` bytes in GPU memory.
struct DeviceArray {
  void* p = nullptr;
  DeviceArray(const std::vector<uint64_t>& v, int itemsize) {
    std::vector<unsigned char> bytes(v.size() * static_cast<size_t>(itemsize));
    for (size_t i = 0; i < v.size(); ++i)
      for (int b = 0; b < itemsize; ++b) bytes[i * static_cast<size_t>(itemsize) + static_cast<size_t>(b)] = static_cast<unsigned char>(v[i] >> (8 * b));
    if (cudaMalloc(&p, bytes.size() + 1) != cudaSuccess) throw std::runtime_error("cudaMalloc");
    cudaMemcpy(p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
  }
  ~DeviceArray() { cudaFree(p); }
};

TEST_F(GpuEmuDevice, DeviceOperandsOfEveryItemSize) {
  const InstrEntry* scaled = nullptr;  // a block-scaled family with operands of 8 bits or fewer
  for (const InstrEntry* f : test::family_entries())
    if (f->scale_type && info(f->atype).width <= 8 && info(f->btype).width <= 8 && f->dtype == AccType::f32) scaled = f;
  ASSERT_NE(scaled, nullptr);
  const InstrEntry& e = *scaled;
  test::Rng r(9);
  const test::OwnedProblem pb = test::random_problem(e, 33, 40, 4, test::Dist::normal, r);
  const MmaResult want = mma(pb.view().with(e), Exec{1});
  for (int itemsize : {1, 2, 4, 8}) {
    const int csize = itemsize < 4 ? 4 : itemsize;  // C holds f32 codes
    DeviceArray A(pb.A, itemsize), B(pb.B, itemsize), C(pb.C, csize), sa(pb.sa, itemsize), sb(pb.sb, itemsize);
    DeviceOperands ops;
    ops.A = {A.p, itemsize, pb.A.size()};
    ops.B = {B.p, itemsize, pb.B.size()};
    ops.C = {C.p, csize, pb.C.size()};
    ops.sa = {sa.p, itemsize, pb.sa.size()};
    ops.sb = {sb.p, itemsize, pb.sb.size()};
    MmaProblem dp = pb.view().with(e);
    dp.A = dp.B = dp.C = dp.sa = dp.sb = {};
    dp.device_operands = &ops;
    const MmaResult got = mma(dp, Exec{.device = DeviceSpec::cuda()});
    ASSERT_EQ(got.error, "");
    EXPECT_EQ(got.D, want.D) << "item size " << itemsize;
  }
}
#endif

}  // namespace
}  // namespace tcemu
