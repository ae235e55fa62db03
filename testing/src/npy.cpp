// A small .npy reader (NumPy's format description: magic, version, header length, a Python
// dict literal with descr / fortran_order / shape, then the data).
#include "tcemu/testing/npy.hpp"

#include <cctype>
#include <fstream>
#include <iterator>

namespace tcemu::testing {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  std::string msg = path;
  msg += ": ";
  msg += what;
  throw std::runtime_error(msg);
}

// The text of a header field's value, from after "'key':" to the next top-level comma.
std::string field(const std::string& header, const std::string& key, const std::string& path) {
  const std::string quoted = "'" + key + "'";
  const size_t k = header.find(quoted);
  if (k == std::string::npos) fail(path, "the .npy header has no " + key);
  size_t i = header.find(':', k + quoted.size());
  if (i == std::string::npos) fail(path, "the .npy header is malformed near " + key);
  ++i;
  while (i < header.size() && std::isspace(static_cast<unsigned char>(header[i]))) ++i;
  size_t j = i;
  int depth = 0;
  while (j < header.size() && !(depth == 0 && (header[j] == ',' || header[j] == '}'))) {
    if (header[j] == '(') ++depth;
    if (header[j] == ')') --depth;
    ++j;
  }
  return header.substr(i, j - i);
}

}  // namespace

NpyCodes read_npy_codes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail(path, "not a .npy file (bad magic)");
  const auto u8 = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  const int major = static_cast<int>(u8(6));
  size_t header_len, start;
  if (major == 1) {
    header_len = u8(8) | u8(9) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(path, "truncated header");
    header_len = u8(8) | u8(9) << 8 | u8(10) << 16 | u8(11) << 24;
    start = 12;
  } else {
    fail(path, "unsupported .npy version " + std::to_string(major));
  }
  if (bytes.size() < start + header_len) fail(path, "truncated header");
  const std::string header = bytes.substr(start, header_len);

  NpyCodes out;
  std::string descr = field(header, "descr", path);
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"')) fail(path, "descr is not a string: " + descr);
  out.descr = descr.substr(1, descr.size() - 2);
  if (field(header, "fortran_order", path) != "False") fail(path, "fortran_order arrays are not supported");
  const std::string& d = out.descr;
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|') || (d[1] != 'f' && d[1] != 'u' && d[1] != 'i' && d[1] != 'b')) {
    fail(path, "unsupported dtype " + d + " (little-endian numeric types only)");
  }
  const size_t item = static_cast<size_t>(std::stoul(d.substr(2)));
  if (item == 0 || item > 8) fail(path, "unsupported item size in dtype " + d);

  const std::string shape = field(header, "shape", path);
  size_t count = 1;
  for (size_t i = 0; i < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[i]))) {
      size_t j = i;
      while (j < shape.size() && std::isdigit(static_cast<unsigned char>(shape[j]))) ++j;
      out.shape.push_back(static_cast<size_t>(std::stoull(shape.substr(i, j - i))));
      count *= out.shape.back();
      i = j;
    } else {
      ++i;
    }
  }
  const size_t data = start + header_len;
  if (bytes.size() < data + count * item) fail(path, "truncated data: expected " + std::to_string(count) + " elements");
  out.bits.resize(count);
  for (size_t e = 0; e < count; ++e) {
    uint64_t v = 0;
    for (size_t b = 0; b < item; ++b) v |= static_cast<uint64_t>(u8(data + e * item + b)) << (8 * b);
    out.bits[e] = v;
  }
  return out;
}

}  // namespace tcemu::testing
