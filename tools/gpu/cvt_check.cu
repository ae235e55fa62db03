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
// (cvt_check --help; the options are parsed by cvt_check_args.cpp, CLI11, on the host compiler).
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

#include "cvt_check_args.hpp"
#include "cvt_inputs.cuh"
#include "cvt_variants.cuh"
#include "gpu_arch.cuh"
#include "gpu_backend.hpp"
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

// ---------------------------------------------------------------------------------------
// Host side.

// A shape's source registers (passed to ptx_cvt_eval), their width and the destination's
// width: cvt_shape_info (cvt_variants.cuh), the table tcemu-gpu's CvtInfo is built from.
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

// Source registers the emulator's model takes (a packed source is one register).
int emulator_regs(const tcemu::PtxCvt& pc) { return pc.src_packed ? 1 : pc.src_count; }

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

// Chunks, the tally and the comparison with the emulator (host side).
#include "cvt_check_compare.cuh"

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

// The directed inputs, the sweep chunks and the bulk-path self-check of a variant.
#include "cvt_check_inputs.cuh"

using Options = CvtCheckOptions;

struct Result {
  const Variant* v;
  std::string status;  // "ok", "MISMATCH", "no-model", "cuda-error", "emulator-error", "shape"
  std::string coverage;
  std::string note;  // the bulk path was dropped, and why; cvt.rs: mismatches under each bit mapping
  Tally tally;
  double seconds = 0;
};

// The variants to run (--only), cheap ones first, then the f32 sweeps, which share what is
// left of the budget.
std::vector<const Variant*> selected_variants(const Options& opt) {
  std::vector<const Variant*> todo;
  for (const auto& v : kVariants)
    if (opt.only.empty() || std::string(v.spelling).find(opt.only) != std::string::npos) todo.push_back(&v);
  std::stable_partition(todo.begin(), todo.end(), [](const Variant* v) { return !is_f32_source(v->shape); });
  return todo;
}

// --selftest-host for one modelled variant: the bulk path against ptx_cvt_eval, and every
// directed input and the start of every sweep chunk through the emulator. Logs one line.
bool selftest_variant(const Variant& v, const tcemu::PtxCvt& pc) {
  const CvtShapeInfo si = cvt_shape_info(v.shape);
  const int emu_regs = emulator_regs(pc);
  Expect ex = make_expect(pc, si.srcs, false);
  std::string why;
  bool ok = emu_regs == si.srcs && bulk_path_consistent(v, ex, why);
  if (emu_regs != si.srcs) why = "the emulator takes " + std::to_string(emu_regs) + " source registers";
  // The emulator evaluates every directed input and the start of every sweep chunk (no
  // throw), and the generated registers fit the instruction's operands.
  if (ok) {
    std::vector<Regs> dr = directed_inputs(v);
    for (const Chunk& c : sweep_chunks(v))
      for (uint32_t j = 0; j < std::min<uint32_t>(c.n, 4096); ++j) {
        Regs r;
        gen(c.g, c.base + j, r);
        dr.push_back(r);
      }
    try {
      for (const Regs& r : dr) {
        for (int k = 0; k < si.srcs; ++k)  // the kernels ignore the others
          if (si.src_bits < 64 && (r.s[k] >> si.src_bits) != 0)
            throw std::runtime_error("generated operand " + regs_text(r, v.shape) + " does not fit the registers");
        if (!pc.has_rbits && r.rbits != 0) throw std::runtime_error("random bits for a variant without them");
        (void)tcemu::ptx_cvt_eval(pc, std::span<const uint64_t>(r.s, si.srcs), r.rbits);
      }
    } catch (const std::exception& e) {
      ok = false;
      why = e.what();
    }
  }
  logf("%-36s %-24s %s%s %s\n", v.spelling, arch_mask_names(v.mask).c_str(), ok ? "ok" : "INCONSISTENT",
       ex.conv ? " (bulk path)" : "", why.c_str());
  return ok;
}

// --selftest-host: every selected variant, before any GPU work. 1 when one is inconsistent.
int selftest_host(const std::vector<const Variant*>& todo) {
  size_t bad = 0, models = 0;
  for (const Variant* v : todo) {
    const auto pc = tcemu::parse_ptx_cvt(v->spelling);
    if (!pc.ok()) { logf("%-36s no model: %s\n", v->spelling, pc.error.c_str()); continue; }
    ++models;
    if (!selftest_variant(*v, pc.value)) ++bad;
  }
  logf("host self-check: %zu variants with a model, %zu inconsistent\n", models, bad);
  return bad ? 1 : 0;
}

// The emulator's model of a variant, or nullopt with `err` saying why there is none.
std::optional<tcemu::PtxCvt> variant_model(const Variant& v, const CvtShapeInfo& si, std::string& err) {
  std::optional<tcemu::PtxCvt> pc;
  try {
    auto parsed = tcemu::parse_ptx_cvt(v.spelling);
    if (parsed.ok()) pc = parsed.value;
    else err = parsed.error;
  } catch (const std::exception& e) {
    err = std::string("parse threw: ") + e.what();
  }
  if (pc) {
    const int emu_regs = emulator_regs(*pc);
    if (emu_regs != si.srcs) {
      err = "emulator takes " + std::to_string(emu_regs) + " source registers, the instruction " +
            std::to_string(si.srcs);
      pc.reset();
    }
  }
  return pc;
}

// The directed set on the GPU: the outputs go to `directed` (always) and are compared when
// the emulator models the variant. False on a CUDA error.
bool run_directed(const Variant& v, const std::optional<tcemu::PtxCvt>& pc, const std::vector<Regs>& dr, Buffers& buf,
                  FILE* directed, Result& r) {
  const CvtShapeInfo si = cvt_shape_info(v.shape);
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
    v.launch(c.g, 0, n, buf.dev[0], buf.stream);
    ok = TCEMU_CUDA_OK(cudaGetLastError()) &&
         TCEMU_CUDA_OK(cudaMemcpyAsync(buf.host[0], buf.dev[0], n * 8, cudaMemcpyDeviceToHost, buf.stream)) &&
         TCEMU_CUDA_OK(cudaStreamSynchronize(buf.stream));
  }
  cudaFree(ddr);
  if (!ok) return false;
  for (uint32_t j = 0; j < n; ++j)
    std::fprintf(directed, "%s %s -> %s\n", v.spelling, regs_text(dr[j], v.shape).c_str(),
                 hex(buf.host[0][j], si.dst_bits / 4).c_str());
  if (pc) {
    c.g.dr = dr.data();
    Expect ex = make_expect(*pc, si.srcs, /*eval_only=*/true);
    compare_chunk(ex, c, buf.host[0], r.tally);
    // cvt.rs: which random-bit mapping the hardware follows is open (docs/conversions.md);
    // the directed set's tie-deciding words tell the emulator's two conventions apart.
    if (pc->has_rbits && r.tally.error.empty()) {
      size_t alt = 0;
      for (uint32_t j = 0; j < n; ++j)
        alt += tcemu::ptx_cvt_eval(*pc, std::span<const uint64_t>(dr[j].s, si.srcs), dr[j].rbits,
                                   tcemu::RsBitMap::flashinfer_hw) != buf.host[0][j];
      r.note = "directed set (" + std::to_string(n) + "): " + std::to_string(r.tally.mismatches) +
               " mismatches under RsBitMap::ptx_doc (the default, compared), " + std::to_string(alt) +
               " under RsBitMap::flashinfer_hw";
      logf("%s: %s\n", v.spelling, r.note.c_str());
    }
  }
  return true;
}

// How much of the sweep ran: the coverage column of the report.
std::string coverage_text(const Variant& v, const std::vector<Chunk>& chunks, size_t done) {
  uint64_t swept = 0, total = 0;
  for (size_t k = 0; k < chunks.size(); ++k) {
    total += chunks[k].n;
    if (k < done) swept += chunks[k].n;
  }
  char cov[160];
  if (is_rs(v.shape))
    std::snprintf(cov, sizeof cov, "random %llu (%zu/%zu chunks)", static_cast<unsigned long long>(swept), done,
                  chunks.size());
  else if (is_f32_source(v.shape))
    std::snprintf(cov, sizeof cov, "%s %.4f of 2^%d (%zu/%zu chunks)", done == chunks.size() ? "exhaustive" : "partial",
                  static_cast<double>(swept) / static_cast<double>(total), is_pair(v.shape) ? 33 : 32, done,
                  chunks.size());
  else if (v.shape == CvtShape::F64_F32 || v.shape == CvtShape::F64_B16)
    std::snprintf(cov, sizeof cov, "random f64 %llu", static_cast<unsigned long long>(swept));
  else
    std::snprintf(cov, sizeof cov, "%s %llu", v.shape == CvtShape::B32_B16 ? "halves exhaustive + random," : "exhaustive",
                  static_cast<unsigned long long>(swept));
  return cov;
}

// The sweep of a modelled variant within its share of the budget (f32_left: the weights of
// the swept variants not yet run, this one included); sets r's coverage and status.
void run_sweep(const Variant& v, const tcemu::PtxCvt& pc, const Options& opt, size_t f32_left, Buffers& buf, Result& r,
               bool& cuda_failed) {
  const CvtShapeInfo si = cvt_shape_info(v.shape);
  const auto chunks = sweep_chunks(v);
  double deadline = 1e30;
  const int weight = budget_weight(v.shape);
  if (!opt.full && weight > 0) {
    const double left = opt.budget - now_s();
    deadline = now_s() + std::max(0.0, left) * weight / static_cast<double>(f32_left);
  }
  Expect ex = make_expect(pc, si.srcs, opt.eval_only);
  std::string why;
  if (!bulk_path_consistent(v, ex, why)) {
    logf("%s: %s; using ptx_cvt_eval for every input\n", v.spelling, why.c_str());
    r.note += r.note.empty() ? why : "; " + why;
    ex = make_expect(pc, si.srcs, true);
  }
  const size_t done = run_chunks(v, ex, chunks, deadline, buf, r.tally, cuda_failed);
  r.coverage = coverage_text(v, chunks, done);
  if (cuda_failed) r.status = "cuda-error";
  else if (!r.tally.error.empty()) r.status = "emulator-error";
  else r.status = r.tally.mismatches ? "MISMATCH" : "ok";
}

// Every variant in turn (directed set, then sweep) until all are done or CUDA fails.
std::vector<Result> run_variants(const std::vector<const Variant*>& todo, const Options& opt, Buffers& buf,
                                 FILE* directed, bool& cuda_failed) {
  std::vector<Result> results;
  size_t f32_left = 0;
  for (auto* v : todo) f32_left += budget_weight(v->shape);
  for (const Variant* v : todo) {
    if (cuda_failed) break;
    const double t0 = now_s();
    Result r;
    r.v = v;
    std::string err;
    const std::optional<tcemu::PtxCvt> pc = variant_model(*v, cvt_shape_info(v->shape), err);
    // Directed set: always recorded; compared when the emulator models the variant.
    const std::vector<Regs> dr = directed_inputs(*v);
    if (!run_directed(*v, pc, dr, buf, directed, r)) {
      cuda_failed = true;
      r.status = "cuda-error";
      results.push_back(r);
      break;
    }
    if (!pc) {
      r.status = "no-model";
      r.coverage = "directed only (" + std::to_string(dr.size()) + "): " + err;
    } else if (!r.tally.error.empty()) {
      r.status = "emulator-error";
    } else {
      run_sweep(*v, *pc, opt, f32_left, buf, r, cuda_failed);
    }
    f32_left -= budget_weight(v->shape);
    r.seconds = now_s() - t0;
    logf("%-36s %-14s checked %12llu  mismatches %10llu  %6.2fs  %s\n", v->spelling, r.status.c_str(),
         static_cast<unsigned long long>(r.tally.checked), static_cast<unsigned long long>(r.tally.mismatches), r.seconds,
         r.coverage.c_str());
    results.push_back(std::move(r));
  }
  return results;
}

// cvt_report.txt: one line per variant, then the first mismatches of each. False when the
// file cannot be written; `bad` and `nomodel` count the variants with problems / no model.
bool write_report(const std::string& path, const cudaDeviceProp& prop, const Options& opt,
                  const std::vector<Result>& results, size_t& bad, size_t& nomodel) {
  FILE* rep = std::fopen(path.c_str(), "w");
  if (!rep) { std::printf("cannot write %s\n", path.c_str()); return false; }
  std::fprintf(rep, "# tools/gpu/cvt_check on %s (sm_%d%d); budget %.0f s%s; %u host threads\n", prop.name, prop.major,
               prop.minor, opt.budget, opt.full ? " (--full)" : "", host_threads());
  std::fprintf(rep, "# spelling status checked mismatches seconds coverage\n");
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
    const CvtShapeInfo si = cvt_shape_info(r.v->shape);
    std::fprintf(rep, "\n## %s (%llu mismatches)\n", r.v->spelling, static_cast<unsigned long long>(r.tally.mismatches));
    for (const auto& m : r.tally.first)
      std::fprintf(rep, "%s hw=%s emu=%s\n", regs_text(m.r, r.v->shape).c_str(), hex(m.hw, si.dst_bits / 4).c_str(),
                   hex(m.emu, si.dst_bits / 4).c_str());
  }
  std::fclose(rep);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // One line at a time, also into a file: a run stopped at its time limit keeps what it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  if (const int rc = parse_cvt_check_args(argc, argv, opt); rc >= 0) return rc;
  if (opt.list) {
    for (const auto& v : kVariants) std::printf("%-24s %s\n", arch_mask_names(v.mask).c_str(), v.spelling);
    return 0;
  }
  now_s();
  std::vector<const Variant*> todo = selected_variants(opt);
  if (opt.selftest_host) return selftest_host(todo);
  cudaDeviceProp prop{};
  if (!TCEMU_CUDA_OK(cudaGetDeviceProperties(&prop, 0))) return 1;
  // Only the variants of this GPU's target: elsewhere their kernels are empty (cvt_ops.cuh).
  const int arch_bit = arch_bit_of(prop.major, prop.minor);
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
  bool cuda_failed = false;
  const std::vector<Result> results = run_variants(todo, opt, buf, directed, cuda_failed);
  std::fclose(directed);

  size_t bad = 0, nomodel = 0;
  if (!write_report(report_path, prop, opt, results, bad, nomodel)) return 1;
  logf("done: %zu variants, %zu with mismatches or errors, %zu without an emulator model; wrote %s and %s\n",
       results.size(), bad, nomodel, report_path.c_str(), directed_path.c_str());
  return cuda_failed ? 1 : 0;
}
