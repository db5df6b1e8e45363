// The `options:` section (spec-language.md section 6) and `--set` overrides.
#pragma once
#include <set>
#include <string>

#include <yaml-cpp/yaml.h>

#include "compiler/frontend/reporter.h"
#include "compiler/ir.h"

namespace ptoc::fe {

// Reads the file's `options:` mapping into `out`, checking every group, key, type and range.
void read_options(const YAML::Node& options, Options& out, Reporter& r);
// Applies one `--set group.key=value` item (value parsed as YAML); errors go to "<command line>".
void apply_set(const std::string& item, Options& out, Reporter& r);


}  // namespace ptoc::fe
