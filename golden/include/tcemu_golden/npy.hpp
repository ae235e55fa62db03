// NumPy .npy files (format versions 1.0-3.0), so Python users load tcemu's arrays directly.
// Little-endian numeric dtypes only; C order (fortran_order arrays are rejected).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcemu/result.hpp"

namespace tcemu::io {

struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::string descr;          // NumPy dtype string: "<f4", "<f2", "<f8", "|u1", "<u2", "<u4", "<u8", "|i1", "<i4", ...
  std::vector<size_t> shape;  // C order
  std::vector<uint8_t> data;  // count() * item_size() bytes, little-endian
  size_t count() const;
  size_t item_size() const;   // from descr
  // Element i as its raw little-endian bits (zero-extended).
  uint64_t bits(size_t i) const;
};

// Reads a .npy file through the strict reader of tcemu/npy_reader.hpp; NpyError names the
// file and the problem (bad magic, a malformed header, unsupported dtype, fortran order, a
// size that overflows, truncated or trailing data, ...), before allocating what it claims.
// try_read_npy: the same as a Result (error: the message read_npy throws, byte for byte).
Result<NpyArray> try_read_npy(const std::string& path);
NpyArray read_npy(const std::string& path);
// try_write_npy returns the message write_npy throws ("PATH: cannot write", ...), empty on success.
std::string try_write_npy(const std::string& path, const NpyArray& a);
void write_npy(const std::string& path, const NpyArray& a);

// An array of `shape` from raw element bits, stored with the given dtype.
NpyArray make_npy(const std::string& descr, std::vector<size_t> shape, const std::vector<uint64_t>& bits);

}  // namespace tcemu::io
