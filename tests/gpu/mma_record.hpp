// Reader for the MMA record files written by tools/gpu/mma_record (format 1, docs/gpu.md
// "Record format"): one instruction per file, each tile's A, B, C and the hardware's D as
// element codes. Header-only: used by the H200 record test and by nothing in the library.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tcemu/format.hpp"

namespace tcemu_test {

struct MmaTile {
  int index = 0;
  std::string label;  // "probe:one-shot-discriminator", "random-unit-scale 3", ...
  std::vector<uint64_t> A, B, C, D;  // row-major: A M x K, B K x N, C and D M x N
};

struct MmaRecord {
  std::string stem;         // file name without .txt ("..._scale-d0" for wgmma)
  std::string instruction;  // PTX spelling
  std::string device;
  int M = 0, N = 0, K = 0;
  std::string fa, fb, fc, fd;  // format names as written (s32 for int32 accumulators)
  bool scale_d = true;
  bool valid = false;       // "status VALID"
  std::vector<MmaTile> tiles;
  std::string error;        // non-empty when the file could not be read
};

namespace detail {

inline bool read_codes(std::istringstream& in, size_t n, std::vector<uint64_t>& out) {
  out.clear();
  out.reserve(n);
  std::string tok;
  while (in >> tok) {
    size_t used = 0;
    uint64_t v = 0;
    try {
      v = std::stoull(tok, &used, 16);
    } catch (...) {
      return false;
    }
    if (used != tok.size()) return false;
    out.push_back(v);
  }
  return out.size() == n;
}

inline std::optional<int> field_int(const std::string& line, const std::string& key) {
  const size_t p = line.find(key + "=");
  if (p == std::string::npos) return std::nullopt;
  return std::stoi(line.substr(p + key.size() + 1));
}

inline std::string field_str(const std::string& line, const std::string& key) {
  const size_t p = line.find(key + "=");
  if (p == std::string::npos) return "";
  const size_t b = p + key.size() + 1;
  const size_t e = line.find(' ', b);
  return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

}  // namespace detail

// Reads one record file. Errors (missing header fields, a code line of the wrong length or
// with a non-hex token) are reported in `error` with the line number.
inline MmaRecord read_mma_record(const std::string& path, const std::string& stem) {
  MmaRecord r;
  r.stem = stem;
  std::ifstream f(path);
  if (!f) {
    r.error = "cannot open " + path;
    return r;
  }
  std::string line;
  int lineno = 0;
  MmaTile* cur = nullptr;
  auto fail = [&](const std::string& why) {
    r.error = path + ":" + std::to_string(lineno) + ": " + why;
    return r;
  };
  while (std::getline(f, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "instruction") r.instruction = rest;
    else if (key == "device") r.device = rest;
    else if (key == "shape") {
      r.M = detail::field_int(rest, "M").value_or(0);
      r.N = detail::field_int(rest, "N").value_or(0);
      r.K = detail::field_int(rest, "K").value_or(0);
    } else if (key == "formats") {
      r.fa = detail::field_str(rest, "A");
      r.fb = detail::field_str(rest, "B");
      r.fc = detail::field_str(rest, "C");
      r.fd = detail::field_str(rest, "D");
    } else if (key == "scale_d") r.scale_d = rest.rfind("0", 0) != 0;
    else if (key == "status") r.valid = rest == "VALID";
    else if (key == "tile") {
      if (r.M <= 0 || r.N <= 0 || r.K <= 0) return fail("tile before a valid shape line");
      r.tiles.emplace_back();
      cur = &r.tiles.back();
      const size_t sp2 = rest.find(' ');
      cur->index = std::stoi(rest.substr(0, sp2));
      cur->label = sp2 == std::string::npos ? "" : rest.substr(sp2 + 1);
    } else if (key == "A" || key == "B" || key == "C" || key == "D") {
      if (!cur) return fail("operand line before any tile");
      const size_t M = static_cast<size_t>(r.M), N = static_cast<size_t>(r.N), K = static_cast<size_t>(r.K);
      std::istringstream in(rest);
      std::vector<uint64_t>& dst = key == "A" ? cur->A : key == "B" ? cur->B : key == "C" ? cur->C : cur->D;
      const size_t n = key == "A" ? M * K : key == "B" ? K * N : M * N;
      if (!detail::read_codes(in, n, dst)) return fail(key + ": expected " + std::to_string(n) + " hex codes");
    }
    // other header lines (layout_check, tiles, operands ...) are informative only
  }
  if (r.instruction.empty()) return fail("no instruction line");
  for (const MmaTile& t : r.tiles)
    if (t.A.empty() || t.B.empty() || t.C.empty() || t.D.empty())
      return fail("tile " + std::to_string(t.index) + " lacks an operand line");
  return r;
}

// The Fmt of a record's format name; s32 (int32 accumulator) maps to nullopt.
inline std::optional<tcemu::Fmt> record_format(const std::string& name) {
  if (name == "s32") return std::nullopt;
  return tcemu::parse_format(name);
}

}  // namespace tcemu_test
