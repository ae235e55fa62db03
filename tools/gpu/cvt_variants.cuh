// The PTX cvt variants tcemu-gpu and cvt_check run, each with the targets where it exists.
//
// The list was found by assembling every spelling of the emulator's catalog
// (tcemu::ptx_cvt_catalog, PTX ISA §9.7.9.21: rounding x relu x satfinite x ftz x formats) with
// `ptxas -arch=sm_90a`, `-arch=sm_100a` and `-arch=sm_120a` of CUDA 13.0, each operand in the
// register type the inline assembly of cvt_ops.cuh gives it. MASK: 1 sm_90a, 2 sm_100a,
// 4 sm_120a (where ptxas accepts it; the body is compiled only there). The spellings rejected
// on every target are listed in docs/gpu.md (e.g. cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.bf16x2:
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

// X(ID, SHAPE, MASK, SPELLING)
#define TCEMU_CVT_VARIANTS(X) \
  X(0, F32_B16, 7, "cvt.rn.f16.f32") \
  X(1, F32_B16, 7, "cvt.rn.satfinite.f16.f32") \
  X(2, F32_B16, 7, "cvt.rn.relu.f16.f32") \
  X(3, F32_B16, 7, "cvt.rn.relu.satfinite.f16.f32") \
  X(4, F32_B16, 7, "cvt.rn.ftz.f16.f32") \
  X(5, F32_B16, 7, "cvt.rz.f16.f32") \
  X(6, F32_B16, 7, "cvt.rz.satfinite.f16.f32") \
  X(7, F32_B16, 7, "cvt.rz.relu.f16.f32") \
  X(8, F32_B16, 7, "cvt.rz.relu.satfinite.f16.f32") \
  X(9, F32_B16, 7, "cvt.rz.ftz.f16.f32") \
  X(10, F32_B16, 7, "cvt.rm.f16.f32") \
  X(11, F32_B16, 7, "cvt.rm.ftz.f16.f32") \
  X(12, F32_B16, 7, "cvt.rp.f16.f32") \
  X(13, F32_B16, 7, "cvt.rp.ftz.f16.f32") \
  X(14, F32P_B32, 7, "cvt.rn.f16x2.f32") \
  X(15, F32P_B32, 7, "cvt.rn.satfinite.f16x2.f32") \
  X(16, F32P_B32, 7, "cvt.rn.relu.f16x2.f32") \
  X(17, F32P_B32, 7, "cvt.rn.relu.satfinite.f16x2.f32") \
  X(18, F32P_B32, 7, "cvt.rz.f16x2.f32") \
  X(19, F32P_B32, 7, "cvt.rz.satfinite.f16x2.f32") \
  X(20, F32P_B32, 7, "cvt.rz.relu.f16x2.f32") \
  X(21, F32P_B32, 7, "cvt.rz.relu.satfinite.f16x2.f32") \
  X(22, F32_B16, 7, "cvt.rn.bf16.f32") \
  X(23, F32_B16, 7, "cvt.rn.satfinite.bf16.f32") \
  X(24, F32_B16, 7, "cvt.rn.relu.bf16.f32") \
  X(25, F32_B16, 7, "cvt.rn.relu.satfinite.bf16.f32") \
  X(26, F32_B16, 7, "cvt.rn.ftz.bf16.f32") \
  X(27, F32_B16, 7, "cvt.rz.bf16.f32") \
  X(28, F32_B16, 7, "cvt.rz.satfinite.bf16.f32") \
  X(29, F32_B16, 7, "cvt.rz.relu.bf16.f32") \
  X(30, F32_B16, 7, "cvt.rz.relu.satfinite.bf16.f32") \
  X(31, F32_B16, 7, "cvt.rz.ftz.bf16.f32") \
  X(32, F32_B16, 7, "cvt.rm.bf16.f32") \
  X(33, F32_B16, 7, "cvt.rm.ftz.bf16.f32") \
  X(34, F32_B16, 7, "cvt.rp.bf16.f32") \
  X(35, F32_B16, 7, "cvt.rp.ftz.bf16.f32") \
  X(36, F32P_B32, 7, "cvt.rn.bf16x2.f32") \
  X(37, F32P_B32, 7, "cvt.rn.satfinite.bf16x2.f32") \
  X(38, F32P_B32, 7, "cvt.rn.relu.bf16x2.f32") \
  X(39, F32P_B32, 7, "cvt.rn.relu.satfinite.bf16x2.f32") \
  X(40, F32P_B32, 7, "cvt.rz.bf16x2.f32") \
  X(41, F32P_B32, 7, "cvt.rz.satfinite.bf16x2.f32") \
  X(42, F32P_B32, 7, "cvt.rz.relu.bf16x2.f32") \
  X(43, F32P_B32, 7, "cvt.rz.relu.satfinite.bf16x2.f32") \
  X(44, F32_B32, 7, "cvt.rna.tf32.f32") \
  X(45, F32_B32, 7, "cvt.rna.satfinite.tf32.f32") \
  X(46, F32_B32, 7, "cvt.rn.tf32.f32") \
  X(47, F32_B32, 7, "cvt.rn.relu.tf32.f32") \
  X(48, F32_B32, 7, "cvt.rz.tf32.f32") \
  X(49, F32_B32, 7, "cvt.rz.relu.tf32.f32") \
  X(50, F32P_B16, 7, "cvt.rn.satfinite.e4m3x2.f32") \
  X(51, B32_B16, 7, "cvt.rn.satfinite.e4m3x2.f16x2") \
  X(52, F32P_B16, 7, "cvt.rn.satfinite.relu.e4m3x2.f32") \
  X(53, B32_B16, 7, "cvt.rn.satfinite.relu.e4m3x2.f16x2") \
  X(54, B16_B32, 7, "cvt.rn.f16x2.e4m3x2") \
  X(55, B16_B32, 7, "cvt.rn.relu.f16x2.e4m3x2") \
  X(56, F32P_B16, 7, "cvt.rn.satfinite.e5m2x2.f32") \
  X(57, B32_B16, 7, "cvt.rn.satfinite.e5m2x2.f16x2") \
  X(58, F32P_B16, 7, "cvt.rn.satfinite.relu.e5m2x2.f32") \
  X(59, B32_B16, 7, "cvt.rn.satfinite.relu.e5m2x2.f16x2") \
  X(60, B16_B32, 7, "cvt.rn.f16x2.e5m2x2") \
  X(61, B16_B32, 7, "cvt.rn.relu.f16x2.e5m2x2") \
  X(62, B16_F32, 7, "cvt.f32.f16") \
  X(63, B16_F32, 7, "cvt.ftz.f32.f16") \
  X(64, B16_F32, 7, "cvt.f32.bf16") \
  X(65, B16_F32, 7, "cvt.ftz.f32.bf16") \
  X(66, B16_B16, 7, "cvt.rn.bf16.f16") \
  X(67, B16_B16, 7, "cvt.rn.f16.bf16") \
  X(68, F64_B16, 7, "cvt.rn.f16.f64") \
  X(69, F64_B16, 7, "cvt.rn.bf16.f64") \
  X(70, F64_F32, 7, "cvt.rn.f32.f64") \
  X(71, F64_F32, 7, "cvt.rn.ftz.f32.f64") \
  X(72, B16_B16, 7, "cvt.rz.bf16.f16") \
  X(73, B16_B16, 7, "cvt.rz.f16.bf16") \
  X(74, F64_B16, 7, "cvt.rz.f16.f64") \
  X(75, F64_B16, 7, "cvt.rz.bf16.f64") \
  X(76, F64_F32, 7, "cvt.rz.f32.f64") \
  X(77, F64_F32, 7, "cvt.rz.ftz.f32.f64") \
  X(78, B16_B16, 7, "cvt.rm.bf16.f16") \
  X(79, B16_B16, 7, "cvt.rm.f16.bf16") \
  X(80, F64_B16, 7, "cvt.rm.f16.f64") \
  X(81, F64_B16, 7, "cvt.rm.bf16.f64") \
  X(82, F64_F32, 7, "cvt.rm.f32.f64") \
  X(83, F64_F32, 7, "cvt.rm.ftz.f32.f64") \
  X(84, B16_B16, 7, "cvt.rp.bf16.f16") \
  X(85, B16_B16, 7, "cvt.rp.f16.bf16") \
  X(86, F64_B16, 7, "cvt.rp.f16.f64") \
  X(87, F64_B16, 7, "cvt.rp.bf16.f64") \
  X(88, F64_F32, 7, "cvt.rp.f32.f64") \
  X(89, F64_F32, 7, "cvt.rp.ftz.f32.f64") \
  X(90, B16_F64, 7, "cvt.f64.f16") \
  X(91, B16_F64, 7, "cvt.f64.bf16") \
  X(92, F32_F64, 7, "cvt.f64.f32") \
  X(93, F32_F64, 7, "cvt.ftz.f64.f32") \
  X(94, F32_B32, 6, "cvt.rn.satfinite.tf32.f32") \
  X(95, F32_B32, 6, "cvt.rn.satfinite.relu.tf32.f32") \
  X(96, F32_B32, 6, "cvt.rz.satfinite.tf32.f32") \
  X(97, F32_B32, 6, "cvt.rz.satfinite.relu.tf32.f32") \
  X(98, B8_B32, 6, "cvt.rn.f16x2.e2m1x2") \
  X(99, B8_B32, 6, "cvt.rn.relu.f16x2.e2m1x2") \
  X(100, B16_B32, 6, "cvt.rn.f16x2.e2m3x2") \
  X(101, B16_B32, 6, "cvt.rn.relu.f16x2.e2m3x2") \
  X(102, B16_B32, 6, "cvt.rn.f16x2.e3m2x2") \
  X(103, B16_B32, 6, "cvt.rn.relu.f16x2.e3m2x2") \
  X(104, F32P_B8, 6, "cvt.rn.satfinite.e2m1x2.f32") \
  X(105, F32P_B8, 6, "cvt.rn.satfinite.relu.e2m1x2.f32") \
  X(106, F32P_B16, 6, "cvt.rn.satfinite.e2m3x2.f32") \
  X(107, F32P_B16, 6, "cvt.rn.satfinite.relu.e2m3x2.f32") \
  X(108, F32P_B16, 6, "cvt.rn.satfinite.e3m2x2.f32") \
  X(109, F32P_B16, 6, "cvt.rn.satfinite.relu.e3m2x2.f32") \
  X(110, F32P_B16, 6, "cvt.rz.ue8m0x2.f32") \
  X(111, B32_B16, 6, "cvt.rz.ue8m0x2.bf16x2") \
  X(112, F32P_B16, 6, "cvt.rz.satfinite.ue8m0x2.f32") \
  X(113, B32_B16, 6, "cvt.rz.satfinite.ue8m0x2.bf16x2") \
  X(114, F32P_B16, 6, "cvt.rp.ue8m0x2.f32") \
  X(115, B32_B16, 6, "cvt.rp.ue8m0x2.bf16x2") \
  X(116, F32P_B16, 6, "cvt.rp.satfinite.ue8m0x2.f32") \
  X(117, B32_B16, 6, "cvt.rp.satfinite.ue8m0x2.bf16x2") \
  X(118, B16_B32, 6, "cvt.rn.bf16x2.ue8m0x2") \
  X(119, F32P_R_B32, 2, "cvt.rs.f16x2.f32") \
  X(120, F32P_R_B32, 2, "cvt.rs.bf16x2.f32") \
  X(121, F32P_R_B32, 2, "cvt.rs.satfinite.f16x2.f32") \
  X(122, F32P_R_B32, 2, "cvt.rs.satfinite.bf16x2.f32") \
  X(123, F32P_R_B32, 2, "cvt.rs.relu.f16x2.f32") \
  X(124, F32P_R_B32, 2, "cvt.rs.relu.bf16x2.f32") \
  X(125, F32P_R_B32, 2, "cvt.rs.relu.satfinite.f16x2.f32") \
  X(126, F32P_R_B32, 2, "cvt.rs.relu.satfinite.bf16x2.f32") \
  X(127, F32Q_R_B32, 2, "cvt.rs.satfinite.e4m3x4.f32") \
  X(128, F32Q_R_B32, 2, "cvt.rs.satfinite.e5m2x4.f32") \
  X(129, F32Q_R_B32, 2, "cvt.rs.satfinite.e2m3x4.f32") \
  X(130, F32Q_R_B32, 2, "cvt.rs.satfinite.e3m2x4.f32") \
  X(131, F32Q_R_B16, 2, "cvt.rs.satfinite.e2m1x4.f32") \
  X(132, F32Q_R_B32, 2, "cvt.rs.relu.satfinite.e4m3x4.f32") \
  X(133, F32Q_R_B32, 2, "cvt.rs.relu.satfinite.e5m2x4.f32") \
  X(134, F32Q_R_B32, 2, "cvt.rs.relu.satfinite.e2m3x4.f32") \
  X(135, F32Q_R_B32, 2, "cvt.rs.relu.satfinite.e3m2x4.f32") \
  X(136, F32Q_R_B16, 2, "cvt.rs.relu.satfinite.e2m1x4.f32") \
  X(137, F32_I8, 7, "cvt.rni.s8.f32") \
  X(138, F32_I8, 7, "cvt.rni.u8.f32") \
  X(139, F32_I8, 7, "cvt.rzi.s8.f32") \
  X(140, F32_I8, 7, "cvt.rzi.u8.f32") \
  X(141, F32_I8, 7, "cvt.rmi.s8.f32") \
  X(142, F32_I8, 7, "cvt.rmi.u8.f32") \
  X(143, F32_I8, 7, "cvt.rpi.s8.f32") \
  X(144, F32_I8, 7, "cvt.rpi.u8.f32") \
  X(145, I8_F32, 7, "cvt.rn.f32.s8") \
  X(146, I8_F32, 7, "cvt.rn.f32.u8") \
  /* end */

inline constexpr int kNumCvtVariants = 147;

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
