#include "tcemu_golden/instr_tile.hpp"

namespace tcemu::golden {
namespace {
bool is_tcgen05(const InstrEntry& e) { return e.ptx.rfind("tcgen05", 0) == 0; }
bool cta_pair(const InstrEntry& e) { return e.ptx.find("cta_group::2") != std::string::npos; }
}  // namespace

InstrTile default_tile(const InstrEntry& e) {
  if (is_tcgen05(e)) return cta_pair(e) ? InstrTile{128, 16} : InstrTile{64, 8};
  return InstrTile{e.M, e.N};
}

std::string check_tile(const InstrEntry& e, InstrTile t) {
  if (!is_tcgen05(e)) {
    if (t.m != e.M || t.n != e.N)
      return "the tile of " + e.ptx + " is " + std::to_string(e.M) + " x " + std::to_string(e.N);
    return "";
  }
  const bool pair = cta_pair(e);
  const bool m_ok = pair ? (t.m == 128 || t.m == 256) : (t.m == 64 || t.m == 128);
  if (!m_ok) return std::string("tcgen05 ") + (pair ? "cta_group::2 takes M = 128 or 256" : "cta_group::1 takes M = 64 or 128");
  const int step = (!pair && t.m == 64) ? 8 : 16;
  if (t.n < step || t.n > 256 || t.n % step != 0)
    return "tcgen05 with M = " + std::to_string(t.m) + " takes N = " + std::to_string(step) + ".." + "256 in steps of " +
           std::to_string(step);
  return "";
}

}  // namespace tcemu::golden
