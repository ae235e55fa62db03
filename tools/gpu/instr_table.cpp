// The instruction tables of tcemu-gpu as plain data (host code; no CUDA needed): the
// generated mma.sync / wgmma list (gen/mma_instrs.inc) and the cvt variants (cvt_variants.cuh).
#include <string>
#include <vector>

#include "cvt_variants.cuh"
#include "gen/mma_instrs.inc"
#include "gpu_backend.hpp"

namespace tcemu_gpu {

const std::vector<InstrInfo>& instructions() {
  static const std::vector<InstrInfo> v = {
#define TCEMU_GPU_ROW(ID, PTX, WG, MASK, M, N, K, AT, BT, DT, ACC, ABB, AC, BC, CB, RA, RB, RC, SV, ST, WM) \
  {ID, PTX, WG, MASK, M, N, K, AT, BT, DT, ACC, ABB, AC, BC, CB, RA, RB, RC, SV, ST, WM},
      TCEMU_GPU_MMA_INSTRS(TCEMU_GPU_ROW)
#undef TCEMU_GPU_ROW
  };
  return v;
}

const InstrInfo* find_instr(const std::string& ptx) {
  for (const InstrInfo& i : instructions())
    if (ptx == i.ptx) return &i;
  return nullptr;
}

WmmaImages wmma_images(const InstrInfo& in) {
  auto round = [](uint32_t bytes) { return (bytes + 255) / 256 * 256; };
  return {round(static_cast<uint32_t>(in.m * in.k * in.ab_bits / 8)), round(static_cast<uint32_t>(in.k * in.n * in.ab_bits / 8)),
          round(static_cast<uint32_t>(in.m * in.n * in.c_bits / 8))};
}

int DeviceInfo::arch_bit() const { return arch_bit_of(cc_major, cc_minor); }

const std::vector<CvtInfo>& cvt_variants() {
  static const std::vector<CvtInfo> v = [] {
    std::vector<CvtInfo> out;
#define TCEMU_CVT_ROW(ID, SHAPE, MASK, SP)                                                      \
  {                                                                                            \
    constexpr CvtShapeInfo si = cvt_shape_info(CvtShape::SHAPE);                               \
    out.push_back(CvtInfo{ID, SP, si.srcs, si.src_bits, si.dst_bits, si.rbits, MASK});         \
  }
    TCEMU_CVT_VARIANTS(TCEMU_CVT_ROW)
#undef TCEMU_CVT_ROW
    return out;
  }();
  return v;
}

const CvtInfo* find_cvt(const std::string& ptx) {
  for (const CvtInfo& c : cvt_variants())
    if (ptx == c.ptx) return &c;
  return nullptr;
}

}  // namespace tcemu_gpu
