// .npy operands of the matrix commands (tcemu mma, tcemu gemm): a matrix read in row or
// column storage order as logical row-major codes, checked against its type, and the JSON
// side file's name beside an output .npy.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::cli {

// "row" -> false, "col" -> true; InputError naming `flag` otherwise.
bool col_order(const std::string& s, const char* flag);

// A matrix read from a .npy file: its logical rows x cols, row-major, as 64-bit codes.
struct Matrix {
  size_t rows = 0, cols = 0;
  std::vector<uint64_t> codes;
};

// The .npy file's 2-D shape: [rows, cols] for row order, [cols, rows] for col order.
std::pair<size_t, size_t> logical_shape(const io::NpyArray& a, const std::string& path, bool col);

// body(i0, i1) for consecutive ranges covering [0, n), on every core; an exception is that of
// the lowest range that threw, so the first bad element is reported whatever the thread count.
void for_ranges(size_t n, const std::function<void(size_t, size_t)>& body);

// dst (rows x cols, row-major) = the transpose of src (cols x rows, row-major), in 64 x 64
// blocks, blocks of rows on every core.
void transpose(const uint64_t* src, uint64_t* dst, size_t rows, size_t cols);

// Storage (.npy order) to logical row-major.
Matrix to_logical(std::vector<uint64_t> storage, size_t rows, size_t cols, bool col);

// Codes of type t: the dtype's items must be t's container, every code within t's width.
Matrix read_codes(const std::string& path, const std::string& what, const golden::ElemType& t, bool col,
                  const char* values_hint = nullptr);

// D.npy -> D.json (else OUT + ".json").
std::string side_file(const std::string& out);

}  // namespace tcemu::cli
