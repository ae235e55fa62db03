// check_dot_args: the preconditions of fdpa_step and fdpa_dot (datapath.hpp) as a message, so
// that a caller holding user data checks first and an exception stays a programming error
// (docs/architecture.md, "Errors").
#include <string>

#include "tcemu/datapath.hpp"

namespace tcemu {

std::string check_dot_args(const DatapathParams& p, Fmt fa, Fmt fb, size_t na, size_t nb, const BlockScales* scales,
                           bool step) {
  if (nb != na) return "a and b differ in length";
  const size_t L = static_cast<size_t>(p.L);
  const bool scaled = p.kind == DatapathKind::st_fdpa || p.kind == DatapathKind::gst_fdpa;
  if (step && na > L) return "a step takes at most L terms";
  if (!step && scales && scaled && (scales->block < 1 || L % static_cast<size_t>(scales->block) != 0))
    return "L must be a multiple of the scale block";
  if (std::string e = validate(p, fa, fb, scales ? std::optional<Fmt>(scales->fmt) : std::nullopt); !e.empty()) return e;
  if (!scaled) return {};
  if (!scales) return "block-scaled datapath needs scales";
  if (scales->block < 1) return "scale block must be positive";
  const size_t need = (na + static_cast<size_t>(scales->block) - 1) / static_cast<size_t>(scales->block);
  if (scales->a.size() < need || scales->b.size() < need) return "expected " + std::to_string(need) + " scales per operand";
  return {};
}

}  // namespace tcemu
