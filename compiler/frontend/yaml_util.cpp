#include "compiler/frontend/yaml_util.h"

#include <cctype>
#include <charconv>
#include <set>

#include "compiler/frontend/suggest.h"

namespace ptoc::fe {

std::string node_kind(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  return "'" + n.Scalar() + "'";
}

bool is_quoted(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "!"; }

std::optional<int64_t> as_int(const YAML::Node& n) {
  if (!n.IsDefined() || !n.IsScalar() || is_quoted(n)) return std::nullopt;
  const std::string& s = n.Scalar();
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return std::nullopt;
  int64_t v = 0;
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  auto r = std::from_chars(b, s.data() + s.size(), v);
  if (r.ec != std::errc()) return std::nullopt;  // out of int64 range: see int_out_of_range
  return v;
}

bool int_out_of_range(const YAML::Node& n) {
  if (!n.IsDefined() || !n.IsScalar() || is_quoted(n) || as_int(n)) return false;
  const std::string& s = n.Scalar();
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  return true;
}

std::optional<bool> as_bool(const YAML::Node& n) {
  if (!n.IsDefined() || !n.IsScalar() || is_quoted(n)) return std::nullopt;
  const std::string& s = n.Scalar();
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

bool check_map(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& what, Reporter& r,
               SrcLoc fallback) {
  if (!n.IsMap()) {
    SrcLoc l = n.IsDefined() && !n.IsNull() ? YamlSource::loc(n) : fallback;
    r.error(l, what + " must be a mapping, got " + node_kind(n));
    return false;
  }
  std::set<std::string> seen;
  for (auto it = n.begin(); it != n.end(); ++it) {
    // A copy: `it->first` lives in a temporary the iterator hands out, which
    // dies at the end of this statement (a reference to it dangles).
    const YAML::Node k = it->first;
    SrcLoc kl = YamlSource::loc(k);
    if (!k.IsScalar()) {
      r.error(kl, "keys of " + what + " must be plain names");
      continue;
    }
    const std::string& key = k.Scalar();
    if (!seen.insert(key).second) {
      r.error(kl, "duplicate key '" + key + "' in " + what, "remove one of them", int(key.size()));
      continue;
    }
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (!ok) {
      std::string hint = did_you_mean(key, allowed);
      if (hint.empty()) {
        hint = "allowed keys:";
        for (size_t i = 0; i < allowed.size(); ++i) hint += (i ? ", " : " ") + allowed[i];
      }
      r.error(kl, "unknown key '" + key + "' in " + what, hint, int(key.size()));
    }
  }
  return true;
}

YAML::Node key_node(const YAML::Node& n, const std::string& key) {
  if (n.IsMap())
    for (auto it = n.begin(); it != n.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  return YAML::Node(YAML::NodeType::Undefined);
}

SrcLoc value_loc(const YAML::Node& map, const std::string& key) {
  if (map.IsMap())
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) {
        if (it->second.IsNull()) return YamlSource::loc(it->first);
        return YamlSource::loc(it->second);
      }
  return YamlSource::loc(map);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace ptoc::fe
