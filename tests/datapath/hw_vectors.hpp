// Loading the real-hardware dot products shipped in tests/data/hw-vectors (see its README:
// rows 1-2500 of Khattak & Mikaitis' model_validation files, gzip-compressed): a/b rows of f32
// bit patterns in hex, c and d as 32-character binary f32 patterns. A missing, truncated or
// malformed file is an error (HwDataError), never a skip: these rows are the evidence.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcemu/format.hpp"

namespace tcemu::test {

// Rows per shipped file (tests/data/hw-vectors/SOURCE).
inline constexpr size_t kHwRows = 2500;

struct HwDataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct HwSet {
  std::vector<std::vector<uint32_t>> a, b;  // f32 bit patterns
  std::vector<uint32_t> c, d;               // f32 bit patterns
};

inline std::filesystem::path hw_root() { return std::filesystem::path(TCEMU_HW_VECTORS); }

// The whole decompressed text of a .gz file; throws when it is absent or the stream is
// damaged or cut short (zlib reports a truncated stream at gzread or gzclose).
inline std::string read_gz(const std::filesystem::path& p) {
  if (!std::filesystem::is_regular_file(p)) throw HwDataError("hw-vectors file missing: " + p.string());
  gzFile f = gzopen(p.c_str(), "rb");
  if (!f) throw HwDataError("cannot open " + p.string());
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int err = 0;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      throw HwDataError("corrupt or truncated " + p.string() + ": " + msg);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  int err = 0;
  const char* msg = gzerror(f, &err);
  const std::string why = msg ? msg : "";
  if (gzclose(f) != Z_OK || (err != Z_OK && err != Z_STREAM_END))
    throw HwDataError("corrupt or truncated " + p.string() + ": " + why);
  return text;
}

inline uint32_t parse_word(const std::string& tok, int base, size_t digits, const std::filesystem::path& p,
                           size_t line) {
  const bool ok = tok.size() == digits && tok.find_first_not_of(base == 16 ? "0123456789abcdefABCDEF" : "01") ==
                                              std::string::npos;
  if (!ok) throw HwDataError(p.string() + " line " + std::to_string(line) + ": bad word '" + tok.substr(0, 40) + "'");
  return static_cast<uint32_t>(std::stoul(tok, nullptr, base));
}

// Every line holds the same number of words (an a/b file) or exactly one (c/d); exactly
// kHwRows lines.
inline std::vector<std::vector<uint32_t>> read_rows(const std::filesystem::path& p, int base) {
  const size_t digits = base == 16 ? 8 : 32;
  std::istringstream in(read_gz(p));
  std::vector<std::vector<uint32_t>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<uint32_t> row;
    std::string tok;
    while (ss >> tok) row.push_back(parse_word(tok, base, digits, p, rows.size() + 1));
    if (row.empty()) throw HwDataError(p.string() + " line " + std::to_string(rows.size() + 1) + " is empty");
    if (!rows.empty() && row.size() != rows.front().size())
      throw HwDataError(p.string() + " line " + std::to_string(rows.size() + 1) + " has " +
                        std::to_string(row.size()) + " words, line 1 has " + std::to_string(rows.front().size()));
    rows.push_back(std::move(row));
  }
  if (rows.size() != kHwRows)
    throw HwDataError(p.string() + ": " + std::to_string(rows.size()) + " lines, expected " + std::to_string(kHwRows));
  return rows;
}

inline std::vector<uint32_t> read_column(const std::filesystem::path& p) {
  std::vector<uint32_t> v;
  for (const auto& row : read_rows(p, 2)) {
    if (row.size() != 1) throw HwDataError(p.string() + ": more than one word per line");
    v.push_back(row[0]);
  }
  return v;
}

// gpu "H100", dir "E4M3", out "fp32"/"fp16", from folder root. Throws HwDataError when a file
// is missing, truncated or malformed, or a and b differ in shape.
inline HwSet load_hw_set(const std::string& gpu, const std::string& dir, const std::string& out,
                         const std::filesystem::path& root = hw_root()) {
  const auto base = root / gpu / dir;
  HwSet s{read_rows(base / ("a_" + gpu + "_" + dir + ".txt.gz"), 16),
          read_rows(base / ("b_" + gpu + "_" + dir + ".txt.gz"), 16),
          read_column(base / ("c_" + gpu + "_fp32.txt.gz")), read_column(base / ("d_" + gpu + "_" + out + ".txt.gz"))};
  if (s.a.front().size() != s.b.front().size())
    throw HwDataError(base.string() + ": a rows hold " + std::to_string(s.a.front().size()) + " operands, b rows " +
                      std::to_string(s.b.front().size()));
  return s;
}

// The code of format f holding exactly the value of the f32 pattern x (nullopt if none).
inline std::optional<uint64_t> code_from_f32(Fmt f, uint32_t x) {
  if (f == Fmt::f32) return x;
  const Decoded d = decode(Fmt::f32, x);
  if (d.cls == Class::nan || d.cls == Class::inf) return std::nullopt;
  if (d.cls == Class::zero) return zero_code(f, d.sign);
  return encode_exact(f, d.sign, d.sig, d.exp);
}

}  // namespace tcemu::test
