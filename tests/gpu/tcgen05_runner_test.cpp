// tcemu-gpu's tcgen05.mma packing on the host. A stand-in device replaces the GPU: it reads
// the shared-memory images, the descriptors, the instruction descriptor's bits and the
// tensor-memory scale-factor words with the PTX ISA's tables transcribed independently below
// (not tcgen05_layout.hpp / fragment_layout.hpp), computes D exactly (small-integer operands,
// power-of-two scales) and hands it back; run_case's result must then equal the emulator's
// (tcemu::golden::evaluate) bit for bit. A stand-in reading the images with LBO and SBO swapped
// must disagree, and so must one reading a CTA pair's scale_A words from the wrong CTA, showing
// the comparison can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "case_runner.hpp"
#include "probe.hpp"
#include "small_integer_case.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "tcgen05_layout.hpp"
#include "tcgen05_runner.hpp"

using namespace tcemu_gpu;
namespace tg = tcemu::golden;
using tcemu::Fmt;

namespace {

DeviceInfo device(int major, int minor) {
  DeviceInfo d;
  d.present = true;
  d.cc_major = major;
  d.cc_minor = minor;
  return d;
}

// ---- Independent transcription of PTX ISA 9.7.16 -------------------------------------------
enum class K { f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4 };
K kind_of(const std::string& ptx) {
  if (ptx.find("kind::f16") != std::string::npos) return K::f16;
  if (ptx.find("kind::tf32") != std::string::npos) return K::tf32;
  if (ptx.find("kind::f8f6f4") != std::string::npos) return K::f8f6f4;
  if (ptx.find("kind::i8") != std::string::npos) return K::i8;
  if (ptx.find("kind::mxf8f6f4") != std::string::npos) return K::mxf8f6f4;
  if (ptx.find("kind::mxf4nvf4") != std::string::npos) return K::mxf4nvf4;
  return K::mxf4;
}
bool scaled(K k) { return k == K::mxf8f6f4 || k == K::mxf4 || k == K::mxf4nvf4; }
int kdim(K k) { return k == K::f16 ? 16 : k == K::tf32 ? 8 : (k == K::mxf4 || k == K::mxf4nvf4) ? 64 : 32; }
// Tables 42-44: the element format of a type code.
Fmt fmt_of(K k, int code) {
  switch (k) {
    case K::f16: return code == 0 ? Fmt::f16 : Fmt::bf16;
    case K::tf32: return Fmt::tf32;
    case K::i8: return code == 0 ? Fmt::u8 : Fmt::s8;
    case K::mxf4:
    case K::mxf4nvf4: return Fmt::e2m1;
    default: {
      const Fmt t[] = {Fmt::e4m3, Fmt::e5m2, Fmt::f32, Fmt::e2m3, Fmt::e3m2, Fmt::e2m1};
      return t[code];
    }
  }
}
struct Idesc {
  int m = 0, n = 0, dtype = 0, sfa_id = 0, sfb_id = 0;
  Fmt a = Fmt::f16, b = Fmt::f16;
  bool neg_a = false, neg_b = false, ue8m0 = false;
  uint32_t reserved = 0;  // bits that must be zero
};
Idesc decode_idesc(K k, uint32_t v) {
  Idesc d;
  d.a = fmt_of(k, (v >> 7) & 7);
  const bool fp4kind = k == K::mxf4 || k == K::mxf4nvf4;
  d.b = fmt_of(k, (v >> 10) & (fp4kind ? 3 : 7));
  d.neg_a = (v >> 13) & 1;
  d.neg_b = (v >> 14) & 1;
  d.n = static_cast<int>((v >> 17) & 63) * 8;
  if (!scaled(k)) {  // Table 42
    d.dtype = (v >> 4) & 3;
    d.m = static_cast<int>((v >> 24) & 31) * 16;
    d.reserved = v & ((1u << 6) | (1u << 23) | (1u << 29) | 7u | (3u << 30) | (1u << 15) | (1u << 16));
  } else {  // Tables 43-44
    d.dtype = 1;
    d.sfb_id = (v >> 4) & 3;
    d.ue8m0 = (v >> 23) & 1;
    d.m = static_cast<int>((v >> 27) & 3) * 128;
    d.sfa_id = (v >> 29) & 3;
    d.reserved = v & (15u | (1u << 6) | (7u << 24) | (1u << 31) | (3u << 15) | (fp4kind ? 1u << 12 : 0u));
  }
  return d;
}
// 9.7.16.4.1: shared-memory descriptor fields.
struct Sdesc {
  uint32_t start, lbo, sbo, fixed, base, mode, swizzle;
};
Sdesc decode_sdesc(uint64_t v) {
  return {static_cast<uint32_t>(v & 0x3fff) << 4, static_cast<uint32_t>((v >> 16) & 0x3fff) << 4,
          static_cast<uint32_t>((v >> 32) & 0x3fff) << 4, static_cast<uint32_t>((v >> 46) & 7),
          static_cast<uint32_t>((v >> 49) & 7), static_cast<uint32_t>((v >> 52) & 1), static_cast<uint32_t>(v >> 61)};
}
// Code of element k of row `row` in a K-major, no-swizzle image (core matrices of 8 rows x 16
// bytes; the K-neighbour core matrix LBO bytes on, the next 8 rows SBO bytes on) whose K row
// holds the elements at: 9.7.16.10.4 packed e2m1 two per byte (mxf4*); 16 FP6/FP4 elements
// packed then padded to 16 bytes (f8f6f4, mxf8f6f4); otherwise one element per width. Bytes
// beyond the image's `size` (a wrong descriptor, e.g. the swapped stand-in) read as zero.
uint64_t read_elem(const uint8_t* img, uint32_t size, const Sdesc& s, K k, Fmt f, int row, int kk) {
  const int w = tcemu::info(f).width;
  int bit;
  if (k == K::mxf4 || k == K::mxf4nvf4) bit = 4 * kk;
  else if ((k == K::f8f6f4 || k == K::mxf8f6f4) && w < 8) bit = 128 * (kk / 16) + w * (kk % 16);
  else bit = w * kk;
  uint64_t code = 0;
  for (int b = 0; b < w; ++b) {
    const int kb = (bit + b) / 8;
    const uint32_t off = (row / 8) * s.sbo + (kb / 16) * s.lbo + (row % 8) * 16 + kb % 16;
    if (off < size) code |= static_cast<uint64_t>((img[off] >> ((bit + b) % 8)) & 1) << b;
  }
  return code;
}
double value(Fmt f, uint64_t code) {
  const tcemu::Decoded d = tcemu::decode(f, code);
  const double v = std::ldexp(static_cast<double>(d.sig), d.exp);
  return d.sign ? -v : v;
}
uint64_t encode(Fmt f, double v) {
  if (v == 0) return *tcemu::zero_code(f, false);
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = m * 2^e, m in [0.5, 1)
  const uint64_t sig = static_cast<uint64_t>(std::ldexp(m, 53));
  return *tcemu::encode_exact(f, v < 0, sig, e - 53);
}

// The stand-in device. Wrong readings: `swap` reads the images with LBO and SBO exchanged;
// `sfa_even` reads every row's scale_A of a CTA pair from the even CTA's words.
enum class Wrong { none, swap, sfa_even };
Backend standin(Wrong wrong = Wrong::none, int* calls = nullptr) {
  const bool swap = wrong == Wrong::swap, sfa_even = wrong == Wrong::sfa_even;
  Backend be;
  be.tcgen05 = [swap, sfa_even, calls](const std::string& ptx, int T, const Tcgen05Launch& l, const std::vector<uint8_t>& ai,
                             const std::vector<uint8_t>& bi, const std::vector<uint32_t>& c,
                             const std::vector<uint32_t>& sa, const std::vector<uint32_t>& sb, std::vector<uint32_t>& d) {
    if (calls) ++*calls;
    const K k = kind_of(ptx);
    const Idesc id = decode_idesc(k, l.idesc);
    Sdesc da = decode_sdesc(l.adesc), db = decode_sdesc(l.bdesc);
    // cta_group::2 (9.7.16.10.5.1, Layout A): M = 256, N = 32; each CTA of the pair holds 128 rows
    // of A (rows 0..31 used, from its own image) and 16 columns of B (the even CTA's image; the
    // odd CTA's half is zero, which the kernel supplies).
    const int P = ptx.find("cta_group::2") != std::string::npos ? 2 : 1, TM = 32 * P;
    if (id.m != 128 * P || id.n != 16 * P || id.reserved) return std::string("idesc: shape or reserved bits");
    if (ai.size() != static_cast<size_t>(T) * P * 1024 || c.size() != static_cast<size_t>(T) * TM * 8 ||
        sa.size() != static_cast<size_t>(T) * TM || sb.size() != static_cast<size_t>(T) * 8)
      return std::string("image sizes");
    if (da.start || db.start || da.fixed != 1 || db.fixed != 1 || da.base || da.mode || da.swizzle || db.swizzle)
      return std::string("smem descriptor fields");
    if (swap) std::swap(da.lbo, da.sbo), std::swap(db.lbo, db.sbo);
    const int KD = kdim(k), V = ptx.find("4X") != std::string::npos ? 4 : ptx.find("2X") != std::string::npos ? 2 : 1;
    const Fmt cf = id.dtype == 0 ? Fmt::f16 : Fmt::f32;
    d.assign(c.size(), 0);
    for (int t = 0; t < T; ++t)
      for (int r = 0; r < TM; ++r)
        for (int n = 0; n < 8; ++n) {
          double sum = 0;
          int64_t isum = 0;
          for (int kk = 0; kk < KD; ++kk) {
            double av = value(id.a, read_elem(&ai[(t * P + r / 32) * 1024], 1024, da, k, id.a, r % 32, kk));
            double bv = value(id.b, read_elem(&bi[t * 256], 256, db, k, id.b, n, kk));
            if (id.neg_a) av = -av;
            if (id.neg_b) bv = -bv;
            if (scaled(k)) {  // scale j of row r: lane r (r < 32), byte SF_ID + j, column 0
              // A CTA pair (CUTLASS 2SM block-scaled collective and tutorial, Triton's 2-CTA
              // example): scale_A is split along M like A, so row r's word is lane r % 32 of
              // CTA r / 32's 32 words; scale_B is held whole by each CTA, one set of words.
              const int j = kk / (KD / V);
              const Fmt sf = id.ue8m0 ? Fmt::ue8m0 : Fmt::ue4m3;
              const int cta = sfa_even ? 0 : r / 32;
              av *= value(sf, (sa[(t * P + cta) * 32 + r % 32] >> (8 * (id.sfa_id + j))) & 0xff);
              bv *= value(sf, (sb[t * 8 + n] >> (8 * (id.sfb_id + j))) & 0xff);
            }
            sum += av * bv;
            isum += static_cast<int64_t>(av) * static_cast<int64_t>(bv);
          }
          const size_t w = (static_cast<size_t>(t) * TM + r) * 8 + n;
          if (k == K::i8) {
            const int64_t cv = l.enable_input_d ? static_cast<int32_t>(c[w]) : 0;
            d[w] = static_cast<uint32_t>(isum + cv);
          } else {
            double cv = l.enable_input_d ? value(cf, c[w] & (id.dtype == 0 ? 0xffffu : 0xffffffffu)) : 0.0;
            if (l.scale_input_d >= 0) {  // 9.7.16.10.9: D = A*B + D * 2^-scale-input-d (f16, tf32)
              if (k != K::f16 && k != K::tf32) return std::string("scale-input-d with kind ") + ptx;
              cv = std::ldexp(cv, -l.scale_input_d);
            }
            d[w] = static_cast<uint32_t>(encode(cf, sum + cv));
          }
        }
    return std::string();
  };
  return be;
}

// A small-integer case of the entry (exact in every datapath), 64 x 8 tiles, with the options.
tg::Case small_case(const tcemu::InstrEntry& e, int M, int N, int K, bool neg, bool scale_d, int sid = -1) {
  tg::Case c = tcemu_gpu_test::small_integer_case(e, e.arch, M, N, K, 64, 8);
  c.name = "small";
  c.mma.options.negate_a = neg;
  c.mma.options.scale_d = scale_d;
  c.mma.options.scale_input_d = sid;
  return c;
}

TEST(Tcgen05Runner, KernelsCoverTheCatalog) {
  // Every spelling of the catalog (cta_group::1 and ::2, block-scaled ones included) has a
  // kernel, every entry can run, and no kernel lacks a spelling.
  std::set<std::string> cat, built(std::begin(layout::kTcgen05Spellings), std::end(layout::kTcgen05Spellings));
  int entries = 0, pair_scaled = 0;
  for (const tcemu::InstrEntry* e : tcgen05_entries()) {
    ++entries;
    cat.insert(e->ptx);
    EXPECT_EQ(tcgen05_entry_why_not(*e), "") << e->ptx;
    pair_scaled += e->ptx.find("cta_group::2") != std::string::npos && e->scale_type.has_value();
  }
  EXPECT_GT(entries, 100);
  EXPECT_GT(pair_scaled, 20);
  EXPECT_EQ(cat, built);
}

TEST(Tcgen05Runner, VariantTablesAgreeWithTheSpellings) {
  // tcgen05_layout.hpp builds the spellings, kinds, block scaling and CTA counts from one list
  // (TCEMU_TCGEN05_KINDS): each must say what the spelling's own text says.
  const std::pair<const char*, layout::Tcgen05Kind> kinds[] = {
      {".kind::f16", layout::Tcgen05Kind::f16},           {".kind::tf32", layout::Tcgen05Kind::tf32},
      {".kind::f8f6f4", layout::Tcgen05Kind::f8f6f4},     {".kind::i8", layout::Tcgen05Kind::i8},
      {".kind::mxf8f6f4.", layout::Tcgen05Kind::mxf8f6f4}, {".kind::mxf4.", layout::Tcgen05Kind::mxf4},
      {".kind::mxf4nvf4.", layout::Tcgen05Kind::mxf4nvf4}};
  for (int v = 0; v < layout::kTcgen05Variants; ++v) {
    const std::string sp = layout::kTcgen05Spellings[v];
    int matched = 0;
    for (const auto& [text, kind] : kinds) {
      const size_t at = sp.find(text);
      if (at == std::string::npos || (text[std::string(text).size() - 1] != '.' && at + std::string(text).size() != sp.size()))
        continue;
      ++matched;
      EXPECT_EQ(layout::tcgen05_variant_kind(v), kind) << sp;
    }
    EXPECT_EQ(matched, 1) << sp;
    EXPECT_EQ(layout::tcgen05_block_scaled(v), sp.find(".block_scale.") != std::string::npos) << sp;
    EXPECT_EQ(layout::tcgen05_ctas(v), sp.find("cta_group::2") != std::string::npos ? 2 : 1) << sp;
    EXPECT_EQ(sp.rfind(v < 8 ? "tcgen05.mma.cta_group::1.kind::" : "tcgen05.mma.cta_group::2.kind::", 0), 0u) << sp;
  }
}

TEST(Tcgen05Runner, EveryEntryThroughTheStandIn) {
  int ran = 0, calls = 0;
  const Backend be = standin(Wrong::none, &calls);
  for (const tcemu::InstrEntry* e : tcgen05_entries()) {
    if (!tcgen05_entry_why_not(*e).empty()) continue;
    const bool i8 = e->params.kind == tcemu::DatapathKind::integer;
    // Two K steps (the second's C is the first's D), two tiles of 32 rows, two of 8 columns;
    // negation and enable-input-d = 0 on alternating entries.
    // scale-input-d 3 for the f16 and tf32 kinds on alternating entries.
    const bool sid_ok = e->ptx.find("kind::f16") != std::string::npos || e->ptx.find("kind::tf32") != std::string::npos;
    const tg::Case c = small_case(*e, 64, 16, 2 * e->K, !i8 && ran % 2 == 1, ran % 3 != 2, sid_ok && ran % 2 == 0 ? 3 : -1);
    ASSERT_EQ(why_not_runnable(c, device(10, 0)), "") << e->ptx;
    std::string err;
    const auto hw = run_case(c, err, be);
    ASSERT_TRUE(hw.has_value()) << e->ptx << ": " << err;
    EXPECT_EQ(hw->logical(), tg::evaluate(c)) << e->ptx << " " << tcemu::info(e->atype).name << "."
                                              << tcemu::info(e->btype).name;
    ++ran;
  }
  EXPECT_GT(ran, 100);
  EXPECT_EQ(calls, 2 * ran);  // one launch per K step
}

TEST(Tcgen05Runner, ProbeQueriesThroughTheStandIn) {
  // tcgen05_dot_runner puts query i in row i of A and column i of B (and its scales in their
  // rows): on small integers its answers must be the emulator's.
  const Backend be = standin();
  int n = 0;
  for (const tcemu::InstrEntry* e : tcgen05_entries()) {
    if (!tcgen05_entry_why_not(*e).empty() || (e->atype != e->btype)) continue;
    const bool integer = e->params.kind == tcemu::DatapathKind::integer;
    auto code = [](Fmt f, int v) {
      if (!tcemu::info(f).is_signed) v = std::abs(v);
      if (tcemu::info(f).is_int) return static_cast<uint64_t>(static_cast<int64_t>(v)) & tcemu::info(f).code_mask();
      return *tcemu::encode_exact(f, v < 0, static_cast<uint64_t>(std::abs(v)), 0);
    };
    std::vector<DotQuery> qs(11);  // one device tile and a part of a second
    for (size_t q = 0; q < qs.size(); ++q) {
      for (int k = 0; k < e->K; ++k) {
        qs[q].a.push_back(code(e->atype, static_cast<int>((q * 7 + k * 3) % 7) - 3));
        qs[q].b.push_back(code(e->btype, static_cast<int>((q + k * 5) % 5) - 2));
      }
      const int cv = static_cast<int>(q % 9) - 4;
      qs[q].c = integer ? static_cast<uint64_t>(cv) & 0xffffffffu : code(tcemu::acc_format(e->dtype), cv);
      if (e->scale_type)
        for (int j = 0; j < e->K / e->scale_block; ++j) {
          qs[q].sa.push_back(*tcemu::encode_exact(*e->scale_type, false, 1, static_cast<int>(q + j) % 3));
          qs[q].sb.push_back(*tcemu::encode_exact(*e->scale_type, false, 1, static_cast<int>(j) % 2));
        }
    }
    EXPECT_EQ(tcgen05_dot_runner(*e, be)(qs), emulator_runner(*e)(qs)) << e->ptx;
    ++n;
  }
  EXPECT_GT(n, 10);
}

TEST(Tcgen05Runner, AWrongLayoutIsCaught) {
  const Backend wrong = standin(Wrong::swap);
  int differ = 0, n = 0;
  for (const tcemu::InstrEntry* e : tcgen05_entries()) {
    if (!tcgen05_entry_why_not(*e).empty()) continue;
    const tg::Case c = small_case(*e, 64, 8, e->K, false, true);
    std::string err;
    const auto hw = run_case(c, err, wrong);
    ASSERT_TRUE(hw.has_value()) << err;
    differ += hw->logical() != tg::evaluate(c);
    ++n;
  }
  EXPECT_EQ(differ, n);
}

TEST(Tcgen05Runner, SaysWhyNot) {
  const tcemu::InstrLookup f16 =
      tcemu::find_instruction("sm_100a", "tcgen05.mma.cta_group::1.kind::f16", Fmt::f16, Fmt::f16, tcemu::AccType::f32);
  ASSERT_TRUE(f16.entry) << f16.error;
  tg::Case c = small_case(*f16.entry, 64, 8, 16, false, true);
  EXPECT_EQ(why_not_runnable(c, device(10, 0)), "");
  EXPECT_NE(why_not_runnable(c, device(9, 0)).find("needs sm_100a"), std::string::npos);
  EXPECT_NE(why_not_runnable(c, device(12, 0)).find("needs sm_100a"), std::string::npos);
  c.mma.options.scale_input_d = 3;
  EXPECT_EQ(why_not_runnable(c, device(10, 0)), "");
  c.mma.M = 48;
  EXPECT_NE(why_not_runnable(c, device(10, 0)).find("multiples"), std::string::npos);
  const tcemu::InstrLookup i8 =
      tcemu::find_instruction("sm_100a", "tcgen05.mma.cta_group::1.kind::i8", Fmt::s8, Fmt::s8, tcemu::AccType::s32);
  ASSERT_TRUE(i8.entry) << i8.error;
  tg::Case ci = small_case(*i8.entry, 64, 8, 32, true, true);
  EXPECT_NE(why_not_runnable(ci, device(10, 0)).find("kind::i8 has no negation"), std::string::npos);
  ci.mma.options.negate_a = false;
  ci.mma.options.scale_input_d = 2;
  EXPECT_NE(why_not_runnable(ci, device(10, 0)).find("f16 and tf32 only"), std::string::npos);
  const tcemu::InstrLookup pair =
      tcemu::find_instruction("sm_100a", "tcgen05.mma.cta_group::2.kind::f16", Fmt::f16, Fmt::f16, tcemu::AccType::f32);
  ASSERT_TRUE(pair.entry) << pair.error;
  EXPECT_EQ(why_not_runnable(small_case(*pair.entry, 64, 8, 16, false, true), device(10, 0)), "");
  EXPECT_NE(why_not_runnable(small_case(*pair.entry, 32, 8, 16, false, true), device(10, 0)).find("multiples of 64"),
            std::string::npos);  // a CTA pair's device tile is 64 rows
  const tcemu::InstrLookup pair_mx = tcemu::find_instruction("sm_100a", "tcgen05.mma.cta_group::2.kind::mxf4.block_scale.scale_vec::2X",
                                                              Fmt::e2m1, Fmt::e2m1, tcemu::AccType::f32, Fmt::ue8m0);
  ASSERT_TRUE(pair_mx.entry) << pair_mx.error;
  EXPECT_EQ(why_not_runnable(small_case(*pair_mx.entry, 64, 8, 64, false, true), device(10, 0)), "");
  EXPECT_NE(why_not_runnable(small_case(*pair_mx.entry, 32, 8, 64, false, true), device(10, 0)).find("multiples of 64"),
            std::string::npos);
}

TEST(Tcgen05Runner, PairScaleAFromTheWrongCtaIsCaught) {
  // The block-scaled cta_group::2 entries: reading the odd CTA's rows with the even CTA's
  // scale_A words must change D (the small cases' scales differ between rows 32 apart), so
  // EveryEntryThroughTheStandIn checks where the runner puts each CTA's words.
  const Backend wrong = standin(Wrong::sfa_even), right = standin();
  int n = 0;
  for (const tcemu::InstrEntry* e : tcgen05_entries()) {
    if (e->ptx.find("cta_group::2") == std::string::npos || !e->scale_type) continue;
    const tg::Case c = small_case(*e, 64, 8, e->K, false, true);
    std::string err;
    const auto good = run_case(c, err, right), bad = run_case(c, err, wrong);
    ASSERT_TRUE(good.has_value() && bad.has_value()) << e->ptx << ": " << err;
    EXPECT_EQ(good->logical(), tg::evaluate(c)) << e->ptx;
    EXPECT_NE(bad->logical(), tg::evaluate(c)) << e->ptx;
    ++n;
  }
  EXPECT_GT(n, 20);
}

TEST(Tcgen05Runner, RandomRequestsRun) {
  // What `tcemu-gpu random` generates for every entry with a kernel runs on sm_100a.
  for (const tcemu::InstrEntry* e : tcgen05_entries()) {
    if (!tcgen05_entry_why_not(*e).empty()) continue;
    const tg::Case c = tg::generate_mma(tcgen05_random_request(*e, 2, tg::Dist::normal, 1));
    EXPECT_EQ(why_not_runnable(c, device(10, 0)), "") << e->ptx;
  }
}

TEST(Tcgen05Runner, CommittedSetsRunOnSm100a) {
  // Every committed tcgen05 case (golden/sets/tcgen05_*.json) is runnable on sm_100a and packs
  // without error through a stand-in that hands C back (their operands are not small integers:
  // the values are the GPU's to check).
  Backend echo;
  echo.tcgen05 = [](const std::string&, int, const Tcgen05Launch&, const std::vector<uint8_t>&,
                    const std::vector<uint8_t>&, const std::vector<uint32_t>& c, const std::vector<uint32_t>&,
                    const std::vector<uint32_t>&, std::vector<uint32_t>& d) {
    d = c;
    return std::string();
  };
  int n = 0;
  for (const char* f : {"tcgen05_kind-f16.json", "tcgen05_kind-tf32.json", "tcgen05_kind-f8f6f4.json",
                        "tcgen05_kind-i8.json", "tcgen05_kind-mxf8f6f4.json", "tcgen05_kind-mxf4.json",
                        "tcgen05_kind-mxf4nvf4.json"}) {
    const tg::GoldenFile gf = tg::read_golden(std::string(TCEMU_SOURCE_DIR) + "/golden/sets/" + f);
    for (const tg::Case& c : gf.cases) {
      ASSERT_EQ(why_not_runnable(c, device(10, 0)), "") << c.name;
      std::string err;
      EXPECT_TRUE(run_case(c, err, echo).has_value()) << c.name << ": " << err;
      ++n;
    }
  }
  EXPECT_GT(n, 100);
}

}  // namespace
