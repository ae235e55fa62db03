// The PTX cvt variants tcemu-gpu and cvt_check run, each with the targets where it exists.
//
// The list is every spelling of the emulator's catalog (tcemu::ptx_cvt_catalog, PTX ISA
// §9.7.9.21: rounding x relu x satfinite x ftz x formats) that ptxas of CUDA 13.0 accepts on
// sm_90a, sm_100a or sm_120a, each operand in the register type the inline assembly of
// cvt_ops.cuh gives it (tools/gpu/cvt_masks.py checks that with ptxas). MASK: 1 sm_90a,
// 2 sm_100a, 4 sm_120a (where ptxas accepts it; the body is compiled only there). The spellings
// rejected on every target are listed in docs/gpu.md (e.g. cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.bf16x2:
// "Unexpected instruction types specified for 'cvt'").
//
// Shapes (how operands travel; a is the first source operand of the PTX syntax):
//   F32_B16   one .f32 source, 16-bit destination           (cvt.rn.f16.f32)
//   F32_B32   one .f32 source, 32-bit destination           (cvt.rna.tf32.f32)
//   F32_F64   one .f32 source, .f64 destination
//   F32P_B32  two .f32 sources a, b, packed x2 destination  (cvt.rn.f16x2.f32 d, a, b)
//   F32P_B16  two .f32 sources a, b, packed x2 in .b16      (e4m3x2, e2m3x2, e3m2x2, ue8m0x2)
//   F32P_B8   two .f32 sources a, b, e2m1x2 in .b8          (cvt.rn.satfinite.e2m1x2.f32)
//   B32_B16   one packed f16x2/bf16x2 source, x2 in .b16
//   B16_B32   one packed x2 source in .b16 (FP8x2, FP6x2, ue8m0x2), f16x2/bf16x2 destination
//   B8_B32    one e2m1x2 source in .b8, f16x2 destination
//   B16_F32 / B16_F64 / B16_B16   one 16-bit (f16 or bf16) source
//   F64_F32 / F64_B16             one .f64 source
//   F32_I8    one .f32 source, .s8/.u8 destination (in a 16-bit register, low 8 bits kept)
//   I8_F32    one .s8/.u8 source (low 8 bits of a 16-bit register), .f32 destination
//   F32P_R_B32  cvt.rs x2: d, a, b, rbits                      (f16x2, bf16x2)
//   F32Q_R_B32  cvt.rs x4: d, {a, b, e, f}, rbits, .b32 destination (e4m3x4, e5m2x4, e2m3x4, e3m2x4)
//   F32Q_R_B16  cvt.rs x4: d, {a, b, e, f}, rbits, .b16 destination (e2m1x4)
#pragma once

#define TCEMU_CVT_ARCH_SM90A 1
#define TCEMU_CVT_ARCH_SM100A 2
#define TCEMU_CVT_ARCH_SM120A 4

// TCEMU_CVT_VARIANTS(X), X(ID, SHAPE, MASK, SPELLING), and kNumCvtVariants: generated from the
// PTX cvt catalog by tools/gpu/gen_instr_tables.py (gen_cvt_variants.py derives each shape from
// the spelling and each mask from the catalog's architecture; ids 0-93 are those of the H200
// run, cvt_h200_run_order.txt); gpu_gen_tables_check fails while the committed file is stale.
#include "gen/cvt_variants.inc"

namespace tcemu_gpu {

enum class CvtShape {
  F32_B16, F32_B32, F32_F64, F32P_B32, F32P_B16, F32P_B8, B32_B16, B16_B32, B8_B32, B16_F32, B16_F64, B16_B16,
  F64_F32, F64_B16, F32_I8, I8_F32, F32P_R_B32, F32Q_R_B32, F32Q_R_B16,
};

// Source registers (in PTX operand order a, b, e, f), the width of one, the destination's
// width, and whether a .b32 random-bit operand follows (cvt.rs).
struct CvtShapeInfo {
  int srcs;
  int src_bits;
  int dst_bits;
  bool rbits;
};
constexpr CvtShapeInfo cvt_shape_info(CvtShape s) {
  switch (s) {
    case CvtShape::F32_B16: return {1, 32, 16, false};
    case CvtShape::F32_B32: return {1, 32, 32, false};
    case CvtShape::F32_F64: return {1, 32, 64, false};
    case CvtShape::F32P_B32: return {2, 32, 32, false};
    case CvtShape::F32P_B16: return {2, 32, 16, false};
    case CvtShape::F32P_B8: return {2, 32, 8, false};
    case CvtShape::B32_B16: return {1, 32, 16, false};
    case CvtShape::B16_B32: return {1, 16, 32, false};
    case CvtShape::B8_B32: return {1, 8, 32, false};
    case CvtShape::B16_F32: return {1, 16, 32, false};
    case CvtShape::B16_F64: return {1, 16, 64, false};
    case CvtShape::B16_B16: return {1, 16, 16, false};
    case CvtShape::F64_F32: return {1, 64, 32, false};
    case CvtShape::F64_B16: return {1, 64, 16, false};
    case CvtShape::F32_I8: return {1, 32, 8, false};
    case CvtShape::I8_F32: return {1, 8, 32, false};
    case CvtShape::F32P_R_B32: return {2, 32, 32, true};
    case CvtShape::F32Q_R_B32: return {4, 32, 32, true};
    case CvtShape::F32Q_R_B16: return {4, 32, 16, true};
  }
  return {1, 32, 32, false};
}

}  // namespace tcemu_gpu
