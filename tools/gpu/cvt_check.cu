// cvt_check: runs every PTX cvt variant that exists on the present GPU (sm_90a, sm_100a or
// sm_120a: the masks of cvt_variants.cuh) and compares each result, bit for bit, with
// tcemu::ptx_cvt_eval on the host.
//
// Coverage per variant (inputs are computed from an index on both sides, see cvt_inputs.cuh):
//   16-bit sources (f16, bf16, FP8x2/FP6x2/ue8m0x2 in .b16): all 65536 codes; 8-bit sources
//     (e2m1x2, s8, u8): all 256.
//   packed f16x2/bf16x2 sources: all 65536 values in each half with the other half fixed at
//     1.0, plus 2^20 random pairs.
//   f32 sources: all 2^32 patterns, in 256 chunks of 2^24 (chunk k fixes the low byte to
//     k*167 mod 256, so a partial run still spans every exponent); pair forms (a, b) sweep a
//     with a random partner b and then b with a fixed a (2^33 in all). The chunks stop when
//     the variant's share of the time budget is spent; the line then says how far it got.
//   f64 sources: 2^26 random values shaped around the f32/f16/bf16 ranges.
//   cvt.rs (2 or 4 f32 sources and a random-bit word): chunks of 2^24 random operands (sources
//     near the narrow formats' ranges; a quarter of the words tie-deciding patterns), within
//     the time budget like the f32 sweeps.
//   every variant: a directed set of specials and rounding boundaries, whose hardware
//     outputs are also written to cvt_directed.txt as measured evidence.
//
// Usage: cvt_check [--out DIR] [--budget SECONDS] [--full] [--only SUBSTRING] [--list] [--eval-only] [--selftest-host]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "cvt_inputs.cuh"
#include "cvt_variants.cuh"
#include "gpu_arch.cuh"
#include "gpu_common.hpp"
#include "tcemu/ptx_cvt.hpp"

using namespace tcemu_gpu;

namespace {

// Device side: cvt_op<ID>, one specialisation per variant (cvt_ops.cuh).
#include "cvt_ops.cuh"

template <int ID>
__global__ void cvt_kernel(Gen g, uint64_t base, uint32_t n, uint64_t* out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  Regs r;
  gen(g, base + t, r);
  out[t] = cvt_op<ID>(r.s[0], r.s[1], r.s[2], r.s[3], r.rbits);
}

using LaunchFn = void (*)(const Gen&, uint64_t, uint32_t, uint64_t*, cudaStream_t);
template <int ID>
void launch(const Gen& g, uint64_t base, uint32_t n, uint64_t* out, cudaStream_t s) {
  cvt_kernel<ID><<<(n + 255) / 256, 256, 0, s>>>(g, base, n, out);
}

struct Variant {
  int id;
  CvtShape shape;
  int mask;  // 1 sm_90a, 2 sm_100a, 4 sm_120a
  const char* spelling;
  LaunchFn launch;
};

const Variant kVariants[] = {
#define TCEMU_TABLE_ROW(ID, SHAPE, MASK, SP) {ID, CvtShape::SHAPE, MASK, SP, &launch<ID>},
    TCEMU_CVT_VARIANTS(TCEMU_TABLE_ROW)
#undef TCEMU_TABLE_ROW
};

std::string mask_names(int mask) {
  std::string s;
  for (auto [bit, name] : {std::pair{1, "sm_90a"}, std::pair{2, "sm_100a"}, std::pair{4, "sm_120a"}})
    if (mask & bit) {
      if (!s.empty()) s += ',';
      s += name;
    }
  return s;
}

// ---------------------------------------------------------------------------------------
// Host side.

struct ShapeInfo {
  int nregs;     // source registers passed to ptx_cvt_eval
  int src_bits;  // width of one source register
  int dst_bits;
};
ShapeInfo shape_info(CvtShape s) {
  const CvtShapeInfo i = cvt_shape_info(s);
  return {i.srcs, i.src_bits, i.dst_bits};
}
bool is_rs(CvtShape s) { return cvt_shape_info(s).rbits; }
// Sources swept within the time budget: f32 (2^32 patterns) and cvt.rs (random operands).
bool is_f32_source(CvtShape s) {
  switch (s) {
    case CvtShape::F32_B16: case CvtShape::F32_B32: case CvtShape::F32_F64: case CvtShape::F32_I8:
    case CvtShape::F32P_B32: case CvtShape::F32P_B16: case CvtShape::F32P_B8:
    case CvtShape::F32P_R_B32: case CvtShape::F32Q_R_B32: case CvtShape::F32Q_R_B16:
      return true;
    default:
      return false;
  }
}
bool is_pair(CvtShape s) { return is_f32_source(s) && cvt_shape_info(s).srcs > 1; }
// Time-budget weight of a swept variant: pair forms and cvt.rs count twice.
int budget_weight(CvtShape s) { return is_f32_source(s) ? (is_pair(s) ? 2 : 1) : 0; }
std::string last_token(const char* sp) {
  std::string s(sp);
  return s.substr(s.rfind('.') + 1);
}

// "a=<hex> [b=.. e=.. f=..] [rbits=..]": the operands of one cvt, each at its register width.
std::string regs_text(const Regs& r, CvtShape s) {
  const CvtShapeInfo si = cvt_shape_info(s);
  const char* names[] = {"a", "b", "e", "f"};
  std::string out;
  for (int k = 0; k < si.srcs; ++k) {
    if (k) out += ' ';
    out += names[k];
    out += '=';
    out += hex(r.s[k], (si.src_bits + 3) / 4);
  }
  if (si.rbits) {
    out += " rbits=";
    out += hex(r.rbits, 8);
  }
  return out;
}

// A chunk of inputs: gen(g, base + j) for j < n.
struct Chunk {
  Gen g;
  uint64_t base = 0;
  uint32_t n = 0;
};

struct Mismatch {
  Regs r;
  uint64_t hw, emu;
};

struct Tally {
  uint64_t checked = 0;
  uint64_t mismatches = 0;
  std::vector<Mismatch> first;  // at most kKeep
  std::string error;            // the emulator threw
};
constexpr size_t kKeep = 50;
constexpr uint32_t kChunk = 1u << 24;

unsigned host_threads() {
  unsigned t = std::thread::hardware_concurrency();
  return t == 0 ? 4 : std::min(t, 64u);
}

// How the expected results are computed. ptx_cvt_eval is the contract and is used for every
// directed input, every packed-source variant and 1 in kEvalEvery sweep inputs. For f32/f64
// element-wise variants the rest of a sweep goes through tcemu::Converter::run with the very
// options parse_ptx_cvt chose (many times faster where the library has a specialised kernel),
// packing pair results as PTX does (a in the high field). --eval-only turns that off.
constexpr uint64_t kEvalEvery = 64;
struct Expect {
  const tcemu::PtxCvt* pc = nullptr;
  int nregs = 1;
  std::optional<tcemu::Converter> conv;  // set when the bulk path applies
  int elem_bits = 0;                     // destination field width of one element
  size_t src_bytes = 4, dst_bytes = 2;   // Converter containers
};

Expect make_expect(const tcemu::PtxCvt& pc, int nregs, bool eval_only) {
  Expect e;
  e.pc = &pc;
  e.nregs = nregs;
  // The sm_90 NaN quirk of cvt.rna.satfinite.tf32.f32 is applied by ptx_cvt_eval only, not by
  // the Converter: that variant never takes the bulk path.
  const bool elementwise = !pc.src_packed && !pc.has_rbits && !pc.sm90_tf32_satfinite_nan && pc.src_count == pc.dst_count &&
                           (pc.src == tcemu::Fmt::f32 || pc.src == tcemu::Fmt::f64) && pc.src_count == nregs;
  if (!eval_only && elementwise) {
    e.conv.emplace(pc.src, pc.dst, pc.options);
    e.elem_bits = tcemu::ptx_cvt_dst_bits(pc) / pc.dst_count;
    e.src_bytes = tcemu::container_bytes(pc.src);
    e.dst_bytes = tcemu::container_bytes(pc.dst);
  }
  return e;
}

uint64_t load_le(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // x86-64: little-endian, as the Converter containers are
  return v;
}

// Compares hw[j] with the emulator for j < n, on every core.
void compare_chunk(const Expect& ex, const Chunk& c, const uint64_t* hw, Tally& tally) {
  const unsigned T = host_threads();
  std::vector<Tally> part(T);
  std::vector<std::thread> threads;
  const uint64_t per = (c.n + T - 1) / T;
  const int nregs = ex.nregs;
  const bool rbits = ex.pc->has_rbits;
  for (unsigned t = 0; t < T; ++t) {
    threads.emplace_back([&, t] {
      const uint64_t lo = t * per, hi = std::min<uint64_t>(c.n, lo + per);
      Tally& p = part[t];
      auto check = [&](uint64_t j, const Regs& r, uint64_t emu) {
        if (emu != hw[j]) {
          ++p.mismatches;
          if (p.first.size() < kKeep) p.first.push_back({r, hw[j], emu});
        }
      };
      try {
        if (!ex.conv) {
          for (uint64_t j = lo; j < hi; ++j) {
            Regs r;
            gen(c.g, c.base + j, r);
            check(j, r, tcemu::ptx_cvt_eval(*ex.pc, std::span<const uint64_t>(r.s, nregs), rbits ? r.rbits : 0));
          }
        } else {
          constexpr uint64_t kBlock = 4096;
          std::vector<Regs> rr(kBlock);
          std::vector<uint8_t> sa(kBlock * 8), sb(kBlock * 8), da(kBlock * 8), db(kBlock * 8);
          for (uint64_t j0 = lo; j0 < hi; j0 += kBlock) {
            const uint64_t m = std::min(kBlock, hi - j0);
            for (uint64_t k = 0; k < m; ++k) {
              gen(c.g, c.base + j0 + k, rr[k]);
              std::memcpy(&sa[k * ex.src_bytes], &rr[k].s[0], ex.src_bytes);
              std::memcpy(&sb[k * ex.src_bytes], &rr[k].s[1], ex.src_bytes);
            }
            ex.conv->run(sa.data(), da.data(), m);
            if (nregs > 1) ex.conv->run(sb.data(), db.data(), m);
            for (uint64_t k = 0; k < m; ++k) {
              const uint64_t j = j0 + k;
              uint64_t emu;
              if (((c.base + j) % kEvalEvery) == 0) {
                emu = tcemu::ptx_cvt_eval(*ex.pc, std::span<const uint64_t>(rr[k].s, nregs));
              } else if (nregs > 1) {
                emu = (load_le(&da[k * ex.dst_bytes], ex.dst_bytes) << ex.elem_bits) |
                      load_le(&db[k * ex.dst_bytes], ex.dst_bytes);
              } else {
                emu = load_le(&da[k * ex.dst_bytes], ex.dst_bytes);
              }
              check(j, rr[k], emu);
            }
          }
        }
        p.checked = hi > lo ? hi - lo : 0;
      } catch (const std::exception& e) {
        p.error = e.what();
      } catch (...) {
        p.error = "unknown exception";
      }
    });
  }
  for (auto& th : threads) th.join();
  for (auto& p : part) {
    tally.checked += p.checked;
    tally.mismatches += p.mismatches;
    for (auto& m : p.first)
      if (tally.first.size() < kKeep) tally.first.push_back(m);
    if (!p.error.empty() && tally.error.empty()) tally.error = p.error;
  }
}

// GPU buffers reused by every variant: two device and two pinned host buffers of kChunk
// results, so the GPU fills one while the host compares the other.
struct Buffers {
  uint64_t* dev[2] = {nullptr, nullptr};
  uint64_t* host[2] = {nullptr, nullptr};
  cudaStream_t stream = nullptr;
  cudaEvent_t done[2] = {nullptr, nullptr};
  bool init() {
    for (int i = 0; i < 2; ++i) {
      if (!TCEMU_CUDA_OK(cudaMalloc(&dev[i], kChunk * sizeof(uint64_t)))) return false;
      if (!TCEMU_CUDA_OK(cudaMallocHost(&host[i], kChunk * sizeof(uint64_t)))) return false;
      if (!TCEMU_CUDA_OK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming))) return false;
    }
    return TCEMU_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
};

// Runs the chunks through the GPU and the comparison, pipelined, until all are done or the
// deadline (seconds since start) passes. Returns the number of chunks completed.
size_t run_chunks(const Variant& v, const Expect& ex, const std::vector<Chunk>& chunks, double deadline,
                  Buffers& buf, Tally& tally, bool& cuda_failed) {
  auto submit = [&](size_t k) {
    const Chunk& c = chunks[k];
    const int s = static_cast<int>(k & 1);
    v.launch(c.g, c.base, c.n, buf.dev[s], buf.stream);
    TCEMU_CUDA_OK(cudaGetLastError());
    TCEMU_CUDA_OK(cudaMemcpyAsync(buf.host[s], buf.dev[s], c.n * sizeof(uint64_t), cudaMemcpyDeviceToHost, buf.stream));
    TCEMU_CUDA_OK(cudaEventRecord(buf.done[s], buf.stream));
  };
  if (chunks.empty()) return 0;
  submit(0);
  size_t k = 0;
  for (; k < chunks.size(); ++k) {
    const bool more = k + 1 < chunks.size() && now_s() < deadline;
    if (more) submit(k + 1);
    if (!TCEMU_CUDA_OK(cudaEventSynchronize(buf.done[k & 1]))) {
      cuda_failed = true;
      return k;
    }
    compare_chunk(ex, chunks[k], buf.host[k & 1], tally);
    if (!tally.error.empty()) return k + 1;
    if (!more) return k + 1;
  }
  return k;
}

// The directed inputs of a variant, as operands.
std::vector<Regs> directed_inputs(const Variant& v) {
  const std::string src = last_token(v.spelling);
  std::vector<Regs> out;
  auto one = [&](uint64_t a, uint64_t b) {
    Regs r;
    r.s[0] = a;
    r.s[1] = b;
    out.push_back(r);
  };
  // Packed pairs: each code against the list reversed (a in the high field).
  auto pairs = [&](const std::vector<uint32_t>& x, int shift) {
    for (size_t i = 0; i < x.size(); ++i) one((static_cast<uint64_t>(x[i]) << shift) | x[x.size() - 1 - i], 0);
  };
  switch (v.shape) {
    case CvtShape::F32_B16: case CvtShape::F32_B32: case CvtShape::F32_F64: case CvtShape::F32_I8:
      for (uint32_t x : directed_f32()) one(x, 0);
      break;
    case CvtShape::F32P_B32: case CvtShape::F32P_B16: case CvtShape::F32P_B8: {
      auto x = directed_f32();
      for (size_t i = 0; i < x.size(); ++i) one(x[i], x[x.size() - 1 - i]);
      break;
    }
    case CvtShape::F32P_R_B32: case CvtShape::F32Q_R_B32: case CvtShape::F32Q_R_B16: {
      // Every directed value in each operand position, under every tie-deciding word.
      auto x = directed_f32();
      const size_t n = x.size();
      for (uint32_t k = 0; k < kRsPatterns; ++k)
        for (size_t i = 0; i < n; ++i) {
          Regs r;
          r.s[0] = x[i];
          r.s[1] = x[n - 1 - i];
          if (cvt_shape_info(v.shape).srcs == 4) {
            r.s[2] = x[(i + 7) % n];
            r.s[3] = x[(i + 13) % n];
          }
          r.rbits = rs_pattern(k);
          out.push_back(r);
        }
      break;
    }
    case CvtShape::B32_B16: pairs(src == "bf16x2" ? directed_bf16() : directed_f16(), 16); break;
    case CvtShape::B16_B32:
      if (src == "e2m3x2" || src == "e3m2x2") pairs(directed_fp6(), 8);
      else if (src == "ue8m0x2") pairs(directed_ue8m0(), 8);
      else pairs(directed_fp8(), 8);
      break;
    case CvtShape::B8_B32: case CvtShape::I8_F32:
      for (uint32_t x = 0; x < 256; ++x) one(x, 0);  // every code: also the recorded evidence
      break;
    case CvtShape::B16_F32: case CvtShape::B16_F64: case CvtShape::B16_B16:
      for (uint32_t x : (src == "bf16" ? directed_bf16() : directed_f16())) one(x, 0);
      break;
    case CvtShape::F64_F32: case CvtShape::F64_B16:
      for (uint64_t x : directed_f64()) one(x, 0);
      break;
  }
  return out;
}

// The sweep of a variant (f32 sources: all 256 chunks, cvt.rs: 64 random chunks; run_chunks
// stops at the budget).
std::vector<Chunk> sweep_chunks(const Variant& v) {
  std::vector<Chunk> out;
  const uint64_t seed = 0x7463656d75ull * 1000 + static_cast<uint64_t>(v.id);  // "tcemu", fixed
  switch (v.shape) {
    case CvtShape::F32_B16: case CvtShape::F32_B32: case CvtShape::F32_F64: case CvtShape::F32_I8:
    case CvtShape::F32P_B32: case CvtShape::F32P_B16: case CvtShape::F32P_B8:
      for (uint32_t k = 0; k < 256; ++k) {
        Chunk c;
        c.g.mode = GenMode::exh32_a;
        c.g.low = (k * 167u) & 255u;
        c.g.seed = seed;
        c.n = kChunk;
        out.push_back(c);
        if (is_pair(v.shape)) {
          c.g.mode = GenMode::exh32_b;
          c.g.fixed = 0x40490fdbu;  // pi: a normal partner in the high field
          out.push_back(c);
        }
      }
      break;
    case CvtShape::F32P_R_B32: case CvtShape::F32Q_R_B32: case CvtShape::F32Q_R_B16:
      for (uint32_t k = 0; k < 64; ++k) {
        Chunk c;
        c.g.mode = GenMode::rand_rs;
        c.g.seed = seed;
        c.base = uint64_t{k} * kChunk;
        c.n = kChunk;
        out.push_back(c);
      }
      break;
    case CvtShape::B16_B32: case CvtShape::B16_F32: case CvtShape::B16_F64: case CvtShape::B16_B16: {
      Chunk c;
      c.g.mode = GenMode::exh16;
      c.n = 65536;
      out.push_back(c);
      break;
    }
    case CvtShape::B8_B32: case CvtShape::I8_F32: {
      Chunk c;
      c.g.mode = GenMode::exh16;
      c.n = 256;
      out.push_back(c);
      break;
    }
    case CvtShape::B32_B16: {
      Chunk c;
      c.g.fixed = last_token(v.spelling) == "bf16x2" ? 0x3f80 : 0x3c00;  // 1.0 in the other half
      c.n = 65536;
      c.g.mode = GenMode::half_hi;
      out.push_back(c);
      c.g.mode = GenMode::half_lo;
      out.push_back(c);
      c.g.mode = GenMode::rand32;
      c.g.seed = seed;
      c.n = 1u << 20;
      out.push_back(c);
      break;
    }
    case CvtShape::F64_F32: case CvtShape::F64_B16:
      for (uint32_t k = 0; k < 4; ++k) {
        Chunk c;
        c.g.mode = GenMode::rand_f64;
        c.g.seed = seed;
        c.base = uint64_t{k} * kChunk;
        c.n = kChunk;
        out.push_back(c);
      }
      break;
  }
  return out;
}

// Host self-check, before any GPU work: the bulk Converter path must reproduce ptx_cvt_eval
// on 2^16 random inputs (plus the directed set). Where it does not, the variant falls back to
// ptx_cvt_eval alone, so a fast-path bug in the library cannot pass as a hardware mismatch.
bool bulk_path_consistent(const Variant& v, const Expect& ex, std::string& why) {
  if (!ex.conv) return true;
  Chunk c;
  c.g.mode = ex.pc->src == tcemu::Fmt::f64 ? GenMode::rand_f64 : GenMode::rand_pair;
  c.g.seed = 0x5e1fc4ecull + static_cast<uint64_t>(v.id);
  c.base = 1;  // keeps most indices off the kEvalEvery grid
  c.n = 1u << 16;
  std::vector<uint64_t> ref(c.n);
  for (uint32_t j = 0; j < c.n; ++j) {
    Regs r;
    gen(c.g, c.base + j, r);
    ref[j] = tcemu::ptx_cvt_eval(*ex.pc, std::span<const uint64_t>(r.s, ex.nregs));
  }
  Tally t;
  compare_chunk(ex, c, ref.data(), t);
  if (t.mismatches == 0 && t.error.empty()) return true;
  why = "Converter::run disagrees with ptx_cvt_eval on " + std::to_string(t.mismatches) + " of 65536" +
        (t.first.empty() ? std::string() : " (first a=" + hex(t.first[0].r.s[0], 8) + ": eval " + hex(t.first[0].hw, 8) +
                                               ", Converter " + hex(t.first[0].emu, 8) + ")") +
        (t.error.empty() ? std::string() : "; error: " + t.error);
  return false;
}

struct Options {
  std::string out_dir = ".";
  double budget = 150.0;  // seconds for the whole program after start-up
  bool full = false;
  std::string only;
  bool list = false;
  bool eval_only = false;
  bool selftest_host = false;  // only the host self-check (no GPU needed)
};

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&](const char* what) -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "cvt_check: %s needs a value\n", what); std::exit(2); }
      return argv[++i];
    };
    if (a == "--out") o.out_dir = need("--out");
    else if (a == "--budget") o.budget = std::atof(need("--budget"));
    else if (a == "--full") o.full = true;
    else if (a == "--only") o.only = need("--only");
    else if (a == "--list") o.list = true;
    else if (a == "--eval-only") o.eval_only = true;
    else if (a == "--selftest-host") o.selftest_host = true;
    else {
      std::fprintf(stderr, "usage: cvt_check [--out DIR] [--budget SECONDS] [--full] [--only SUBSTRING] [--list] [--eval-only] [--selftest-host]\n");
      return false;
    }
  }
  return true;
}

struct Result {
  const Variant* v;
  std::string status;  // "ok", "MISMATCH", "no-model", "cuda-error", "emulator-error", "shape"
  std::string coverage;
  std::string note;  // the bulk path was dropped, and why; cvt.rs: mismatches under each bit mapping
  Tally tally;
  double seconds = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, opt)) return 2;
  if (opt.list) {
    for (const auto& v : kVariants) std::printf("%-24s %s\n", mask_names(v.mask).c_str(), v.spelling);
    return 0;
  }
  now_s();
  std::vector<const Variant*> todo;
  for (const auto& v : kVariants)
    if (opt.only.empty() || std::string(v.spelling).find(opt.only) != std::string::npos) todo.push_back(&v);
  // Cheap variants first, then the f32 sweeps share what is left of the budget.
  std::stable_partition(todo.begin(), todo.end(), [](const Variant* v) { return !is_f32_source(v->shape); });

  if (opt.selftest_host) {
    size_t bad = 0, models = 0;
    for (const Variant* v : todo) {
      std::string err;
      auto pc = tcemu::parse_ptx_cvt(v->spelling, &err);
      if (!pc) { logf("%-36s no model: %s\n", v->spelling, err.c_str()); continue; }
      ++models;
      const ShapeInfo si = shape_info(v->shape);
      const int emu_regs = pc->src_packed ? 1 : pc->src_count;
      Expect ex = make_expect(*pc, si.nregs, false);
      std::string why;
      bool ok = emu_regs == si.nregs && bulk_path_consistent(*v, ex, why);
      if (emu_regs != si.nregs) why = "the emulator takes " + std::to_string(emu_regs) + " source registers";
      // The emulator evaluates every directed input and the start of every sweep chunk (no
      // throw), and the generated registers fit the instruction's operands.
      if (ok) {
        std::vector<Regs> dr = directed_inputs(*v);
        for (const Chunk& c : sweep_chunks(*v))
          for (uint32_t j = 0; j < std::min<uint32_t>(c.n, 4096); ++j) {
            Regs r;
            gen(c.g, c.base + j, r);
            dr.push_back(r);
          }
        try {
          for (const Regs& r : dr) {
            for (int k = 0; k < si.nregs; ++k)  // the kernels ignore the others
              if (si.src_bits < 64 && (r.s[k] >> si.src_bits) != 0)
                throw std::runtime_error("generated operand " + regs_text(r, v->shape) + " does not fit the registers");
            if (!pc->has_rbits && r.rbits != 0) throw std::runtime_error("random bits for a variant without them");
            (void)tcemu::ptx_cvt_eval(*pc, std::span<const uint64_t>(r.s, si.nregs), r.rbits);
          }
        } catch (const std::exception& e) {
          ok = false;
          why = e.what();
        }
      }
      if (!ok) ++bad;
      logf("%-36s %-24s %s%s %s\n", v->spelling, mask_names(v->mask).c_str(), ok ? "ok" : "INCONSISTENT",
           ex.conv ? " (bulk path)" : "", why.c_str());
    }
    logf("host self-check: %zu variants with a model, %zu inconsistent\n", models, bad);
    return bad ? 1 : 0;
  }
  cudaDeviceProp prop{};
  if (!TCEMU_CUDA_OK(cudaGetDeviceProperties(&prop, 0))) return 1;
  // Only the variants of this GPU's target: elsewhere their kernels are empty (cvt_ops.cuh).
  const int arch_bit = prop.major == 9 && prop.minor == 0 ? 1 : prop.major == 10 ? 2 : prop.major == 12 ? 4 : 0;
  if (arch_bit == 0) {
    logf("device: %s (sm_%d%d): cvt_check is built for sm_90a, sm_100a and sm_120a only\n", prop.name, prop.major,
         prop.minor);
    return 1;
  }
  const size_t listed = todo.size();
  std::erase_if(todo, [&](const Variant* v) { return !(v->mask & arch_bit); });
  logf("device: %s (sm_%d%d), %u host threads, %zu variants (%zu listed need another target), budget %.0f s%s\n",
       prop.name, prop.major, prop.minor, host_threads(), todo.size(), listed - todo.size(), opt.budget,
       opt.full ? " (--full: exhaustive, budget ignored)" : "");
  Buffers buf;
  if (!buf.init()) return 1;

  const std::string report_path = opt.out_dir + "/cvt_report.txt";
  const std::string directed_path = opt.out_dir + "/cvt_directed.txt";
  FILE* directed = std::fopen(directed_path.c_str(), "w");
  if (!directed) { std::printf("cannot write %s\n", directed_path.c_str()); return 1; }
  std::fprintf(directed,
               "# Hardware outputs of PTX cvt on %s (sm_%d%d), measured by tools/gpu/cvt_check.\n"
               "# spelling  a=<source register a, hex>  [b= e= f=<registers b, e, f>]  [rbits=<cvt.rs random bits>]  -> <destination register, hex>\n"
               "# Pair forms: cvt d, a, b packs a into the high field. Packed sources (f16x2, e4m3x2) are one register.\n",
               prop.name, prop.major, prop.minor);

  std::vector<Result> results;
  size_t f32_left = 0;
  for (auto* v : todo) f32_left += budget_weight(v->shape);
  bool cuda_failed = false;

  for (const Variant* v : todo) {
    if (cuda_failed) break;
    const double t0 = now_s();
    Result r;
    r.v = v;
    const ShapeInfo si = shape_info(v->shape);
    std::string err;
    std::optional<tcemu::PtxCvt> pc;
    try {
      pc = tcemu::parse_ptx_cvt(v->spelling, &err);
    } catch (const std::exception& e) {
      err = std::string("parse threw: ") + e.what();
    }
    if (pc) {
      const int emu_regs = pc->src_packed ? 1 : pc->src_count;
      if (emu_regs != si.nregs) {
        err = "emulator takes " + std::to_string(emu_regs) + " source registers, the instruction " +
              std::to_string(si.nregs);
        pc.reset();
      }
    }

    // Directed set: always recorded; compared when the emulator models the variant.
    const std::vector<Regs> dr = directed_inputs(*v);
    {
      const uint32_t n = static_cast<uint32_t>(dr.size());
      Regs* ddr = nullptr;
      // Everything on buf.stream (a non-blocking stream does not order with the legacy
      // default stream that plain cudaMemcpy uses).
      bool ok = TCEMU_CUDA_OK(cudaMalloc(&ddr, n * sizeof(Regs))) &&
                TCEMU_CUDA_OK(cudaMemcpyAsync(ddr, dr.data(), n * sizeof(Regs), cudaMemcpyHostToDevice, buf.stream));
      Chunk c;
      c.g.mode = GenMode::directed;
      c.g.dr = ddr;
      c.n = n;
      if (ok) {
        v->launch(c.g, 0, n, buf.dev[0], buf.stream);
        ok = TCEMU_CUDA_OK(cudaGetLastError()) &&
             TCEMU_CUDA_OK(cudaMemcpyAsync(buf.host[0], buf.dev[0], n * 8, cudaMemcpyDeviceToHost, buf.stream)) &&
             TCEMU_CUDA_OK(cudaStreamSynchronize(buf.stream));
      }
      cudaFree(ddr);
      if (!ok) {
        cuda_failed = true;
        r.status = "cuda-error";
        results.push_back(r);
        break;
      }
      for (uint32_t j = 0; j < n; ++j)
        std::fprintf(directed, "%s %s -> %s\n", v->spelling, regs_text(dr[j], v->shape).c_str(),
                     hex(buf.host[0][j], si.dst_bits / 4).c_str());
      if (pc) {
        c.g.dr = dr.data();
        Expect ex = make_expect(*pc, si.nregs, /*eval_only=*/true);
        compare_chunk(ex, c, buf.host[0], r.tally);
        // cvt.rs: which random-bit mapping the hardware follows is open (docs/conversions.md);
        // the directed set's tie-deciding words tell the emulator's two conventions apart.
        if (pc->has_rbits && r.tally.error.empty()) {
          size_t alt = 0;
          for (uint32_t j = 0; j < n; ++j)
            alt += tcemu::ptx_cvt_eval(*pc, std::span<const uint64_t>(dr[j].s, si.nregs), dr[j].rbits,
                                       tcemu::RsBitMap::flashinfer_hw) != buf.host[0][j];
          r.note = "directed set (" + std::to_string(n) + "): " + std::to_string(r.tally.mismatches) +
                   " mismatches under RsBitMap::ptx_doc (the default, compared), " + std::to_string(alt) +
                   " under RsBitMap::flashinfer_hw";
          logf("%s: %s\n", v->spelling, r.note.c_str());
        }
      }
    }

    if (!pc) {
      r.status = "no-model";
      r.coverage = "directed only (" + std::to_string(dr.size()) + "): " + err;
    } else if (!r.tally.error.empty()) {
      r.status = "emulator-error";
    } else {
      const auto chunks = sweep_chunks(*v);
      double deadline = 1e30;
      const int weight = budget_weight(v->shape);
      if (!opt.full && weight > 0) {
        const double left = opt.budget - now_s();
        deadline = now_s() + std::max(0.0, left) * weight / static_cast<double>(f32_left);
      }
      Expect ex = make_expect(*pc, si.nregs, opt.eval_only);
      std::string why;
      if (!bulk_path_consistent(*v, ex, why)) {
        logf("%s: %s; using ptx_cvt_eval for every input\n", v->spelling, why.c_str());
        r.note += r.note.empty() ? why : "; " + why;
        ex = make_expect(*pc, si.nregs, true);
      }
      const size_t done = run_chunks(*v, ex, chunks, deadline, buf, r.tally, cuda_failed);
      uint64_t swept = 0, total = 0;
      for (size_t k = 0; k < chunks.size(); ++k) {
        total += chunks[k].n;
        if (k < done) swept += chunks[k].n;
      }
      char cov[160];
      if (is_rs(v->shape))
        std::snprintf(cov, sizeof cov, "random %llu (%zu/%zu chunks)", static_cast<unsigned long long>(swept), done,
                      chunks.size());
      else if (is_f32_source(v->shape))
        std::snprintf(cov, sizeof cov, "%s %.4f of 2^%d (%zu/%zu chunks)", done == chunks.size() ? "exhaustive" : "partial",
                      static_cast<double>(swept) / static_cast<double>(total), is_pair(v->shape) ? 33 : 32, done,
                      chunks.size());
      else if (v->shape == CvtShape::F64_F32 || v->shape == CvtShape::F64_B16)
        std::snprintf(cov, sizeof cov, "random f64 %llu", static_cast<unsigned long long>(swept));
      else
        std::snprintf(cov, sizeof cov, "%s %llu", v->shape == CvtShape::B32_B16 ? "halves exhaustive + random," : "exhaustive",
                      static_cast<unsigned long long>(swept));
      r.coverage = cov;
      if (cuda_failed) r.status = "cuda-error";
      else if (!r.tally.error.empty()) r.status = "emulator-error";
      else r.status = r.tally.mismatches ? "MISMATCH" : "ok";
    }
    f32_left -= budget_weight(v->shape);
    r.seconds = now_s() - t0;
    logf("%-36s %-14s checked %12llu  mismatches %10llu  %6.2fs  %s\n", v->spelling, r.status.c_str(),
         static_cast<unsigned long long>(r.tally.checked), static_cast<unsigned long long>(r.tally.mismatches), r.seconds,
         r.coverage.c_str());
    results.push_back(std::move(r));
  }
  std::fclose(directed);

  FILE* rep = std::fopen(report_path.c_str(), "w");
  if (!rep) { std::printf("cannot write %s\n", report_path.c_str()); return 1; }
  std::fprintf(rep, "# tools/gpu/cvt_check on %s (sm_%d%d); budget %.0f s%s; %u host threads\n", prop.name, prop.major,
               prop.minor, opt.budget, opt.full ? " (--full)" : "", host_threads());
  std::fprintf(rep, "# spelling status checked mismatches seconds coverage\n");
  size_t bad = 0, nomodel = 0;
  for (const auto& r : results) {
    std::fprintf(rep, "%-36s %-14s %12llu %10llu %7.2f  %s%s%s\n", r.v->spelling, r.status.c_str(),
                 static_cast<unsigned long long>(r.tally.checked), static_cast<unsigned long long>(r.tally.mismatches),
                 r.seconds, r.coverage.c_str(), r.tally.error.empty() ? "" : "  error: ", r.tally.error.c_str());
    if (!r.note.empty()) std::fprintf(rep, "    note: %s\n", r.note.c_str());
    bad += r.status != "ok" && r.status != "no-model";
    nomodel += r.status == "no-model";
  }
  std::fprintf(rep, "\n# First %zu mismatches per variant: a [b e f] [rbits] hw emu (hex registers)\n", kKeep);
  for (const auto& r : results) {
    if (r.tally.first.empty()) continue;
    const ShapeInfo si = shape_info(r.v->shape);
    std::fprintf(rep, "\n## %s (%llu mismatches)\n", r.v->spelling, static_cast<unsigned long long>(r.tally.mismatches));
    for (const auto& m : r.tally.first)
      std::fprintf(rep, "%s hw=%s emu=%s\n", regs_text(m.r, r.v->shape).c_str(), hex(m.hw, si.dst_bits / 4).c_str(),
                   hex(m.emu, si.dst_bits / 4).c_str());
  }
  std::fclose(rep);
  logf("done: %zu variants, %zu with mismatches or errors, %zu without an emulator model; wrote %s and %s\n",
       results.size(), bad, nomodel, report_path.c_str(), directed_path.c_str());
  return cuda_failed ? 1 : 0;
}
