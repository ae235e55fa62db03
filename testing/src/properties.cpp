// The ready-made properties. Each runs under RapidCheck with fixed parameters and keeps the
// last failing case it saw: during shrinking every accepted candidate fails, so the last
// failure is the shrunk counterexample, recorded as structured data rather than parsed back
// from RapidCheck's text.
#include "tcemu/testing/properties.hpp"

#include <bit>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <rapidcheck.h>

#include "tcemu/ptx_cvt.hpp"

namespace tcemu::testing {

namespace {

Codes one(Fmt f, uint64_t bits) { return Codes{f, {bits}, 1, 1}; }

bool codes_match(Fmt f, uint64_t expected, uint64_t actual, bool nan_aware) {
  if (expected == actual) return true;
  return nan_aware && is_valid_code(f, actual) && classify(f, expected) == Class::nan && classify(f, actual) == Class::nan;
}

void put_operand(std::ostream& os, const Operand& op) {
  os << "  " << op.name << ": ";
  if (op.codes.bits.size() == 1) {
    os << describe(op.codes.fmt, op.codes.bits[0]) << "\n";
  } else {
    showValue(op.codes, os);
    os << "\n";
  }
}

}  // namespace

std::string Counterexample::to_string() const {
  std::ostringstream os;
  os << "  why: " << why << "\n";
  for (const Operand& op : inputs) put_operand(os, op);
  for (const Operand& op : outputs) put_operand(os, op);
  if (expected) os << "  expected: " << describe(*expected) << "\n";
  if (actual) {
    os << "  actual:   ";
    if (is_valid_code(actual->fmt, actual->bits)) {
      os << describe(*actual);
    } else {
      os << "0x" << std::hex << actual->bits << std::dec << " (not a code of " << info(actual->fmt).name << ")";
    }
    os << "\n";
  }
  if (ulps) os << "  distance: " << *ulps << (*ulps == 1 ? " ulp" : " ulps") << "\n";
  return os.str();
}

std::string PropertyResult::to_string() const {
  std::ostringstream os;
  if (passed) {
    os << "PASSED " << property << ": " << tests_run << " cases (seed " << seed << ")";
    return os.str();
  }
  os << "FAILED " << property;
  if (!error.empty()) {
    os << ": " << error;
    return os.str();
  }
  os << " after " << tests_run << " passing cases (seed " << seed << ")";
  if (counterexample) {
    os << "; shrunk through " << counterexample->shrink_steps << " simpler failing cases to:\n"
       << counterexample->to_string();
  }
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const PropertyResult& r) { return os << r.to_string(); }
std::ostream& operator<<(std::ostream& os, const Counterexample& c) { return os << c.to_string(); }

PropertyResult check_property(std::string name, const std::function<std::optional<Counterexample>()>& body,
                              const CheckOptions& o) {
  PropertyResult res;
  res.property = std::move(name);
  std::optional<Counterexample> last;
  auto prop = [&] {
    std::optional<Counterexample> ce = body();
    if (!ce) return;
    std::string why = ce->why;
    last = std::move(ce);
    throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, why);
  };
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = o.tests;
  params.maxSize = o.max_size;
  params.disableShrinking = !o.shrink;
  if (o.seed != 0) params.seed = o.seed;
  res.seed = params.seed;
  rc::detail::TestMetadata meta;
  meta.id = res.property;
  meta.description = res.property;
  // Our own listener: counts accepted shrinks, and keeps RapidCheck's global reporter (its
  // "RC_PARAMS=reproduce" note at exit) out of it, since a caught failure is a result here.
  struct Listener : rc::detail::TestListener {
    int accepted = 0;
    void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
    void onShrinkTried(const rc::detail::CaseDescription&, bool ok) override { accepted += ok ? 1 : 0; }
    void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  } listener;
  const rc::detail::TestResult r = rc::detail::checkProperty(rc::detail::toProperty(prop), meta, params, listener);
  rc::detail::SuccessResult ok;
  rc::detail::FailureResult bad;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error err;
  if (r.match(ok)) {
    res.passed = true;
    res.tests_run = ok.numSuccess;
  } else if (r.match(bad)) {
    res.tests_run = bad.numSuccess;
    if (last) {
      last->shrink_steps = listener.accepted;
      res.counterexample = std::move(last);
    } else {
      res.error = bad.description;  // an exception from the function under test, say
    }
  } else if (r.match(gave_up)) {
    res.error = "gave up: " + gave_up.description;
  } else if (r.match(err)) {
    res.error = err.description;
  }
  return res;
}

// ------------------------------------------------------------------------------------------
// Conversions

ConversionSpec ConversionSpec::ptx(std::string_view spelling) {
  const Result<PtxCvt> parsed = parse_ptx_cvt(spelling);
  if (!parsed.ok()) {
    std::string msg = "tcemu::testing: unknown PTX cvt \"";
    msg += spelling;
    msg += "\": ";
    msg += parsed.error;
    throw std::invalid_argument(msg);
  }
  const PtxCvt* c = &parsed.value;
  ConversionSpec s;
  s.name = std::string(spelling);
  s.from = c->src;
  s.to = c->dst;
  s.options = c->options;
  s.ptx_cvt = *c;
  return s;
}

ConversionSpec ConversionSpec::convention(std::string_view convention, Fmt from, Fmt to, const OptionRequest& req) {
  Resolved r = resolve(convention, from, to, req);
  if (!r.options) throw std::invalid_argument("tcemu::testing: " + r.error);
  ConversionSpec s;
  s.name = std::string(convention);
  s.name += " ";
  s.name += info(from).name;
  s.name += " -> ";
  s.name += info(to).name;
  s.from = from;
  s.to = to;
  s.options = *r.options;
  return s;
}

ConversionSpec ConversionSpec::with_options(Fmt from, Fmt to, const ConvertOptions& o) {
  ConversionSpec s;
  s.name = std::string(info(from).name);
  s.name += " -> ";
  s.name += info(to).name;
  s.name += " (round ";
  s.name += to_string(o.round);
  if (o.satfinite) s.name += ", satfinite";
  s.name += ")";
  s.from = from;
  s.to = to;
  s.options = o;
  return s;
}

uint64_t ConversionSpec::expected(uint64_t code, uint32_t rbits) const {
  if (!ptx_cvt || options.round == Round::rs) return convert(from, to, code, options, rbits).code;
  const PtxCvt& c = *ptx_cvt;
  // The same input in every source field; the element of the lowest destination field.
  std::vector<uint64_t> src;
  if (c.src_packed) {
    const int field = ptx_cvt_src_bits(c) / c.src_count;
    uint64_t reg = 0;
    for (int i = 0; i < c.src_count; ++i) reg |= code << (i * field);
    src.push_back(reg);
  } else {
    src.assign(static_cast<size_t>(c.src_count), code);
  }
  const uint64_t d = ptx_cvt_eval(c, src);
  return d & info(to).code_mask();
}

namespace {

std::optional<Counterexample> conversion_case(const ConversionSpec& spec, uint64_t x, uint64_t want, uint64_t got,
                                              bool nan_aware) {
  if (codes_match(spec.to, want, got, nan_aware)) return std::nullopt;
  Counterexample ce;
  ce.inputs.push_back({"x", one(spec.from, x)});
  ce.expected = Code{spec.to, want};
  ce.actual = Code{spec.to, got};
  if (is_valid_code(spec.to, got)) ce.ulps = ulp_distance(spec.to, want, got);
  ce.why = "the function converts x differently from " + spec.name;
  return ce;
}

}  // namespace

PropertyResult converts_like(const ConversionSpec& spec, const ConvertFn& fn, const rc::Gen<Code>& inputs,
                             const CheckOptions& o) {
  return check_property("converts like " + spec.name, [&]() -> std::optional<Counterexample> {
    const Code x = *inputs;
    return conversion_case(spec, x.bits, spec.expected(x.bits), fn(x.bits), o.nan_aware);
  }, o);
}

PropertyResult converts_like(const ConversionSpec& spec, const ConvertFn& fn, const CheckOptions& o) {
  return converts_like(spec, fn, gen::interesting(spec.from, spec.to), o);
}

PropertyResult converts_like_rs(const ConversionSpec& spec, const ConvertRsFn& fn, const CheckOptions& o) {
  const auto inputs = gen::interesting(spec.from, spec.to);
  return check_property("converts like " + spec.name + " (random bits)", [&]() -> std::optional<Counterexample> {
    const Code x = *inputs;
    const uint32_t rbits = *rc::gen::arbitrary<uint32_t>();
    auto ce = conversion_case(spec, x.bits, spec.expected(x.bits, rbits), fn(x.bits, rbits), o.nan_aware);
    if (ce) ce->inputs.push_back({"rbits", Codes{Fmt::f32, {rbits}, 1, 1}});
    return ce;
  }, o);
}

// ------------------------------------------------------------------------------------------
// Dot products

PropertyResult dot_agrees_with(std::string_view arch, std::string_view ptx, const DotFn& fn, const DotOptions& d,
                               const CheckOptions& o) {
  const InstrLookup look = find_instruction(arch, ptx, d.atype, d.btype, d.dtype, d.stype);
  if (!look.entry) throw std::invalid_argument("tcemu::testing::dot_agrees_with: " + look.error);
  const InstrEntry& e = *look.entry;
  if (e.dtype == AccType::s32) throw std::invalid_argument("tcemu::testing::dot_agrees_with: integer accumulators are not supported; compare int32 outputs with BitExact");
  const Fmt acc = acc_format(e.dtype);
  const int k = d.k ? d.k : e.K;
  if (k % e.K != 0) throw std::invalid_argument("tcemu::testing::dot_agrees_with: k must be a multiple of the instruction's K");
  const auto ga = gen::vector(e.atype, static_cast<size_t>(k), d.spread);
  const auto gb = gen::vector(e.btype, static_cast<size_t>(k), d.spread);
  const auto gc = rc::gen::weightedOneOf<Code>({{3, gen::spread(acc, d.spread)}, {1, gen::special(acc)}});
  std::optional<rc::Gen<Codes>> gs;
  if (e.scale_type) {
    gs = gen::vector(*e.scale_type, static_cast<size_t>(k / e.scale_block), gen::Spread{-4, 4, 0, 2});
  }
  std::string name = "dot product agrees with ";
  name += ptx;
  name += " on ";
  name += arch;
  return check_property(name, [&]() -> std::optional<Counterexample> {
    DotInputs in;
    in.a = *ga;
    in.b = *gb;
    in.c = *gc;
    if (gs) {
      in.sa = **gs;
      in.sb = **gs;
    }
    const uint64_t C[1] = {in.c.bits};
    const MmaResult want = mma(make_problem(e, 1, 1, static_cast<int>(in.a.bits.size()), in.a.bits, in.b.bits, C,
                                            in.sa.bits, in.sb.bits, d.mma),
                               Exec{1});
    if (want.D.empty()) throw std::runtime_error("tcemu::mma: " + want.error);
    const uint64_t got = fn(in);
    if (codes_match(acc, want.D[0], got, o.nan_aware)) return std::nullopt;
    Counterexample ce;
    ce.inputs = {{"a", in.a}, {"b", in.b}, {"c", one(acc, in.c.bits)}};
    if (gs) {
      ce.inputs.push_back({"scale_a", in.sa});
      ce.inputs.push_back({"scale_b", in.sb});
    }
    ce.expected = Code{acc, want.D[0]};
    ce.actual = Code{acc, got};
    if (is_valid_code(acc, got)) ce.ulps = ulp_distance(acc, want.D[0], got);
    ce.why = "the dot product differs from " + e.ptx + " (" + e.arch + ")";
    return ce;
  }, o);
}

// ------------------------------------------------------------------------------------------
// Quantizers

namespace {

float as_float(const Code& c) { return std::bit_cast<float>(static_cast<uint32_t>(c.bits)); }
Code f32_code(float v) { return Code{Fmt::f32, std::bit_cast<uint32_t>(v)}; }

// f32 inputs around the thresholds of q.fmt, scaled by q.scale (shrinks carried over).
rc::Gen<Code> quantizer_inputs(const QuantizerSpec& q, bool finite_only) {
  auto g = rc::gen::map(gen::interesting(Fmt::f32, q.fmt), [s = q.scale](const Code& c) {
    return f32_code(static_cast<float>(static_cast<double>(as_float(c)) * s));
  });
  return rc::gen::suchThat(g, [finite_only](const Code& c) {
    const Class cls = classify(Fmt::f32, c.bits);
    return cls != Class::nan && (!finite_only || cls != Class::inf);
  });
}

std::string quantizer_name(const char* law, const QuantizerSpec& q) {
  std::ostringstream os;
  os << "quantizer to " << info(q.fmt).name;
  if (q.scale != 1.0) os << " (scale " << q.scale << ")";
  os << " " << law;
  return os.str();
}

bool bad_output(Fmt f, uint64_t c) { return !is_valid_code(f, c) || classify(f, c) == Class::nan; }

}  // namespace

PropertyResult quantizer_is_monotone(const QuantizerSpec& q, const QuantizeFn& fn, const CheckOptions& o) {
  const auto xs = quantizer_inputs(q, false);
  return check_property(quantizer_name("is monotone", q), [&]() -> std::optional<Counterexample> {
    Code x = *xs;
    // The other input: another interesting value, or the next f32 value up.
    Code y = *rc::gen::weightedOneOf<Code>(
        {{1, xs}, {1, rc::gen::just(f32_code(std::nextafter(as_float(x), std::numeric_limits<float>::infinity())))}});
    if (as_float(y) < as_float(x)) std::swap(x, y);
    const uint64_t qx = fn(as_float(x)), qy = fn(as_float(y));
    const bool nan = bad_output(q.fmt, qx) || bad_output(q.fmt, qy);
    if (!nan && *ordinal(q.fmt, qx) <= *ordinal(q.fmt, qy)) return std::nullopt;
    Counterexample ce;
    ce.inputs = {{"x", one(Fmt::f32, x.bits)}, {"y", one(Fmt::f32, y.bits)}};
    ce.outputs = {{"fn(x)", one(q.fmt, qx)}, {"fn(y)", one(q.fmt, qy)}};
    ce.why = nan ? "a NaN or invalid code for a non-NaN input" : "x <= y but fn(x) > fn(y)";
    return ce;
  }, o);
}

PropertyResult quantizer_never_overflows(const QuantizerSpec& q, const QuantizeFn& fn, const CheckOptions& o) {
  const auto xs = quantizer_inputs(q, true);
  return check_property(quantizer_name("never overflows", q), [&]() -> std::optional<Counterexample> {
    const Code x = *xs;
    const uint64_t got = fn(as_float(x));
    if (!bad_output(q.fmt, got) && classify(q.fmt, got) != Class::inf) return std::nullopt;
    Counterexample ce;
    ce.inputs = {{"x", one(Fmt::f32, x.bits)}};
    ce.actual = Code{q.fmt, got};
    ce.why = "a finite input gave Inf, NaN or an invalid code";
    return ce;
  }, o);
}

PropertyResult quantizer_round_trips(const QuantizerSpec& q, const QuantizeFn& fn, Bound bound, const CheckOptions& o) {
  const auto xs = quantizer_inputs(q, true);
  const bool half = bound == Bound::half_ulp;
  return check_property(quantizer_name(half ? "round-trips within half an ulp" : "round-trips within one ulp", q),
                        [&, half]() -> std::optional<Counterexample> {
    const Code x = *xs;
    const float xv = as_float(x);
    if (xv < 0 && !info(q.fmt).is_signed) return std::nullopt;  // no meaning for unsigned formats
    const double y = static_cast<double>(xv) / q.scale;
    const uint64_t ybits = std::bit_cast<uint64_t>(y);
    ConvertOptions lo_opt, hi_opt;
    lo_opt.satfinite = hi_opt.satfinite = true;
    lo_opt.round = half ? Round::rn : Round::rd;
    hi_opt.round = half ? Round::rna : Round::ru;
    const uint64_t lo = convert(Fmt::f64, q.fmt, ybits, lo_opt).code, hi = convert(Fmt::f64, q.fmt, ybits, hi_opt).code;
    const uint64_t got = fn(xv);
    if (!bad_output(q.fmt, got)) {
      const auto og = ordinal(q.fmt, got);
      if (og == ordinal(q.fmt, lo) || og == ordinal(q.fmt, hi)) return std::nullopt;
    }
    Counterexample ce;
    ce.inputs = {{"x", one(Fmt::f32, x.bits)}};
    if (q.scale != 1.0) ce.inputs.push_back({"x / scale", one(Fmt::f64, ybits)});
    ce.expected = Code{q.fmt, lo};
    if (hi != lo) ce.outputs.push_back({"or", one(q.fmt, hi)});
    ce.actual = Code{q.fmt, got};
    if (!bad_output(q.fmt, got)) ce.ulps = ulp_distance(q.fmt, lo, got);
    ce.why = half ? "fn(x) is not the nearest value of x / scale (saturating)"
                  : "fn(x) is not a neighbour of x / scale (saturating)";
    return ce;
  }, o);
}

}  // namespace tcemu::testing
