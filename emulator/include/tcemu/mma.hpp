// Whole-matrix MMA: D = A*B + C for any M, N, K that tile into an instruction, chaining over
// K exactly as a loop of that instruction does (each instruction applies its datapath to its
// K slice with the running D as C; docs/datapath.md §1 "K larger than L"). Block scales are
// logical per-block arrays. Optionally the FP32 promotion of Hopper FP8 GEMMs (§4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/format.hpp"

namespace tcemu {

struct MmaOptions {
  // FP32 promotion (DeepSeek-V3 / DeepGEMM [DS], docs/datapath.md §4): every `promote_every` instructions
  // along K the tensor-core partial sum (started from +0) is added into an f32 accumulator
  // by an f32 add rounding to nearest even (a CUDA-core FADD); the accumulator starts at C.
  // 0 = off: the instructions chain D directly (what a plain loop of wgmma does).
  int promote_every = 0;
  bool negate_a = false;  // wgmma imm-scale-a = -1
  bool negate_b = false;  // wgmma imm-scale-b = -1
  bool scale_d = true;    // wgmma scale-d / tcgen05 enable-input-d: false gives D = A*B (C = +0)
  // tcgen05 scale-input-d (kinds f16, tf32): D = A*B + D*2^-s for s in 0..15. C*2^-s is
  // formed exactly and rounded toward zero to the accumulator format (only subnormal results
  // lose bits); -1 = off.
  int scale_input_d = -1;
};

// Row-major codes: A is M x K, B is K x N, C and D are M x N (accumulator codes: f32, f16 or
// int32 two's complement). Scales: sa is M x (K / block) (row m's scale of block kb at
// m * (K/block) + kb), sb is N x (K / block) (column n's scale of block kb at n * (K/block) + kb).
struct MmaProblem {
  int M = 0, N = 0, K = 0;
  Fmt atype = Fmt::f16, btype = Fmt::f16;
  std::span<const uint64_t> A, B, C;
  std::optional<Fmt> scale_type;
  int scale_block = 0;
  std::span<const uint64_t> sa, sb;
};

struct MmaResult {
  std::vector<uint64_t> D;  // M x N row-major; empty on error
  std::string error;        // what was wrong with the problem, when D is empty
};

// The problem of instruction e's operand types over M x N x K with these codes (laid out as
// MmaProblem says); the scale type, block and scales only where e is block-scaled.
MmaProblem make_problem(const InstrEntry& e, int M, int N, int K, std::span<const uint64_t> A,
                        std::span<const uint64_t> B, std::span<const uint64_t> C,
                        std::span<const uint64_t> sa = {}, std::span<const uint64_t> sb = {});

// Emulates the instruction `e` tiled over the whole problem. K must be a multiple of e.K; M and
// N are free (tiling along M and N does not change any D element: each is one chained dot
// product). The problem's types must be the entry's.
MmaResult mma(const InstrEntry& e, const MmaProblem& prob, const MmaOptions& opt = {});

// The same for explicit datapath parameters: K is consumed in steps of p.L.
MmaResult mma_params(const DatapathParams& p, const MmaProblem& prob, int instr_k, const MmaOptions& opt = {});

// One dot product through the instruction (the M = N = 1 problem): a and b hold the same
// number of codes (a multiple of e.K), c is an accumulator code, sa / sb one scale per block.
MmaResult mma_dot(const InstrEntry& e, std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t c,
                  std::span<const uint64_t> sa = {}, std::span<const uint64_t> sb = {}, const MmaOptions& opt = {});

}  // namespace tcemu
