// tcemu-gpu's golden-case runner on the host: which cases it runs where, and that operands go
// into registers and come back out consistently. A stand-in backend replaces the GPU: it
// decodes the packed registers back into matrices with the PTX ISA's layout tables written
// out independently below (not fragment_layout.hpp), computes D exactly (small integers) and
// packs D the same way, so a packing error on either side shows as a wrong D.
#include <gtest/gtest.h>

#include <map>

#include "case_runner.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/generate.hpp"
#include "fragment_layout.hpp"
#include "probe.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/ptx_cvt.hpp"

using namespace tcemu_gpu;
namespace tg = tcemu::golden;

namespace {

DeviceInfo device(int major, int minor) {
  DeviceInfo d;
  d.present = true;
  d.name = "test";
  d.cc_major = major;
  d.cc_minor = minor;
  return d;
}

tg::Case mma_case(const std::string& arch, const std::string& ptx, int M = 0, int N = 0, int K = 0) {
  tg::MmaGenRequest r;
  r.arch = arch;
  r.ptx = ptx;
  r.M = M, r.N = N, r.K = K;
  r.dist_a = r.dist_b = r.dist_c = tg::Dist::normal;
  return tg::generate_mma(r);
}

TEST(CaseRunner, DecidesWhatRunsWhere) {
  const tg::Case hopper = mma_case("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16");
  EXPECT_EQ(why_not_runnable(hopper, device(9, 0)), "");
  EXPECT_NE(why_not_runnable(hopper, device(12, 0)).find("the case models sm_90a"), std::string::npos);
  const tg::Case wide = mma_case("sm_90a", "wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16");
  EXPECT_EQ(why_not_runnable(wide, device(9, 0)), "");
  tg::Case negated = hopper;
  negated.mma.options.negate_a = true;
  EXPECT_EQ(why_not_runnable(negated, device(9, 0)), "");
  tg::Case int_negated = mma_case("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8");
  int_negated.mma.options.negate_b = true;
  EXPECT_NE(why_not_runnable(int_negated, device(9, 0)).find("imm-scale"), std::string::npos);
  const tg::Case wm = mma_case("sm_90", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32");
  EXPECT_EQ(why_not_runnable(wm, device(9, 0)), "");
  EXPECT_NE(why_not_runnable(wm, device(10, 0)).find("the case models sm_90"), std::string::npos);
  const tg::Case sync = mma_case("sm_90a", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
  EXPECT_EQ(why_not_runnable(sync, device(9, 0)), "");
  EXPECT_NE(why_not_runnable(sync, device(12, 0)).find("the case models sm_90"), std::string::npos);
  const tg::Case blackwell = mma_case("sm_120", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
  EXPECT_EQ(why_not_runnable(blackwell, device(12, 0)), "");
  tg::MmaGenRequest t;
  t.arch = "sm_100a";
  t.ptx = "tcgen05.mma.cta_group::1.kind::f16";
  t.atype = t.btype = tcemu::Fmt::f16;
  t.dtype = tcemu::AccType::f32;
  EXPECT_EQ(why_not_runnable(tg::generate_mma(t), device(10, 0)), "");  // tcgen05_runner_test has the rest
  EXPECT_NE(why_not_runnable(tg::generate_mma(t), device(9, 0)).find("sm_100a"), std::string::npos);
  tg::CvtGenRequest cv;
  cv.ptx = "cvt.rn.satfinite.e4m3x2.f32";
  EXPECT_EQ(why_not_runnable(tg::generate_cvt(cv), device(9, 0)), "");
  cv.ptx = "cvt.rs.satfinite.e2m1x4.f32";
  EXPECT_NE(why_not_runnable(tg::generate_cvt(cv), device(9, 0)).find("needs sm_100a;"), std::string::npos);
  EXPECT_NE(why_not_runnable(tg::generate_cvt(cv), device(12, 0)).find("needs sm_100a;"), std::string::npos);
  EXPECT_EQ(why_not_runnable(tg::generate_cvt(cv), device(10, 0)), "");
  cv.ptx = "cvt.rn.satfinite.e2m1x2.f32";
  EXPECT_NE(why_not_runnable(tg::generate_cvt(cv), device(9, 0)).find("needs sm_100a/sm_120a"), std::string::npos);
  EXPECT_EQ(why_not_runnable(tg::generate_cvt(cv), device(12, 0)), "");
  cv.ptx = "cvt.rzi.s8.f32";
  EXPECT_EQ(why_not_runnable(tg::generate_cvt(cv), device(9, 0)), "");
  cv.ptx = "cvt.rn.satfinite.e4m3x2.bf16x2";  // ptxas 13.0 rejects it on every target
  EXPECT_NE(why_not_runnable(tg::generate_cvt(cv), device(10, 0)).find("no kernel"), std::string::npos);
  tg::ConvertGenRequest co;
  EXPECT_NE(why_not_runnable(tg::generate_convert(co), device(9, 0)).find("convention"), std::string::npos);
}

// Independent transcription of the m16n8k* layouts (PTX ISA 9.7.14.5.7-11) for the stand-in:
// A element (row, col) -> (lane, index), by searching the formula over lanes and indices.
struct Ref {
  int K, bits;  // A/B element bits
  // a_i of lane: row g + 8*h, col as in the tables; returned as (row, col).
  std::pair<int, int> a(int lane, int i) const {
    const int g = lane / 4, t = lane % 4;
    if (bits == 16 && K == 16) return {g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4)};
    if (bits == 8 && K == 32) return {g + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8)};
    if (bits == 32 && K == 8) return {g + 8 * (i % 2), t + 4 * (i / 2)};
    return {-1, -1};
  }
  std::pair<int, int> b(int lane, int i) const {
    const int g = lane / 4, t = lane % 4;
    if (bits == 16 && K == 16) return {2 * t + i % 2 + 8 * (i / 2), g};
    if (bits == 8 && K == 32) return {4 * t + i % 4 + 16 * (i / 4), g};
    if (bits == 32 && K == 8) return {t + 4 * i, g};
    return {-1, -1};
  }
};

double small_value(tcemu::Fmt f, uint64_t code) {
  const tcemu::Decoded d = tcemu::decode(f, code);
  return (d.sign ? -1.0 : 1.0) * std::ldexp(static_cast<double>(d.sig), d.exp);
}

// Runs small-integer cases through run_case with the stand-in and checks D = A*B + C exactly.
void check_instruction(const std::string& ptx, tcemu::Fmt fa, tcemu::Fmt fc, int K, int bits) {
  const InstrInfo* in = find_instr(ptx);
  ASSERT_NE(in, nullptr) << ptx;
  const Ref ref{K, bits};
  const int M = 32, N = 16;  // 2 x 2 tiles
  tg::Case c;
  c.name = "t";
  c.op = tg::OpKind::mma;
  const tcemu::InstrLookup lk = tcemu::find_instruction("sm_90a", ptx);
  ASSERT_NE(lk.entry, nullptr) << lk.error;
  c.mma.arch = "sm_90a", c.mma.ptx = ptx, c.mma.entry = lk.entry;
  c.mma.M = M, c.mma.N = N, c.mma.K = 2 * K, c.mma.tile_m = 16, c.mma.tile_n = 8;
  std::vector<uint64_t> A(M * 2 * K), B(2 * K * N), C(M * N);
  auto code = [](tcemu::Fmt f, int v) { return *tcemu::encode_exact(f, v < 0, static_cast<uint64_t>(std::abs(v)), 0); };
  for (size_t i = 0; i < A.size(); ++i) A[i] = code(fa, static_cast<int>((i * 5) % 7) - 3);
  for (size_t i = 0; i < B.size(); ++i) B[i] = code(fa, static_cast<int>((i * 5 + 1) % 5) - 2);
  for (size_t i = 0; i < C.size(); ++i) C[i] = code(fc, static_cast<int>(i % 17) - 8);
  c.operands["A"] = tg::make_array(tg::elem_type(fa), M, 2 * K, A);
  c.operands["B"] = tg::make_array(tg::elem_type(fa), 2 * K, N, B);
  c.operands["C"] = tg::make_array(tg::elem_type(fc), M, N, C);
  c.expected = tg::make_array(tg::elem_type(fc), M, N, C);
  const int cb = tcemu::info(fc).width;
  Backend be;
  be.mma_sync = [&](const InstrInfo& info, int tiles, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                    const std::vector<uint32_t>& cc, const std::vector<uint32_t>&, const std::vector<uint32_t>&,
                    std::vector<uint32_t>& d) -> std::string {
    d.assign(static_cast<size_t>(tiles) * 256, 0);
    const int per = 32 / bits;
    for (int t = 0; t < tiles; ++t) {
      double Am[16][32] = {}, Bm[32][8] = {}, Cm[16][8] = {};
      for (int lane = 0; lane < 32; ++lane) {
        const size_t l = static_cast<size_t>(t) * 32 + lane;
        for (int i = 0; i < info.regs_a * per; ++i) {
          const auto [r, k] = ref.a(lane, i);
          Am[r][k] = small_value(fa, (a[l * 4 + i / per] >> (bits * (i % per))) & ((1ull << bits) - 1));
        }
        for (int i = 0; i < info.regs_b * per; ++i) {
          const auto [k, n] = ref.b(lane, i);
          Bm[k][n] = small_value(fa, (b[l * 4 + i / per] >> (bits * (i % per))) & ((1ull << bits) - 1));
        }
        for (int i = 0; i < 4; ++i) {  // C: row g + 8*(i/2), col 2t + i%2
          const int g = lane / 4, tt = lane % 4;
          Cm[g + 8 * (i / 2)][2 * tt + i % 2] = small_value(fc, (cc[l * 8 + i * cb / 32] >> ((i * cb) % 32)) & ((1ull << cb) - 1));
        }
      }
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
          const int g = lane / 4, tt = lane % 4, m = g + 8 * (i / 2), n = 2 * tt + i % 2;
          double s = Cm[m][n];
          for (int k = 0; k < K; ++k) s += Am[m][k] * Bm[k][n];
          const uint64_t v = *tcemu::encode_exact(fc, s < 0, static_cast<uint64_t>(std::abs(s)), 0);
          d[(static_cast<size_t>(t) * 32 + lane) * 8 + i * cb / 32] |= static_cast<uint32_t>(v << ((i * cb) % 32));
        }
    }
    return "";
  };
  std::string err;
  const auto hw = run_case(c, err, be);
  ASSERT_TRUE(hw.has_value()) << err;
  const std::vector<uint64_t> want = tg::evaluate(c);  // exact: small integers
  EXPECT_EQ(hw->logical(), want) << ptx;
}

TEST(CaseRunner, PacksMmaSyncOperandsLikeTheIsaTables) {
  check_instruction("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", tcemu::Fmt::f16, tcemu::Fmt::f32, 16, 16);
  check_instruction("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", tcemu::Fmt::f16, tcemu::Fmt::f16, 16, 16);
  check_instruction("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", tcemu::Fmt::e4m3, tcemu::Fmt::f32, 32, 8);
  check_instruction("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", tcemu::Fmt::tf32, tcemu::Fmt::f32, 8, 32);
}

// wgmma: a stand-in that copies C to D: the accumulator registers round-trip, and the
// shared-memory images have the documented sizes.
TEST(CaseRunner, WgmmaAccumulatorRoundTrip) {
  for (const char* ptx : {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16"}) {
    const tg::Case c = mma_case("sm_90a", ptx);
    Backend be;
    be.wgmma = [](const InstrInfo& in, int tiles, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                  const std::vector<uint32_t>& cc, bool, int, std::vector<uint32_t>& d) -> std::string {
      if (a.size() != static_cast<size_t>(tiles) * 2048 || b.size() != static_cast<size_t>(tiles) * in.n * 32) return "image sizes";
      d = cc;
      return "";
    };
    std::string err;
    const auto hw = run_case(c, err, be);
    ASSERT_TRUE(hw.has_value()) << err;
    EXPECT_EQ(hw->logical(), c.operands.at("C").logical()) << ptx;
  }
}

// The registers of a cvt variant, transcribed from the PTX ISA's cvt syntax (§9.7.9.21)
// independently of cvt_variants.cuh: source registers, width of one, destination width,
// random-bit operand. .f32 element sources are one register each (`d, a, b`, `d, {a, b, e,
// f}, rbits`); packed sources (`.f16x2`, `.e4m3x2`, ...) are one register of all elements;
// e2m1x2 is a .b8 register, FP8x2/FP6x2/ue8m0x2 .b16, e2m1x4 .b16, the other x4 .b32.
struct CvtRegs {
  int srcs, src_bits, dst_bits;
  bool rbits;
};
int isa_reg_bits(const std::string& t) {
  if (t == "f64") return 64;
  if (t == "f32" || t == "tf32" || t == "f16x2" || t == "bf16x2") return 32;
  if (t == "f16" || t == "bf16" || t == "e2m1x4") return 16;
  if (t == "s8" || t == "u8" || t == "e2m1x2") return 8;
  if (t.size() > 2 && t.substr(t.size() - 2) == "x2") return 16;  // e4m3x2 e5m2x2 e2m3x2 e3m2x2 ue8m0x2
  if (t.size() > 2 && t.substr(t.size() - 2) == "x4") return 32;  // e4m3x4 e5m2x4 e2m3x4 e3m2x4
  return -1;
}
CvtRegs isa_cvt_regs(const std::string& sp) {
  std::vector<std::string> t;
  for (size_t i = 0, j; i <= sp.size(); i = j + 1) {
    j = sp.find('.', i);
    if (j == std::string::npos) j = sp.size();
    t.push_back(sp.substr(i, j - i));
  }
  const std::string d = t[t.size() - 2], a = t.back();
  const bool rs = t[1] == "rs";
  int srcs = 1;
  if (a == "f32" && d.size() > 2 && d.substr(d.size() - 2) == "x2") srcs = 2;
  if (a == "f32" && d.size() > 2 && d.substr(d.size() - 2) == "x4") srcs = 4;
  return {srcs, isa_reg_bits(a), isa_reg_bits(d), rs};
}

// Every cvt variant built: its registers agree with the ISA's syntax, and its targets with the
// emulator's (the PTX ISA's target notes as transcribed in parse_ptx_cvt): cvt.rs only on
// sm_100a; e2m1/e2m3/e3m2/ue8m0 and .satfinite tf32 on sm_100a and sm_120a; the rest on all three.
TEST(CaseRunner, CvtVariantsMatchTheIsaSyntaxAndTargets) {
  ASSERT_GT(cvt_variants().size(), 140u);
  for (const CvtInfo& cv : cvt_variants()) {
    const CvtRegs want = isa_cvt_regs(cv.ptx);
    EXPECT_EQ(cv.srcs, want.srcs) << cv.ptx;
    EXPECT_EQ(cv.src_bits, want.src_bits) << cv.ptx;
    EXPECT_EQ(cv.dst_bits, want.dst_bits) << cv.ptx;
    EXPECT_EQ(cv.rbits, want.rbits) << cv.ptx;
    const auto parsed = tcemu::parse_ptx_cvt(cv.ptx);
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const tcemu::PtxCvt* pc = &parsed.value;
    EXPECT_EQ(tcemu::ptx_cvt_dst_bits(*pc), cv.dst_bits) << cv.ptx;
    EXPECT_EQ(tcemu::ptx_cvt_src_bits(*pc), cv.src_bits) << cv.ptx;
    const int mask = pc->arch == "sm_100a/sm_103a"           ? 2
                     : pc->arch == "sm_100a/sm_110a/sm_120a" ? 6
                     : pc->min_sm >= 100                     ? 6
                                                             : 7;
    EXPECT_EQ(cv.arch_mask, mask) << cv.ptx << " (emulator: " << pc->arch << ")";
  }
  // Every catalog spelling has a kernel except the ones ptxas of CUDA 13.0 rejects everywhere.
  int rejected = 0;
  for (const std::string& sp : tcemu::ptx_cvt_catalog()) {
    // cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.bf16x2: "Unexpected instruction types" everywhere.
    const bool none = sp.find(".e4m3x2.bf16x2") != std::string::npos || sp.find(".e5m2x2.bf16x2") != std::string::npos;
    EXPECT_EQ(find_cvt(sp) == nullptr, none) << sp;
    rejected += none;
  }
  EXPECT_EQ(rejected, 4);
}

// cvt cases through a stand-in device: it reads the registers in the layout run_cvt documents
// (src[i*4 + k], k in operand order; rbits[i]), checks their widths, and evaluates each element
// with ptx_cvt_eval. A source or random-bit word in the wrong slot, or an element out of order,
// gives a result that differs from the case's expected one (generated from the golden operands).
TEST(CaseRunner, CvtCasesPassRegistersInOperandOrder) {
  Backend be;
  be.cvt = [](const CvtInfo& in, const std::vector<uint64_t>& src, const std::vector<uint32_t>& rbits,
              std::vector<uint64_t>& d) -> std::string {
    if (src.size() != rbits.size() * 4) return "src size";
    const auto parsed = tcemu::parse_ptx_cvt(in.ptx);
    if (!parsed.ok()) return "no model";
    const tcemu::PtxCvt* pc = &parsed.value;
    d.assign(rbits.size(), 0);
    for (size_t i = 0; i < rbits.size(); ++i) {
      std::vector<uint64_t> regs;
      for (int k = 0; k < 4; ++k) {
        const uint64_t r = src[i * 4 + k];
        if (k >= in.srcs && r != 0) return "a register beyond the instruction's sources is set";
        if (in.src_bits < 64 && (r >> in.src_bits) != 0) return "a source register wider than its operand";
        if (k < in.srcs) regs.push_back(r);
      }
      if (!in.rbits && rbits[i] != 0) return "random bits for an instruction without them";
      d[i] = tcemu::ptx_cvt_eval(*pc, regs, rbits[i]);
      if (in.dst_bits < 64) d[i] |= ~uint64_t{0} << in.dst_bits;  // junk above the destination: masked
    }
    return "";
  };
  int n = 0, with_rbits = 0;
  for (const CvtInfo& cv : cvt_variants()) {
    for (tg::Dist dist : {tg::Dist::bits, tg::Dist::edges, tg::Dist::wide}) {
      tg::CvtGenRequest r;
      r.ptx = cv.ptx;
      r.dist = dist;
      r.count = 64;
      r.seed = 7;
      const tg::Case c = tg::generate_cvt(r);
      std::string err;
      const auto hw = run_case(c, err, be);
      ASSERT_TRUE(hw.has_value()) << cv.ptx << ": " << err;
      EXPECT_EQ(hw->logical(), c.expected.logical()) << cv.ptx;
      ++n;
    }
    with_rbits += cv.rbits;
  }
  EXPECT_EQ(with_rbits, 18);
  EXPECT_GT(n, 400);
  // A case whose operands do not fit the instruction is refused with a reason, not run.
  tg::CvtGenRequest r;
  r.ptx = "cvt.rs.satfinite.e4m3x4.f32";
  tg::Case c = tg::generate_cvt(r);
  c.operands.erase("rbits");
  std::string err;
  EXPECT_FALSE(run_case(c, err, be).has_value());
  EXPECT_NE(err.find("rbits"), std::string::npos) << err;
}

TEST(CaseRunner, HardwareProvenanceIsAcceptedByTheReader) {
  DeviceInfo d = device(9, 0);
  d.name = "NVIDIA H200";
  d.driver = "580.0";
  d.runtime = "13.0";
  tg::GoldenFile f;
  tg::Case c = mma_case("sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  c.provenance.source = "hardware";
  c.provenance.fields = hardware_provenance(d, "test");
  f.cases.push_back(c);
  const std::string path = testing::TempDir() + "/hw_prov.json";
  tg::write_golden(path, f);
  const tg::GoldenFile back = tg::read_golden(path);
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].provenance.source, "hardware");
  EXPECT_EQ(back.cases[0].provenance.fields.at("gpu"), "NVIDIA H200");
}

}  // namespace

namespace {

// A stand-in device that unpacks the registers / shared-memory images with fragment_layout.hpp,
// runs the emulator on the tile and packs D back: it checks the plumbing around the layouts
// (diagonal probe batching, scales, containers, K steps), not the layouts themselves (those
// are tested against the ISA's tables in fragment_layout_test.cpp).
Backend emulating_backend(const tcemu::InstrEntry& e) {
  namespace tl = tcemu_gpu::layout;
  Backend be;
  auto mask = [](int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; };
  auto tile_d = [&e](const InstrInfo& in, const std::vector<uint64_t>& A, const std::vector<uint64_t>& B,
                     const std::vector<uint64_t>& C, const std::vector<uint64_t>& sa, const std::vector<uint64_t>& sb) {
    tcemu::MmaProblem p;
    p.M = in.m, p.N = in.n, p.K = in.k;
    p.atype = e.atype, p.btype = e.btype;
    p.A = A, p.B = B, p.C = C;
    if (e.scale_type) {
      p.scale_type = e.scale_type;
      p.scale_block = e.scale_block;
      p.sa = sa, p.sb = sb;
    }
    tcemu::MmaResult r = tcemu::mma(p.with(e), tcemu::Exec{1});
    if (!r.error.empty()) throw std::runtime_error(r.error);
    return r.D.values();
  };
  be.mma_sync = [=](const InstrInfo& in, int tiles, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                    const std::vector<uint32_t>& c, const std::vector<uint32_t>& sa, const std::vector<uint32_t>& sb,
                    std::vector<uint32_t>& d) -> std::string {
    const tl::MmaSyncShape sh{in.m, in.n, in.k, in.ab_bits, in.c_bits};
    const int nb = in.scale_vec;
    d.assign(static_cast<size_t>(tiles) * 256, 0);
    for (int t = 0; t < tiles; ++t) {
      std::vector<uint64_t> A(in.m * in.k), B(in.k * in.n), C(in.m * in.n), SA(in.m * nb), SB(in.n * nb);
      for (int lane = 0; lane < 32; ++lane) {
        const size_t l = static_cast<size_t>(t) * 32 + lane;
        for (int i = 0; i < tl::mma_elems_per_lane(sh, tl::Operand::A); ++i) {
          const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::A, lane, i);
          const uint32_t v = (a[l * 4 + tl::elem_reg(sh, tl::Operand::A, i)] >> tl::elem_shift(sh, tl::Operand::A, i)) & mask(in.ab_bits);
          A[co.row * in.k + co.col] = in.ab_bits == 8 && in.a_code < 8 ? tl::f8f6f4_code(v, in.a_code) : v;
        }
        for (int i = 0; i < tl::mma_elems_per_lane(sh, tl::Operand::B); ++i) {
          const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::B, lane, i);
          const uint32_t v = (b[l * 4 + tl::elem_reg(sh, tl::Operand::B, i)] >> tl::elem_shift(sh, tl::Operand::B, i)) & mask(in.ab_bits);
          B[co.row * in.n + co.col] = in.ab_bits == 8 && in.b_code < 8 ? tl::f8f6f4_code(v, in.b_code) : v;
        }
        for (int i = 0; i < tl::mma_elems_per_lane(sh, tl::Operand::C); ++i) {
          const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::C, lane, i);
          C[co.row * in.n + co.col] = (c[l * 8 + tl::elem_reg(sh, tl::Operand::C, i)] >> tl::elem_shift(sh, tl::Operand::C, i)) & mask(in.c_bits);
        }
      }
      for (int j = 0; j < nb; ++j) {
        for (int r = 0; r < in.m; ++r) {
          const tl::ScaleSlot s = tl::mma_scale_a_slot(r, j, 0, 0);
          SA[r * nb + j] = (sa[t * 32 + s.lane] >> (8 * s.byte)) & 0xff;
        }
        for (int n = 0; n < in.n; ++n) {
          const tl::ScaleSlot s = tl::mma_scale_b_slot(n, j, 0, 0);
          SB[n * nb + j] = (sb[t * 32 + s.lane] >> (8 * s.byte)) & 0xff;
        }
      }
      const std::vector<uint64_t> D = tile_d(in, A, B, C, SA, SB);
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < tl::mma_elems_per_lane(sh, tl::Operand::C); ++i) {
          const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::C, lane, i);
          d[(static_cast<size_t>(t) * 32 + lane) * 8 + tl::elem_reg(sh, tl::Operand::C, i)] |=
              static_cast<uint32_t>(D[co.row * in.n + co.col]) << tl::elem_shift(sh, tl::Operand::C, i);
        }
    }
    return "";
  };
  be.wmma = [=](const InstrInfo& in, int tiles, const std::vector<uint8_t>& ai, const std::vector<uint8_t>& bi,
                const std::vector<uint8_t>& ci, std::vector<uint8_t>& di) -> std::string {
    const WmmaImages sz = wmma_images(in);
    const int ab = in.ab_bits / 8, cb = in.c_bits / 8;
    auto get = [](const uint8_t* p, int bytes) {
      uint64_t v = 0;
      for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
      return v;
    };
    di.assign(ci.size(), 0);
    for (int t = 0; t < tiles; ++t) {
      std::vector<uint64_t> A(in.m * in.k), B(in.k * in.n), C(in.m * in.n);
      for (int r = 0; r < in.m; ++r)
        for (int k = 0; k < in.k; ++k) A[r * in.k + k] = get(&ai[t * sz.a_stride + (r * in.k + k) * ab], ab);
      for (int n = 0; n < in.n; ++n)
        for (int k = 0; k < in.k; ++k) B[k * in.n + n] = get(&bi[t * sz.b_stride + (n * in.k + k) * ab], ab);
      for (int i = 0; i < in.m * in.n; ++i) C[i] = get(&ci[t * sz.c_stride + i * cb], cb);
      const std::vector<uint64_t> D = tile_d(in, A, B, C, {}, {});
      for (int i = 0; i < in.m * in.n; ++i)
        for (int j = 0; j < cb; ++j) di[t * sz.c_stride + i * cb + j] = static_cast<uint8_t>(D[i] >> (8 * j));
    }
    return "";
  };
  be.wgmma = [=](const InstrInfo& in, int tiles, const std::vector<uint8_t>& ai, const std::vector<uint8_t>& bi,
                 const std::vector<uint32_t>& c, bool scale_d, int neg, std::vector<uint32_t>& d) -> std::string {
    const int bytes = in.ab_bits / 8, rc = in.regs_c;
    d.assign(c.size(), 0);
    for (int t = 0; t < tiles; ++t) {
      std::vector<uint64_t> A(in.m * in.k), B(in.k * in.n), C(in.m * in.n);
      auto get = [&](const uint8_t* img, int row, int k) {
        uint64_t v = 0;
        const uint32_t off = tl::kmajor_offset(row, k, in.ab_bits, 128, 256);
        for (int i = 0; i < bytes; ++i) v |= uint64_t{img[off + i]} << (8 * i);
        return v;
      };
      for (int r = 0; r < in.m; ++r)
        for (int k = 0; k < in.k; ++k) A[r * in.k + k] = get(&ai[static_cast<size_t>(t) * 2048], r, k);
      for (int n = 0; n < in.n; ++n)
        for (int k = 0; k < in.k; ++k) B[k * in.n + n] = get(&bi[static_cast<size_t>(t) * in.n * 32], n, k);
      for (int th = 0; th < 128; ++th)
        for (int i = 0; i < tl::wgmma_c_elems_per_thread(in.n); ++i) {
          const tl::Coord co = tl::wgmma_c_coord(th, i);
          const int bit = i * in.c_bits;
          C[co.row * in.n + co.col] = scale_d ? (c[(static_cast<size_t>(t) * 128 + th) * rc + bit / 32] >> (bit % 32)) & mask(in.c_bits) : 0;
        }
      // imm-scale-a/b = -1: the stand-in negates the operands (sign bit of the element codes).
      for (uint64_t& v : A) v ^= (neg & 1) ? uint64_t{1} << (in.a_code - 1) : 0;
      for (uint64_t& v : B) v ^= (neg & 2) ? uint64_t{1} << (in.b_code - 1) : 0;
      const std::vector<uint64_t> D = tile_d(in, A, B, C, {}, {});
      for (int th = 0; th < 128; ++th)
        for (int i = 0; i < tl::wgmma_c_elems_per_thread(in.n); ++i) {
          const tl::Coord co = tl::wgmma_c_coord(th, i);
          const int bit = i * in.c_bits;
          d[(static_cast<size_t>(t) * 128 + th) * rc + bit / 32] |= static_cast<uint32_t>(D[co.row * in.n + co.col]) << (bit % 32);
        }
    }
    return "";
  };
  return be;
}

// Every instruction tcemu-gpu builds: the probes through the GPU code path (diagonal batches
// of dot products, golden cases, operand placement) on the emulating stand-in infer the same
// parameters as the probes through the emulator directly.
TEST(CaseRunner, ProbesThroughTheGpuPathMatchTheEmulator) {
  int n = 0;
  for (const InstrInfo& in : instructions()) {
    if (in.wgmma && in.n != 8) continue;  // same code for every N; the emulator makes wide N slow here
    const std::string arch = in.arch_mask & 1 ? "sm_90a" : in.arch_mask & 2 ? "sm_100a" : "sm_120a";
    const tcemu::InstrLookup lk = tcemu::find_instruction(arch, in.ptx);
    ASSERT_NE(lk.entry, nullptr) << in.ptx << ": " << lk.error;
    const tcemu::InstrEntry& e = *lk.entry;
    const ProbeResult direct = probe_instruction(e, emulator_runner(e));
    const ProbeResult viagpu = probe_instruction(e, gpu_dot_runner(e, in, emulating_backend(e)));
    EXPECT_EQ(probe_json(viagpu, e).dump(), probe_json(direct, e).dump()) << in.ptx;
    EXPECT_TRUE(viagpu.differences.empty()) << probe_text(viagpu, e);
    ++n;
  }
  EXPECT_GT(n, 100);
}

}  // namespace

namespace {

const tcemu::InstrEntry& entry(const std::string& arch, const std::string& ptx) {
  const tcemu::InstrLookup lk = tcemu::find_instruction(arch, ptx);
  if (!lk.entry) throw std::runtime_error(ptx + ": " + lk.error);
  return *lk.entry;
}

// wmma: every instruction's case (2 x 2 tiles, 2 K steps) through the stand-in, which reads the
// images as the PTX ISA's row-major A / column-major B / row-major C and D (ldm K, K, N),
// agrees bit for bit with the emulator's evaluation of the case.
TEST(CaseRunner, WmmaImagesAreRowMajorAAndColumnMajorB) {
  int n = 0;
  for (const InstrInfo& in : instructions()) {
    if (!in.wmma) continue;
    const tg::Case c = mma_case("sm_90", in.ptx, 2 * in.m, 2 * in.n, 2 * in.k);
    std::string err;
    const auto hw = run_case(c, err, emulating_backend(entry("sm_90", in.ptx)));
    ASSERT_TRUE(hw.has_value()) << in.ptx << ": " << err;
    EXPECT_EQ(hw->logical(), tg::evaluate(c)) << in.ptx;
    ++n;
  }
  EXPECT_EQ(n, 14);
}

// wgmma at a wide N and with imm-scale-a/b = -1: the negation bits reach the backend (the
// stand-in flips the operands' sign bits) and the result is the emulator's negated product.
TEST(CaseRunner, WgmmaNegationAndWideN) {
  for (const char* ptx : {"wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16",
                          "wgmma.mma_async.sync.aligned.m64n24k32.f16.e4m3.e5m2"}) {
    for (int neg = 0; neg < 4; ++neg) {
      tg::MmaGenRequest r;
      r.arch = "sm_90a";
      r.ptx = ptx;
      r.dist_a = r.dist_b = r.dist_c = tg::Dist::normal;
      r.options.negate_a = neg & 1;
      r.options.negate_b = neg & 2;
      const tg::Case c = tg::generate_mma(r);
      ASSERT_EQ(why_not_runnable(c, device(9, 0)), "") << ptx;
      Backend be = emulating_backend(entry("sm_90a", ptx));
      int seen = -1;
      auto inner = be.wgmma;
      be.wgmma = [&](const InstrInfo& in, int tiles, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                     const std::vector<uint32_t>& cc, bool sd, int ng, std::vector<uint32_t>& d) {
        seen = ng;
        return inner(in, tiles, a, b, cc, sd, ng, d);
      };
      std::string err;
      const auto hw = run_case(c, err, be);
      ASSERT_TRUE(hw.has_value()) << err;
      EXPECT_EQ(seen, neg) << ptx;
      EXPECT_EQ(hw->logical(), tg::evaluate(c)) << ptx << " imm-scale variant " << neg;
    }
  }
}

}  // namespace
