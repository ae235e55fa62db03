// The committed golden set's MMA cases as a compact binary file ("golden pack"), so that the
// emulator-on-GPU check (emu_check.cpp) runs them on a machine without a JSON library. Written
// by tcemu-golden-pack (golden_pack_main.cpp, which reads golden/sets with tcemu_golden), read
// by tcemu-emu-check. Little-endian; a case names its instruction by catalog index and PTX
// spelling (both sides built from the same sources: the reader checks the spelling).
//
//   "TCEMUGP1", u32 case count, then per case:
//   str name, u32 catalog index, str ptx, i32 M N K,
//   options: i32 promote_every, u8 negate_a negate_b scale_d, i32 scale_input_d,
//   arrays A B C sa sb D (D: the expected result): u64 count, u8 itemsize (1/2/4/8), codes.
//   str: u32 length, bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tcemu/catalog.hpp"
#include "tcemu/mma.hpp"

namespace tcemu::emu_check {

struct PackedCase {
  std::string name;
  const InstrEntry* entry = nullptr;
  int M = 0, N = 0, K = 0;
  MmaOptions options;
  std::vector<uint64_t> A, B, C, sa, sb, D;
  MmaProblem problem() const { return make_problem(*entry, M, N, K, A, B, C, sa, sb); }
};

namespace pack_io {

inline void put(std::string& out, const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }
inline void put_u32(std::string& out, uint32_t v) { put(out, &v, 4); }
inline void put_i32(std::string& out, int32_t v) { put(out, &v, 4); }
inline void put_str(std::string& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  put(out, s.data(), s.size());
}
inline void put_codes(std::string& out, const std::vector<uint64_t>& v) {
  uint64_t mx = 0;
  for (uint64_t c : v) mx |= c;
  const uint8_t size = mx <= 0xFF ? 1 : (mx <= 0xFFFF ? 2 : (mx <= 0xFFFFFFFFu ? 4 : 8));
  const uint64_t n = v.size();
  put(out, &n, 8);
  put(out, &size, 1);
  for (uint64_t c : v) put(out, &c, size);
}

struct Reader {
  const std::string& s;
  size_t at = 0;
  bool ok = true;
  void get(void* p, size_t n) {
    if (!ok || s.size() - at < n) {
      ok = false;
      return;
    }
    s.copy(static_cast<char*>(p), n, at);
    at += n;
  }
  uint32_t u32() {
    uint32_t v = 0;
    get(&v, 4);
    return v;
  }
  int32_t i32() {
    int32_t v = 0;
    get(&v, 4);
    return v;
  }
  uint8_t u8() {
    uint8_t v = 0;
    get(&v, 1);
    return v;
  }
  std::string str() {
    const uint32_t n = u32();
    if (!ok || s.size() - at < n) {
      ok = false;
      return "";
    }
    std::string v = s.substr(at, n);
    at += n;
    return v;
  }
  std::vector<uint64_t> codes() {
    uint64_t n = 0;
    get(&n, 8);
    const uint8_t size = u8();
    if (!ok || (size != 1 && size != 2 && size != 4 && size != 8) || (s.size() - at) / size < n) {
      ok = false;
      return {};
    }
    std::vector<uint64_t> v(n, 0);
    for (uint64_t i = 0; i < n; ++i) get(&v[i], size);
    return v;
  }
};

}  // namespace pack_io

inline std::string write_pack(const std::vector<PackedCase>& cases) {
  using namespace pack_io;
  std::string out = "TCEMUGP1";
  put_u32(out, static_cast<uint32_t>(cases.size()));
  for (const PackedCase& c : cases) {
    put_str(out, c.name);
    put_u32(out, static_cast<uint32_t>(c.entry - catalog().data()));
    put_str(out, c.entry->ptx);
    // Every field of MmaOptions is named: adding one fails to compile until the pack holds it.
    const auto& [promote_every, negate_a, negate_b, scale_d, scale_input_d] = c.options;
    for (int v : {c.M, c.N, c.K, promote_every}) put_i32(out, v);
    for (bool b : {negate_a, negate_b, scale_d}) out.push_back(b ? 1 : 0);
    put_i32(out, scale_input_d);
    for (const auto* v : {&c.A, &c.B, &c.C, &c.sa, &c.sb, &c.D}) put_codes(out, *v);
  }
  return out;
}

// The cases of a pack, or an error message in `error`.
inline std::vector<PackedCase> read_pack(const std::string& bytes, std::string& error) {
  pack_io::Reader r{bytes};
  std::vector<PackedCase> cases;
  if (bytes.compare(0, 8, "TCEMUGP1") != 0) {
    error = "not a golden pack (no TCEMUGP1 header)";
    return {};
  }
  r.at = 8;
  const uint32_t n = r.u32();
  for (uint32_t i = 0; i < n && r.ok; ++i) {
    PackedCase c;
    c.name = r.str();
    const uint32_t idx = r.u32();
    const std::string ptx = r.str();
    if (!r.ok || idx >= catalog().size() || catalog()[idx].ptx != ptx) {
      error = "case " + c.name + ": catalog entry " + std::to_string(idx) + " is not " + ptx +
              " (the pack was written by another version of tcemu)";
      return {};
    }
    c.entry = &catalog()[idx];
    c.M = r.i32();
    c.N = r.i32();
    c.K = r.i32();
    c.options.promote_every = r.i32();
    c.options.negate_a = r.u8() != 0;
    c.options.negate_b = r.u8() != 0;
    c.options.scale_d = r.u8() != 0;
    c.options.scale_input_d = r.i32();
    for (auto* v : {&c.A, &c.B, &c.C, &c.sa, &c.sb, &c.D}) *v = r.codes();
    cases.push_back(std::move(c));
  }
  if (!r.ok) error = "the golden pack is truncated or damaged";
  return cases;
}

}  // namespace tcemu::emu_check
