// Small helpers shared by the hardware-check programs (cvt_check, mma_record): a
// deterministic PRNG usable on host and device, bit casts, a wall clock for progress lines,
// and CUDA error checks that report instead of aborting where the caller can go on.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <string>

#include <cuda_runtime.h>

#ifdef __CUDACC__
#define TCEMU_HD __host__ __device__
#else
#define TCEMU_HD
#endif

namespace tcemu_gpu {

// splitmix64 (Steele, Lea, Flood 2014): one 64-bit state step, good enough to spread seeds.
TCEMU_HD inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Sequential generator on top of splitmix64 (host side: tile contents).
struct SplitMix {
  uint64_t state;
  explicit SplitMix(uint64_t seed) : state(seed) {}
  // The state advances by splitmix64's increment; the output is splitmix64 of the old state.
  uint64_t next() {
    const uint64_t z = splitmix64(state);
    state += 0x9e3779b97f4a7c15ull;
    return z;
  }
  uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
  // Uniform in [0, n).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) % n); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint64_t f64_bits(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }
inline double bits_f64(uint64_t u) { double f; std::memcpy(&f, &u, 8); return f; }

// Seconds since the program started, for progress lines.
inline double now_s() {
  static const auto t0 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// printf with a "[  12.3s]" prefix, flushed at once (the device tool shows the tail of stdout).
inline void logf(const char* fmt, ...) {
  std::printf("[%7.2fs] ", now_s());
  va_list ap;
  va_start(ap, fmt);
  std::vprintf(fmt, ap);
  va_end(ap);
  std::fflush(stdout);
}

// True when the call succeeded; else prints what failed and where.
inline bool cuda_ok(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return true;
  std::printf("CUDA error %s (%s) in %s at %s:%d\n", cudaGetErrorName(e), cudaGetErrorString(e), what, file, line);
  std::fflush(stdout);
  return false;
}
#define TCEMU_CUDA_OK(call) ::tcemu_gpu::cuda_ok((call), #call, __FILE__, __LINE__)

inline std::string hex(uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace tcemu_gpu
