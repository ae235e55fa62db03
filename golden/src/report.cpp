// The three renderings of a compare report: text (the terminal), JSON (CI), HTML (a person).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tcemu_golden/compare.hpp"

namespace tcemu::golden {
namespace {

std::string hex(const ElemType& t, uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", t.hex_digits, static_cast<unsigned long long>(v));
  return buf;
}

std::string pct(size_t a, size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0);
  return buf;
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// The heat map: the share of mismatching elements in each cell.
struct Grid {
  size_t gr, gc, cell_r, cell_c;
  std::vector<double> share;
};
Grid grid(const CompareReport& r) {
  Grid g{r.heat_rows, r.heat_cols, r.cell_r, r.cell_c, {}};
  g.share.assign(g.gr * g.gc, 0.0);
  for (size_t i = 0; i < g.gr; ++i)
    for (size_t j = 0; j < g.gc; ++j) {
      const size_t h = std::min(g.cell_r, r.rows - i * g.cell_r), w = std::min(g.cell_c, r.cols - j * g.cell_c);
      g.share[i * g.gc + j] = static_cast<double>(r.heat[i * g.gc + j]) / static_cast<double>(h * w);
    }
  return g;
}

}  // namespace

std::string text_report(const CompareReport& r) {
  std::ostringstream o;
  o << "case " << r.case_name << ": " << r.operation << "\n";
  o << r.expected_name << " is " << r.rows << (r.cols > 1 ? " x " + std::to_string(r.cols) : "") << " " << r.type.name << " ("
    << r.total << " elements)";
  if (r.tile_m > 1 || r.tile_n > 1) o << ", instruction tile " << r.tile_m << " x " << r.tile_n;
  o << (r.nans_equal ? "; NaNs compare equal" : "") << "\n";
  if (r.identical()) {
    o << r.verdict << "\n";
    return o.str();
  }
  o << "mismatches: " << r.mismatches << " of " << r.total << " (" << pct(r.mismatches, r.total) << ")\n\n";
  if (!r.first.empty())  // --max-listed 0 lists none: no header either
    o << "first mismatches (row, col)   expected     actual       expected value      actual value        ulps\n";
  char buf[256];
  for (const Mismatch& m : r.first) {
    std::snprintf(buf, sizeof buf, "  (%zu, %zu)%*s %-12s %-12s %-19s %-19s %s\n", m.row, m.col,
                  static_cast<int>(std::max<int>(0, 24 - static_cast<int>(std::to_string(m.row).size() + std::to_string(m.col).size()))),
                  "", hex(r.type, m.expected).c_str(), hex(r.type, m.actual).c_str(), short_value(r.type, m.expected).c_str(),
                  short_value(r.type, m.actual).c_str(), m.ulps ? std::to_string(*m.ulps).c_str() : "-");
    o << buf;
  }
  o << "\nulp distance histogram:\n";
  size_t most = 1;
  for (const HistBin& b : r.histogram) most = std::max(most, b.count);
  for (const HistBin& b : r.histogram) {
    std::snprintf(buf, sizeof buf, "  %-22s %10zu  ", b.label.c_str(), b.count);
    o << buf << std::string(std::max<size_t>(1, b.count * 40 / most), '#') << "\n";
  }
  o << "\nwhere:\n";
  for (const std::string& f : r.findings) o << "  " << f << "\n";
  if (!r.models.empty()) {
    o << "\nmodels evaluated on " << r.models.front().sampled << " sampled elements (share that matches the actual output):\n";
    for (const ModelFit& m : r.models) {
      std::snprintf(buf, sizeof buf, "  %6zu/%-6zu %7s  ", m.matched, m.sampled, pct(m.matched, m.sampled).c_str());
      o << buf << m.name << (m.is_case_model ? "" : "") << "  [" << m.description << "]\n";
    }
  }
  o << "\n" << r.verdict << "\n";
  return o.str();
}

nlohmann::json json_report(const CompareReport& r) {
  using nlohmann::json;
  json j;
  j["case"] = r.case_name;
  j["operation"] = r.operation;
  j["result"] = r.expected_name;
  j["type"] = r.type.name;
  j["rows"] = r.rows;
  j["cols"] = r.cols;
  j["total"] = r.total;
  j["mismatches"] = r.mismatches;
  j["mismatch_share"] = r.total ? static_cast<double>(r.mismatches) / static_cast<double>(r.total) : 0.0;
  j["identical"] = r.identical();
  j["nans_equal"] = r.nans_equal;
  j["nan_payload_mismatches"] = r.nan_payload;
  j["tile"] = {r.tile_m, r.tile_n};
  json first = json::array();
  for (const Mismatch& m : r.first)
    first.push_back({{"row", m.row},
                     {"col", m.col},
                     {"expected", hex(r.type, m.expected)},
                     {"actual", hex(r.type, m.actual)},
                     {"expected_value", short_value(r.type, m.expected)},
                     {"actual_value", short_value(r.type, m.actual)},
                     {"ulps", m.ulps ? json(*m.ulps) : json(nullptr)}});
  j["first_mismatches"] = first;
  json hist = json::array();
  for (const HistBin& b : r.histogram) hist.push_back({{"ulps", b.label}, {"count", b.count}});
  j["ulp_histogram"] = hist;
  json rows = json::array(), cols = json::array();
  for (size_t i = 0; i < r.row_counts.size(); ++i)
    if (r.row_counts[i] && rows.size() < 1000) rows.push_back({i, r.row_counts[i]});
  for (size_t i = 0; i < r.col_counts.size(); ++i)
    if (r.col_counts[i] && cols.size() < 1000) cols.push_back({i, r.col_counts[i]});
  j["rows_with_mismatches"] = rows;
  j["cols_with_mismatches"] = cols;
  j["in_tile_row_counts"] = r.in_tile_row;
  j["in_tile_col_counts"] = r.in_tile_col;
  j["findings"] = r.findings;
  json models = json::array();
  for (const ModelFit& m : r.models)
    models.push_back({{"name", m.name},
                      {"description", m.description},
                      {"matched", m.matched},
                      {"sampled", m.sampled},
                      {"case_model", m.is_case_model}});
  j["models"] = models;
  j["verdict"] = r.verdict;
  return j;
}

std::string html_report(const CompareReport& r) {
  std::ostringstream o;
  const Grid g = grid(r);
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tcemu compare: " << esc(r.case_name)
    << "</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;max-width:72em}\n"
       "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\n"
       ".ok{color:#070}.bad{color:#b00}.bar{background:#c33;height:.8em;display:inline-block}\n"
       "#heatmap{border:1px solid #888;image-rendering:pixelated}\n</style>\n</head>\n<body>\n";
  o << "<h1>tcemu compare</h1>\n<p>case <b>" << esc(r.case_name) << "</b>: <code>" << esc(r.operation) << "</code></p>\n";
  o << "<table id=\"summary\">\n<tr><th>result</th><td>" << esc(r.expected_name) << ", " << r.rows << " x " << r.cols << " "
    << esc(r.type.name) << "</td></tr>\n<tr><th>elements</th><td>" << r.total << "</td></tr>\n<tr><th>mismatches</th><td id=\"mismatches\" class=\""
    << (r.identical() ? "ok" : "bad") << "\">" << r.mismatches << " (" << pct(r.mismatches, r.total) << ")</td></tr>\n"
    << "<tr><th>instruction tile</th><td>" << r.tile_m << " x " << r.tile_n << "</td></tr>\n</table>\n";
  o << "<p id=\"verdict\" class=\"" << (r.identical() ? "ok" : "bad") << "\">" << esc(r.verdict) << "</p>\n";
  if (!r.models.empty()) {
    o << "<h2>Models</h2>\n<table id=\"models\">\n<tr><th>model</th><th>matches</th><th>what it computes</th></tr>\n";
    for (const ModelFit& m : r.models)
      o << "<tr><td>" << esc(m.name) << "</td><td>" << m.matched << " / " << m.sampled << " (" << pct(m.matched, m.sampled)
        << ")</td><td>" << esc(m.description) << "</td></tr>\n";
    o << "</table>\n";
  }
  if (!r.findings.empty()) {
    o << "<h2>Where</h2>\n<ul id=\"findings\">\n";
    for (const std::string& f : r.findings) o << "<li>" << esc(f) << "</li>\n";
    o << "</ul>\n";
  }
  o << "<h2>Heat map of mismatches</h2>\n<p>Each cell covers " << g.cell_r << " x " << g.cell_c
    << " elements; its colour is the share that differs on a square-root scale that starts at light red, so that a "
       "single mismatching element shows (white none, light red a few, red all).</p>\n";
  o << "<canvas id=\"heatmap\" width=\"" << g.gc << "\" height=\"" << g.gr << "\" data-rows=\"" << g.gr << "\" data-cols=\""
    << g.gc << "\" data-rendered=\"false\" style=\"width:" << std::min<size_t>(768, std::max<size_t>(g.gc * 4, 64)) << "px\"></canvas>\n";
  o << "<script type=\"application/json\" id=\"heatmap-data\">{\"rows\":" << g.gr << ",\"cols\":" << g.gc
    << ",\"cell\":[" << g.cell_r << "," << g.cell_c << "],\"tile\":[" << r.tile_m << "," << r.tile_n << "],\"share\":[";
  char buf[32];
  for (size_t i = 0; i < g.share.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.3g", i ? "," : "", g.share[i]);
    o << buf;
  }
  o << "]}</script>\n";
  o << "<script>\n(function(){\n"
       "var d=JSON.parse(document.getElementById('heatmap-data').textContent);\n"
       "var cv=document.getElementById('heatmap');var ctx=cv.getContext('2d');\n"
       "var img=ctx.createImageData(d.cols,d.rows);var painted=0;var faintest=0;\n"
       "for(var i=0;i<d.share.length;i++){var s=d.share[i];var p=i*4;var t=s>0?0.3+0.7*Math.sqrt(s):0;"
       "img.data[p]=255;img.data[p+1]=Math.round(255*(1-t));img.data[p+2]=Math.round(255*(1-t));img.data[p+3]=255;"
       "if(s>0){painted++;faintest=Math.max(faintest,img.data[p+1]);}}\n"
       "ctx.putImageData(img,0,0);\n"
       "cv.style.height=(parseFloat(cv.style.width)*d.rows/d.cols)+'px';\n"
       "cv.setAttribute('data-painted',String(painted));cv.setAttribute('data-faintest',String(faintest));cv.setAttribute('data-rendered','true');\n"
       "})();\n</script>\n";
  if (!r.first.empty()) {
    o << "<h2>First mismatches</h2>\n<table id=\"first\">\n<tr><th>row</th><th>col</th><th>expected</th><th>actual</th>"
         "<th>expected value</th><th>actual value</th><th>ulps</th></tr>\n";
    for (const Mismatch& m : r.first)
      o << "<tr><td>" << m.row << "</td><td>" << m.col << "</td><td>" << hex(r.type, m.expected) << "</td><td>"
        << hex(r.type, m.actual) << "</td><td>" << esc(short_value(r.type, m.expected)) << "</td><td>"
        << esc(short_value(r.type, m.actual)) << "</td><td>" << (m.ulps ? std::to_string(*m.ulps) : "-") << "</td></tr>\n";
    o << "</table>\n";
  }
  if (!r.histogram.empty()) {
    size_t most = 1;
    for (const HistBin& b : r.histogram) most = std::max(most, b.count);
    o << "<h2>ulp distances</h2>\n<table id=\"histogram\">\n";
    for (const HistBin& b : r.histogram)
      o << "<tr><td>" << esc(b.label) << "</td><td>" << b.count << "</td><td><span class=\"bar\" style=\"width:"
        << std::max<size_t>(1, b.count * 300 / most) << "px\"></span></td></tr>\n";
    o << "</table>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace tcemu::golden
