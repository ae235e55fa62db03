// Writing golden files. The document is deterministic (keys sorted, no timestamps in
// generated provenance), so one seed gives one file byte for byte.
#include <cctype>
#include <filesystem>
#include <fstream>

#include "tcemu_golden/golden.hpp"
#include "tcemu_golden/npy.hpp"
#include "tcemu_golden/quant_case.hpp"

namespace tcemu::golden {
namespace {

using nlohmann::json;

json array_json(const Array& a) {
  json j;
  j["type"] = a.type.name;
  if (a.is_vector) j["shape"] = {a.rows};
  else {
    j["shape"] = {a.rows, a.cols};
    j["order"] = a.col_major ? "col" : "row";
    if (a.ld) j["ld"] = a.ld;
  }
  if (!a.npy.empty()) j["npy"] = a.npy;
  else j["hex"] = to_hex_string(a);
  return j;
}

json request_json(const OptionRequest& r) {
  json j = json::object();
  if (r.round) j["round"] = std::string(to_string(*r.round));
  if (r.satfinite) j["satfinite"] = *r.satfinite;
  if (r.relu) j["relu"] = *r.relu;
  if (r.ftz) j["ftz"] = *r.ftz;
  return j;
}

// The instruction and shape of an mma or gemm case.
void instruction_json(const MmaSpec& m, json& j) {
  json ins = {{"arch", m.arch}, {"ptx", m.ptx}};
  if (m.entry) {
    // Types are always written out: a reader need not know which spellings leave them out.
    ins["atype"] = std::string(info(m.entry->atype).name);
    ins["btype"] = std::string(info(m.entry->btype).name);
    ins["dtype"] = std::string(to_string(m.entry->dtype));
    if (m.entry->scale_type) ins["stype"] = std::string(info(*m.entry->scale_type).name);
  }
  ins["tile"] = {m.tile_m, m.tile_n};
  j["instruction"] = ins;
  j["shape"] = {{"M", m.M}, {"N", m.N}, {"K", m.K}};
}

// The plan and epilogue of a gemm case: every field resolved (chunk sizes, combine, f32 bits of
// alpha and beta), plus the preset and split count they came from.
void gemm_json(const GemmSpec& g, json& j) {
  const GemmPlan& p = g.plan;
  json plan = {{"schedule", p.chunks.empty() ? "chain" : "split"},
               {"promote_every", p.mma.promote_every},
               {"negate_a", p.mma.negate_a},
               {"negate_b", p.mma.negate_b}};
  if (!p.chunks.empty()) {
    plan["chunks"] = p.chunks;
    plan["combine"] = std::string(to_string(p.combine));
  }
  if (g.preset) plan["preset"] = *g.preset;
  if (g.split_k) plan["split_k"] = *g.split_k;
  if (g.grain) plan["grain"] = *g.grain;
  j["plan"] = plan;
  const Epilogue& e = p.epilogue;
  j["epilogue"] = {{"order", std::string(to_string(e.order))},
                   {"alpha", f32_hex(e.alpha)},
                   {"beta", f32_hex(e.beta)},
                   {"out_type", std::string(info(e.out_type).name)},
                   {"out_round", std::string(to_string(e.out_round))},
                   {"satfinite", e.satfinite}};
}

json case_json(const Case& c) {
  json j;
  j["name"] = c.name;
  j["op"] = std::string(to_string(c.op));
  json ops = json::object();
  for (const auto& [name, a] : c.operands) ops[name] = array_json(a);
  j["operands"] = ops;
  j["expected"] = {{c.expected_name, array_json(c.expected)}};
  for (const auto& [name, a] : c.extra_expected) j["expected"][name] = array_json(a);
  j["provenance"] = c.provenance.fields;
  j["provenance"]["source"] = c.provenance.source;
  if (!c.note.empty()) j["note"] = c.note;
  switch (c.op) {
    case OpKind::mma: {
      const MmaSpec& m = c.mma;
      instruction_json(m, j);
      const MmaOptions& o = m.options;
      j["options"] = {{"promote_every", o.promote_every}, {"negate_a", o.negate_a}, {"negate_b", o.negate_b},
                      {"scale_d", o.scale_d}, {"scale_input_d", o.scale_input_d}};
      break;
    }
    case OpKind::convert:
      j["conversion"] = {{"from", std::string(info(c.conv.from).name)},
                         {"to", std::string(info(c.conv.to).name)},
                         {"convention", c.conv.convention},
                         {"options", request_json(c.conv.request)}};
      break;
    case OpKind::cvt:
      j["instruction"] = {{"ptx", c.cvt.ptx}, {"rs_map", c.cvt.rs_map == RsBitMap::ptx_doc ? "ptx_doc" : "flashinfer_hw"}};
      break;
    case OpKind::quantize:
      j["recipe"] = recipe_json(c.quant.recipe);
      break;
    case OpKind::gemm:
      instruction_json(c.mma, j);
      gemm_json(c.gemm, j);
      break;
  }
  return j;
}

std::string safe(const std::string& s) {
  std::string o;
  for (char ch : s) o.push_back((std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_');
  return o;
}

}  // namespace

std::string plan_summary(const GemmSpec& g) {
  // append() rather than "literal" + std::string: GCC 12's -Wrestrict misfires on the latter.
  std::string s = g.preset ? *g.preset : g.plan.chunks.empty() ? std::string("chain") : std::string(to_string(g.plan.combine));
  if (g.preset && g.plan.chunks.empty()) s.append("-chain");
  if (g.split_k) s.append("-s").append(std::to_string(*g.split_k));
  if (!g.plan.chunks.empty()) {
    s.append("-k");
    for (size_t i = 0; i < g.plan.chunks.size(); ++i) s.append(i ? "." : "").append(std::to_string(g.plan.chunks[i]));
  }
  return s;
}

json to_json(const GoldenFile& f) {
  json doc;
  doc["format"] = std::string(kFormatName);
  doc["version"] = f.version;
  if (!f.description.empty()) doc["description"] = f.description;
  json cases = json::array();
  for (const Case& c : f.cases) cases.push_back(case_json(c));
  doc["cases"] = cases;
  return doc;
}

void write_golden(const std::string& path, GoldenFile& f, size_t npy_threshold) {
  const std::filesystem::path p(path);
  const std::string stem = p.stem().string();
  const std::filesystem::path dir = p.parent_path();
  for (Case& c : f.cases) {
    auto place = [&](const std::string& name, Array& a) {
      if (npy_threshold == 0 || a.storage_count() <= npy_threshold) {
        a.npy.clear();
        return;
      }
      a.npy = stem + "." + safe(c.name) + "." + name + ".npy";
      io::NpyArray n;
      n.descr = npy_descr(a.type);
      if (a.is_vector) n.shape = {a.rows};
      else n.shape = {a.col_major ? a.cols : a.rows, a.lead()};
      n.data = a.raw;
      try {
        io::write_npy((dir / a.npy).string(), n);
      } catch (const io::NpyError& e) {
        throw GoldenError(e.what());
      }
    };
    for (auto& [name, a] : c.operands) place(name, a);
    place(c.expected_name, c.expected);
    for (auto& [name, a] : c.extra_expected) place(name, a);
  }
  std::ofstream out(path);
  if (!out) throw GoldenError(path + ": cannot write");
  out << to_json(f).dump(1) << "\n";
  if (!out) throw GoldenError(path + ": write failed");
}

}  // namespace tcemu::golden
