// The one .npy reader (tcemu/npy_reader.hpp): files as NumPy 1.24 writes them (np.save, the
// bytes below) are read; every hostile header of issue 13 is refused with an error naming
// the problem, before any allocation of the size the header claims. The golden reader
// (io::read_npy) and the testing toolkit (testing::read_npy_codes) go through it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "tcemu/npy_reader.hpp"
#include "tcemu/testing/npy.hpp"
#include "tcemu_golden/npy.hpp"

namespace {

// The array a well-formed file parses to (the test fails on an error).
tcemu::npy::Array parsed(const std::string& file, const std::string& where) {
  tcemu::Result<tcemu::npy::Array> r = tcemu::npy::parse(file, where);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.value;
}

// magic, version 1.0, header length, header padded with blanks to a multiple of 64 and '\n'.
std::string npy_file(const std::string& dict, const std::string& data = "", int major = 1) {
  std::string h = dict;
  const size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string f("\x93NUMPY", 6);
  f += static_cast<char>(major);
  f += '\0';
  f += static_cast<char>(h.size() & 0xff);
  f += static_cast<char>((h.size() >> 8) & 0xff);
  if (major != 1) f += std::string(2, '\0');
  return f + h + data;
}

std::string parse_error(const std::string& file) {
  const tcemu::Result<tcemu::npy::Array> r = tcemu::npy::parse(file, "x.npy");
  return r.ok() ? "(accepted)" : r.error;
}

#define EXPECT_REFUSED(file, fragment)                                              \
  do {                                                                              \
    const std::string msg_ = parse_error(file);                                     \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << msg_;                      \
    EXPECT_EQ(msg_.rfind("x.npy: ", 0), 0u) << msg_;                                \
  } while (0)

TEST(NpyReader, ReadsWhatNumpyWrites) {
  // np.save(b, np.array([[1,2,3],[4,5,6]], dtype='<f4')) with NumPy 1.24.2: 128 header bytes.
  std::string f = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  ASSERT_EQ(f.size(), 128u);
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) f.append(reinterpret_cast<const char*>(&v), 4);
  const tcemu::npy::Array a = parsed(f, "x.npy");
  EXPECT_EQ(a.header.descr, "<f4");
  EXPECT_EQ(a.header.shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(a.header.count, 6u);
  EXPECT_EQ(a.header.data_offset, 128u);
  ASSERT_EQ(a.data.size(), 24u);
  EXPECT_EQ(a.data[20], 0x00);
  EXPECT_EQ(a.data[23], 0x40);  // 6.0f = 0x40c00000
  // A 0-d array (shape ()), a 1-tuple, an empty array, version 2.0, double quotes, no comma.
  EXPECT_EQ(parsed(npy_file("{'descr': '<u2', 'fortran_order': False, 'shape': (), }", std::string("\x07\x00", 2)), "x").header.count, 1u);
  EXPECT_EQ(parsed(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", "abc"), "x").header.shape,
            (std::vector<size_t>{3}));
  EXPECT_EQ(parsed(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 5), }"), "x").header.count, 0u);
  EXPECT_EQ(parsed(npy_file("{\"shape\": (2,), \"descr\": \"<u2\", \"fortran_order\": False}", "abcd", 2), "x")
                .header.count,
            2u);
  // '<u1' and '=u1' are the same dtype as '|u1'.
  EXPECT_EQ(parsed(npy_file("{'descr': '<u1', 'fortran_order': False, 'shape': (1,), }", "a"), "x").header.descr, "|u1");
}

TEST(NpyReader, RefusesLooseHeaders) {
  // Issue 13: shape as the string '128,256' (once read as 28 x 25), fortran_order 'yes',
  // shape 128.5, duplicate keys, trailing data; and the other ways a dict can be wrong.
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': '128,256', }"), "shape must be a tuple");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': 'yes', 'shape': (2,), }"), "fortran_order must be True or False");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }"), "fortran_order arrays are not supported");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (128.5,), }"), "'128.5' is not a non-negative integer");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }"), "duplicate key 'shape'");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'descr': '<f2', 'fortran_order': False, 'shape': (2,), }"), "duplicate key 'descr'");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", "abc"), "trailing data");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), } junk"), "unexpected text after the header");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (-1,), }"), "negative dimension");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (4), }"), "write (n,)");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, }"), "no 'shape'");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "a"), "unknown header key 'extra'");
  EXPECT_REFUSED(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "abcd"), "big-endian");
  EXPECT_REFUSED(npy_file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"), "unsupported dtype '<c8'");
  EXPECT_REFUSED(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"), "descr as a string");
  EXPECT_REFUSED(std::string("\x93NUMPX\x01\x00", 8), "bad magic");
  EXPECT_REFUSED(std::string("\x93NUMPY\x04\x00\x10\x00", 10), "unsupported .npy version 4.0");
  EXPECT_REFUSED(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17), "truncated .npy header");
}

TEST(NpyReader, RefusesSizesBeforeAllocating) {
  // Issue 13: shape (2^40, 2^30) overflows 64 bits; (2^62, 1) of f32 overflows in bytes;
  // 2^30 f32 in a small file and (2^32, 4) u8 are refused by size, not after a 4 GB vector.
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1073741824), }"),
                 "more elements than this machine can address");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 1), }"),
                 "more than this machine can address");
  EXPECT_REFUSED(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", std::string(16, '\0')),
                 "data truncated: the header claims 1073741824 elements of 4 bytes (4294967296 bytes), the file holds 16");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4), }", std::string(32, '\0')),
                 "data truncated");
  EXPECT_REFUSED(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999999,), }"), "too large");
  // A header length beyond the file.
  EXPECT_REFUSED(std::string("\x93NUMPY\x02\x00\xff\xff\x00\x00{}", 14), "truncated .npy header");
}

TEST(NpyReader, GoldenAndTestingReadersShareIt) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tcemu_npy_reader_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "lying.npy").string();
  {
    std::ofstream f(path, std::ios::binary);
    f << npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", std::string(16, '\0'));
  }
  try {
    tcemu::io::read_npy(path);
    ADD_FAILURE() << "accepted";
  } catch (const tcemu::io::NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("data truncated"), std::string::npos) << e.what();
  }
  try {
    tcemu::testing::read_npy_codes(path);
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": data truncated"), std::string::npos) << e.what();
  }
  // What write_npy writes reads back.
  tcemu::io::write_npy(path, tcemu::io::make_npy("<u2", {2, 2}, {1, 2, 3, 0xffff}));
  const tcemu::testing::NpyCodes c = tcemu::testing::read_npy_codes(path);
  EXPECT_EQ(c.bits, (std::vector<uint64_t>{1, 2, 3, 0xffff}));
  EXPECT_THROW(tcemu::io::read_npy((dir / "missing.npy").string()), tcemu::io::NpyError);
  std::filesystem::remove_all(dir);
}

}  // namespace
