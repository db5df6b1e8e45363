#include "compiler/frontend/dict_constants.h"

#include <cctype>

#include "compiler/frontend/binding_target.h"
#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

size_t skip_space(const std::string& s, size_t i) {
  while (i < s.size() && space(s[i])) ++i;
  return i;
}

// A quoted string at s[i] ('...' or "...", no escapes in a key): its end (one past the closing quote).
std::optional<size_t> string_end(const std::string& s, size_t i) {
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return std::nullopt;
  const size_t close = s.find(s[i], i + 1);
  if (close == std::string::npos || s.find('\\', i + 1) < close) return std::nullopt;
  return close + 1;
}

// From s[i], the first top-level ',' or the first closing bracket without its opening one (quotes skipped):
// where a value inside brackets ends.
std::optional<size_t> scan_to_close(const std::string& s, size_t i) {
  int depth = 0;
  char quote = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth-- == 0) return i;
    } else if (c == ',' && depth == 0) return i;
  }
  return std::nullopt;
}

// The end of a dict entry's value: a top-level ',' or the dict's '}'.
std::optional<size_t> value_end(const std::string& s, size_t i) {
  auto e = scan_to_close(s, i);
  if (!e || (s[*e] != ',' && s[*e] != '}')) return std::nullopt;
  return e;
}

// A value that reads the same without parentheses wherever it is put: a name or an unsigned number, or one
// bracketed or quoted literal ([16, 64], {'a': 1}, 'x'). Knob values read it as written: `(4)` would be a tuple.
bool one_token(const std::string& v) {
  if (v.empty()) return false;
  if (v[0] == '\'' || v[0] == '"') return string_end(v, 0) == v.size();
  if (v[0] == '[' || v[0] == '{') {
    for (size_t i = 1;;) {  // the bracket's own close must end the value
      auto e = scan_to_close(v, i);
      if (!e) return false;
      if (v[*e] != ',') return *e + 1 == v.size();
      i = *e + 1;
    }
  }
  for (char c : v)
    if (!name_char(c) && c != '.') return false;
  return true;
}

}  // namespace

std::optional<DictBinding> dict_binding(const std::string& stmt) {
  auto t = binding_target(stmt);
  if (!t) return std::nullopt;
  size_t i = skip_space(stmt, size_t(t->value));
  if (i >= stmt.size() || stmt[i] != '{') return std::nullopt;
  DictBinding d;
  d.name = stmt.substr(size_t(t->off), size_t(t->len));
  i = skip_space(stmt, i + 1);
  if (i < stmt.size() && stmt[i] == '}') return skip_space(stmt, i + 1) == stmt.size() ? std::optional(d) : std::nullopt;
  while (true) {
    auto ke = string_end(stmt, i);
    if (!ke) return std::nullopt;
    std::string key = stmt.substr(i + 1, *ke - i - 2);
    i = skip_space(stmt, *ke);
    if (i >= stmt.size() || stmt[i] != ':') return std::nullopt;
    const size_t vb = skip_space(stmt, i + 1);
    auto ve = value_end(stmt, vb);
    if (!ve) return std::nullopt;
    size_t vt = *ve;
    while (vt > vb && space(stmt[vt - 1])) --vt;
    if (vt == vb) return std::nullopt;
    if (d.entries.count(key)) d.duplicates.push_back(key);
    d.entries[key] = {stmt.substr(vb, vt - vb), int(vb)};
    i = *ve;
    if (stmt[i] == ',') {
      i = skip_space(stmt, i + 1);
      if (i < stmt.size() && stmt[i] == '}') break;  // a trailing comma
      continue;
    }
    break;  // stmt[i] == '}'
  }
  return skip_space(stmt, i + 1) == stmt.size() ? std::optional(d) : std::nullopt;
}

std::variant<std::monostate, Substituted, LookupError> substitute_dict_lookups(const std::string& text,
                                                                               const PosMapPtr& pos,
                                                                               const DictConstants& dicts,
                                                                               int64_t max_bytes) {
  if (dicts.empty() || text.find('[') == std::string::npos) return std::monostate{};
  std::string out;
  std::vector<SrcLoc> locs;
  auto keep = [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      out += text[k];
      locs.push_back(pos ? pos->at(int(k)) : SrcLoc{});
    }
  };
  size_t copied = 0;
  bool any = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (!name_start(c) || (i > 0 && (name_char(text[i - 1]) || text[i - 1] == '.'))) continue;
    size_t e = i;
    while (e < text.size() && name_char(text[e])) ++e;
    auto d = dicts.find(text.substr(i, e - i));
    size_t j = skip_space(text, e);
    if (d == dicts.end() || j >= text.size() || text[j] != '[') {
      i = e - 1;
      continue;
    }
    const size_t kb = skip_space(text, j + 1);
    auto ke = string_end(text, kb);
    if (!ke) {
      i = e - 1;
      continue;
    }
    const size_t close = skip_space(text, *ke);
    if (close >= text.size() || text[close] != ']') {
      i = e - 1;
      continue;
    }
    const std::string key = text.substr(kb + 1, *ke - kb - 2);
    auto entry = d->second.entries.find(key);
    if (entry == d->second.entries.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : d->second.entries) keys.push_back(k);
      std::string hint = did_you_mean(key, keys);
      if (hint.empty()) {
        for (const auto& k : keys) hint += (hint.empty() ? "its keys are '" : ", '") + k + "'";
        if (keys.empty()) hint = "it is empty";
      }
      return LookupError{int(kb), int(*ke - kb),
                         "the dict '" + d->first + "' (line " + std::to_string(d->second.line) + ") has no key '" +
                             key + "'",
                         hint};
    }
    const DictEntry& v = entry->second;
    if (int64_t(out.size() + (i - copied) + v.value.size() + 2 + (text.size() - close - 1)) > max_bytes)
      return LookupError{int(i), int(close + 1 - i),
                         "with '" + d->first + "['" + key + "']' read in place the text has more than " +
                             std::to_string(max_bytes) + " characters, the limit of a statement",
                         "the dict's values read other dicts' entries that grow at every level; write the value"};
    keep(copied, i);
    const SrcLoc at = pos ? pos->at(int(i)) : SrcLoc{};
    const bool bare = one_token(v.value);
    if (!bare) {
      out += '(';
      locs.push_back(at);
    }
    for (size_t k = 0; k < v.value.size(); ++k) {
      out += v.value[k];
      locs.push_back(d->second.pos ? d->second.pos->at(v.value_off + int(k)) : at);
    }
    if (!bare) {
      out += ')';
      locs.push_back(at);
    }
    copied = close + 1;
    i = close;
    any = true;
  }
  if (!any) return std::monostate{};
  keep(copied, text.size());
  locs.push_back(pos ? pos->at(int(text.size())) : SrcLoc{});
  return Substituted{std::move(out), std::make_shared<const PosMap>(std::move(locs))};
}

}  // namespace ptoc::fe
