// .npy operands of the matrix commands (tcemu mma, tcemu gemm): a matrix read in row or
// column storage order as logical row-major codes, checked against its type, and the JSON
// side file's name beside an output .npy.
#pragma once

#include <cstdint>
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

// Storage (.npy order) to logical row-major.
Matrix to_logical(std::vector<uint64_t> storage, size_t rows, size_t cols, bool col);

// Codes of type t: the dtype's items must be t's container, every code within t's width.
Matrix read_codes(const std::string& path, const std::string& what, const golden::ElemType& t, bool col);

// D.npy -> D.json (else OUT + ".json").
std::string side_file(const std::string& out);

}  // namespace tcemu::cli
