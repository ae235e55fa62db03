// Loading the real-hardware dot products of ../shared/data/hw-vectors (see its README):
// a/b rows of f32 bit patterns in hex, c and d as 32-character binary f32 patterns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tcemu/format.hpp"

namespace tcemu::test {

struct HwSet {
  std::vector<std::vector<uint32_t>> a, b;  // f32 bit patterns
  std::vector<uint32_t> c, d;               // f32 bit patterns
};

inline std::filesystem::path hw_root() { return std::filesystem::path(TCEMU_HW_VECTORS); }
inline bool hw_present() { return std::filesystem::is_directory(hw_root()); }

inline std::vector<std::vector<uint32_t>> read_hex_rows(const std::filesystem::path& p) {
  std::vector<std::vector<uint32_t>> rows;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<uint32_t> row;
    std::string tok;
    while (ss >> tok) row.push_back(static_cast<uint32_t>(std::stoul(tok, nullptr, 16)));
    if (!row.empty()) rows.push_back(row);
  }
  return rows;
}

inline std::vector<uint32_t> read_bin_rows(const std::filesystem::path& p) {
  std::vector<uint32_t> v;
  std::ifstream in(p);
  std::string tok;
  while (in >> tok) v.push_back(static_cast<uint32_t>(std::stoul(tok, nullptr, 2)));
  return v;
}

// gpu "H100", dir "E4M3", out "fp32"/"fp16". Returns nullopt when a file is missing.
inline std::optional<HwSet> load_hw_set(const std::string& gpu, const std::string& dir, const std::string& out) {
  const auto base = hw_root() / gpu / dir;
  const auto a = base / ("a_" + gpu + "_" + dir + ".txt"), b = base / ("b_" + gpu + "_" + dir + ".txt");
  const auto c = base / ("c_" + gpu + "_fp32.txt"), d = base / ("d_" + gpu + "_" + out + ".txt");
  for (const auto& p : {a, b, c, d})
    if (!std::filesystem::exists(p)) return std::nullopt;
  HwSet s{read_hex_rows(a), read_hex_rows(b), read_bin_rows(c), read_bin_rows(d)};
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
