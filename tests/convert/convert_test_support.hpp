// Shared helpers of the conversion tests: the formats and option sets swept, readable labels
// for a mismatch, and a bounded mismatch reporter. Expected values always come from
// tcemu::ref (reference/), never from the emulator under test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tcemu/convert.hpp"
#include "tcemu/format.hpp"
#include "tcemu_ref/convert_ref.hpp"

namespace tctest {

using tcemu::ConvertOptions;
using tcemu::ConvertResult;
using tcemu::Fmt;
using tcemu::Round;

// Every format of 16 bits or fewer: the exhaustive sources.
inline const std::vector<Fmt>& small_formats() {
  static const std::vector<Fmt> v = {Fmt::f16,  Fmt::bf16, Fmt::e4m3, Fmt::e5m2,  Fmt::e3m2,
                                     Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0, Fmt::ue4m3, Fmt::s8,
                                     Fmt::u8,   Fmt::s4,   Fmt::u4,   Fmt::ue5m3};
  return v;
}

// Every destination: all float formats and the integer formats.
inline const std::vector<Fmt>& all_formats() {
  static const std::vector<Fmt> v = [] {
    std::vector<Fmt> r;
    for (int i = 0; i < tcemu::kNumFormats; ++i) r.push_back(static_cast<Fmt>(i));
    return r;
  }();
  return v;
}

inline std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// One conversion setting: options plus the random operand of rs.
struct Case {
  ConvertOptions opt;
  uint32_t rbits = 0;
};

inline std::string describe(const Case& c) {
  std::ostringstream s;
  s << tcemu::to_string(c.opt.round);
  if (c.opt.round == Round::rs) s << "(rbits=" << hex(c.rbits) << ", rs_bits=" << int(c.opt.rs_bits) << ")";
  if (c.opt.satfinite) s << " satfinite";
  if (c.opt.relu) s << " relu";
  if (c.opt.ftz) s << " ftz";
  if (c.opt.nan_out != tcemu::NanOut::canonical) s << " nan_out=" << int(c.opt.nan_out);
  if (c.opt.nan_to_finite != tcemu::NanToFinite::plus_max) s << " nan_to_finite=" << int(c.opt.nan_to_finite);
  if (c.opt.neg_to_unsigned != tcemu::NegToUnsigned::magnitude) s << " neg_to_unsigned=" << int(c.opt.neg_to_unsigned);
  return s.str();
}

// The settings swept for one destination: rn rna rz rd ru, and rs with zero, all-ones and
// three fixed pseudo-random operands, each with satfinite off and on; relu and ftz on a
// subset; the NaN / negative-into-unsigned policies (rn) where the destination makes them
// matter.
inline std::vector<Case> sweep_cases(Fmt to) {
  std::vector<Case> cases;
  const tcemu::FormatInfo& ti = tcemu::info(to);
  for (bool sat : {false, true}) {
    for (Round r : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru}) {
      Case c;
      c.opt.round = r;
      c.opt.satfinite = sat;
      cases.push_back(c);
    }
    for (uint32_t rb : {0u, 0xFFFFFFFFu, 0x9E3779B9u, 0x00800000u, 0x5A17C3E1u}) {
      Case c;
      c.opt.round = Round::rs;
      c.opt.satfinite = sat;
      c.rbits = rb;
      cases.push_back(c);
    }
  }
  // relu: rn, rz, ru, satfinite off and on.
  for (bool sat : {false, true})
    for (Round r : {Round::rn, Round::rz, Round::ru}) {
      Case c;
      c.opt.round = r;
      c.opt.satfinite = sat;
      c.opt.relu = true;
      cases.push_back(c);
    }
  // ftz: rn and rd (rd makes -tiny go to -min, which ftz then flushes).
  for (Round r : {Round::rn, Round::rd}) {
    Case c;
    c.opt.round = r;
    c.opt.ftz = true;
    cases.push_back(c);
  }
  // rs with an explicit random-bit width (the low 3 bits of the operand).
  {
    Case c;
    c.opt.round = Round::rs;
    c.opt.rs_bits = 3;
    c.rbits = 0xFFFFFFF5u;
    cases.push_back(c);
  }
  if (!ti.is_int && ti.has_nan()) {
    for (auto n : {tcemu::NanOut::keep_sign, tcemu::NanOut::all_ones, tcemu::NanOut::payload,
                   tcemu::NanOut::payload_raw, tcemu::NanOut::canonical_f32_payload}) {
      Case c;
      c.opt.nan_out = n;
      cases.push_back(c);
    }
  }
  if (!ti.is_int && !ti.has_nan()) {
    for (auto n : {tcemu::NanToFinite::signed_max, tcemu::NanToFinite::neg_zero, tcemu::NanToFinite::zero,
                   tcemu::NanToFinite::undefined}) {
      Case c;
      c.opt.nan_to_finite = n;
      cases.push_back(c);
    }
  }
  if (!ti.is_signed) {
    for (auto n : {tcemu::NegToUnsigned::nan, tcemu::NegToUnsigned::zero, tcemu::NegToUnsigned::undefined}) {
      Case c;
      c.opt.neg_to_unsigned = n;
      cases.push_back(c);
    }
  }
  return cases;
}

// The expected result, from the exact reference.
inline ConvertResult expected(Fmt from, Fmt to, uint64_t code, const Case& c) {
  return tcemu::ref::convert(from, to, code, c.opt, c.rbits);
}
// The same from a cached exact value of the source code.
inline ConvertResult expected(const tcemu::ref::Exact& x, Fmt to, const Case& c) {
  return tcemu::ref::convert_exact(x, to, c.opt, c.rbits);
}

// Bit-exact agreement: the code and every status flag of the public ConvertResult
// (inexact, overflow, underflow, invalid, undefined), each as the reference defines it
// (reference/include/tcemu_ref/convert_ref.hpp).
inline bool same(const ConvertResult& want, const ConvertResult& got) {
  return want.code == got.code && want.flags == got.flags;
}

// Counts mismatches, printing the first `limit` in full.
class MismatchLog {
 public:
  explicit MismatchLog(int limit = 20) : limit_(limit) {}
  void add(Fmt from, Fmt to, const Case& c, uint64_t code, const ConvertResult& want, const ConvertResult& got,
           const char* what = "scalar") {
    std::string key = std::string(what) + " " + std::string(tcemu::info(from).name) + " -> " +
                      std::string(tcemu::info(to).name) + " [" + describe(c) + "]";
    auto [it, fresh] = by_setting_.try_emplace(key, 0);
    if (fresh) first_input_[key] = code;
    ++it->second;
    if (count_++ < limit_) {
      ADD_FAILURE() << what << " " << tcemu::info(from).name << " -> " << tcemu::info(to).name << " ["
                    << describe(c) << "] input " << hex(code) << ": expected " << hex(want.code)
                    << " (flags " << int(want.flags) << "), got " << hex(got.code) << " (flags "
                    << int(got.flags) << ")";
    }
  }
  long count() const { return count_; }
  // Fails when there were mismatches, with the count per setting (conversion and options)
  // and the first input of each, so one run shows every kind of disagreement.
  void finish(const std::string& scope) const {
    std::ostringstream s;
    int shown = 0;
    for (const auto& [key, n] : by_setting_) {
      if (shown++ == 60) {
        s << "  ... " << by_setting_.size() - 60 << " more settings\n";
        break;
      }
      s << "  " << key << ": " << n << " (first input " << hex(first_input_.at(key)) << ")\n";
    }
    EXPECT_EQ(count_, 0) << scope << ": " << count_ << " mismatches in all (first " << limit_
                         << " shown above); per setting:\n"
                         << s.str();
  }

 private:
  int limit_;
  long count_ = 0;
  std::map<std::string, long> by_setting_;
  std::map<std::string, uint64_t> first_input_;
};

}  // namespace tctest
