// Reading NumPy .npy arrays as codes, so a test can take the operands and the expected D of a
// golden case (`tcemu golden gen --npy-threshold 1` writes them as <stem>.<case>.<name>.npy) or
// a kernel's dumped output and compare with BitExact. Little-endian numeric dtypes, C order,
// format versions 1.0 to 3.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcemu::testing {

struct NpyCodes {
  std::string descr;           // "<f4", "<f2", "|u1", "<u2", ...
  std::vector<size_t> shape;   // C order
  std::vector<uint64_t> bits;  // each element's raw little-endian bits
};

// Reads through tcemu's one strict reader (tcemu/npy_reader.hpp). Throws std::runtime_error
// naming the file and the problem (missing, bad magic, a malformed header, fortran order, a
// big-endian or non-numeric dtype, a shape whose size overflows, truncated or trailing data).
NpyCodes read_npy_codes(const std::string& path);

}  // namespace tcemu::testing
