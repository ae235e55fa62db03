// Reading .npy arrays as codes through tcemu's one strict .npy reader (tcemu/npy_reader.hpp).
#include "tcemu/testing/npy.hpp"

#include <stdexcept>

#include "tcemu/npy_reader.hpp"

namespace tcemu::testing {

NpyCodes read_npy_codes(const std::string& path) {
  Result<npy::Array> read = npy::read(path);
  if (!read.ok()) throw std::runtime_error(read.error);  // the toolkit's readers throw (testing/npy.hpp)
  const npy::Array& a = read.value;
  NpyCodes out;
  out.descr = a.header.descr;
  out.shape = a.header.shape;
  const size_t item = a.header.item_size;
  out.bits.resize(a.header.count);
  for (size_t e = 0; e < a.header.count; ++e) {
    uint64_t v = 0;
    for (size_t b = 0; b < item; ++b) v |= static_cast<uint64_t>(a.data[e * item + b]) << (8 * b);
    out.bits[e] = v;
  }
  return out;
}

}  // namespace tcemu::testing
