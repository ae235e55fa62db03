// Whole-matrix MMA: D = A*B + C for any M, N, K that tile into an instruction, chaining over
// K exactly as a loop of that instruction does (each instruction applies its datapath to its
// K slice with the running D as C; docs/datapath.md §1 "K larger than L"). Block scales are
// logical per-block arrays. Optionally the FP32 promotion of Hopper FP8 GEMMs (§4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/code_vector.hpp"
#include "tcemu/datapath.hpp"
#include "tcemu/format.hpp"
#include "tcemu/parallel.hpp"

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

// The datapath a product runs: a catalog instruction (whose operand types, scales and
// accumulator the problem is checked against), or explicit datapath parameters with the K of
// one instruction (the problem's K is consumed in steps of params.L; C after the instruction,
// k-pair halves and FP32 promotion count instructions of instr_k).
struct MmaInstr {
  const InstrEntry* entry = nullptr;  // set: params and instr_k are the entry's
  DatapathParams params{};
  int instr_k = 0;
  MmaInstr() = default;
  MmaInstr(const InstrEntry& e) : entry(&e), params(e.params), instr_k(e.K) {}  // NOLINT: implicit by design
  MmaInstr(const DatapathParams& p, int k) : params(p), instr_k(k) {}
};

// Operands already in GPU memory (CUDA tensors reached through DLPack or
// __cuda_array_interface__): `ptr` is a device pointer to `count` unsigned codes of `itemsize`
// bytes (1, 2, 4 or 8), contiguous, in the order MmaProblem gives its spans. An empty array
// (count 0) stands for an absent C or absent scales.
struct DeviceCodes {
  const void* ptr = nullptr;
  int itemsize = 0;
  size_t count = 0;
};
struct DeviceOperands {
  DeviceCodes A, B, C, sa, sb;
};

// One product D = A*B + C, all that describes it: the operands, the instruction (or datapath
// parameters) and the options. Row-major codes: A is M x K, B is K x N, C and D are M x N
// (accumulator codes: f32, f16 or int32 two's complement); an empty C is +0 everywhere (no
// M x N zeros to hold). Scales: sa is M x (K / block) (row
// m's scale of block kb at m * (K/block) + kb), sb is N x (K / block) (column n's scale of
// block kb at n * (K/block) + kb).
struct MmaProblem {
  int M = 0, N = 0, K = 0;
  Fmt atype = Fmt::f16, btype = Fmt::f16;
  std::span<const uint64_t> A, B, C;
  std::optional<Fmt> scale_type;
  int scale_block = 0;
  std::span<const uint64_t> sa, sb;
  MmaInstr instr{};
  MmaOptions options{};
  // Set: the operands are in GPU memory (the spans A .. sb are not read) and the problem runs
  // on the CUDA device of the Exec.
  const DeviceOperands* device_operands = nullptr;

  // This problem through another instruction (or datapath parameters) and options.
  MmaProblem with(const MmaInstr& i, const MmaOptions& o = {}) const {
    MmaProblem p = *this;
    p.instr = i;
    p.options = o;
    return p;
  }
};

// The container width of D's codes: 2 bytes for an f16 D, 4 for f32 and s32.
constexpr int d_code_width(const DatapathParams& p) {
  return p.kind != DatapathKind::integer && output_format(p.rounding) == Fmt::f16 ? 2 : 4;
}

struct MmaResult {
  CodeVector D;       // M x N row-major, d_code_width bytes an element; empty on error
  std::string error;  // what was wrong with the problem, when D is empty
};

// The problem of instruction e's operand types over M x N x K with these codes (laid out as
// MmaProblem says), through e with options opt; the scale type, block and scales only where e
// is block-scaled.
MmaProblem make_problem(const InstrEntry& e, int M, int N, int K, std::span<const uint64_t> A,
                        std::span<const uint64_t> B, std::span<const uint64_t> C,
                        std::span<const uint64_t> sa = {}, std::span<const uint64_t> sb = {},
                        const MmaOptions& opt = {});

// Progress of a long mma on the CPU: called after each finished tile (from the worker thread
// that finished it, one call at a time), with the multiply-adds done so far and in all (for a
// progress bar). Must not throw.
using MmaProgress = std::function<void(double done_macs, double total_macs)>;

// THE whole-matrix MMA: prob.instr tiled over the whole problem, on exec's threads or CUDA
// device (docs/gpu-emulation.md). K must be a multiple of the instruction's K; M and N are free
// (tiling along M and N does not change any D element: each is one chained dot product). The
// same D, bit for bit, for every thread count and device. The problem is checked and its
// operands decoded once, then D is cut into tiles of rows and columns, about four a thread.
// Errors (a problem that is not well formed, no CUDA backend, no usable device, a CUDA error)
// come back in MmaResult::error with D empty; a bad exec.threads (or TCEMU_NUM_THREADS) throws
// std::invalid_argument (thread_count, parallel.hpp). A one-element dot product is the M = N = 1
// problem.
MmaResult mma(const MmaProblem& prob, Exec exec = {}, const MmaProgress& progress = {});

}  // namespace tcemu
