#include "tcemu_golden/evaluate.hpp"

#include "tcemu_golden/quant_case.hpp"

namespace tcemu::golden {

MmaProblem MmaInputs::problem(const Case& c) const {
  const MmaSpec& m = c.mma;
  MmaProblem p;
  p.M = m.M;
  p.N = m.N;
  p.K = m.K;
  p.atype = m.entry->atype;
  p.btype = m.entry->btype;
  p.A = A;
  p.B = B;
  p.C = C;
  if (m.entry->scale_type) {
    p.scale_type = m.entry->scale_type;
    p.scale_block = m.entry->scale_block;
    p.sa = sa;
    p.sb = sb;
  }
  return p;
}

MmaInputs mma_inputs(const Case& c) {
  MmaInputs in;
  in.A = c.operands.at("A").logical();
  in.B = c.operands.at("B").logical();
  auto it = c.operands.find("C");
  if (it != c.operands.end()) in.C = it->second.logical();  // else empty: C = +0 (MmaProblem)
  if (c.mma.entry->scale_type) {
    in.sa = c.operands.at("scale_A").logical();
    in.sb = c.operands.at("scale_B").logical();
  }
  return in;
}

GemmPlan gemm_plan(const Case& c) {
  GemmPlan p = c.gemm.plan;
  auto vec = [&](const char* name, std::vector<uint32_t>& out) {
    auto it = c.operands.find(name);
    if (it == c.operands.end()) return;
    for (uint64_t v : it->second.logical()) out.push_back(static_cast<uint32_t>(v));
  };
  vec("a_scale", p.epilogue.a_scale);
  vec("b_scale", p.epilogue.b_scale);
  vec("bias", p.epilogue.bias);
  return p;
}

std::vector<uint64_t> evaluate(const Case& c) {
  switch (c.op) {
    case OpKind::gemm: {
      const MmaInputs in = mma_inputs(c);
      GemmResult r = gemm(*c.mma.entry, in.problem(c), gemm_plan(c), Exec{});
      if (!r.error.empty()) throw GoldenError("case " + c.name + ": the emulator refuses it: " + r.error);
      return std::move(r.D);
    }
    case OpKind::mma: {
      const MmaInputs in = mma_inputs(c);
      // On every core (thread_count's default); inside generate_mma_cases' parallel loop, on one.
      MmaResult r = mma(in.problem(c).with(*c.mma.entry, c.mma.options), Exec{});
      if (!r.error.empty()) throw GoldenError("case " + c.name + ": the emulator refuses it: " + r.error);
      return r.D.values();
    }
    case OpKind::convert: {
      const Array& x = c.operands.at("x");
      auto rb = c.operands.find("rbits");
      std::vector<uint64_t> y(x.rows);
      for (size_t i = 0; i < x.rows; ++i) {
        const uint32_t bits = rb == c.operands.end() ? 0 : static_cast<uint32_t>(rb->second.at(i, 0));
        y[i] = convert(c.conv.from, c.conv.to, x.at(i, 0), c.conv.options, bits).code;
      }
      return y;
    }
    case OpKind::cvt: {
      const Array& src = c.operands.at("src");
      auto rb = c.operands.find("rbits");
      std::vector<uint64_t> d(src.rows);
      std::vector<uint64_t> regs(src.cols);
      for (size_t i = 0; i < src.rows; ++i) {
        for (size_t r = 0; r < src.cols; ++r) regs[r] = src.at(i, r);
        const uint32_t bits = rb == c.operands.end() ? 0 : static_cast<uint32_t>(rb->second.at(i, 0));
        d[i] = ptx_cvt_eval(c.cvt.parsed, regs, bits, c.cvt.rs_map);
      }
      return d;
    }
    case OpKind::quantize: return evaluate_quantize(c).at("codes").logical();
  }
  return {};
}

Array evaluate_as_expected(const Case& c) {
  if (c.op == OpKind::quantize) return evaluate_quantize(c).at("codes");
  const std::vector<uint64_t> v = evaluate(c);
  Array a = c.expected;
  a.npy.clear();
  for (size_t r = 0; r < a.rows; ++r)
    for (size_t col = 0; col < a.cols; ++col) a.set(r, col, v[r * a.cols + col]);
  return a;
}

std::map<std::string, Array> evaluate_all(const Case& c) {
  if (c.op == OpKind::quantize) return evaluate_quantize(c);
  return {{c.expected_name, evaluate_as_expected(c)}};
}

std::vector<std::string> not_reproduced(const Case& c) {
  std::vector<std::string> bad;
  for (const auto& [name, a] : evaluate_all(c)) {
    const Array* want = name == c.expected_name ? &c.expected : nullptr;
    if (auto it = c.extra_expected.find(name); it != c.extra_expected.end()) want = &it->second;
    if (!want || want->raw != a.raw) bad.push_back(name);
  }
  return bad;
}

}  // namespace tcemu::golden
