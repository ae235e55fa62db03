// Reading golden files: every check names the field it is about, as a JSON path
// ("golden.json: cases[1].operands.A.hex: ..."), so a user sees what to fix.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "tcemu/catalog_suggest.hpp"
#include "tcemu_golden/evaluate.hpp"
#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/instr_tile.hpp"
#include "tcemu_golden/npy.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::golden {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw GoldenError(where + ": " + msg); }

void only_keys(const json& obj, const std::string& where, std::initializer_list<std::string_view> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || it.key() == a;
    if (!ok) fail(where + "." + it.key(), "unknown field");
  }
}

const json& need(const json& obj, const std::string& key, const std::string& where) {
  if (!obj.is_object()) fail(where, "must be an object");
  auto it = obj.find(key);
  if (it == obj.end()) fail(where + "." + key, "missing");
  return *it;
}

std::string need_string(const json& obj, const std::string& key, const std::string& where) {
  const json& v = need(obj, key, where);
  if (!v.is_string()) fail(where + "." + key, "must be a string");
  return v.get<std::string>();
}

int64_t get_int(const json& v, const std::string& where) {
  if (!v.is_number_integer()) fail(where, "must be an integer");
  return v.get<int64_t>();
}

bool get_bool(const json& v, const std::string& where) {
  if (!v.is_boolean()) fail(where, "must be true or false");
  return v.get<bool>();
}

int positive(const json& obj, const std::string& key, const std::string& where) {
  const int64_t v = get_int(need(obj, key, where), where + "." + key);
  if (v < 1 || v > (int64_t{1} << 30)) fail(where + "." + key, "must be a positive integer");
  return static_cast<int>(v);
}

Fmt need_format(const json& obj, const std::string& key, const std::string& where) {
  const std::string s = need_string(obj, key, where);
  for (const FormatInfo& fi : kFormats)
    if (fi.name == s) return fi.id;
  fail(where + "." + key, "unknown format '" + s + "'");
}

std::optional<Fmt> opt_format(const json& obj, const std::string& key, const std::string& where) {
  if (!obj.contains(key)) return std::nullopt;
  return need_format(obj, key, where);
}

constexpr int64_t kMaxDim = int64_t{1} << 31;
constexpr size_t kMaxElements = size_t{1} << 40;

int hex_value(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// The "shape", "order" and "ld" of an array into a.
void read_layout(Array& a, const json& j, const std::string& where) {
  const json& shape = need(j, "shape", where);
  if (!shape.is_array() || shape.empty() || shape.size() > 2) fail(where + ".shape", "must be [n] or [rows, cols]");
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t v = get_int(shape[i], where + ".shape[" + std::to_string(i) + "]");
    if (v < 1 || v > kMaxDim)
      fail(where + ".shape[" + std::to_string(i) + "]", std::to_string(v) + " is not a positive size of at most 2^31");
  }
  a.rows = shape[0].get<size_t>();
  a.is_vector = shape.size() == 1;
  a.cols = a.is_vector ? 1 : shape[1].get<size_t>();
  if (j.contains("order")) {
    if (a.is_vector) fail(where + ".order", "a vector has no order");
    const std::string o = need_string(j, "order", where);
    if (o != "row" && o != "col") fail(where + ".order", "must be \"row\" or \"col\", not '" + o + "'");
    a.col_major = o == "col";
  }
  if (j.contains("ld")) {
    if (a.is_vector) fail(where + ".ld", "a vector has no leading dimension");
    const int64_t ld = get_int(j["ld"], where + ".ld");
    const size_t contiguous = a.col_major ? a.rows : a.cols;
    if (ld < 0 || static_cast<size_t>(ld) < contiguous)
      fail(where + ".ld", std::to_string(ld) + " is smaller than the " + (a.col_major ? "rows" : "columns") + " (" +
                              std::to_string(contiguous) + ")");
    if (ld > kMaxDim) fail(where + ".ld", std::to_string(ld) + " is larger than 2^31");
    a.ld = static_cast<size_t>(ld);
  }
}

// "hex": n codes of a.type, hex_digits each, into a.raw.
void read_hex_codes(Array& a, const json& j, const std::string& where, size_t n) {
  const size_t bytes = static_cast<size_t>(a.type.bytes);
  const json& h = j["hex"];
  if (!h.is_string()) fail(where + ".hex", "must be a string");
  const std::string& s = h.get_ref<const std::string&>();
  const size_t w = static_cast<size_t>(a.type.hex_digits);
  if (s.size() != n * w)
    fail(where + ".hex", std::to_string(s.size()) + " hex digits, expected " + std::to_string(n * w) + " (" +
                             std::to_string(n) + " " + a.type.name + " codes of " + std::to_string(w) + " digits)");
  a.raw.assign(n * bytes, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    for (size_t k = 0; k < w; ++k) {
      const int d = hex_value(s[i * w + k]);
      if (d < 0) fail(where + ".hex", "character " + std::to_string(i * w + k) + " is not a hex digit");
      v = (v << 4) | static_cast<uint64_t>(d);
    }
    if (!code_in_range(a.type, v))
      fail(where + ".hex", "code " + std::to_string(i) + " (0x" + s.substr(i * w, w) + ") is out of range for " +
                               a.type.name);
    std::memcpy(a.raw.data() + i * bytes, &v, bytes);
  }
}

// "npy": a file next to the golden file, n codes of a.type, into a.raw.
void read_npy_codes(Array& a, const json& j, const std::string& where, const std::string& dir, size_t n) {
  const size_t bytes = static_cast<size_t>(a.type.bytes);
  const json& p = j["npy"];
  if (!p.is_string()) fail(where + ".npy", "must be a file name");
  a.npy = p.get<std::string>();
  io::NpyArray arr;
  try {
    arr = io::read_npy((std::filesystem::path(dir) / a.npy).string());
  } catch (const io::NpyError& e) {
    fail(where + ".npy", e.what());
  }
  if (arr.item_size() != bytes)
    fail(where + ".npy", "dtype '" + arr.descr + "' has " + std::to_string(arr.item_size()) + "-byte items; " +
                             a.type.name + " needs " + std::to_string(bytes));
  if (arr.count() != n)
    fail(where + ".npy", "holds " + std::to_string(arr.count()) + " elements, the shape and ld need " + std::to_string(n));
  a.raw = std::move(arr.data);
  if (a.type.bits < 8 * a.type.bytes)  // full-width types hold only valid codes
    for (size_t i = 0; i < n; ++i)
      if (!code_in_range(a.type, a.at_storage(i)))
        fail(where + ".npy", "element " + std::to_string(i) + " is out of range for " + a.type.name);
}

// An array: {"type", "shape", "order", "ld", "hex" | "npy"}.
Array read_array(const json& j, const std::string& where, const std::string& dir) {
  if (!j.is_object()) fail(where, "must be an object");
  only_keys(j, where, {"type", "shape", "order", "ld", "hex", "npy"});
  const std::string tname = need_string(j, "type", where);
  std::optional<ElemType> t = parse_elem_type(tname);
  if (!t) fail(where + ".type", "unknown element type '" + tname + "'");
  Array a;
  a.type = *t;
  read_layout(a, j, where);
  // Both factors are at most 2^31, so the product cannot wrap; the cap keeps hex digits and
  // bytes (x 16 at most) in range and refuses arrays no golden file holds.
  const size_t n = a.storage_count();
  if (n > kMaxElements)
    fail(where, "the shape and ld need " + std::to_string(n) + " elements in storage, more than 2^40");
  const bool has_hex = j.contains("hex"), has_npy = j.contains("npy");
  if (has_hex == has_npy) fail(where, "needs exactly one of \"hex\" and \"npy\"");
  if (has_hex) read_hex_codes(a, j, where, n);
  else read_npy_codes(a, j, where, dir, n);
  return a;
}

void check_matrix(const Array& a, const std::string& where, const ElemType& t, size_t rows, size_t cols,
                  const std::string& what) {
  if (!(a.type == t)) fail(where + ".type", "is " + a.type.name + "; " + what + " needs " + t.name);
  if (a.is_vector || a.rows != rows || a.cols != cols)
    fail(where + ".shape", "is [" + std::to_string(a.rows) + (a.is_vector ? "" : ", " + std::to_string(a.cols)) +
                               "]; " + what + " is " + std::to_string(rows) + " x " + std::to_string(cols));
}

void check_vector(const Array& a, const std::string& where, const ElemType& t, size_t n, size_t cols,
                  const std::string& what) {
  if (!(a.type == t)) fail(where + ".type", "is " + a.type.name + "; " + what + " needs " + t.name);
  const bool want_vector = cols == 1;
  if (a.rows != n || a.cols != cols || a.is_vector != want_vector)
    fail(where + ".shape", "must be [" + std::to_string(n) + (want_vector ? "" : ", " + std::to_string(cols)) + "] for " + what);
}

MmaOptions read_mma_options(const json& j, const std::string& where) {
  MmaOptions o;
  if (!j.is_object()) fail(where, "must be an object");
  only_keys(j, where, {"promote_every", "negate_a", "negate_b", "scale_d", "scale_input_d"});
  if (j.contains("promote_every")) {
    const int64_t v = get_int(j["promote_every"], where + ".promote_every");
    if (v < 0 || v > 1 << 20) fail(where + ".promote_every", "must be 0 (off) or a positive count of instructions");
    o.promote_every = static_cast<int>(v);
  }
  if (j.contains("negate_a")) o.negate_a = get_bool(j["negate_a"], where + ".negate_a");
  if (j.contains("negate_b")) o.negate_b = get_bool(j["negate_b"], where + ".negate_b");
  if (j.contains("scale_d")) o.scale_d = get_bool(j["scale_d"], where + ".scale_d");
  if (j.contains("scale_input_d")) {
    const int64_t v = get_int(j["scale_input_d"], where + ".scale_input_d");
    if (v < -1 || v > 15) fail(where + ".scale_input_d", "must be -1 (off) or 0..15");
    o.scale_input_d = static_cast<int>(v);
  }
  return o;
}

// "instruction" and "shape" of an mma or gemm case into c.mma (the options stay default).
void read_instruction(Case& c, const json& j, const std::string& w) {
  const json& ins = need(j, "instruction", w);
  const std::string wi = w + ".instruction";
  if (!ins.is_object()) fail(wi, "must be an object");
  only_keys(ins, wi, {"arch", "ptx", "atype", "btype", "dtype", "stype", "tile"});
  MmaSpec& m = c.mma;
  m.arch = need_string(ins, "arch", wi);
  m.ptx = need_string(ins, "ptx", wi);
  m.atype = opt_format(ins, "atype", wi);
  m.btype = opt_format(ins, "btype", wi);
  m.stype = opt_format(ins, "stype", wi);
  if (ins.contains("dtype")) {
    const std::string d = need_string(ins, "dtype", wi);
    m.dtype = parse_acc_type(d);
    if (!m.dtype) fail(wi + ".dtype", "must be f16, f32 or s32, not '" + d + "'");
  }
  InstrLookup lk = find_instruction(m.arch, m.ptx, m.atype, m.btype, m.dtype, m.stype);
  if (!lk.entry) fail(wi, lookup_error_with_suggestions(lk, m.arch, m.ptx));
  m.entry = lk.entry;
  const InstrEntry& e = *m.entry;
  InstrTile tile = default_tile(e);
  if (ins.contains("tile")) {
    const json& t = ins["tile"];
    if (!t.is_array() || t.size() != 2) fail(wi + ".tile", "must be [M, N] of one instruction");
    tile.m = static_cast<int>(get_int(t[0], wi + ".tile[0]"));
    tile.n = static_cast<int>(get_int(t[1], wi + ".tile[1]"));
    if (std::string err = check_tile(e, tile); !err.empty()) fail(wi + ".tile", err);
  }
  m.tile_m = tile.m;
  m.tile_n = tile.n;
  const json& sh = need(j, "shape", w);
  const std::string ws = w + ".shape";
  if (!sh.is_object()) fail(ws, "must be an object {M, N, K}");
  only_keys(sh, ws, {"M", "N", "K"});
  m.M = positive(sh, "M", ws);
  m.N = positive(sh, "N", ws);
  m.K = positive(sh, "K", ws);
  if (m.K % e.K != 0)
    fail(ws + ".K", std::to_string(m.K) + " does not tile into the instruction's K = " + std::to_string(e.K));
  if (m.M % tile.m != 0)
    fail(ws + ".M", std::to_string(m.M) + " does not tile into the instruction's M = " + std::to_string(tile.m));
  if (m.N % tile.n != 0)
    fail(ws + ".N", std::to_string(m.N) + " does not tile into the instruction's N = " + std::to_string(tile.n));
}

// A matrix operand `name` of ops into c.operands, checked against its type and shape.
void read_matrix(Case& c, const json& ops, const std::string& wo, const std::string& dir, const std::string& name,
                 const ElemType& t, size_t rows, size_t cols, const std::string& what) {
  Array a = read_array(need(ops, name, wo), wo + "." + name, dir);
  check_matrix(a, wo + "." + name, t, rows, cols, what);
  c.operands[name] = std::move(a);
}

// A, B and (block-scaled kinds) scale_A, scale_B of an mma or gemm case.
void read_ab_operands(Case& c, const json& ops, const std::string& wo, const std::string& dir) {
  const MmaSpec& m = c.mma;
  const InstrEntry& e = *m.entry;
  const size_t M = static_cast<size_t>(m.M), N = static_cast<size_t>(m.N), K = static_cast<size_t>(m.K);
  read_matrix(c, ops, wo, dir, "A", elem_type(e.atype), M, K, "A (M x K)");
  read_matrix(c, ops, wo, dir, "B", elem_type(e.btype), K, N, "B (K x N)");
  if (e.scale_type) {
    const std::string what = e.ptx + " (" + std::string(info(*e.scale_type).name) + " scales per " +
                             std::to_string(e.scale_block) + " elements of K)";
    for (const char* s : {"scale_A", "scale_B"})
      if (!ops.contains(s)) fail(wo + "." + s, std::string("missing: ") + what + " needs block scales");
    const size_t nb = K / static_cast<size_t>(e.scale_block);
    read_matrix(c, ops, wo, dir, "scale_A", elem_type(*e.scale_type), M, nb, "scale_A (M x K/" + std::to_string(e.scale_block) + ")");
    read_matrix(c, ops, wo, dir, "scale_B", elem_type(*e.scale_type), N, nb, "scale_B (N x K/" + std::to_string(e.scale_block) + ")");
  } else {
    for (const char* s : {"scale_A", "scale_B"})
      if (ops.contains(s)) fail(wo + "." + s, "the instruction takes no block scales");
  }
}

// The expected D (M x N of type t) of an mma or gemm case.
void read_expected_d(Case& c, const json& j, const std::string& w, const std::string& dir, const ElemType& t) {
  const json& ex = need(j, "expected", w);
  if (!ex.is_object()) fail(w + ".expected", "must be an object");
  only_keys(ex, w + ".expected", {"D"});
  c.expected = read_array(need(ex, "D", w + ".expected"), w + ".expected.D", dir);
  check_matrix(c.expected, w + ".expected.D", t, static_cast<size_t>(c.mma.M), static_cast<size_t>(c.mma.N), "D (M x N)");
}

void read_mma(Case& c, const json& j, const std::string& w, const std::string& dir) {
  only_keys(j, w, {"name", "op", "instruction", "shape", "options", "operands", "expected", "provenance", "note"});
  read_instruction(c, j, w);
  MmaSpec& m = c.mma;
  const InstrEntry& e = *m.entry;
  if (j.contains("options")) m.options = read_mma_options(j["options"], w + ".options");
  if (m.options.promote_every > 0 && e.dtype != AccType::f32)
    fail(w + ".options.promote_every", "FP32 promotion needs an f32 accumulator");
  const json& ops = need(j, "operands", w);
  const std::string wo = w + ".operands";
  if (!ops.is_object()) fail(wo, "must be an object");
  only_keys(ops, wo, {"A", "B", "C", "scale_A", "scale_B"});
  const ElemType acc = elem_type(acc_format(e.dtype));
  read_ab_operands(c, ops, wo, dir);
  if (ops.contains("C") || m.options.scale_d)
    read_matrix(c, ops, wo, dir, "C", acc, static_cast<size_t>(m.M), static_cast<size_t>(m.N), "C (M x N)");
  read_expected_d(c, j, w, dir, acc);
}

// An f32 scalar of the epilogue ("0x" and 8 hex digits).
uint32_t need_f32_hex(const json& obj, const std::string& key, const std::string& where) {
  const std::string s = need_string(obj, key, where);
  const std::optional<uint32_t> v = parse_f32_hex(s);
  if (!v) fail(where + "." + key, "must be f32 bits as \"0x\" and 8 hex digits, not '" + s + "'");
  return *v;
}

// The field a message of check_plan() is about (it starts with the field's name).
std::string plan_field(const std::string& msg, const std::string& w) {
  for (const char* k : {"a_scale", "b_scale", "bias"})
    if (msg.rfind(k, 0) == 0) return w + ".operands." + k;
  for (const char* k : {"out_type", "out_round"})
    if (msg.rfind(k, 0) == 0) return w + ".epilogue." + k;
  if (msg.rfind("chunks", 0) == 0) return w + ".plan.chunks";
  if (msg.rfind("epilogue", 0) == 0) return w + ".epilogue.order";
  return w + ".plan";
}

void read_gemm(Case& c, const json& j, const std::string& w, const std::string& dir) {
  only_keys(j, w, {"name", "op", "instruction", "shape", "plan", "epilogue", "operands", "expected", "provenance", "note"});
  read_instruction(c, j, w);
  const MmaSpec& m = c.mma;
  const InstrEntry& e = *m.entry;
  GemmSpec& g = c.gemm;
  GemmPlan& plan = g.plan;
  const std::string wp = w + ".plan", we = w + ".epilogue", wo = w + ".operands";
  // The K schedule.
  const json& pj = need(j, "plan", w);
  if (!pj.is_object()) fail(wp, "must be an object");
  only_keys(pj, wp, {"schedule", "chunks", "combine", "preset", "split_k", "grain", "promote_every", "negate_a", "negate_b"});
  json opts = json::object();
  for (const char* k : {"promote_every", "negate_a", "negate_b"})
    if (pj.contains(k)) opts[k] = pj[k];
  plan.mma = read_mma_options(opts, wp);
  c.mma.options = plan.mma;
  if (plan.mma.promote_every > 0 && e.dtype != AccType::f32)
    fail(wp + ".promote_every", "FP32 promotion needs an f32 accumulator");
  const std::string schedule = need_string(pj, "schedule", wp);
  if (schedule != "chain" && schedule != "split")
    fail(wp + ".schedule", "must be \"chain\" (one chain over K) or \"split\" (chunks, combined), not '" + schedule + "'");
  const bool split = schedule == "split";
  if (split) {
    const json& ch = need(pj, "chunks", wp);
    if (!ch.is_array() || ch.empty()) fail(wp + ".chunks", "must be a non-empty array of K sizes");
    if (ch.size() > static_cast<size_t>(kMaxSplits))
      fail(wp + ".chunks", std::to_string(ch.size()) + " chunks; at most " + std::to_string(kMaxSplits));
    for (size_t i = 0; i < ch.size(); ++i) {
      const int64_t v = get_int(ch[i], wp + ".chunks[" + std::to_string(i) + "]");
      if (v < 0 || v > (int64_t{1} << 30)) fail(wp + ".chunks[" + std::to_string(i) + "]", "must be a K size (0 .. 2^30)");
      plan.chunks.push_back(static_cast<int>(v));
    }
    const std::string comb = need_string(pj, "combine", wp);
    const std::optional<Combine> cb = parse_combine(comb);
    if (!cb) fail(wp + ".combine", "unknown combine '" + comb + "' (f32-forward, f32-tree, cutlass-serial, cutlass-parallel)");
    plan.combine = *cb;
  } else {
    for (const char* k : {"chunks", "combine", "split_k", "grain"})
      if (pj.contains(k)) fail(wp + "." + k, "one chain over K (schedule \"chain\") has no " + std::string(k));
  }
  if (pj.contains("preset")) g.preset = need_string(pj, "preset", wp);
  if (pj.contains("split_k")) g.split_k = positive(pj, "split_k", wp);
  if (pj.contains("grain")) g.grain = positive(pj, "grain", wp);
  // The epilogue's scalars.
  const json& ej = need(j, "epilogue", w);
  if (!ej.is_object()) fail(we, "must be an object");
  only_keys(ej, we, {"order", "alpha", "beta", "out_type", "out_round", "satfinite"});
  Epilogue& ep = plan.epilogue;
  const std::string order = need_string(ej, "order", we);
  const std::optional<EpilogueOrder> eo = parse_epilogue_order(order);
  if (!eo) fail(we + ".order", "unknown epilogue order '" + order + "' (fold, cutlass-sm90, cutlass-2x, sequential)");
  ep.order = *eo;
  ep.alpha = need_f32_hex(ej, "alpha", we);
  ep.beta = need_f32_hex(ej, "beta", we);
  ep.out_type = need_format(ej, "out_type", we);
  const std::string rs = need_string(ej, "out_round", we);
  const std::optional<Round> rd = parse_round(rs);
  if (!rd) fail(we + ".out_round", "unknown rounding '" + rs + "'");
  ep.out_round = *rd;
  ep.satfinite = get_bool(need(ej, "satfinite", we), we + ".satfinite");
  // What the preset and split count give must be what the file says.
  if (g.preset || g.split_k) {
    PlanRequest req;
    req.plan = g.preset;
    req.split_k = g.split_k;
    req.grain = g.grain;
    if (split && !g.split_k) req.chunks = plan.chunks;
    req.epilogue = std::string(to_string(ep.order));
    GemmPlan r;
    if (const std::string err = resolve_plan(e, m.K, req, r); !err.empty()) fail(wp, err);
    auto list = [](const std::vector<int>& v) {
      std::string s;
      for (int x : v) s.append(s.empty() ? "" : ", ").append(std::to_string(x));
      return "[" + s + "]";
    };
    if (g.split_k && r.chunks != plan.chunks)
      fail(wp + ".chunks", list(plan.chunks) + ", but split_k = " + std::to_string(*g.split_k) + " of K = " +
                               std::to_string(m.K) + " gives " + list(r.chunks));
    if (g.preset && split && r.combine != plan.combine)
      fail(wp + ".combine", std::string(to_string(plan.combine)) + ", but plan " + *g.preset + " combines " +
                                std::string(to_string(r.combine)));
  }
  // The operands.
  const json& ops = need(j, "operands", w);
  if (!ops.is_object()) fail(wo, "must be an object");
  only_keys(ops, wo, {"A", "B", "C", "scale_A", "scale_B", "a_scale", "b_scale", "bias"});
  read_ab_operands(c, ops, wo, dir);
  const size_t M = static_cast<size_t>(m.M), N = static_cast<size_t>(m.N);
  const bool reads_c = (ep.beta & 0x7FFFFFFFu) != 0;
  if (reads_c) {
    if (!ops.contains("C")) fail(wo + ".C", "missing: beta = " + f32_hex(ep.beta) + " reads C (M x N f32)");
    read_matrix(c, ops, wo, dir, "C", elem_type(Fmt::f32), M, N, "C (M x N, f32 codes)");
  } else if (ops.contains("C")) {
    fail(wo + ".C", "beta is zero: the epilogue does not read C, leave it out");
  }
  for (const char* k : {"a_scale", "b_scale", "bias"}) {
    if (!ops.contains(k)) continue;
    Array v = read_array(ops[k], wo + "." + k, dir);
    if (!(v.type == elem_type(Fmt::f32))) fail(wo + "." + k + ".type", "is " + v.type.name + "; " + k + " holds f32 codes");
    if (!v.is_vector) fail(wo + "." + k + ".shape", "must be [n] (a vector)");
    c.operands[k] = std::move(v);
  }
  // Everything else gemm() checks (chunk sums and multiples, vector lengths, output type, ...).
  const MmaInputs in = mma_inputs(c);
  if (const std::string err = check_plan(e, in.problem(c), gemm_plan(c)); !err.empty()) fail(plan_field(err, w), err);
  read_expected_d(c, j, w, dir, elem_type(ep.out_type));
}

OptionRequest read_request(const json& j, const std::string& where) {
  OptionRequest r;
  if (!j.is_object()) fail(where, "must be an object");
  only_keys(j, where, {"round", "satfinite", "relu", "ftz"});
  if (j.contains("round")) {
    const std::string s = need_string(j, "round", where);
    r.round = parse_round(s);
    if (!r.round) fail(where + ".round", "unknown rounding '" + s + "'");
  }
  if (j.contains("satfinite")) r.satfinite = get_bool(j["satfinite"], where + ".satfinite");
  if (j.contains("relu")) r.relu = get_bool(j["relu"], where + ".relu");
  if (j.contains("ftz")) r.ftz = get_bool(j["ftz"], where + ".ftz");
  return r;
}

void read_convert(Case& c, const json& j, const std::string& w, const std::string& dir) {
  only_keys(j, w, {"name", "op", "conversion", "operands", "expected", "provenance", "note"});
  const json& cv = need(j, "conversion", w);
  const std::string wc = w + ".conversion";
  if (!cv.is_object()) fail(wc, "must be an object");
  only_keys(cv, wc, {"from", "to", "convention", "options"});
  ConvertSpec& s = c.conv;
  s.from = need_format(cv, "from", wc);
  s.to = need_format(cv, "to", wc);
  s.convention = need_string(cv, "convention", wc);
  if (!find_convention(s.convention)) fail(wc + ".convention", "unknown convention '" + s.convention + "'");
  if (cv.contains("options")) s.request = read_request(cv["options"], wc + ".options");
  Resolved r = resolve(s.convention, s.from, s.to, s.request);
  if (!r.options) fail(wc, r.error);
  s.options = *r.options;
  const json& ops = need(j, "operands", w);
  const std::string wo = w + ".operands";
  if (!ops.is_object()) fail(wo, "must be an object");
  only_keys(ops, wo, {"x", "rbits"});
  Array x = read_array(need(ops, "x", wo), wo + ".x", dir);
  if (!x.is_vector) fail(wo + ".x.shape", "must be [n]");
  check_vector(x, wo + ".x", elem_type(s.from), x.rows, 1, "x");
  const size_t n = x.rows;
  c.operands["x"] = std::move(x);
  if (s.options.round == Round::rs) {
    Array rb = read_array(need(ops, "rbits", wo), wo + ".rbits", dir);
    check_vector(rb, wo + ".rbits", bits_type(32), n, 1, "the random bits of stochastic rounding");
    c.operands["rbits"] = std::move(rb);
  } else if (ops.contains("rbits")) {
    fail(wo + ".rbits", "only stochastic rounding (rs) takes random bits");
  }
  const json& ex = need(j, "expected", w);
  if (!ex.is_object()) fail(w + ".expected", "must be an object");
  only_keys(ex, w + ".expected", {"y"});
  c.expected = read_array(need(ex, "y", w + ".expected"), w + ".expected.y", dir);
  check_vector(c.expected, w + ".expected.y", elem_type(s.to), n, 1, "y");
  c.expected_name.assign(1, 'y');
}

void read_cvt(Case& c, const json& j, const std::string& w, const std::string& dir) {
  only_keys(j, w, {"name", "op", "instruction", "operands", "expected", "provenance", "note"});
  const json& ins = need(j, "instruction", w);
  const std::string wi = w + ".instruction";
  if (!ins.is_object()) fail(wi, "must be an object");
  only_keys(ins, wi, {"ptx", "rs_map"});
  CvtSpec& s = c.cvt;
  s.ptx = need_string(ins, "ptx", wi);
  Result<PtxCvt> p = parse_ptx_cvt(s.ptx);
  if (!p.ok()) fail(wi + ".ptx", p.error);
  s.parsed = p.value;
  if (ins.contains("rs_map")) {
    const std::string m = need_string(ins, "rs_map", wi);
    if (m == "ptx_doc") s.rs_map = RsBitMap::ptx_doc;
    else if (m == "flashinfer_hw") s.rs_map = RsBitMap::flashinfer_hw;
    else fail(wi + ".rs_map", "must be ptx_doc or flashinfer_hw, not '" + m + "'");
  }
  const json& ops = need(j, "operands", w);
  const std::string wo = w + ".operands";
  if (!ops.is_object()) fail(wo, "must be an object");
  only_keys(ops, wo, {"src", "rbits"});
  Array src = read_array(need(ops, "src", wo), wo + ".src", dir);
  const int regs = s.parsed.src_packed ? 1 : s.parsed.src_count;
  if (src.is_vector) fail(wo + ".src.shape", "must be [n, " + std::to_string(regs) + "] (source registers in PTX operand order)");
  const size_t n = src.rows;
  check_matrix(src, wo + ".src", bits_type(ptx_cvt_src_bits(s.parsed)), n, static_cast<size_t>(regs),
               "the source registers of " + s.ptx + " [n, registers]");
  c.operands["src"] = std::move(src);
  if (s.parsed.has_rbits) {
    Array rb = read_array(need(ops, "rbits", wo), wo + ".rbits", dir);
    check_vector(rb, wo + ".rbits", bits_type(32), n, 1, "the random-bit register");
    c.operands["rbits"] = std::move(rb);
  } else if (ops.contains("rbits")) {
    fail(wo + ".rbits", s.ptx + " takes no random bits");
  }
  const json& ex = need(j, "expected", w);
  if (!ex.is_object()) fail(w + ".expected", "must be an object");
  only_keys(ex, w + ".expected", {"d"});
  c.expected = read_array(need(ex, "d", w + ".expected"), w + ".expected.d", dir);
  check_vector(c.expected, w + ".expected.d", bits_type(ptx_cvt_dst_bits(s.parsed)), n, 1, "the destination register");
  c.expected_name.assign(1, 'd');
}

void read_quantize(Case& c, const json& j, const std::string& w, const std::string& dir) {
  only_keys(j, w, {"name", "op", "recipe", "operands", "expected", "provenance", "note"});
  const quant::Recipe recipe = parse_recipe_json(need(j, "recipe", w), w + ".recipe");
  c.quant.recipe = recipe;
  const json& ops = need(j, "operands", w);
  const std::string wo = w + ".operands";
  if (!ops.is_object()) fail(wo, "must be an object");
  only_keys(ops, wo, {"x", "rbits"});
  Array x = read_array(need(ops, "x", wo), wo + ".x", dir);
  if (x.type.name != "f32" && x.type.name != "f16" && x.type.name != "bf16")
    fail(wo + ".x.type", "is " + x.type.name + "; a quantize input is f32, f16 or bf16");
  if (x.is_vector) fail(wo + ".x.shape", "must be [rows, cols]");
  const size_t rows = x.rows, cols = x.cols;
  c.quant.rows = rows;
  c.quant.cols = cols;
  c.quant.recipe.input = *x.type.fmt;  // the recipe's upstream kernel depends on x's format
  c.operands["x"] = std::move(x);
  const QuantShapes s = quant_shapes(recipe, rows, cols, w + ".recipe");
  check_recipe_upstream(j["recipe"], c.quant.recipe, w + ".recipe");
  const std::string dims = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  if (s.rbits_rows) {
    if (!ops.contains("rbits"))
      fail(wo + ".rbits", "missing: stochastic rounding of recipe '" + recipe.name + "' needs random words");
    Array rb = read_array(ops["rbits"], wo + ".rbits", dir);
    check_matrix(rb, wo + ".rbits", bits_type(32), s.rbits_rows, s.rbits_cols,
                 s.rbits_cols == cols ? "one random word per element of x " + dims
                                      : "one random word per 4 elements of a row of x " + dims);
    c.operands["rbits"] = std::move(rb);
  } else if (ops.contains("rbits")) {
    fail(wo + ".rbits", "only stochastic rounding (round rs) takes random bits");
  }
  const json& ex = need(j, "expected", w);
  const std::string we = w + ".expected";
  if (!ex.is_object()) fail(we, "must be an object");
  if (s.global) only_keys(ex, we, {"codes", "scales", "global"});
  else if (ex.contains("global")) fail(we + ".global", "only NVFP4 recipes with a per-tensor scale have a global (not MX, FP8 or a one-level torchao order)");
  else only_keys(ex, we, {"codes", "scales"});
  c.expected = read_array(need(ex, "codes", we), we + ".codes", dir);
  check_matrix(c.expected, we + ".codes", s.codes, rows, cols, "the element codes (the shape of x)");
  c.expected_name = "codes";
  Array sc = read_array(need(ex, "scales", we), we + ".scales", dir);
  check_matrix(sc, we + ".scales", s.scales, s.scale_rows, s.scale_cols,
               "the scales of recipe '" + recipe.name + "' on x " + dims);
  c.extra_expected["scales"] = std::move(sc);
  if (s.global) {
    Array g = read_array(need(ex, "global", we), we + ".global", dir);
    check_vector(g, we + ".global", elem_type(Fmt::f32), s.global_rows, 1,
                 s.global_rows == 1 ? "the NVFP4 per-tensor scale" : "the S_enc of each row (row-scaled NVFP4)");
    c.extra_expected["global"] = std::move(g);
  }
}

Provenance read_provenance(const json& j, const std::string& w) {
  Provenance p;
  if (!j.is_object()) fail(w, "must be an object");
  p.source = need_string(j, "source", w);
  p.fields = j;
  if (p.source == "tcemu") {
    need_string(j, "tcemu_version", w);
    need(j, "model", w);
    const json& seed = need(j, "seed", w);
    if (!seed.is_number_unsigned() && !seed.is_number_integer()) fail(w + ".seed", "must be an integer");
    need(j, "generator", w);
  } else if (p.source == "hardware") {
    for (const char* k : {"gpu", "driver", "cuda", "date"}) need_string(j, k, w);
  } else {
    fail(w + ".source", "must be \"tcemu\" or \"hardware\", not '" + p.source + "'");
  }
  return p;
}

}  // namespace

GoldenFile parse_golden(const json& doc, const std::string& dir, const std::string& where) {
  if (!doc.is_object()) fail(where, "the document must be a JSON object");
  only_keys(doc, where, {"format", "version", "description", "cases"});
  if (need_string(doc, "format", where) != kFormatName)
    fail(where + ".format", "must be \"" + std::string(kFormatName) + "\"");
  const int64_t v = get_int(need(doc, "version", where), where + ".version");
  if (v != kFormatVersion)
    fail(where + ".version", "unknown version " + std::to_string(v) + " (this tcemu reads version " +
                                 std::to_string(kFormatVersion) + ")");
  GoldenFile f;
  f.version = static_cast<int>(v);
  if (doc.contains("description")) f.description = need_string(doc, "description", where);
  const json& cases = need(doc, "cases", where);
  if (!cases.is_array() || cases.empty()) fail(where + ".cases", "must be a non-empty array");
  std::set<std::string> names;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string w = where + ".cases[" + std::to_string(i) + "]";
    const json& j = cases[i];
    Case c;
    c.name = need_string(j, "name", w);
    if (!names.insert(c.name).second) fail(w + ".name", "duplicate case name '" + c.name + "'");
    const std::string op = need_string(j, "op", w);
    if (op == "mma") {
      c.op = OpKind::mma;
      read_mma(c, j, w, dir);
    } else if (op == "convert") {
      c.op = OpKind::convert;
      read_convert(c, j, w, dir);
    } else if (op == "cvt") {
      c.op = OpKind::cvt;
      read_cvt(c, j, w, dir);
    } else if (op == "quantize") {
      c.op = OpKind::quantize;
      read_quantize(c, j, w, dir);
    } else if (op == "gemm") {
      c.op = OpKind::gemm;
      read_gemm(c, j, w, dir);
    } else {
      fail(w + ".op", "must be mma, convert or cvt (an instruction or conversion), quantize (a recipe) or gemm (a library GEMM), not '" + op + "'");
    }
    c.provenance = read_provenance(need(j, "provenance", w), w + ".provenance");
    if (j.contains("note")) c.note = need_string(j, "note", w);
    f.cases.push_back(std::move(c));
  }
  return f;
}

GoldenFile read_golden(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw GoldenError(path + ": cannot open");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw GoldenError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_golden(doc, dir.empty() ? "." : dir, path);
}

}  // namespace tcemu::golden
