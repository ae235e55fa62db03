// The PTX cvt variants that ptxas (CUDA 13.0) accepts for sm_90a, each as inline assembly.
//
// The list was found by assembling every candidate spelling of NUMERICS.md §2.1 (rounding x
// relu x satfinite x ftz x formats) with `ptxas -arch=sm_90a`; the ones rejected there are
// listed in docs/gpu.md. Shapes (how operands travel):
//   F32_B16   one .f32 source, 16-bit destination           (cvt.rn.f16.f32)
//   F32_B32   one .f32 source, 32-bit destination           (cvt.rna.tf32.f32)
//   F32_F64   one .f32 source, .f64 destination
//   F32P_B32  two .f32 sources a, b, packed x2 destination  (cvt.rn.f16x2.f32 d, a, b)
//   F32P_B16  two .f32 sources a, b, packed FP8x2 in .b16   (cvt.rn.satfinite.e4m3x2.f32)
//   B32_B16   one packed f16x2 source, FP8x2 in .b16
//   B16_B32   one packed FP8x2 source in .b16, f16x2 destination
//   B16_F32 / B16_F64 / B16_B16   one 16-bit (f16 or bf16) source
//   F64_F32 / F64_B16             one .f64 source
#pragma once

#define TCEMU_CVT_VARIANTS(X) \
  X(0, F32_B16, "cvt.rn.f16.f32") \
  X(1, F32_B16, "cvt.rn.satfinite.f16.f32") \
  X(2, F32_B16, "cvt.rn.relu.f16.f32") \
  X(3, F32_B16, "cvt.rn.relu.satfinite.f16.f32") \
  X(4, F32_B16, "cvt.rn.ftz.f16.f32") \
  X(5, F32_B16, "cvt.rz.f16.f32") \
  X(6, F32_B16, "cvt.rz.satfinite.f16.f32") \
  X(7, F32_B16, "cvt.rz.relu.f16.f32") \
  X(8, F32_B16, "cvt.rz.relu.satfinite.f16.f32") \
  X(9, F32_B16, "cvt.rz.ftz.f16.f32") \
  X(10, F32_B16, "cvt.rm.f16.f32") \
  X(11, F32_B16, "cvt.rm.ftz.f16.f32") \
  X(12, F32_B16, "cvt.rp.f16.f32") \
  X(13, F32_B16, "cvt.rp.ftz.f16.f32") \
  X(14, F32P_B32, "cvt.rn.f16x2.f32") \
  X(15, F32P_B32, "cvt.rn.satfinite.f16x2.f32") \
  X(16, F32P_B32, "cvt.rn.relu.f16x2.f32") \
  X(17, F32P_B32, "cvt.rn.relu.satfinite.f16x2.f32") \
  X(18, F32P_B32, "cvt.rz.f16x2.f32") \
  X(19, F32P_B32, "cvt.rz.satfinite.f16x2.f32") \
  X(20, F32P_B32, "cvt.rz.relu.f16x2.f32") \
  X(21, F32P_B32, "cvt.rz.relu.satfinite.f16x2.f32") \
  X(22, F32_B16, "cvt.rn.bf16.f32") \
  X(23, F32_B16, "cvt.rn.satfinite.bf16.f32") \
  X(24, F32_B16, "cvt.rn.relu.bf16.f32") \
  X(25, F32_B16, "cvt.rn.relu.satfinite.bf16.f32") \
  X(26, F32_B16, "cvt.rn.ftz.bf16.f32") \
  X(27, F32_B16, "cvt.rz.bf16.f32") \
  X(28, F32_B16, "cvt.rz.satfinite.bf16.f32") \
  X(29, F32_B16, "cvt.rz.relu.bf16.f32") \
  X(30, F32_B16, "cvt.rz.relu.satfinite.bf16.f32") \
  X(31, F32_B16, "cvt.rz.ftz.bf16.f32") \
  X(32, F32_B16, "cvt.rm.bf16.f32") \
  X(33, F32_B16, "cvt.rm.ftz.bf16.f32") \
  X(34, F32_B16, "cvt.rp.bf16.f32") \
  X(35, F32_B16, "cvt.rp.ftz.bf16.f32") \
  X(36, F32P_B32, "cvt.rn.bf16x2.f32") \
  X(37, F32P_B32, "cvt.rn.satfinite.bf16x2.f32") \
  X(38, F32P_B32, "cvt.rn.relu.bf16x2.f32") \
  X(39, F32P_B32, "cvt.rn.relu.satfinite.bf16x2.f32") \
  X(40, F32P_B32, "cvt.rz.bf16x2.f32") \
  X(41, F32P_B32, "cvt.rz.satfinite.bf16x2.f32") \
  X(42, F32P_B32, "cvt.rz.relu.bf16x2.f32") \
  X(43, F32P_B32, "cvt.rz.relu.satfinite.bf16x2.f32") \
  X(44, F32_B32, "cvt.rna.tf32.f32") \
  X(45, F32_B32, "cvt.rna.satfinite.tf32.f32") \
  X(46, F32_B32, "cvt.rn.tf32.f32") \
  X(47, F32_B32, "cvt.rn.relu.tf32.f32") \
  X(48, F32_B32, "cvt.rz.tf32.f32") \
  X(49, F32_B32, "cvt.rz.relu.tf32.f32") \
  X(50, F32P_B16, "cvt.rn.satfinite.e4m3x2.f32") \
  X(51, B32_B16, "cvt.rn.satfinite.e4m3x2.f16x2") \
  X(52, F32P_B16, "cvt.rn.satfinite.relu.e4m3x2.f32") \
  X(53, B32_B16, "cvt.rn.satfinite.relu.e4m3x2.f16x2") \
  X(54, B16_B32, "cvt.rn.f16x2.e4m3x2") \
  X(55, B16_B32, "cvt.rn.relu.f16x2.e4m3x2") \
  X(56, F32P_B16, "cvt.rn.satfinite.e5m2x2.f32") \
  X(57, B32_B16, "cvt.rn.satfinite.e5m2x2.f16x2") \
  X(58, F32P_B16, "cvt.rn.satfinite.relu.e5m2x2.f32") \
  X(59, B32_B16, "cvt.rn.satfinite.relu.e5m2x2.f16x2") \
  X(60, B16_B32, "cvt.rn.f16x2.e5m2x2") \
  X(61, B16_B32, "cvt.rn.relu.f16x2.e5m2x2") \
  X(62, B16_F32, "cvt.f32.f16") \
  X(63, B16_F32, "cvt.ftz.f32.f16") \
  X(64, B16_F32, "cvt.f32.bf16") \
  X(65, B16_F32, "cvt.ftz.f32.bf16") \
  X(66, B16_B16, "cvt.rn.bf16.f16") \
  X(67, B16_B16, "cvt.rn.f16.bf16") \
  X(68, F64_B16, "cvt.rn.f16.f64") \
  X(69, F64_B16, "cvt.rn.bf16.f64") \
  X(70, F64_F32, "cvt.rn.f32.f64") \
  X(71, F64_F32, "cvt.rn.ftz.f32.f64") \
  X(72, B16_B16, "cvt.rz.bf16.f16") \
  X(73, B16_B16, "cvt.rz.f16.bf16") \
  X(74, F64_B16, "cvt.rz.f16.f64") \
  X(75, F64_B16, "cvt.rz.bf16.f64") \
  X(76, F64_F32, "cvt.rz.f32.f64") \
  X(77, F64_F32, "cvt.rz.ftz.f32.f64") \
  X(78, B16_B16, "cvt.rm.bf16.f16") \
  X(79, B16_B16, "cvt.rm.f16.bf16") \
  X(80, F64_B16, "cvt.rm.f16.f64") \
  X(81, F64_B16, "cvt.rm.bf16.f64") \
  X(82, F64_F32, "cvt.rm.f32.f64") \
  X(83, F64_F32, "cvt.rm.ftz.f32.f64") \
  X(84, B16_B16, "cvt.rp.bf16.f16") \
  X(85, B16_B16, "cvt.rp.f16.bf16") \
  X(86, F64_B16, "cvt.rp.f16.f64") \
  X(87, F64_B16, "cvt.rp.bf16.f64") \
  X(88, F64_F32, "cvt.rp.f32.f64") \
  X(89, F64_F32, "cvt.rp.ftz.f32.f64") \
  X(90, B16_F64, "cvt.f64.f16") \
  X(91, B16_F64, "cvt.f64.bf16") \
  X(92, F32_F64, "cvt.f64.f32") \
  X(93, F32_F64, "cvt.ftz.f64.f32") \
  /* end */

inline constexpr int kNumCvtVariants = 94;
