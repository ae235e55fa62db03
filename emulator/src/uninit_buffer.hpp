// Internal: the vector type of the fast path's large decoded arrays (mma_fast_kernels.hpp).
// Two differences from std::vector<T>, both about speed, neither about a value:
//  - resize() leaves the new elements uninitialised (for the trivial types held here), so
//    that the decoding, which writes every element, touches each page first, on the thread
//    that decodes it, instead of a serial zero fill before the threads start;
//  - on Linux an allocation of 2 MiB or more is aligned to 2 MiB and asks for transparent huge
//    pages (madvise MADV_HUGEPAGE; honoured where the system's setting is "madvise" or
//    "always"), which turns 512 page faults into one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace tcemu::detail {

template <typename T>
struct UninitAlloc {
  static_assert(std::is_trivially_destructible_v<T>, "for plain decoded values only");
  using value_type = T;
  static constexpr size_t kHuge = size_t{2} << 20;

  UninitAlloc() = default;
  template <typename U>
  UninitAlloc(const UninitAlloc<U>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    if (bytes < kHuge) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
#ifdef __linux__
    ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: ignored where huge pages are off
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHuge) ::operator delete(p);
    else std::free(p);
  }

  // Default-initialisation: nothing for the trivial types held here.
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }

  template <typename U>
  bool operator==(const UninitAlloc<U>&) const noexcept {
    return true;
  }
};

template <typename T>
using UninitVector = std::vector<T, UninitAlloc<T>>;

}  // namespace tcemu::detail
