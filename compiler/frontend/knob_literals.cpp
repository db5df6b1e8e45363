#include "compiler/frontend/knob_literals.h"

#include <cctype>

#include "compiler/frontend/binding_target.h"

namespace ptoc::fe {

namespace {

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `v` is one literal: brackets balanced, every word True / False / None or inside a string or part of a
// number (1e-6), nothing but literal punctuation between.
bool is_literal(const std::string& v) {
  if (v.empty()) return false;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') { quote = c; continue; }
    if (c == '{' || c == '[' || c == '(') { ++depth; continue; }
    if (c == '}' || c == ']' || c == ')') {
      if (--depth < 0) return false;
      continue;
    }
    if (name_start(c)) {
      size_t j = i;
      while (j < v.size() && name_char(v[j])) ++j;
      const std::string w = v.substr(i, j - i);
      // an exponent's e belongs to the number before it
      const bool exponent = (w[0] == 'e' || w[0] == 'E') && i > 0 && std::isdigit(static_cast<unsigned char>(v[i - 1]));
      if (!(w == "True" || w == "False" || w == "None" || exponent)) return false;
      i = j - 1;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == ',' || c == ':' || c == '-' || c == '+' || c == '.') continue;
    return false;
  }
  return depth == 0 && !quote;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> literal_binding(const std::string& stmt) {
  auto t = binding_target(stmt);
  if (!t) return std::nullopt;
  std::string v = stmt.substr(size_t(t->value));
  const size_t b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
  if (b == std::string::npos) return std::nullopt;
  v = v.substr(b, e - b + 1);
  if (!is_literal(v)) return std::nullopt;
  return std::make_pair(stmt.substr(size_t(t->off), size_t(t->len)), v);
}

}  // namespace ptoc::fe
