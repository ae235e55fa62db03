// Internal: what the fast whole-matrix kernels share (mma_fast_fdpa.cpp, mma_fast_gst.cpp)
// and what the dispatch (mma_fast.cpp) hands them. The arithmetic is dp_primitives.hpp's.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "converter_isa.hpp"
#include "dp_primitives.hpp"
#include "dp_steps.hpp"
#include "mma_fast.hpp"
#include "mma_prepared.hpp"
#include "uninit_buffer.hpp"

// The kernels are built three times for x86-64 and picked at run time by the mechanism the
// conversion kernels use (converter_isa.hpp: what the CPU has, at most the tests' limit): for
// AVX-512 (F/BW/VL/DQ/CD; the T-FDPA / ST-FDPA kernel has its own intrinsics form there,
// mma_fast_fdpa_avx512.cpp), for AVX2 (with the bit-manipulation extensions every AVX2 CPU
// has: lzcnt for the rounding) and for the baseline: the library needs no -march flag and
// runs on CPUs without AVX2. Everything a kernel calls on its hot path is forced inline
// (TCEMU_HOT, and TCEMU_DP_HD in dp_primitives.hpp) so that it is compiled with the kernel's
// instruction set.
#if defined(__GNUC__) && defined(__x86_64__)
#define TCEMU_FAST_X86 1
#define TCEMU_HOT inline __attribute__((always_inline))
#define TCEMU_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
#define TCEMU_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx2,bmi,bmi2,lzcnt,popcnt")))
#else
#define TCEMU_HOT inline
#endif
// aarch64: the NEON kernels (mma_fast_neon.hpp), used by the portable build, which is the only
// one there (Advanced SIMD is part of every ARMv8-A CPU).
#if defined(__GNUC__) && defined(__aarch64__)
#define TCEMU_FAST_NEON 1
#endif

namespace tcemu::detail::fast {

// Which build of the kernels runs: converter_isa.hpp's choice, baseline where the kernels
// were built for the baseline alone (not x86-64 or not GCC/clang).
ConvertIsa kernel_isa();

constexpr int kNB = 32;                 // columns (D elements) processed together
static_assert(kNB == kTileCols, "tiles start at column blocks");
constexpr int32_t kZeroE = -(1 << 20);  // E of a zero or special operand: below any real sum
constexpr int32_t kNoE = -(1 << 29);    // emax before any term

// Calls row(m) for every m in [0, M) on exec's threads, 64 rows at a time on one thread (the
// per-row flags of neighbouring rows share cache lines: one row a thread would make the
// threads take the lines from each other at every write).
template <typename Row>
void for_row_blocks(size_t M, const Exec& exec, const Row& row) {
  constexpr size_t kRows = 64;
  parallel_for((M + kRows - 1) / kRows, exec, [&](size_t b) {
    for (size_t m = b * kRows; m < std::min(M, (b + 1) * kRows); ++m) row(m);
  });
}

// One D element's chain over K: dp_steps.hpp's state (chain.d, the running accumulator, and
// the f32 promotion accumulator), which dp_steps.hpp's functions begin, promote and end as for
// every other executor of the chain, and chain.d decoded for the next step.
struct Acc {
  dp::ChainState chain;
  uint32_t sig = 0;
  int32_t low = 0, E = 0;
  bool neg = false, special = false;
};

TCEMU_HOT void decode_chain(Acc& a, const dp::FloatLayout& out) {
  const Operand o = dp::decode_acc(out, a.chain.d);
  a.neg = o.neg != 0;
  a.special = o.special != 0;
  a.sig = o.sig;
  a.low = o.low;
  a.E = o.E;
}

// Everything about the problem that the kernels share (the problem's arrays are the caller's).
struct Ctx {
  DatapathParams p;
  MmaProblem pr;
  MmaOptions opt;
  size_t M, N, K, L, nsteps, Npad, nb;  // nb: scales per row / column
  dp::FloatLayout acc_layout;
  bool fused, partial;
  dp::StepParams sp;   // p as dp_steps.hpp's plain data (the generic step, Fallback)
  dp::ChainParams ch;  // how each D element's steps chain (dp::chain_params, as the generic loop)
};

// Where B's decoded element (k, n) lies: B is stored in blocks of kNB columns, each block
// [k][kNB] and contiguous, so that a kernel's pass over the k of one block reads consecutive
// memory (a row-major [k][Npad] layout puts every k of a block a power-of-two stride apart,
// the same L1 cache set).
inline size_t bpos(const Ctx& cx, size_t k, size_t n) { return (n / kNB) * cx.K * kNB + k * kNB + n % kNB; }

// The chain of D element (m, n) begun as the generic loop begins it: C, or +0 without scale-d,
// scaled by scale-input-d (dp::start_c), then dp::chain_begin.
TCEMU_HOT void begin_chain(const Ctx& cx, Acc& a, size_t m, size_t n) {
  a.chain = dp::chain_begin(cx.ch, dp::start_c(cx.ch, cx.pr.C.empty() ? 0 : cx.pr.C[m * cx.N + n]));
  decode_chain(a, cx.acc_layout);
}

// Decodes the codes of one operand or scale format as negated(decoded(f, code), neg)
// does: through a table of every code when the format is at most 8 bits wide (decoding ignores
// the bits above the width, so the table is indexed by the code's low bits), else one call a
// code (mma_fast.cpp).
class Decoder {
 public:
  Decoder(Fmt f, bool neg);
  Operand operator()(uint64_t code) const {
    return table_.empty() ? negated(decoded(f_, code), neg_) : table_[code & mask_];
  }

 private:
  Fmt f_;
  bool neg_;
  uint64_t mask_ = 0;
  std::vector<Operand> table_;
};

// The generic step on decoded operands for one D element (the specials' path).
class Fallback {
 public:
  explicit Fallback(const Ctx& cx) : cx_(cx), a_(cx.L), b_(cx.L), sa_(cx.L), sb_(cx.L) {}
  uint64_t step(size_t m, size_t n, size_t s, uint64_t c);

 private:
  const Ctx& cx_;
  std::vector<Operand> a_, b_, sa_, sb_;
  size_t am_ = SIZE_MAX, as_ = SIZE_MAX;
};

// After the step that ends at k_end, whose result is d: dp::chain_promote (FP32 promotion
// where it is due), then the new running accumulator decoded.
TCEMU_HOT void finish_step(const Ctx& cx, size_t k_end, uint64_t d, Acc& a) {
  a.chain.d = d;
  dp::chain_promote(cx.ch, a.chain, static_cast<int64_t>(k_end));
  decode_chain(a, cx.acc_layout);
}

// D after the last step (dp::chain_end).
TCEMU_HOT uint64_t final_d(const Ctx& cx, const Acc& a) { return dp::chain_end(cx.ch, a.chain); }

// Whether an intrinsics kernel's vector end of step (AVX-512, AVX2) computes these
// parameters: C fused into an f32 accumulator rounded toward zero.
inline bool takes_rounding(const Ctx& cx) {
  return cx.fused && (cx.p.rounding == OutputRounding::rz_f32 || cx.p.rounding == OutputRounding::rz_e8m13);
}

// The AVX2 and NEON kernels end a step through the sum's exact conversion to double, which
// holds below 2^51 (the AVX2 form adds the sum into the significand of 2^52 + 2^51): whether
// these parameters (and takes_rounding) keep every step's |S + C term| below that, in units of
// 2^q = 2^(emax - F). Every value is below 2^(E + 1).
// T-FDPA / ST-FDPA: a term (two operands, two scales) below 2^(emax + 4), C below
// 2^(emax + 1), so |S + C term| < (16 L + 2) 2^F.
inline bool fdpa_sum_fits(const Ctx& cx) {
  return takes_rounding(cx) && (16.0 * static_cast<double>(cx.L) + 2.0) * std::ldexp(1.0, cx.p.F) < std::ldexp(1.0, 51);
}
// GST-FDPA: a group's term below G 2^(emax_a + emax_b + 4) 2^E (E its scales' exponent sum,
// emax_a, emax_b the formats' largest exponents), so |S + C term| < (L 2^(emax_a + emax_b + 4)
// + 2) 2^F.
inline bool gst_sum_fits(const Ctx& cx) {
  const double terms = static_cast<double>(cx.L) * std::ldexp(1.0, info(cx.pr.atype).emax() + info(cx.pr.btype).emax() + 4);
  return takes_rounding(cx) && (terms + 2.0) * std::ldexp(1.0, cx.p.F) < std::ldexp(1.0, 51);
}

// T-FDPA / ST-FDPA operands: E / signed-significand arrays with the scales folded in, and the
// per-step flags (built by mma_fast_fdpa.cpp, which writes every element).
template <typename T>
struct FdpaOps {
  UninitVector<int32_t> aE;  // M x K
  UninitVector<T> as;        // M x K, significand << c0l, signed
  UninitVector<int32_t> bE, bs;   // K x Npad, in blocks of kNB columns (bpos)
  UninitVector<uint8_t> spA, zA;  // M x nsteps: a NaN/Inf, a zero (folded) operand in the step
  UninitVector<uint8_t> spB, zB;  // nsteps x Npad
  int32_t r0 = 0;
};

// What one step of one row reads in the intrinsics T-FDPA / ST-FDPA kernels (AVX-512, AVX2,
// NEON): the row's operands of the step, the kNB columns of B they meet (ldb apart), the
// columns' zero-product flags, and the floor of emax (e_zero with missing terms or a zero
// product in the row, else below every exponent).
struct FdpaStepOps {
  const int32_t *aE, *as, *bE, *bs;
  const uint8_t* zb;
  size_t L, ldb;
  int32_t base;
};

TCEMU_HOT FdpaStepOps fdpa_step_ops(const Ctx& cx, const FdpaOps<int32_t>& o, size_t m, size_t n0, size_t s) {
  const size_t K = cx.K, L = cx.L, k = s * L;
  return {&o.aE[m * K + k], &o.as[m * K + k], &o.bE[n0 * K + k * kNB], &o.bs[n0 * K + k * kNB], &o.zB[s * cx.Npad + n0],
          L, kNB, (cx.partial || o.zA[m * cx.nsteps + s]) ? cx.p.e_zero : kNoE};
}

// The AVX-512 T-FDPA / ST-FDPA kernel (mma_fast_fdpa_avx512.cpp): whether it takes these
// parameters (C fused, an f32 accumulator rounded toward zero), and the kernel, on operands
// whose every product fits an int32 (the sums are formed in int32 over runs of `chunk` terms
// and added in int64).
bool fdpa_avx512_takes(const Ctx& cx);
void run_fdpa_avx512(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, const DTile& tile, CodeSink D);

// The AVX2 form of that kernel (mma_fast_fdpa_avx2.cpp): whether it takes these parameters
// (fdpa_sum_fits), and the kernel.
bool fdpa_avx2_takes(const Ctx& cx);
void run_fdpa_avx2_vec(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, const DTile& tile, CodeSink D);

// The NEON form of that kernel on aarch64 (mma_fast_fdpa_neon.cpp): whether it takes these
// parameters (fdpa_sum_fits), and the kernel.
bool fdpa_neon_takes(const Ctx& cx);
void run_fdpa_neon(const Ctx& cx, const FdpaOps<int32_t>& o, size_t chunk, const DTile& tile, CodeSink D);

// A GST-FDPA block scale, decoded.
struct Scale {
  int32_t E = 0, low = 0;
  uint32_t sig = 0;
  bool neg = false, special = false;
};

// B's scales as arrays [group][Npad] (vector loads of kNB columns) for the intrinsics GST-FDPA
// kernels (AVX-512, AVX2): exponent, lowest-bit weight, significand with the sign applied.
struct ScalesB {
  UninitVector<int32_t> E, low, sig;
};

// GST-FDPA operands as integers in units of 2^unit, scales per group, per-step special flags
// (built by mma_fast_gst.cpp, which writes every element).
struct GstOps {
  UninitVector<int32_t> av, bv;    // M x K, K x Npad in blocks of kNB columns (bpos)
  UninitVector<uint8_t> spA, spB;  // M x nsteps, nsteps x Npad
  std::vector<Scale> sA, sB;      // M x (K / group), Npad x (K / group)
  int unit = 0;
  ScalesB sbv;  // sB as ScalesB, when an intrinsics kernel runs
};

// The AVX-512 GST-FDPA kernel (mma_fast_gst_avx512.cpp): whether it takes these parameters
// (C fused, an f32 accumulator rounded toward zero), the scales the intrinsics kernels read
// (o.sbv from o.sB, built by mma_fast_gst.cpp; the AVX2 and NEON kernels read them too), and
// the kernel.
bool gst_avx512_takes(const Ctx& cx);
void run_gst_avx512_vec(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D);
// The AVX2 form of that kernel (mma_fast_gst_avx2.cpp), on the same scales: whether it takes
// these parameters (gst_sum_fits, at most 64 groups a step), and the kernel.
bool gst_avx2_takes(const Ctx& cx);
void run_gst_avx2_vec(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D);
// The NEON form on aarch64 (mma_fast_gst_neon.cpp), on the same scales.
bool gst_neon_takes(const Ctx& cx);
void run_gst_neon(const Ctx& cx, const GstOps& o, const DTile& tile, CodeSink D);

// The problems decoded for the kernels: nullptr when the operands leave the range a kernel's
// integer width holds. Decoding runs on exec's threads.
std::unique_ptr<PreparedMma> fast_fdpa(const Ctx& cx, const Exec& exec);  // T-FDPA, ST-FDPA (mma_fast_fdpa.cpp)
std::unique_ptr<PreparedMma> fast_gst(const Ctx& cx, const Exec& exec);   // GST-FDPA (mma_fast_gst.cpp)

}  // namespace tcemu::detail::fast
