// Device side of the PTX cvt variants (cvt_variants.cuh): one inline-assembly body per operand
// shape, one specialisation cvt_op<ID> per variant, shared by cvt_check (sweeps) and tcemu-gpu
// (golden cvt cases). cvt_op<ID>(a, b, e, f, rbits) takes the source registers in PTX operand
// order (unused ones ignored) and returns the destination register's bits. A variant's
// assembly is compiled only for the targets of its mask (TCEMU_GPU_ARCH_BIT, gpu_arch.cuh);
// elsewhere the body returns 0 and the host never launches it. Include inside a namespace of
// a .cu file, after gpu_arch.cuh and cvt_variants.cuh.
#pragma once

#define TCEMU_CVT_F(x) __uint_as_float(static_cast<unsigned>(x))
#define TCEMU_CVT_H(x) static_cast<unsigned short>(x)

#define ASM_F32_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "f"(TCEMU_CVT_F(a))); return d;
#define ASM_F32_B32(SP)   unsigned d; asm volatile(SP " %0, %1;" : "=r"(d) : "f"(TCEMU_CVT_F(a))); return d;
#define ASM_F32_F64(SP)   double d; asm volatile(SP " %0, %1;" : "=d"(d) : "f"(TCEMU_CVT_F(a))); return static_cast<uint64_t>(__double_as_longlong(d));
#define ASM_F32P_B32(SP)  unsigned d; asm volatile(SP " %0, %1, %2;" : "=r"(d) : "f"(TCEMU_CVT_F(a)), "f"(TCEMU_CVT_F(b))); return d;
#define ASM_F32P_B16(SP)  unsigned short d; asm volatile(SP " %0, %1, %2;" : "=h"(d) : "f"(TCEMU_CVT_F(a)), "f"(TCEMU_CVT_F(b))); return d;
// e2m1x2 lives in a .b8 register, which inline assembly cannot bind: a scoped .b8 temporary,
// widened (cvt.u16.u8) or narrowed (cvt.u8.u16: the low byte) to a 16-bit operand.
#define ASM_F32P_B8(SP)   unsigned short d; asm volatile("{ .reg .b8 t; " SP " t, %1, %2; cvt.u16.u8 %0, t; }" : "=h"(d) : "f"(TCEMU_CVT_F(a)), "f"(TCEMU_CVT_F(b))); return d;
#define ASM_B32_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "r"(static_cast<unsigned>(a))); return d;
#define ASM_B16_B32(SP)   unsigned d; asm volatile(SP " %0, %1;" : "=r"(d) : "h"(TCEMU_CVT_H(a))); return d;
#define ASM_B8_B32(SP)    unsigned d; asm volatile("{ .reg .b8 t; cvt.u8.u16 t, %1; " SP " %0, t; }" : "=r"(d) : "h"(TCEMU_CVT_H(a))); return d;
#define ASM_B16_F32(SP)   float d; asm volatile(SP " %0, %1;" : "=f"(d) : "h"(TCEMU_CVT_H(a))); return __float_as_uint(d);
#define ASM_B16_F64(SP)   double d; asm volatile(SP " %0, %1;" : "=d"(d) : "h"(TCEMU_CVT_H(a))); return static_cast<uint64_t>(__double_as_longlong(d));
#define ASM_B16_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "h"(TCEMU_CVT_H(a))); return d;
#define ASM_F64_F32(SP)   float d; asm volatile(SP " %0, %1;" : "=f"(d) : "d"(__longlong_as_double(static_cast<long long>(a)))); return __float_as_uint(d);
#define ASM_F64_B16(SP)   unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "d"(__longlong_as_double(static_cast<long long>(a)))); return d;
// .s8/.u8: PTX lets cvt's register be wider than its type (the destination is extended, the
// source's low 8 bits are used); the 8-bit code is the low byte.
#define ASM_F32_I8(SP)    unsigned short d; asm volatile(SP " %0, %1;" : "=h"(d) : "f"(TCEMU_CVT_F(a))); return d & 0xffu;
#define ASM_I8_F32(SP)    float d; asm volatile(SP " %0, %1;" : "=f"(d) : "h"(TCEMU_CVT_H(a & 0xffu))); return __float_as_uint(d);
// cvt.rs: the random-bit operand last.
#define ASM_F32P_R_B32(SP) unsigned d; asm volatile(SP " %0, %1, %2, %3;" : "=r"(d) : "f"(TCEMU_CVT_F(a)), "f"(TCEMU_CVT_F(b)), "r"(rbits)); return d;
#define ASM_F32Q_R_B32(SP) unsigned d; asm volatile(SP " %0, {%1, %2, %3, %4}, %5;" : "=r"(d) : "f"(TCEMU_CVT_F(a)), "f"(TCEMU_CVT_F(b)), "f"(TCEMU_CVT_F(e)), "f"(TCEMU_CVT_F(f)), "r"(rbits)); return d;
#define ASM_F32Q_R_B16(SP) unsigned short d; asm volatile(SP " %0, {%1, %2, %3, %4}, %5;" : "=h"(d) : "f"(TCEMU_CVT_F(a)), "f"(TCEMU_CVT_F(b)), "f"(TCEMU_CVT_F(e)), "f"(TCEMU_CVT_F(f)), "r"(rbits)); return d;

template <int ID>
__device__ uint64_t cvt_op(uint64_t a, uint64_t b, uint64_t e, uint64_t f, uint32_t rbits);

// `if constexpr`: the assembly of a variant that does not exist on the target being compiled
// is discarded before it reaches ptxas (which would reject it).
#define TCEMU_DEFINE_OP(ID, SHAPE, MASK, SP)                                                 \
  template <>                                                                                \
  __device__ uint64_t cvt_op<ID>(uint64_t a, uint64_t b, uint64_t e, uint64_t f, uint32_t rbits) { \
    (void)a; (void)b; (void)e; (void)f; (void)rbits;                                         \
    if constexpr (((MASK) & TCEMU_GPU_ARCH_BIT) != 0) {                                      \
      ASM_##SHAPE(SP)                                                                        \
    } else {                                                                                 \
      return 0;                                                                              \
    }                                                                                        \
  }
TCEMU_CVT_VARIANTS(TCEMU_DEFINE_OP)
#undef TCEMU_DEFINE_OP
