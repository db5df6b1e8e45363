// YAML document -> SpecAst: top-level keys, dims, tensor types, options and
// the statement tree (statement strings parsed here). Reports syntax and
// shape-of-the-YAML errors; meaning is checked by the elaborator.
#pragma once
#include <optional>

#include <yaml-cpp/yaml.h>

#include "compiler/frontend/reporter.h"
#include "compiler/frontend/spec_ast.h"

namespace ptoc::fe {

// nullopt when the document cannot be read at all (not YAML, not a mapping).
std::optional<SpecAst> read_spec(const std::string& text, Reporter& r);

}  // namespace ptoc::fe
