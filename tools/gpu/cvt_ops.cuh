// Device side of the PTX cvt variants (cvt_variants.cuh): one inline-assembly body per operand
// shape, one specialisation of cvt_op<ID> per variant. Shared by cvt_check (sweeps) and
// tcemu-gpu (golden cvt cases). Include inside a namespace of a .cu file.
#pragma once

enum class Shape { F32_B16, F32_B32, F32_F64, F32P_B32, F32P_B16, B32_B16, B16_B32, B16_F32, B16_F64, B16_B16, F64_F32, F64_B16 };

// ---------------------------------------------------------------------------------------
// Device side: one inline-assembly body per shape, one specialisation per variant.

#define ASM_F32_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "f"(__uint_as_float(static_cast<unsigned>(a)))); (void)b; return d;
#define ASM_F32_B32(SP)   unsigned d; asm volatile(SP " %0, %1;" : "=r"(d) : "f"(__uint_as_float(static_cast<unsigned>(a)))); (void)b; return d;
#define ASM_F32_F64(SP)   double d; asm volatile(SP " %0, %1;" : "=d"(d) : "f"(__uint_as_float(static_cast<unsigned>(a)))); (void)b; return static_cast<uint64_t>(__double_as_longlong(d));
#define ASM_F32P_B32(SP)  unsigned d; asm volatile(SP " %0, %1, %2;" : "=r"(d) : "f"(__uint_as_float(static_cast<unsigned>(a))), "f"(__uint_as_float(static_cast<unsigned>(b)))); return d;
#define ASM_F32P_B16(SP)  unsigned short d; asm volatile(SP " %0, %1, %2;" : "=h"(d) : "f"(__uint_as_float(static_cast<unsigned>(a))), "f"(__uint_as_float(static_cast<unsigned>(b)))); return d;
#define ASM_B32_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "r"(static_cast<unsigned>(a))); (void)b; return d;
#define ASM_B16_B32(SP)   unsigned d; asm volatile(SP " %0, %1;" : "=r"(d) : "h"(static_cast<unsigned short>(a))); (void)b; return d;
#define ASM_B16_F32(SP)   float d; asm volatile(SP " %0, %1;" : "=f"(d) : "h"(static_cast<unsigned short>(a))); (void)b; return __float_as_uint(d);
#define ASM_B16_F64(SP)   double d; asm volatile(SP " %0, %1;" : "=d"(d) : "h"(static_cast<unsigned short>(a))); (void)b; return static_cast<uint64_t>(__double_as_longlong(d));
#define ASM_B16_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "h"(static_cast<unsigned short>(a))); (void)b; return d;
#define ASM_F64_F32(SP)   float d; asm volatile(SP " %0, %1;" : "=f"(d) : "d"(__longlong_as_double(static_cast<long long>(a)))); (void)b; return __float_as_uint(d);
#define ASM_F64_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "d"(__longlong_as_double(static_cast<long long>(a)))); (void)b; return d;

template <int ID>
__device__ uint64_t cvt_op(uint64_t a, uint64_t b);

#define TCEMU_DEFINE_OP(ID, SHAPE, SP) \
  template <>                          \
  __device__ uint64_t cvt_op<ID>(uint64_t a, uint64_t b) { ASM_##SHAPE(SP) }
TCEMU_CVT_VARIANTS(TCEMU_DEFINE_OP)
#undef TCEMU_DEFINE_OP
