// The strict .npy header parser and reader (npy_reader.hpp).
#include "tcemu/npy_reader.hpp"

#include <cctype>
#include <fstream>
#include <limits>

namespace tcemu::npy {
namespace {

// Inside this file a problem unwinds to the public function, which returns it (the library's
// convention: docs/architecture.md, "Errors").
struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& where, const std::string& what) { throw Bad(where + ": " + what); }

// f() as a Result: its value, or the message of the problem it found.
template <class F>
auto returned(F&& f) -> Result<decltype(f())> {
  try {
    return {f(), {}};
  } catch (const Bad& e) {
    return Result<decltype(f())>::failure(e.what());
  }
}

// Header text quoted in a message: at most 40 characters, unprintable bytes as '?'.
std::string excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (s.size() > 40) out += "...";
  return out;
}

// A recursive-descent reader of the header's dict literal.
size_t count_of(const std::vector<size_t>& shape, const std::string& where);
Header descr_of(std::string_view d, const std::string& where);

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_order = false, have_shape = false;
    skip_blanks();
    expect('{', "the header must be a dict literal starting with '{'");
    skip_blanks();
    while (!at('}')) {
      const std::string key = string_literal("a key in quotes");
      skip_blanks();
      expect(':', "expected ':' after '" + excerpt(key) + "'");
      skip_blanks();
      if (key == "descr") {
        if (have_descr) bad("duplicate key 'descr'");
        have_descr = true;
        const std::string d = string_literal("descr as a string such as '<f4'");
        const Header t = descr_of(d, where_);
        h.descr = t.descr;
        h.kind = t.kind;
        h.item_size = t.item_size;
      } else if (key == "fortran_order") {
        if (have_order) bad("duplicate key 'fortran_order'");
        have_order = true;
        if (word("False")) {
        } else if (word("True")) {
          bad("fortran_order arrays are not supported (save in C order)");
        } else {
          bad("fortran_order must be True or False, not '" + excerpt(rest()) + "'");
        }
      } else if (key == "shape") {
        if (have_shape) bad("duplicate key 'shape'");
        have_shape = true;
        h.shape = shape_tuple();
      } else {
        bad("unknown header key '" + excerpt(key) + "' (a .npy header has descr, fortran_order and shape)");
      }
      skip_blanks();
      if (at(',')) {
        ++i_;
        skip_blanks();
      } else if (!at('}')) {
        bad("expected ',' or '}' in the header, found '" + excerpt(rest()) + "'");
      }
    }
    ++i_;  // '}'
    skip_blanks();
    if (i_ != s_.size()) bad("unexpected text after the header dict: '" + excerpt(rest()) + "'");
    if (!have_descr) bad("the header has no 'descr'");
    if (!have_order) bad("the header has no 'fortran_order'");
    if (!have_shape) bad("the header has no 'shape'");
    h.count = count_of(h.shape, where_);
    return h;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
  const std::string& where_;

  [[noreturn]] void bad(const std::string& what) const { fail(where_, "malformed .npy header: " + what); }
  std::string_view rest() const { return s_.substr(i_); }
  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void skip_blanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c, const std::string& what) {
    if (!at(c)) bad(what);
    ++i_;
  }
  bool word(std::string_view w) {
    if (rest().substr(0, w.size()) != w) return false;
    const size_t e = i_ + w.size();
    if (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) return false;
    i_ = e;
    return true;
  }
  std::string string_literal(const std::string& what) {
    if (!at('\'') && !at('"')) bad("expected " + what + ", found '" + excerpt(rest()) + "'");
    const char q = s_[i_++];
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' || s_[i_] == '\n') bad("unsupported character in a string literal");
      ++i_;
    }
    if (i_ == s_.size()) bad("unterminated string literal");
    return std::string(s_.substr(start, i_++ - start));
  }
  // '(' [int (',' int)* [',']] ')'; a single element needs its comma, as in Python.
  std::vector<size_t> shape_tuple() {
    if (!at('(')) bad("shape must be a tuple such as (2, 3), not '" + excerpt(rest()) + "'");
    ++i_;
    std::vector<size_t> dims;
    bool trailing_comma = false;
    skip_blanks();
    while (!at(')')) {
      if (dims.size() == kMaxDims) bad("shape has more than " + std::to_string(kMaxDims) + " dimensions");
      dims.push_back(dimension());
      skip_blanks();
      trailing_comma = false;
      if (at(',')) {
        ++i_;
        trailing_comma = true;
        skip_blanks();
      } else if (!at(')')) {
        bad("shape must be a tuple of non-negative integers; found '" + excerpt(rest()) + "'");
      }
    }
    ++i_;
    if (dims.size() == 1 && !trailing_comma) bad("shape (n) is not a tuple; write (n,)");
    return dims;
  }
  size_t dimension() {
    const size_t start = i_;
    if (at('-')) bad("shape has a negative dimension '" + excerpt(token_at(start)) + "'");
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_])))
      bad("shape must be a tuple of non-negative integers; found '" + excerpt(token_at(start)) + "'");
    size_t v = 0;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      const size_t d = static_cast<size_t>(s_[i_] - '0');
      if (v > (std::numeric_limits<size_t>::max() - d) / 10) bad("shape dimension '" + excerpt(token_at(start)) + "' is too large");
      v = v * 10 + d;
      ++i_;
    }
    if (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == '_'))
      bad("shape dimension '" + excerpt(token_at(start)) + "' is not a non-negative integer");
    if (i_ - start > 1 && s_[start] == '0') bad("shape dimension '" + excerpt(token_at(start)) + "' has a leading zero");
    return v;
  }
  std::string_view token_at(size_t start) const {
    size_t e = start;
    while (e < s_.size() && s_[e] != ',' && s_[e] != ')' && s_[e] != ' ') ++e;
    return s_.substr(start, e - start);
  }
};

uint64_t le(std::string_view b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(static_cast<unsigned char>(b[at + k])) << (8 * k);
  return v;
}

// Magic and version; returns the header's length and start.
void preamble(std::string_view b, const std::string& where, size_t& start, size_t& len) {
  if (b.size() < 8 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6)) fail(where, "not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(b[6]), minor = static_cast<unsigned char>(b[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(where, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) + " (1.0, 2.0 and 3.0 are read)");
  const size_t width = major == 1 ? 2 : 4;
  if (b.size() < 8 + width) fail(where, "truncated .npy header");
  start = 8 + width;
  len = static_cast<size_t>(le(b, 8, width));
  if (len > kMaxHeaderBytes)
    fail(where, "the .npy header claims " + std::to_string(len) + " bytes (at most " + std::to_string(kMaxHeaderBytes) + " are read)");
}

size_t count_of(const std::vector<size_t>& shape, const std::string& where) {
  size_t n = 1;
  for (size_t d : shape)
    if (d != 0 && n > std::numeric_limits<size_t>::max() / d) {
      std::string s;
      for (size_t x : shape) s += (s.empty() ? "" : ", ") + std::to_string(x);
      fail(where, "shape (" + s + ") has more elements than this machine can address");
    } else {
      n *= d;
    }
  return n;
}

Header descr_of(std::string_view d, const std::string& where) {
  Header h;
  const std::string shown = "dtype '" + excerpt(d) + "'";
  if (d.size() != 3) fail(where, "unsupported " + shown + " (little-endian numeric dtypes such as '<f4' or '|u1' only)");
  const char order = d[0], kind = d[1], size = d[2];
  if (kind != 'f' && kind != 'u' && kind != 'i' && kind != 'b')
    fail(where, "unsupported " + shown + " (float, unsigned, signed or bool only)");
  if (size != '1' && size != '2' && size != '4' && size != '8') fail(where, "unsupported item size in " + shown);
  h.item_size = static_cast<size_t>(size - '0');
  if ((kind == 'f' && h.item_size == 1) || (kind == 'b' && h.item_size != 1)) fail(where, "unsupported " + shown);
  if (order == '>' && h.item_size > 1) fail(where, "big-endian " + shown + " is not supported (save it little-endian)");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    fail(where, "unsupported " + shown + " (byte order must be '<', '|' or '=')");
  if (order == '|' && h.item_size > 1) fail(where, shown + " needs a byte order ('<')");
  h.kind = kind;
  h.descr = std::string(1, h.item_size == 1 ? '|' : '<') + kind + size;
  return h;
}

Header header_of(std::string_view prefix, uint64_t file_size, const std::string& where) {
  size_t start = 0, len = 0;
  preamble(prefix, where, start, len);
  if (prefix.size() < start + len || file_size < start + len) fail(where, "truncated .npy header");
  Header h = HeaderParser(prefix.substr(start, len), where).parse();
  h.data_offset = start + len;
  if (h.count > std::numeric_limits<size_t>::max() / h.item_size)
    fail(where, "shape holds " + std::to_string(h.count) + " elements of " + std::to_string(h.item_size) +
                    " bytes: more than this machine can address");
  h.data_bytes = h.count * h.item_size;
  const uint64_t have = file_size - h.data_offset;
  const std::string claim = "the header claims " + std::to_string(h.count) + " elements of " + std::to_string(h.item_size) +
                            " bytes (" + std::to_string(h.data_bytes) + " bytes)";
  if (have < h.data_bytes) fail(where, "data truncated: " + claim + ", the file holds " + std::to_string(have));
  if (have > h.data_bytes)
    fail(where, "trailing data: " + claim + ", the file holds " + std::to_string(have - h.data_bytes) + " bytes more");
  return h;
}

Array array_of(std::string_view file, const std::string& where) {
  Array a;
  a.header = header_of(file, file.size(), where);
  const auto* p = reinterpret_cast<const uint8_t*>(file.data()) + a.header.data_offset;
  a.data.assign(p, p + a.header.data_bytes);
  return a;
}

Array file_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) fail(path, "cannot open");
  const std::streamoff end = f.tellg();
  if (end < 0) fail(path, "cannot determine the file's size");
  const uint64_t size = static_cast<uint64_t>(end);
  f.seekg(0);
  std::string pre(12, '\0');
  const size_t got = size < 12 ? static_cast<size_t>(size) : 12;
  if (!f.read(pre.data(), static_cast<std::streamsize>(got))) fail(path, "read error");
  pre.resize(got);
  size_t start = 0, len = 0;
  preamble(pre, path, start, len);
  if (size < start + len) fail(path, "truncated .npy header");
  std::string head(start + len, '\0');
  f.seekg(0);
  if (!f.read(head.data(), static_cast<std::streamsize>(head.size()))) fail(path, "read error");
  Array a;
  a.header = header_of(head, size, path);
  a.data.resize(a.header.data_bytes);  // equal to what the file holds: checked above
  if (a.header.data_bytes && !f.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(a.header.data_bytes)))
    fail(path, "read error in the data");
  return a;
}

}  // namespace

Result<size_t> checked_count(const std::vector<size_t>& shape, const std::string& where) {
  return returned([&] { return count_of(shape, where); });
}
Result<Header> parse_descr(std::string_view descr, const std::string& where) {
  return returned([&] { return descr_of(descr, where); });
}
Result<Header> parse_header(std::string_view prefix, uint64_t file_size, const std::string& where) {
  return returned([&] { return header_of(prefix, file_size, where); });
}
Result<Array> parse(std::string_view file, const std::string& where) {
  return returned([&] { return array_of(file, where); });
}
Result<Array> read(const std::string& path) {
  return returned([&] { return file_of(path); });
}

}  // namespace tcemu::npy
