// Inputs for cvt_check: the sweeps (computed from an index, identically on the GPU and on the
// host, so no input ever crosses PCIe) and the directed sets of special values.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gpu_common.hpp"

namespace tcemu_gpu {

// The operands of one cvt: source registers in PTX operand order (a, b, e, f; unused ones 0)
// and the random-bit operand of cvt.rs (0 otherwise).
struct Regs {
  uint64_t s[4] = {0, 0, 0, 0};
  uint32_t rbits = 0;
};

// How the operands are made from an index i.
enum class GenMode : int {
  exh32_a,    // a = (i << 8) | low, b = a random partner of a (f32 pair forms) or unused
  exh32_b,    // b = (i << 8) | low, a = fixed
  exh16,      // a = i (every 16-bit source with n = 65536; every 8-bit one with n = 256)
  half_hi,    // a = (i << 16) | fixed: every value in the high half of a packed f16x2/bf16x2
  half_lo,    // a = (fixed << 16) | i: every value in the low half
  rand32,     // a = random 32 bits (packed f16x2/bf16x2 pairs)
  rand_pair,  // a, b = random 32 bits each (host self-check of the f32 paths)
  rand_f64,   // a = a random f64, shaped to land near the f32/f16/bf16 ranges
  rand_rs,    // cvt.rs: a, b, e, f = random f32 near the narrow formats' ranges, random rbits
  directed,   // the operands dr[i]
};

struct Gen {
  GenMode mode = GenMode::exh16;
  uint32_t low = 0;     // exh32_*: the fixed low byte of this chunk
  uint32_t fixed = 0;   // exh32_b, half_*: the fixed partner
  uint64_t seed = 0;
  const Regs* dr = nullptr;  // directed: device or host array, as the caller runs
};

// Random-bit words that decide ties of cvt.rs under any assignment of bytes or halves to
// elements: every element's field all zeros, all ones, exactly half of its carry threshold
// and one less (bytes 0x80/0x7f, f16's 13-bit fields 0x1000/0x0fff, bf16's halves
// 0x8000/0x7fff), their bit reversals (0x01/0xfe), bits above f16's 13, one byte or half alone.
TCEMU_HD inline uint32_t rs_pattern(uint32_t k) {
  constexpr uint32_t kPat[] = {
      0x00000000u, 0xffffffffu, 0x80808080u, 0x7f7f7f7fu, 0x01010101u, 0xfefefefeu, 0x10001000u, 0x0fff0fffu,
      0x1fff1fffu, 0xe000e000u, 0x80008000u, 0x7fff7fffu, 0x80007fffu, 0x7fff8000u, 0x0000ffffu, 0xffff0000u,
      0x80000000u, 0x00800000u, 0x00008000u, 0x00000080u, 0x10000000u, 0x00001000u,
  };
  return kPat[k % (sizeof kPat / sizeof kPat[0])];
}
inline constexpr uint32_t kRsPatterns = 22;

// A random f32 for cvt.rs: a quarter raw bit patterns, the rest with exponents in [-28, 17]
// (f16, FP8, FP6 and FP4 ranges with their subnormals, overflow and saturation) and fractions
// often cut to a few bits so that the discarded bits are exact halves or zero.
TCEMU_HD inline uint32_t random_f32(uint64_t seed, uint64_t i) {
  const uint64_t h = splitmix64(seed ^ splitmix64(i));
  const uint32_t r = static_cast<uint32_t>(splitmix64(h));
  if ((h >> 62) == 0) return r;
  const uint32_t sign = static_cast<uint32_t>(h >> 61 & 1) << 31;
  const int e = static_cast<int>((h >> 32) % 46) - 28;
  uint32_t frac = r & 0x7fffffu;
  const int keep = static_cast<int>((h >> 24) % 24);  // significant fraction bits kept
  if ((h >> 20) & 1) frac &= ~((1u << (23 - keep)) - 1);
  return sign | (static_cast<uint32_t>(e + 127) << 23) | frac;
}

// A random f64 that exercises f64 -> f32/f16/bf16 rounding: a quarter are raw bit patterns
// (NaN, Inf, huge, tiny, subnormal), the rest have exponents in [-160, 140] and sometimes a
// fraction whose low bits form an exact f32/f16/bf16 tie or a value one ulp off a tie.
TCEMU_HD inline uint64_t random_f64(uint64_t seed, uint64_t i) {
  const uint64_t h = splitmix64(seed ^ splitmix64(i));
  const uint64_t r = splitmix64(h);
  const uint64_t sel = h >> 62;
  if (sel == 0) return r;
  const uint64_t sign = (h >> 61 & 1) << 63;
  const int e = static_cast<int>((h >> 32) % 301) - 160;  // unbiased exponent
  uint64_t frac = r & ((uint64_t{1} << 52) - 1);
  switch ((h >> 24) & 7) {
    case 0: frac = (frac & ~((uint64_t{1} << 29) - 1)) | (uint64_t{1} << 28); break;  // f32 tie
    case 1: frac = (frac & ~((uint64_t{1} << 42) - 1)) | (uint64_t{1} << 41); break;  // f16 tie
    case 2: frac = (frac & ~((uint64_t{1} << 45) - 1)) | (uint64_t{1} << 44); break;  // bf16 tie
    case 3: frac = (frac & ~((uint64_t{1} << 29) - 1)) | (uint64_t{1} << 28) | 1; break;
    case 4: frac &= ~((uint64_t{1} << 29) - 1); break;  // exactly an f32 value
    default: break;
  }
  const uint64_t be = static_cast<uint64_t>(e + 1023);
  return sign | (be << 52) | frac;
}

TCEMU_HD inline void gen(const Gen& g, uint64_t i, Regs& r) {
  r = Regs{};
  uint64_t& a = r.s[0];
  uint64_t& b = r.s[1];
  switch (g.mode) {
    case GenMode::exh32_a:
      a = (i << 8) | g.low;
      b = splitmix64(a ^ g.seed) >> 32;
      return;
    case GenMode::exh32_b:
      a = g.fixed;
      b = (i << 8) | g.low;
      return;
    case GenMode::exh16: a = i; return;
    case GenMode::half_hi: a = (i << 16) | g.fixed; return;
    case GenMode::half_lo: a = (static_cast<uint64_t>(g.fixed) << 16) | i; return;
    case GenMode::rand32: a = splitmix64(g.seed + i) >> 32; return;
    case GenMode::rand_pair: {
      const uint64_t h = splitmix64(g.seed + i);
      a = h >> 32;
      b = h & 0xffffffffu;
      return;
    }
    case GenMode::rand_f64: a = random_f64(g.seed, i); return;
    case GenMode::rand_rs: {
      for (int k = 0; k < 4; ++k) r.s[k] = random_f32(g.seed + static_cast<uint64_t>(k), i);
      const uint64_t h = splitmix64(g.seed ^ 0x5253u ^ splitmix64(i));  // "RS"
      // One in four words is a tie-deciding pattern, the rest uniformly random.
      r.rbits = (h & 3) == 0 ? rs_pattern(static_cast<uint32_t>(h >> 8)) : static_cast<uint32_t>(h >> 32);
      return;
    }
    case GenMode::directed: r = g.dr[i]; return;
  }
}

// ---------------------------------------------------------------------------------------
// Directed values (host only). Each list holds positive values whose negations are added,
// then NaNs with chosen signs and payloads.

inline float up(float x) { return std::nextafter(x, INFINITY); }
inline float dn(float x) { return std::nextafter(x, -INFINITY); }
inline double upd(double x) { return std::nextafter(x, static_cast<double>(INFINITY)); }
inline double dnd(double x) { return std::nextafter(x, -static_cast<double>(INFINITY)); }

inline std::vector<uint32_t> directed_f32() {
  std::vector<float> pos = {
      0.0f, std::numeric_limits<float>::denorm_min(), dn(FLT_MIN), FLT_MIN, 1.0f, FLT_MAX, INFINITY,
      0.1f, 1.0f / 3.0f, 3.14159265f,
      // f16: max, overflow threshold 65520 (ties to Inf under rn), subnormal ties.
      65504.0f, dn(65520.0f), 65520.0f, up(65520.0f), 65536.0f, 0x1p-24f, 0x1p-25f, dn(0x1p-25f),
      up(0x1p-25f), 0x1p-26f, 0x1.8p-24f, 0x1.4p-24f, 0x1p-14f, dn(0x1p-14f), 0x1.ffcp-15f,
      // f16 / tf32 ties at 1 (10 fraction bits): 1 + 2^-11 ties to 1, 1 + 3*2^-11 ties up.
      0x1.002p0f, dn(0x1.002p0f), up(0x1.002p0f), 0x1.006p0f,
      // bf16: ties at 1, max 0x7f7f, overflow tie 0x7f7f8000, subnormal ties.
      0x1.01p0f, dn(0x1.01p0f), up(0x1.01p0f), 0x1.03p0f, 0x1.fep127f, 0x1.ffp127f, dn(0x1.ffp127f),
      up(0x1.ffp127f), 0x1p-133f, 0x1p-134f, up(0x1p-134f), dn(0x1p-134f), 0x1.8p-133f,
      // tf32: max 0x7f7fe000, overflow tie 0x7f7ff000, subnormal ties.
      0x1.ffep127f, 0x1.fffp127f, up(0x1.fffp127f), dn(0x1.fffp127f), 0x1p-136f, 0x1p-137f,
      up(0x1p-137f), 0x1.8p-136f,
      // e4m3: max 448, overflow threshold 464 (ties to even = 448), 480, subnormal ties.
      448.0f, 464.0f, up(464.0f), dn(464.0f), 480.0f, 496.0f, 512.0f, 0x1.1p0f, 0x1.3p0f, 0x1p-9f,
      0x1p-10f, up(0x1p-10f), dn(0x1p-10f), 0x1.8p-9f, 0x1p-6f, 0x1.ep-7f,
      // e5m2: max 57344, overflow threshold 61440, subnormal ties.
      57344.0f, 61440.0f, dn(61440.0f), up(61440.0f), 0x1p-16f, 0x1p-17f, up(0x1p-17f), 0x1.8p-16f,
      0x1.2p0f, 0x1.6p0f,
  };
  // e2m1 (max 6; 0.5 steps below 2), e2m3 (max 7.5, min subnormal 0.125), e3m2 (max 28, min
  // subnormal 0.0625): the values, the ties between them, the overflow thresholds.
  for (float f : {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f, 7.0f, up(7.0f), dn(7.0f), 8.0f, 0.0625f, 0.1875f,
                  7.5f, 7.75f, 0x1.1p0f, 0x1.3p0f, 0x1.08p0f, 28.0f, 30.0f, up(30.0f), dn(30.0f), 32.0f, 0.03125f,
                  0.09375f, 0x1.4p0f, 0x1.cp0f})
    pos.push_back(f);
  // ue8m0 (powers of two 2^-127 .. 2^127): between powers, and the ends of the range.
  for (float f : {1.5f, 3.0f, 0x1.000002p0f, 0x1p127f, 0x1.8p126f, 0x1p-126f, 0x1p-127f, 0x1.8p-127f, 0x1p-149f})
    pos.push_back(f);
  std::vector<uint32_t> out;
  for (float f : pos) { out.push_back(f32_bits(f)); out.push_back(f32_bits(f) | 0x80000000u); }
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu,
                       0x7fa5a5a5u, 0x7fc00001u, 0xffd55555u, 0x7f802000u})
    out.push_back(nan);
  return out;
}

// f16 codes: specials, FP8 boundaries, ties for f16 -> bf16 and f16 -> FP8.
inline std::vector<uint32_t> directed_f16() {
  std::vector<uint32_t> pos = {
      0x0000, 0x0001, 0x0002, 0x0003, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0x7c00, 0x3555,
      0x5f00 /*448*/, 0x5f40 /*464*/, 0x5f3f, 0x5f41, 0x5f80 /*480*/, 0x5fc0 /*496*/,
      0x7b00 /*57344*/, 0x7b80 /*61440*/, 0x7b7f, 0x7b81, 0x3c40 /*1+2^-4*/, 0x3cc0, 0x3c80,
      0x3d80, 0x1800 /*2^-9*/, 0x1400 /*2^-10*/, 0x1401, 0x13ff, 0x1600, 0x0100 /*2^-16*/,
      0x0080 /*2^-17*/, 0x0081, 0x007f, 0x0180, 0x3c04 /*1+2^-8: bf16 tie*/, 0x3c0c, 0x3c05,
      0x2400 /*2^-6*/, 0x23c0,
  };
  std::vector<uint32_t> out;
  for (uint32_t c : pos) { out.push_back(c); out.push_back(c | 0x8000u); }
  for (uint32_t nan : {0x7c01u, 0x7e00u, 0x7fffu, 0xfc01u, 0xfe00u, 0xffffu, 0x7d55u}) out.push_back(nan);
  return out;
}

inline std::vector<uint32_t> directed_bf16() {
  std::vector<uint32_t> pos = {
      0x0000, 0x0001, 0x007f, 0x0080, 0x3f80, 0x7f7f, 0x7f80, 0x3eab,
      0x477f /*65280*/, 0x4780 /*65536*/, 0x3300 /*2^-25*/, 0x3301, 0x32ff, 0x3340, 0x3380 /*2^-24*/,
      0x3880 /*2^-14*/, 0x387f, 0x3f81, 0x3f83, 0x4700, 0x477e,
  };
  std::vector<uint32_t> out;
  for (uint32_t c : pos) { out.push_back(c); out.push_back(c | 0x8000u); }
  for (uint32_t nan : {0x7f81u, 0x7fc0u, 0x7fffu, 0xffc0u, 0xff81u, 0x7fa5u}) out.push_back(nan);
  return out;
}

// FP6 codes (low 6 bits of a byte; the ISA leaves the top 2 bits as padding): every code, and
// a few with the padding bits set.
inline std::vector<uint32_t> directed_fp6() {
  std::vector<uint32_t> out;
  for (uint32_t c = 0; c < 64; ++c) out.push_back(c);
  for (uint32_t c : {0x40u, 0x80u, 0xc0u, 0xffu, 0x7fu, 0xbfu}) out.push_back(c);
  return out;
}

// ue8m0 codes: 2^-127, 1, 2^127, NaN (0xff), and neighbours.
inline std::vector<uint32_t> directed_ue8m0() { return {0x00, 0x01, 0x02, 0x7e, 0x7f, 0x80, 0x81, 0xfd, 0xfe, 0xff}; }

// FP8 codes, e4m3 and e5m2 specials together (each is a valid byte of both formats).
inline std::vector<uint32_t> directed_fp8() {
  return {0x00, 0x80, 0x01, 0x81, 0x02, 0x03, 0x04, 0x07, 0x08, 0x38, 0xb8, 0x7e, 0xfe, 0x7f, 0xff,
          0x7b, 0xfb, 0x7c, 0xfc, 0x7d, 0xfd, 0x77, 0x3c, 0x40};
}

inline std::vector<uint64_t> directed_f64() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> pos = {
      0.0, std::numeric_limits<double>::denorm_min(), DBL_MIN, DBL_MAX, inf, 1.0, 0.1,
      // f32: max, overflow tie FLT_MAX + ulp/2, 2^128, subnormal ties, ties at 1.
      static_cast<double>(FLT_MAX), 0x1.ffffffp127, upd(0x1.ffffffp127), dnd(0x1.ffffffp127), 0x1p128,
      0x1p-149, 0x1p-150, upd(0x1p-150), dnd(0x1p-150), 0x1.8p-149, 0x1p-151, dnd(0x1p-126), 0x1p-126,
      0x1.000001p0, upd(0x1.000001p0), dnd(0x1.000001p0), 0x1.000003p0,
      // f16 boundaries and a double-rounding trap (1 + 2^-11 + 2^-40 rounds up, direct).
      65504.0, 65520.0, upd(65520.0), dnd(65520.0), 0x1p-24, 0x1p-25, upd(0x1p-25), dnd(0x1p-25),
      0x1.002p0, upd(0x1.002p0), 1.0 + 0x1p-11 + 0x1p-40, 0x1.006p0,
      // bf16 boundaries.
      0x1.01p0, upd(0x1.01p0), 0x1.fep127, 0x1.ffp127, upd(0x1.ffp127), dnd(0x1.ffp127), 0x1p-133,
      0x1p-134, upd(0x1p-134), 1.0 + 0x1p-8 + 0x1p-40,
  };
  std::vector<uint64_t> out;
  for (double d : pos) { out.push_back(f64_bits(d)); out.push_back(f64_bits(d) | (uint64_t{1} << 63)); }
  for (uint64_t nan : {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                       0x7ff123456789abcdull, 0xfff7ffffffffffffull, 0x7fffffffffffffffull})
    out.push_back(nan);
  return out;
}

}  // namespace tcemu_gpu
