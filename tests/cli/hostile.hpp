// What the hostile-input tests of tests/cli share: the refusal they expect (status 2, the
// problem named, no C++ internals), .npy files built byte by byte (headers that lie) and f32
// .npy files written with the golden library's writer.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu_test {

// Status 2, `fragment` in the message, no C++ internals.
inline void expect_refused(const CliRun& r, const std::string& fragment, const std::string& what) {
  EXPECT_EQ(r.rc, 2) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << what << ": " << r.err;
  for (const char* internal : {"std::", "vector::", "basic_string", "bad_alloc", "_M_", "max_size()", "stoi", "stoul"})
    EXPECT_EQ(r.err.find(internal), std::string::npos) << what << ": " << r.err;
}

// An .npy file with the given header dict (padded as NumPy pads it) and data.
inline std::string npy(const std::string& dict, const std::string& data = "") {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string f("\x93NUMPY\x01\x00", 8);
  f += static_cast<char>(h.size() & 0xff);
  f += static_cast<char>(h.size() >> 8);
  return f + h + data;
}

inline std::string f32_npy(const std::string& path, std::vector<size_t> shape, const std::vector<float>& v) {
  std::vector<uint64_t> bits;
  for (float x : v) bits.push_back(std::bit_cast<uint32_t>(x));
  tcemu::io::write_npy(path, tcemu::io::make_npy("<f4", std::move(shape), bits));
  return path;
}

}  // namespace tcemu_test
