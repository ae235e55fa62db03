// The fast quantizers' large results (quant_fast.hpp big_vector): on Linux, transparent huge
// pages asked for before the first touch. A speed difference only: a 4096 x 4096 f32 result
// costs the kernel some 16 Ki page faults in 4 KiB pages (40 ms of CPU time measured on the
// 2-core development machine, more than the dequantization itself), 32 in 2 MiB ones.
#include "quant_fast.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>

namespace tcemu::quant::detail {

void advise_huge_pages(const void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{1} << 21;
  if (bytes < (size_t{4} << 20)) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice: failure is harmless
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace tcemu::quant::detail
