// tcemu analyze IN.npy: which narrow format or recipe fits a tensor. For each format (a plain
// cast, no scaling) and each recipe: how many values saturate (clip to +-MAX), overflow (become
// Inf/NaN), underflow to zero or become subnormal, and the signal-to-quantization-noise ratio;
// optionally an SVG of the tensor's exponent histogram against each format's range.
// Every core (--threads / TCEMU_NUM_THREADS): the recipes quantize in parallel, and the counts
// and sums are taken over fixed pieces of the tensor that are added in their order, so the
// output is the same for every thread count.
#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "cli_util.hpp"
#include "cmd_quant_io.hpp"
#include "commands.hpp"
#include "tcemu/parallel.hpp"
#include "tcemu/quant_recipe.hpp"

namespace tcemu::cli {
namespace {

using namespace tcemu::quant;

struct Stats {
  std::string name;
  size_t saturate = 0, overflow = 0, underflow = 0, subnormal = 0;
  double signal = 0, noise = 0;
  size_t lost = 0;  // finite inputs whose result is Inf or NaN: infinite noise
  // "-inf" when a finite value was lost (infinite noise), "n/a" when there is no signal (an
  // all-zero tensor), "inf" only for an exact result of a nonzero signal.
  std::string sqnr() const {
    if (lost) return "-inf";
    if (signal == 0) return "n/a";
    if (noise == 0) return "inf";
    std::ostringstream o;
    o << std::fixed << std::setprecision(2) << 10.0 * std::log10(signal / noise);
    return o.str();
  }
};

// Pieces of this many elements: their partial counts and sums are added in piece order, so the
// double sums of the SQNR never depend on the thread count.
constexpr size_t kPiece = size_t{1} << 16;

// Stats over x[0, n): body(i, stats) for each element, in pieces on every thread, merged in order.
template <class Body>
Stats piecewise(size_t n, const std::string& name, Body&& body) {
  const size_t pieces = (n + kPiece - 1) / kPiece;
  std::vector<Stats> part(pieces);
  parallel_for(pieces, Exec{}, [&](size_t p) {
    for (size_t i = p * kPiece; i < std::min(n, (p + 1) * kPiece); ++i) body(i, part[p]);
  });
  Stats s;
  s.name = name;
  for (const Stats& p : part) {
    s.saturate += p.saturate;
    s.overflow += p.overflow;
    s.underflow += p.underflow;
    s.subnormal += p.subnormal;
    s.lost += p.lost;
    s.signal += p.signal;
    s.noise += p.noise;
  }
  return s;
}

void add_error(Stats& s, float x, float y) {
  if (!std::isfinite(x)) return;
  if (!std::isfinite(y)) {
    ++s.lost;
    return;
  }
  const double e = static_cast<double>(x) - static_cast<double>(y);
  s.signal += static_cast<double>(x) * x;
  s.noise += e * e;
}

// A plain cast into `f` (RN), no scaling.
Stats analyze_format(const std::vector<float>& x, Fmt f) {
  const float mx = code_to_f32(f, max_finite_code(f));
  ConvertOptions plain, sat;
  sat.satfinite = true;
  return piecewise(x.size(), std::string(info(f).name), [&](size_t i, Stats& s) {
    const float v = x[i];
    if (!std::isfinite(v)) return;
    const uint32_t b = std::bit_cast<uint32_t>(v);
    if (std::fabs(v) > mx) ++s.saturate;
    const Class c = classify(f, convert(Fmt::f32, f, b, plain).code);
    if (c == Class::inf || c == Class::nan) ++s.overflow;
    const uint64_t code = convert(Fmt::f32, f, b, sat).code;
    const Class cs = classify(f, code);
    if (v != 0.0f && cs == Class::zero) ++s.underflow;
    if (cs == Class::subnormal) ++s.subnormal;
    add_error(s, v, code_to_f32(f, code));
  });
}

Stats analyze_recipe(const QuantInput& in, const Recipe& r) {
  const Result<Quantized> qr = quantize(r, in.values, in.rows, in.cols);
  if (!qr.ok()) throw InputError(qr.error);
  const Quantized& q = qr.value;
  const Result<std::vector<float>> dr = dequantize(r, q);
  if (!dr.ok()) throw InputError(dr.error);
  const std::vector<float>& d = dr.value;
  const uint64_t maxc = r.kind == RecipeKind::mx && r.mx.elem == Fmt::s8 ? 0x7F : max_finite_code(q.elem);
  return piecewise(in.values.size(), r.name, [&](size_t i, Stats& s) {
    const float v = in.values[i];
    if (!std::isfinite(v)) return;
    const uint64_t mag = q.elem == Fmt::s8 ? (q.codes[i] == 0x81 ? 0x7F : q.codes[i]) : (q.codes[i] & ~info(q.elem).sign_mask());
    if (mag == maxc && std::fabs(v) > std::fabs(d[i])) ++s.saturate;
    if (!std::isfinite(d[i])) ++s.overflow;
    if (v != 0.0f && d[i] == 0.0f) ++s.underflow;
    if (q.elem != Fmt::s8 && classify(q.elem, q.codes[i]) == Class::subnormal) ++s.subnormal;
    add_error(s, v, d[i]);
  });
}

void print_row(const Stats& s) {
  std::cout << std::left << std::setw(18) << s.name << std::right << std::setw(10) << s.saturate << std::setw(10) << s.overflow
            << std::setw(11) << s.underflow << std::setw(11) << s.subnormal << std::setw(11) << s.sqnr() << "\n";
}

// Histogram of floor(log2 |x|) with each format's normal (solid) and subnormal (light) range.
void write_svg(const std::string& path, const std::vector<float>& x, const std::vector<Fmt>& fmts) {
  std::map<int, size_t> hist;
  for (float v : x)
    if (std::isfinite(v) && v != 0.0f) ++hist[std::ilogb(v)];
  int lo = -20, hi = 20;
  if (!hist.empty()) {
    lo = std::min(hist.begin()->first, -16) - 2;
    hi = std::max(hist.rbegin()->first, 16) + 2;
  }
  size_t peak = 1;
  for (auto& [e, n] : hist) peak = std::max(peak, n);
  const double W = 900, left = 90, right = 20, plot_h = 220, band_h = 16;
  const double bw = (W - left - right) / (hi - lo + 1);
  const double H = 40 + plot_h + 30 + band_h * 1.5 * static_cast<double>(fmts.size()) + 20;
  auto X = [&](double e) { return left + (e - lo) * bw; };
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H << "' font-family='sans-serif' font-size='11'>\n";
  o << "<text x='" << left << "' y='20' font-size='14'>exponent histogram floor(log2|x|), " << x.size()
    << " values, against each format's range (solid: normal, light: subnormal)</text>\n";
  const double base = 40 + plot_h;
  for (auto& [e, n] : hist) {
    const double h = plot_h * static_cast<double>(n) / static_cast<double>(peak);
    o << "<rect x='" << X(e) << "' y='" << base - h << "' width='" << bw * 0.9 << "' height='" << h
      << "' fill='#4a7ab5'><title>2^" << e << ": " << n << "</title></rect>\n";
  }
  o << "<line x1='" << left << "' y1='" << base << "' x2='" << W - right << "' y2='" << base << "' stroke='black'/>\n";
  for (int e = lo; e <= hi; ++e)
    if (e % 4 == 0) o << "<text x='" << X(e) << "' y='" << base + 14 << "'>" << e << "</text>\n";
  double y = base + 30;
  for (Fmt f : fmts) {
    const FormatInfo& fi = info(f);
    const int emin = fi.emin(), emax = fi.emax();
    const int sub_lo = fi.has_subnormals ? emin - fi.man_bits : emin;
    o << "<text x='4' y='" << y + 12 << "'>" << fi.name << "</text>\n";
    // Each range [a, b) of exponents, clipped to the plot; empty ranges draw nothing.
    auto band = [&](int a, int b, const char* color) {
      a = std::max(a, lo);
      b = std::min(b, hi + 1);
      if (b > a)
        o << "<rect x='" << X(a) << "' y='" << y << "' width='" << bw * (b - a) << "' height='" << band_h << "' fill='"
          << color << "'/>\n";
    };
    band(sub_lo, emin, "#f2b880");
    band(emin, emax + 1, "#d9731f");
    y += band_h * 1.5;
  }
  o << "</svg>\n";
  std::ofstream out(path);
  if (!out) throw InputError("cannot write " + path);
  out << o.str();
}

struct AnalyzeArgs {
  std::string input, in_format, svg;
};

int run_analyze(const AnalyzeArgs& a) {
  if (a.input.empty()) throw InputError("analyze needs IN.npy");
  const QuantInput in = read_quant_input(a.input, a.in_format);
  const std::vector<Fmt> fmts = {Fmt::bf16, Fmt::f16, Fmt::e5m2, Fmt::e4m3, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1};
  std::cout << in.values.size() << " values (" << in.format << "), folded to " << in.rows << "x" << in.cols << "\n";
  std::cout << std::left << std::setw(18) << "format/recipe" << std::right << std::setw(10) << "saturate" << std::setw(10)
            << "overflow" << std::setw(11) << "underflow" << std::setw(11) << "subnormal" << std::setw(11) << "SQNR dB"
            << "\n";
  for (Fmt f : fmts) print_row(analyze_format(in.values, f));
  for (const RecipePreset& p : recipe_presets()) {
    Recipe r = *find_recipe(p.name);
    const bool fits = (r.kind != RecipeKind::nvfp4 || in.cols % 16 == 0);
    if (!fits) {
      std::cout << std::left << std::setw(18) << r.name << "  (skipped: needs a multiple of 16 columns)\n";
      continue;
    }
    print_row(analyze_recipe(in, r));
  }
  std::cout << "saturate: finite values clipped to +-MAX; overflow: finite values that become Inf/NaN"
               " (plain formats: without satfinite); underflow: nonzero values that become 0\n"
               "SQNR: -inf when a finite value becomes Inf/NaN, n/a for a tensor without signal (all zero)\n";
  const size_t nonfinite = static_cast<size_t>(
      std::count_if(in.values.begin(), in.values.end(), [](float v) { return !std::isfinite(v); }));
  if (nonfinite)
    std::cout << nonfinite << " input value" << (nonfinite == 1 ? " is" : "s are")
              << " Inf or NaN: left out of the counts and the SQNR, but they enter the recipes' block amax\n";
  if (!a.svg.empty()) {
    write_svg(a.svg, in.values, fmts);
    std::cout << "histogram written to " << a.svg << "\n";
  }
  return 0;
}

}  // namespace

void add_analyze_command(CLI::App& app, Runner& run) {
  auto a = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand("analyze", "How each narrow format and quantization recipe fits an .npy tensor");
  cmd->add_option("input", a->input, "IN.npy (f32, f16, or bf16 codes as uint16)");
  cmd->add_option("--input-format", a->in_format, "f32, f16 or bf16 (default: from the dtype)");
  cmd->add_option("--svg", a->svg, "write the exponent histogram against each format's range to this SVG file");
  cmd->callback([&run, a] { run = [a] { return run_analyze(*a); }; });
}

}  // namespace tcemu::cli
