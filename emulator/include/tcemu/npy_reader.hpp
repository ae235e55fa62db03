// The one .npy reader of tcemu (the golden files, the quantization commands, compare and the
// testing toolkit all read through it). NumPy's format (numpy/lib/format.py, "NPY format"):
// the magic "\x93NUMPY", a version (1.0, 2.0 or 3.0), a little-endian header length (2 bytes
// in 1.0, 4 in 2.0/3.0), a header that is a Python dict literal
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with blanks and ended by a newline, then the data in C order.
//
// The header is parsed strictly, as a grammar, not by searching for keys: exactly the keys
// descr, fortran_order and shape, each once; descr a string naming a little-endian numeric
// dtype; fortran_order False (True is refused: tcemu reads C order only); shape a tuple of
// non-negative decimal integers (a one-element tuple needs its comma, as in Python). The
// element count times the item size is checked for overflow and must equal the bytes after
// the header exactly (no truncated and no trailing data) BEFORE anything is allocated, so a
// lying header costs nothing. Every call returns a Result: the value, or an error "<where>:
// <problem>" (docs/architecture.md, "Errors").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tcemu/result.hpp"

namespace tcemu::npy {

// Limits: NumPy's own reader refuses headers over 10000 bytes by default (max_header_size)
// and arrays of more than 64 dimensions (NPY_MAXDIMS); tcemu allows a larger header.
inline constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
inline constexpr size_t kMaxDims = 64;

struct Header {
  std::string descr;          // canonical: "|u1", "|i1", "|b1", "<f2", "<f4", "<f8", "<u2", "<i4", ...
  char kind = 'u';            // 'f', 'u', 'i' or 'b'
  size_t item_size = 1;       // bytes per element
  std::vector<size_t> shape;  // C order; empty for a scalar
  size_t count = 1;           // product of the shape
  size_t data_offset = 0;     // bytes before the data
  size_t data_bytes = 0;      // count * item_size
};

// Parses the preamble and the header dictionary from the first bytes of a file (`prefix`, at
// least the header; more is ignored) and checks the data size against `file_size`.
Result<Header> parse_header(std::string_view prefix, uint64_t file_size, const std::string& where);

// A dtype string as NumPy writes it ('<f4', '|u1', '=i2'): the canonical descr, kind and
// size, or an error naming the dtype.
Result<Header> parse_descr(std::string_view descr, const std::string& where);

struct Array {
  Header header;
  std::vector<uint8_t> data;  // header.data_bytes bytes, little-endian
};

// A whole file in memory (the fuzz harness, tests).
Result<Array> parse(std::string_view file, const std::string& where);
// Reads a file: the header first, the sizes checked against the file's size, then the data.
Result<Array> read(const std::string& path);

// The product of `shape`; an error on overflow of size_t.
Result<size_t> checked_count(const std::vector<size_t>& shape, const std::string& where);

}  // namespace tcemu::npy
