// Device side of tcemu-gpu for builds without a CUDA toolkit: no device, every run refused.
// tcemu-gpu then still lists instructions, checks golden files and runs the host tests.
#include "gpu_backend.hpp"

namespace tcemu_gpu {

DeviceInfo query_device() {
  DeviceInfo d;
  d.why_not = "tcemu-gpu was built without CUDA (TCEMU_ENABLE_CUDA=OFF, or no nvcc when configuring)";
  return d;
}

std::string run_mma_sync(const InstrInfo&, int, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                         const std::vector<uint32_t>&, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                         std::vector<uint32_t>&) {
  return "built without CUDA";
}
std::string run_wgmma(const InstrInfo&, int, const std::vector<uint8_t>&, const std::vector<uint8_t>&,
                      const std::vector<uint32_t>&, bool, int, std::vector<uint32_t>&) {
  return "built without CUDA";
}
std::string run_wmma(const InstrInfo&, int, const std::vector<uint8_t>&, const std::vector<uint8_t>&,
                     const std::vector<uint8_t>&, std::vector<uint8_t>&) {
  return "built without CUDA";
}
std::string run_tcgen05(const std::string&, int, const Tcgen05Launch&, const std::vector<uint8_t>&,
                        const std::vector<uint8_t>&, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                        const std::vector<uint32_t>&, std::vector<uint32_t>&) {
  return "built without CUDA";
}
std::string run_cvt(const CvtInfo&, const std::vector<uint64_t>&, const std::vector<uint32_t>&,
                    std::vector<uint64_t>&) {
  return "built without CUDA";
}

}  // namespace tcemu_gpu
