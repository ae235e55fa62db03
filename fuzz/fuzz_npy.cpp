// The .npy reader (tcemu/npy_reader.hpp) on arbitrary bytes: either an array whose sizes agree
// with its header, or an error that names the problem (a message, never an exception).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tcemu/npy_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const tcemu::Result<tcemu::npy::Array> r =
      tcemu::npy::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  if (!r.ok()) {
    if (r.error.rfind("fuzz.npy: ", 0) != 0) std::abort();  // an error names the file
    return 0;
  }
  const tcemu::npy::Array& a = r.value;
  const tcemu::npy::Header& h = a.header;
  size_t n = 1;
  for (size_t d : h.shape) n *= d;
  if (n != h.count || h.count * h.item_size != h.data_bytes || a.data.size() != h.data_bytes ||
      h.data_offset + h.data_bytes != size)
    std::abort();  // an accepted file whose sizes disagree
  return 0;
}
