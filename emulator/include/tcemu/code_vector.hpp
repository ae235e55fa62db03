// Codes of one format held at their container width (1, 2, 4 or 8 bytes an element, as
// container_bytes gives it), read and written as uint64_t values. mma() returns D in one: an
// f32 or s32 D takes 4 bytes an element and an f16 D 2, where a vector of uint64_t took 8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace tcemu {

// Where a kernel writes codes of `width` bytes: element i at p + i * width.
struct CodeSink {
  unsigned char* p = nullptr;
  int width = 8;
  void put(size_t i, uint64_t code) const {
    switch (width) {
      case 1: p[i] = static_cast<uint8_t>(code); break;
      case 2: { const uint16_t v = static_cast<uint16_t>(code); std::memcpy(p + 2 * i, &v, 2); break; }
      case 4: { const uint32_t v = static_cast<uint32_t>(code); std::memcpy(p + 4 * i, &v, 4); break; }
      default: std::memcpy(p + 8 * i, &code, 8); break;
    }
  }
};

class CodeVector {
 public:
  CodeVector() = default;
  // n zero codes of `width` bytes (1, 2, 4 or 8; std::invalid_argument otherwise).
  CodeVector(size_t n, int width) : width_(width) {
    if (width != 1 && width != 2 && width != 4 && width != 8)
      throw std::invalid_argument("CodeVector: width must be 1, 2, 4 or 8 bytes");
    bytes_.assign(n * static_cast<size_t>(width), 0);
  }
  // The codes of `v`, each cut to `width` bytes.
  CodeVector(const std::vector<uint64_t>& v, int width) : CodeVector(v.size(), width) {
    for (size_t i = 0; i < v.size(); ++i) sink().put(i, v[i]);
  }

  size_t size() const { return bytes_.size() / static_cast<size_t>(width_); }
  bool empty() const { return bytes_.empty(); }
  int width() const { return width_; }
  size_t bytes() const { return bytes_.size(); }
  const void* data() const { return bytes_.data(); }
  void* data() { return bytes_.data(); }
  void clear() { bytes_.clear(); }

  uint64_t operator[](size_t i) const {
    const unsigned char* p = bytes_.data();
    switch (width_) {
      case 1: return p[i];
      case 2: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
      case 4: { uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
      default: { uint64_t v; std::memcpy(&v, p + 8 * i, 8); return v; }
    }
  }
  uint64_t at(size_t i) const {
    if (i >= size()) throw std::out_of_range("CodeVector::at: index beyond the codes");
    return (*this)[i];
  }
  void set(size_t i, uint64_t code) { sink().put(i, code); }
  CodeSink sink() { return CodeSink{bytes_.data(), width_}; }
  std::vector<uint64_t> values() const {
    std::vector<uint64_t> v(size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = (*this)[i];
    return v;
  }

  // Reads the codes as values (for range-for and the standard algorithms).
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = uint64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = uint64_t;
    const_iterator() = default;
    const_iterator(const CodeVector* v, size_t i) : v_(v), i_(i) {}
    uint64_t operator*() const { return (*v_)[i_]; }
    uint64_t operator[](difference_type d) const { return (*v_)[i_ + static_cast<size_t>(d)]; }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { const_iterator t = *this; ++i_; return t; }
    const_iterator& operator--() { --i_; return *this; }
    const_iterator operator--(int) { const_iterator t = *this; --i_; return t; }
    const_iterator& operator+=(difference_type d) { i_ += static_cast<size_t>(d); return *this; }
    const_iterator& operator-=(difference_type d) { i_ -= static_cast<size_t>(d); return *this; }
    friend const_iterator operator+(const_iterator a, difference_type d) { return a += d; }
    friend const_iterator operator+(difference_type d, const_iterator a) { return a += d; }
    friend const_iterator operator-(const_iterator a, difference_type d) { return a -= d; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.i_ <=> b.i_; }

   private:
    const CodeVector* v_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  // Equal codes (the widths may differ).
  friend bool operator==(const CodeVector& a, const CodeVector& b) {
    if (a.size() != b.size()) return false;
    if (a.width_ == b.width_) return a.bytes_ == b.bytes_;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  friend bool operator==(const CodeVector& a, const std::vector<uint64_t>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < b.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  std::vector<unsigned char> bytes_;
  int width_ = 8;
};

}  // namespace tcemu
