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
  }
  return j;
}

std::string safe(const std::string& s) {
  std::string o;
  for (char ch : s) o.push_back((std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_');
  return o;
}

}  // namespace

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
