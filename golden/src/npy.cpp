#include "tcemu_golden/npy.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace tcemu::io {
namespace {

size_t descr_size(const std::string& d, const std::string& where) {
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) throw NpyError(where + ": unsupported dtype '" + d + "' (little-endian numeric dtypes only)");
  const char kind = d[1];
  if (kind != 'f' && kind != 'u' && kind != 'i' && kind != 'b') throw NpyError(where + ": unsupported dtype '" + d + "'");
  const std::string n = d.substr(2);
  if (n != "1" && n != "2" && n != "4" && n != "8") throw NpyError(where + ": unsupported dtype size in '" + d + "'");
  return static_cast<size_t>(std::stoi(n));
}

// Finds 'key': value in the header dictionary (a Python literal).
std::string dict_value(const std::string& h, const std::string& key, const std::string& where) {
  size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) throw NpyError(where + ": header has no '" + key + "'");
  size_t c = h.find(':', k);
  if (c == std::string::npos) throw NpyError(where + ": malformed header");
  size_t s = h.find_first_not_of(' ', c + 1);
  if (s == std::string::npos) throw NpyError(where + ": malformed header");
  if (h[s] == '\'') {
    size_t e = h.find('\'', s + 1);
    if (e == std::string::npos) throw NpyError(where + ": malformed header");
    return h.substr(s + 1, e - s - 1);
  }
  if (h[s] == '(') {
    size_t e = h.find(')', s);
    if (e == std::string::npos) throw NpyError(where + ": malformed header");
    return h.substr(s, e - s + 1);
  }
  size_t e = h.find_first_of(",}", s);
  return h.substr(s, e - s);
}

}  // namespace

size_t NpyArray::item_size() const { return descr_size(descr, "npy"); }

size_t NpyArray::count() const {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

uint64_t NpyArray::bits(size_t i) const {
  const size_t s = item_size();
  uint64_t v = 0;
  std::memcpy(&v, data.data() + i * s, s);  // little-endian host
  return v;
}

NpyArray read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw NpyError(path + ": cannot open");
  char magic[8];
  if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw NpyError(path + ": not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t hlen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!f.read(reinterpret_cast<char*>(b), 2)) throw NpyError(path + ": truncated header");
    hlen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!f.read(reinterpret_cast<char*>(b), 4)) throw NpyError(path + ": truncated header");
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  } else {
    throw NpyError(path + ": unsupported .npy version " + std::to_string(major));
  }
  if (hlen > (1u << 20)) throw NpyError(path + ": header too large");
  std::string h(hlen, '\0');
  if (!f.read(h.data(), hlen)) throw NpyError(path + ": truncated header");
  NpyArray a;
  a.descr = dict_value(h, "descr", path);
  descr_size(a.descr, path);
  std::string fo = dict_value(h, "fortran_order", path);
  if (fo.find("True") != std::string::npos) throw NpyError(path + ": fortran_order arrays are not supported (save in C order)");
  std::string shape = dict_value(h, "shape", path);
  std::string inner = shape.substr(1, shape.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t s = item.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    try {
      a.shape.push_back(static_cast<size_t>(std::stoull(item.substr(s))));
    } catch (...) {
      throw NpyError(path + ": malformed shape '" + shape + "'");
    }
  }
  const size_t bytes = a.count() * a.item_size();
  a.data.resize(bytes);
  if (bytes && !f.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(bytes)))
    throw NpyError(path + ": data truncated (expected " + std::to_string(bytes) + " bytes)");
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
  const size_t s = descr_size(descr, "make_npy");
  if (a.count() != bits.size()) throw NpyError("make_npy: shape holds " + std::to_string(a.count()) + " elements, given " + std::to_string(bits.size()));
  a.data.resize(bits.size() * s);
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(a.data.data() + i * s, &bits[i], s);
  return a;
}

}  // namespace tcemu::io
