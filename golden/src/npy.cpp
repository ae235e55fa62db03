#include "tcemu_golden/npy.hpp"

#include <cstring>
#include <fstream>
#include "tcemu/npy_reader.hpp"

namespace tcemu::io {
size_t NpyArray::item_size() const {
  Result<npy::Header> h = npy::parse_descr(descr, "npy");
  if (!h.ok()) throw NpyError(h.error);
  return h.value.item_size;
}

size_t NpyArray::count() const {
  Result<size_t> n = npy::checked_count(shape, "npy");
  if (!n.ok()) throw NpyError(n.error);
  return n.value;
}

uint64_t NpyArray::bits(size_t i) const {
  const size_t s = item_size();
  if (i >= data.size() / s) throw NpyError("npy: element " + std::to_string(i) + " is outside the array's data");
  uint64_t v = 0;
  std::memcpy(&v, data.data() + i * s, s);  // little-endian host
  return v;
}

NpyArray read_npy(const std::string& path) {
  Result<npy::Array> read = npy::read(path);
  if (!read.ok()) throw NpyError(read.error);
  npy::Array& r = read.value;
  NpyArray a;
  a.descr = std::move(r.header.descr);
  a.shape = std::move(r.header.shape);
  a.data = std::move(r.data);
  return a;
}

void write_npy(const std::string& path, const NpyArray& a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i) shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 || i + 1 < a.shape.size() ? "," : "");
  shape += ")";
  std::string h = "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h.push_back('\n');
  if (h.size() > 65535) throw NpyError(path + ": header too large");
  std::ofstream f(path, std::ios::binary);
  if (!f) throw NpyError(path + ": cannot write");
  const char ver[2] = {1, 0};
  f.write("\x93NUMPY", 6);
  f.write(ver, 2);
  const unsigned char len[2] = {static_cast<unsigned char>(h.size() & 0xff), static_cast<unsigned char>(h.size() >> 8)};
  f.write(reinterpret_cast<const char*>(len), 2);
  f.write(h.data(), static_cast<std::streamsize>(h.size()));
  f.write(reinterpret_cast<const char*>(a.data.data()), static_cast<std::streamsize>(a.data.size()));
  if (!f) throw NpyError(path + ": write failed");
}

NpyArray make_npy(const std::string& descr, std::vector<size_t> shape, const std::vector<uint64_t>& bits) {
  NpyArray a;
  a.descr = descr;
  a.shape = std::move(shape);
  const size_t s = a.item_size();
  if (a.count() != bits.size()) throw NpyError("make_npy: shape holds " + std::to_string(a.count()) + " elements, given " + std::to_string(bits.size()));
  a.data.resize(bits.size() * s);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(a.data.data() + i * s, &bits[i], s);
  return a;
}

}  // namespace tcemu::io
