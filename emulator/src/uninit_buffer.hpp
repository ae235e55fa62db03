// Internal: the vector type of the fast path's large decoded arrays (mma_fast_kernels.hpp).
// Unlike std::vector<T>, resize() leaves the new elements uninitialised (for the trivial types
// held here), so that the decoding, which writes every element, touches each page first, on
// the thread that decodes it, instead of a serial zero fill before the threads start. A
// speed difference only: every element is written before it is read.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tcemu::detail {

template <typename T>
struct UninitAlloc : std::allocator<T> {
  static_assert(std::is_trivially_destructible_v<T>, "for plain decoded values only");
  template <typename U>
  struct rebind {
    using other = UninitAlloc<U>;
  };

  UninitAlloc() = default;
  template <typename U>
  UninitAlloc(const UninitAlloc<U>&) noexcept {}

  // Default-initialisation: nothing for the trivial types held here.
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

template <typename T>
using UninitVector = std::vector<T, UninitAlloc<T>>;

}  // namespace tcemu::detail
