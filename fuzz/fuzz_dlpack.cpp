// The DLPack tensor description check of the Python package (python/src/dlpack_describe.hpp,
// what tcemu._tcemu.dlpack_import applies to a capsule's tensor) on arbitrary descriptions: the
// input's bytes are the DLTensor's fields (ndim, dtype, device, data pointer, byte offset) and
// its shape and strides arrays (ndim entries each, as the ABI promises; strides may be NULL).
// Accepted: a description whose sizes agree; refused: dlpack::Error. Nothing else may escape.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dlpack_describe.hpp"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n, i = 0;
  template <typename T>
  T next() {
    T v{};
    const size_t k = std::min(sizeof(T), n - i);
    std::memcpy(&v, p + i, k);
    i += k;
    return v;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tcemu::dlpack;
  Bytes in{data, size};
  DlTensor t{};
  // ndim mostly small, sometimes anything (negative, above kMaxDims).
  const uint8_t nd = in.next<uint8_t>();
  t.ndim = nd < 0xF0 ? nd % 8 : in.next<int32_t>();
  t.dtype = in.next<DlDataType>();
  t.device = in.next<DlDevice>();
  const uint8_t flags = in.next<uint8_t>();
  t.data = reinterpret_cast<void*>(in.next<uintptr_t>());  // never dereferenced by the check
  t.byte_offset = in.next<uint64_t>();
  const size_t dims = t.ndim > 0 && t.ndim <= 2 * kMaxDims ? static_cast<size_t>(t.ndim) : 0;
  std::vector<int64_t> shape(dims), strides(dims);
  for (int64_t& v : shape) v = (flags & 4) ? in.next<int64_t>() : in.next<uint8_t>();
  for (int64_t& v : strides) v = (flags & 8) ? in.next<int64_t>() : in.next<int8_t>();
  if (t.ndim > 2 * kMaxDims) t.ndim = 2 * kMaxDims;  // the arrays hold ndim entries, as the ABI says
  t.shape = dims && (flags & 3) != 3 ? shape.data() : nullptr;  // NULL a quarter of the time
  t.strides = (flags & 16) && dims ? strides.data() : nullptr;
  try {
    const Description d = describe(t, "x");
    if (d.shape.size() != static_cast<size_t>(t.ndim) || d.strides.size() != d.shape.size() || d.itemsize * 8 != t.dtype.bits ||
        d.dtype.empty())
      std::abort();  // an accepted description whose sizes disagree
    int64_t count = 1;
    for (int64_t n : d.shape)
      if (n < 0 || __builtin_mul_overflow(count, n, &count)) std::abort();
  } catch (const Error&) {
  }
  return 0;
}
