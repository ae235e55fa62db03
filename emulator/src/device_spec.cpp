// Parsing and printing where a computation runs (tcemu/parallel.hpp).
#include <charconv>

#include "tcemu/parallel.hpp"

namespace tcemu {

std::optional<DeviceSpec> parse_device(std::string_view s) {
  if (s == "cpu") return DeviceSpec{};
  if (s == "cuda") return DeviceSpec{DeviceSpec::Kind::cuda, 0};
  if (!s.starts_with("cuda:") || s.size() == 5 || s.size() > 9) return std::nullopt;
  int index = 0;
  const char* first = s.data() + 5;
  const char* last = s.data() + s.size();
  auto [end, ec] = std::from_chars(first, last, index);
  if (ec != std::errc{} || end != last || index < 0) return std::nullopt;
  return DeviceSpec{DeviceSpec::Kind::cuda, index};
}

std::string to_string(const DeviceSpec& d) {
  if (d.kind == DeviceSpec::Kind::cpu) return "cpu";
  return "cuda:" + std::to_string(d.index);
}

}  // namespace tcemu
