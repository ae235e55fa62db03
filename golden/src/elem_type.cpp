// Element types of golden arrays, their containers and hex widths.
#include <cstdio>
#include <cstring>

#include "tcemu_golden/golden.hpp"

namespace tcemu::golden {

ElemType elem_type(Fmt f) {
  const FormatInfo& fi = info(f);
  ElemType t;
  t.name = std::string(fi.name);
  t.fmt = f;
  t.bits = fi.width;
  t.bytes = static_cast<int>(container_bytes(f));
  t.hex_digits = fi.hex_digits;
  return t;
}

ElemType bits_type(int bits) {
  std::string name = "b";
  name += std::to_string(bits);
  return ElemType{name, std::nullopt, bits, bits / 8, bits / 4};
}

std::optional<ElemType> parse_elem_type(std::string_view name) {
  if (name == "b8") return bits_type(8);
  if (name == "b16") return bits_type(16);
  if (name == "b32") return bits_type(32);
  if (name == "b64") return bits_type(64);
  // Only the canonical names: a file names its types exactly. Every format, the s32
  // accumulator included.
  for (const FormatInfo& fi : kAllFormats)
    if (fi.name == name) return elem_type(fi.id);
  return std::nullopt;
}

bool code_in_range(const ElemType& t, uint64_t code) {
  if (t.bits < 64 && (code >> t.bits) != 0) return false;
  return true;  // within the width every code is a code (tf32 low bits: ignored by the MMA)
}

std::string npy_descr(const ElemType& t) {
  if (t.fmt == Fmt::f32 || t.fmt == Fmt::tf32) return "<f4";
  if (t.fmt == Fmt::f16) return "<f2";
  if (t.fmt == Fmt::f64) return "<f8";
  if (t.fmt == Fmt::s8) return "|i1";
  if (t.fmt == Fmt::s32) return "<i4";
  switch (t.bytes) {
    case 1: return "|u1";
    case 2: return "<u2";
    case 4: return "<u4";
    default: return "<u8";
  }
}

void Array::set(size_t r, size_t c, uint64_t code) {
  std::memcpy(raw.data() + index(r, c) * static_cast<size_t>(type.bytes), &code, static_cast<size_t>(type.bytes));
}

std::vector<uint64_t> Array::logical() const {
  std::vector<uint64_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = at(r, c);
  return out;
}

Array make_array(const ElemType& t, size_t rows, size_t cols, const std::vector<uint64_t>& codes, bool col_major,
                 bool is_vector) {
  Array a;
  a.type = t;
  a.rows = rows;
  a.cols = is_vector ? 1 : cols;
  a.is_vector = is_vector;
  a.col_major = col_major && !is_vector;
  a.raw.assign(a.storage_count() * static_cast<size_t>(t.bytes), 0);
  for (size_t r = 0; r < a.rows; ++r)
    for (size_t c = 0; c < a.cols; ++c) a.set(r, c, codes[r * a.cols + c]);
  return a;
}

std::string to_hex_string(const Array& a) {
  static const char* digits = "0123456789abcdef";
  const size_t n = a.storage_count(), w = static_cast<size_t>(a.type.hex_digits);
  std::string s(n * w, '0');
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = a.at_storage(i);
    for (size_t j = 0; j < w; ++j) s[i * w + (w - 1 - j)] = digits[(v >> (4 * j)) & 0xF];
  }
  return s;
}

std::string f32_hex(uint32_t bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", bits);
  return buf;
}

std::optional<uint32_t> parse_f32_hex(std::string_view s) {
  if (s.size() != 10 || s[0] != '0' || s[1] != 'x') return std::nullopt;
  uint32_t v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    const char ch = s[i];
    const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = (v << 4) | static_cast<uint32_t>(d);
  }
  return v;
}

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::mma: return "mma";
    case OpKind::convert: return "convert";
    case OpKind::cvt: return "cvt";
    case OpKind::quantize: return "quantize";
  }
  return "?";
}

}  // namespace tcemu::golden
