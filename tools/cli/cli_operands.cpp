// The .npy operand helpers of cli_operands.hpp.
#include "cli_operands.hpp"

#include <climits>
#include <cstdio>

#include "cli_util.hpp"

namespace tcemu::cli {

bool col_order(const std::string& s, const char* flag) {
  if (s == "row") return false;
  if (s == "col") return true;
  throw InputError(std::string(flag) + ": must be row or col, not '" + s + "'");
}

// The .npy file's 2-D shape: [rows, cols] for row order, [cols, rows] for col order.
std::pair<size_t, size_t> logical_shape(const io::NpyArray& a, const std::string& path, bool col) {
  if (a.shape.size() != 2)
    throw InputError(path + ": a matrix needs 2 dimensions, the file has " + std::to_string(a.shape.size()));
  if (a.shape[0] == 0 || a.shape[1] == 0) throw InputError(path + ": the matrix is empty");
  if (a.shape[0] > INT_MAX || a.shape[1] > INT_MAX) throw InputError(path + ": a dimension is above 2^31 - 1");
  return col ? std::pair{a.shape[1], a.shape[0]} : std::pair{a.shape[0], a.shape[1]};
}

// Storage (.npy order) to logical row-major.
Matrix to_logical(std::vector<uint64_t> storage, size_t rows, size_t cols, bool col) {
  Matrix m{rows, cols, {}};
  if (!col) {
    m.codes = std::move(storage);
    return m;
  }
  m.codes.resize(rows * cols);
  for (size_t c = 0; c < cols; ++c)
    for (size_t r = 0; r < rows; ++r) m.codes[r * cols + c] = storage[c * rows + r];
  return m;
}

// Codes of type t: the dtype's items must be t's container, every code within t's width.
Matrix read_codes(const std::string& path, const std::string& what, const golden::ElemType& t, bool col) {
  const io::NpyArray a = io::read_npy(path);
  const auto [rows, cols] = logical_shape(a, path, col);
  if (a.item_size() != static_cast<size_t>(t.bytes))
    throw InputError(path + ": " + what + " holds " + t.name + " codes, " + std::to_string(t.bytes) +
                     "-byte items (e.g. " + golden::npy_descr(t) + "), but its dtype '" + a.descr + "' has " +
                     std::to_string(a.item_size()) + "-byte items" +
                     (t.fmt && *t.fmt != Fmt::s32 && a.descr[1] == 'f' ? " (values? then give --from-values)" : ""));
  std::vector<uint64_t> s(a.count());
  for (size_t i = 0; i < s.size(); ++i) {
    s[i] = a.bits(i);
    if (!golden::code_in_range(t, s[i]))
      throw InputError(path + ": element " + std::to_string(i) + " (storage order) is 0x" +
                       [](uint64_t v) { char b[24]; std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v)); return std::string(b); }(s[i]) +
                       ", not a " + t.name + " code");
  }
  return to_logical(std::move(s), rows, cols, col);
}

std::string side_file(const std::string& out) {
  const std::string ext = ".npy";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".json";
  return out + ".json";
}


}  // namespace tcemu::cli
