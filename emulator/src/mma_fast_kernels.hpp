// Internal: what the fast whole-matrix kernels share (mma_fast_fdpa.cpp, mma_fast_gst.cpp)
// and what the dispatch (mma_fast.cpp) hands them. The arithmetic is dp_primitives.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "dp_primitives.hpp"
#include "mma_fast.hpp"

// The kernels are compiled twice, for x86-64 with AVX2 (and the bit-manipulation extensions
// every AVX2 CPU has: lzcnt for the rounding) and for the baseline, and picked at run time:
// the library needs no -march flag and runs on CPUs without AVX2. Everything a kernel calls on
// its hot path is forced inline (TCEMU_HOT, and TCEMU_DP_HD in dp_primitives.hpp) so that it is
// compiled with the kernel's instruction set.
#if defined(__GNUC__) && defined(__x86_64__)
#define TCEMU_FAST_X86 1
#define TCEMU_HOT inline __attribute__((always_inline))
#define TCEMU_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
#else
#define TCEMU_HOT inline
#endif

namespace tcemu::detail::fast {

// True when the AVX2 build of the kernels may run: the CPU has it and use_baseline_kernels is
// off (mma_fast.cpp).
bool cpu_has_avx2();

constexpr int kNB = 32;                 // columns (D elements) processed together
constexpr int32_t kZeroE = -(1 << 20);  // E of a zero or special operand: below any real sum
constexpr int32_t kNoE = -(1 << 29);    // emax before any term

// The running accumulator of one D element: its code and the fields the next step reads.
struct Acc {
  uint64_t code = 0;
  uint32_t sig = 0;
  int32_t low = 0, E = 0;
  bool neg = false, special = false;
};

TCEMU_HOT void set_acc(Acc& a, const dp::FloatLayout& out, uint64_t c) {
  const Operand o = dp::decode_acc(out, c);
  a.code = c;
  a.neg = o.neg != 0;
  a.special = o.special != 0;
  a.sig = o.sig;
  a.low = o.low;
  a.E = o.E;
}

// Everything about the problem that the kernels share.
struct Ctx {
  const DatapathParams& p;
  const MmaProblem& pr;
  const MmaOptions& opt;
  size_t M, N, K, L, nsteps, Npad, nb;  // nb: scales per row / column
  Fmt acc;
  dp::FloatLayout acc_layout;
  bool fused, partial;
  size_t promote;  // in k; 0 = off
};

// The starting accumulator of D element (m, n), as the generic loop forms it.
inline uint64_t start_c(const Ctx& cx, size_t m, size_t n) {
  uint64_t c = cx.opt.scale_d ? cx.pr.C[m * cx.N + n] : 0;
  if (cx.opt.scale_input_d >= 0) c = scale_c(c, cx.acc, cx.opt.scale_input_d);
  return c;
}

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

// After a step: FP32 promotion, then the new running accumulator.
TCEMU_HOT void finish_step(const Ctx& cx, size_t k_end, uint64_t d, Acc& cur, uint64_t& accum) {
  if (cx.promote && k_end % cx.promote == 0) {
    accum = dp::add_rne_f32(static_cast<uint32_t>(accum), static_cast<uint32_t>(d));
    d = 0;
  }
  set_acc(cur, cx.acc_layout, d);
}

TCEMU_HOT uint64_t final_d(const Ctx& cx, const Acc& cur, uint64_t accum) {
  if (!cx.promote) return cur.code;
  if (cx.K % cx.promote != 0) return dp::add_rne_f32(static_cast<uint32_t>(accum), static_cast<uint32_t>(cur.code));
  return accum;
}

// The kernels: nullopt when the operands leave the range a kernel's integer width holds.
std::optional<MmaResult> fast_fdpa(const Ctx& cx);  // T-FDPA and ST-FDPA (mma_fast_fdpa.cpp)
std::optional<MmaResult> fast_gst(const Ctx& cx);   // GST-FDPA (mma_fast_gst.cpp)

}  // namespace tcemu::detail::fast
