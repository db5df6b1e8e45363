#include "compiler/frontend/func_key.h"

#include <cctype>
#include <tuple>

namespace ptoc::fe {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!digit(c)) return false;
  return true;
}

}  // namespace

std::optional<FuncKey> func_key(std::string_view text) {
  if (text.substr(0, 4) != "func") return std::nullopt;
  const std::string_view rest = text.substr(4);
  const size_t us = rest.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  FuncKey k{rest.substr(0, us), rest.substr(us + 1)};
  if (!all_digits(k.magic) || !all_digits(k.order)) return std::nullopt;
  return k;
}

bool is_integer_text(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  return all_digits(text);
}

std::optional<CallHead> call_head(std::string_view s) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < s.size() && space(s[i])) ++i;
  };
  auto name = [&]() -> std::pair<size_t, size_t> {
    const size_t b = i;
    if (i >= s.size() || !name_start(s[i])) return {b, 0};
    while (i < s.size() && name_char(s[i])) ++i;
    return {b, i - b};
  };
  skip_space();
  auto [b, n] = name();
  if (n == 0) return std::nullopt;
  skip_space();
  if (s.substr(b, n) == "pypto" && i < s.size() && s[i] == '.') {
    ++i;
    skip_space();
    std::tie(b, n) = name();
    if (n == 0) return std::nullopt;
    skip_space();
  }
  if (i >= s.size() || s[i] != '(') return std::nullopt;
  return CallHead{int(b), int(n), int(i)};
}

}  // namespace ptoc::fe
