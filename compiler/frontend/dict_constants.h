// Python dicts of constants, as PyPTO's models keep their parameters (`params = {"b": 4, "s2": 1024 * 64}`,
// then `b = params["b"]`, `x * extend_param['scale']`). A top-level `NAME = {KEY: VALUE, ...}` with string keys
// is recorded here; every later `NAME['KEY']` in a statement, a condition or a dim expression is replaced by
// `(VALUE)` before it is parsed, so the value means what it would mean written in its place (a constant, a
// float, a shape list, a dim expression). The replacement's characters keep the positions of the value in
// the dict's own statement, so an error in a value points at the dict. There are no dict values at run time.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/frontend/yaml_source.h"

namespace ptoc::fe {

struct DictEntry {
  std::string value;    // the value's text, trimmed
  int value_off = 0;    // its offset in the binding statement
};

struct DictConstant {
  std::map<std::string, DictEntry> entries;
  PosMapPtr pos;  // positions of the binding statement's characters
  int line = 0;   // its line
};
using DictConstants = std::map<std::string, DictConstant>;

// `NAME = {'K': V, "K2": V2, ...}` (string keys, values any balanced text without a top-level comma): its name
// and entries. nullopt for anything else (no dict, a key that is not a string, unbalanced brackets).
struct DictBinding {
  std::string name;
  std::map<std::string, DictEntry> entries;
  std::vector<std::string> duplicates;  // keys given twice (Python keeps the last)
};
std::optional<DictBinding> dict_binding(const std::string& stmt);

// `text` with every `NAME['KEY']` / `NAME["KEY"]` of a dict in `dicts` replaced by `(VALUE)` and its position map;
// monostate when `text` has no such lookup. A key the dict lacks is a LookupError at the key; so is a lookup that
// makes the text longer than `max_bytes` (values that read other dicts can double at every level).
struct Substituted {
  std::string text;
  PosMapPtr pos;
};
struct LookupError {
  int off = 0, len = 1;
  std::string message, hint;
};
std::variant<std::monostate, Substituted, LookupError> substitute_dict_lookups(const std::string& text,
                                                                               const PosMapPtr& pos,
                                                                               const DictConstants& dicts,
                                                                               int64_t max_bytes);

}  // namespace ptoc::fe
