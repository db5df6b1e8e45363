// Small typed readers over YAML nodes that report instead of throwing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "compiler/frontend/reporter.h"
#include "compiler/frontend/yaml_source.h"

namespace ptoc::fe {

// A YAML node's kind in words, for "expected a mapping, got a list".
std::string node_kind(const YAML::Node& n);
bool is_quoted(const YAML::Node& n);
// Plain (unquoted) integer scalar.
std::optional<int64_t> as_int(const YAML::Node& n);
// An integer scalar outside int64 (as_int gives nullopt for it): "too large", not "not an integer".
bool int_out_of_range(const YAML::Node& n);
// true/false (any case) scalar.
std::optional<bool> as_bool(const YAML::Node& n);

// Checks a mapping's keys: each must be a scalar, unique, and in `allowed`
// (else "unknown key 'X' in WHAT" with a suggestion). Returns false if `n` is
// not a mapping (and reports that).
bool check_map(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& what, Reporter& r,
               SrcLoc fallback = {});
// The key node of `key` inside mapping `n` (for positions), or an undefined node.
YAML::Node key_node(const YAML::Node& n, const std::string& key);
// Position of `key`'s value, or of the key itself when the value is empty/null.
SrcLoc value_loc(const YAML::Node& map, const std::string& key);

bool is_identifier(const std::string& s);

}  // namespace ptoc::fe
