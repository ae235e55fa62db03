// tcemu mma: the whole-matrix MMA of a catalog instruction on the user's own operands (.npy),
// on every core. Storage orders as in `tcemu golden gen` (docs/golden.md): A row-major M x K,
// B column-major (stored N x K), C and D row-major M x N, scales M x K/block and N x K/block.
// A square B.npy without --order-b is refused: its shape cannot tell N x K (this command's
// default) from K x N (NumPy's `a @ b`, and tcemu.mma's B).
// Operands are codes, or with --from-values f32/f16/bf16 values converted first. D is written
// as codes (the golden file's dtypes), with --values also as f32 (f64 for s32) values, and a
// JSON side file says what was computed. --device cuda computes D with the emulator's CUDA
// kernels (docs/gpu-emulation.md): the same D, bit for bit. --rows / --cols compute one block of D
// (docs/dask.md: a GEMM split over any scheduler).
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli_device.hpp"
#include "cli_operands.hpp"
#include "cli_util.hpp"
#include "commands.hpp"
#include "tcemu/catalog.hpp"
#include "tcemu/convert.hpp"
#include "tcemu/mma.hpp"
#include "tcemu/parallel.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"

namespace tcemu::cli {
namespace {

using golden::ElemType;

struct MmaArgs {
  std::string arch, instr, atype, btype, dtype, stype;
  std::string a, b, c, scale_a, scale_b, out;
  std::string order_a = "row", order_b = "col", order_c = "row", order_d = "row";
  bool order_b_given = false;  // --order-b on the command line
  int promote_every = 0, scale_input_d = -1;
  bool negate_a = false, negate_b = false, no_scale_d = false;
  bool from_values = false, values = false, quiet = false;
  std::string convention = "ptx", round;
  std::string device = "cpu";
  std::string rows, cols;  // --rows R0:R1, --cols C0:C1: one block of D
};

// --from-values: f32 (<f4), f16 (<f2) or bf16 (uint16 bit patterns) values converted to `to`.
struct ValueConversion {
  std::string convention;
  OptionRequest request;
  nlohmann::json record = nlohmann::json::object();  // per operand: source type and options
};

Matrix read_values(const std::string& path, const std::string& what, Fmt to, bool col, ValueConversion& vc) {
  const io::NpyArray a = value_of(io::try_read_npy(path));
  const auto [rows, cols] = logical_shape(a, path, col);
  Fmt from;
  if (a.descr == "<f4") from = Fmt::f32;
  else if (a.descr == "<f2") from = Fmt::f16;
  else if (a.descr == "<u2") from = Fmt::bf16;
  else
    throw InputError(path + ": --from-values reads f32 (<f4), f16 (<f2) or bf16 bit patterns (<u2), not dtype '" +
                     a.descr + "'");
  const Resolved r = resolve(vc.convention, from, to, vc.request);
  if (!r.options)
    throw InputError(what + ": no conversion " + std::string(info(from).name) + " -> " + std::string(info(to).name) +
                     " under convention '" + vc.convention + "': " + r.error);
  if (r.options->round == Round::rs) throw InputError("--round rs needs random bits; tcemu mma does not take them");
  const Converter conv(from, to, *r.options);
  const size_t db = container_bytes(to);
  std::vector<uint8_t> out(a.count() * db);
  conv.run(a.data.data(), out.data(), a.count());
  std::vector<uint64_t> s(a.count(), 0);
  for_ranges(s.size(), [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) std::memcpy(&s[i], &out[i * db], db);
  });
  vc.record[what] = {{"from", std::string(info(from).name)},
                     {"to", std::string(info(to).name)},
                     {"round", std::string(to_string(r.options->round))},
                     {"satfinite", r.options->satfinite}};
  return to_logical(std::move(s), rows, cols, col);
}

std::string values_file(const std::string& out) {
  const std::string ext = ".npy";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".values.npy";
  return out + ".values.npy";
}

// The progress bar on stderr: [#####.....]  45%  1.23 G MAC/s  12 s left.
class ProgressBar {
 public:
  explicit ProgressBar(bool on) : on_(on), start_(std::chrono::steady_clock::now()) {}
  void update(double done, double total) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double rate = secs > 0 ? done / secs : 0;
    const int width = 30, filled = static_cast<int>(width * done / total);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    char line[160];
    std::snprintf(line, sizeof line, "\r[%s] %3d%%  %.2f G MAC/s  %.0f s left ", bar.c_str(),
                  static_cast<int>(100 * done / total), rate / 1e9, rate > 0 ? (total - done) / rate : 0.0);
    std::cerr << line << std::flush;
    shown_ = true;
  }
  ~ProgressBar() {
    if (shown_) std::cerr << "\n";
  }

 private:
  bool on_, shown_ = false;
  std::chrono::steady_clock::time_point start_, last_{};
};

// The instruction the arguments name.
const InstrEntry& mma_entry(const MmaArgs& g) {
  auto opt_fmt = [](const std::string& s) -> std::optional<Fmt> {
    if (s.empty()) return std::nullopt;
    return format_arg(s);
  };
  std::optional<AccType> dtype;
  if (!g.dtype.empty()) {
    dtype = parse_acc_type(g.dtype);
    if (!dtype) throw InputError("--dtype: must be f16, f32 or s32");
  }
  const InstrLookup lk = find_instruction(g.arch, g.instr, opt_fmt(g.atype), opt_fmt(g.btype), dtype, opt_fmt(g.stype));
  if (!lk.entry) throw InputError(lk.error);
  return *lk.entry;
}

// The storage orders of A, B, C and D (true: column order).
struct Orders {
  bool a, b, c, d;
};

// The argument combinations the instruction refuses.
void check_combinations(const MmaArgs& g, const InstrEntry& e) {
  if (!g.from_values && (!g.round.empty() || g.convention != "ptx"))
    throw InputError("--convention and --round apply to --from-values only");
  if (g.no_scale_d && !g.c.empty()) throw InputError("C.npy given with --no-scale-d (D = A*B reads no C)");
  if (e.scale_type && (g.scale_a.empty() || g.scale_b.empty()))
    throw InputError(e.ptx + " is block-scaled: give --scale-a and --scale-b");
  if (!e.scale_type && (!g.scale_a.empty() || !g.scale_b.empty()))
    throw InputError(e.ptx + " takes no block scales (--scale-a/--scale-b)");
}

// The operands as row-major codes, their shapes checked against each other and the instruction.
struct MmaOperands {
  Matrix A, B, C, SA, SB;
  size_t M = 0, N = 0, K = 0;
  ValueConversion vc;  // --from-values: how A and B were converted
};

void read_scales(const MmaArgs& g, const InstrEntry& e, MmaOperands& o) {
  const size_t nb = o.K / static_cast<size_t>(e.scale_block);
  const ElemType st = golden::elem_type(*e.scale_type);
  o.SA = read_codes(g.scale_a, "scale_A", st, false);
  o.SB = read_codes(g.scale_b, "scale_B", st, false);
  auto want = [&](const Matrix& s, size_t rows, const std::string& path, const char* what) {
    if (s.rows != rows || s.cols != nb)
      throw InputError(path + ": " + what + " must be " + std::to_string(rows) + " x " + std::to_string(nb) +
                       " (one " + st.name + " scale per " + std::to_string(e.scale_block) + " elements of K), not " +
                       std::to_string(s.rows) + " x " + std::to_string(s.cols));
  };
  want(o.SA, o.M, g.scale_a, "scale_A (M x K/block)");
  want(o.SB, o.N, g.scale_b, "scale_B (N x K/block)");
}

MmaOperands read_operands(const MmaArgs& g, const InstrEntry& e, const Orders& ord) {
  MmaOperands o;
  o.vc.convention = g.convention;
  if (!g.round.empty()) {
    o.vc.request.round = parse_round(g.round);
    if (!o.vc.request.round) throw InputError("--round: unknown rounding '" + g.round + "'");
  }
  auto operand = [&](const std::string& path, const char* what, Fmt f, bool col) {
    return g.from_values ? read_values(path, what, f, col, o.vc) : read_codes(path, what, golden::elem_type(f), col, " (values? then give --from-values)");
  };
  o.A = operand(g.a, "A", e.atype, ord.a);
  o.B = operand(g.b, "B", e.btype, ord.b);
  o.M = o.A.rows, o.K = o.A.cols, o.N = o.B.cols;
  if (!g.order_b_given && o.B.rows == o.B.cols)
    throw InputError(g.b + ": B is square (" + std::to_string(o.B.rows) + " x " + std::to_string(o.B.cols) +
                     "), so its shape cannot say how it is stored: give --order-b col (stored N x K, golden's "
                     "storage, the default for a B that is not square) or --order-b row (stored K x N, as NumPy's "
                     "a @ b and tcemu.mma take it)");
  if (o.B.rows != o.K)
    throw InputError("A is " + std::to_string(o.M) + " x " + std::to_string(o.K) + " but B is " +
                     std::to_string(o.B.rows) + " x " + std::to_string(o.N) + ": their K differ" +
                     (!g.order_b_given && o.B.cols == o.K
                          ? " (B.npy is stored K x N, as NumPy's a @ b? then give --order-b row)"
                          : ""));
  if (o.K % static_cast<size_t>(e.K) != 0)
    throw InputError("K = " + std::to_string(o.K) + " is not a multiple of the instruction's K = " + std::to_string(e.K));
  o.C = Matrix{o.M, o.N, {}};
  if (!g.c.empty()) {
    o.C = read_codes(g.c, "C", golden::elem_type(acc_format(e.dtype)), ord.c);
    if (o.C.rows != o.M || o.C.cols != o.N)
      throw InputError(g.c + ": C must be " + std::to_string(o.M) + " x " + std::to_string(o.N) + " (M x N), not " +
                       std::to_string(o.C.rows) + " x " + std::to_string(o.C.cols));
  }  // else no codes: C = +0 everywhere (MmaProblem's empty C)
  if (e.scale_type) read_scales(g, e, o);
  return o;
}

// --rows / --cols: the half-open range R0:R1 of D's rows (columns) of n, either end omittable.
std::pair<size_t, size_t> block_range(const std::string& s, size_t n, const std::string& flag) {
  if (s.empty()) return {0, n};
  const size_t colon = s.find(':');
  const std::string what = flag + ": '" + s + "' ";
  if (colon == std::string::npos || s.find(':', colon + 1) != std::string::npos)
    throw InputError(what + "is not a range R0:R1 (0-based, R1 excluded)");
  auto num = [&](const std::string& t, size_t dflt) -> size_t {
    if (t.empty()) return dflt;
    if (t.size() > 10 || t.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(what + "is not a range R0:R1 of non-negative integers");
    return static_cast<size_t>(std::stoull(t));
  };
  const size_t lo = num(s.substr(0, colon), 0), hi = num(s.substr(colon + 1), n);
  if (hi > n) throw InputError(what + "ends past D's " + std::to_string(n) + (flag == "--rows" ? " rows" : " columns"));
  if (lo >= hi) throw InputError(what + "is empty (R0 must be below R1)");
  return {lo, hi};
}

Matrix sub_matrix(const Matrix& m, size_t r0, size_t r1, size_t c0, size_t c1) {
  Matrix s{r1 - r0, c1 - c0, {}};
  s.codes.reserve(s.rows * s.cols);
  for (size_t r = r0; r < r1; ++r)
    s.codes.insert(s.codes.end(), m.codes.begin() + static_cast<ptrdiff_t>(r * m.cols + c0),
                   m.codes.begin() + static_cast<ptrdiff_t>(r * m.cols + c1));
  return s;
}

// Cuts the operands down to those of the block of D that --rows / --cols name: its rows of A,
// C and scale_A, its columns of B and C and its rows of scale_B (stored N x K/block). Every
// element of D depends on its row, its column, its C element and their scales alone.
nlohmann::json select_block(const MmaArgs& g, MmaOperands& o) {
  if (g.rows.empty() && g.cols.empty()) return nullptr;
  const auto [r0, r1] = block_range(g.rows, o.M, "--rows");
  const auto [c0, c1] = block_range(g.cols, o.N, "--cols");
  nlohmann::json rec = {{"rows", {r0, r1}}, {"cols", {c0, c1}}, {"of", {{"M", o.M}, {"N", o.N}}}};
  o.A = sub_matrix(o.A, r0, r1, 0, o.K);
  o.B = sub_matrix(o.B, 0, o.K, c0, c1);
  o.C = o.C.codes.empty() ? Matrix{r1 - r0, c1 - c0, {}} : sub_matrix(o.C, r0, r1, c0, c1);
  if (!o.SA.codes.empty()) {
    o.SA = sub_matrix(o.SA, r0, r1, 0, o.SA.cols);
    o.SB = sub_matrix(o.SB, c0, c1, 0, o.SB.cols);
  }
  o.M = r1 - r0;
  o.N = c1 - c0;
  return rec;
}

MmaOptions mma_options(const MmaArgs& g) {
  MmaOptions o;
  o.promote_every = g.promote_every;
  o.negate_a = g.negate_a;
  o.negate_b = g.negate_b;
  o.scale_d = !g.no_scale_d && !g.c.empty();
  o.scale_input_d = g.scale_input_d;
  return o;
}

// D (row-major codes, at the accumulator's container width) on the chosen device.
CodeVector compute_d(const MmaArgs& g, const InstrEntry& e, const MmaOperands& ops, const MmaOptions& o,
                     const DeviceSpec& dev) {
  const MmaProblem p = make_problem(e, static_cast<int>(ops.M), static_cast<int>(ops.N), static_cast<int>(ops.K),
                                    ops.A.codes, ops.B.codes, ops.C.codes, ops.SA.codes, ops.SB.codes, o);
  ProgressBar bar(!g.quiet && isatty(STDERR_FILENO) && dev.kind == DeviceSpec::Kind::cpu);
  MmaResult r = mma(p, Exec{.device = dev}, [&bar](double done, double total) { bar.update(done, total); });
  if (!r.error.empty())
    throw InputError((dev.kind == DeviceSpec::Kind::cuda ? "mma on " + to_string(dev) + ": " : "mma: ") + r.error);
  return std::move(r.D);
}

// The side file's record of what was computed.
nlohmann::json side_record(const MmaArgs& g, const InstrEntry& e, const MmaOperands& ops, const MmaOptions& o,
                           const DeviceSpec& dev) {
  nlohmann::json side = {
      {"format", "tcemu-mma-output"},
      {"version", 1},
      {"tcemu_version", "0.1.0"},
      {"instruction",
       {{"arch", e.arch}, {"ptx", e.ptx}, {"atype", std::string(info(e.atype).name)},
        {"btype", std::string(info(e.btype).name)}, {"dtype", std::string(to_string(e.dtype))}}},
      {"shape", {{"M", ops.M}, {"N", ops.N}, {"K", ops.K}}},
      {"options",
       {{"promote_every", o.promote_every}, {"negate_a", o.negate_a}, {"negate_b", o.negate_b},
        {"scale_d", o.scale_d}, {"scale_input_d", o.scale_input_d}}},
      {"orders", {{"A", g.order_a}, {"B", g.order_b}, {"C", g.order_c}, {"D", g.order_d}}},
      {"inputs", {{"A", g.a}, {"B", g.b}}},
      {"D", {{"npy", g.out}, {"type", golden::elem_type(acc_format(e.dtype)).name}}},
      {"operands_as", g.from_values ? "values" : "codes"},
      {"device", to_string(dev)}};
  if (!g.c.empty()) side["inputs"]["C"] = g.c;
  if (e.scale_type) {
    side["instruction"]["stype"] = std::string(info(*e.scale_type).name);
    side["instruction"]["scale_block"] = e.scale_block;
    side["inputs"]["scale_A"] = g.scale_a;
    side["inputs"]["scale_B"] = g.scale_b;
  }
  if (dev.kind == DeviceSpec::Kind::cuda) side["device_name"] = cuda_status(dev.index).name;
  if (g.from_values) side["conversion"] = {{"convention", ops.vc.convention}, {"operands", ops.vc.record}};
  return side;
}

// --values: D's values (f32; f64 for s32) beside the codes, recorded in the side file.
template <typename Codes>  // std::vector<uint64_t> or CodeVector
void write_values(const MmaArgs& g, const InstrEntry& e, const Codes& d, const std::vector<size_t>& dshape,
                  nlohmann::json& side) {
  const std::string vpath = values_file(g.out);
  std::vector<uint64_t> bits(d.size());
  std::string descr;
  if (e.dtype == AccType::s32) {
    descr = "<f8";
    for (size_t i = 0; i < d.size(); ++i)
      bits[i] = std::bit_cast<uint64_t>(static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(d[i]))));
  } else {
    descr = "<f4";  // f32 codes are their values; f16 widens exactly
    const ConvertOptions exact;
    for (size_t i = 0; i < d.size(); ++i)
      bits[i] = e.dtype == AccType::f32 ? d[i] : convert(Fmt::f16, Fmt::f32, d[i], exact).code;
  }
  check_error(io::try_write_npy(vpath, io::make_npy(descr, dshape, bits)));
  side["D"]["values_npy"] = vpath;
  side["D"]["values_type"] = descr == "<f8" ? "f64" : "f32";
}

int run_mma(const MmaArgs& g) {
  if (g.arch.empty() || g.instr.empty()) throw InputError("mma: --arch and --instr are required");
  const DeviceSpec dev = device_arg(g.device);  // before any file is read
  const InstrEntry& e = mma_entry(g);
  const Orders ord{col_order(g.order_a, "--order-a"), col_order(g.order_b, "--order-b"),
                   col_order(g.order_c, "--order-c"), col_order(g.order_d, "--order-d")};
  check_combinations(g, e);
  MmaOperands ops = read_operands(g, e, ord);
  const nlohmann::json block = select_block(g, ops);
  const MmaOptions o = mma_options(g);
  CodeVector rowmajor = compute_d(g, e, ops, o, dev);
  nlohmann::json side = side_record(g, e, ops, o, dev);
  if (!block.is_null()) side["block"] = block;
  const size_t M = ops.M, N = ops.N;
  for (Matrix* m : {&ops.A, &ops.B, &ops.C, &ops.SA, &ops.SB}) std::vector<uint64_t>().swap(m->codes);  // D alone from here on

  // D in its storage order, as codes; optionally as values.
  const ElemType acc_t = golden::elem_type(acc_format(e.dtype));
  const std::vector<size_t> dshape = ord.d ? std::vector<size_t>{N, M} : std::vector<size_t>{M, N};
  if (ord.d) {
    std::vector<uint64_t> d(M * N);
    transpose(rowmajor.values().data(), d.data(), N, M);  // d is N x M
    check_error(io::try_write_npy(g.out, io::make_npy(golden::npy_descr(acc_t), dshape, d)));
    if (g.values) write_values(g, e, d, dshape, side);
  } else {
    // Row order: the codes' bytes as they are (D's container width is the .npy item's; the
    // hosts tcemu builds on are little-endian, as .npy's '<' items).
    static_assert(std::endian::native == std::endian::little);
    io::NpyArray a{golden::npy_descr(acc_t), dshape, {}};
    if (a.item_size() != static_cast<size_t>(rowmajor.width())) throw std::logic_error("D's width is not its .npy item's");
    const auto* bytes = static_cast<const uint8_t*>(rowmajor.data());
    a.data.assign(bytes, bytes + rowmajor.bytes());
    check_error(io::try_write_npy(g.out, a));
    if (g.values) write_values(g, e, rowmajor, dshape, side);
  }
  const std::string spath = side_file(g.out);
  std::ofstream js(spath);
  js << side.dump(2) << "\n";
  if (!js) throw InputError(spath + ": cannot write");
  if (!g.quiet)
    std::cout << "D (" << M << " x " << N << ", " << acc_t.name << ") written to " << g.out << "; what was computed: "
              << spath << "\n";
  return 0;
}

}  // namespace

void add_mma_command(CLI::App& app, Runner& run) {
  auto g = std::make_shared<MmaArgs>();
  auto* c = app.add_subcommand("mma", "The whole-matrix MMA of an instruction on your operands (.npy), on every core or a CUDA GPU");
  c->add_option("--arch", g->arch, "target architecture (sm_80, sm_90a, sm_100a, sm_120a, ...)")->required();
  c->add_option("--instr", g->instr, "the instruction's PTX spelling (see `tcemu instr list`)")->required();
  c->add_option("--atype", g->atype, "A's type, where the spelling leaves it out (tcgen05)");
  c->add_option("--btype", g->btype, "B's type, where the spelling leaves it out");
  c->add_option("--dtype", g->dtype, "accumulator type f16, f32 or s32, where the spelling leaves it out");
  c->add_option("--stype", g->stype, "scale type ue8m0 or ue4m3 (block-scaled kinds)");
  c->add_option("A", g->a, "A.npy: M x K (row order; --order-a col: stored K x M)")->required();
  c->add_option("B", g->b, "B.npy: K x N (col order by default: stored N x K; --order-b row: K x N)")->required();
  c->add_option("C", g->c, "C.npy: M x N accumulator codes (without it: D = A*B, as --no-scale-d)");
  c->add_option("--scale-a", g->scale_a, "block-scaled kinds: scale_A.npy, M x K/block scale codes");
  c->add_option("--scale-b", g->scale_b, "block-scaled kinds: scale_B.npy, N x K/block scale codes");
  c->add_option("-o,--output", g->out, "D.npy to write (codes; a JSON side file D.json says what was computed)")
      ->required();
  c->add_option("--order-a", g->order_a, "storage order of A: row or col")->capture_default_str();
  c->add_option("--order-b", g->order_b,
                 "storage order of B: col (stored N x K) or row (stored K x N, NumPy's a @ b); required for a "
                 "square B")
      ->capture_default_str();
  c->add_option("--order-c", g->order_c, "storage order of C: row or col")->capture_default_str();
  c->add_option("--order-d", g->order_d, "storage order of D: row or col")->capture_default_str();
  c->add_option("--promote-every", g->promote_every, "FP32 promotion every N instructions along K (0 = off)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  c->add_flag("--negate-a", g->negate_a, "wgmma imm-scale-a = -1");
  c->add_flag("--negate-b", g->negate_b, "wgmma imm-scale-b = -1");
  c->add_flag("--no-scale-d", g->no_scale_d, "scale-d / enable-input-d false: D = A*B");
  c->add_option("--scale-input-d", g->scale_input_d, "tcgen05 scale-input-d s in 0..15 (D = A*B + C*2^-s)");
  c->add_flag("--from-values", g->from_values,
              "A and B hold f32 (<f4), f16 (<f2) or bf16 (<u2 bit patterns) values, converted to the operand "
              "types first (C and scales stay codes)");
  c->add_option("--convention", g->convention, "--from-values: the conversion's convention (`tcemu convert --list`)")
      ->capture_default_str();
  c->add_option("--round", g->round, "--from-values: rounding rn, rna, rz, rd, ru (default: the convention's)");
  c->add_flag("--values", g->values, "also write D's values (f32; f64 for s32) to D.values.npy");
  c->add_option("--device", g->device, kDeviceHelp)->capture_default_str();
  c->add_option("--rows", g->rows, "only D's rows R0:R1 (0-based, R1 excluded; an end may be left out): one block of D")
      ->type_name("R0:R1");
  c->add_option("--cols", g->cols, "only D's columns C0:C1 (as --rows); with --rows, the block of D that any scheduler "
                "can hand to one job")->type_name("C0:C1");
  c->add_flag("-q,--quiet", g->quiet, "no progress bar, no summary line");
  c->callback([&run, g, c] {
    g->order_b_given = c->count("--order-b") > 0;
    run = [g] { return run_mma(*g); };
  });
}

}  // namespace tcemu::cli
