// Golden cases on the GPU: operand placement and the instruction loop (see case_runner.hpp).
#include "case_runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <stdexcept>

#include "fragment_layout.hpp"
#include "tcemu/format.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcgen05_runner.hpp"

namespace tcemu_gpu {

namespace tl = layout;
using tcemu::golden::Array;
using tcemu::golden::Case;
using tcemu::golden::OpKind;

namespace {

uint64_t mask_of(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

std::string arch_names(int mask) {
  std::string s;
  for (auto [bit, name] : {std::pair{1, "sm_90a"}, std::pair{2, "sm_100a"}, std::pair{4, "sm_120a"}})
    if (mask & bit) {
      if (!s.empty()) s += '/';
      s += name;
    }
  return s;
}

// The register container of an A/B code: FP6/FP4 codes of kind::f8f6f4 sit in 8-bit
// containers (fragment_layout.hpp), everything else fills its own width.
uint32_t container(uint64_t code, int code_bits, int ab_bits) {
  if (ab_bits == 8 && code_bits < 8) return tl::f8f6f4_container(static_cast<uint32_t>(code), code_bits);
  return static_cast<uint32_t>(code & mask_of(ab_bits));
}

struct Gemm {
  int M, N, K, tm, tn, steps;
};

// mma.sync: every tile of the output at K step s, one warp each.
std::string mma_sync_step(const InstrInfo& in, const Gemm& g, int s, const tcemu::golden::MmaInputs& x,
                          std::vector<uint64_t>& acc, const Backend& be) {
  const tl::MmaSyncShape sh{in.m, in.n, in.k, in.ab_bits, in.c_bits};
  const int T = g.tm * g.tn;
  std::vector<uint32_t> a(static_cast<size_t>(T) * 128, 0), b(a.size(), 0), c(static_cast<size_t>(T) * 256, 0), sa(T * 32, 0),
      sb(T * 32, 0), d;
  const int na = tl::mma_elems_per_lane(sh, tl::Operand::A), nb = tl::mma_elems_per_lane(sh, tl::Operand::B),
            nc = tl::mma_elems_per_lane(sh, tl::Operand::C);
  const int k0 = s * in.k;
  const int nblocks = in.scale_vec ? g.K / (in.k / in.scale_vec) : 0;
  for (int t = 0; t < T; ++t) {
    const int m0 = (t / g.tn) * in.m, n0 = (t % g.tn) * in.n;
    for (int lane = 0; lane < 32; ++lane) {
      const size_t l = static_cast<size_t>(t) * 32 + lane;
      for (int i = 0; i < na; ++i) {
        const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::A, lane, i);
        const uint64_t code = x.A[static_cast<size_t>(m0 + co.row) * g.K + k0 + co.col];
        a[l * 4 + tl::elem_reg(sh, tl::Operand::A, i)] |= container(code, in.a_code, in.ab_bits)
                                                         << tl::elem_shift(sh, tl::Operand::A, i);
      }
      for (int i = 0; i < nb; ++i) {
        const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::B, lane, i);
        const uint64_t code = x.B[static_cast<size_t>(k0 + co.row) * g.N + n0 + co.col];
        b[l * 4 + tl::elem_reg(sh, tl::Operand::B, i)] |= container(code, in.b_code, in.ab_bits)
                                                         << tl::elem_shift(sh, tl::Operand::B, i);
      }
      for (int i = 0; i < nc; ++i) {
        const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::C, lane, i);
        const uint64_t code = acc[static_cast<size_t>(m0 + co.row) * g.N + n0 + co.col];
        c[l * 8 + tl::elem_reg(sh, tl::Operand::C, i)] |= static_cast<uint32_t>(code & mask_of(in.c_bits))
                                                          << tl::elem_shift(sh, tl::Operand::C, i);
      }
    }
    for (int j = 0; j < in.scale_vec; ++j) {
      const size_t blk = static_cast<size_t>(s) * in.scale_vec + j;
      for (int r = 0; r < in.m; ++r) {
        const tl::ScaleSlot sl = tl::mma_scale_a_slot(r, j, 0, 0);
        sa[t * 32 + sl.lane] |= static_cast<uint32_t>(x.sa[static_cast<size_t>(m0 + r) * nblocks + blk] & 0xff) << (8 * sl.byte);
      }
      for (int n = 0; n < in.n; ++n) {
        const tl::ScaleSlot sl = tl::mma_scale_b_slot(n, j, 0, 0);
        sb[t * 32 + sl.lane] |= static_cast<uint32_t>(x.sb[static_cast<size_t>(n0 + n) * nblocks + blk] & 0xff) << (8 * sl.byte);
      }
    }
  }
  if (std::string e = be.mma_sync(in, T, a, b, c, sa, sb, d); !e.empty()) return e;
  for (int t = 0; t < T; ++t) {
    const int m0 = (t / g.tn) * in.m, n0 = (t % g.tn) * in.n;
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < nc; ++i) {
        const tl::Coord co = tl::mma_sync_coord(sh, tl::Operand::C, lane, i);
        if (co.sub != 0) continue;  // m8n8k4: the other quad-pairs repeat the same tile
        const uint32_t reg = d[(static_cast<size_t>(t) * 32 + lane) * 8 + tl::elem_reg(sh, tl::Operand::C, i)];
        acc[static_cast<size_t>(m0 + co.row) * g.N + n0 + co.col] =
            (reg >> tl::elem_shift(sh, tl::Operand::C, i)) & mask_of(in.c_bits);
      }
  }
  return "";
}

// wgmma: one warpgroup per output tile; A and B K-major in shared memory (LBO 128, SBO 256).
std::string wgmma_step(const InstrInfo& in, const Gemm& g, int s, const tcemu::golden::MmaInputs& x, bool scale_d,
                       int imm_neg, std::vector<uint64_t>& acc, const Backend& be) {
  const int T = g.tm * g.tn, bytes = in.ab_bits / 8, rc = in.regs_c;
  std::vector<uint8_t> ai(static_cast<size_t>(T) * 2048, 0), bi(static_cast<size_t>(T) * in.n * 32, 0);
  std::vector<uint32_t> c(static_cast<size_t>(T) * 128 * rc, 0), d;
  const int k0 = s * in.k;
  auto put = [&](uint8_t* img, int row, int k, uint64_t code) {
    const uint32_t off = tl::kmajor_offset(row, k, in.ab_bits, 128, 256);
    for (int i = 0; i < bytes; ++i) img[off + i] = static_cast<uint8_t>(code >> (8 * i));
  };
  for (int t = 0; t < T; ++t) {
    const int m0 = (t / g.tn) * in.m, n0 = (t % g.tn) * in.n;
    uint8_t* A = &ai[static_cast<size_t>(t) * 2048];
    uint8_t* B = &bi[static_cast<size_t>(t) * in.n * 32];
    for (int r = 0; r < in.m; ++r)
      for (int k = 0; k < in.k; ++k) put(A, r, k, x.A[static_cast<size_t>(m0 + r) * g.K + k0 + k]);
    for (int n = 0; n < in.n; ++n)
      for (int k = 0; k < in.k; ++k) put(B, n, k, x.B[static_cast<size_t>(k0 + k) * g.N + n0 + n]);
    for (int th = 0; th < 128; ++th)
      for (int i = 0; i < tl::wgmma_c_elems_per_thread(in.n); ++i) {
        const tl::Coord co = tl::wgmma_c_coord(th, i);
        const int bit = i * in.c_bits;
        c[(static_cast<size_t>(t) * 128 + th) * rc + bit / 32] |=
            static_cast<uint32_t>(acc[static_cast<size_t>(m0 + co.row) * g.N + n0 + co.col] & mask_of(in.c_bits)) << (bit % 32);
      }
  }
  if (std::string e = be.wgmma(in, T, ai, bi, c, scale_d, imm_neg, d); !e.empty()) return e;
  for (int t = 0; t < T; ++t) {
    const int m0 = (t / g.tn) * in.m, n0 = (t % g.tn) * in.n;
    for (int th = 0; th < 128; ++th)
      for (int i = 0; i < tl::wgmma_c_elems_per_thread(in.n); ++i) {
        const tl::Coord co = tl::wgmma_c_coord(th, i);
        const int bit = i * in.c_bits;
        acc[static_cast<size_t>(m0 + co.row) * g.N + n0 + co.col] =
            (d[(static_cast<size_t>(t) * 128 + th) * rc + bit / 32] >> (bit % 32)) & mask_of(in.c_bits);
      }
  }
  return "";
}

// wmma: one warp per output tile; A row-major, B column-major, C/D row-major images in memory
// (the fragments themselves are opaque: wmma.load / wmma.store place them).
std::string wmma_step(const InstrInfo& in, const Gemm& g, int s, const tcemu::golden::MmaInputs& x,
                      std::vector<uint64_t>& acc, const Backend& be) {
  const int T = g.tm * g.tn, ab = in.ab_bits / 8, cb = in.c_bits / 8;
  const WmmaImages sz = wmma_images(in);
  std::vector<uint8_t> ai(static_cast<size_t>(T) * sz.a_stride, 0), bi(static_cast<size_t>(T) * sz.b_stride, 0),
      ci(static_cast<size_t>(T) * sz.c_stride, 0), di;
  auto put = [](uint8_t* p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
  };
  const int k0 = s * in.k;
  for (int t = 0; t < T; ++t) {
    const int m0 = (t / g.tn) * in.m, n0 = (t % g.tn) * in.n;
    uint8_t* A = &ai[static_cast<size_t>(t) * sz.a_stride];
    uint8_t* B = &bi[static_cast<size_t>(t) * sz.b_stride];
    uint8_t* C = &ci[static_cast<size_t>(t) * sz.c_stride];
    for (int r = 0; r < in.m; ++r)
      for (int k = 0; k < in.k; ++k) put(A + (r * in.k + k) * ab, x.A[static_cast<size_t>(m0 + r) * g.K + k0 + k], ab);
    for (int n = 0; n < in.n; ++n)
      for (int k = 0; k < in.k; ++k) put(B + (n * in.k + k) * ab, x.B[static_cast<size_t>(k0 + k) * g.N + n0 + n], ab);
    for (int r = 0; r < in.m; ++r)
      for (int n = 0; n < in.n; ++n) put(C + (r * in.n + n) * cb, acc[static_cast<size_t>(m0 + r) * g.N + n0 + n], cb);
  }
  if (std::string e = be.wmma(in, T, ai, bi, ci, di); !e.empty()) return e;
  if (di.size() != ci.size()) return "wmma: D image of the wrong size";
  for (int t = 0; t < T; ++t) {
    const int m0 = (t / g.tn) * in.m, n0 = (t % g.tn) * in.n;
    const uint8_t* D = &di[static_cast<size_t>(t) * sz.c_stride];
    for (int r = 0; r < in.m; ++r)
      for (int n = 0; n < in.n; ++n) {
        uint64_t v = 0;
        for (int i = 0; i < cb; ++i) v |= uint64_t{D[(r * in.n + n) * cb + i]} << (8 * i);
        acc[static_cast<size_t>(m0 + r) * g.N + n0 + n] = v;
      }
  }
  return "";
}

Array like_expected(const Case& c, const std::vector<uint64_t>& logical) {
  Array out = c.expected;
  out.npy.clear();
  for (size_t r = 0; r < out.rows; ++r)
    for (size_t k = 0; k < out.cols; ++k) out.set(r, k, logical[r * out.cols + k]);
  return out;
}

}  // namespace

std::string why_not_runnable(const Case& c, const DeviceInfo& dev) {
  if (c.op == OpKind::convert)
    return "op convert models a software conversion convention, not a PTX instruction (use op cvt)";
  if (c.op == OpKind::quantize) return "op quantize models a software quantization recipe, not a PTX instruction";
  if (c.op == OpKind::gemm)
    return "op gemm models a library GEMM's split-K plan and epilogue, not one PTX instruction (run the library, "
           "then tcemu compare its D)";
  if (c.op == OpKind::cvt) {
    // A cvt case runs on every target whose ptxas accepts the spelling (cvt_variants.cuh).
    const CvtInfo* cv = find_cvt(c.cvt.ptx);
    if (!cv)
      return std::string("no kernel for ") + c.cvt.ptx +
             " (ptxas of CUDA 13.0 accepts it on none of sm_90a, sm_100a, sm_120a; see docs/gpu.md)";
    if (dev.present && !(cv->arch_mask & dev.arch_bit()))
      return c.cvt.ptx + " needs " + arch_names(cv->arch_mask) + "; this GPU is sm_" + std::to_string(dev.cc_major) +
             std::to_string(dev.cc_minor);
    return "";
  }
  const std::string& ptx = c.mma.entry ? c.mma.entry->ptx : c.mma.ptx;
  if (is_tcgen05(ptx)) return tcgen05_why_not(c, dev);
  const InstrInfo* in = find_instr(ptx);
  if (!in) {
    return std::string("no kernel for ") + ptx;
  }
  // A case's expected results model the architecture it names: run it only on that family
  // (sm_90/sm_90a on compute capability 9.0, sm_100* on 10.x, sm_120* on 12.x).
  if (dev.present) {
    const std::string& a = c.mma.arch;
    const int fam = a.rfind("sm_90", 0) == 0 ? 1 : a.rfind("sm_100", 0) == 0 ? 2 : a.rfind("sm_120", 0) == 0 ? 4 : 0;
    if (fam != dev.arch_bit()) {
      std::string why = "the case models ";
      why += a;
      why += "; this GPU is compute capability ";
      why += std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
      return why;
    }
  }
  if (dev.present && !(in->arch_mask & dev.arch_bit()))
    return ptx + " needs " + arch_names(in->arch_mask) + "; this GPU is sm_" + std::to_string(dev.cc_major) +
           std::to_string(dev.cc_minor);
  const tcemu::MmaOptions& o = c.mma.options;
  if (o.promote_every != 0) return "promote_every is a kernel's software loop, not one instruction";
  if ((o.negate_a || o.negate_b) && !(in->wgmma && in->acc != 'I'))
    return "negation (imm-scale -1) exists only in floating-point wgmma";
  if (o.scale_input_d >= 0) return "scale_input_d is tcgen05's";
  if (c.mma.tile_m != in->m || c.mma.tile_n != in->n) return "tile differs from the instruction's shape";
  return "";
}

std::optional<Array> run_case(const Case& c, std::string& err, const Backend& be) {
  err.clear();
  if (c.op == OpKind::cvt) {
    const CvtInfo* cv = find_cvt(c.cvt.ptx);
    if (!cv) {
      err = std::string("no kernel for ") + c.cvt.ptx;
      return std::nullopt;
    }
    // Golden operands: src (n x registers, PTX operand order a, b, e, f), rbits (n, cvt.rs).
    const Array& src = c.operands.at("src");
    const auto rb = c.operands.find("rbits");
    if (src.cols != static_cast<size_t>(cv->srcs) || (rb != c.operands.end()) != cv->rbits) {
      err = c.cvt.ptx + ": the case's operands do not fit the instruction (" + std::to_string(cv->srcs) +
            " source registers" + (cv->rbits ? " and rbits" : "") + ")";
      return std::nullopt;
    }
    std::vector<uint64_t> regs(src.rows * kCvtMaxSrcs, 0), d;
    std::vector<uint32_t> bits(src.rows, 0);
    for (size_t i = 0; i < src.rows; ++i) {
      for (size_t k = 0; k < src.cols; ++k) regs[i * kCvtMaxSrcs + k] = src.at(i, k) & mask_of(cv->src_bits);
      if (rb != c.operands.end()) bits[i] = static_cast<uint32_t>(rb->second.at(i, 0));
    }
    if (std::string e = be.cvt(*cv, regs, bits, d); !e.empty()) {
      err = e;
      return std::nullopt;
    }
    if (d.size() != src.rows) {
      err = "the cvt backend returned " + std::to_string(d.size()) + " results for " + std::to_string(src.rows) + " inputs";
      return std::nullopt;
    }
    const uint64_t m = mask_of(c.expected.type.bits);
    for (uint64_t& v : d) v &= m;
    return like_expected(c, d);
  }
  if (c.op != OpKind::mma) {
    err = "not an instruction case";
    return std::nullopt;
  }
  if (is_tcgen05(c.mma.entry ? c.mma.entry->ptx : c.mma.ptx)) return run_tcgen05_case(c, err, be);
  const InstrInfo* in = find_instr(c.mma.entry ? c.mma.entry->ptx : c.mma.ptx);
  if (!in) {
    err = std::string("no kernel for ") + c.mma.ptx;
    return std::nullopt;
  }
  const tcemu::golden::MmaInputs x = tcemu::golden::mma_inputs(c);
  const Gemm g{c.mma.M, c.mma.N, c.mma.K, c.mma.M / in->m, c.mma.N / in->n, c.mma.K / in->k};
  std::vector<uint64_t> acc = x.C;
  if (!c.mma.options.scale_d && !in->wgmma) acc.assign(acc.size(), 0);
  for (int s = 0; s < g.steps; ++s) {
    const int neg = (c.mma.options.negate_a ? 1 : 0) | (c.mma.options.negate_b ? 2 : 0);
    const std::string e = in->wgmma  ? wgmma_step(*in, g, s, x, s > 0 || c.mma.options.scale_d, neg, acc, be)
                          : in->wmma ? wmma_step(*in, g, s, x, acc, be)
                                     : mma_sync_step(*in, g, s, x, acc, be);
    if (!e.empty()) {
      err = e;
      return std::nullopt;
    }
  }
  return like_expected(c, acc);
}

std::vector<uint64_t> run_diagonal_batches(const tcemu::InstrEntry& e, int M, int N, int K, int per,
                                           const std::vector<DotQuery>& qs, const CaseRun& run) {
  namespace tg = tcemu::golden;
  const tg::ElemType acc = tg::elem_type(tcemu::acc_format(e.dtype));
  const int nb = e.scale_type ? K / e.scale_block : 0;
  std::vector<uint64_t> out;
  for (size_t q0 = 0; q0 < qs.size(); q0 += per) {
    Case c;
    c.name = "probe";
    c.op = OpKind::mma;
    c.mma.arch = e.arch;
    c.mma.ptx = e.ptx;
    c.mma.entry = &e;
    c.mma.atype = e.atype, c.mma.btype = e.btype, c.mma.dtype = e.dtype, c.mma.stype = e.scale_type;
    c.mma.M = M, c.mma.N = N, c.mma.K = K, c.mma.tile_m = M, c.mma.tile_n = N;
    std::vector<uint64_t> A(static_cast<size_t>(M) * K, *tcemu::zero_code(e.atype)),
        B(static_cast<size_t>(K) * N, *tcemu::zero_code(e.btype)), C(static_cast<size_t>(M) * N, 0), sa, sb;
    if (nb) {
      const uint64_t one = *tcemu::encode_exact(*e.scale_type, false, 1, 0);
      sa.assign(static_cast<size_t>(M) * nb, one);
      sb.assign(static_cast<size_t>(N) * nb, one);
    }
    for (int i = 0; i < per && q0 + i < qs.size(); ++i) {
      const DotQuery& q = qs[q0 + i];
      for (int k = 0; k < K; ++k) A[static_cast<size_t>(i) * K + k] = q.a[k], B[static_cast<size_t>(k) * N + i] = q.b[k];
      C[static_cast<size_t>(i) * N + i] = q.c;
      for (int j = 0; j < nb; ++j) sa[static_cast<size_t>(i) * nb + j] = q.sa[j], sb[static_cast<size_t>(i) * nb + j] = q.sb[j];
    }
    c.operands["A"] = tg::make_array(tg::elem_type(e.atype), M, K, A);
    c.operands["B"] = tg::make_array(tg::elem_type(e.btype), K, N, B);
    c.operands["C"] = tg::make_array(acc, M, N, C);
    if (nb) {
      c.operands["scale_A"] = tg::make_array(tg::elem_type(*e.scale_type), M, nb, sa);
      c.operands["scale_B"] = tg::make_array(tg::elem_type(*e.scale_type), N, nb, sb);
    }
    c.expected = tg::make_array(acc, M, N, C);
    std::string err;
    const std::optional<Array> d = run(c, err);
    if (!d) throw std::runtime_error(err);
    for (int i = 0; i < per && q0 + i < qs.size(); ++i) out.push_back(d->at(i, i));
  }
  return out;
}

DotRunner gpu_dot_runner(const tcemu::InstrEntry& e, const InstrInfo& in, const Backend& be) {
  return [&e, &in, be](const std::vector<DotQuery>& qs) {
    return run_diagonal_batches(e, in.m, in.n, in.k, std::min(in.m, in.n), qs,
                                [&be](const Case& c, std::string& err) { return run_case(c, err, be); });
  };
}

nlohmann::json hardware_provenance(const DeviceInfo& dev, const std::string& tool) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return {{"source", "hardware"},
          {"gpu", dev.name},
          {"compute_capability", std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor)},
          {"driver", dev.driver},
          {"cuda", dev.runtime},
          {"date", date},
          {"tool", tool}};
}

}  // namespace tcemu_gpu
