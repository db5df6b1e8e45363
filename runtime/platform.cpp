#include "platform.h"

namespace ptoc {
// TODO(sim work): the four platform descriptions with their sources.
const std::vector<Platform>& all_platforms() {
  static const std::vector<Platform> v;
  return v;
}
const Platform* find_platform(std::string_view name) {
  for (const auto& p : all_platforms())
    if (p.name == name) return &p;
  return nullptr;
}
std::string platform_names() {
  std::string s;
  for (const auto& p : all_platforms()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}
}  // namespace ptoc
