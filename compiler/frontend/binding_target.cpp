#include "compiler/frontend/binding_target.h"

#include <cctype>

namespace ptoc::fe {

std::optional<BindingTarget> binding_target(std::string_view s) {
  auto space = [&](size_t i) { return i < s.size() && std::isspace(static_cast<unsigned char>(s[i])); };
  auto name_char = [&](size_t i) {
    return i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_');
  };
  size_t i = 0;
  while (space(i)) ++i;
  if (i >= s.size() || !(std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) return std::nullopt;
  size_t j = i;
  while (name_char(j)) ++j;
  size_t k = j;
  while (space(k)) ++k;
  if (k >= s.size() || s[k] != '=' || k + 1 >= s.size() || s[k + 1] == '=') return std::nullopt;
  return BindingTarget{int(i), int(j - i), int(k + 1)};
}

}  // namespace ptoc::fe
