// A GEMM whose operands carry one f32 scale per block of K elements (blockwise FP8: DeepSeek-V3,
// TransformerEngine's Float8BlockScaling, 1x128 activations and 128x128 weights): each K block's
// partial product is the instruction chain from +0 over that block, then
// acc = fma(sa * sb, p, acc) from acc = +0 (f32, round to nearest even), the "promotion with
// scales" of DeepGEMM's FP8 kernels (deepseek-ai/DeepGEMM sm90_fp8_gemm_1d2d.cuh:
// `final_accum += scale_0_0 * accum`, scale_0_0 = scale_a * scale_b, which nvcc contracts into
// an FFMA). cuBLASLt's blockwise scaling (CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F /
// BLK128x128_32F) documents no internal order; this is the one with a published kernel behind
// it. Then t = acc (+ bias, one f32 add) and the output conversion.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/parallel.hpp"

namespace tcemu {

struct KBlockScaling {
  int block = 128;              // K elements per scale; the last block may be shorter
  std::vector<uint32_t> sa;     // f32 codes, M x nb (row m's scale of K block j at m * nb + j)
  std::vector<uint32_t> sb;     // f32 codes, N x nb (column n's scale of K block j at n * nb + j)
  std::vector<uint32_t> bias;   // f32 codes, N values, or empty
  Fmt out_type = Fmt::f32;      // f32, bf16, f16, e4m3, e5m2
  Round out_round = Round::rn;
  bool satfinite = false;
};

// Empty when the scaling fits the problem and instruction e (block a multiple of e.K and of
// K's tiling, nb = ceil(K / block) scales per row and column, bias of N values, an output
// type), else what is wrong.
std::string kblock_error(const InstrEntry& e, const MmaProblem& prob, const KBlockScaling& s);

// D (out_type codes, M x N) of the block-scaled GEMM; error set as kblock_error says. The
// problem must have no block scales of its own and no C; opt.promote_every applies inside a
// block. D is the same for every thread count.
GemmResult gemm_kblock(const InstrEntry& e, const MmaProblem& prob, const KBlockScaling& s, const MmaOptions& opt = {},
                       const Exec& exec = {});

}  // namespace tcemu
