// Alternative models for compare (models.hpp). The case's own model, the catalog's other
// datapaths and the case's datapath with another final rounding or C entry (to say "RNE
// instead of RZ") are DatapathParams values run through the emulator's mma_params; the rest
// are written here: the plain CUDA-core accumulations a hand-written kernel does (f32 FMA,
// f32 multiply-add, f64), and the split-K plans of a library GEMM (tcemu/gemm.hpp).
#include "tcemu_golden/models.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "tcemu/datapath.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/mma.hpp"
#include "tcemu_golden/evaluate.hpp"

namespace tcemu::golden {
namespace {

double as_double(Fmt f, uint64_t code) {
  const uint64_t b = convert(f, Fmt::f64, code, ConvertOptions{}).code;
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}

uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Output of a float accumulation: f32 as is; f16 rounded to nearest even from f32.
uint64_t to_output(Fmt out, float v) {
  if (out == Fmt::f32) return f32_bits(v);
  return convert(Fmt::f32, out, f32_bits(v), ConvertOptions{}).code;
}
uint64_t to_output(Fmt out, double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return convert(Fmt::f64, out, b, ConvertOptions{}).code;
}

// The operands of one output element, gathered from the case (without materialising whole
// matrices: an 8192 x 8192 case only touches the sampled rows and columns).
struct Element {
  std::vector<uint64_t> a, b, sa, sb;
  uint64_t c = 0;
};

struct Shared {
  const Case* c;
  const InstrEntry* e;
  size_t K, nb;
  Fmt out;
  bool has_c;
  Element gather(size_t m, size_t n) const {
    Element el;
    const Array& A = c->operands.at("A");
    const Array& B = c->operands.at("B");
    el.a.resize(K);
    el.b.resize(K);
    for (size_t k = 0; k < K; ++k) {
      el.a[k] = A.at(m, k);
      el.b[k] = B.at(k, n);
    }
    if (has_c && c->mma.options.scale_d) el.c = c->operands.at("C").at(m, n);
    if (e->scale_type) {
      const Array& SA = c->operands.at("scale_A");
      const Array& SB = c->operands.at("scale_B");
      for (size_t j = 0; j < nb; ++j) {
        el.sa.push_back(SA.at(m, j));
        el.sb.push_back(SB.at(n, j));
      }
    }
    return el;
  }
  // The 1 x 1 problem of one element (C: the code in c_store, or none when c_store is empty).
  MmaProblem problem(const Element& el, const std::vector<uint64_t>& c_store) const {
    MmaProblem pr;
    pr.M = pr.N = 1;
    pr.K = static_cast<int>(K);
    pr.atype = e->atype;
    pr.btype = e->btype;
    pr.A = el.a;
    pr.B = el.b;
    pr.C = c_store;
    if (e->scale_type) {
      pr.scale_type = e->scale_type;
      pr.scale_block = e->scale_block;
      pr.sa = el.sa;
      pr.sb = el.sb;
    }
    return pr;
  }
  // Runs explicit datapath parameters on one element through the emulator.
  uint64_t run(const DatapathParams& p, int instr_k, const MmaOptions& o, const Element& el) const {
    const std::vector<uint64_t> cc{el.c};
    MmaResult r = mma(problem(el, cc).with({p, instr_k}, o), Exec{1});
    return r.D.empty() ? ~uint64_t{0} : r.D[0];  // an impossible code: never matches
  }
  // A GEMM plan on one element: C from the case when use_c, the epilogue's vectors (per tensor,
  // or the element's row / column) from a_scale, b_scale, bias. D empty and error set when
  // gemm() refuses the plan.
  std::vector<uint32_t> a_scale, b_scale, bias;  // a gemm case's epilogue vectors
  GemmResult gemm_at(const GemmPlan& plan, bool use_c, size_t m, size_t n) const {
    const Element el = gather(m, n);
    const std::vector<uint64_t> cc = use_c ? std::vector<uint64_t>{el.c} : std::vector<uint64_t>{};
    GemmPlan p = plan;
    auto one = [](const std::vector<uint32_t>& v, size_t i) {
      return v.empty() ? std::vector<uint32_t>{} : std::vector<uint32_t>{v[v.size() == 1 ? 0 : i]};
    };
    p.epilogue.a_scale = one(a_scale, m);
    p.epilogue.b_scale = one(b_scale, n);
    p.epilogue.bias = one(bias, n);
    return gemm(*e, problem(el, cc), p, Exec{1});
  }
  // Value of term k with its block scales, as a double (exact for every tensor-core format).
  double scaled(const Element& el, size_t k, bool is_a) const {
    double v = as_double(is_a ? e->atype : e->btype, is_a ? el.a[k] : el.b[k]);
    if (is_a && c->mma.options.negate_a) v = -v;
    if (!is_a && c->mma.options.negate_b) v = -v;
    if (e->scale_type) {
      const size_t j = k / static_cast<size_t>(e->scale_block);
      v *= as_double(*e->scale_type, is_a ? el.sa[j] : el.sb[j]);
    }
    return v;
  }
};

// How a rounding reads in a model's name.
std::string rounding_name(OutputRounding r) {
  switch (r) {
    case OutputRounding::rz_f32: return "RZ to f32";
    case OutputRounding::rne_f32: return "RNE to f32";
    case OutputRounding::rz_e8m13: return "RZ to e8m13";
    case OutputRounding::rne_f16: return "RNE to f16";
    case OutputRounding::rz_f16: return "RZ to f16";
  }
  return "?";
}

// The case's datapath with another final rounding, or with C entering the other way (fused
// into the sum, or added after by an f32 add rounding to nearest even): DatapathParams values,
// run through mma_params like every other model.
struct Variant {
  std::string name;
  DatapathParams p;
};

std::vector<Variant> datapath_variants(const DatapathParams& base, Fmt out) {
  std::vector<Variant> vs;
  if (base.kind != DatapathKind::t_fdpa && base.kind != DatapathKind::st_fdpa) return vs;
  if (out == Fmt::f32) {
    for (OutputRounding r : {OutputRounding::rz_f32, OutputRounding::rne_f32, OutputRounding::rz_e8m13}) {
      if (r == base.rounding) continue;
      DatapathParams p = base;
      p.rounding = r;
      vs.push_back({"the case's datapath with " + rounding_name(r) + " instead of " + rounding_name(base.rounding), p});
    }
    DatapathParams p = base;
    const bool c_after = base.c_entry != CEntry::fused;
    p.c_entry = c_after ? CEntry::fused : CEntry::rne_f32_after;
    vs.push_back({std::string("the case's datapath with C ") + (c_after ? "fused into the sum" : "added after by an f32 RNE add"), p});
  } else {
    DatapathParams p = base;
    p.rounding = OutputRounding::rz_f16;
    vs.push_back({"the case's datapath with " + rounding_name(p.rounding) + " instead of " + rounding_name(base.rounding), p});
  }
  return vs;
}

// The split-K plans compare tries (docs/gemm.md): cuBLASLt's as bitequiv reconstructs it, s =
// 2..16 chunks at the documented grain (64 for f16/bf16, 128 for fp8), only plans with at least
// two non-empty chunks, each list of non-empty chunks once (under the smallest s that gives
// it: a larger s that only adds empty slices is the same plan but for zero signs). Empty when
// no grain is documented for the case's types or it does not tile into the instruction.
struct SplitPlan {
  int s;
  std::vector<int> chunks;
  std::string sizes;  // "128+128+64"
};
std::vector<SplitPlan> bitequiv_splits(const Shared& sh) {
  const int grain = cublaslt_split_grain(sh.e->atype);
  std::vector<SplitPlan> out;
  if (sh.e->dtype != AccType::f32 || grain == 0 || grain % sh.e->K) return out;
  std::set<std::vector<int>> seen;
  for (int s = 2; s <= 16; ++s) {
    std::vector<int> chunks = split_k_chunks(static_cast<int>(sh.K), s, grain);
    std::vector<int> nonempty;
    for (int k : chunks)
      if (k > 0) nonempty.push_back(k);
    if (nonempty.size() < 2 || !seen.insert(nonempty).second) continue;
    std::string sizes;
    for (int k : chunks) {
      if (!sizes.empty()) sizes.push_back('+');
      sizes.append(std::to_string(k));
    }
    out.push_back({s, std::move(chunks), sizes});
  }
  return out;
}

std::string split_name(const SplitPlan& sp) { return "cuBLASLt split-K s=" + std::to_string(sp.s) + " (bitequiv plan)"; }
std::string split_description(const Shared& sh, const SplitPlan& sp) {
  return "K in chunks " + sp.sizes + " (grain " + std::to_string(cublaslt_split_grain(sh.e->atype)) +
         "), each chained from +0, added forward in f32";
}

// An alternative that runs a GEMM plan per element.
AltModel gemm_model(const std::shared_ptr<Shared>& sh, std::string name, std::string description, bool is_case,
                    GemmPlan plan, bool use_c) {
  auto p = std::make_shared<GemmPlan>(std::move(plan));
  return {std::move(name), std::move(description), is_case, [sh, p, use_c](size_t m, size_t n) {
            const GemmResult r = sh->gemm_at(*p, use_c, m, n);
            return r.D.empty() ? ~uint64_t{0} : r.D[0];  // an impossible code: never matches
          }};
}

// For an MMA case: each split-K plan with C added by the epilogue (fma(1, C, acc)).
void split_k_models(const Case& c, const std::shared_ptr<Shared>& sh, std::vector<AltModel>& out) {
  const MmaOptions opt = c.mma.options;
  if (opt.scale_input_d != -1) return;
  const bool use_c = sh->has_c && opt.scale_d;
  for (const SplitPlan& sp : bitequiv_splits(*sh)) {
    GemmPlan plan;
    plan.chunks = sp.chunks;
    plan.combine = Combine::f32_forward;
    plan.mma.promote_every = opt.promote_every;
    plan.mma.negate_a = opt.negate_a;
    plan.mma.negate_b = opt.negate_b;
    plan.epilogue.beta = use_c ? 0x3F800000u : 0;
    out.push_back(gemm_model(sh, split_name(sp), split_description(*sh, sp) + ", then + C (facebookexperimental/triton #2752)",
                             false, std::move(plan), use_c));
  }
}

std::shared_ptr<Shared> shared_of(const Case& c) {
  const InstrEntry& e = *c.mma.entry;
  auto sh = std::make_shared<Shared>();
  sh->c = &c;
  sh->e = &e;
  sh->K = static_cast<size_t>(c.mma.K);
  sh->nb = e.scale_type ? sh->K / static_cast<size_t>(e.scale_block) : 0;
  sh->has_c = c.operands.count("C") != 0;
  sh->out = e.dtype == AccType::s32 ? Fmt::f32 : acc_format(e.dtype);
  return sh;
}

// A gemm case: its plan, then the same epilogue with one chain, cuBLASLt's split-K plans, the
// case's chunks combined another way, and the case's schedule with another epilogue order
// (each only where gemm() takes it: cutlass-2x has no scales or bias, ...).
void gemm_models(const Case& c, std::vector<AltModel>& out) {
  auto sh = shared_of(c);
  const GemmPlan full = gemm_plan(c);
  sh->a_scale = full.epilogue.a_scale;
  sh->b_scale = full.epilogue.b_scale;
  sh->bias = full.epilogue.bias;
  sh->out = full.epilogue.out_type;
  const GemmPlan base = c.gemm.plan;
  const bool use_c = sh->has_c;
  const std::string order = std::string(to_string(base.epilogue.order));
  out.push_back(gemm_model(sh, "the case's plan: " + plan_summary(c.gemm) + ", " + order + " epilogue",
                           epilogue_steps(base.epilogue.order), true, base, use_c));
  // A plan once: its chunks, its combine (when split) and its epilogue order.
  auto key = [](const GemmPlan& p) {
    return std::make_tuple(p.chunks, p.chunks.empty() ? -1 : static_cast<int>(p.combine), static_cast<int>(p.epilogue.order));
  };
  std::set<decltype(key(base))> seen{key(base)};
  auto add = [&](std::string name, std::string description, const GemmPlan& p) {
    if (!seen.insert(key(p)).second) return;
    if (!sh->gemm_at(p, use_c, 0, 0).error.empty()) return;  // a plan gemm() refuses for this case
    out.push_back(gemm_model(sh, std::move(name), std::move(description), false, p, use_c));
  };
  if (!base.chunks.empty()) {
    GemmPlan p = base;
    p.chunks.clear();
    add("one chain over K (no split), " + order + " epilogue", "the whole K chained from +0, then the case's epilogue", p);
  }
  for (const SplitPlan& sp : bitequiv_splits(*sh)) {
    GemmPlan p = base;
    p.chunks = sp.chunks;
    p.combine = Combine::f32_forward;
    add(split_name(sp) + ", " + order + " epilogue", split_description(*sh, sp) + ", then the case's epilogue", p);
  }
  if (!base.chunks.empty())
    for (Combine cb : {Combine::f32_forward, Combine::f32_tree, Combine::cutlass_parallel, Combine::cutlass_serial}) {
      if (cb == base.combine) continue;
      GemmPlan p = base;
      p.combine = cb;
      add("the case's chunks combined " + std::string(to_string(cb)), "the case's chunks, combine " + std::string(to_string(cb)), p);
    }
  for (EpilogueOrder eo : {EpilogueOrder::fold, EpilogueOrder::cutlass_sm90, EpilogueOrder::sequential, EpilogueOrder::cutlass_2x}) {
    if (eo == base.epilogue.order) continue;
    GemmPlan p = base;
    p.epilogue.order = eo;
    add("the case's schedule with the " + std::string(to_string(eo)) + " epilogue", epilogue_steps(eo), p);
  }
}

void mma_models(const Case& c, std::vector<AltModel>& out) {
  const InstrEntry& e = *c.mma.entry;
  auto sh = shared_of(c);
  const MmaOptions opt = c.mma.options;
  out.push_back({"the case's model: " + e.arch + " " + e.family, describe(e.params) + " (catalog, " +
                     std::string(to_string(e.confidence)) + ")",
                 true, [sh, opt](size_t m, size_t n) { return sh->run(sh->e->params, sh->e->K, opt, sh->gather(m, n)); }});
  if (e.dtype == AccType::s32) {
    DatapathParams p = e.params;
    p.satfinite = !p.satfinite;
    out.push_back({p.satfinite ? "int32 saturation (.satfinite)" : "int32 wrap-around (no .satfinite)",
                   "exact integer sum, " + std::string(p.satfinite ? "clamped to" : "wrapped into") + " int32", false,
                   [sh, p, opt](size_t m, size_t n) { return sh->run(p, sh->e->K, opt, sh->gather(m, n)); }});
    return;
  }
  // The catalog's other datapaths for the same operand and accumulator types.
  std::set<std::string> seen{describe(e.params)};
  for (const InstrEntry& o : catalog()) {
    if (o.atype != e.atype || o.btype != e.btype || o.dtype != e.dtype || o.scale_type != e.scale_type ||
        o.scale_block != e.scale_block)
      continue;
    const std::string d = describe(o.params);
    if (!seen.insert(d).second) continue;
    int ik = o.K;
    if (sh->K % static_cast<size_t>(ik) != 0) ik = o.params.L;
    if (sh->K % static_cast<size_t>(ik) != 0) continue;
    const DatapathParams p = o.params;
    out.push_back({"the " + o.arch + " " + o.family + " model", d, false,
                   [sh, p, ik, opt](size_t m, size_t n) { return sh->run(p, ik, opt, sh->gather(m, n)); }});
  }
  // The same datapath with another final rounding or C entry.
  for (const Variant& v : datapath_variants(e.params, sh->out)) {
    const DatapathParams p = v.p;
    out.push_back({v.name, describe(p), false,
                   [sh, p, opt](size_t m, size_t n) { return sh->run(p, sh->e->K, opt, sh->gather(m, n)); }});
  }
  if (e.dtype == AccType::f32 && opt.promote_every == 0 && sh->K > 4 * static_cast<size_t>(e.K)) {
    MmaOptions o = opt;
    o.promote_every = 4;
    out.push_back({"FP32 promotion every 4 instructions", "tensor-core partial sums added into an f32 accumulator (DeepGEMM)",
                   false, [sh, o](size_t m, size_t n) { return sh->run(sh->e->params, sh->e->K, o, sh->gather(m, n)); }});
  }
  split_k_models(c, sh, out);
  // CUDA-core accumulations in k order.
  out.push_back({"plain f32 FMA accumulation in k order",
                 "d = fmaf(a_k, b_k, d) for k = 0, 1, ... starting from C, each step rounded to nearest even in f32" +
                     std::string(sh->out == Fmt::f16 ? ", then rounded to f16" : ""),
                 false, [sh](size_t m, size_t n) {
                   const Element el = sh->gather(m, n);
                   float d = sh->c->mma.options.scale_d ? static_cast<float>(as_double(sh->out, el.c)) : 0.0f;
                   for (size_t k = 0; k < sh->K; ++k)
                     d = std::fmaf(static_cast<float>(sh->scaled(el, k, true)), static_cast<float>(sh->scaled(el, k, false)), d);
                   return to_output(sh->out, d);
                 }});
  out.push_back({"f32 multiply then add in k order (no FMA)",
                 "d = d + a_k*b_k with the product and the sum each rounded to nearest even in f32", false,
                 [sh](size_t m, size_t n) {
                   const Element el = sh->gather(m, n);
                   float d = sh->c->mma.options.scale_d ? static_cast<float>(as_double(sh->out, el.c)) : 0.0f;
                   for (size_t k = 0; k < sh->K; ++k) {
                     volatile float prod = static_cast<float>(sh->scaled(el, k, true)) * static_cast<float>(sh->scaled(el, k, false));
                     d = d + prod;
                   }
                   return to_output(sh->out, d);
                 }});
  out.push_back({"f64 accumulation rounded once to " + std::string(info(sh->out).name),
                 "a nearly exact dot product: products and sums in f64, one rounding to nearest even at the end", false,
                 [sh](size_t m, size_t n) {
                   const Element el = sh->gather(m, n);
                   double d = sh->c->mma.options.scale_d ? as_double(sh->out, el.c) : 0.0;
                   for (size_t k = 0; k < sh->K; ++k) d = std::fma(sh->scaled(el, k, true), sh->scaled(el, k, false), d);
                   return to_output(sh->out, d);
                 }});
}

void convert_models(const Case& c, std::vector<AltModel>& out) {
  const Case* cp = &c;
  auto conv = [cp](const ConvertOptions& o) {
    return [cp, o](size_t i, size_t) {
      const Array& x = cp->operands.at("x");
      auto rb = cp->operands.find("rbits");
      const uint32_t bits = rb == cp->operands.end() ? 0 : static_cast<uint32_t>(rb->second.at(i, 0));
      return convert(cp->conv.from, cp->conv.to, x.at(i, 0), o, bits).code;
    };
  };
  const ConvertOptions base = c.conv.options;
  out.push_back({"the case's conversion: " + c.conv.convention, "convention " + c.conv.convention, true, conv(base)});
  for (Round r : {Round::rn, Round::rna, Round::rz, Round::rd, Round::ru})
    for (bool sat : {false, true}) {
      if (r == base.round && sat == base.satfinite) continue;
      ConvertOptions o = base;
      o.round = r;
      o.satfinite = sat;
      std::string name = "rounding " + std::string(to_string(r)) + (sat ? " with" : " without") + " satfinite";
      out.push_back({name, "the case's options with " + name, false, conv(o)});
    }
  for (const Convention& cv : conventions()) {
    if (cv.name == c.conv.convention) continue;
    Resolved res = resolve(cv.name, c.conv.from, c.conv.to, c.conv.request);
    if (!res.options) continue;
    out.push_back({"the " + std::string(cv.name) + " convention", std::string(cv.summary), false, conv(*res.options)});
  }
}

void cvt_models(const Case& c, std::vector<AltModel>& out) {
  const Case* cp = &c;
  auto run = [cp](RsBitMap map, bool swap) {
    return [cp, map, swap](size_t i, size_t) {
      const Array& src = cp->operands.at("src");
      const PtxCvt& p = cp->cvt.parsed;
      std::vector<uint64_t> regs(src.cols);
      for (size_t r = 0; r < src.cols; ++r) regs[r] = src.at(i, r);
      if (swap) {
        if (p.src_packed) {  // reverse the fields of the packed register
          const int slot = ptx_cvt_src_bits(p) / p.src_count;
          const uint64_t mask = (uint64_t{1} << slot) - 1;
          uint64_t v = 0;
          for (int e = 0; e < p.src_count; ++e) v |= ((regs[0] >> (slot * e)) & mask) << (slot * (p.src_count - 1 - e));
          regs[0] = v;
        } else {
          std::reverse(regs.begin(), regs.end());
        }
      }
      auto rb = cp->operands.find("rbits");
      const uint32_t bits = rb == cp->operands.end() ? 0 : static_cast<uint32_t>(rb->second.at(i, 0));
      return ptx_cvt_eval(p, regs, bits, map);
    };
  };
  out.push_back({"the case's instruction: " + c.cvt.ptx, "PTX cvt", true, run(c.cvt.rs_map, false)});
  if (c.cvt.parsed.src_count > 1)
    out.push_back({"source elements in the other order", "a and b swapped (CUDA passes (x.y, x.x) as (a, b))", false,
                   run(c.cvt.rs_map, true)});
  if (c.cvt.parsed.has_rbits) {
    const RsBitMap other = c.cvt.rs_map == RsBitMap::ptx_doc ? RsBitMap::flashinfer_hw : RsBitMap::ptx_doc;
    out.push_back({other == RsBitMap::ptx_doc ? "random bits mapped as the PTX document says" : "random bits mapped as measured by flashinfer",
                   "the other rbits mapping of cvt.rs", false, run(other, false)});
  }
}

}  // namespace

std::vector<AltModel> alternative_models(const Case& c) {
  std::vector<AltModel> out;
  switch (c.op) {
    case OpKind::mma: mma_models(c, out); break;
    case OpKind::convert: convert_models(c, out); break;
    case OpKind::cvt: cvt_models(c, out); break;
    case OpKind::quantize: break;  // no alternative models (yet): compare reports the differences
    case OpKind::gemm: gemm_models(c, out); break;
  }
  return out;
}

}  // namespace tcemu::golden
