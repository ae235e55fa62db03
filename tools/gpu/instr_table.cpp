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

int DeviceInfo::arch_bit() const {
  if (cc_major == 9 && cc_minor == 0) return 1;
  if (cc_major == 10) return 2;
  if (cc_major == 12) return 4;
  return 0;
}

namespace {
// Operand shapes of cvt_variants.cuh: sources, source width, destination width.
#define TCEMU_CVT_SHAPE_F32_B16 1, 32, 16
#define TCEMU_CVT_SHAPE_F32_B32 1, 32, 32
#define TCEMU_CVT_SHAPE_F32_F64 1, 32, 64
#define TCEMU_CVT_SHAPE_F32P_B32 2, 32, 32
#define TCEMU_CVT_SHAPE_F32P_B16 2, 32, 16
#define TCEMU_CVT_SHAPE_B32_B16 1, 32, 16
#define TCEMU_CVT_SHAPE_B16_B32 1, 16, 32
#define TCEMU_CVT_SHAPE_B16_F32 1, 16, 32
#define TCEMU_CVT_SHAPE_B16_F64 1, 16, 64
#define TCEMU_CVT_SHAPE_B16_B16 1, 16, 16
#define TCEMU_CVT_SHAPE_F64_F32 1, 64, 32
#define TCEMU_CVT_SHAPE_F64_B16 1, 64, 16
#define TCEMU_CVT_INFO(SP, SHAPE) CvtInfo{SP, TCEMU_CVT_SHAPE_##SHAPE}
const std::vector<CvtInfo>& cvt_table() {
  static const std::vector<CvtInfo> v = {
#define TCEMU_CVT_ROW(ID, SHAPE, SP) TCEMU_CVT_INFO(SP, SHAPE),
      TCEMU_CVT_VARIANTS(TCEMU_CVT_ROW)
#undef TCEMU_CVT_ROW
  };
  return v;
}
}  // namespace

const CvtInfo* find_cvt(const std::string& ptx) {
  for (const CvtInfo& c : cvt_table())
    if (ptx == c.ptx) return &c;
  return nullptr;
}

}  // namespace tcemu_gpu
