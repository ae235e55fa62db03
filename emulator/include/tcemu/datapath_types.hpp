// The plain types of the datapath models (datapath.hpp): the parameter enums and the decoded
// operand. No standard-library types, so that the shared datapath primitives
// (emulator/src/dp_primitives.hpp) can use them in CUDA __host__ __device__ code.
#pragma once

#include <cstdint>

namespace tcemu {

// rho: the one rounding applied to the fused sum S * 2^q (docs/datapath.md §1). The first three are
// what the catalog's instructions use; rne_f32 and rz_f16 are alternatives that compare's
// diagnosis tries ("RNE instead of RZ"), no instruction is known to use them.
enum class OutputRounding : uint8_t {
  rz_f32,    // toward zero to f32 (FP32-output tensor cores)
  rne_f16,   // to nearest even to f16 (FP16-output)
  rz_e8m13,  // toward zero to f32, then the low 10 fraction bits cleared (Hopper/Ada FP8)
  rne_f32,   // to nearest even to f32 (an alternative model only)
  rz_f16,    // toward zero to f16 (an alternative model only)
};

// Where the accumulator C enters.
enum class CEntry : uint8_t {
  fused,          // C is one more term of the truncated fused sum (T-FDPA as published)
  rne_f32_after,  // the products alone are summed and rounded (rho), then C is added by an
                  // f32 add rounding to nearest even (sm_100 mma.sync FP8, docs/datapath.md §1 and §3)
  rne_after_instruction,  // an instruction's steps chain from +0 (each step's C is the previous
                          // step's rounded result), then the accumulator is added by one IEEE
                          // add rounding to nearest even in the output format, f32 or f16
                          // (Hopper mma.sync FP8, measured on H200: docs/hw-h200.md)
};

enum class DatapathKind : uint8_t {
  t_fdpa,    // docs/datapath.md §1: T-FDPA
  st_fdpa,   // docs/datapath.md §1: ST-FDPA, one scale pair per term, scale exponents in the product exponent
  gst_fdpa,  // docs/datapath.md §1: GST-FDPA, exact sums of `group` products, then scaled terms aligned with F
  integer,   // exact int32 sum of integer products, wrap or satfinite
};

// An operand decoded once: value = (-1)^neg * sig * 2^low; E = max(floor(log2|x|), emin).
struct Operand {
  uint32_t sig = 0;   // 0 for a zero
  int16_t low = 0;    // weight of sig's lowest bit
  int16_t E = 0;      // exponent used for alignment (meaningless for a zero)
  uint8_t neg = 0;
  uint8_t special = 0;  // 0 finite, 1 Inf, 2 NaN
};

}  // namespace tcemu
