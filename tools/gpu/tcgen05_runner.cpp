// tcgen05.mma golden cases on the GPU: packing and the K loop (see tcgen05_runner.hpp and
// tcgen05_layout.hpp for the layouts).
#include "tcgen05_runner.hpp"

#include <stdexcept>

#include "fragment_layout.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/instr_tile.hpp"
#include "tcgen05_layout.hpp"

namespace tcemu_gpu {

namespace tl = layout;
using tcemu::Fmt;
using tcemu::golden::Array;
using tcemu::golden::Case;

namespace {

uint64_t mask_of(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Type codes of the instruction descriptor (Tables 42-44), -1 when the kind has none.
int type_code(tl::Tcgen05Kind k, Fmt f) {
  switch (k) {
    case tl::Tcgen05Kind::f16: return f == Fmt::f16 ? 0 : f == Fmt::bf16 ? 1 : -1;
    case tl::Tcgen05Kind::tf32: return f == Fmt::tf32 ? 2 : -1;
    case tl::Tcgen05Kind::f8f6f4:
    case tl::Tcgen05Kind::mxf8f6f4:
      switch (f) {
        case Fmt::e4m3: return 0;
        case Fmt::e5m2: return 1;
        case Fmt::e2m3: return 3;
        case Fmt::e3m2: return 4;
        case Fmt::e2m1: return 5;
        default: return -1;
      }
    case tl::Tcgen05Kind::i8: return f == Fmt::u8 ? 0 : f == Fmt::s8 ? 1 : -1;
    default: return f == Fmt::e2m1 ? 1 : -1;  // mxf4, mxf4nvf4
  }
}
int dtype_code(tcemu::AccType d) { return d == tcemu::AccType::f16 ? 0 : d == tcemu::AccType::f32 ? 1 : 2; }
int acc_bits(tcemu::AccType d) { return d == tcemu::AccType::f16 ? 16 : 32; }

// ORs `bits` bits of `code` into a little-endian byte row at bit `pos` (FP6 codes may span
// two bytes).
void put_bits(uint8_t* row, int pos, int bits, uint64_t code) {
  for (int b = 0; b < bits; ++b)
    if ((code >> b) & 1) row[(pos + b) / 8] |= static_cast<uint8_t>(1u << ((pos + b) % 8));
}

}  // namespace

bool is_tcgen05(const std::string& ptx) { return ptx.rfind("tcgen05", 0) == 0; }

int tcgen05_variant(const std::string& ptx) {
  for (int i = 0; i < tl::kTcgen05Variants; ++i)
    if (ptx == tl::kTcgen05Spellings[i]) return i;
  return -1;
}

std::vector<const tcemu::InstrEntry*> tcgen05_entries() {
  std::vector<const tcemu::InstrEntry*> v;
  for (const tcemu::InstrEntry& e : tcemu::catalog())
    if (e.arch == "sm_100a" && is_tcgen05(e.ptx)) v.push_back(&e);
  return v;
}

std::string tcgen05_entry_why_not(const tcemu::InstrEntry& e) {
  const int v = tcgen05_variant(e.ptx);
  if (v < 0) return "no tcgen05 kernel for " + e.ptx;
  const tl::Tcgen05Kind k = tl::tcgen05_variant_kind(v);
  if (type_code(k, e.atype) < 0 || type_code(k, e.btype) < 0)
    return std::string("types ") + std::string(tcemu::info(e.atype).name) + " x " +
           std::string(tcemu::info(e.btype).name) + " have no instruction-descriptor code for " + e.ptx;
  if (tl::tcgen05_block_scaled(v) != e.scale_type.has_value()) return "scale type does not match " + e.ptx;
  return "";
}

std::string tcgen05_why_not(const Case& c, const DeviceInfo& dev) {
  if (!c.mma.entry) return "the tcgen05 case names no catalog entry (atype/btype/dtype)";
  const tcemu::InstrEntry& e = *c.mma.entry;
  if (std::string why = tcgen05_entry_why_not(e); !why.empty()) return why;
  if (dev.present) {
    if (c.mma.arch.rfind("sm_100", 0) != 0) return "the case models " + c.mma.arch + "; tcgen05.mma runs on sm_100a";
    if (dev.arch_bit() != 2) {
      std::string why = "tcgen05.mma needs sm_100a; this GPU is compute capability ";
      why += std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
      return why;
    }
  }
  const tcemu::MmaOptions& o = c.mma.options;
  if (o.promote_every != 0) return "promote_every is a kernel's software loop, not one instruction";
  const tl::Tcgen05Kind kind = tl::tcgen05_variant_kind(tcgen05_variant(e.ptx));
  if (o.scale_input_d > 15) return "scale_input_d must be 0..15";
  if (o.scale_input_d >= 0 && kind != tl::Tcgen05Kind::f16 && kind != tl::Tcgen05Kind::tf32)
    return "scale_input_d is an operand of tcgen05.mma for kinds f16 and tf32 only";
  if ((o.negate_a || o.negate_b) && kind == tl::Tcgen05Kind::i8)
    return "kind::i8 has no negation (instruction descriptor bits 13-14 must be 0, Table 42)";
  const int rows = tl::kTcgen05TileM * tl::tcgen05_ctas(tcgen05_variant(e.ptx));
  if (c.mma.M % rows || c.mma.N % tl::kTcgen05TileN || c.mma.K % e.K || c.mma.K == 0)
    return "M, N, K must be multiples of " + std::to_string(rows) + ", 8 and the instruction's K (" +
           std::to_string(e.K) + ")";
  return "";
}

uint32_t tcgen05_case_idesc(const tcemu::InstrEntry& e, bool negate_a, bool negate_b) {
  const int v = tcgen05_variant(e.ptx);
  tl::Tcgen05Desc d;
  d.kind = tl::tcgen05_variant_kind(v);
  d.m = tl::kTcgen05InstrM * tl::tcgen05_ctas(v);  // 128, or 256 for a CTA pair
  d.n = tl::kTcgen05InstrN * tl::tcgen05_ctas(v);  // 16, or 32
  d.dtype = dtype_code(e.dtype);
  d.atype = type_code(d.kind, e.atype);
  d.btype = type_code(d.kind, e.btype);
  d.scale_ue8m0 = e.scale_type == Fmt::ue8m0;
  d.sfa_id = d.sfb_id = 0;  // scales at byte 0 (+ j) of their word
  d.negate_a = negate_a;
  d.negate_b = negate_b;
  return tl::tcgen05_idesc(d);
}

std::optional<Array> run_tcgen05_case(const Case& c, std::string& err, const Backend& be) {
  DeviceInfo none;
  if (std::string why = tcgen05_why_not(c, none); !why.empty()) {
    err = why;
    return std::nullopt;
  }
  const tcemu::InstrEntry& e = *c.mma.entry;
  const int v = tcgen05_variant(e.ptx);
  const tl::Tcgen05Kind kind = tl::tcgen05_variant_kind(v);
  const tcemu::golden::MmaInputs x = tcemu::golden::mma_inputs(c);
  // A device tile: 32 rows per CTA (64 for a CTA pair) x 8 columns.
  const int P = tl::tcgen05_ctas(v), TM = tl::kTcgen05TileM * P;
  const int M = c.mma.M, N = c.mma.N, K = c.mma.K, k = e.K, steps = K / k;
  const int TN = N / tl::kTcgen05TileN, T = (M / TM) * TN;
  const int abits = tcemu::info(e.atype).width, bbits = tcemu::info(e.btype).width, cb = acc_bits(e.dtype);
  const int V = e.scale_type ? e.scale_vec : 0, nb = e.scale_type ? K / e.scale_block : 0;
  Tcgen05Launch l;
  l.idesc = tcgen05_case_idesc(e, c.mma.options.negate_a, c.mma.options.negate_b);
  l.adesc = l.bdesc = tl::tcgen05_smem_desc(0, tl::kTcgen05Lbo, tl::kTcgen05Sbo);
  std::vector<uint64_t> acc = x.C;
  // One K row of an operand: its codes at their bit positions, then the 32 bytes placed into the
  // core-matrix image.
  auto put_row = [&](uint8_t* img, int row, int bits, auto code_of) {
    uint8_t buf[tl::kTcgen05RowBytes] = {};
    for (int kk = 0; kk < k; ++kk) put_bits(buf, tl::tcgen05_elem_bit(kind, bits, kk), bits, code_of(kk));
    for (int kb = 0; kb < tl::kTcgen05RowBytes; ++kb) img[tl::kmajor_offset(row, kb, 8, tl::kTcgen05Lbo, tl::kTcgen05Sbo)] = buf[kb];
  };
  for (int s = 0; s < steps; ++s) {
    std::vector<uint8_t> ai(static_cast<size_t>(T) * P * tl::kTcgen05AImage, 0), bi(static_cast<size_t>(T) * tl::kTcgen05BImage, 0);
    std::vector<uint32_t> cw(static_cast<size_t>(T) * TM * tl::kTcgen05TileN, 0), sa(static_cast<size_t>(T) * TM, 0),
        sb(static_cast<size_t>(T) * tl::kTcgen05TileN, 0), d;
    const int k0 = s * k;
    for (int t = 0; t < T; ++t) {
      const int m0 = (t / TN) * TM, n0 = (t % TN) * tl::kTcgen05TileN;
      uint8_t* B = &bi[static_cast<size_t>(t) * tl::kTcgen05BImage];
      for (int r = 0; r < TM; ++r)  // rows 32p..32p+31 in CTA p's image
        put_row(&ai[(static_cast<size_t>(t) * P + r / tl::kTcgen05TileM) * tl::kTcgen05AImage], r % tl::kTcgen05TileM, abits,
                [&](int kk) { return x.A[static_cast<size_t>(m0 + r) * K + k0 + kk]; });
      for (int n = 0; n < tl::kTcgen05TileN; ++n)
        put_row(B, n, bbits, [&](int kk) { return x.B[static_cast<size_t>(k0 + kk) * N + n0 + n]; });
      for (int r = 0; r < TM; ++r)
        for (int n = 0; n < tl::kTcgen05TileN; ++n)
          cw[(static_cast<size_t>(t) * TM + r) * tl::kTcgen05TileN + n] =
              static_cast<uint32_t>(acc[static_cast<size_t>(m0 + r) * N + n0 + n] & mask_of(cb));
      for (int j = 0; j < V; ++j) {
        const size_t blk = static_cast<size_t>(s) * V + j;
        // Row r of the tile in CTA r / 32 (cta_group::2: scale_A is split along M like A), in
        // lane r % 32 of the scale_A column there: 32 words per CTA.
        for (int r = 0; r < TM; ++r) {
          const tl::TmemSlot sl = tl::tcgen05_scale_slot(r % tl::kTcgen05TileM, j, 0);  // column 0
          sa[static_cast<size_t>(t) * TM + static_cast<size_t>(r / tl::kTcgen05TileM) * tl::kTcgen05TileM + sl.lane] |=
              static_cast<uint32_t>(x.sa[static_cast<size_t>(m0 + r) * nb + blk] & 0xff) << (8 * sl.byte);
        }
        // scale_B: one set of 8 words per tile; a CTA pair's kernel writes it to both CTAs.
        for (int n = 0; n < tl::kTcgen05TileN; ++n) {
          const tl::TmemSlot sl = tl::tcgen05_scale_slot(n, j, 0);
          sb[static_cast<size_t>(t) * tl::kTcgen05TileN + sl.lane] |=
              static_cast<uint32_t>(x.sb[static_cast<size_t>(n0 + n) * nb + blk] & 0xff) << (8 * sl.byte);
        }
      }
    }
    // enable-input-d: the case's scale_d for the first step, then each step's D is the next C.
    l.enable_input_d = s > 0 || c.mma.options.scale_d;
    // scale-input-d scales C, the first step's input, as the emulator does (mma.hpp).
    l.scale_input_d = s == 0 && c.mma.options.scale_d ? c.mma.options.scale_input_d : -1;
    if (std::string e2 = be.tcgen05(e.ptx, T, l, ai, bi, cw, sa, sb, d); !e2.empty()) {
      err = e2;
      return std::nullopt;
    }
    if (d.size() != cw.size()) {
      err = "tcgen05 backend returned " + std::to_string(d.size()) + " words, expected " + std::to_string(cw.size());
      return std::nullopt;
    }
    for (int t = 0; t < T; ++t) {
      const int m0 = (t / TN) * TM, n0 = (t % TN) * tl::kTcgen05TileN;
      for (int r = 0; r < TM; ++r)
        for (int n = 0; n < tl::kTcgen05TileN; ++n)
          acc[static_cast<size_t>(m0 + r) * N + n0 + n] =
              d[(static_cast<size_t>(t) * TM + r) * tl::kTcgen05TileN + n] & mask_of(cb);
    }
  }
  Array out = c.expected;
  out.npy.clear();
  for (size_t r = 0; r < out.rows; ++r)
    for (size_t q = 0; q < out.cols; ++q) out.set(r, q, acc[r * out.cols + q]);
  return out;
}

tcemu::golden::MmaGenRequest tcgen05_random_request(const tcemu::InstrEntry& e, int side, tcemu::golden::Dist dist,
                                                    uint64_t seed) {
  tcemu::golden::MmaGenRequest r;
  const tcemu::golden::InstrTile tile = tcemu::golden::default_tile(e);
  r.arch = e.arch;
  r.ptx = e.ptx;
  r.atype = e.atype, r.btype = e.btype, r.dtype = e.dtype, r.stype = e.scale_type;
  r.M = tile.m * side, r.N = tile.n * side, r.K = e.K;
  r.dist_a = r.dist_b = r.dist_c = dist;
  r.seed = seed;
  return r;
}

DotRunner tcgen05_dot_runner(const tcemu::InstrEntry& e, const Backend& be) {
  return [&e, be](const std::vector<DotQuery>& qs) {
    const int M = tl::kTcgen05TileM * tl::tcgen05_ctas(tcgen05_variant(e.ptx)), N = tl::kTcgen05TileN;
    return run_diagonal_batches(e, M, N, e.K, N, qs,
                                [&be](const Case& c, std::string& err) { return run_tcgen05_case(c, err, be); });
  };
}

}  // namespace tcemu_gpu
