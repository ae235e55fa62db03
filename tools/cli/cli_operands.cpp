// The .npy operand helpers of cli_operands.hpp.
#include "cli_operands.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>

#include "tcemu/parallel.hpp"

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

// body(i0, i1) for consecutive ranges covering [0, n), on every core (the per-element work of
// reading and writing operands, which would otherwise be the serial part of a long run). An
// exception is that of the lowest range that threw (parallel_for), so the first bad element
// is reported whatever the thread count.
void for_ranges(size_t n, const std::function<void(size_t, size_t)>& body) {
  constexpr size_t kRange = size_t{1} << 16;
  parallel_for((n + kRange - 1) / kRange, Exec{}, [&](size_t c) { body(c * kRange, std::min(n, (c + 1) * kRange)); });
}

// dst (rows x cols, row-major) = the transpose of src (cols x rows, row-major), in blocks of
// 64 x 64 (cache-sized), blocks of rows on every core.
void transpose(const uint64_t* src, uint64_t* dst, size_t rows, size_t cols) {
  constexpr size_t kB = 64;
  parallel_for((rows + kB - 1) / kB, Exec{}, [&](size_t rb) {
    const size_t r0 = rb * kB, r1 = std::min(rows, r0 + kB);
    for (size_t c0 = 0; c0 < cols; c0 += kB)
      for (size_t r = r0; r < r1; ++r)
        for (size_t c = c0; c < std::min(cols, c0 + kB); ++c) dst[r * cols + c] = src[c * rows + r];
  });
}

// Storage (.npy order) to logical row-major.
Matrix to_logical(std::vector<uint64_t> storage, size_t rows, size_t cols, bool col) {
  Matrix m{rows, cols, {}};
  if (!col) {
    m.codes = std::move(storage);
    return m;
  }
  m.codes.resize(rows * cols);
  transpose(storage.data(), m.codes.data(), rows, cols);
  return m;
}

// Codes of type t: the dtype's items must be t's container, every code within t's width.
Matrix read_codes(const std::string& path, const std::string& what, const golden::ElemType& t, bool col,
                  const char* values_hint) {
  const io::NpyArray a = value_of(io::try_read_npy(path));
  const auto [rows, cols] = logical_shape(a, path, col);
  if (a.item_size() != static_cast<size_t>(t.bytes))
    throw InputError(path + ": " + what + " holds " + t.name + " codes, " + std::to_string(t.bytes) +
                     "-byte items (e.g. " + golden::npy_descr(t) + "), but its dtype '" + a.descr + "' has " +
                     std::to_string(a.item_size()) + "-byte items" +
                     (values_hint && t.fmt && *t.fmt != Fmt::s32 && a.descr[1] == 'f' ? values_hint : ""));
  std::vector<uint64_t> s(a.count());
  const size_t item = a.item_size();
  for_ranges(s.size(), [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, a.data.data() + i * item, item);  // little-endian, as NpyArray::bits
      s[i] = v;
      if (!golden::code_in_range(t, v))
        throw InputError(path + ": element " + std::to_string(i) + " (storage order) is 0x" +
                         [](uint64_t x) { char b[24]; std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(x)); return std::string(b); }(v) +
                         ", not a " + t.name + " code");
    }
  });
  return to_logical(std::move(s), rows, cols, col);
}


std::string side_file(const std::string& out) {
  const std::string ext = ".npy";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".json";
  return out + ".json";
}


}  // namespace tcemu::cli
